#pragma once
// Reverse-mode autograd. Gradients flow through the nodes recorded by differentiable ops; the
// order in which nodes run and gradients are summed depends only on the graph (each node's
// creation sequence number), never on addresses or hashing.
#include <vector>

#include "ditto/tensor.h"

namespace ditto {

// Disables recording for its scope (this thread), as torch.no_grad().
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool prev_;
};

bool is_grad_enabled();
void set_grad_enabled(bool enabled);

namespace autograd {
// Backpropagates from several roots at once (grads may be undefined for scalar roots).
void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads = {}, bool retain_graph = false);
// Clears (set_to_none) or zeroes the gradients of params; shared by Module and Optimizer.
void zero_grad(std::vector<Tensor>& params, bool set_to_none = true);
}  // namespace autograd

}  // namespace ditto
