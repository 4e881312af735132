// Padding and upsampling: argument checks (PyTorch's rules and messages), output sizes, dispatch
// and autograd recording. One kernel per direction serves every mode and rank (cpu/resample.cpp);
// the formulas are in ops/formulas_conv.cpp.
#include "ops/resample_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/checked.h"
#include "ditto/nn/resample.h"
#include "ops/common.h"
#include "ops/conv_ops.h"

namespace ditto::nn {
using ditto::detail::checked_add;
using ditto::detail::fail;
using ditto::detail::shape_str;
using ops::OpId;

namespace {

Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : t.detach().contiguous(); }

// A gradient of input_size's shape from grad_output, by call(grad_input, dense grad_output).
template <class Call>
Tensor gradient(const char* op, const Tensor& grad_output, const Shape& input_size, Call call) {
  Tensor gi = ditto::detail::new_tensor(input_size, grad_output.dtype(), op);
  if (gi.numel() == 0) return gi;
  if (grad_output.numel() == 0) return gi.fill_(0.0);
  call(gi, dense(grad_output));
  return gi;
}

// f.template operator()<forward row, backward row>() for the op of `dims` spatial dims (1 to 3).
template <OpId a, OpId b, OpId c, OpId ab, OpId bb, OpId cb, class F>
decltype(auto) by_dims(int dims, F& f) {
  if (dims == 1) return f.template operator()<a, ab>();
  if (dims == 2) return f.template operator()<b, bb>();
  return f.template operator()<c, cb>();
}

PadMode pad_mode(const std::string& mode, const char* op) {
  if (mode == "constant") return PadMode::Constant;
  if (mode == "reflect") return PadMode::Reflect;
  if (mode == "replicate") return PadMode::Replicate;
  if (mode == "circular") return PadMode::Circular;
  fail(op, "Unrecognised padding mode ", mode, " (expected constant, reflect, replicate or circular)");
}

// The forward row of a non-constant pad over `dims` spatial dims.
template <class F>
decltype(auto) with_pad_row(PadMode mode, int dims, F&& f) {
  auto pick = [&]<OpId a, OpId b, OpId c, OpId ab, OpId bb, OpId cb>() -> decltype(auto) {
    return by_dims<a, b, c, ab, bb, cb>(dims, f);
  };
  switch (mode) {
    case PadMode::Reflect:
      return pick.template
      operator()<OpId::reflection_pad1d, OpId::reflection_pad2d, OpId::reflection_pad3d,
                 OpId::reflection_pad1d_backward, OpId::reflection_pad2d_backward, OpId::reflection_pad3d_backward>();
    case PadMode::Replicate:
      return pick.template operator()<OpId::replication_pad1d, OpId::replication_pad2d, OpId::replication_pad3d,
                                      OpId::replication_pad1d_backward, OpId::replication_pad2d_backward,
                                      OpId::replication_pad3d_backward>();
    default:
      return pick.template
      operator()<OpId::_pad_circular, OpId::_pad_circular, OpId::_pad_circular, OpId::_pad_circular_backward,
                 OpId::_pad_circular_backward, OpId::_pad_circular_backward>();
  }
}

// The output shape of padding input's last pad.size() / 2 dims; checks PyTorch's rules.
Shape padded_shape(const char* op, const Shape& in, const Shape& pad, PadMode mode, PadArgs& args) {
  const int dims = static_cast<int>(pad.size() / 2);
  Shape out = in;
  const int64_t nd = static_cast<int64_t>(in.size());
  for (int d = 0; d < dims; ++d) {
    // pad lists (before, after) from the last dim backwards
    const int64_t k = nd - 1 - d;
    const int64_t before = pad[static_cast<std::size_t>(2 * d)], after = pad[static_cast<std::size_t>(2 * d + 1)];
    const int64_t n = in[static_cast<std::size_t>(k)];
    // |width| <= 2^62 keeps every index computation (o - before, -before, ...) in range
    constexpr int64_t kMaxWidth = int64_t{1} << 62;
    for (int64_t w : {before, after})
      if (w > kMaxWidth || w < -kMaxWidth) fail(op, "padding width ", w, " is out of range (|width| <= 2^62)");
    if (mode == PadMode::Reflect && (before >= n || after >= n))
      fail(op, "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (",
           before, ", ", after, ") at dimension ", k, " of input ", shape_str(in));
    if (mode == PadMode::Circular) {
      // wraps around what the negative widths leave (PyTorch's rule, and never past it)
      const int64_t kept = n - std::max<int64_t>(-before, 0) - std::max<int64_t>(-after, 0);
      if (kept < 1) fail(op, "Negative padding value is resulting in an empty dimension (dimension ", k, ")");
      if (before > kept || after > kept) fail(op, "Padding value causes wrapping around more than once.");
    }
    const int64_t size = checked_add(checked_add(n, before, op, "the padded size"), after, op, "the padded size");
    if (size < 0 || (mode != PadMode::Constant && size < 1))
      fail(op, "The input size ", n, ", plus negative padding ", before, " and ", after, " resulted in a ",
           size < 0 ? "negative" : "empty", " output size, which is invalid. Check dimension ", k, " of your input.");
    if (mode != PadMode::Constant && n < 1)
      fail(op, "expected an input with non-zero sizes in the padded dims, got ", shape_str(in));
    out[static_cast<std::size_t>(k)] = size;
    args.before[dims - 1 - d] = before;  // args run outer dim first
  }
  args.dims = dims;
  return out;
}

// One pad of up to three trailing dims (the kernel's reach).
template <OpId fwd>
Tensor pad_once(const char* op, const Tensor& x, const Shape& pad, PadMode mode, double value) {
  PadArgs args{mode, 0, {0, 0, 0}, value};
  const Shape out_shape = padded_shape(op, x.sizes(), pad, mode, args);
  Tensor out = ditto::detail::new_tensor(out_shape, x.dtype(), op);
  if (out.numel() > 0) {
    if (x.numel() == 0) {
      out.fill_(value);  // only the constant mode gets here with an empty input
    } else {
      ops::call<fwd>(x.device(), out, dense(x), args);
    }
  }
  if (autograd::needs_grad(x)) ops::record<fwd>({x}, {out}, autograd::formulas::PadSaved{x.sizes(), args});
  return out;
}

Tensor constant_pad(const char* op, const Tensor& x, const Shape& pad, double value) {
  const std::size_t dims = pad.size() / 2;
  if (dims <= 3) return pad_once<OpId::constant_pad_nd>(op, x, pad, PadMode::Constant, value);
  // more than three padded dims: the last three, then the rest, each as an inner dim of a view
  // whose last dim (the dims after it, flattened) is not padded
  Tensor y = pad_once<OpId::constant_pad_nd>(op, x, Shape(pad.begin(), pad.begin() + 6), PadMode::Constant, value);
  for (std::size_t d = 3; d < dims; ++d) {
    const int64_t k = static_cast<int64_t>(y.dim()) - 1 - static_cast<int64_t>(d);
    Shape view(y.sizes().begin(), y.sizes().begin() + k + 1);
    int64_t rest = 1;
    for (int64_t j = k + 1; j < y.dim(); ++j) rest *= y.size(j);
    view.push_back(rest);
    Shape full = y.sizes();
    Tensor z = pad_once<OpId::constant_pad_nd>(op, y.reshape(view), {0, 0, pad[2 * d], pad[2 * d + 1]},
                                               PadMode::Constant, value);
    full[static_cast<std::size_t>(k)] = z.size(k);
    y = z.reshape(full);
  }
  return y;
}

}  // namespace

