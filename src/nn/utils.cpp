// torch.nn.utils's gradient clipping, in PyTorch 2.x's arithmetic.
#include "ditto/nn/utils.h"

#include <cmath>
#include <string>

#include "ditto/autograd.h"
#include "ditto/factory.h"
#include "ditto/ops.h"

namespace ditto::nn::utils {

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters)
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return zeros({});
  std::vector<Tensor> norms;
  norms.reserve(grads.size());
  for (const Tensor& g : grads) norms.push_back(linalg::vector_norm(g, norm_type));
  const Tensor total = linalg::vector_norm(stack(norms), norm_type);
  const double t = total.to(kFloat64).item<double>();
  if (error_if_nonfinite && !std::isfinite(t))
    detail::fail("clip_grad_norm_", "The total norm of order ", norm_type,
                 " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
                 "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  // PyTorch computes max_norm / (total + 1e-6) in Python: the reciprocal times max_norm
  const Tensor coef = clamp((total + 1e-6).pow(-1) * max_norm, std::nullopt, 1.0);
  for (Tensor& g : grads) g.mul_(coef.to(g.dtype()));
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters)
    if (p.defined() && p.grad().defined()) {
      Tensor g = p.grad();
      g.copy_(clamp(g, -clip_value, clip_value));
    }
}

}  // namespace ditto::nn::utils
