// Convolution and pooling: argument checks, shapes, dispatch and autograd recording. Every op
// runs as its 2-D form (1-D with height 1, unbatched with N = 1); the kernels are in
// cpu/conv.cpp and cpu/pool.cpp, the backward formulas in ops/formulas_conv.cpp.
#include "ops/conv_ops.h"

#include <string>

#include "autograd/graph.h"
#include "core/checked.h"
#include "ops/common.h"

namespace ditto::nn {
using ditto::detail::checked_add;
using ditto::detail::checked_mul;
using ditto::detail::checked_sub;
using ditto::detail::fail;
using ditto::detail::shape_str;
using ops::OpId;

namespace {

Shape expand(const SizeArg& a, int dims, const char* op, const char* what) {
  const Shape& v = a.values();
  if (v.size() == 1) return Shape(static_cast<std::size_t>(dims), v[0]);
  if (static_cast<int>(v.size()) != dims)
    fail(op, "expected ", what, " to be one number or ", dims, " numbers, got ", v.size());
  return v;
}

void check_at_least(const Shape& v, int64_t lo, const char* op, const char* what) {
  for (int64_t x : v)
    if (x < lo) fail(op, "expected ", what, lo == 0 ? " >= 0" : " > 0", ", got ", shape_str(v));
}

void check_floating(const Tensor& t, const char* op, const char* what = "input") {
  if (!is_floating(t.dtype())) fail(op, "expected a floating-point ", what, ", got ", dtype_name(t.dtype()));
}

// (N, C, *spatial) from a batched or unbatched input.
Tensor batched(const Tensor& x, int dims, const char* op, bool& unbatched) {
  ditto::detail::check_defined(x, op);
  if (x.dim() != dims + 1 && x.dim() != dims + 2)
    fail(op, "expected ", dims + 1, "D (unbatched) or ", dims + 2, "D (batched) input, got ", x.dim(), "D");
  unbatched = x.dim() == dims + 1;
  return unbatched ? x.unsqueeze(0) : x;
}

// Channels and spatial sizes must be non-zero (the batch may be empty), as in PyTorch's pooling.
void check_nonempty_planes(const Tensor& x, const char* op) {
  for (int64_t d = 1; d < x.dim(); ++d)
    if (x.size(d) == 0) fail(op, "expected an input with non-zero sizes except the batch, got ", shape_str(x.sizes()));
}

Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : t.detach().contiguous(); }

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// PyTorch's pooling_output_shape, overflow-checked.
int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil_mode, const char* op) {
  const int64_t window =
      checked_add(checked_mul(d, k - 1, op, "the dilated kernel size"), 1, op, "the dilated kernel size");
  const int64_t padded = checked_add(in, checked_mul(2, pad, op, "the padded input size"), op, "the padded input size");
  const int64_t span =
      checked_add(checked_sub(padded, window, op, "the pooling span"), ceil_mode ? s - 1 : 0, op, "the pooling span");
  int64_t o = floor_div(span, s) + 1;
  int64_t last_start;  // the last window must start inside the input (or its left padding)
  if (ceil_mode && (__builtin_mul_overflow(o - 1, s, &last_start) || last_start >= in + pad)) --o;
  return o;
}

// 1-D arguments as their 2-D form (height 1).
void to_2d(int dims, const Shape& v, int64_t fill, int64_t out[2]) {
  out[0] = dims == 1 ? fill : v[0];
  out[1] = dims == 1 ? v[0] : v[1];
}

Conv2dArgs conv_args(int dims, const Shape& s, const Shape& p, const Shape& d, int64_t groups) {
  Conv2dArgs a;
  to_2d(dims, s, 1, a.stride);
  to_2d(dims, p, 0, a.padding);
  to_2d(dims, d, 1, a.dilation);
  a.groups = groups;
  return a;
}

