// torch.optim.lr_scheduler's StepLR, CosineAnnealingLR, LinearLR, LambdaLR, OneCycleLR and
// SequentialLR, in Python's double arithmetic (cos from ditto's dmath, the same on every
// platform), for every parameter group.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "cpu/dmath.h"
#include "ditto/optim.h"

namespace ditto::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  for (std::size_t g = 0; g < optimizer.num_groups(); ++g) {
    GroupOptions& o = optimizer.group(g);
    if (!o.initial_lr) o.initial_lr = o.lr;
    base_lrs_.push_back(*o.initial_lr);
  }
}

void LRScheduler::initial_step() { step(); }

void LRScheduler::set_lrs(std::vector<double> lrs) {
  for (std::size_t g = 0; g < lrs.size(); ++g) optimizer_.group(g).lr = lrs[g];
  last_lrs_ = std::move(lrs);
}

void LRScheduler::step() {
  ++last_epoch_;
  std::vector<double> lrs;
  for (std::size_t g = 0; g < optimizer_.num_groups(); ++g) lrs.push_back(get_lr(g));
  set_lrs(std::move(lrs));
}

void LRScheduler::step_to(int64_t epoch) {
  last_epoch_ = epoch;
  std::vector<double> lrs;
  for (std::size_t g = 0; g < optimizer_.num_groups(); ++g) {
    const std::optional<double> closed = closed_form_lr(g);
    lrs.push_back(closed ? *closed : get_lr(g));
  }
  set_lrs(std::move(lrs));
}

void LRScheduler::load_state_dict(const SchedulerState& s) {
  DITTO_CHECK(s.base_lrs.size() == optimizer_.num_groups() && s.last_lrs.size() == optimizer_.num_groups(),
              "load_state_dict", "the scheduler's state has ", s.base_lrs.size(), " parameter groups, its optimizer ",
              optimizer_.num_groups());
  last_epoch_ = s.last_epoch;
  base_lrs_ = s.base_lrs;
  last_lrs_ = s.last_lrs;
}

// --- StepLR
StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  DITTO_CHECK(step_size > 0, "StepLR", "step_size must be positive, got ", step_size);
  initial_step();
}

double StepLR::get_lr(std::size_t g) {
  const double lr = optimizer_.group(g).lr;
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lr;
  return lr * gamma_;
}

std::optional<double> StepLR::closed_form_lr(std::size_t g) const {
  return base_lrs_[g] * dmath::pow(gamma_, static_cast<double>(last_epoch_ / step_size_));
}

// --- CosineAnnealingLR
CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  DITTO_CHECK(T_max > 0, "CosineAnnealingLR", "T_max must be positive, got ", T_max);
  initial_step();
}

double CosineAnnealingLR::get_lr(std::size_t g) {
  constexpr double pi = std::numbers::pi;
  const double lr = optimizer_.group(g).lr, T = static_cast<double>(T_max_), e = static_cast<double>(last_epoch_);
  if (last_epoch_ == 0) return lr;
  const int64_t period = 2 * T_max_;
  const int64_t phase = ((last_epoch_ - 1 - T_max_) % period + period) % period;  // Python's %
  if (phase == 0) return lr + (base_lrs_[g] - eta_min_) * (1 - dmath::cos_correctly_rounded(pi / T)) / 2;
  return (1 + dmath::cos_correctly_rounded(pi * e / T)) / (1 + dmath::cos_correctly_rounded(pi * (e - 1) / T)) *
             (lr - eta_min_) +
         eta_min_;
}

std::optional<double> CosineAnnealingLR::closed_form_lr(std::size_t g) const {
  constexpr double pi = std::numbers::pi;
  return eta_min_ +
         (base_lrs_[g] - eta_min_) *
             (1 + dmath::cos_correctly_rounded(pi * static_cast<double>(last_epoch_) / static_cast<double>(T_max_))) /
             2;
}

// --- LinearLR
LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters)
    : LRScheduler(optimizer), start_(start_factor), end_(end_factor), total_iters_(total_iters) {
  DITTO_CHECK(start_factor > 0 && start_factor <= 1, "LinearLR",
              "Starting multiplicative factor expected to be greater than 0 and less or equal to 1, got ",
              start_factor);
  DITTO_CHECK(end_factor >= 0 && end_factor <= 1, "LinearLR",
              "Ending multiplicative factor expected to be between 0 and 1, got ", end_factor);
  DITTO_CHECK(total_iters > 0, "LinearLR", "total_iters must be positive, got ", total_iters);
  initial_step();
}

double LinearLR::get_lr(std::size_t g) {
  const double lr = optimizer_.group(g).lr;
  if (last_epoch_ == 0) return lr * start_;
  if (last_epoch_ > total_iters_) return lr;
  const double d = end_ - start_;
  return lr * (1.0 + d / (static_cast<double>(total_iters_) * start_ + static_cast<double>(last_epoch_ - 1) * d));
}

std::optional<double> LinearLR::closed_form_lr(std::size_t g) const {
  const double done = static_cast<double>(std::min(total_iters_, last_epoch_));
  return base_lrs_[g] * (start_ + (end_ - start_) * done / static_cast<double>(total_iters_));
}

// --- LambdaLR
LambdaLR::LambdaLR(Optimizer& optimizer, Lambda lr_lambda)
    : LambdaLR(optimizer, std::vector<Lambda>(optimizer.num_groups(), lr_lambda)) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas)
    : LRScheduler(optimizer), lambdas_(std::move(lr_lambdas)) {
  DITTO_CHECK(lambdas_.size() == optimizer.num_groups(), "LambdaLR", "Expected ", optimizer.num_groups(),
              " lr_lambdas, but got ", lambdas_.size());
  for (const Lambda& f : lambdas_) DITTO_CHECK(static_cast<bool>(f), "LambdaLR", "an lr_lambda is empty");
  initial_step();
}

