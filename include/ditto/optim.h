#pragma once
// Optimizers with PyTorch's update formulas (torch.optim, the single-tensor CPU path).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ditto/tensor.h"

namespace ditto::optim {

// Saved optimizer state: per parameter (by index over all groups), named tensors; plus the step count.
struct OptimizerState {
  int64_t step = 0;
  std::vector<std::map<std::string, Tensor>> per_param;
};

// A parameter group (torch.optim's param_groups): its parameters and, where set, its own lr and
// weight_decay instead of the optimizer's. The usual split, no decay for norms and biases:
//   AdamW({{decay, {}, {}}, {no_decay, {}, 0.0}}, options)
struct ParamGroup {
  std::vector<Tensor> params;
  std::optional<double> lr;
  std::optional<double> weight_decay;
};

// What a group runs with now; schedulers change lr (and OneCycleLR momentum).
struct GroupOptions {
  double lr = 0.0;
  double weight_decay = 0.0;
  double momentum = 0.0;             // SGD's momentum, Adam's beta1 (what OneCycleLR cycles)
  std::optional<double> initial_lr;  // PyTorch's "initial_lr": set by the first scheduler made
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  virtual void step() = 0;
  // Clears (set_to_none, PyTorch 2.x's default) or zeroes the gradients.
  void zero_grad(bool set_to_none = true);
  const std::vector<Tensor>& params() const { return params_; }  // every group's, in order
  std::size_t num_groups() const { return groups_.size(); }
  GroupOptions& group(std::size_t g) { return groups_.at(g); }
  const GroupOptions& group(std::size_t g) const { return groups_.at(g); }
  std::vector<Tensor> group_params(std::size_t g) const;
  double lr() const { return groups_[0].lr; }  // the first group's
  void set_lr(double lr);                      // every group's
  // A deep copy of the state (buffers are cloned), and its restoration.
  virtual OptimizerState state_dict() const;
  virtual void load_state_dict(const OptimizerState& state);

 protected:
  // Each group's unset options come from `defaults`; `name` heads the errors.
  Optimizer(std::vector<ParamGroup> groups, const GroupOptions& defaults, const char* name);
  // Calls fn(group options, parameter index) for every parameter that has a gradient.
  template <class Fn>
  void for_each_param_with_grad(Fn&& fn) {
    for (std::size_t g = 0; g < groups_.size(); ++g)
      for (std::size_t i = begin_[g]; i < begin_[g + 1]; ++i)
        if (params_[i].grad().defined()) fn(groups_[g], i);
  }
  std::vector<Tensor> params_;
  std::vector<GroupOptions> groups_;
  std::vector<std::size_t> begin_;  // group g holds params_[begin_[g], begin_[g + 1])
  OptimizerState state_;
};

struct SGDOptions {
  double lr = 1e-3;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
  bool maximize = false;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, double lr, double momentum = 0.0, double dampening = 0.0, double weight_decay = 0.0,
      bool nesterov = false);
  SGD(std::vector<Tensor> params, const SGDOptions& options);
  SGD(std::vector<ParamGroup> groups, const SGDOptions& options);
  void step() override;

 private:
  SGDOptions o_;
};

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;  // AdamW's default is 1e-2
  bool amsgrad = false;
  bool maximize = false;
};

// torch.optim.Adam's single-tensor step (PyTorch 2.x: exp_avg.lerp_), with its arithmetic order
// and its fused operations (lerp, addcmul are one fma each, as in PyTorch's CPU kernels). State
// per parameter: "step" (float32 0-dim, as PyTorch), "exp_avg", "exp_avg_sq" and, with amsgrad,
// "max_exp_avg_sq"; all are in state_dict().
class Adam : public Optimizer {
 public:
  explicit Adam(std::vector<Tensor> params, double lr = 1e-3, std::pair<double, double> betas = {0.9, 0.999},
                double eps = 1e-8, double weight_decay = 0.0, bool amsgrad = false);
  Adam(std::vector<Tensor> params, const AdamOptions& options);
  Adam(std::vector<ParamGroup> groups, const AdamOptions& options);
  void step() override;
  const AdamOptions& options() const { return o_; }  // the defaults; group(g) has each group's

 protected:
  Adam(std::vector<ParamGroup> groups, const AdamOptions& options, bool decoupled, const char* name);

 private:
  AdamOptions o_;
  bool decoupled_ = false;  // AdamW: param *= 1 - lr * weight_decay instead of grad += wd * param
};

// torch.optim.AdamW: Adam with decoupled weight decay (default 1e-2).
class AdamW : public Adam {
 public:
  explicit AdamW(std::vector<Tensor> params, double lr = 1e-3, std::pair<double, double> betas = {0.9, 0.999},
                 double eps = 1e-8, double weight_decay = 1e-2, bool amsgrad = false);
  AdamW(std::vector<Tensor> params, const AdamOptions& options);
  AdamW(std::vector<ParamGroup> groups, const AdamOptions& options);
};

