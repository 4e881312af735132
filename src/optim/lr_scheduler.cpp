// torch.optim.lr_scheduler's StepLR and CosineAnnealingLR, in Python's double arithmetic (cos
// from ditto's dmath, the same on every platform).
#include <cmath>
#include <numbers>

#include "cpu/dmath.h"
#include "ditto/optim.h"

namespace ditto::optim {

LRScheduler::LRScheduler(Optimizer& optimizer)
    : optimizer_(optimizer), base_lr_(optimizer.lr()), last_lr_(optimizer.lr()) {}

void LRScheduler::step() {
  ++last_epoch_;
  last_lr_ = get_lr();
  optimizer_.set_lr(last_lr_);
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  DITTO_CHECK(step_size > 0, "StepLR", "step_size must be positive, got ", step_size);
}

double StepLR::get_lr() const {
  const double lr = optimizer_.lr();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lr;
  return lr * gamma_;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  DITTO_CHECK(T_max > 0, "CosineAnnealingLR", "T_max must be positive, got ", T_max);
}

double CosineAnnealingLR::get_lr() const {
  constexpr double pi = std::numbers::pi;
  const double lr = optimizer_.lr(), T = static_cast<double>(T_max_), e = static_cast<double>(last_epoch_);
  if (last_epoch_ == 0) return lr;
  const int64_t period = 2 * T_max_;
  const int64_t phase = ((last_epoch_ - 1 - T_max_) % period + period) % period;  // Python's %
  if (phase == 0) return lr + (base_lr_ - eta_min_) * (1 - dmath::cos(pi / T)) / 2;
  return (1 + dmath::cos(pi * e / T)) / (1 + dmath::cos(pi * (e - 1) / T)) * (lr - eta_min_) + eta_min_;
}

}  // namespace ditto::optim
