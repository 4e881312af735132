// The normalisation layers. LayerNorm runs the fused native_layer_norm, BatchNorm and
// InstanceNorm the fused native_batch_norm, GroupNorm native_group_norm (ops/norm_ops.cpp);
// RMSNorm is composed of canonical-order reductions (mean, var) and elementwise ops,
// differentiable through the ops' own formulas.
#include "ditto/nn/normalization.h"

#include <string>

#include "core/tensor_impl.h"
#include "ditto/autograd.h"
#include "ditto/factory.h"
#include "ditto/nn/init.h"
#include "ditto/ops.h"
#include "ops/norm_ops.h"

namespace ditto::nn {

namespace {

// The checks of layer_norm and rms_norm (x ends in shape, weight and bias have it); returns the
// normalised dims.
Shape normalized_dims(const Tensor& x, const Shape& shape, const Tensor& weight, const Tensor& bias, const char* op) {
  DITTO_CHECK(x.defined(), op, "expected a defined input");
  DITTO_CHECK(is_floating(x.dtype()), op, "expected a floating point input, got ", dtype_name(x.dtype()));
  const int64_t k = static_cast<int64_t>(shape.size());
  bool ok = k >= 1 && x.dim() >= k;
  for (int64_t i = 0; ok && i < k; ++i) ok = x.size(x.dim() - k + i) == shape[i];
  if (!ok) {
    std::string want = "(*";
    for (int64_t d : shape) want += ", " + std::to_string(d);
    detail::fail(op, "given normalized_shape=", detail::shape_str(shape), ", expected input with shape ", want,
                 "), but got input of size ", detail::shape_str(x.sizes()));
  }
  DITTO_CHECK(!weight.defined() || weight.sizes() == shape, op, "expected weight of shape ", detail::shape_str(shape),
              ", got ", detail::shape_str(weight.sizes()));
  DITTO_CHECK(!bias.defined() || bias.sizes() == shape, op, "expected bias of shape ", detail::shape_str(shape),
              ", got ", detail::shape_str(bias.sizes()));
  Shape dims;
  for (int64_t i = x.dim() - k; i < x.dim(); ++i) dims.push_back(i);
  return dims;
}

Tensor layer_norm_impl(const Tensor& x, const Shape& shape, const Tensor& weight, const Tensor& bias, double eps,
                       const char* op) {
  normalized_dims(x, shape, weight, bias, op);
  return std::get<0>(native_layer_norm(x, shape, weight, bias, eps));
}

// x * rsqrt(mean(x^2) + eps) * weight over the trailing dims, PyTorch 2.4's rms_norm; eps
// defaults to the dtype's machine epsilon.
Tensor rms_norm_impl(const Tensor& x, const Shape& shape, const Tensor& weight, std::optional<double> eps,
                     const char* op) {
  const Shape dims = normalized_dims(x, shape, weight, Tensor(), op);
  const double e = eps ? *eps : (x.dtype() == kFloat32 ? 1.1920928955078125e-07 : 2.220446049250313e-16);
  Tensor y = x * (x.pow(2).mean(dims, true) + e).rsqrt();
  if (weight.defined()) y = y * weight;
  return y;
}

// (1, C, 1, ...) for x (N, C, ...): the shape that broadcasts a per-channel tensor over x.
Shape channel_shape(const Tensor& x) {
  Shape pshape(static_cast<std::size_t>(x.dim()), 1);
  pshape[1] = x.size(1);
  return pshape;
}

// The checks every per-channel normalisation makes: a floating input (N, C, ...), and each of
// the per-channel tensors given of C elements.
void check_channels(const Tensor& x, std::initializer_list<std::pair<const Tensor*, const char*>> per_channel,
                    const char* op) {
  DITTO_CHECK(x.defined(), op, "expected a defined input");
  DITTO_CHECK(is_floating(x.dtype()), op, "expected a floating point input, got ", dtype_name(x.dtype()));
  DITTO_CHECK(x.dim() >= 2, op, "expected an input with at least 2 dims (N, C, ...), got ", x.dim(), "-D");
  const int64_t C = x.size(1);
  for (const auto& [t, what] : per_channel)
    DITTO_CHECK(!t->defined() || (t->dim() == 1 && t->size(0) == C), op, what, " should contain ", C,
                " elements (one per channel), got shape ", detail::shape_str(t->sizes()));
}

Tensor affine_channels(Tensor y, const Tensor& weight, const Tensor& bias, const Shape& pshape) {
  if (weight.defined()) y = y * weight.view(pshape);
  if (bias.defined()) y = y + bias.view(pshape);
  return y;
}

Tensor batch_norm_impl(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                       const Tensor& bias, bool training, double momentum, double eps, const char* op) {
  DITTO_CHECK(x.defined(), op, "expected a defined input");
  DITTO_CHECK(is_floating(x.dtype()), op, "expected a floating point input, got ", dtype_name(x.dtype()));
  if (x.numel() == 0) {
    // As PyTorch: an input with no elements, of any rank, gives a copy (scaled by weight[0] and
    // shifted by bias[0] where given, so the graph reaches them); no statistics, no running update.
    Tensor y = x.clone();
    if (weight.defined()) y = y * weight.select(0, 0);
    if (bias.defined()) y = y + bias.select(0, 0);
    return y;
  }
  return std::get<0>(impl::batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps, op));
}

Tensor group_norm_impl(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias, double eps,
                       const char* op) {
  check_channels(x, {{&weight, "weight"}, {&bias, "bias"}}, op);
  const int64_t N = x.size(0), C = x.size(1);
  DITTO_CHECK(groups > 0 && C % groups == 0, op,
              "Expected number of channels in input to be divisible by num_groups, but got input of shape ",
              detail::shape_str(x.sizes()), " and num_groups=", groups);
  if (x.numel() == 0) return affine_channels(x.clone(), weight, bias, channel_shape(x));
  return std::get<0>(native_group_norm(x, weight, bias, N, C, x.numel() / (N * C), groups, eps));
}

// PyTorch's instance_norm: batch_norm over (1, N * C, *) with the running stats repeated N times,
// then each running stat the mean over the batch of its N updated copies.
Tensor instance_norm_impl(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                          const Tensor& bias, bool use_input_stats, double momentum, double eps, const char* op) {
  if (!use_input_stats) return batch_norm_impl(x, running_mean, running_var, weight, bias, false, momentum, eps, op);
  check_channels(
      x, {{&running_mean, "running_mean"}, {&running_var, "running_var"}, {&weight, "weight"}, {&bias, "bias"}}, op);
  const int64_t N = x.size(0), C = x.size(1);
  if (x.numel() == 0) return affine_channels(x.clone(), weight, bias, channel_shape(x));
  const int64_t inner = x.numel() / (N * C);
  DITTO_CHECK(inner > 1, op, "Expected more than 1 spatial element when training, got input size ",
              detail::shape_str(x.sizes()));
  Tensor copies[2];
  for (int i = 0; i < 2; ++i) {
    const Tensor& running = i == 0 ? running_mean : running_var;
    if (running.defined()) copies[i] = running.detach().unsqueeze(0).expand({N, C}).reshape({N * C});
  }
  const Tensor y = std::get<0>(impl::batch_norm(x.reshape({1, N * C, inner}), Tensor(), Tensor(), copies[0], copies[1],
                                                true, momentum, eps, op));
  for (int i = 0; i < 2; ++i) {
    if (!copies[i].defined()) continue;
    NoGradGuard no_grad;
    Tensor r = i == 0 ? running_mean : running_var;
    r.copy_(copies[i].view({N, C}).mean({0}, false));
  }
  return affine_channels(y.reshape(x.sizes()), weight, bias, channel_shape(x));
}
}  // namespace