namespace impl {

Tensor pad(const char* op, const Tensor& input, const Shape& pad, const std::string& mode,
           std::optional<double> value) {
  ditto::detail::check_defined(input, op);
  const PadMode m = pad_mode(mode, op);
  if (pad.size() % 2 != 0) fail(op, "Padding length must be divisible by 2");
  if (static_cast<int64_t>(pad.size()) > 2 * input.dim()) fail(op, "Padding length too large");
  if (m == PadMode::Constant) {
    return constant_pad(op, input, pad, value.value_or(0.0));
  }
  if (value && *value != 0) fail(op, "Padding mode \"", mode, "\" doesn't take in value argument");
  const int dims = static_cast<int>(pad.size() / 2);
  const int64_t nd = input.dim();
  if (dims < 1 || dims > 3 || (nd != dims + 1 && nd != dims + 2))
    fail(op, "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now (padding ", pad.size(),
         " numbers of a ", nd, "D input)");
  // circular padding copies (PyTorch composes it of copies, for every dtype); the others are floating
  if (m != PadMode::Circular && !is_floating(input.dtype()))
    fail(op, "\"", mode, "\" padding is not implemented for '", ops::aten_type_name(input.dtype()), "'");
  return with_pad_row(m, dims, [&]<OpId fwd, OpId bwd>() { return pad_once<fwd>(op, input, pad, m, 0.0); });
}

Tensor pad_backward(const Tensor& grad_output, const Shape& input_size, const PadArgs& args) {
  const char* op = "pad_backward";
  Shape out = input_size;
  const std::size_t nd = input_size.size();
  for (int d = 0; d < args.dims; ++d) {
    const std::size_t k = nd - static_cast<std::size_t>(args.dims) + static_cast<std::size_t>(d);
    out[k] = grad_output.size(static_cast<int64_t>(k));
  }
  if (grad_output.sizes() != out) fail(op, "grad_output ", shape_str(grad_output.sizes()), " does not fit");
  return gradient(op, grad_output, input_size, [&](const Tensor& gi, const Tensor& g) {
    with_pad_row(args.mode, args.dims, [&]<OpId fwd, OpId bwd>() {
      ops::call<bwd>(g.device(), gi, g, args);
      return 0;
    });
  });
}

}  // namespace impl

