// Optimizers (SGD, Adam, AdamW), their state_dict, and the LR schedulers StepLR and
// CosineAnnealingLR, against PyTorch (tests/data/pytorch-nn.json, tools/gen_golden_nn.py).
//
// What is compared how:
//   optimizer steps on given gradients: bit for bit. SGD against torch.optim.SGD (1.13); Adam and
//     AdamW against PyTorch 2.x's _single_tensor_adam run on 1.13's kernels ("params_v2"), and
//     within 2 float32 eps of the parameter's scale (measured: 0.35) against 1.13's
//     torch.optim.Adam, which updates exp_avg with mul_/add_ where 2.x uses lerp_.
//   training runs (20 full-batch steps of a Linear and an MLP): each step's loss within a relative
//     2e-6 of PyTorch's (measured: at most 2.6e-7): forward and backward differ from PyTorch's by
//     rounding (sum and GEMM order, exp/log in cross_entropy), and the steps carry it along.
//   LR schedulers: the exact doubles.
#include <gtest/gtest.h>

#include <cmath>

#include "ditto/ditto.h"
#include "gradcheck.h"
#include "nn_golden.h"

using namespace ditto;
using namespace ditto::testing;
namespace F = ditto::nn::functional;

namespace {
DITTO_GRADCHECK("lerp.Scalar", ({gc_rand({3, 4}), gc_rand({4})}), return lerp(v[0], v[1], 0.3) + lerp(v[0], v[1], 0.8);)
DITTO_GRADCHECK("addcmul", ({gc_rand({3, 4}), gc_rand({3, 1}), gc_rand({4})}), return addcmul(v[0], v[1], v[2], -0.7);)
DITTO_GRADCHECK("addcdiv", ({gc_rand({2, 3}), gc_rand({2, 3}), gc_pos({3})}), return addcdiv(v[0], v[1], v[2], 1.5);)

double opt_d(const json& o, const char* key, double dflt) { return o.contains(key) ? hex_double(o[key]) : dflt; }
bool opt_b(const json& o, const char* key) { return o.contains(key) && o[key].get<bool>(); }

std::unique_ptr<optim::Optimizer> make_optimizer(const std::string& kind, const json& o, std::vector<Tensor> params) {
  if (kind == "sgd") {
    optim::SGDOptions s;
    s.lr = opt_d(o, "lr", 1e-3);
    s.momentum = opt_d(o, "momentum", 0);
    s.dampening = opt_d(o, "dampening", 0);
    s.weight_decay = opt_d(o, "weight_decay", 0);
    s.nesterov = opt_b(o, "nesterov");
    return std::make_unique<optim::SGD>(std::move(params), s);
  }
  optim::AdamOptions a;
  a.lr = opt_d(o, "lr", 1e-3);
  a.weight_decay = opt_d(o, "weight_decay", kind == "adamw" ? 1e-2 : 0.0);
  a.amsgrad = opt_b(o, "amsgrad");
  if (kind == "adamw") return std::make_unique<optim::AdamW>(std::move(params), a);
  return std::make_unique<optim::Adam>(std::move(params), a);
}

float loss_of(const json& c, nn::UnaryModule& model, const Tensor& x, const Tensor& y, Tensor* out = nullptr) {
  Tensor pred = model(x);
  Tensor l = c["loss"] == "mse" ? F::mse_loss(pred, y) : F::cross_entropy(pred, y);
  if (out) *out = l;
  return l.item<float>();
}

std::shared_ptr<nn::UnaryModule> make_model(const std::string& kind) {
  if (kind == "linear") return std::make_shared<nn::Linear>(6, 2);
  auto s = std::make_shared<nn::Sequential>();
  s->push_back(nn::Linear(8, 16));
  s->push_back(nn::ReLU());
  s->push_back(nn::Linear(16, 4));
  return s;
}
}  // namespace

TEST(OptimGolden, StepsOnGivenGradients) {
  for (const json& c : nn_section("optim_steps")) {
    const std::string name = c["name"], kind = c["optimizer"];
    for (const char* key : {"params", "params_v2"}) {
      if (!c.contains(key)) continue;
      const bool v2 = std::string(key) == "params_v2";
      Tensor p = decode(c["param"]).requires_grad_();
      auto opt = make_optimizer(kind, c["options"], {p});
      for (std::size_t s = 0; s < c["grads"].size(); ++s) {
        p.mutable_grad() = decode(c["grads"][s]);
        opt->step();
        const Tensor expect = decode(c[key][s]);
        const std::string what = name + " " + key + " step " + std::to_string(s + 1);
        if (kind == "sgd" || v2)
          EXPECT_TRUE(same_bits(p, expect)) << what;
        else
          EXPECT_TRUE(close(p, expect, 2, what));
      }
    }
  }
}

