// Backward formulas of the pointwise ops with several operands, GELU and embedding (PyTorch's
// derivatives.yaml entries).
#include "ditto/factory.h"
#include "ditto/ops.h"
#include "ops/formulas.h"

namespace ditto::autograd::formulas {

DITTO_FORMULA(lerp, LerpSaved) {
  const double w = s.weight.to_double();
  return {g[0] * (1.0 - w), g[0] * s.weight};
}
DITTO_FORMULA(addcmul, AddcSaved) { return {g[0], g[0] * *s.t2 * s.value, g[0] * *s.t1 * s.value}; }
DITTO_FORMULA(addcdiv, AddcSaved) {
  const Tensor &t1 = *s.t1, &t2 = *s.t2;
  const Scalar& v = s.value;
  return {g[0], g[0] * (v / t2), -g[0] * (t1 * v / (t2 * t2))};
}
DITTO_FORMULA(gelu, GeluSaved) { return {gelu_backward(g[0], *s.x, s.tanh_approx ? "tanh" : "none")}; }

// The activations' gradients, as PyTorch's backward kernels compute them (Activation.cpp).
DITTO_FORMULA(silu, SavedInput) {
  const Tensor& x = *s.x;
  const Tensor sg = sigmoid(x);
  return {g[0] * sg * (1 + x * (1 - sg))};
}
DITTO_FORMULA(hardswish, SavedInput) {
  const Tensor& x = *s.x;
  const Tensor inside = where(x <= 3.0, g[0] * (x / 3.0 + 0.5), g[0]);
  return {where(x < -3.0, zeros_like(g[0]), inside)};
}
DITTO_FORMULA(mish, SavedInput) {
  const Tensor& x = *s.x;
  const Tensor sg = sigmoid(x), ts = tanh(log1p(exp(x)));
  return {g[0] * (ts + x * sg * (1 - ts * ts))};
}
DITTO_FORMULA(leaky_relu, LeakyReluSaved) {
  const Tensor& x = *s.x;
  return {where(x > 0, g[0], g[0] * s.negative_slope)};
}
DITTO_FORMULA(softplus, SoftplusSaved) {
  const Tensor& x = *s.x;
  const Tensor xb = x * s.beta, z = exp(xb);
  return {where(xb > s.threshold, g[0], g[0] * z / (z + 1))};
}
DITTO_FORMULA(hardtanh, HardtanhSaved) {  // 0 at and beyond the bounds; NaN passes the gradient
  const Tensor& x = *s.x;
  return {where((x <= s.min_val) + (x >= s.max_val), zeros_like(g[0]), g[0])};
}
DITTO_FORMULA(elu, EluSaved) {
  const Tensor& x = *s.x;
  const Tensor negative = g[0] * s.input_scale * (s.alpha.to_double() * s.scale.to_double()) * exp(x * s.input_scale);
  return {where(x <= 0, negative, g[0] * s.scale)};
}

DITTO_FORMULA(embedding, EmbeddingSaved) {
  return {embedding_dense_backward(g[0], *s.indices, s.num_weights, s.padding_idx)};
}

}  // namespace ditto::autograd::formulas