// ---------------------------------------------------------------------------------------------
// Upsampling

namespace {

UpsampleMode upsample_mode(const std::string& mode, int64_t dim, const char* op) {
  const int64_t s = dim - 2;
  auto need = [&](int64_t d) {
    if (s != d) fail(op, "Got ", dim, "D input, but ", mode, " mode needs ", d + 2, "D input");
  };
  if (mode == "nearest") return UpsampleMode::Nearest;
  if (mode == "nearest-exact") return UpsampleMode::NearestExact;
  if (mode == "linear") return need(1), UpsampleMode::Linear;
  if (mode == "bilinear") return need(2), UpsampleMode::Linear;
  if (mode == "trilinear") return need(3), UpsampleMode::Linear;
  if (mode == "bicubic") return need(2), UpsampleMode::Cubic;
  fail(op, "Input Error: Only 3D, 4D and 5D input Tensors supported (got ", dim,
       "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got ", mode, ")");
}

// The output's spatial size from size or scale_factor (exactly one; one value or one per spatial
// dim), and the scales the kernel takes: scale_factor's, or 0 (from the sizes) when recomputed or
// when size was given. PyTorch's rules and messages.
struct OutputSize {
  Shape spatial;
  double scales[3] = {0, 0, 0};
};
OutputSize output_size(const char* op, const Tensor& input, const std::optional<SizeArg>& size,
                       const std::optional<std::vector<double>>& scale_factor,
                       std::optional<bool> recompute_scale_factor) {
  const int dims = static_cast<int>(input.dim() - 2);
  const bool has_size = size && !size->empty();
  if (has_size == scale_factor.has_value())
    fail(op, has_size ? "only one of size or scale_factor should be defined"
                      : "either size or scale_factor should be defined");
  if (recompute_scale_factor.value_or(false) && size)
    fail(op, "recompute_scale_factor is not meaningful with an explicit size.");
  const Shape in_spatial(input.sizes().begin() + 2, input.sizes().end());
  OutputSize r;
  if (has_size) {
    const Shape& v = size->values();
    if (v.size() != 1 && static_cast<int>(v.size()) != dims)
      fail(op,
           "Input and output must have the same number of spatial dimensions, but got input with spatial "
           "dimensions of ",
           shape_str(in_spatial), " and output size of ", shape_str(v), ".");
    for (int d = 0; d < dims; ++d) r.spatial.push_back(v.size() == 1 ? v[0] : v[static_cast<std::size_t>(d)]);
    return r;
  }
  const std::vector<double>& s = *scale_factor;
  if (s.size() != 1 && static_cast<int>(s.size()) != dims)
    fail(op,
         "Input and scale_factor must have the same number of spatial dimensions, but got input with spatial "
         "dimensions of ",
         shape_str(in_spatial), " and scale_factor of size ", s.size(), ".");
  for (int d = 0; d < dims; ++d) {
    const double f = s.size() == 1 ? s[0] : s[static_cast<std::size_t>(d)];
    const double o = std::floor(static_cast<double>(input.size(2 + d)) * f);
    if (!std::isfinite(f) || !(o >= 0) || o > 9.2e18) fail(op, "invalid scale_factor ", f);
    r.spatial.push_back(static_cast<int64_t>(o));
    r.scales[d] = recompute_scale_factor.value_or(false) ? 0.0 : f;  // recomputed: from the sizes
  }
  return r;
}

template <class F>
decltype(auto) with_upsample_row(UpsampleMode mode, int dims, F&& f) {
  auto pick = [&]<OpId a, OpId b, OpId c, OpId ab, OpId bb, OpId cb>() -> decltype(auto) {
    return by_dims<a, b, c, ab, bb, cb>(dims, f);
  };
  switch (mode) {
    case UpsampleMode::Nearest:
      return pick.template operator()<OpId::upsample_nearest1d, OpId::upsample_nearest2d, OpId::upsample_nearest3d,
                                      OpId::upsample_nearest1d_backward, OpId::upsample_nearest2d_backward,
                                      OpId::upsample_nearest3d_backward>();
    case UpsampleMode::NearestExact:
      return pick
          .template operator()<OpId::_upsample_nearest_exact1d, OpId::_upsample_nearest_exact2d,
                               OpId::_upsample_nearest_exact3d, OpId::_upsample_nearest_exact1d_backward,
                               OpId::_upsample_nearest_exact2d_backward, OpId::_upsample_nearest_exact3d_backward>();
    case UpsampleMode::Linear:
      return pick.template operator()<OpId::upsample_linear1d, OpId::upsample_bilinear2d, OpId::upsample_trilinear3d,
                                      OpId::upsample_linear1d_backward, OpId::upsample_bilinear2d_backward,
                                      OpId::upsample_trilinear3d_backward>();
    default:
      return pick.template operator()<OpId::upsample_bicubic2d, OpId::upsample_bicubic2d, OpId::upsample_bicubic2d,
                                      OpId::upsample_bicubic2d_backward, OpId::upsample_bicubic2d_backward,
                                      OpId::upsample_bicubic2d_backward>();
  }
}

}  // namespace