TEST(OptimGolden, TrainingLossTraces) {
  for (const json& c : nn_section("training")) {
    const std::string name = c["name"], kind = c["optimizer"];
    const Tensor x = decode(c["x"]), y = decode(c["y"]);
    // ditto's init from the same seed gives PyTorch's parameters (spec §5)
    manual_seed(c["seed"].get<uint64_t>());
    auto model = make_model(c["model"]);
    const auto params = model->parameters();
    ASSERT_EQ(params.size(), c["init"].size()) << name;
    for (std::size_t i = 0; i < params.size(); ++i) EXPECT_TRUE(same_bits(params[i], decode(c["init"][i]))) << name;
    for (const char* key : {"losses", "losses_v2"}) {
      if (!c.contains(key)) continue;
      manual_seed(c["seed"].get<uint64_t>());
      model = make_model(c["model"]);
      auto opt = make_optimizer(kind, c["options"], model->parameters());
      const double rtol = 2e-6;
      double worst = 0;
      for (int s = 0; s < c["steps"].get<int>(); ++s) {
        opt->zero_grad();
        Tensor l;
        const double got = loss_of(c, *model, x, y, &l);
        const double want = std::bit_cast<float>(static_cast<uint32_t>(hex_bits(c[key][s])));
        worst = std::max(worst, std::fabs(got - want) / std::fabs(want));
        EXPECT_NEAR(got, want, rtol * std::fabs(want)) << name << " " << key << " step " << s;
        l.backward();
        opt->step();
      }
      if (report_errors())
        std::cout << "[nn-report] " << name << " " << key << ": max relative error " << worst << "\n";
    }
  }
}

TEST(OptimGolden, SchedulerLearningRates) {
  for (const json& c : nn_section("scheduler")) {
    const std::string name = c["name"];
    Tensor p = zeros({2}).requires_grad_();
    optim::SGD opt({p}, hex_double(c["base_lr"]));
    std::unique_ptr<optim::LRScheduler> s;
    if (c["scheduler"] == "step")
      s = std::make_unique<optim::StepLR>(opt, c["args"]["step_size"].get<int64_t>(), hex_double(c["args"]["gamma"]));
    else
      s = std::make_unique<optim::CosineAnnealingLR>(opt, c["args"]["T_max"].get<int64_t>(),
                                                     hex_double(c["args"]["eta_min"]));
    const json& lrs = c["lrs"];
    EXPECT_EQ(s->get_last_lr(), hex_double(lrs[0])) << name;
    for (int k = 1; k <= c["steps"].get<int>(); ++k) {
      opt.step();
      s->step();
      EXPECT_EQ(s->get_last_lr(), hex_double(lrs[k])) << name << " epoch " << k;
      EXPECT_EQ(opt.lr(), s->get_last_lr());
      EXPECT_EQ(s->last_epoch(), k);
    }
  }
}

