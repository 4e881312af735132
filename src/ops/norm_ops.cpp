// native_layer_norm: argument checks, the fused kernels' dispatch and autograd (cpu/layer_norm.cpp,
// Note [Layer norm order]). nn::functional::layer_norm and LayerNorm run it.
#include <string>
#include <tuple>

#include "autograd/graph.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using detail::shape_str;
using ops::OpId;

namespace autograd::formulas {
DITTO_FORMULA(layer_norm, LayerNormSaved) {
  const char* op = ops::op_name(OpId::native_layer_norm_backward);
  const Tensor& x = *s.x;
  const int64_t M = x.size(0), N = x.size(1);
  if (g[0].numel() != x.numel()) fail(op, "expected grad_out of shape ", shape_str(s.input));
  const Tensor dy = g[0].contiguous().view({M, N});
  const Tensor weight = s.has_weight ? *s.weight : Tensor();
  Tensor dx = detail::new_tensor({M, N}, x.dtype(), op);
  Tensor dw = s.has_weight ? detail::new_tensor({N}, x.dtype(), op) : Tensor();
  Tensor db = s.has_bias ? detail::new_tensor({N}, x.dtype(), op) : Tensor();
  ops::call<OpId::native_layer_norm_backward>(x.device(), dx, dw, db, dy, x, *s.mean, *s.rstd, weight);
  Grads out{dx.view(s.input)};
  const Shape normalized(s.input.end() - static_cast<std::ptrdiff_t>(s.normalized_dims), s.input.end());
  if (s.has_weight) out.push_back(dw.view(normalized));
  if (s.has_bias) out.push_back(db.view(normalized));
  return out;
}
}  // namespace autograd::formulas

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& x, const Shape& normalized_shape,
                                                     const Tensor& weight, const Tensor& bias, double eps) {
  const char* op = ops::op_name(OpId::native_layer_norm);
  detail::check_defined(x, op);
  if (!is_floating(x.dtype())) fail(op, "expected a floating point input, got ", dtype_name(x.dtype()));
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  bool ok = k >= 1 && x.dim() >= k;
  for (int64_t i = 0; ok && i < k; ++i) ok = x.size(x.dim() - k + i) == normalized_shape[i];
  if (!ok)
    fail(op, "given normalized_shape=", shape_str(normalized_shape),
         ", the input's trailing dims differ: ", shape_str(x.sizes()));
  for (const auto& [t, what] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (!t->defined()) continue;
    if (t->sizes() != normalized_shape)
      fail(op, "Expected ", what, " to be of same shape as normalized_shape, but got ", what, " of shape ",
           shape_str(t->sizes()), " and normalized_shape = ", shape_str(normalized_shape));
    if (t->dtype() != x.dtype())
      fail(op, "expected ", what, " of the input's dtype ", dtype_name(x.dtype()), ", got ", dtype_name(t->dtype()));
  }
  int64_t N = 1;
  for (int64_t d : normalized_shape) N *= d;
  const int64_t M = N > 0 ? x.numel() / N : 0;
  Shape stat_shape(x.sizes().begin(), x.sizes().end() - k);
  for (int64_t i = 0; i < k; ++i) stat_shape.push_back(1);
  const Tensor xc = x.contiguous().view({M, N});
  const Tensor w = weight.defined() ? weight.contiguous().view({N}) : Tensor();
  const Tensor b = bias.defined() ? bias.contiguous().view({N}) : Tensor();
  Tensor out = detail::new_tensor({M, N}, x.dtype(), op), mean = detail::new_tensor({M}, x.dtype(), op),
         rstd = detail::new_tensor({M}, x.dtype(), op);
  if (M > 0) ops::call<OpId::native_layer_norm>(x.device(), out, mean, rstd, xc, w, b, eps);
  out = out.view(x.sizes());
  if (autograd::any_needs_grad(x, weight, bias)) {
    std::vector<Tensor> inputs{x};
    if (weight.defined()) inputs.push_back(weight);
    if (bias.defined()) inputs.push_back(bias);
    ops::record<OpId::native_layer_norm>(
        inputs, {out},
        autograd::formulas::LayerNormSaved{xc, mean, rstd, w, x.sizes(), k, weight.defined(), bias.defined()});
  }
  return {out, mean.view(stat_shape), rstd.view(stat_shape)};
}

}  // namespace ditto
