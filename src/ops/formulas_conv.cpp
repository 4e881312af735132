// Backward formulas of convolution and pooling (declared in formulas.h, named in op_table.def).
// Each is the op's own gradient kernel(s), called through the public functions.
#include "ditto/nn/functional.h"
#include "ditto/ops.h"
#include "ops/formulas.h"
#include "ops/resample_ops.h"

namespace ditto::autograd::formulas {
namespace F = nn::functional;
namespace {
nn::SizeArg pair(const int64_t (&v)[2]) { return {v[0], v[1]}; }
nn::SizeArg last2(const int64_t (&v)[3]) { return {v[1], v[2]}; }
nn::SizeArg triple(const int64_t (&v)[3]) { return {v[0], v[1], v[2]}; }
}  // namespace

DITTO_FORMULA(conv2d, Conv2dSaved) {
  const Conv2dArgs& a = s.args;
  const auto st = pair(a.stride), pad = pair(a.padding), dil = pair(a.dilation);
  Tensor gx = s.w.defined() ? F::conv2d_backward_input(g[0], *s.w, s.input, st, pad, dil, a.groups) : Tensor();
  Tensor gw = s.x.defined() ? F::conv2d_backward_weight(g[0], *s.x, s.weight, st, pad, dil, a.groups) : Tensor();
  Tensor gb = s.grad_bias ? g[0].sum({0, 2, 3}) : Tensor();  // canonical sum over (n, oh, ow)
  return {gx, gw, gb};
}

DITTO_FORMULA(max_pool, MaxPoolSaved) {
  return {s.input.size() == 5 ? F::max_pool3d_with_indices_backward(g[0], *s.indices, s.input)
                              : F::max_pool2d_with_indices_backward(g[0], *s.indices, s.input)};
}
DITTO_FORMULA(adaptive_max_pool, MaxPoolSaved) {
  return {s.input.size() == 5 ? F::adaptive_max_pool3d_backward(g[0], *s.indices, s.input)
                              : F::adaptive_max_pool2d_backward(g[0], *s.indices, s.input)};
}
DITTO_FORMULA(fractional_max_pool, MaxPoolSaved) {
  return {s.input.size() == 5 ? F::fractional_max_pool3d_backward(g[0], *s.indices, s.input)
                              : F::fractional_max_pool2d_backward(g[0], *s.indices, s.input)};
}

DITTO_FORMULA(avg_pool, AvgPoolSaved) {
  const PoolArgs& a = s.args;
  const std::optional<int64_t> divisor = s.has_divisor ? std::optional<int64_t>(a.divisor) : std::nullopt;
  if (s.input.size() == 5)
    return {F::avg_pool3d_backward(g[0], s.input, triple(a.kernel), triple(a.stride), triple(a.padding), a.ceil_mode,
                                   a.count_include_pad, divisor)};
  return {F::avg_pool2d_backward(g[0], s.input, last2(a.kernel), last2(a.stride), last2(a.padding), a.ceil_mode,
                                 a.count_include_pad, divisor)};
}

DITTO_FORMULA(adaptive_avg_pool, InputShape) {
  return {s.input.size() == 5 ? F::adaptive_avg_pool3d_backward(g[0], s.input)
                              : F::adaptive_avg_pool2d_backward(g[0], s.input)};
}

// Gathers the gradient at the indices.
DITTO_FORMULA(max_unpool, MaxUnpoolSaved) {
  return {g[0].reshape({s.planes, s.out_len}).gather(1, *s.indices).reshape(s.input)};
}

// Padding's gradient is the constant pad by the negated widths (a crop), as PyTorch's.
DITTO_FORMULA(constant_pad_nd, PadSaved) {
  const int64_t nd = g[0].dim();
  Shape p;
  for (int d = 0; d < s.args.dims; ++d) {
    const int64_t k = nd - 1 - d, before = s.args.before[s.args.dims - 1 - d];
    p.push_back(-before);
    p.push_back(-(g[0].size(k) - s.input[static_cast<std::size_t>(k)] - before));
  }
  return {F::pad(g[0], p)};
}
DITTO_FORMULA(pad, PadSaved) { return {nn::impl::pad_backward(g[0], s.input, s.args)}; }
DITTO_FORMULA(upsample, UpsampleSaved) { return {nn::impl::upsample_backward(g[0], s.input, s.args)}; }

}  // namespace ditto::autograd::formulas
