#include "ditto/nn/module.h"

#include "ditto/autograd.h"
#include "ditto/error.h"

namespace ditto::nn {

namespace {
template <class Get>
void collect(const Module& m, const std::string& prefix, bool recurse, Get get,
             std::vector<std::pair<std::string, Tensor>>& out) {
  for (const auto& [n, t] : get(m)) out.emplace_back(prefix + n, t);
  if (!recurse) return;
  for (const auto& [n, c] : m.named_children()) collect(*c, prefix + n + ".", recurse, get, out);
}
}  // namespace

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect(
      *this, "", recurse, [](const Module& m) -> const auto& { return m.own_parameters(); }, out);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect(
      *this, "", recurse, [](const Module& m) -> const auto& { return m.own_buffers(); }, out);
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [n, t] : named_parameters(recurse)) out.push_back(t);
  return out;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [n, c] : children_) c->train(on);
}

void Module::zero_grad(bool set_to_none) {
  std::vector<Tensor> params = parameters();
  autograd::zero_grad(params, set_to_none);
}

Tensor& Module::register_parameter(std::string name, Tensor t, bool requires_grad) {
  for (auto& [n, p] : params_)
    if (n == name) throw Error("[register_parameter] parameter '" + name + "' already exists");
  if (t.defined() && requires_grad) t.requires_grad_();
  params_.emplace_back(std::move(name), std::move(t));
  return params_.back().second;
}

Tensor& Module::register_buffer(std::string name, Tensor t) {
  buffers_.emplace_back(std::move(name), std::move(t));
  return buffers_.back().second;
}

}  // namespace ditto::nn
