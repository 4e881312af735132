#include <cmath>

#include "ditto/autograd.h"
#include "ditto/ops.h"
#include "ditto/optim.h"

namespace ditto::optim {

Optimizer::Optimizer(std::vector<Tensor> params) : params_(std::move(params)) {
  for (std::size_t i = 0; i < params_.size(); ++i)
    DITTO_CHECK(params_[i].defined() && params_[i].is_leaf(), "optimizer", "parameter ", i,
                " must be a defined leaf tensor");
  state_.per_param.resize(params_.size());
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

SGD::SGD(std::vector<Tensor> params, const SGDOptions& o) : Optimizer(std::move(params)), o_(o) {
  DITTO_CHECK(o.lr >= 0, "SGD", "invalid learning rate: ", o.lr);
  DITTO_CHECK(o.momentum >= 0, "SGD", "invalid momentum value: ", o.momentum);
  DITTO_CHECK(o.weight_decay >= 0, "SGD", "invalid weight_decay value: ", o.weight_decay);
  DITTO_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), "SGD",
              "nesterov momentum requires a momentum and zero dampening");
  lr_ = o.lr;
}

// torch.optim.SGD's single-tensor step; each add with alpha is one fma, as in PyTorch's kernels.
void SGD::step() {
  NoGradGuard no_grad;
  ++state_.step;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i];
    if (!p.grad().defined()) continue;
    Tensor d = o_.maximize ? -p.grad() : p.grad();
    if (o_.weight_decay != 0) d = d.add(p, o_.weight_decay);
    if (o_.momentum != 0) {
      auto& st = state_.per_param[i];
      auto it = st.find("momentum_buffer");
      if (it == st.end()) {
        st["momentum_buffer"] = d.clone();
      } else {
        Tensor& buf = it->second;
        buf.mul_(o_.momentum).add_(d, 1 - o_.dampening);
      }
      Tensor& buf = st["momentum_buffer"];
      d = o_.nesterov ? d.add(buf, o_.momentum) : buf;
    }
    p.add_(d, -lr_);
  }
}

}  // namespace ditto::optim
