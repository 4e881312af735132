// Convolution and pooling modules: parameters, PyTorch's default init, and calls into the shared
// implementations of ops/conv_ops.h under the module's name.
#include "ditto/nn/conv.h"

#include <cmath>

#include "ditto/factory.h"
#include "ditto/nn/init.h"
#include "ops/conv_ops.h"

namespace ditto::nn {
namespace {
Shape sizes(const SizeArg& a, int dims, const char* op, const char* what, int64_t lo) {
  const Shape& v = a.values();
  DITTO_CHECK(v.size() == 1 || static_cast<int>(v.size()) == dims, op, "expected ", what, " to be one number or ", dims,
              " numbers, got ", v.size());
  Shape r = v.size() == 1 ? Shape(static_cast<std::size_t>(dims), v[0]) : v;
  for (int64_t x : r) DITTO_CHECK(x >= lo, op, "expected ", what, lo == 0 ? " >= 0" : " > 0", ", got ", x);
  return r;
}
}  // namespace

ConvNd::ConvNd(const char* name, int dims, int64_t in, int64_t out, const SizeArg& kernel, const SizeArg& stride,
               const SizeArg& padding, const SizeArg& dilation, int64_t groups, bool bias, ScalarType dtype,
               bool transposed, const SizeArg& output_padding)
    : name_(name), dims_(dims), in_(in), out_(out), groups_(groups), has_bias_(bias), transposed_(transposed) {
  kernel_ = sizes(kernel, dims, name, "kernel_size", 1);
  stride_ = sizes(stride, dims, name, "stride", 1);
  padding_ = sizes(padding, dims, name, "padding", 0);
  dilation_ = sizes(dilation, dims, name, "dilation", 1);
  output_padding_ = sizes(output_padding, dims, name, "output_padding", 0);
  DITTO_CHECK(groups > 0, name, "groups must be a positive integer, got ", groups);
  DITTO_CHECK(in >= 0 && out >= 0, name, "in_channels and out_channels must be non-negative, got ", in, " and ", out);
  DITTO_CHECK(in % groups == 0, name, "in_channels (", in, ") must be divisible by groups (", groups, ")");
  DITTO_CHECK(out % groups == 0, name, "out_channels (", out, ") must be divisible by groups (", groups, ")");
  DITTO_CHECK(is_floating(dtype), name, "parameters must be floating point, got ", dtype_name(dtype));
  Shape wshape = transposed ? Shape{in, out / groups} : Shape{out, in / groups};
  wshape.insert(wshape.end(), kernel_.begin(), kernel_.end());
  register_parameter("weight", empty(wshape, dtype));
  if (bias) register_parameter("bias", zeros({out}, dtype));
  reset_parameters();
}

Tensor& ConvNd::bias() { return has_bias_ ? param(1) : (no_bias_ = Tensor()); }

void ConvNd::reset_parameters() {
  init::kaiming_uniform_(weight(), std::sqrt(5.0));
  if (!has_bias_) return;
  const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight()).first;
  if (fan_in != 0) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    init::uniform_(param(1), -bound, bound);
  }
}

Tensor ConvNd::forward(const Tensor& x) {
  const Tensor b = has_bias_ ? param(1) : Tensor();
  if (transposed_)
    return impl::conv_transpose(dims_, name_, x, weight(), b, stride_, padding_, output_padding_, groups_, dilation_);
  return impl::conv(dims_, name_, x, weight(), b, stride_, padding_, dilation_, groups_);
}

Tensor ConvNd::forward(const Tensor& x, const Shape& output_size) {
  DITTO_CHECK(transposed_, name_, "output_size is for transposed convolutions only");
  const Shape pad = impl::conv_transpose_padding(dims_, name_, x, kernel_, stride_, padding_, dilation_, output_size);
  return impl::conv_transpose(dims_, name_, x, weight(), has_bias_ ? param(1) : Tensor(), stride_, padding_, pad,
                              groups_, dilation_);
}

std::pair<Tensor, Tensor> MaxPoolNd::forward_with_indices(const Tensor& x) {
  return impl::max_pool(dims_, name_, x, kernel_, stride_, padding_, dilation_, ceil_mode_);
}

Tensor MaxUnpoolNd::unpool(const Tensor& x, const Tensor& indices, const Shape& output_size) const {
  return impl::max_unpool(dims_, name_, x, indices, kernel_, stride_, padding_, output_size);
}

Tensor AvgPoolNd::forward(const Tensor& x) {
  return impl::avg_pool(dims_, name_, x, kernel_, stride_, padding_, ceil_mode_, count_include_pad_, divisor_override_);
}

Tensor AdaptiveAvgPoolNd::forward(const Tensor& x) { return impl::adaptive_avg_pool(dims_, name_, x, output_size_); }

std::pair<Tensor, Tensor> AdaptiveMaxPoolNd::forward_with_indices(const Tensor& x) {
  return impl::adaptive_max_pool(dims_, name_, x, output_size_);
}

std::pair<Tensor, Tensor> FractionalMaxPoolNd::forward_with_indices(const Tensor& x) {
  return impl::fractional_max_pool(dims_, name_, x, kernel_, output_size_, output_ratio_, Tensor());
}

Tensor LPPoolNd::forward(const Tensor& x) {
  return impl::lp_pool(dims_, name_, x, norm_type_, kernel_, stride_, ceil_mode_);
}

}  // namespace ditto::nn