// --- LayerNorm
LayerNorm::LayerNorm(Shape normalized_shape, double eps, bool elementwise_affine, ScalarType dtype)
    : shape_(std::move(normalized_shape)), eps_(eps), affine_(elementwise_affine) {
  DITTO_CHECK(!shape_.empty(), "LayerNorm", "normalized_shape must have at least one dim");
  for (int64_t s : shape_) DITTO_CHECK(s >= 0, "LayerNorm", "normalized_shape has a negative size: ", s);
  DITTO_CHECK(is_floating(dtype), "LayerNorm", "parameters must be floating point, got ", dtype_name(dtype));
  if (affine_) {
    register_parameter("weight", empty(shape_, dtype));
    register_parameter("bias", empty(shape_, dtype));
  }
  reset_parameters();
}

void LayerNorm::reset_parameters() {
  if (!affine_) return;
  init::ones_(param(0));
  init::zeros_(param(1));
}

Tensor& LayerNorm::weight() { return affine_ ? param(0) : absent(); }
Tensor& LayerNorm::bias() { return affine_ ? param(1) : absent(); }

Tensor LayerNorm::forward(const Tensor& x) { return layer_norm_impl(x, shape_, weight(), bias(), eps_, "LayerNorm"); }

// --- RMSNorm
RMSNorm::RMSNorm(Shape normalized_shape, std::optional<double> eps, bool elementwise_affine, ScalarType dtype)
    : shape_(std::move(normalized_shape)), eps_(eps), affine_(elementwise_affine) {
  DITTO_CHECK(!shape_.empty(), "RMSNorm", "normalized_shape must have at least one dim");
  for (int64_t s : shape_) DITTO_CHECK(s >= 0, "RMSNorm", "normalized_shape has a negative size: ", s);
  DITTO_CHECK(is_floating(dtype), "RMSNorm", "parameters must be floating point, got ", dtype_name(dtype));
  if (affine_) register_parameter("weight", ones(shape_, dtype));
}
Tensor& RMSNorm::weight() { return affine_ ? param(0) : absent(); }
Tensor RMSNorm::forward(const Tensor& x) { return rms_norm_impl(x, shape_, weight(), eps_, "RMSNorm"); }