namespace impl {

Tensor interpolate(const char* op, const Tensor& input, const std::optional<SizeArg>& size,
                   const std::optional<std::vector<double>>& scale_factor, const std::string& mode,
                   std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor) {
  ditto::detail::check_defined(input, op);
  const int64_t nd = input.dim();
  if (nd < 3 || nd > 5)
    fail(op, "Input Error: Only 3D, 4D and 5D input Tensors supported (got ", nd,
         "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got ", mode, ")");
  if (mode == "area") {
    // adaptive average pooling to the output size, as PyTorch's interpolate (scales recomputed)
    if (align_corners)
      fail(op,
           "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
           "trilinear");
    return impl::adaptive_avg_pool(static_cast<int>(nd - 2), op, input,
                                   SizeArg(output_size(op, input, size, scale_factor, recompute_scale_factor).spatial));
  }
  const UpsampleMode m = upsample_mode(mode, nd, op);
  const bool interpolating = m == UpsampleMode::Linear || m == UpsampleMode::Cubic;
  if (!interpolating && align_corners)
    fail(op,
         "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
         "trilinear");
  if (!is_floating(input.dtype()))
    fail(op, "\"", mode, "\" upsampling is not implemented for '", ops::aten_type_name(input.dtype()), "'");
  const int dims = static_cast<int>(nd - 2);
  const OutputSize o = output_size(op, input, size, scale_factor, recompute_scale_factor);
  UpsampleArgs args{m, dims, align_corners.value_or(false), {o.scales[0], o.scales[1], o.scales[2]}};
  Shape out_shape = input.sizes();
  std::copy(o.spatial.begin(), o.spatial.end(), out_shape.begin() + 2);
  for (int d = 0; d < dims; ++d) {
    const std::size_t k = static_cast<std::size_t>(2 + d);
    if (input.size(static_cast<int64_t>(k)) <= 0 || out_shape[k] <= 0)
      fail(op, "Input and output sizes should be greater than 0, but got input ",
           shape_str(Shape(input.sizes().begin() + 2, input.sizes().end())), " and output ",
           shape_str(Shape(out_shape.begin() + 2, out_shape.end())));
  }
  return with_upsample_row(m, dims, [&]<OpId fwd, OpId bwd>() {
    Tensor out = ditto::detail::new_tensor(out_shape, input.dtype(), op);
    if (out.numel() > 0) ops::call<fwd>(input.device(), out, dense(input), args);
    if (autograd::needs_grad(input))
      ops::record<fwd>({input}, {out}, autograd::formulas::UpsampleSaved{input.sizes(), args});
    return out;
  });
}

Tensor upsample_backward(const Tensor& grad_output, const Shape& input_size, const UpsampleArgs& args) {
  const char* op = "upsample_backward";
  if (grad_output.dim() != static_cast<int64_t>(input_size.size()) || grad_output.size(0) != input_size[0] ||
      grad_output.size(1) != input_size[1])
    fail(op, "grad_output ", shape_str(grad_output.sizes()), " does not fit an input of size ", shape_str(input_size));
  return gradient(op, grad_output, input_size, [&](const Tensor& gi, const Tensor& g) {
    with_upsample_row(args.mode, args.dims, [&]<OpId fwd, OpId bwd>() {
      ops::call<bwd>(g.device(), gi, g, args);
      return 0;
    });
  });
}

}  // namespace impl

