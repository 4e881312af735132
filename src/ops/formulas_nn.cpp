// Backward formulas of the pointwise ops with several operands, GELU and embedding (PyTorch's
// derivatives.yaml entries).
#include "ditto/ops.h"
#include "ops/formulas.h"

namespace ditto::autograd::formulas {

DITTO_FORMULA(lerp) {  // scalars: weight
  const double w = s.scalars[0].to_double();
  return {g[0] * (1.0 - w), g[0] * s.scalars[0]};
}
DITTO_FORMULA(addcmul) {  // tensors: t1, t2; scalars: value
  const Tensor &t1 = s.tensors[0], &t2 = s.tensors[1];
  return {g[0], g[0] * t2 * s.scalars[0], g[0] * t1 * s.scalars[0]};
}
DITTO_FORMULA(addcdiv) {  // tensors: t1, t2; scalars: value
  const Tensor &t1 = s.tensors[0], &t2 = s.tensors[1];
  const Scalar& v = s.scalars[0];
  return {g[0], g[0] * (v / t2), -g[0] * (t1 * v / (t2 * t2))};
}
DITTO_FORMULA(gelu) {  // tensors: x; ints: {tanh_approx}
  return {gelu_backward(g[0], s.tensors[0], s.ints[0] ? "tanh" : "none")};
}

DITTO_FORMULA(embedding) {  // tensors: indices (flat int64); ints: {num_weights, padding_idx}
  return {embedding_dense_backward(g[0], s.tensors[0], s.ints[0], s.ints[1])};
}

}  // namespace ditto::autograd::formulas