Tensor conv2d_op(const Tensor& x, const Tensor& w, const Tensor& b, const Conv2dArgs& a, const Shape& out_shape) {
  Tensor out = ditto::detail::new_tensor(out_shape, x.dtype(), "conv2d");
  const Tensor xc = dense(x), wc = dense(w);
  if (out.numel() > 0) ops::call<OpId::conv2d>(x.device(), out, xc, wc, b.defined() ? dense(b) : Tensor(), a);
  const bool gx = autograd::needs_grad(x), gw = autograd::needs_grad(w), gb = autograd::needs_grad(b);
  if (gx || gw || gb) {
    // each tensor only where the other's gradient needs it
    ops::record<OpId::conv2d>(
        {x, w, b}, {out},
        autograd::formulas::Conv2dSaved{x.sizes(), w.sizes(), a, gb, gw ? xc : Tensor(), gx ? wc : Tensor()});
  }
  return out;
}

// Pooling geometry, checked, in 2-D form.
struct PoolGeom {
  Pool2dArgs args;
  Shape out_spatial;
};

PoolGeom pool_geom(int dims, const char* op, const Tensor& x, const SizeArg& kernel, const SizeArg& stride,
                   const SizeArg& padding, const SizeArg& dilation, bool ceil_mode) {
  const Shape k = expand(kernel, dims, op, "kernel_size");
  const Shape s = stride.empty() ? k : expand(stride, dims, op, "stride");
  const Shape p = expand(padding, dims, op, "padding");
  const Shape d = expand(dilation, dims, op, "dilation");
  check_at_least(k, 1, op, "kernel_size");
  check_at_least(s, 1, op, "stride");
  check_at_least(p, 0, op, "padding");
  check_at_least(d, 1, op, "dilation");
  for (int i = 0; i < dims; ++i)
    if (p[i] > k[i] / 2)
      fail(op, "padding should be at most half of the kernel size, got padding ", shape_str(p), " and kernel_size ",
           shape_str(k));
  check_nonempty_planes(x, op);
  PoolGeom g;
  for (int i = 0; i < dims; ++i) {
    const int64_t in = x.size(2 + i), o = pool_out(in, k[i], p[i], s[i], d[i], ceil_mode, op);
    if (o < 1)
      fail(op, "input of spatial size ", shape_str(Shape(x.sizes().begin() + 2, x.sizes().end())),
           " is too small for kernel_size ", shape_str(k), " (output size ", o, " in dim ", i, ")");
    g.out_spatial.push_back(o);
  }
  to_2d(dims, k, 1, g.args.kernel);
  to_2d(dims, s, 1, g.args.stride);
  to_2d(dims, p, 0, g.args.padding);
  to_2d(dims, d, 1, g.args.dilation);
  g.args.ceil_mode = ceil_mode;
  g.args.count_include_pad = false;
  g.args.divisor = 0;
  return g;
}

Shape shape4(const Tensor& x4, const Shape& out_spatial) {
  return {x4.size(0), x4.size(1), out_spatial.size() == 1 ? 1 : out_spatial[0], out_spatial.back()};
}

Tensor unbatch(Tensor t, int dims, bool unbatched) {
  if (dims == 1) t = t.squeeze(2);
  return unbatched ? t.squeeze(0) : t;
}

void check_4d(const Tensor& t, const char* op, const char* what) {
  ditto::detail::check_defined(t, op, what);
  if (t.dim() != 4) fail(op, "expected ", what, " to be 4D, got ", t.dim(), "D");
}

void check_size4(const Shape& s, const char* op) {
  if (s.size() != 4) fail(op, "expected a 4D input size, got ", shape_str(s));
  for (int64_t v : s)
    if (v < 0) fail(op, "expected non-negative sizes, got ", shape_str(s));
}

void check_grad_shape(const Tensor& g, const Shape& want, const char* op) {
  if (g.sizes() != want) fail(op, "expected grad_output of shape ", shape_str(want), ", got ", shape_str(g.sizes()));
}

}  // namespace

