// Backward formulas of the pointwise ops with several operands, GELU and embedding (PyTorch's
// derivatives.yaml entries).
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

DITTO_FORMULA(embedding, EmbeddingSaved) {
  return {embedding_dense_backward(g[0], *s.indices, s.num_weights, s.padding_idx)};
}

}  // namespace ditto::autograd::formulas