double LambdaLR::get_lr(std::size_t g) { return base_lrs_[g] * lambdas_[g](last_epoch_); }

// --- OneCycleLR
OneCycleLR::OneCycleLR(Optimizer& optimizer, double max_lr, int64_t total_steps, const OneCycleOptions& options)
    : OneCycleLR(optimizer, std::vector<double>(optimizer.num_groups(), max_lr), total_steps, options) {}

OneCycleLR::OneCycleLR(Optimizer& optimizer, std::vector<double> max_lrs, int64_t total_steps, const OneCycleOptions& o)
    : LRScheduler(optimizer), total_steps_(total_steps), o_(o) {
  DITTO_CHECK(total_steps > 0, "OneCycleLR", "Expected positive integer total_steps, but got ", total_steps);
  DITTO_CHECK(o.pct_start >= 0 && o.pct_start <= 1, "OneCycleLR", "Expected float between 0 and 1 pct_start, but got ",
              o.pct_start);
  DITTO_CHECK(o.anneal_strategy == "cos" || o.anneal_strategy == "linear", "OneCycleLR",
              "anneal_strategy must by one of 'cos' or 'linear', instead got ", o.anneal_strategy);
  DITTO_CHECK(max_lrs.size() == optimizer.num_groups(), "OneCycleLR", "expected ", optimizer.num_groups(),
              " values for max_lr, got ", max_lrs.size());
  const double n = static_cast<double>(total_steps), up = o.pct_start * n - 1;
  if (o.three_phase)
    phases_ = {{up, 0, 1, 0, 1}, {2 * o.pct_start * n - 2, 1, 0, 1, 0}, {n - 1, 0, 2, 0, 0}};
  else
    phases_ = {{up, 0, 1, 0, 1}, {n - 1, 1, 2, 1, 0}};
  for (std::size_t g = 0; g < optimizer.num_groups(); ++g) {
    const double initial = max_lrs[g] / o.div_factor;
    lrs_.push_back({initial, max_lrs[g], initial / o.final_div_factor});
    optimizer.group(g).initial_lr = initial;
    base_lrs_[g] = initial;
    if (o.cycle_momentum) optimizer.group(g).momentum = o.max_momentum;
  }
  initial_step();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (o_.anneal_strategy == "cos")
    return end + (start - end) / 2.0 * (dmath::cos_correctly_rounded(std::numbers::pi * pct) + 1);
  return (end - start) * pct + start;
}

double OneCycleLR::get_lr(std::size_t g) {
  DITTO_CHECK(last_epoch_ <= total_steps_, "OneCycleLR", "Tried to step ", last_epoch_ + 1,
              " times. The specified number of total steps is ", total_steps_);
  const double step = static_cast<double>(last_epoch_);
  const Lrs& l = lrs_[g];
  const double by_index[3] = {l.initial, l.max, l.min};
  double start_step = 0;
  for (std::size_t i = 0; i < phases_.size(); ++i) {
    const Phase& ph = phases_[i];
    if (step <= ph.end_step || i + 1 == phases_.size()) {
      const double pct = (step - start_step) / (ph.end_step - start_step);
      const double momenta[2] = {o_.max_momentum, o_.base_momentum};
      if (o_.cycle_momentum) optimizer_.group(g).momentum = anneal(momenta[ph.start_m], momenta[ph.end_m], pct);
      return anneal(by_index[ph.start_lr], by_index[ph.end_lr], pct);
    }
    start_step = ph.end_step;
  }
  return optimizer_.group(g).lr;  // not reached: the last phase always answers
}

// --- SequentialLR
SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<LRScheduler*> schedulers, std::vector<int64_t> milestones)
    : LRScheduler(optimizer), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  DITTO_CHECK(!schedulers_.empty(), "SequentialLR", "expects at least one scheduler");
  for (std::size_t i = 0; i < schedulers_.size(); ++i) {
    DITTO_CHECK(schedulers_[i] != nullptr, "SequentialLR", "scheduler ", i, " is null");
    DITTO_CHECK(&schedulers_[i]->optimizer_ == &optimizer, "SequentialLR",
                "Sequential Schedulers expects all schedulers to belong to the same optimizer, but got schedulers at "
                "index ",
                i, " to be different than the optimizer passed in.");
  }
  DITTO_CHECK(milestones_.size() + 1 == schedulers_.size(), "SequentialLR",
              "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
              "milestone points, but got number of schedulers ",
              schedulers_.size(), " and the number of milestones to be equal to ", milestones_.size());
  last_epoch_ = 0;
  for (std::size_t g = 0; g < optimizer.num_groups(); ++g) optimizer.group(g).lr = *optimizer.group(g).initial_lr;
  for (LRScheduler* s : schedulers_) --s->last_epoch_;  // undo the step each took when it was made
  schedulers_[0]->initial_step();
  last_lrs_ = schedulers_[0]->last_lrs_;
}

void SequentialLR::step() {
  ++last_epoch_;
  const auto idx = static_cast<std::size_t>(std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) -
                                            milestones_.begin());
  LRScheduler* s = schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_)
    s->step_to(0);
  else
    s->step();
  last_lrs_ = s->last_lrs_;
}

double SequentialLR::get_lr(std::size_t g) { return optimizer_.group(g).lr; }  // step() asks its schedulers

}  // namespace ditto::optim
