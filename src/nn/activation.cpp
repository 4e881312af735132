// Activation modules, Dropout, relu6 and normalize.
#include "ditto/nn/activation.h"

#include "ditto/autograd.h"
#include "ditto/factory.h"
#include "ditto/ops.h"

namespace ditto::nn {

namespace {
void check_p(double p, const char* op) {
  DITTO_CHECK(p >= 0 && p <= 1, op, "dropout probability has to be between 0 and 1, but got ", p);
}

// channel_dims 0: elementwise dropout; 1, 2: dropout1d, dropout2d (PyTorch's feature dropout).
Tensor dropout_impl(const Tensor& x, double p, bool training, Generator* gen, const char* op, int channel_dims = 0) {
  DITTO_CHECK(x.defined(), op, "expected a defined input");
  check_p(p, op);
  bool unbatched = false;
  if (channel_dims == 1) {
    DITTO_CHECK(x.dim() == 2 || x.dim() == 3, op, "Expected 2D or 3D input, but received a ", x.dim(),
                "D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
                "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
    unbatched = x.dim() == 2;
  } else if (channel_dims == 2) {
    DITTO_CHECK(x.dim() == 3 || x.dim() == 4, op, "Expected 3D or 4D input, but received a ", x.dim(),
                "D input (PyTorch warns of this, and will raise; a 3-D input is read as (N, C, L))");
  }
  if (unbatched) return dropout_impl(x.unsqueeze(0), p, training, gen, op, channel_dims).squeeze(0);
  if (p == 0 || !training || x.numel() == 0) return x;
  DITTO_CHECK(is_floating(x.dtype()), op, "expected a floating point input, got ", dtype_name(x.dtype()));
  if (p == 1) return x * zeros({}, x.dtype());
  // PyTorch's _dropout_impl: noise.bernoulli_(1 - p) (U53 < 1-p per element, in row-major
  // order), noise /= (1 - p) in x's dtype, then x * noise (so the gradient is grad * noise).
  // Feature dropout draws one noise value per (sample, channel): noise (N, C, 1, ...).
  Shape noise_shape = x.sizes();
  if (channel_dims != 0)
    for (std::size_t d = 2; d < noise_shape.size(); ++d) noise_shape[d] = 1;
  Tensor noise = empty(noise_shape, x.dtype());
  {
    NoGradGuard no_grad;
    noise.bernoulli_(1 - p, gen);
    noise.div_(1 - p);
  }
  return x * noise;
}
}  // namespace

GELU::GELU(std::string approximate) : approximate_(std::move(approximate)) {
  DITTO_CHECK(approximate_ == "none" || approximate_ == "tanh", "GELU",
              "approximate argument must be either none or tanh, got '", approximate_, "'");
}

Dropout::Dropout(double p, Generator* gen, int channel_dims) : p_(p), gen_(gen), channel_dims_(channel_dims) {
  check_p(p, "Dropout");
}

const char* Dropout::op_name() const {
  return channel_dims_ == 0 ? "Dropout" : channel_dims_ == 1 ? "Dropout1d" : "Dropout2d";
}
std::string Dropout::name() const { return op_name(); }

Tensor Dropout::forward(const Tensor& x) { return dropout_impl(x, p_, is_training(), gen_, op_name(), channel_dims_); }

namespace functional {
Tensor dropout(const Tensor& x, double p, bool training, Generator* gen) {
  return dropout_impl(x, p, training, gen, "dropout");
}
Tensor dropout1d(const Tensor& x, double p, bool training, Generator* gen) {
  return dropout_impl(x, p, training, gen, "dropout1d", 1);
}
Tensor dropout2d(const Tensor& x, double p, bool training, Generator* gen) {
  return dropout_impl(x, p, training, gen, "dropout2d", 2);
}
Tensor relu6(const Tensor& x) { return hardtanh(x, 0, 6); }
Tensor normalize(const Tensor& x, double p, int64_t dim, double eps) {
  DITTO_CHECK(x.defined(), "normalize", "expected a defined input");
  return x / x.norm(p, dim, true).clamp_min(eps).expand_as(x);
}
}  // namespace functional

}  // namespace ditto::nn