namespace impl {

Shape conv_output_shape(int dims, const char* op, const Shape& in, const Shape& w, const Shape& s, const Shape& p,
                        const Shape& d, int64_t groups) {
  check_at_least(s, 1, op, "stride");
  check_at_least(p, 0, op, "padding");
  check_at_least(d, 1, op, "dilation");
  if (groups < 1) fail(op, "expected groups > 0, got ", groups);
  const int64_t C = in[1], O = w[0];
  if (C % groups != 0) fail(op, "input channels (", C, ") must be divisible by groups (", groups, ")");
  if (O % groups != 0) fail(op, "output channels (", O, ") must be divisible by groups (", groups, ")");
  if (w[1] * groups != C)
    fail(op, "expected input with ", w[1] * groups, " channels (weight ", shape_str(w), ", groups=", groups, "), got ",
         C, " channels");
  Shape out{in[0], O};
  for (int i = 0; i < dims; ++i) {
    const int64_t k = w[2 + i];
    if (k < 1) fail(op, "expected a non-empty kernel, got weight of shape ", shape_str(w));
    const int64_t eff =
        checked_add(checked_mul(d[i], k - 1, op, "the dilated kernel size"), 1, op, "the dilated kernel size");
    const int64_t padded =
        checked_add(in[2 + i], checked_mul(2, p[i], op, "the padded input size"), op, "the padded input size");
    if (padded < eff)
      fail(op, "kernel size ", eff, " (dilated) can't be greater than the padded input size ", padded, " in dim ", i,
           " (input ", shape_str(in), ", weight ", shape_str(w), ")");
    out.push_back((padded - eff) / s[i] + 1);
  }
  return out;
}

Tensor conv(int dims, const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
            const SizeArg& stride, const SizeArg& padding, const SizeArg& dilation, int64_t groups) {
  bool unbatched = false;
  const Tensor x = batched(input, dims, op, unbatched);
  ditto::detail::check_defined(weight, op, "weight");
  if (weight.dim() != dims + 2)
    fail(op, "expected a ", dims + 2, "D weight (out_channels, in_channels / groups, kernel), got ", weight.dim(), "D");
  check_floating(x, op);
  if (weight.dtype() != x.dtype())
    fail(op, "input (", dtype_name(x.dtype()), ") and weight (", dtype_name(weight.dtype()),
         ") must have the same dtype");
  const Shape s = expand(stride, dims, op, "stride"), p = expand(padding, dims, op, "padding"),
              d = expand(dilation, dims, op, "dilation");
  const Shape out = impl::conv_output_shape(dims, op, x.sizes(), weight.sizes(), s, p, d, groups);
  if (bias.defined()) {
    if (bias.dim() != 1 || bias.size(0) != weight.size(0))
      fail(op, "expected bias of shape (", weight.size(0), ",), got ", shape_str(bias.sizes()));
    if (bias.dtype() != x.dtype())
      fail(op, "bias (", dtype_name(bias.dtype()), ") must have the input's dtype (", dtype_name(x.dtype()), ")");
  }
  const Tensor x4 = dims == 1 ? x.unsqueeze(2) : x, w4 = dims == 1 ? weight.unsqueeze(2) : weight;
  const Shape out4{out[0], out[1], dims == 1 ? 1 : out[2], out.back()};
  return unbatch(conv2d_op(x4, w4, bias, conv_args(dims, s, p, d, groups), out4), dims, unbatched);
}

std::pair<Tensor, Tensor> max_pool(int dims, const char* op, const Tensor& input, const SizeArg& kernel_size,
                                   const SizeArg& stride, const SizeArg& padding, const SizeArg& dilation,
                                   bool ceil_mode) {
  bool unbatched = false;
  const Tensor x = batched(input, dims, op, unbatched);
  check_floating(x, op);
  const PoolGeom g = pool_geom(dims, op, x, kernel_size, stride, padding, dilation, ceil_mode);
  const Tensor x4 = dims == 1 ? x.unsqueeze(2) : x;
  const Shape os = shape4(x4, g.out_spatial);
  Tensor values = ditto::detail::new_tensor(os, x.dtype(), "max_pool2d_with_indices");
  Tensor indices = ditto::detail::new_tensor(os, kInt64, "max_pool2d_with_indices");
  if (values.numel() > 0) ops::call<OpId::max_pool2d_with_indices>(x.device(), values, indices, dense(x4), g.args);
  if (autograd::needs_grad(x4)) {
    ops::record<OpId::max_pool2d_with_indices>({x4}, {values, indices},
                                               autograd::formulas::MaxPool2dSaved{x4.sizes(), indices});
  }
  return {unbatch(values, dims, unbatched), unbatch(indices, dims, unbatched)};
}

Tensor max_unpool(int dims, const char* op, const Tensor& input, const Tensor& indices, const SizeArg& kernel_size,
                  const SizeArg& stride, const SizeArg& padding, const Shape& output_size) {
  ditto::detail::check_defined(input, op);
  ditto::detail::check_defined(indices, op, "indices");
  if (input.dim() != dims + 1 && input.dim() != dims + 2)
    fail(op, "expected ", dims + 1, "D (unbatched) or ", dims + 2, "D (batched) input, got ", input.dim(), "D");
  check_floating(input, op);
  if (indices.dtype() != kInt64) fail(op, "expected int64 indices, got ", dtype_name(indices.dtype()));
  if (indices.sizes() != input.sizes())
    fail(op, "expected indices of the input's shape ", shape_str(input.sizes()), ", got ", shape_str(indices.sizes()));
  const Shape k = expand(kernel_size, dims, op, "kernel_size");
  const Shape s = stride.empty() ? k : expand(stride, dims, op, "stride");
  const Shape p = expand(padding, dims, op, "padding");
  check_at_least(k, 1, op, "kernel_size");
  check_at_least(s, 1, op, "stride");
  check_at_least(p, 0, op, "padding");
  const int64_t lead = input.dim() - dims;
  for (int64_t dd = lead == 2 ? 1 : 0; dd < input.dim(); ++dd)
    if (input.size(dd) == 0)
      fail(op, "expected an input with non-zero sizes except the batch, got ", shape_str(input.sizes()));
  // PyTorch's _unpool_output_size
  Shape deflt, out_sp;
  for (int i = 0; i < dims; ++i) {
    const int64_t span = checked_mul(input.size(lead + i) - 1, s[i], op, "the output size");
    deflt.push_back(checked_sub(checked_add(span, k[i], op, "the output size"),
                                checked_mul(2, p[i], op, "the output size"), op, "the output size"));
  }
  if (output_size.empty()) {
    out_sp = deflt;
  } else {
    out_sp = output_size;
    if (out_sp.size() == static_cast<std::size_t>(dims + 2)) out_sp.erase(out_sp.begin(), out_sp.begin() + 2);
    if (out_sp.size() != static_cast<std::size_t>(dims))
      fail(op, "output_size should have ", dims, " or ", dims + 2, " elements, got ", output_size.size());
    for (int i = 0; i < dims; ++i) {
      const int64_t lo = checked_sub(deflt[i], s[i], op, "the output size"),
                    hi = checked_add(deflt[i], s[i], op, "the output size");
      if (!(lo < out_sp[i] && out_sp[i] < hi))
        fail(op, "invalid output_size ", shape_str(output_size), " (dim ", i, " must be between ", lo, " and ", hi,
             ")");
    }
  }
  check_at_least(out_sp, 1, op, "output size");
  Shape out_shape(input.sizes().begin(), input.sizes().begin() + lead);
  int64_t P = 1, Lin = 1, Lout = 1;
  for (int64_t v : out_shape) P *= v;  // sizes of the input's tensor: no overflow
  for (int i = 0; i < dims; ++i)
    Lin *= input.size(lead + i), Lout = checked_mul(Lout, out_sp[i], op, "the output size");
  checked_mul(P, Lout, op, "the output size");
  out_shape.insert(out_shape.end(), out_sp.begin(), out_sp.end());
  // The dispatcher first (deterministic mode refuses before anything else, as PyTorch's alert).
  const OpId id = dims == 3 ? OpId::max_unpool3d : OpId::max_unpool2d;
  auto* kernel =
      dims == 3 ? ops::kernel<OpId::max_unpool3d>(input.device()) : ops::kernel<OpId::max_unpool2d>(input.device());
  const Tensor xc = input.detach().contiguous().view({P, Lin});
  const Tensor idx = indices.contiguous().view({P, Lin});
  const int64_t* pi = idx.data_ptr<int64_t>();
  for (int64_t i = 0; i < P * Lin; ++i)
    if (pi[i] < 0 || pi[i] >= Lout) {
      std::string size;
      for (int j = 0; j < dims; ++j) {
        if (j) size += 'x';
        size += std::to_string(out_sp[j]);
      }
      fail(op, "Found an invalid max index: ", pi[i], " (output volumes are of size ", size, ")");
    }
  Tensor out = ditto::detail::new_tensor(out_shape, input.dtype(), op);
  kernel(out.view({P, Lout}), xc, idx);
  if (autograd::needs_grad(input)) {
    const autograd::formulas::MaxUnpoolSaved saved{input.sizes(), P, Lout, idx};
    if (id == OpId::max_unpool3d)
      ops::record<OpId::max_unpool3d>({input}, {out}, saved);
    else
      ops::record<OpId::max_unpool2d>({input}, {out}, saved);
  }
  return out;
}

Tensor avg_pool2d(const char* op, const Tensor& input, const SizeArg& kernel_size, const SizeArg& stride,
                  const SizeArg& padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  bool unbatched = false;
  const Tensor x = batched(input, 2, op, unbatched);
  check_floating(x, op);
  if (divisor_override && *divisor_override == 0) fail(op, "divisor_override must not be zero");
  PoolGeom g = pool_geom(2, op, x, kernel_size, stride, padding, 1, ceil_mode);
  g.args.count_include_pad = count_include_pad;
  g.args.divisor = divisor_override.value_or(0);
  // the kernel's windows (start + kernel, padded ends) and their area must fit int64
  checked_mul(g.args.kernel[0], g.args.kernel[1], op, "the kernel area");
  for (int i = 0; i < 2; ++i)
    checked_add(checked_mul(g.out_spatial[static_cast<std::size_t>(i)], g.args.stride[i], op, "a window's start"),
                g.args.kernel[i], op, "a window's end");
  Tensor out = ditto::detail::new_tensor(shape4(x, g.out_spatial), x.dtype(), "avg_pool2d");
  if (out.numel() > 0) ops::call<OpId::avg_pool2d>(x.device(), out, dense(x), g.args);
  if (autograd::needs_grad(x)) {
    ops::record<OpId::avg_pool2d>({x}, {out},
                                  autograd::formulas::AvgPool2dSaved{x.sizes(), g.args, divisor_override.has_value()});
  }
  return unbatch(out, 2, unbatched);
}

Tensor adaptive_avg_pool2d(const char* op, const Tensor& input, const SizeArg& output_size) {
  bool unbatched = false;
  const Tensor x = batched(input, 2, op, unbatched);
  check_floating(x, op);
  const Shape os = expand(output_size, 2, op, "output_size");
  check_at_least(os, 1, op, "output_size");
  check_nonempty_planes(x, op);
  if (os[0] == 1 && os[1] == 1) return unbatch(x.mean({2, 3}, true), 2, unbatched);  // as PyTorch
  Tensor out = ditto::detail::new_tensor({x.size(0), x.size(1), os[0], os[1]}, x.dtype(), "adaptive_avg_pool2d");
  if (out.numel() > 0) ops::call<OpId::adaptive_avg_pool2d>(x.device(), out, dense(x));  // empty: nothing to do
  if (autograd::needs_grad(x)) {
    ops::record<OpId::adaptive_avg_pool2d>({x}, {out}, autograd::formulas::InputShape{x.sizes()});
  }
  return unbatch(out, 2, unbatched);
}

// The 1-D poolings, as PyTorch's: the 2-D ones over (N, C, 1, L), then the height dropped.
Tensor avg_pool1d(const char* op, const Tensor& input, const SizeArg& kernel_size, const SizeArg& stride,
                  const SizeArg& padding, bool ceil_mode, bool count_include_pad) {
  ditto::detail::check_defined(input, op);
  if (input.dim() != 2 && input.dim() != 3)
    fail(op, "expected 2D (unbatched) or 3D (batched) input, got ", input.dim(), "D");
  const int64_t k = expand(kernel_size, 1, op, "kernel_size")[0], p = expand(padding, 1, op, "padding")[0];
  const SizeArg s = stride.empty() ? SizeArg() : SizeArg({1, expand(stride, 1, op, "stride")[0]});
  return avg_pool2d(op, input.unsqueeze(-2), {1, k}, s, {0, p}, ceil_mode, count_include_pad, std::nullopt).squeeze(-2);
}

Tensor adaptive_avg_pool1d(const char* op, const Tensor& input, const SizeArg& output_size) {
  ditto::detail::check_defined(input, op);
  if (input.dim() != 2 && input.dim() != 3)
    fail(op, "expected 2D (unbatched) or 3D (batched) input, got ", input.dim(), "D");
  const int64_t o = expand(output_size, 1, op, "output_size")[0];
  return adaptive_avg_pool2d(op, input.unsqueeze(-2), {1, o}).squeeze(-2);
}

}  // namespace impl

