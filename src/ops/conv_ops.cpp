// Convolution: argument checks, shapes, dispatch and autograd recording, and the argument
// helpers that pooling (ops/pool_ops.cpp) shares. Every op runs as its 2-D form (1-D with height 1,
// unbatched with N = 1); the kernels are in cpu/conv.cpp, the backward formulas in
// ops/formulas_conv.cpp.
#include "ops/conv_ops.h"

#include <algorithm>
#include <functional>
#include <string>

#include "autograd/graph.h"
#include "core/checked.h"
#include "core/parallel.h"
#include "ops/common.h"

namespace ditto::nn {
using ditto::detail::checked_add;
using ditto::detail::checked_mul;
using ditto::detail::checked_sub;
using ditto::detail::fail;
using ditto::detail::shape_str;
using ops::OpId;

namespace impl {

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

void check_floating(const Tensor& t, const char* op, const char* what) {
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

Tensor unbatch(Tensor t, int dims, bool unbatched) {
  if (dims == 1) t = t.squeeze(2);
  return unbatched ? t.squeeze(0) : t;
}

void check_grad_shape(const Tensor& g, const Shape& want, const char* op) {
  if (g.sizes() != want) fail(op, "expected grad_output of shape ", shape_str(want), ", got ", shape_str(g.sizes()));
}

void check_rank(const Tensor& t, int64_t rank, const char* op, const char* what) {
  ditto::detail::check_defined(t, op, what);
  if (t.dim() != rank) fail(op, "expected ", what, " to be ", rank, "D, got ", t.dim(), "D");
}
void check_size_rank(const Shape& s, std::size_t rank, const char* op, const char* what) {
  if (s.size() != rank) fail(op, "expected a ", rank, "D ", what, ", got ", shape_str(s));
  for (int64_t v : s)
    if (v < 0) fail(op, "expected non-negative sizes, got ", shape_str(s));
}

Tensor kernel_form(const Tensor& t, int dims) { return dims == 1 ? t.unsqueeze(2) : t; }
Shape kernel_shape(Shape s, int dims) {
  if (dims == 1) s.insert(s.begin() + 2, 1);
  return s;
}
Shape with_spatial(const Tensor& x, const Shape& spatial) {
  Shape s{x.size(0), x.size(1)};
  s.insert(s.end(), spatial.begin(), spatial.end());
  return s;
}

}  // namespace impl

using namespace impl;

namespace {

// The kernels' arguments: dims numbers depth first (1-D as 2-D with height 1).
ConvArgs conv_args(const Shape& s, const Shape& p, const Shape& d, int64_t groups) {
  ConvArgs a;
  const bool one = s.size() == 1;  // 1-D: height 1 before the length
  to_3d(one ? Shape{1, s[0]} : s, 1, a.stride);
  to_3d(one ? Shape{0, p[0]} : p, 0, a.padding);
  to_3d(one ? Shape{1, d[0]} : d, 1, a.dilation);
  a.groups = groups;
  return a;
}

// Records a convolution (transposed or not): each tensor saved only where the other's gradient
// needs it.
template <OpId id2, OpId id3>
void record_conv(int dims, const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& out, const Tensor& xc,
                 const Tensor& wc, const ConvArgs& a) {
  const bool gx = autograd::needs_grad(x), gw = autograd::needs_grad(w), gb = autograd::needs_grad(b);
  if (gx || gw || gb)
    ops::record_by_dims<id2, id3>(
        dims, {x, w, b}, {out},
        autograd::formulas::ConvSaved{x.sizes(), w.sizes(), a, gb, gw ? xc : Tensor(), gx ? wc : Tensor()});
}

// The checks a convolution and a transposed one share: input, weight and bias ranks and dtypes;
// returns the batched input.
Tensor check_conv(int dims, const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                  int64_t bias_size, bool& unbatched, const char* weight_layout) {
  const Tensor x = batched(input, dims, op, unbatched);
  ditto::detail::check_defined(weight, op, "weight");
  if (weight.dim() != dims + 2)
    fail(op, "expected a ", dims + 2, "D weight ", weight_layout, ", got ", weight.dim(), "D");
  check_floating(x, op);
  if (weight.dtype() != x.dtype())
    fail(op, "input (", dtype_name(x.dtype()), ") and weight (", dtype_name(weight.dtype()),
         ") must have the same dtype");
  if (bias.defined()) {
    if (bias.dim() != 1 || bias.size(0) != bias_size)
      fail(op, "expected bias of shape (", bias_size, ",), got ", shape_str(bias.sizes()));
    if (bias.dtype() != x.dtype())
      fail(op, "bias (", dtype_name(bias.dtype()), ") must have the input's dtype (", dtype_name(x.dtype()), ")");
  }
  return x;
}

// The convolution backward ops (2-D or 3-D), checked against the forward's shapes, their outputs
// allocated and their kernels chosen: run, where set (a non-empty output), computes out.
struct PendingGrad {
  Tensor out;
  std::function<void()> run;
};

template <OpId id2, OpId id3, class... Args>
std::function<void()> bind_by_dims(int dims, Device device, const Args&... args) {
  if (dims == 3) return ops::bind<id3>(device, args...);
  return ops::bind<id2>(device, args...);
}

PendingGrad prepare_input(int dims, const Tensor& grad_output, const Tensor& weight, const Shape& input_size,
                          const SizeArg& stride, const SizeArg& padding, const SizeArg& dilation, int64_t groups) {
  const char* op = ops::op_name(dims == 3 ? OpId::conv3d_backward_input : OpId::conv2d_backward_input);
  check_rank(grad_output, dims + 2, op, "grad_output");
  check_rank(weight, dims + 2, op, "weight");
  check_size_rank(input_size, static_cast<std::size_t>(dims + 2), op, "input size");
  check_floating(grad_output, op, "grad_output");
  if (weight.dtype() != grad_output.dtype()) fail(op, "grad_output and weight must have the same dtype");
  const Shape s = expand(stride, dims, op, "stride"), p = expand(padding, dims, op, "padding"),
              d = expand(dilation, dims, op, "dilation");
  check_grad_shape(grad_output, conv_output_shape(dims, op, input_size, weight.sizes(), s, p, d, groups), op);
  PendingGrad r{ditto::detail::new_tensor(input_size, grad_output.dtype(), op), {}};
  if (r.out.numel() > 0)
    r.run = bind_by_dims<OpId::conv2d_backward_input, OpId::conv3d_backward_input>(
        dims, grad_output.device(), r.out, dense(grad_output), dense(weight), conv_args(s, p, d, groups));
  return r;
}

PendingGrad prepare_weight(int dims, const Tensor& grad_output, const Tensor& input, const Shape& weight_size,
                           const SizeArg& stride, const SizeArg& padding, const SizeArg& dilation, int64_t groups) {
  const char* op = ops::op_name(dims == 3 ? OpId::conv3d_backward_weight : OpId::conv2d_backward_weight);
  check_rank(grad_output, dims + 2, op, "grad_output");
  check_rank(input, dims + 2, op, "input");
  check_size_rank(weight_size, static_cast<std::size_t>(dims + 2), op, "weight size");
  check_floating(grad_output, op, "grad_output");
  if (input.dtype() != grad_output.dtype()) fail(op, "grad_output and input must have the same dtype");
  const Shape s = expand(stride, dims, op, "stride"), p = expand(padding, dims, op, "padding"),
              d = expand(dilation, dims, op, "dilation");
  check_grad_shape(grad_output, conv_output_shape(dims, op, input.sizes(), weight_size, s, p, d, groups), op);
  PendingGrad r{ditto::detail::new_tensor(weight_size, grad_output.dtype(), op), {}};
  if (r.out.numel() > 0)
    r.run = bind_by_dims<OpId::conv2d_backward_weight, OpId::conv3d_backward_weight>(
        dims, grad_output.device(), r.out, dense(grad_output), dense(input), conv_args(s, p, d, groups));
  return r;
}

PendingGrad ran(PendingGrad r) {
  if (r.run) r.run();
  return r;
}

// The two gradients of a convolution (either may be unset), side by side where Note [Convolution
// gradients side by side] says that pays: both needed, both direct tiles (direct), at least 2^20
// fmas (the input gradient's), two threads, ditto::audit not recording; else in order.
std::pair<Tensor, Tensor> run_gradients(const PendingGrad& gx, const PendingGrad& gw, bool direct, double fmas) {
  if (gx.run && gw.run && direct && fmas >= double(1 << 20) && ditto::detail::num_threads() == 2 &&
      !ditto::detail::audit_on()) {
    ditto::detail::run_side_by_side(gx.run, gw.run);
    return {gx.out, gw.out};
  }
  return {ran(gx).out, ran(gw).out};
}

// One dim's transposed-convolution output size before output_padding, PyTorch's, overflow-checked:
// (in - 1) * stride - 2 * padding + dilation * (kernel - 1) + 1.
int64_t transposed_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, const char* op) {
  int64_t o = checked_mul(in - 1, s, op, "the output size");
  o = checked_sub(o, checked_mul(2, p, op, "the output size"), op, "the output size");
  o = checked_add(o, checked_mul(d, k - 1, op, "the output size"), op, "the output size");
  return checked_add(o, 1, op, "the output size");
}

}  // namespace

namespace impl {

void to_3d(const Shape& v, int64_t fill, int64_t out[3]) {
  const int n = static_cast<int>(v.size());
  for (int i = 0; i < 3; ++i) out[i] = i < 3 - n ? fill : v[static_cast<std::size_t>(i - (3 - n))];
}

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
  const Tensor x = check_conv(dims, op, input, weight, bias, weight.defined() ? weight.size(0) : 0, unbatched,
                              "(out_channels, in_channels / groups, kernel)");
  const Shape s = expand(stride, dims, op, "stride"), p = expand(padding, dims, op, "padding"),
              d = expand(dilation, dims, op, "dilation");
  const Shape out = conv_output_shape(dims, op, x.sizes(), weight.sizes(), s, p, d, groups);
  const Tensor xk = kernel_form(x, dims), wk = kernel_form(weight, dims);
  const ConvArgs a = conv_args(s, p, d, groups);
  Tensor y = ditto::detail::new_tensor(kernel_shape(out, dims), x.dtype(), op);
  const Tensor xc = dense(xk), wc = dense(wk);
  if (y.numel() > 0)
    ops::call_by_dims<OpId::conv2d, OpId::conv3d>(dims, x.device(), y, xc, wc, bias.defined() ? dense(bias) : Tensor(),
                                                  a);
  record_conv<OpId::conv2d, OpId::conv3d>(dims, xk, wk, bias, y, xc, wc, a);
  return unbatch(y, dims, unbatched);
}

// PyTorch's output size: transposed_size + output_padding.
Tensor conv_transpose(int dims, const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const SizeArg& stride, const SizeArg& padding, const SizeArg& output_padding, int64_t groups,
                      const SizeArg& dilation) {
  bool unbatched = false;
  const Tensor x =
      check_conv(dims, op, input, weight, bias,
                 weight.defined() && weight.dim() >= 2 && groups > 0 && weight.size(1) <= INT64_MAX / groups
                     ? weight.size(1) * groups
                     : -1,
                 unbatched, "(in_channels, out_channels / groups, kernel)");
  const Shape s = expand(stride, dims, op, "stride"), p = expand(padding, dims, op, "padding"),
              op_ = expand(output_padding, dims, op, "output_padding"), d = expand(dilation, dims, op, "dilation");
  check_at_least(s, 1, op, "stride");
  check_at_least(p, 0, op, "padding");
  check_at_least(op_, 0, op, "output_padding");
  check_at_least(d, 1, op, "dilation");
  if (groups < 1) fail(op, "expected groups > 0, got ", groups);
  const int64_t C = x.size(1), Cin = weight.size(0);
  if (Cin % groups != 0) fail(op, "in_channels (", Cin, ") must be divisible by groups (", groups, ")");
  if (C != Cin)
    fail(op, "expected input with ", Cin, " channels (weight ", shape_str(weight.sizes()), "), got ", C, " channels");
  Shape out{x.size(0), checked_mul(weight.size(1), groups, op, "the output channels")};
  for (int i = 0; i < dims; ++i) {
    if (op_[i] >= s[i] && op_[i] >= d[i])
      fail(op, "output padding must be smaller than either stride or dilation, got output_padding ", shape_str(op_),
           ", stride ", shape_str(s), " and dilation ", shape_str(d));
    const int64_t k = weight.size(2 + i);
    if (k < 1) fail(op, "expected a non-empty kernel, got weight of shape ", shape_str(weight.sizes()));
    const int64_t o =
        checked_add(transposed_size(x.size(2 + i), k, s[i], p[i], d[i], op), op_[i], op, "the output size");
    if (o < 1)
      fail(op, "input of spatial size ", shape_str(Shape(x.sizes().begin() + 2, x.sizes().end())),
           " gives an output size ", o, " < 1 in dim ", i);
    out.push_back(o);
  }
  const Tensor xk = kernel_form(x, dims), wk = kernel_form(weight, dims);
  const ConvArgs a = conv_args(s, p, d, groups);
  Tensor y = ditto::detail::new_tensor(kernel_shape(out, dims), x.dtype(), op);
  const Tensor xc = dense(xk), wc = dense(wk);
  if (y.numel() > 0)
    ops::call_by_dims<OpId::conv_transpose2d, OpId::conv_transpose3d>(dims, x.device(), y, xc, wc,
                                                                      bias.defined() ? dense(bias) : Tensor(), a);
  record_conv<OpId::conv_transpose2d, OpId::conv_transpose3d>(dims, xk, wk, bias, y, xc, wc, a);
  return unbatch(y, dims, unbatched);
}

Shape conv_transpose_padding(int dims, const char* op, const Tensor& input, const Shape& kernel, const Shape& stride,
                             const Shape& padding, const Shape& dilation, const Shape& output_size) {
  bool unbatched = false;
  const Tensor x = batched(input, dims, op, unbatched);
  Shape size = output_size;
  const auto lead = static_cast<std::size_t>(unbatched ? 1 : 2);
  if (size.size() == lead + static_cast<std::size_t>(dims)) size.erase(size.begin(), size.begin() + lead);
  if (size.size() != static_cast<std::size_t>(dims))
    fail(op, "for ", input.dim(), "D input, output_size must have ", dims, " or ", lead + dims, " elements (got ",
         output_size.size(), ")");
  Shape pad;
  for (int i = 0; i < dims; ++i) {
    const auto j = static_cast<std::size_t>(i);
    const int64_t lo = transposed_size(x.size(2 + i), kernel[j], stride[j], padding[j], dilation[j], op);
    const int64_t hi = checked_add(lo, stride[j] - 1, op, "the output size");
    if (size[j] < lo || size[j] > hi)
      fail(op, "requested an output size of ", shape_str(size), ", but dim ", i, " must be from ", lo, " to ", hi);
    pad.push_back(size[j] - lo);
  }
  return pad;
}

// The gradients of y = conv_transpose(x, w): the convolution of g (over x's positions only:
// with output_padding >= stride the convolution of y's size has more), and the convolution's
// weight gradient with x as its output's gradient and g as its input.
std::pair<Tensor, Tensor> conv_transpose_backward(const Tensor& g, const Tensor& x, const Tensor& w,
                                                  const Shape& x_size, const Shape& w_size, const ConvArgs& a) {
  const char* op = "conv_transpose_backward";
  const int dims = g.dim() == 5 ? 3 : 2;
  const Tensor gc = dense(g);
  PendingGrad gx, gw;
  if (w.defined()) {
    gx.out = ditto::detail::new_tensor(x_size, g.dtype(), op);
    if (gx.out.numel() > 0)
      gx.run = bind_by_dims<OpId::conv2d, OpId::conv3d>(dims, g.device(), gx.out, gc, dense(w), Tensor(), a);
  }
  if (x.defined()) {
    gw.out = ditto::detail::new_tensor(w_size, g.dtype(), op);
    if (gw.out.numel() > 0)
      gw.run = bind_by_dims<OpId::conv2d_backward_weight, OpId::conv3d_backward_weight>(dims, g.device(), gw.out,
                                                                                        dense(x), gc, a);
  }
  // both direct tiles at any stride; the input gradient is a convolution with x's size as output
  return run_gradients(gx, gw, dims == 2,
                       double(gx.out.numel()) * double(w_size[1]) * double(w_size[2]) * double(w_size[3]));
}

// Note [Convolution gradients side by side]
// -----------------------------------------
// With two threads, each gradient kernel alone scales by only about 1.5x (the weight gradient's
// threads each transpose all of grad_output; the input gradient's copy and tiles share the
// caches), so where both are needed, cost about the same (both run direct tiles: a convolution
// of stride 1, any 2-D transposed convolution) and are large enough, they run side by side, one
// thread each (run_gradients): conv2d forward+backward 1.1-1.4x faster at two threads on the
// bench's shapes, conv_transpose2d's 1.26x. With more threads, or with ditto::audit recording
// (its log keeps the ops' order), they run one after the other, each on every thread. Either way
// each kernel computes what it computes alone, so no bit depends on this.
std::pair<Tensor, Tensor> conv_backward(int dims, const Tensor& g, const Tensor& x, const Tensor& w,
                                        const Shape& x_size, const Shape& w_size, const SizeArg& stride,
                                        const SizeArg& padding, const SizeArg& dilation, int64_t groups) {
  PendingGrad gx, gw;
  if (w.defined()) gx = prepare_input(dims, g, w, x_size, stride, padding, dilation, groups);
  if (x.defined()) gw = prepare_weight(dims, g, x, w_size, stride, padding, dilation, groups);
  const Shape s = expand(stride, dims, ops::op_name(OpId::conv2d_backward_input), "stride");  // checked above
  const bool unit_stride = std::all_of(s.begin(), s.end(), [](int64_t v) { return v == 1; });
  return run_gradients(gx, gw, dims == 2 && unit_stride,
                       double(g.numel()) * double(w_size[1]) * double(w_size[2]) * double(w_size[3]));
}

}  // namespace impl