// --- BatchNorm
BatchNormBase::BatchNormBase(int64_t num_features, double eps, std::optional<double> momentum, bool affine,
                             bool track_running_stats, ScalarType dtype)
    : num_features_(num_features), eps_(eps), momentum_(momentum), affine_(affine), track_(track_running_stats) {
  DITTO_CHECK(num_features >= 0, "BatchNorm", "num_features must be non-negative, got ", num_features);
  DITTO_CHECK(is_floating(dtype), "BatchNorm", "parameters must be floating point, got ", dtype_name(dtype));
  if (affine_) {
    register_parameter("weight", empty({num_features}, dtype));
    register_parameter("bias", empty({num_features}, dtype));
  }
  if (track_) {
    register_buffer("running_mean", zeros({num_features}, dtype));
    register_buffer("running_var", ones({num_features}, dtype));
    register_buffer("num_batches_tracked", zeros({}, kInt64));
  }
  reset_parameters();
}

void BatchNormBase::reset_running_stats() {
  if (!track_) return;
  NoGradGuard no_grad;
  buffer(0).fill_(0);
  buffer(1).fill_(1);
  buffer(2).fill_(0);
}

void BatchNormBase::reset_parameters() {
  reset_running_stats();
  if (!affine_) return;
  init::ones_(param(0));
  init::zeros_(param(1));
}

Tensor& BatchNormBase::weight() { return affine_ ? param(0) : absent(); }
Tensor& BatchNormBase::bias() { return affine_ ? param(1) : absent(); }
Tensor& BatchNormBase::running_mean() { return track_ ? buffer(0) : absent(); }
Tensor& BatchNormBase::running_var() { return track_ ? buffer(1) : absent(); }
Tensor& BatchNormBase::num_batches_tracked() { return track_ ? buffer(2) : absent(); }

// torch.nn.modules.batchnorm._BatchNorm.forward.
Tensor BatchNormBase::forward(const Tensor& x) {
  const std::string op = name();
  DITTO_CHECK(x.defined(), op, "expected a defined input");
  check_input(x);
  DITTO_CHECK(x.size(1) == num_features_, op, "expected input with ", num_features_,
              " features (channels) in dim 1, got ", x.size(1));
  double factor = momentum_.value_or(0.0);
  if (is_training() && track_) {
    Tensor& nbt = buffer(2);
    {
      NoGradGuard no_grad;
      nbt.add_(1);
    }
    if (!momentum_) factor = 1.0 / static_cast<double>(nbt.item<int64_t>());
  }
  const bool use_batch_stats = is_training() || !track_;
  const Tensor rm = (!is_training() || track_) ? running_mean() : Tensor();
  const Tensor rv = (!is_training() || track_) ? running_var() : Tensor();
  return batch_norm_impl(x, rm, rv, weight(), bias(), use_batch_stats, factor, eps_, op.c_str());
}

