// Backward formulas of convolution and pooling (declared in formulas.h, named in op_table.def).
// Each is the op's own gradient kernel(s), called through the public functions.
#include "ditto/nn/functional.h"
#include "ditto/ops.h"
#include "ops/formulas.h"

namespace ditto::autograd::formulas {
namespace F = nn::functional;
namespace {
nn::SizeArg pair_at(const Shape& v, std::size_t i) { return {v[i], v[i + 1]}; }
}  // namespace

// tensors: input (saved when weight needs grad), weight (when input needs grad); shapes: input,
// weight; ints: stride(2), padding(2), dilation(2), groups, bias needs grad.
DITTO_FORMULA(conv2d) {
  const Tensor &x = s.tensors[0], &w = s.tensors[1];
  const auto st = pair_at(s.ints, 0), pad = pair_at(s.ints, 2), dil = pair_at(s.ints, 4);
  const int64_t groups = s.ints[6];
  Tensor gx = w.defined() ? F::conv2d_backward_input(g[0], w, s.shapes[0], st, pad, dil, groups) : Tensor();
  Tensor gw = x.defined() ? F::conv2d_backward_weight(g[0], x, s.shapes[1], st, pad, dil, groups) : Tensor();
  Tensor gb = s.ints[7] ? g[0].sum({0, 2, 3}) : Tensor();  // canonical sum over (n, oh, ow)
  return {gx, gw, gb};
}

DITTO_FORMULA(max_pool2d) {  // tensors: indices; shapes: input
  return {F::max_pool2d_with_indices_backward(g[0], s.tensors[0], s.shapes[0])};
}

// shapes: input; ints: kernel(2), stride(2), padding(2), ceil_mode, count_include_pad,
// has divisor_override, divisor_override.
DITTO_FORMULA(avg_pool2d) {
  const std::optional<int64_t> divisor = s.ints[8] ? std::optional<int64_t>(s.ints[9]) : std::nullopt;
  return {F::avg_pool2d_backward(g[0], s.shapes[0], pair_at(s.ints, 0), pair_at(s.ints, 2), pair_at(s.ints, 4),
                                 s.ints[6], s.ints[7], divisor)};
}

DITTO_FORMULA(adaptive_avg_pool2d) { return {F::adaptive_avg_pool2d_backward(g[0], s.shapes[0])}; }

// tensors: indices (P, L_in); shapes: input; ints: P, L_out. Gathers the gradient at the indices.
DITTO_FORMULA(max_unpool) {
  return {g[0].reshape({s.ints[0], s.ints[1]}).gather(1, s.tensors[0]).reshape(s.shapes[0])};
}

}  // namespace ditto::autograd::formulas