namespace functional {

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, SizeArg stride, SizeArg padding,
              SizeArg dilation, int64_t groups) {
  return impl::conv(1, "conv1d", input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, SizeArg stride, SizeArg padding,
              SizeArg dilation, int64_t groups) {
  return impl::conv(2, ops::op_name(OpId::conv2d), input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, SizeArg stride, SizeArg padding,
              SizeArg dilation, int64_t groups) {
  return impl::conv(3, ops::op_name(OpId::conv3d), input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias, SizeArg stride, SizeArg padding,
                        SizeArg output_padding, int64_t groups, SizeArg dilation) {
  return impl::conv_transpose(1, "conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups,
                              dilation);
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, SizeArg stride, SizeArg padding,
                        SizeArg output_padding, int64_t groups, SizeArg dilation) {
  return impl::conv_transpose(2, ops::op_name(OpId::conv_transpose2d), input, weight, bias, stride, padding,
                              output_padding, groups, dilation);
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias, SizeArg stride, SizeArg padding,
                        SizeArg output_padding, int64_t groups, SizeArg dilation) {
  return impl::conv_transpose(3, ops::op_name(OpId::conv_transpose3d), input, weight, bias, stride, padding,
                              output_padding, groups, dilation);
}

Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight, const Shape& input_size, SizeArg stride,
                             SizeArg padding, SizeArg dilation, int64_t groups) {
  return ran(prepare_input(2, grad_output, weight, input_size, stride, padding, dilation, groups)).out;
}
Tensor conv3d_backward_input(const Tensor& grad_output, const Tensor& weight, const Shape& input_size, SizeArg stride,
                             SizeArg padding, SizeArg dilation, int64_t groups) {
  return ran(prepare_input(3, grad_output, weight, input_size, stride, padding, dilation, groups)).out;
}
Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input, const Shape& weight_size, SizeArg stride,
                              SizeArg padding, SizeArg dilation, int64_t groups) {
  return ran(prepare_weight(2, grad_output, input, weight_size, stride, padding, dilation, groups)).out;
}
Tensor conv3d_backward_weight(const Tensor& grad_output, const Tensor& input, const Shape& weight_size, SizeArg stride,
                              SizeArg padding, SizeArg dilation, int64_t groups) {
  return ran(prepare_weight(3, grad_output, input, weight_size, stride, padding, dilation, groups)).out;
}

}  // namespace functional
}  // namespace ditto::nn
