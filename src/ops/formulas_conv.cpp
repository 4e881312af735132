// Backward formulas of convolution and pooling (declared in formulas.h, named in op_table.def).
// Each is the op's own gradient kernel(s), called through the public functions.
#include "ditto/nn/functional.h"
#include "ditto/ops.h"
#include "ops/conv_ops.h"
#include "ops/formulas.h"
#include "ops/resample_ops.h"

namespace ditto::autograd::formulas {
namespace F = nn::functional;
namespace {
nn::SizeArg last2(const int64_t (&v)[3]) { return {v[1], v[2]}; }
nn::SizeArg triple(const int64_t (&v)[3]) { return {v[0], v[1], v[2]}; }
}  // namespace

namespace {
// The convolution's arguments as its public ops take them (2-D: the last two of three).
struct ConvSizes {
  nn::SizeArg stride, padding, dilation;
};
ConvSizes sizes(const autograd::formulas::ConvSaved& s) {
  const ConvArgs& a = s.args;
  if (s.input.size() == 5) return {triple(a.stride), triple(a.padding), triple(a.dilation)};
  return {last2(a.stride), last2(a.padding), last2(a.dilation)};
}
// The bias gradient: the canonical sum over (n, *spatial).
Tensor grad_bias(const Tensor& g) { return g.dim() == 5 ? g.sum({0, 2, 3, 4}) : g.sum({0, 2, 3}); }
}  // namespace

DITTO_FORMULA(conv, ConvSaved) {
  const ConvSizes c = sizes(s);
  auto [gx, gw] = nn::impl::conv_backward(s.input.size() == 5 ? 3 : 2, g[0], s.x.defined() ? *s.x : Tensor(),
                                          s.w.defined() ? *s.w : Tensor(), s.input, s.weight, c.stride, c.padding,
                                          c.dilation, s.args.groups);
  return {gx, gw, s.grad_bias ? grad_bias(g[0]) : Tensor()};
}

// y = conv_transpose(x, w) is the convolution's input gradient at x (nn::impl::conv_transpose_backward).
DITTO_FORMULA(conv_transpose, ConvSaved) {
  auto [gx, gw] = nn::impl::conv_transpose_backward(g[0], s.x.defined() ? *s.x : Tensor(),
                                                    s.w.defined() ? *s.w : Tensor(), s.input, s.weight, s.args);
  return {gx, gw, s.grad_bias ? grad_bias(g[0]) : Tensor()};
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

DITTO_FORMULA(grid_sample, GridSampleSaved) {
  auto [gx, gg] = nn::impl::grid_sample_backward(g[0], *s.input, *s.grid, s.args, s.input_grad);
  return {gx, gg};
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
