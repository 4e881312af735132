// Convolution: argument checks, shapes, dispatch and autograd recording, and the argument
// helpers that pooling (ops/pool_ops.cpp) shares. Every op runs as its 2-D form (1-D with height 1,
// unbatched with N = 1); the kernels are in cpu/conv.cpp, the backward formulas in
// ops/formulas_conv.cpp.
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

}  // namespace impl

using namespace impl;

namespace {

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

}  // namespace functional
}  // namespace ditto::nn
