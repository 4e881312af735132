// native_layer_norm, native_batch_norm and native_group_norm: argument checks, the fused kernels'
// dispatch and autograd (cpu/layer_norm.cpp, Note [Layer norm order]; cpu/batch_norm.cpp, Note
// [Batch norm order]). nn::functional::layer_norm and LayerNorm run the first; batch_norm,
// BatchNorm*d and instance_norm the second (through nn::impl::batch_norm, ops/norm_ops.h, whose
// errors name them); group_norm and GroupNorm the third.
#include "ops/norm_ops.h"

#include <string>
#include <tuple>

#include "autograd/graph.h"
#include "core/checked.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using detail::shape_str;
using ops::OpId;

namespace {
// A per-channel (or per-position) tensor as the kernels take it: contiguous, or undefined.
Tensor param(const Tensor& t) { return t.defined() ? t.detach().contiguous() : Tensor(); }
// The differentiable inputs a fused norm records: x, then weight and bias where given.
std::vector<Tensor> affine_inputs(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  std::vector<Tensor> inputs{x};
  if (weight.defined()) inputs.push_back(weight);
  if (bias.defined()) inputs.push_back(bias);
  return inputs;
}
}  // namespace

namespace autograd::formulas {
namespace {
// What a fused norm's backward kernel reads and writes: dy, the incoming gradient as x's
// contiguous shape, and dx (x's shape), dweight and dbias (params values each, where the forward
// had the weight and the bias). grads() hands them back in the formula's order, in the input's
// shape and the parameters' (param_shape).
struct NormBackward {
  NormBackward(const Tensor& g, const Tensor& x, const Shape& input, int64_t params, bool has_weight, bool has_bias,
               const char* op) {
    if (g.numel() != x.numel()) fail(op, "expected grad_out of shape ", shape_str(input));
    dy = g.contiguous().view(x.sizes());
    dx = detail::new_tensor(x.sizes(), x.dtype(), op);
    if (has_weight) dw = detail::new_tensor({params}, x.dtype(), op);
    if (has_bias) db = detail::new_tensor({params}, x.dtype(), op);
  }
  Grads grads(const Shape& input, const Shape& param_shape) const {
    Grads out{dx.view(input)};
    if (dw.defined()) out.push_back(dw.view(param_shape));
    if (db.defined()) out.push_back(db.view(param_shape));
    return out;
  }
  Tensor dy, dx, dw, db;
};
}  // namespace

DITTO_FORMULA(layer_norm, LayerNormSaved) {
  const Tensor& x = *s.x;
  const int64_t N = x.size(1);
  NormBackward b(g[0], x, s.input, N, s.has_weight, s.has_bias, ops::op_name(OpId::native_layer_norm_backward));
  ops::call<OpId::native_layer_norm_backward>(x.device(), b.dx, b.dw, b.db, b.dy, x, *s.mean, *s.rstd,
                                              s.has_weight ? *s.weight : Tensor());
  return b.grads(s.input, Shape(s.input.end() - static_cast<std::ptrdiff_t>(s.normalized_dims), s.input.end()));
}
DITTO_FORMULA(batch_norm, BatchNormSaved) {
  const Tensor& x = *s.x;
  const int64_t C = x.size(1);
  NormBackward b(g[0], x, s.input, C, s.has_weight, s.has_bias, ops::op_name(OpId::native_batch_norm_backward));
  ops::call<OpId::native_batch_norm_backward>(x.device(), b.dx, b.dw, b.db, b.dy, x, *s.mean, *s.rstd,
                                              s.has_weight ? *s.weight : Tensor(), s.training);
  return b.grads(s.input, {C});
}
DITTO_FORMULA(group_norm, GroupNormSaved) {
  const Tensor& x = *s.x;
  const int64_t C = x.size(1);
  NormBackward b(g[0], x, s.input, C, s.has_weight, s.has_bias, ops::op_name(OpId::native_group_norm_backward));
  ops::call<OpId::native_group_norm_backward>(x.device(), b.dx, b.dw, b.db, b.dy, x, *s.mean, *s.rstd,
                                              s.has_weight ? *s.weight : Tensor(), s.groups);
  return b.grads(s.input, {C});
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
    ops::record<OpId::native_layer_norm>(
        affine_inputs(x, weight, bias), {out},
        autograd::formulas::LayerNormSaved{xc, mean, rstd, w, x.sizes(), k, weight.defined(), bias.defined()});
  }
  return {out, mean.view(stat_shape), rstd.view(stat_shape)};
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                                     int64_t N, int64_t C, int64_t HxW, int64_t group, double eps) {
  const char* op = ops::op_name(OpId::native_group_norm);
  detail::check_defined(x, op);
  if (!is_floating(x.dtype())) fail(op, "expected a floating point input, got ", dtype_name(x.dtype()));
  if (x.dim() < 2 || x.size(0) != N || x.size(1) != C)
    fail(op, "expected an input of N = ", N, " and C = ", C, " in its first two dims, got ", shape_str(x.sizes()));
  if (group <= 0 || C % group != 0)
    fail(op, "Expected number of channels in input to be divisible by num_groups, but got input of shape ",
         shape_str(x.sizes()), " and num_groups=", group);
  if (HxW < 0 || detail::checked_mul(detail::checked_mul(N, C, op, "N * C"), HxW, op, "N * C * HxW") != x.numel())
    fail(op, "expected an input of N * C * HxW = ", N * C * HxW, " elements, got ", shape_str(x.sizes()));
  for (const auto& [t, what] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (!t->defined()) continue;
    if (t->dim() != 1 || t->size(0) != C)
      fail(op, "Expected ", what, " to be a vector of size equal to the number of channels in input, but got ", what,
           " of shape ", shape_str(t->sizes()), " and input of shape ", shape_str(x.sizes()));
    if (t->dtype() != x.dtype())
      fail(op, "mixed dtype: expected ", what, " of the input's dtype ", dtype_name(x.dtype()), ", got ",
           dtype_name(t->dtype()));
  }
  const Tensor xc = x.contiguous().view({N, C, HxW});
  const Tensor w = param(weight), b = param(bias);
  Tensor out = detail::new_tensor(x.sizes(), x.dtype(), op), mean = detail::new_tensor({N, group}, x.dtype(), op),
         rstd = detail::new_tensor({N, group}, x.dtype(), op);
  ops::call<OpId::native_group_norm>(x.device(), out.view({N, C, HxW}), mean, rstd, xc, w, b, group, eps);
  if (autograd::any_needs_grad(x, weight, bias)) {
    ops::record<OpId::native_group_norm>(
        affine_inputs(x, weight, bias), {out},
        autograd::formulas::GroupNormSaved{xc, mean, rstd, w, x.sizes(), group, weight.defined(), bias.defined()});
  }
  return {out, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> nn::impl::batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                                        const Tensor& running_mean, const Tensor& running_var,
                                                        bool training, double momentum, double eps, const char* op) {
  detail::check_defined(x, op);
  if (!is_floating(x.dtype())) fail(op, "expected a floating point input, got ", dtype_name(x.dtype()));
  if (x.dim() < 2) fail(op, "expected an input with at least 2 dims (N, C, ...), got ", x.dim(), "-D");
  const int64_t N = x.size(0), C = x.size(1);
  int64_t S = 1;
  for (int64_t d = 2; d < x.dim(); ++d) S = detail::checked_mul(S, x.size(d), op, "the spatial size");
  detail::checked_mul(N, S, op, "the values per channel");
  for (const auto& [t, what] : {std::pair{&running_mean, "running_mean"}, std::pair{&running_var, "running_var"},
                                std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (!t->defined()) continue;
    if (t->dim() != 1 || t->size(0) != C)
      fail(op, what, " should contain ", C, " elements (one per channel), got shape ", shape_str(t->sizes()));
    if (t->dtype() != x.dtype())
      fail(op, "mixed dtype: expected ", what, " of the input's dtype ", dtype_name(x.dtype()), ", got ",
           dtype_name(t->dtype()));
  }
  if (!training && !(running_mean.defined() && running_var.defined()))
    fail(op, "running_mean and running_var must be defined in evaluation mode");
  if (training && N * S <= 1)
    fail(op, "expected more than 1 value per channel when training, got input size ", shape_str(x.sizes()));
  const Tensor xc = x.contiguous().view({N, C, S});
  const Tensor w = param(weight), b = param(bias);
  Tensor out = detail::new_tensor(x.sizes(), x.dtype(), op), mean = detail::new_tensor({C}, x.dtype(), op),
         rstd = detail::new_tensor({C}, x.dtype(), op);
  Tensor unbiased = training && running_var.defined() ? detail::new_tensor({C}, x.dtype(), op) : Tensor();
  ops::call<OpId::native_batch_norm>(x.device(), out.view({N, C, S}), mean, rstd, unbiased, xc, w, b,
                                     param(running_mean), param(running_var), training, eps);
  if (training) {
    // The running statistics: (1 - momentum) * running + momentum * the batch's, in float64 (as
    // PyTorch's CPU kernel), then stored in the running tensor's dtype.
    NoGradGuard no_grad;
    for (const auto& [running, value] : {std::pair{running_mean, mean}, std::pair{running_var, unbiased}}) {
      if (!running.defined()) continue;
      Tensor r = running;
      r.copy_(running.to(kFloat64) * (1 - momentum) + value.to(kFloat64) * momentum);
    }
  }
  if (autograd::any_needs_grad(x, weight, bias)) {
    ops::record<OpId::native_batch_norm>(
        affine_inputs(x, weight, bias), {out},
        autograd::formulas::BatchNormSaved{xc, mean, rstd, w, x.sizes(), training, weight.defined(), bias.defined()});
  }
  // PyTorch returns no statistics in evaluation mode
  if (!training) return {out, detail::new_tensor({0}, x.dtype(), op), detail::new_tensor({0}, x.dtype(), op)};
  return {out, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                                     const Tensor& running_mean, const Tensor& running_var,
                                                     bool training, double momentum, double eps) {
  return nn::impl::batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps,
                              ops::op_name(OpId::native_batch_norm));
}

}  // namespace ditto