namespace functional {

Tensor pad(const Tensor& input, const Shape& pad, const std::string& mode, std::optional<double> value) {
  return impl::pad("pad", input, pad, mode, value);
}

Tensor interpolate(const Tensor& input, const std::optional<SizeArg>& size,
                   const std::optional<std::vector<double>>& scale_factor, const std::string& mode,
                   std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor) {
  return impl::interpolate("interpolate", input, size, scale_factor, mode, align_corners, recompute_scale_factor);
}

}  // namespace functional
}  // namespace ditto::nn

namespace ditto::nn {

PadNd::PadNd(const char* name, int dims, std::string mode, const SizeArg& padding, double value)
    : name_(name), mode_(std::move(mode)), value_(value) {
  const Shape& v = padding.values();
  if (v.size() == 1)
    padding_ = Shape(static_cast<std::size_t>(2 * dims), v[0]);
  else if (static_cast<int>(v.size()) == 2 * dims)
    padding_ = v;
  else
    fail(name, "expected padding to be one number or ", 2 * dims, " numbers, got ", v.size());
}

Tensor PadNd::forward(const Tensor& x) {
  return impl::pad(name_, x, padding_, mode_, mode_ == "constant" ? std::optional<double>(value_) : std::nullopt);
}

Tensor Upsample::forward(const Tensor& x) {
  return impl::interpolate("Upsample", x, size_, scale_factor_, mode_, align_corners_, recompute_scale_factor_);
}

}  // namespace ditto::nn
