#include <cmath>

#include "ditto/autograd.h"
#include "ditto/ops.h"
#include "ditto/optim.h"

namespace ditto::optim {

Optimizer::Optimizer(std::vector<ParamGroup> groups, const GroupOptions& defaults, const char* name) {
  DITTO_CHECK(!groups.empty(), name, "got no parameter groups");
  begin_.push_back(0);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    GroupOptions o = defaults;
    if (groups[g].lr) o.lr = *groups[g].lr;
    if (groups[g].weight_decay) o.weight_decay = *groups[g].weight_decay;
    DITTO_CHECK(o.lr >= 0, name, "invalid learning rate: ", o.lr,
                g ? " (parameter group " + std::to_string(g) + ")" : "");
    DITTO_CHECK(o.weight_decay >= 0, name, "invalid weight_decay value: ", o.weight_decay,
                g ? " (parameter group " + std::to_string(g) + ")" : "");
    for (Tensor& p : groups[g].params) {
      const std::size_t i = params_.size();
      DITTO_CHECK(p.defined() && p.is_leaf(), "optimizer", "parameter ", i, " must be a defined leaf tensor");
      for (std::size_t j = 0; j < i; ++j)
        DITTO_CHECK(!params_[j].is_same(p), name, "parameter ", i, " is parameter ", j,
                    " again: some parameters appear in more than one parameter group");
      params_.push_back(std::move(p));
    }
    groups_.push_back(o);
    begin_.push_back(params_.size());
  }
  state_.per_param.resize(params_.size());
}

std::vector<Tensor> Optimizer::group_params(std::size_t g) const {
  DITTO_CHECK(g < groups_.size(), "optimizer", "no parameter group ", g, " (it has ", groups_.size(), ")");
  return {params_.begin() + static_cast<std::ptrdiff_t>(begin_[g]),
          params_.begin() + static_cast<std::ptrdiff_t>(begin_[g + 1])};
}

void Optimizer::set_lr(double lr) {
  for (GroupOptions& o : groups_) o.lr = lr;
}

void Optimizer::zero_grad(bool set_to_none) { autograd::zero_grad(params_, set_to_none); }

OptimizerState Optimizer::state_dict() const {
  OptimizerState s;
  s.step = state_.step;
  for (const auto& m : state_.per_param) {
    std::map<std::string, Tensor> c;
    for (const auto& [k, v] : m) c[k] = v.clone();
    s.per_param.push_back(std::move(c));
  }
  return s;
}

void Optimizer::load_state_dict(const OptimizerState& s) {
  DITTO_CHECK(s.per_param.size() == params_.size(), "load_state_dict", "state has ", s.per_param.size(),
              " parameters, the optimizer has ", params_.size());
  state_.step = s.step;
  state_.per_param.clear();
  for (const auto& m : s.per_param) {
    std::map<std::string, Tensor> c;
    for (const auto& [k, v] : m) c[k] = v.clone();
    state_.per_param.push_back(std::move(c));
  }
}

SGD::SGD(std::vector<Tensor> params, double lr, double momentum, double dampening, double weight_decay, bool nesterov)
    : SGD(std::move(params), SGDOptions{lr, momentum, dampening, weight_decay, nesterov, false}) {}

SGD::SGD(std::vector<Tensor> params, const SGDOptions& o)
    : SGD(std::vector<ParamGroup>{{std::move(params), std::nullopt, std::nullopt}}, o) {}

SGD::SGD(std::vector<ParamGroup> groups, const SGDOptions& o)
    : Optimizer(std::move(groups), {o.lr, o.weight_decay, o.momentum, {}}, "SGD"), o_(o) {
  DITTO_CHECK(o.momentum >= 0, "SGD", "invalid momentum value: ", o.momentum);
  DITTO_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), "SGD",
              "nesterov momentum requires a momentum and zero dampening");
}

// torch.optim.SGD's single-tensor step; each add with alpha is one fma, as in PyTorch's kernels.
void SGD::step() {
  NoGradGuard no_grad;
  ++state_.step;
  for_each_param_with_grad([&](const GroupOptions& g, std::size_t i) {
    Tensor& p = params_[i];
    Tensor d = o_.maximize ? -p.grad() : p.grad();
    if (g.weight_decay != 0) d = d.add(p, g.weight_decay);
    if (g.momentum != 0) {
      auto& st = state_.per_param[i];
      auto it = st.find("momentum_buffer");
      if (it == st.end()) {
        st["momentum_buffer"] = d.clone();
      } else {
        Tensor& buf = it->second;
        buf.mul_(g.momentum).add_(d, 1 - o_.dampening);
      }
      Tensor& buf = st["momentum_buffer"];
      d = o_.nesterov ? d.add(buf, g.momentum) : buf;
    }
    p.add_(d, -g.lr);
  });
}

}  // namespace ditto::optim
