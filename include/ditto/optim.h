#pragma once
// Optimizers with PyTorch's update formulas (torch.optim, the single-tensor CPU path).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ditto/tensor.h"

namespace ditto::optim {

// Saved optimizer state: per parameter (by index), named tensors; plus the step count.
struct OptimizerState {
  int64_t step = 0;
  std::vector<std::map<std::string, Tensor>> per_param;
};

class Optimizer {
 public:
  explicit Optimizer(std::vector<Tensor> params);
  virtual ~Optimizer() = default;
  virtual void step() = 0;
  // Clears (set_to_none, PyTorch 2.x's default) or zeroes the gradients.
  void zero_grad(bool set_to_none = true);
  const std::vector<Tensor>& params() const { return params_; }
  double lr() const { return lr_; }
  void set_lr(double lr) { lr_ = lr; }
  // A deep copy of the state (buffers are cloned), and its restoration.
  virtual OptimizerState state_dict() const;
  virtual void load_state_dict(const OptimizerState& state);

 protected:
  std::vector<Tensor> params_;
  double lr_ = 0.0;
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
  void step() override;
  const AdamOptions& options() const { return o_; }

 protected:
  Adam(std::vector<Tensor> params, const AdamOptions& options, bool decoupled, const char* name);

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
};

// Learning-rate schedulers (torch.optim.lr_scheduler, chainable form: each step() derives the
// new lr from the optimizer's current one, as PyTorch's get_lr). Construction performs PyTorch's
// initial step (last_epoch 0, lr unchanged); call step() after each optimizer.step().
struct SchedulerState {
  int64_t last_epoch = 0;
  double base_lr = 0.0;
  double last_lr = 0.0;
};

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  void step();
  // Its position (what step() reads besides the optimizer's lr), for checkpoints.
  SchedulerState state_dict() const { return {last_epoch_, base_lr_, last_lr_}; }
  void load_state_dict(const SchedulerState& s) {
    last_epoch_ = s.last_epoch;
    base_lr_ = s.base_lr;
    last_lr_ = s.last_lr;
  }
  double get_last_lr() const { return last_lr_; }  // one parameter group: one lr
  int64_t last_epoch() const { return last_epoch_; }
  double base_lr() const { return base_lr_; }

 protected:
  virtual double get_lr() const = 0;  // for last_epoch_, from optimizer_.lr()
  Optimizer& optimizer_;
  double base_lr_;
  int64_t last_epoch_ = 0;
  double last_lr_;
};

// lr *= gamma every step_size epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  double get_lr() const override;

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
  double get_lr() const override;

 private:
  int64_t T_max_;
  double eta_min_;
};

}  // namespace ditto::optim