void BatchNorm1d::check_input(const Tensor& x) const {
  DITTO_CHECK(x.dim() == 2 || x.dim() == 3, "BatchNorm1d", "expected 2D or 3D input (got ", x.dim(), "D input)");
}
void BatchNorm2d::check_input(const Tensor& x) const {
  DITTO_CHECK(x.dim() == 4, "BatchNorm2d", "expected 4D input (got ", x.dim(), "D input)");
}

// --- GroupNorm
GroupNorm::GroupNorm(int64_t num_groups, int64_t num_channels, double eps, bool affine, ScalarType dtype)
    : groups_(num_groups), channels_(num_channels), eps_(eps), affine_(affine) {
  DITTO_CHECK(num_groups > 0 && num_channels >= 0 && num_channels % num_groups == 0, "GroupNorm",
              "num_channels must be divisible by num_groups, got ", num_channels, " and ", num_groups);
  DITTO_CHECK(is_floating(dtype), "GroupNorm", "parameters must be floating point, got ", dtype_name(dtype));
  if (affine_) {
    register_parameter("weight", empty({num_channels}, dtype));
    register_parameter("bias", empty({num_channels}, dtype));
  }
  reset_parameters();
}

void GroupNorm::reset_parameters() {
  if (!affine_) return;
  init::ones_(param(0));
  init::zeros_(param(1));
}

Tensor& GroupNorm::weight() { return affine_ ? param(0) : absent(); }
Tensor& GroupNorm::bias() { return affine_ ? param(1) : absent(); }

Tensor GroupNorm::forward(const Tensor& x) {
  DITTO_CHECK(x.defined() && x.dim() >= 2 && x.size(1) == channels_, "GroupNorm", "expected input (N, ", channels_,
              ", *), got shape ", x.defined() ? detail::shape_str(x.sizes()) : "undefined");
  return group_norm_impl(x, groups_, weight(), bias(), eps_, "GroupNorm");
}

// --- InstanceNorm1d/2d: torch.nn.modules.instancenorm._InstanceNorm.forward.
Tensor InstanceNormBase::forward(const Tensor& x) {
  const std::string op = name();
  DITTO_CHECK(x.defined(), op, "expected a defined input");
  check_input(x);
  const int64_t feature_dim = x.dim() - unbatched_dim_;
  DITTO_CHECK(x.size(feature_dim) == num_features(), op, "expected input's size at dim=", feature_dim,
              " to match num_features (", num_features(), "), but got: ", x.size(feature_dim), ".");
  if (x.dim() == unbatched_dim_) return forward(x.unsqueeze(0)).squeeze(0);
  return instance_norm_impl(x, running_mean(), running_var(), weight(), bias(), is_training() || !tracks(), momentum(),
                            eps(), op.c_str());
}

void InstanceNorm1d::check_input(const Tensor& x) const {
  DITTO_CHECK(x.dim() == 2 || x.dim() == 3, "InstanceNorm1d", "expected 2D or 3D input (got ", x.dim(), "D input)");
}
void InstanceNorm2d::check_input(const Tensor& x) const {
  DITTO_CHECK(x.dim() == 3 || x.dim() == 4, "InstanceNorm2d", "expected 3D or 4D input (got ", x.dim(), "D input)");
}

namespace functional {
Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  return group_norm_impl(x, num_groups, weight, bias, eps, "group_norm");
}
Tensor instance_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  return instance_norm_impl(x, running_mean, running_var, weight, bias, use_input_stats, momentum, eps,
                            "instance_norm");
}
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return layer_norm_impl(x, normalized_shape, weight, bias, eps, "layer_norm");
}
Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, std::optional<double> eps) {
  return rms_norm_impl(x, normalized_shape, weight, eps, "rms_norm");
}
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  return batch_norm_impl(x, running_mean, running_var, weight, bias, training, momentum, eps, "batch_norm");
}
}  // namespace functional

}  // namespace ditto::nn
