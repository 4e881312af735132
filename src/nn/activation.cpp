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

Tensor dropout_impl(const Tensor& x, double p, bool training, Generator* gen, const char* op) {
  DITTO_CHECK(x.defined(), op, "expected a defined input");
  check_p(p, op);
  if (p == 0 || !training || x.numel() == 0) return x;
  DITTO_CHECK(is_floating(x.dtype()), op, "expected a floating point input, got ", dtype_name(x.dtype()));
  if (p == 1) return x * zeros({}, x.dtype());
  // PyTorch's _dropout_impl: noise.bernoulli_(1 - p) (U53 < 1-p per element, in row-major
  // order), noise /= (1 - p) in x's dtype, then x * noise (so the gradient is grad * noise).
  Tensor noise = empty(x.sizes(), x.dtype());
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

Dropout::Dropout(double p, Generator* gen) : p_(p), gen_(gen) { check_p(p, "Dropout"); }

Tensor Dropout::forward(const Tensor& x) { return dropout_impl(x, p_, is_training(), gen_, "Dropout"); }

namespace functional {
Tensor dropout(const Tensor& x, double p, bool training, Generator* gen) {
  return dropout_impl(x, p, training, gen, "dropout");
}
Tensor relu6(const Tensor& x) { return hardtanh(x, 0, 6); }
Tensor normalize(const Tensor& x, double p, int64_t dim, double eps) {
  DITTO_CHECK(x.defined(), "normalize", "expected a defined input");
  return x / x.norm(p, dim, true).clamp_min(eps).expand_as(x);
}
}  // namespace functional

}  // namespace ditto::nn