namespace functional {

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, SizeArg stride, SizeArg padding,
              SizeArg dilation, int64_t groups) {
  return impl::conv(1, "conv1d", input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, SizeArg stride, SizeArg padding,
              SizeArg dilation, int64_t groups) {
  return impl::conv(2, "conv2d", input, weight, bias, stride, padding, dilation, groups);
}

Tensor max_pool1d(const Tensor& input, SizeArg kernel_size, SizeArg stride, SizeArg padding, SizeArg dilation,
                  bool ceil_mode) {
  return impl::max_pool(1, "max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode).first;
}
Tensor max_pool2d(const Tensor& input, SizeArg kernel_size, SizeArg stride, SizeArg padding, SizeArg dilation,
                  bool ceil_mode) {
  return impl::max_pool(2, "max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode).first;
}
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, SizeArg kernel_size, SizeArg stride,
                                                  SizeArg padding, SizeArg dilation, bool ceil_mode) {
  return impl::max_pool(1, "max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode);
}
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, SizeArg kernel_size, SizeArg stride,
                                                  SizeArg padding, SizeArg dilation, bool ceil_mode) {
  return impl::max_pool(2, "max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor max_unpool1d(const Tensor& input, const Tensor& indices, SizeArg kernel_size, SizeArg stride, SizeArg padding,
                    const Shape& output_size) {
  return impl::max_unpool(1, "max_unpool1d", input, indices, kernel_size, stride, padding, output_size);
}
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, SizeArg kernel_size, SizeArg stride, SizeArg padding,
                    const Shape& output_size) {
  return impl::max_unpool(2, "max_unpool2d", input, indices, kernel_size, stride, padding, output_size);
}
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, SizeArg kernel_size, SizeArg stride, SizeArg padding,
                    const Shape& output_size) {
  return impl::max_unpool(3, "max_unpool3d", input, indices, kernel_size, stride, padding, output_size);
}

Tensor avg_pool2d(const Tensor& input, SizeArg kernel_size, SizeArg stride, SizeArg padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return impl::avg_pool2d("avg_pool2d", input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                          divisor_override);
}

Tensor adaptive_avg_pool2d(const Tensor& input, SizeArg output_size) {
  return impl::adaptive_avg_pool2d("adaptive_avg_pool2d", input, output_size);
}

Tensor avg_pool1d(const Tensor& input, SizeArg kernel_size, SizeArg stride, SizeArg padding, bool ceil_mode,
                  bool count_include_pad) {
  return impl::avg_pool1d("avg_pool1d", input, kernel_size, stride, padding, ceil_mode, count_include_pad);
}
Tensor adaptive_avg_pool1d(const Tensor& input, SizeArg output_size) {
  return impl::adaptive_avg_pool1d("adaptive_avg_pool1d", input, output_size);
}

Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight, const Shape& input_size, SizeArg stride,
                             SizeArg padding, SizeArg dilation, int64_t groups) {
  const char* op = "conv2d_backward_input";
  check_4d(grad_output, op, "grad_output");
  check_4d(weight, op, "weight");
  check_size4(input_size, op);
  check_floating(grad_output, op, "grad_output");
  if (weight.dtype() != grad_output.dtype()) fail(op, "grad_output and weight must have the same dtype");
  const Shape s = expand(stride, 2, op, "stride"), p = expand(padding, 2, op, "padding"),
              d = expand(dilation, 2, op, "dilation");
  check_grad_shape(grad_output, impl::conv_output_shape(2, op, input_size, weight.sizes(), s, p, d, groups), op);
  Tensor gi = ditto::detail::new_tensor(input_size, grad_output.dtype(), op);
  if (gi.numel() > 0)
    ops::call<OpId::conv2d_backward_input>(grad_output.device(), gi, dense(grad_output), dense(weight),
                                           conv_args(2, s, p, d, groups));
  return gi;
}

Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input, const Shape& weight_size, SizeArg stride,
                              SizeArg padding, SizeArg dilation, int64_t groups) {
  const char* op = "conv2d_backward_weight";
  check_4d(grad_output, op, "grad_output");
  check_4d(input, op, "input");
  check_size4(weight_size, op);
  check_floating(grad_output, op, "grad_output");
  if (input.dtype() != grad_output.dtype()) fail(op, "grad_output and input must have the same dtype");
  const Shape s = expand(stride, 2, op, "stride"), p = expand(padding, 2, op, "padding"),
              d = expand(dilation, 2, op, "dilation");
  check_grad_shape(grad_output, impl::conv_output_shape(2, op, input.sizes(), weight_size, s, p, d, groups), op);
  Tensor gw = ditto::detail::new_tensor(weight_size, grad_output.dtype(), op);
  if (gw.numel() > 0)
    ops::call<OpId::conv2d_backward_weight>(grad_output.device(), gw, dense(grad_output), dense(input),
                                            conv_args(2, s, p, d, groups));
  return gw;
}

Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size) {
  const char* op = "max_pool2d_with_indices_backward";
  check_4d(grad_output, op, "grad_output");
  check_4d(indices, op, "indices");
  check_size4(input_size, op);
  check_floating(grad_output, op, "grad_output");
  if (indices.dtype() != kInt64) fail(op, "expected int64 indices, got ", dtype_name(indices.dtype()));
  if (indices.sizes() != grad_output.sizes() || grad_output.size(0) != input_size[0] ||
      grad_output.size(1) != input_size[1])
    fail(op, "grad_output ", shape_str(grad_output.sizes()), " and indices ", shape_str(indices.sizes()),
         " do not fit an input of size ", shape_str(input_size));
  Tensor gi = ditto::detail::new_tensor(input_size, grad_output.dtype(), op);
  if (gi.numel() > 0)
    ops::call<OpId::max_pool2d_with_indices_backward>(grad_output.device(), gi, dense(grad_output), dense(indices));
  return gi;
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Shape& input_size, SizeArg kernel_size, SizeArg stride,
                           SizeArg padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d_backward";
  check_4d(grad_output, op, "grad_output");
  check_size4(input_size, op);
  check_floating(grad_output, op, "grad_output");
  if (divisor_override && *divisor_override == 0) fail(op, "divisor_override must not be zero");
  const Tensor shape_only = ditto::detail::new_tensor(input_size, grad_output.dtype(), op);
  PoolGeom g = pool_geom(2, op, shape_only, kernel_size, stride, padding, 1, ceil_mode);
  g.args.count_include_pad = count_include_pad;
  g.args.divisor = divisor_override.value_or(0);
  check_grad_shape(grad_output, shape4(shape_only, g.out_spatial), op);
  if (shape_only.numel() > 0)
    ops::call<OpId::avg_pool2d_backward>(grad_output.device(), shape_only, dense(grad_output), g.args);
  return shape_only;
}

Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, const Shape& input_size) {
  const char* op = "adaptive_avg_pool2d_backward";
  check_4d(grad_output, op, "grad_output");
  check_size4(input_size, op);
  check_floating(grad_output, op, "grad_output");
  if (grad_output.size(0) != input_size[0] || grad_output.size(1) != input_size[1] || grad_output.size(2) < 1 ||
      grad_output.size(3) < 1)
    fail(op, "grad_output ", shape_str(grad_output.sizes()), " does not fit an input of size ", shape_str(input_size));
  Tensor gi = ditto::detail::new_tensor(input_size, grad_output.dtype(), op);
  if (gi.numel() > 0) ops::call<OpId::adaptive_avg_pool2d_backward>(grad_output.device(), gi, dense(grad_output));
  return gi;
}

}  // namespace functional
}  // namespace ditto::nn
