// Adam and AdamW: torch.optim.adam._single_tensor_adam (PyTorch 2.x), op for op.
#include <cmath>

#include "cpu/dmath.h"
#include "ditto/autograd.h"
#include "ditto/factory.h"
#include "ditto/ops.h"
#include "ditto/optim.h"

namespace ditto::optim {

Adam::Adam(std::vector<Tensor> params, double lr, std::pair<double, double> betas, double eps, double weight_decay,
           bool amsgrad)
    : Adam(std::move(params), AdamOptions{lr, betas.first, betas.second, eps, weight_decay, amsgrad, false}) {}

Adam::Adam(std::vector<Tensor> params, const AdamOptions& o)
    : Adam(std::vector<ParamGroup>{{std::move(params), std::nullopt, std::nullopt}}, o) {}

Adam::Adam(std::vector<ParamGroup> groups, const AdamOptions& o) : Adam(std::move(groups), o, false, "Adam") {}

Adam::Adam(std::vector<ParamGroup> groups, const AdamOptions& o, bool decoupled, const char* name)
    : Optimizer(std::move(groups), {o.lr, o.weight_decay, o.beta1, {}}, name), o_(o), decoupled_(decoupled) {
  DITTO_CHECK(o.eps >= 0, name, "invalid epsilon value: ", o.eps);
  DITTO_CHECK(o.beta1 >= 0 && o.beta1 < 1, name, "invalid beta parameter at index 0: ", o.beta1);
  DITTO_CHECK(o.beta2 >= 0 && o.beta2 < 1, name, "invalid beta parameter at index 1: ", o.beta2);
  for (const Tensor& p : params_)
    DITTO_CHECK(is_floating(p.dtype()), name, "parameters must be floating point, got ", dtype_name(p.dtype()));
}

AdamW::AdamW(std::vector<Tensor> params, double lr, std::pair<double, double> betas, double eps, double weight_decay,
             bool amsgrad)
    : AdamW(std::move(params), AdamOptions{lr, betas.first, betas.second, eps, weight_decay, amsgrad, false}) {}

AdamW::AdamW(std::vector<Tensor> params, const AdamOptions& o)
    : AdamW(std::vector<ParamGroup>{{std::move(params), std::nullopt, std::nullopt}}, o) {}

AdamW::AdamW(std::vector<ParamGroup> groups, const AdamOptions& o) : Adam(std::move(groups), o, true, "AdamW") {}

void Adam::step() {
  NoGradGuard no_grad;
  ++state_.step;
  for_each_param_with_grad([&](const GroupOptions& g, std::size_t i) {
    const double lr = g.lr, beta1 = g.momentum, beta2 = o_.beta2;
    Tensor& p = params_[i];
    auto& st = state_.per_param[i];
    if (st.empty()) {
      st["step"] = zeros({}, kFloat32);
      st["exp_avg"] = zeros_like(p);
      st["exp_avg_sq"] = zeros_like(p);
      if (o_.amsgrad) st["max_exp_avg_sq"] = zeros_like(p);
    }
    Tensor grad = o_.maximize ? -p.grad() : p.grad();
    Tensor& step_t = st.at("step");
    step_t.add_(1);
    if (g.weight_decay != 0) {
      if (decoupled_)
        p.mul_(1 - lr * g.weight_decay);
      else
        grad = grad.add(p, g.weight_decay);
    }
    Tensor& exp_avg = st.at("exp_avg");
    Tensor& exp_avg_sq = st.at("exp_avg_sq");
    exp_avg = lerp(exp_avg, grad, 1 - beta1);
    exp_avg_sq = addcmul(exp_avg_sq * beta2, grad, grad, 1 - beta2);
    // Python float arithmetic on the step count (a float32 tensor's item()).
    const double step = static_cast<double>(step_t.item<float>());
    const double bias_correction1 = 1 - dmath::pow(beta1, step);
    const double bias_correction2 = 1 - dmath::pow(beta2, step);
    const double step_size = lr / bias_correction1;
    const double bias_correction2_sqrt = std::sqrt(bias_correction2);
    Tensor denom;
    if (o_.amsgrad) {
      Tensor& max_sq = st.at("max_exp_avg_sq");
      max_sq = maximum(max_sq, exp_avg_sq);
      denom = max_sq.sqrt() / bias_correction2_sqrt + o_.eps;
    } else {
      denom = exp_avg_sq.sqrt() / bias_correction2_sqrt + o_.eps;
    }
    p.copy_(addcdiv(p, exp_avg, denom, -step_size));
  });
}

}  // namespace ditto::optim