// Training, then save, then continuing in fresh objects equals uninterrupted training, bit for bit.
TEST(Optim, StateDictRoundTripContinuesBitForBit) {
  manual_seed(21);
  const Tensor x = randn({16, 8}), y = randint(0, 4, {16});
  for (const char* kind : {"adam", "adamw", "adam_amsgrad", "sgd"}) {
    SCOPED_TRACE(kind);
    auto make = [&](std::vector<Tensor> ps) -> std::unique_ptr<optim::Optimizer> {
      const std::string k = kind;
      if (k == "sgd") return std::make_unique<optim::SGD>(std::move(ps), 0.05, 0.9, 0.0, 1e-3, true);
      optim::AdamOptions o;
      o.lr = 0.01;
      o.amsgrad = k == "adam_amsgrad";
      if (k == "adamw") return std::make_unique<optim::AdamW>(std::move(ps), o);
      o.weight_decay = 1e-3;
      return std::make_unique<optim::Adam>(std::move(ps), o);
    };
    auto train = [&](nn::UnaryModule& m, optim::Optimizer& opt, int steps) {
      for (int s = 0; s < steps; ++s) {
        opt.zero_grad();
        F::cross_entropy(m(x), y).backward();
        opt.step();
      }
    };
    // uninterrupted: 12 steps
    manual_seed(5);
    auto a = make_model("mlp");
    auto opt_a = make(a->parameters());
    train(*a, *opt_a, 12);
    // interrupted after 7 steps; the state goes into fresh objects
    manual_seed(5);
    auto b = make_model("mlp");
    auto opt_b = make(b->parameters());
    train(*b, *opt_b, 7);
    const optim::OptimizerState saved = opt_b->state_dict();
    std::vector<Tensor> saved_params;
    for (const Tensor& p : b->parameters()) saved_params.push_back(p.detach().clone());
    train(*b, *opt_b, 2);  // moves on after saving: the saved state must not move with it
    EXPECT_EQ(saved.step, 7);
    manual_seed(99);
    auto c = make_model("mlp");
    {
      NoGradGuard g;
      const auto cp = c->parameters();
      for (std::size_t i = 0; i < cp.size(); ++i) cp[i].detach().copy_(saved_params[i]);
    }
    auto opt_c = make(c->parameters());
    opt_c->load_state_dict(saved);
    train(*c, *opt_c, 5);
    const auto pa = a->parameters(), pc = c->parameters();
    for (std::size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(same_bits(pc[i], pa[i])) << "parameter " << i;
    EXPECT_EQ(opt_c->state_dict().step, 12);
    if (std::string(kind) != "sgd") {
      const auto st = opt_c->state_dict();
      EXPECT_EQ(st.per_param[0].at("step").item<float>(), 12.0f);
      EXPECT_EQ(st.per_param[0].count("max_exp_avg_sq"), std::string(kind) == "adam_amsgrad" ? 1u : 0u);
      EXPECT_TRUE(same_bits(st.per_param[0].at("exp_avg"), opt_a->state_dict().per_param[0].at("exp_avg")));
    }
  }
}

TEST(Optim, AdamDefaultsAndFirstStep) {
  Tensor p = tensor({1.0, -2.0, 3.0}).requires_grad_();
  optim::Adam adam({p});
  EXPECT_EQ(adam.lr(), 1e-3);
  EXPECT_EQ(adam.options().beta1, 0.9);
  EXPECT_EQ(adam.options().beta2, 0.999);
  EXPECT_EQ(adam.options().eps, 1e-8);
  EXPECT_EQ(adam.options().weight_decay, 0.0);
  Tensor q = tensor({1.0}).requires_grad_();
  optim::AdamW adamw({q});
  EXPECT_EQ(adamw.options().weight_decay, 1e-2);
  // first step: the update is lr * sign(grad) (up to eps), whatever the gradient's size
  p.mutable_grad() = tensor({0.5, -4.0, 1e-3});
  adam.step();
  const std::vector<float> v = to_vector<float>(p);
  EXPECT_NEAR(v[0], 1.0f - 1e-3f, 1e-6);
  EXPECT_NEAR(v[1], -2.0f + 1e-3f, 1e-6);
  EXPECT_NEAR(v[2], 3.0f - 1e-3f, 1e-5);
  // parameters without a gradient are skipped and get no state
  Tensor r = tensor({1.0}).requires_grad_();
  optim::Adam skip({r});
  skip.step();
  EXPECT_EQ(r.item<float>(), 1.0f);
  EXPECT_TRUE(skip.state_dict().per_param[0].empty());
}

TEST(Optim, SchedulersDriveTheOptimizer) {
  Tensor p = ones({1}).requires_grad_();
  optim::Adam adam({p}, 0.1);
  optim::StepLR s(adam, 2, 0.5);
  EXPECT_EQ(s.get_last_lr(), 0.1);
  std::vector<double> seen;
  for (int i = 0; i < 5; ++i) {
    adam.step();
    s.step();
    seen.push_back(adam.lr());
  }
  EXPECT_EQ(seen, (std::vector<double>{0.1, 0.05, 0.05, 0.025, 0.025}));
  optim::SGD sgd({p}, 1.0);
  optim::CosineAnnealingLR cos(sgd, 4, 0.0);
  for (int i = 0; i < 4; ++i) cos.step();
  EXPECT_NEAR(sgd.lr(), 0.0, 1e-15);  // reaches eta_min at T_max
  for (int i = 0; i < 4; ++i) cos.step();
  EXPECT_NEAR(sgd.lr(), 1.0, 1e-12);  // and comes back after another T_max
}

TEST(Optim, BadInputNamesTheOptimizer) {
  Tensor p = ones({2}).requires_grad_();
  EXPECT_DITTO_ERROR(optim::Adam({p}, -1.0), "[Adam]", "learning rate");
  EXPECT_DITTO_ERROR(optim::Adam({p}, 1e-3, {1.0, 0.999}), "[Adam]", "beta parameter at index 0");
  EXPECT_DITTO_ERROR(optim::Adam({p}, 1e-3, {0.9, -0.1}), "[Adam]", "index 1");
  EXPECT_DITTO_ERROR(optim::AdamW({p}, 1e-3, {0.9, 0.999}, -1.0), "[AdamW]", "epsilon");
  EXPECT_DITTO_ERROR(optim::AdamW({p}, 1e-3, {0.9, 0.999}, 1e-8, -0.1), "[AdamW]", "weight_decay");
  EXPECT_DITTO_ERROR(optim::Adam({p * 2}), "[optimizer]", "leaf");
  optim::Adam adam({p});
  EXPECT_DITTO_ERROR(adam.load_state_dict(optim::OptimizerState{0, {{}, {}}}), "[load_state_dict]");
  EXPECT_DITTO_ERROR(optim::StepLR(adam, 0), "[StepLR]", "step_size");
  EXPECT_DITTO_ERROR(optim::CosineAnnealingLR(adam, 0), "[CosineAnnealingLR]", "T_max");
  EXPECT_DITTO_ERROR(lerp(ones({2}), ones({2}, kFloat64), 0.5), "[lerp]", "dtype");
  EXPECT_DITTO_ERROR(addcdiv(ones({2}), ones({3}), ones({2})), "[addcdiv]");
  EXPECT_DITTO_ERROR(addcmul(ones({2}, kBool), ones({2}, kBool), ones({2}, kBool)), "[addcmul]");
}

TEST(Optim, PointwiseOpsFollowPyTorchsFma) {
  // lerp with a small weight is fma(w, b - a, a); with a large one fma(w - 1, b - a, b)
  const float a = 1.0f + 0x1p-20f, b = 3.0f + 0x1p-21f;
  const float w = 0.1f;
  EXPECT_EQ(lerp(full({1}, a), full({1}, b), 0.1).item<float>(), std::fma(w, b - a, a));
  EXPECT_EQ(lerp(full({1}, a), full({1}, b), 0.75).item<float>(), std::fma(0.75f - 1.0f, b - a, b));
  const float s = 0.3f, t1 = 1.7f + 0x1p-18f, t2 = -2.9f;
  EXPECT_EQ(addcmul(full({1}, s), full({1}, t1), full({1}, t2), 0.1).item<float>(), std::fma(0.1f * t1, t2, s));
  EXPECT_EQ(addcdiv(full({1}, s), full({1}, t1), full({1}, t2), 0.1).item<float>(), s + 0.1f * t1 / t2);
  EXPECT_EQ(addcmul(tensor({3}), tensor({4}), tensor({5}), 2).item<int64_t>(), 43);
}

// LinearLR, LambdaLR, OneCycleLR and SequentialLR over one or two parameter groups: each group's
// lr and momentum (SGD's momentum, Adam's beta1) after every step, the exact doubles.
TEST(OptimGolden, SchedulersOverParameterGroups) {
  const std::map<std::string, optim::LambdaLR::Lambda> lambdas = {
      {"pow", [](int64_t e) { return std::pow(0.95, static_cast<double>(e)); }},
      {"warmup", [](int64_t e) { return std::min(1.0, static_cast<double>(e + 1) / 10); }}};
  for (const json& c : nn_section("scheduler_groups")) {
    const std::string name = c["name"], kind = c["scheduler"], okind = c["optimizer"];
    const json& a = c["args"];
    std::vector<optim::ParamGroup> groups;
    for (const json& b : c["base_lrs"]) groups.push_back({{zeros({2}).requires_grad_()}, hex_double(b), std::nullopt});
    std::unique_ptr<optim::Optimizer> opt;
    const double lr0 = hex_double(c["base_lrs"][0]);
    if (okind == "sgd")
      opt = std::make_unique<optim::SGD>(groups, optim::SGDOptions{.lr = lr0, .momentum = 0.9});
    else if (okind == "adam")
      opt = std::make_unique<optim::Adam>(groups, optim::AdamOptions{.lr = lr0});
    else
      opt = std::make_unique<optim::AdamW>(groups, optim::AdamOptions{.lr = lr0, .weight_decay = 1e-2});
    std::vector<std::unique_ptr<optim::LRScheduler>> keep;
    optim::LRScheduler* s = nullptr;
    if (kind == "linear") {
      keep.push_back(std::make_unique<optim::LinearLR>(*opt, hex_double(a["start_factor"]), hex_double(a["end_factor"]),
                                                       a["total_iters"].get<int64_t>()));
    } else if (kind == "lambda") {
      std::vector<optim::LambdaLR::Lambda> fns;
      for (const json& f : a["fn"]) fns.push_back(lambdas.at(f));
      if (fns.size() == 1)
        keep.push_back(std::make_unique<optim::LambdaLR>(*opt, fns[0]));
      else
        keep.push_back(std::make_unique<optim::LambdaLR>(*opt, fns));
    } else if (kind == "onecycle") {
      optim::OneCycleOptions o;
      if (a.contains("pct_start")) o.pct_start = hex_double(a["pct_start"]);
      if (a.contains("anneal_strategy")) o.anneal_strategy = a["anneal_strategy"];
      if (a.contains("cycle_momentum")) o.cycle_momentum = a["cycle_momentum"];
      if (a.contains("three_phase")) o.three_phase = a["three_phase"];
      o.div_factor = opt_d(a, "div_factor", o.div_factor);
      o.final_div_factor = opt_d(a, "final_div_factor", o.final_div_factor);
      o.base_momentum = opt_d(a, "base_momentum", o.base_momentum);
      o.max_momentum = opt_d(a, "max_momentum", o.max_momentum);
      std::vector<double> max_lrs;
      if (a["max_lr"].is_array())
        for (const json& m : a["max_lr"]) max_lrs.push_back(hex_double(m));
      else
        max_lrs.assign(opt->num_groups(), hex_double(a["max_lr"]));
      keep.push_back(std::make_unique<optim::OneCycleLR>(*opt, max_lrs, a["total_steps"].get<int64_t>(), o));
    } else {
      keep.push_back(
          std::make_unique<optim::LinearLR>(*opt, hex_double(a["start_factor"]), 1.0, a["warmup"].get<int64_t>()));
      keep.push_back(
          std::make_unique<optim::CosineAnnealingLR>(*opt, a["T_max"].get<int64_t>(), hex_double(a["eta_min"])));
      keep.push_back(
          std::make_unique<optim::SequentialLR>(*opt, std::vector<optim::LRScheduler*>{keep[0].get(), keep[1].get()},
                                                std::vector<int64_t>{a["warmup"].get<int64_t>()}));
    }
    s = keep.back().get();
    for (int k = 0; k <= c["steps"].get<int>(); ++k) {
      if (k > 0) {
        opt->step();
        s->step();
      }
      for (std::size_t g = 0; g < opt->num_groups(); ++g) {
        EXPECT_EQ(opt->group(g).lr, hex_double(c["lrs"][k][g])) << name << " step " << k << " group " << g;
        EXPECT_EQ(opt->group(g).momentum, hex_double(c["momenta"][k][g])) << name << " step " << k << " group " << g;
        EXPECT_EQ(s->get_last_lrs()[g], opt->group(g).lr);
      }
    }
    if (kind == "onecycle") EXPECT_DITTO_ERROR(s->step(), "[OneCycleLR]", "Tried to step");
  }
}

// Parameter groups: one optimizer over two groups (the usual no-decay split) moves every
// parameter exactly as two optimizers, one per group, do.
TEST(Optim, ParameterGroupsStepAsSeparateOptimizers) {
  manual_seed(31);
  const Tensor w0 = randn({4, 3}), b0 = randn({3}), g1 = randn({4, 3}), g2 = randn({3});
  for (const char* kind : {"sgd", "adamw"}) {
    SCOPED_TRACE(kind);
    Tensor w = w0.clone().requires_grad_(), b = b0.clone().requires_grad_();
    Tensor w2 = w0.clone().requires_grad_(), b2 = b0.clone().requires_grad_();
    std::vector<optim::ParamGroup> groups = {{{w}, std::nullopt, std::nullopt}, {{b}, 3e-3, 0.0}};
    std::unique_ptr<optim::Optimizer> both, one, two;
    if (std::string(kind) == "sgd") {
      const optim::SGDOptions o{.lr = 0.05, .momentum = 0.9, .weight_decay = 0.1};
      both = std::make_unique<optim::SGD>(groups, o);
      one = std::make_unique<optim::SGD>(std::vector<Tensor>{w2}, o);
      two = std::make_unique<optim::SGD>(std::vector<Tensor>{b2},
                                         optim::SGDOptions{.lr = 3e-3, .momentum = 0.9, .weight_decay = 0.0});
    } else {
      const optim::AdamOptions o{.lr = 0.01, .weight_decay = 0.1};
      both = std::make_unique<optim::AdamW>(groups, o);
      one = std::make_unique<optim::AdamW>(std::vector<Tensor>{w2}, o);
      two =
          std::make_unique<optim::AdamW>(std::vector<Tensor>{b2}, optim::AdamOptions{.lr = 3e-3, .weight_decay = 0.0});
    }
    EXPECT_EQ(both->num_groups(), 2u);
    EXPECT_EQ(both->group(1).lr, 3e-3);
    EXPECT_EQ(both->group(1).weight_decay, 0.0);
    EXPECT_EQ(both->group(0).weight_decay, 0.1);
    EXPECT_TRUE(both->group_params(1)[0].is_same(b));
    for (int s = 0; s < 5; ++s) {
      for (Tensor* p : {&w, &w2}) p->mutable_grad() = g1 * static_cast<double>(s + 1);
      for (Tensor* p : {&b, &b2}) p->mutable_grad() = g2 * static_cast<double>(1 - s);
      both->step();
      one->step();
      two->step();
      EXPECT_TRUE(same_bits(w, w2)) << "step " << s;
      EXPECT_TRUE(same_bits(b, b2)) << "step " << s;
    }
    EXPECT_FALSE(same_bits(w, w0));
  }
  Tensor p = ones({2}).requires_grad_();
  EXPECT_DITTO_ERROR(
      optim::AdamW(std::vector<optim::ParamGroup>{{{p}, std::nullopt, std::nullopt}, {{p}, std::nullopt, std::nullopt}},
                   optim::AdamOptions{}),
      "[AdamW]", "more than one parameter group");
  EXPECT_DITTO_ERROR(optim::SGD(std::vector<optim::ParamGroup>{{{p}, -1.0, std::nullopt}}, optim::SGDOptions{}),
                     "[SGD]", "learning rate");
  EXPECT_DITTO_ERROR(optim::SGD(std::vector<optim::ParamGroup>{}, optim::SGDOptions{}), "[SGD]", "no parameter groups");
  optim::SGD sgd({p}, 0.1);
  EXPECT_DITTO_ERROR(optim::LinearLR(sgd, 0.0), "[LinearLR]", "Starting multiplicative factor");
  EXPECT_DITTO_ERROR(optim::OneCycleLR(sgd, 0.1, 0), "[OneCycleLR]", "total_steps");
  EXPECT_DITTO_ERROR(optim::OneCycleLR(sgd, 0.1, 10, {.anneal_strategy = "exp"}), "[OneCycleLR]", "anneal_strategy");
  EXPECT_DITTO_ERROR(optim::LambdaLR(sgd, std::vector<optim::LambdaLR::Lambda>{}), "[LambdaLR]", "Expected 1");
  optim::LinearLR lin(sgd);
  EXPECT_DITTO_ERROR(optim::SequentialLR(sgd, {&lin}, {3}), "[SequentialLR]", "one more than");
}

// Gradient accumulation: four micro-batches of 8, each loss scaled by 1/4 and backward'd before
// one step, move the parameters as one batch of 32 does (up to the sum's rounding: the batch's
// mean reduces in another order), and give the same bits at every thread count.
TEST(Optim, GradientAccumulationMatchesTheWholeBatch) {
  manual_seed(41);
  const Tensor x = randn({32, 8}), y = randint(0, 4, {32});
  auto run = [&](int micro) {
    manual_seed(7);
    auto m = make_model("mlp");
    optim::AdamW opt(m->parameters(), 1e-2);
    for (int s = 0; s < 3; ++s) {
      opt.zero_grad();
      const int64_t n = 32 / micro;
      for (int k = 0; k < micro; ++k)
        (F::cross_entropy((*m)(x.narrow(0, k * n, n)), y.narrow(0, k * n, n)) / static_cast<double>(micro)).backward();
      opt.step();
    }
    return m->parameters();
  };
  const auto whole = run(1), acc = run(4);
  for (std::size_t i = 0; i < whole.size(); ++i) EXPECT_TRUE(close(acc[i], whole[i], 64, "parameter")) << i;
  const int before = get_num_threads();
  for (int t : {1, 2, 3}) {
    set_num_threads(t);
    const auto again = run(4);
    for (std::size_t i = 0; i < acc.size(); ++i) EXPECT_TRUE(same_bits(again[i], acc[i])) << t << " threads";
  }
  set_num_threads(before);
}
