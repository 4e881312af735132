#include "ditto/nn/layers.h"

#include <cmath>

#include "ditto/factory.h"
#include "ditto/nn/init.h"
#include "ditto/ops.h"

namespace ditto::nn {

Linear::Linear(int64_t in, int64_t out, bool bias, ScalarType dtype) : in_(in), out_(out), has_bias_(bias) {
  DITTO_CHECK(in >= 0 && out >= 0, "Linear", "in_features and out_features must be non-negative, got ", in, " and ",
              out);
  DITTO_CHECK(is_floating(dtype), "Linear", "parameters must be floating point, got ", dtype_name(dtype));
  register_parameter("weight", empty({out, in}, dtype));
  if (bias) register_parameter("bias", empty({out}, dtype));
  reset_parameters();
}

Tensor& Linear::bias() { return has_bias_ ? param(1) : absent(); }

void Linear::reset_parameters() {
  init::kaiming_uniform_(weight(), std::sqrt(5.0));
  if (has_bias_) {
    const double bound = in_ > 0 ? 1.0 / std::sqrt(static_cast<double>(in_)) : 0.0;
    init::uniform_(param(1), -bound, bound);
  }
}

Tensor Linear::forward(const Tensor& x) {
  DITTO_CHECK(x.defined() && x.dim() >= 1, "Linear", "expected an input with at least 1 dimension");
  DITTO_CHECK(x.size(-1) == in_, "Linear", "input has ", x.size(-1), " features in its last dimension, expected ", in_,
              " (input shape ", x.sizes().size(), "-D)");
  return functional::linear(x, weight(), has_bias_ ? param(1) : Tensor());
}

void Sequential::add(std::shared_ptr<UnaryModule> m) {
  register_module(std::to_string(layers_.size()), m);
  layers_.push_back(std::move(m));
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (auto& l : layers_) y = (*l)(y);  // a module call: ditto::audit's module path
  return y;
}

namespace functional {

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  DITTO_CHECK(x.defined() && weight.defined(), "linear", "expected defined input and weight");
  DITTO_CHECK(weight.dim() == 2, "linear", "weight must be 2-D, got ", weight.dim(), "-D");
  DITTO_CHECK(x.dim() >= 1 && x.size(-1) == weight.size(1), "linear", "input's last dimension (",
              x.dim() >= 1 ? x.size(-1) : 0, ") must equal weight's in_features (", weight.size(1), ")");
  if (x.dim() == 2 && bias.defined()) return addmm(bias, x, weight.t());
  Tensor y = matmul(x, weight.t());
  return bias.defined() ? y + bias : y;
}

static Tensor reduce(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::None: return loss;
    case Reduction::Sum: return loss.sum();
    case Reduction::Mean: break;
  }
  return loss.mean();
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  DITTO_CHECK(input.defined() && target.defined(), "mse_loss", "expected defined input and target");
  DITTO_CHECK(is_floating(input.dtype()), "mse_loss", "input must be floating point, got ", dtype_name(input.dtype()));
  DITTO_CHECK(input.sizes() == target.sizes(), "mse_loss", "input and target must have the same shape");
  const Tensor d = input - target;
  return reduce(d * d, reduction);
}

}  // namespace functional
const std::shared_ptr<Module>& ModuleList::ptr(std::size_t i) const {
  DITTO_CHECK(i < children_.size(), name(), "index ", i, " is out of range (", children_.size(), " modules)");
  return children_[i].second;
}
void ModuleList::wrong_type(const std::string& key) const {
  std::string actual = "?";
  for (const auto& [k, c] : children_)
    if (k == key) actual = c->name();
  detail::fail(name(), "module '", key, "' is a ", actual, ", not the requested type");
}
bool ModuleDict::contains(const std::string& key) const {
  for (const auto& [k, c] : children_)
    if (k == key) return true;
  return false;
}
const std::shared_ptr<Module>& ModuleDict::ptr(const std::string& key) const {
  for (const auto& [k, c] : children_)
    if (k == key) return c;
  detail::fail("ModuleDict", "no module named '", key, "'");
}
std::vector<std::string> ModuleDict::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, c] : children_) out.push_back(k);
  return out;
}

}  // namespace ditto::nn