// Learning-rate schedulers (torch.optim.lr_scheduler, chainable form: each step() derives the
// new lr of every group from its current one, as PyTorch's get_lr, in Python's double
// arithmetic). Construction performs PyTorch's initial step (last_epoch 0); call step() after
// each optimizer.step(). The first scheduler made for an optimizer records each group's
// initial_lr; every scheduler's base lrs are those.
struct SchedulerState {
  int64_t last_epoch = 0;
  std::vector<double> base_lrs;  // per group
  std::vector<double> last_lrs;
};

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;
  virtual void step();
  // Its position (what step() reads besides the optimizer's lrs), for checkpoints.
  SchedulerState state_dict() const { return {last_epoch_, base_lrs_, last_lrs_}; }
  void load_state_dict(const SchedulerState& s);
  double get_last_lr() const { return last_lrs_.at(0); }  // the first group's
  const std::vector<double>& get_last_lrs() const { return last_lrs_; }
  int64_t last_epoch() const { return last_epoch_; }
  double base_lr() const { return base_lrs_.at(0); }
  const Optimizer& optimizer() const { return optimizer_; }
  // The schedulers this one drives (SequentialLR's); checkpoints save and restore them with it.
  virtual std::vector<LRScheduler*> children() const { return {}; }

 protected:
  explicit LRScheduler(Optimizer& optimizer);
  void initial_step();  // the end of every constructor: PyTorch's _initial_step
  // Group g's lr for last_epoch_, from its current lr (the chainable form).
  virtual double get_lr(std::size_t g) = 0;
  // PyTorch's _get_closed_form_lr, where the scheduler has one (step(epoch) uses it).
  virtual std::optional<double> closed_form_lr(std::size_t /*g*/) const { return std::nullopt; }
  void step_to(int64_t epoch);  // PyTorch's (deprecated) step(epoch), which SequentialLR calls
  void set_lrs(std::vector<double> lrs);
  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_ = -1;
  std::vector<double> last_lrs_;
  friend class SequentialLR;
};

// lr *= gamma every step_size epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  double get_lr(std::size_t g) override;
  std::optional<double> closed_form_lr(std::size_t g) const override;

 private:
  int64_t step_size_;
  double gamma_;
};

// Cosine annealing from the base lr to eta_min over T_max epochs (then back up, periodically),
// in PyTorch's recursive form.
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0.0);

 protected:
  double get_lr(std::size_t g) override;
  std::optional<double> closed_form_lr(std::size_t g) const override;

 private:
  int64_t T_max_;
  double eta_min_;
};

// The lr scaled by a factor going linearly from start_factor to end_factor over total_iters
// epochs (the usual warmup).
class LinearLR : public LRScheduler {
 public:
  explicit LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
                    int64_t total_iters = 5);

 protected:
  double get_lr(std::size_t g) override;
  std::optional<double> closed_form_lr(std::size_t g) const override;

 private:
  double start_, end_;
  int64_t total_iters_;
};

// lr = base lr * lambda(epoch); one function for every group, or one per group.
class LambdaLR : public LRScheduler {
 public:
  using Lambda = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, Lambda lr_lambda);
  LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas);

 protected:
  double get_lr(std::size_t g) override;

 private:
  std::vector<Lambda> lambdas_;
};

// The 1cycle policy (torch.optim.lr_scheduler.OneCycleLR): from max_lr / div_factor up to max_lr
// over pct_start of total_steps, then down to initial / final_div_factor (three_phase: back to
// the initial lr first), cosine or linear; with cycle_momentum the group's momentum (SGD's
// momentum, Adam's beta1) moves the opposite way between max_momentum and base_momentum.
struct OneCycleOptions {
  double pct_start = 0.3;
  std::string anneal_strategy = "cos";  // or "linear"
  bool cycle_momentum = true;
  double base_momentum = 0.85;
  double max_momentum = 0.95;
  double div_factor = 25.0;
  double final_div_factor = 1e4;
  bool three_phase = false;
};

class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, double max_lr, int64_t total_steps, const OneCycleOptions& options = {});
  OneCycleLR(Optimizer& optimizer, std::vector<double> max_lrs, int64_t total_steps,
             const OneCycleOptions& options = {});

 protected:
  double get_lr(std::size_t g) override;

 private:
  struct Phase {
    double end_step;
    int start_lr, end_lr;  // 0 initial, 1 max, 2 min
    int start_m, end_m;    // 0 max_momentum, 1 base_momentum
  };
  struct Lrs {
    double initial, max, min;
  };
  double anneal(double start, double end, double pct) const;
  int64_t total_steps_;
  OneCycleOptions o_;
  std::vector<Phase> phases_;
  std::vector<Lrs> lrs_;  // per group
};

// schedulers[i] drives the lr from milestones[i - 1] on (warmup, then cosine, ...), PyTorch's
// rules: each scheduler restarts at its milestone with step(0). It does not own them.
class SequentialLR : public LRScheduler {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<LRScheduler*> schedulers, std::vector<int64_t> milestones);
  void step() override;
  std::vector<LRScheduler*> children() const override { return schedulers_; }

 protected:
  double get_lr(std::size_t g) override;

 private:
  std::vector<LRScheduler*> schedulers_;
  std::vector<int64_t> milestones_;
};

}  // namespace ditto::optim
