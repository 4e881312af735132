#pragma once
// Modules: parameters, buffers and children kept in insertion order (never ordered by address).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ditto/audit.h"
#include "ditto/state_dict.h"
#include "ditto/tensor.h"

namespace ditto::nn {

class Module {
 public:
  virtual ~Module() = default;

  // Parameters of this module, then of its children in registration order (recursively); one
  // shared by several modules (weight tying) is listed once, at its first place.
  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_parameters(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_buffers(bool recurse = true) const;
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& named_children() const { return children_; }
  // This module's own parameters and buffers, without its children's.
  const std::vector<std::pair<std::string, Tensor>>& own_parameters() const { return params_; }
  const std::vector<std::pair<std::string, Tensor>>& own_buffers() const { return buffers_; }

  // PyTorch's state_dict(): this module's parameters, then its buffers, then each child's under
  // "<child>." (recursively), num_batches_tracked included. The tensors are detached views of the
  // module's own, as PyTorch's (not copies).
  StateDict state_dict() const;
  struct LoadResult {
    std::vector<std::string> missing_keys;     // the module's, absent from the state
    std::vector<std::string> unexpected_keys;  // the state's, not in the module
  };
  // Copies `state` into the parameters and buffers of the same names (converting the dtype, as
  // copy_), all checked before any is written. A shape mismatch raises; missing and unexpected
  // keys raise when strict, and are returned either way. The message is PyTorch's ("Error(s) in
  // loading state_dict for Linear: Missing key(s) in state_dict: "bias". ...").
  LoadResult load_state_dict(const StateDict& state, bool strict = true);

  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  // Clears (set_to_none, PyTorch 2.x's default) or zeroes every parameter's gradient.
  void zero_grad(bool set_to_none = true);
  virtual std::string name() const { return "Module"; }
  // The name its parent registered it under ("" for a root): a step of the module path that
  // ditto::audit's records carry.
  const std::string& module_name() const { return module_name_; }

 protected:
  Tensor& register_parameter(std::string name, Tensor t, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor t);
  template <class M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> m) {
    m->module_name_ = name;
    children_.emplace_back(std::move(name), m);
    return m;
  }
  Tensor& param(std::size_t i) { return params_[i].second; }
  const Tensor& param(std::size_t i) const { return params_[i].second; }
  Tensor& buffer(std::size_t i) { return buffers_[i].second; }
  const Tensor& buffer(std::size_t i) const { return buffers_[i].second; }
  // An undefined tensor for the accessor of an absent parameter or buffer (bias=false); reset on
  // every call, so a caller's assignment to it does not stick.
  static Tensor& absent();

  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<std::pair<std::string, Tensor>> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  bool training_ = true;
  std::string module_name_;
};

// A module of one tensor in and one out, called like a function: y = m(x).
class UnaryModule : public Module {
 public:
  virtual Tensor forward(const Tensor& x) = 0;
  Tensor operator()(const Tensor& x) {
    if (!audit::enabled()) return forward(x);
    audit::ModuleScope scope(module_name());
    return forward(x);
  }
};

}  // namespace ditto::nn
