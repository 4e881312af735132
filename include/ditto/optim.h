#pragma once
// Optimizers with PyTorch's update formulas (torch.optim, the single-tensor CPU path).
#include <map>
#include <string>
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
  SGD(std::vector<Tensor> params, double lr, double momentum = 0.0, double dampening = 0.0,
      double weight_decay = 0.0, bool nesterov = false);
  SGD(std::vector<Tensor> params, const SGDOptions& options);
  void step() override;

 private:
  SGDOptions o_;
};

}  // namespace ditto::optim
