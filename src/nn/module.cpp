#include "ditto/nn/module.h"

#include <set>

#include "core/tensor_impl.h"
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

// A parameter shared by several modules (weight tying) is listed once, under its first name, as
// PyTorch's named_parameters (remove_duplicate); state_dict keeps every name.
std::vector<std::pair<std::string, Tensor>> Module::named_parameters(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> all, out;
  collect(
      *this, "", recurse, [](const Module& m) -> const auto& { return m.own_parameters(); }, all);
  std::set<const void*> seen;
  for (auto& [n, t] : all)
    if (!t.defined() || seen.insert(t.impl()).second) out.emplace_back(std::move(n), std::move(t));
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect(
      *this, "", recurse, [](const Module& m) -> const auto& { return m.own_buffers(); }, out);
  return out;
}

namespace {
void collect_state(const Module& m, const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out) {
  for (const auto& [n, t] : m.own_parameters())
    if (t.defined()) out.emplace_back(prefix + n, t);
  for (const auto& [n, t] : m.own_buffers())
    if (t.defined()) out.emplace_back(prefix + n, t);
  for (const auto& [n, c] : m.named_children()) collect_state(*c, prefix + n + ".", out);
}

std::string quoted_list(const std::vector<std::string>& keys) {
  std::string s;
  for (const std::string& k : keys) s += (s.empty() ? "\"" : ", \"") + k + "\"";
  return s;
}
}  // namespace

StateDict Module::state_dict() const {
  std::vector<std::pair<std::string, Tensor>> items;
  collect_state(*this, "", items);
  StateDict out;
  for (auto& [n, t] : items) out.insert(std::move(n), t.detach());
  return out;
}

Module::LoadResult Module::load_state_dict(const StateDict& state, bool strict) {
  std::vector<std::pair<std::string, Tensor>> own;
  collect_state(*this, "", own);
  LoadResult r;
  std::vector<std::string> errors;
  std::set<std::string> names;
  for (const auto& [n, t] : own) {
    names.insert(n);
    const Tensor* src = state.find(n);
    if (src == nullptr) {
      r.missing_keys.push_back(n);
    } else if (!src->defined()) {
      errors.push_back("\"" + n + "\" is undefined in the state");
    } else if (src->sizes() != t.sizes()) {
      errors.push_back("size mismatch for " + n + ": copying a param with shape " + detail::shape_str(src->sizes()) +
                       " from checkpoint, the shape in current model is " + detail::shape_str(t.sizes()) + ".");
    }
  }
  for (const auto& [n, t] : state)
    if (names.count(n) == 0) r.unexpected_keys.push_back(n);
  if (strict && !r.unexpected_keys.empty())
    errors.insert(errors.begin(), "Unexpected key(s) in state_dict: " + quoted_list(r.unexpected_keys) + ".");
  if (strict && !r.missing_keys.empty())
    errors.insert(errors.begin(), "Missing key(s) in state_dict: " + quoted_list(r.missing_keys) + ".");
  if (!errors.empty()) {
    std::string msg = "Error(s) in loading state_dict for " + name() + ":";
    for (const std::string& e : errors) msg += "\n\t" + e;
    detail::fail("load_state_dict", msg);
  }
  NoGradGuard no_grad;
  for (auto& [n, t] : own)
    if (const Tensor* src = state.find(n)) t.copy_(*src);
  return r;
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

Tensor& Module::absent() {
  static thread_local Tensor t;
  t = Tensor();
  return t;
}

Tensor& Module::register_buffer(std::string name, Tensor t) {
  buffers_.emplace_back(std::move(name), std::move(t));
  return buffers_.back().second;
}

}  // namespace ditto::nn
