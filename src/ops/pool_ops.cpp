// Pooling: argument checks, shapes, dispatch and autograd recording. 1-D pooling runs as 2-D
// (height 1, as PyTorch composes it), unbatched input with N = 1; 1-D and 2-D pooling use the 2-D
// rows, 3-D pooling the 3-D ones, and one kernel per direction serves them (cpu/pool.cpp). The
// backward formulas are in ops/formulas_conv.cpp.
#include <algorithm>
#include <cmath>
#include <string>

#include "autograd/graph.h"
#include "core/checked.h"
#include "ditto/ops.h"
#include "ditto/random.h"
#include "ops/common.h"
#include "ops/conv_ops.h"

namespace ditto::nn {
using ditto::detail::checked_add;
using ditto::detail::checked_mul;
using ditto::detail::checked_sub;
using ditto::detail::fail;
using ditto::detail::shape_str;
using ops::OpId;
using namespace impl;

namespace {

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

// Row id2 for 1-D and 2-D pooling, id3 for 3-D.

// Pooling geometry, checked, in the kernels' 3-D form.
struct PoolGeom {
  PoolArgs args;
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
  to_3d(k, 1, g.args.kernel);
  to_3d(s, 1, g.args.stride);
  to_3d(p, 0, g.args.padding);
  to_3d(d, 1, g.args.dilation);
  g.args.ceil_mode = ceil_mode;
  g.args.count_include_pad = false;
  g.args.divisor = 0;
  return g;
}

// The output sizes of an adaptive pooling, checked.
Shape adaptive_sizes(int dims, const char* op, const Tensor& x, const SizeArg& output_size) {
  check_floating(x, op);
  const Shape os = expand(output_size, dims, op, "output_size");
  check_at_least(os, 1, op, "output_size");
  check_nonempty_planes(x, op);
  return os;
}

// A backward op's grad_output (and indices) against the input size it names: 2-D or 3-D.
void check_backward(int dims, const char* op, const Tensor& grad_output, const Shape& input_size) {
  check_rank(grad_output, dims + 2, op, "grad_output");
  check_size_rank(input_size, static_cast<std::size_t>(dims + 2), op, "input size");
  check_floating(grad_output, op, "grad_output");
  if (grad_output.size(0) != input_size[0] || grad_output.size(1) != input_size[1])
    fail(op, "grad_output ", shape_str(grad_output.sizes()), " does not fit an input of size ", shape_str(input_size));
}

// The max poolings' common backward: grad_output added at indices, per plane in output order.
template <OpId id2, OpId id3>
Tensor gather_backward(int dims, const Tensor& grad_output, const Tensor& indices, const Shape& input_size) {
  const char* op = ops::op_name(dims == 3 ? id3 : id2);
  check_backward(dims, op, grad_output, input_size);
  ditto::detail::check_defined(indices, op, "indices");
  if (indices.dtype() != kInt64) fail(op, "expected int64 indices, got ", dtype_name(indices.dtype()));
  if (indices.sizes() != grad_output.sizes())
    fail(op, "grad_output ", shape_str(grad_output.sizes()), " and indices ", shape_str(indices.sizes()),
         " differ in shape");
  Tensor gi = ditto::detail::new_tensor(input_size, grad_output.dtype(), op);
  if (gi.numel() > 0) ops::call_by_dims<id2, id3>(dims, grad_output.device(), gi, dense(grad_output), dense(indices));
  return gi;
}

template <OpId id2, OpId id3>
Tensor avg_backward(int dims, const Tensor& grad_output, const Shape& input_size, const SizeArg& kernel_size,
                    const SizeArg& stride, const SizeArg& padding, bool ceil_mode, bool count_include_pad,
                    std::optional<int64_t> divisor_override) {
  const char* op = ops::op_name(dims == 3 ? id3 : id2);
  check_backward(dims, op, grad_output, input_size);
  if (divisor_override && *divisor_override == 0) fail(op, "divisor_override must not be zero");
  const Tensor shape_only = ditto::detail::new_tensor(input_size, grad_output.dtype(), op);
  PoolGeom g = pool_geom(dims, op, shape_only, kernel_size, stride, padding, 1, ceil_mode);
  g.args.count_include_pad = count_include_pad;
  g.args.divisor = divisor_override.value_or(0);
  check_grad_shape(grad_output, kernel_shape(with_spatial(shape_only, g.out_spatial), dims), op);
  if (shape_only.numel() > 0)
    ops::call_by_dims<id2, id3>(dims, grad_output.device(), shape_only, dense(grad_output), g.args);
  return shape_only;
}

template <OpId id2, OpId id3>
Tensor adaptive_avg_backward(int dims, const Tensor& grad_output, const Shape& input_size) {
  const char* op = ops::op_name(dims == 3 ? id3 : id2);
  check_backward(dims, op, grad_output, input_size);
  for (int d = 2; d < grad_output.dim(); ++d)
    if (grad_output.size(d) < 1)
      fail(op, "grad_output ", shape_str(grad_output.sizes()), " does not fit an input of size ",
           shape_str(input_size));
  Tensor gi = ditto::detail::new_tensor(input_size, grad_output.dtype(), op);
  if (gi.numel() > 0) ops::call_by_dims<id2, id3>(dims, grad_output.device(), gi, dense(grad_output));
  return gi;
}

}  // namespace

namespace impl {

std::pair<Tensor, Tensor> max_pool(int dims, const char* op, const Tensor& input, const SizeArg& kernel_size,
                                   const SizeArg& stride, const SizeArg& padding, const SizeArg& dilation,
                                   bool ceil_mode) {
  bool unbatched = false;
  const Tensor x = batched(input, dims, op, unbatched);
  check_floating(x, op);
  const PoolGeom g = pool_geom(dims, op, x, kernel_size, stride, padding, dilation, ceil_mode);
  const Tensor xk = kernel_form(x, dims);
  const Shape os = kernel_shape(with_spatial(x, g.out_spatial), dims);
  Tensor values = ditto::detail::new_tensor(os, x.dtype(), op);
  Tensor indices = ditto::detail::new_tensor(os, kInt64, op);
  if (values.numel() > 0)
    ops::call_by_dims<OpId::max_pool2d_with_indices, OpId::max_pool3d_with_indices>(dims, x.device(), values, indices,
                                                                                    dense(xk), g.args);
  if (autograd::needs_grad(xk)) {
    ops::record_by_dims<OpId::max_pool2d_with_indices, OpId::max_pool3d_with_indices>(
        dims, {xk}, {values, indices}, autograd::formulas::MaxPoolSaved{xk.sizes(), indices});
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
  const ops::KernelEntry& kernel =
      ops::select_kernel(dims == 3 ? OpId::max_unpool3d : OpId::max_unpool2d, input.device());
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
  if (dims == 3)
    ops::run<OpId::max_unpool3d>(kernel, out.view({P, Lout}), xc, idx);
  else
    ops::run<OpId::max_unpool2d>(kernel, out.view({P, Lout}), xc, idx);
  if (autograd::needs_grad(input)) {
    ops::record_by_dims<OpId::max_unpool2d, OpId::max_unpool3d>(
        dims, {input}, {out}, autograd::formulas::MaxUnpoolSaved{input.sizes(), P, Lout, idx});
  }
  return out;
}

Tensor avg_pool(int dims, const char* op, const Tensor& input, const SizeArg& kernel_size, const SizeArg& stride,
                const SizeArg& padding, bool ceil_mode, bool count_include_pad,
                std::optional<int64_t> divisor_override) {
  bool unbatched = false;
  const Tensor x = batched(input, dims, op, unbatched);
  check_floating(x, op);
  if (divisor_override && *divisor_override == 0) fail(op, "divisor_override must not be zero");
  PoolGeom g = pool_geom(dims, op, x, kernel_size, stride, padding, 1, ceil_mode);
  g.args.count_include_pad = count_include_pad;
  g.args.divisor = divisor_override.value_or(0);
  // the kernel's windows (start + kernel, padded ends) and their volume must fit int64
  checked_mul(checked_mul(g.args.kernel[0], g.args.kernel[1], op, "the kernel volume"), g.args.kernel[2], op,
              "the kernel volume");
  for (int i = 0; i < dims; ++i) {
    const int d = 3 - dims + i;
    checked_add(checked_mul(g.out_spatial[static_cast<std::size_t>(i)], g.args.stride[d], op, "a window's start"),
                g.args.kernel[d], op, "a window's end");
  }
  const Tensor xk = kernel_form(x, dims);
  Tensor out = ditto::detail::new_tensor(kernel_shape(with_spatial(x, g.out_spatial), dims), x.dtype(), op);
  if (out.numel() > 0) ops::call_by_dims<OpId::avg_pool2d, OpId::avg_pool3d>(dims, x.device(), out, dense(xk), g.args);
  if (autograd::needs_grad(xk)) {
    ops::record_by_dims<OpId::avg_pool2d, OpId::avg_pool3d>(
        dims, {xk}, {out}, autograd::formulas::AvgPoolSaved{xk.sizes(), g.args, divisor_override.has_value()});
  }
  return unbatch(out, dims, unbatched);
}

Tensor adaptive_avg_pool(int dims, const char* op, const Tensor& input, const SizeArg& output_size) {
  bool unbatched = false;
  const Tensor x = batched(input, dims, op, unbatched);
  const Shape os = adaptive_sizes(dims, op, x, output_size);
  const Tensor xk = kernel_form(x, dims);
  // output 1 everywhere is a mean over the planes, as in PyTorch (1-D: over (1, L))
  if (std::all_of(os.begin(), os.end(), [](int64_t v) { return v == 1; }))
    return unbatch(dims == 3 ? xk.mean({2, 3, 4}, true) : xk.mean({2, 3}, true), dims, unbatched);
  Tensor out = ditto::detail::new_tensor(kernel_shape(with_spatial(x, os), dims), x.dtype(), op);
  if (out.numel() > 0)
    ops::call_by_dims<OpId::adaptive_avg_pool2d, OpId::adaptive_avg_pool3d>(dims, x.device(), out,
                                                                            dense(xk));  // empty: nothing
  if (autograd::needs_grad(xk)) {
    ops::record_by_dims<OpId::adaptive_avg_pool2d, OpId::adaptive_avg_pool3d>(
        dims, {xk}, {out}, autograd::formulas::InputShape{xk.sizes()});
  }
  return unbatch(out, dims, unbatched);
}

std::pair<Tensor, Tensor> adaptive_max_pool(int dims, const char* op, const Tensor& input, const SizeArg& output_size) {
  bool unbatched = false;
  const Tensor x = batched(input, dims, op, unbatched);
  const Shape os = adaptive_sizes(dims, op, x, output_size);
  const Tensor xk = kernel_form(x, dims);
  const Shape shape = kernel_shape(with_spatial(x, os), dims);
  Tensor values = ditto::detail::new_tensor(shape, x.dtype(), op);
  Tensor indices = ditto::detail::new_tensor(shape, kInt64, op);
  if (values.numel() > 0)
    ops::call_by_dims<OpId::adaptive_max_pool2d, OpId::adaptive_max_pool3d>(dims, x.device(), values, indices,
                                                                            dense(xk));
  if (autograd::needs_grad(xk)) {
    ops::record_by_dims<OpId::adaptive_max_pool2d, OpId::adaptive_max_pool3d>(
        dims, {xk}, {values, indices}, autograd::formulas::MaxPoolSaved{xk.sizes(), indices});
  }
  return {unbatch(values, dims, unbatched), unbatch(indices, dims, unbatched)};
}

std::pair<Tensor, Tensor> fractional_max_pool(int dims, const char* op, const Tensor& input, const SizeArg& kernel_size,
                                              const SizeArg& output_size, const std::vector<double>& output_ratio,
                                              const Tensor& samples) {
  bool unbatched = false;
  const Tensor x = batched(input, dims, op, unbatched);
  check_floating(x, op);
  const Shape k = expand(kernel_size, dims, op, "kernel_size");
  check_at_least(k, 1, op, "kernel_size");
  check_nonempty_planes(x, op);
  Shape os;
  if (!output_size.empty()) {
    os = expand(output_size, dims, op, "output_size");
  } else if (!output_ratio.empty()) {
    if (output_ratio.size() != 1 && output_ratio.size() != static_cast<std::size_t>(dims))
      fail(op, "expected output_ratio to be one number or ", dims, " numbers, got ", output_ratio.size());
    for (int i = 0; i < dims; ++i) {
      const double r = output_ratio[output_ratio.size() == 1 ? 0 : static_cast<std::size_t>(i)];
      if (!(r > 0 && r < 1)) fail(op, "output_ratio must be between 0 and 1, got ", r);
      os.push_back(static_cast<int64_t>(static_cast<double>(x.size(2 + i)) * r));  // int(size * ratio)
    }
  } else {
    fail(op, "requires output_size or output_ratio");
  }
  check_at_least(os, 1, op, "output_size");
  for (int i = 0; i < dims; ++i)
    if (os[i] > x.size(2 + i) - k[i] + 1)
      fail(op, "kernel_size ", k[i], " too large relative to input size ", x.size(2 + i), " for output size ", os[i],
           " in dim ", i);
  const int64_t N = x.size(0), C = x.size(1);
  Tensor u = samples;
  if (!u.defined()) {
    u = ditto::rand({N, C, dims}, x.dtype());  // PyTorch's F.fractional_max_pool*d draws these
  } else {
    if (u.dim() != 3 || u.size(0) != N || u.size(1) != C || u.size(2) != dims)
      fail(op, "expected random samples of shape (", N, ", ", C, ", ", dims, "), got ", shape_str(u.sizes()));
    if (u.dtype() != x.dtype())
      fail(op, "expected random samples of the input's dtype ", dtype_name(x.dtype()), ", got ", dtype_name(u.dtype()));
  }
  PoolArgs a{};
  to_3d(k, 1, a.kernel);
  to_3d(Shape(static_cast<std::size_t>(dims), 1), 1, a.stride);
  to_3d(Shape(static_cast<std::size_t>(dims), 1), 1, a.dilation);
  const Shape shape = with_spatial(x, os);
  Tensor values = ditto::detail::new_tensor(shape, x.dtype(), op);
  Tensor indices = ditto::detail::new_tensor(shape, kInt64, op);
  if (values.numel() > 0)
    ops::call_by_dims<OpId::fractional_max_pool2d, OpId::fractional_max_pool3d>(dims, x.device(), values, indices,
                                                                                dense(x), dense(u.detach()), a);
  if (autograd::needs_grad(x)) {
    ops::record_by_dims<OpId::fractional_max_pool2d, OpId::fractional_max_pool3d>(
        dims, {x}, {values, indices}, autograd::formulas::MaxPoolSaved{x.sizes(), indices});
  }
  return {unbatch(values, dims, unbatched), unbatch(indices, dims, unbatched)};
}

// PyTorch's composition: avg_pool of x^p (no padding, count_include_pad), then
// (sign(out) * relu(|out|) * kernel area)^(1/p).
Tensor lp_pool(int dims, const char* op, const Tensor& input, double norm_type, const SizeArg& kernel_size,
               const SizeArg& stride, bool ceil_mode) {
  ditto::detail::check_defined(input, op);
  const Shape k = expand(kernel_size, dims, op, "kernel_size");
  check_at_least(k, 1, op, "kernel_size");
  int64_t area = 1;
  for (int64_t v : k) area = checked_mul(area, v, op, "the kernel area");
  const Tensor out = avg_pool(dims, op, input.pow(norm_type), kernel_size, stride, 0, ceil_mode, true, std::nullopt);
  return (ditto::sign(out) * ditto::relu(ditto::abs(out)) * Scalar(area)).pow(1.0 / norm_type);
}

}  // namespace impl

namespace functional {

Tensor max_pool1d(const Tensor& input, SizeArg kernel_size, SizeArg stride, SizeArg padding, SizeArg dilation,
                  bool ceil_mode) {
  return impl::max_pool(1, "max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode).first;
}
Tensor max_pool2d(const Tensor& input, SizeArg kernel_size, SizeArg stride, SizeArg padding, SizeArg dilation,
                  bool ceil_mode) {
  return impl::max_pool(2, "max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode).first;
}
Tensor max_pool3d(const Tensor& input, SizeArg kernel_size, SizeArg stride, SizeArg padding, SizeArg dilation,
                  bool ceil_mode) {
  return impl::max_pool(3, "max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode).first;
}
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, SizeArg kernel_size, SizeArg stride,
                                                  SizeArg padding, SizeArg dilation, bool ceil_mode) {
  return impl::max_pool(1, "max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode);
}
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, SizeArg kernel_size, SizeArg stride,
                                                  SizeArg padding, SizeArg dilation, bool ceil_mode) {
  return impl::max_pool(2, "max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode);
}
std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, SizeArg kernel_size, SizeArg stride,
                                                  SizeArg padding, SizeArg dilation, bool ceil_mode) {
  return impl::max_pool(3, "max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode);
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

Tensor avg_pool1d(const Tensor& input, SizeArg kernel_size, SizeArg stride, SizeArg padding, bool ceil_mode,
                  bool count_include_pad) {
  return impl::avg_pool(1, "avg_pool1d", input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        std::nullopt);
}
Tensor avg_pool2d(const Tensor& input, SizeArg kernel_size, SizeArg stride, SizeArg padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return impl::avg_pool(2, ops::op_name(OpId::avg_pool2d), input, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override);
}
Tensor avg_pool3d(const Tensor& input, SizeArg kernel_size, SizeArg stride, SizeArg padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return impl::avg_pool(3, ops::op_name(OpId::avg_pool3d), input, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override);
}

Tensor adaptive_avg_pool1d(const Tensor& input, SizeArg output_size) {
  return impl::adaptive_avg_pool(1, "adaptive_avg_pool1d", input, output_size);
}
Tensor adaptive_avg_pool2d(const Tensor& input, SizeArg output_size) {
  return impl::adaptive_avg_pool(2, ops::op_name(OpId::adaptive_avg_pool2d), input, output_size);
}
Tensor adaptive_avg_pool3d(const Tensor& input, SizeArg output_size) {
  return impl::adaptive_avg_pool(3, ops::op_name(OpId::adaptive_avg_pool3d), input, output_size);
}

Tensor adaptive_max_pool1d(const Tensor& input, SizeArg output_size) {
  return impl::adaptive_max_pool(1, "adaptive_max_pool1d", input, output_size).first;
}
Tensor adaptive_max_pool2d(const Tensor& input, SizeArg output_size) {
  return impl::adaptive_max_pool(2, ops::op_name(OpId::adaptive_max_pool2d), input, output_size).first;
}
Tensor adaptive_max_pool3d(const Tensor& input, SizeArg output_size) {
  return impl::adaptive_max_pool(3, ops::op_name(OpId::adaptive_max_pool3d), input, output_size).first;
}
std::pair<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input, SizeArg output_size) {
  return impl::adaptive_max_pool(1, "adaptive_max_pool1d", input, output_size);
}
std::pair<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input, SizeArg output_size) {
  return impl::adaptive_max_pool(2, ops::op_name(OpId::adaptive_max_pool2d), input, output_size);
}
std::pair<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input, SizeArg output_size) {
  return impl::adaptive_max_pool(3, ops::op_name(OpId::adaptive_max_pool3d), input, output_size);
}

std::pair<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input, SizeArg kernel_size,
                                                             SizeArg output_size, std::vector<double> output_ratio,
                                                             const Tensor& random_samples) {
  return impl::fractional_max_pool(2, ops::op_name(OpId::fractional_max_pool2d), input, kernel_size, output_size,
                                   output_ratio, random_samples);
}
std::pair<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input, SizeArg kernel_size,
                                                             SizeArg output_size, std::vector<double> output_ratio,
                                                             const Tensor& random_samples) {
  return impl::fractional_max_pool(3, ops::op_name(OpId::fractional_max_pool3d), input, kernel_size, output_size,
                                   output_ratio, random_samples);
}
Tensor fractional_max_pool2d(const Tensor& input, SizeArg kernel_size, SizeArg output_size,
                             std::vector<double> output_ratio, const Tensor& random_samples) {
  return fractional_max_pool2d_with_indices(input, kernel_size, output_size, std::move(output_ratio), random_samples)
      .first;
}
Tensor fractional_max_pool3d(const Tensor& input, SizeArg kernel_size, SizeArg output_size,
                             std::vector<double> output_ratio, const Tensor& random_samples) {
  return fractional_max_pool3d_with_indices(input, kernel_size, output_size, std::move(output_ratio), random_samples)
      .first;
}

Tensor lp_pool1d(const Tensor& input, double norm_type, SizeArg kernel_size, SizeArg stride, bool ceil_mode) {
  return impl::lp_pool(1, "lp_pool1d", input, norm_type, kernel_size, stride, ceil_mode);
}
Tensor lp_pool2d(const Tensor& input, double norm_type, SizeArg kernel_size, SizeArg stride, bool ceil_mode) {
  return impl::lp_pool(2, "lp_pool2d", input, norm_type, kernel_size, stride, ceil_mode);
}

// --- the backward ops
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size) {
  return gather_backward<OpId::max_pool2d_with_indices_backward, OpId::max_pool3d_with_indices_backward>(
      2, grad_output, indices, input_size);
}
Tensor max_pool3d_with_indices_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size) {
  return gather_backward<OpId::max_pool2d_with_indices_backward, OpId::max_pool3d_with_indices_backward>(
      3, grad_output, indices, input_size);
}
Tensor adaptive_max_pool2d_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size) {
  return gather_backward<OpId::adaptive_max_pool2d_backward, OpId::adaptive_max_pool3d_backward>(2, grad_output,
                                                                                                 indices, input_size);
}
Tensor adaptive_max_pool3d_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size) {
  return gather_backward<OpId::adaptive_max_pool2d_backward, OpId::adaptive_max_pool3d_backward>(3, grad_output,
                                                                                                 indices, input_size);
}
Tensor fractional_max_pool2d_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size) {
  return gather_backward<OpId::fractional_max_pool2d_backward, OpId::fractional_max_pool3d_backward>(
      2, grad_output, indices, input_size);
}
Tensor fractional_max_pool3d_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size) {
  return gather_backward<OpId::fractional_max_pool2d_backward, OpId::fractional_max_pool3d_backward>(
      3, grad_output, indices, input_size);
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Shape& input_size, SizeArg kernel_size, SizeArg stride,
                           SizeArg padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_backward<OpId::avg_pool2d_backward, OpId::avg_pool3d_backward>(
      2, grad_output, input_size, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}
Tensor avg_pool3d_backward(const Tensor& grad_output, const Shape& input_size, SizeArg kernel_size, SizeArg stride,
                           SizeArg padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_backward<OpId::avg_pool2d_backward, OpId::avg_pool3d_backward>(
      3, grad_output, input_size, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}

Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, const Shape& input_size) {
  return adaptive_avg_backward<OpId::adaptive_avg_pool2d_backward, OpId::adaptive_avg_pool3d_backward>(2, grad_output,
                                                                                                       input_size);
}
Tensor adaptive_avg_pool3d_backward(const Tensor& grad_output, const Shape& input_size) {
  return adaptive_avg_backward<OpId::adaptive_avg_pool2d_backward, OpId::adaptive_avg_pool3d_backward>(3, grad_output,
                                                                                                       input_size);
}

}  // namespace functional
}  // namespace ditto::nn
