// Autograd: semantics, and a gradient check of every differentiable op in the op table.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <tuple>

#include "ditto/ditto.h"
#include "gradcheck.h"
#include "ops/op_info.h"

using namespace ditto;

TEST(Autograd, SimpleChainAndAccumulation) {
  Tensor x = tensor({1.0, 2.0, 3.0}).requires_grad_();
  Tensor y = (x * x).sum();
  // PyTorch's names: a reduction over everything is *Backward0, one over given dims *Backward1
  EXPECT_EQ(y.grad_fn_name(), "SumBackward0");
  EXPECT_EQ(x.sum(0).grad_fn_name(), "SumBackward1");
  EXPECT_EQ(x.mean().grad_fn_name(), "MeanBackward0");
  EXPECT_EQ(x.mean(0).grad_fn_name(), "MeanBackward1");
  EXPECT_EQ(x.prod().grad_fn_name(), "ProdBackward0");
  EXPECT_EQ(x.prod(0).grad_fn_name(), "ProdBackward1");
  y.backward();
  EXPECT_EQ(to_vector<float>(x.grad()), (std::vector<float>{2, 4, 6}));
  (x * 3).sum().backward();  // gradients accumulate
  EXPECT_EQ(to_vector<float>(x.grad()), (std::vector<float>{5, 7, 9}));
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(y.is_leaf());
}

TEST(Autograd, BroadcastGradientsAreSummedBack) {
  Tensor w = tensor({{1.0, 2.0}}).requires_grad_();  // (1, 2)
  Tensor b = tensor({0.5}).requires_grad_();         // (1,)
  Tensor x = ones({3, 2});
  ((x * w) + b).sum().backward();
  EXPECT_EQ(w.grad().sizes(), (Shape{1, 2}));
  EXPECT_EQ(to_vector<float>(w.grad()), (std::vector<float>{3, 3}));
  EXPECT_EQ(to_vector<float>(b.grad()), (std::vector<float>{6}));
}

TEST(Autograd, LeafAndNonLeafSemantics) {
  Tensor x = randn({3}).requires_grad_();
  Tensor y = x * 2;
  Tensor z = y.sum();
  y.retain_grad();
  z.backward();
  EXPECT_EQ(to_vector<float>(y.grad()), (std::vector<float>{1, 1, 1}));
  EXPECT_TRUE(x.grad().defined());
  Tensor x2 = randn({3}).requires_grad_();
  Tensor y2 = x2 * 2;
  y2.sum().backward();
  EXPECT_FALSE(y2.grad().defined());  // non-leaf without retain_grad
  EXPECT_THROW(y2.requires_grad_(false), Error);
  EXPECT_THROW(tensor({1, 2}).requires_grad_(), Error);  // integers cannot require grad
}

TEST(Autograd, RetainGraphAndSecondBackward) {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor y = (x.exp()).sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  EXPECT_FLOAT_EQ(x.grad()[0].item<float>(), 2 * std::exp(1.0f));
  EXPECT_THROW(y.backward(), Error);  // graph freed
}

// A saved tensor written in place before backward: the node's formula reads it and the error
// names the op and its node, as PyTorch's does; a saved value nobody reads is no error.
TEST(Autograd, SavedTensorWrittenInPlaceIsReported) {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor y = x.exp();  // ExpBackward0 saves its output
  Tensor z = y.sum();
  {
    NoGradGuard g;
    y.mul_(2.0);
  }
  std::string msg;
  try {
    z.backward();
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("[exp] one of the variables needed for gradient computation has been modified by an inplace "
                     "operation: the backward of ExpBackward0 needs its saved value."),
            std::string::npos)
      << msg;
  Tensor a = tensor({1.0, 2.0}).requires_grad_();
  Tensor w = tensor({3.0, 4.0});
  Tensor p = a * w;  // MulBackward0 keeps w, for a's gradient: writing w is reported
  Tensor q = (p + a).sum();
  {
    NoGradGuard g;
    w.add_(1.0);
  }
  EXPECT_THROW(q.backward(), Error);
  Tensor b = tensor({1.0, 2.0}).requires_grad_();
  Tensor c = tensor({3.0, 4.0});
  Tensor r = (b * c).sum();
  {
    NoGradGuard g;
    b.add_(1.0);  // b is not saved: c's gradient is not wanted
  }
  r.backward();
  EXPECT_EQ(b.grad()[1].item<float>(), 4.0f);
}

TEST(Autograd, NoGradDetachAndErrors) {
  Tensor x = randn({2}).requires_grad_();
  {
    NoGradGuard g;
    Tensor y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    x.add_(1.0);  // allowed under no_grad (optimizers do this)
  }
  EXPECT_FALSE(x.detach().requires_grad());
  EXPECT_THROW(x.add_(1.0), Error);  // in-place on a leaf that requires grad
  EXPECT_THROW(x.mul_(tensor({2.0, 2.0})), Error);
  EXPECT_THROW(randn({2}).backward(), Error);  // does not require grad
  Tensor v = (x * 2);
  EXPECT_THROW(v.backward(), Error);  // not a scalar
  v.backward(ones({2}));
  EXPECT_EQ(to_vector<float>(x.grad()), (std::vector<float>{2, 2}));
}

TEST(Autograd, InplaceOnSavedTensorIsDetected) {
  Tensor x = randn({3}).requires_grad_();
  Tensor y = x * 1.0;
  Tensor z = y.exp();  // saves its output
  z.mul_(2.0);         // modifies the saved output
  EXPECT_THROW(z.sum().backward(), Error);
  Tensor a = randn({3}).requires_grad_();
  Tensor b = a * 1.0;
  b.mul_(3.0);  // in place on a non-leaf: its history continues
  b.sum().backward();
  EXPECT_EQ(to_vector<float>(a.grad()), (std::vector<float>{3, 3, 3}));
  EXPECT_EQ(b.grad_fn_name(), "MulBackward0");
}

// A leaf used by 20 ops gets its 20 gradient contributions summed in the order the engine runs
// their nodes, which the graph alone fixes: the latest-recorded ready node first (PyTorch's
// rule). Here that is y19's node, then y18's, ..., so x.grad = ((c19 + c18) + c17) + ... + c0
// in float32. The constants make the sum order-sensitive: the reverse order gives other bits.
TEST(Autograd, GradientSumOrderIsFixedByTheGraph) {
  std::vector<float> c(20);
  for (int i = 0; i < 20; ++i)
    c[static_cast<std::size_t>(i)] = (i % 3 == 0 ? 3.0e7f : 1.0f + 0.37f * i) * (i % 2 ? -1.0f : 1.0f);
  float engine_order = 0, reverse = 0;
  for (int i = 19; i >= 0; --i) engine_order = i == 19 ? c[19] : engine_order + c[static_cast<std::size_t>(i)];
  for (int i = 0; i < 20; ++i) reverse = i == 0 ? c[0] : reverse + c[static_cast<std::size_t>(i)];
  ASSERT_NE(std::bit_cast<uint32_t>(engine_order), std::bit_cast<uint32_t>(reverse)) << "constants not order-sensitive";
  for (int run = 0; run < 2; ++run) {
    Tensor x = ones({4}).requires_grad_();
    Tensor acc = zeros({4});
    for (int i = 0; i < 20; ++i) acc = acc + x * static_cast<double>(c[static_cast<std::size_t>(i)]);
    acc.sum().backward();
    for (int64_t j = 0; j < 4; ++j)
      EXPECT_EQ(std::bit_cast<uint32_t>(x.grad().data_ptr<float>()[j]), std::bit_cast<uint32_t>(engine_order))
          << "element " << j << ": got " << x.grad().data_ptr<float>()[j] << ", want " << engine_order;
  }
}

// ---------------------------------------------------------------------------------------------
// Gradient check driven by the op table: every op with a backward formula must have a sample
// (tests/gradcheck.h), and its backward must match central finite differences in float64.
namespace {
DITTO_GRADCHECK("view", ({gc_rand({2, 6})}), auto x = v[0]; return x.view({3, 4});)
DITTO_GRADCHECK("transpose", ({gc_rand({2, 3, 4})}), auto x = v[0]; return x.transpose(0, 2);)
DITTO_GRADCHECK("permute", ({gc_rand({2, 3, 4})}), auto x = v[0]; return x.permute({1, 2, 0});)
DITTO_GRADCHECK("select", ({gc_rand({3, 4})}), auto x = v[0]; return x.select(1, -1);)
DITTO_GRADCHECK("slice", ({gc_rand({5, 4})}), auto x = v[0]; return x.slice(0, 1, 5, 2);)
DITTO_GRADCHECK("expand", ({gc_rand({3, 1})}), auto x = v[0]; return x.expand({2, 3, 4});)
DITTO_GRADCHECK("squeeze", ({gc_rand({3, 1, 2})}), auto x = v[0]; return x.squeeze();)
DITTO_GRADCHECK("unsqueeze", ({gc_rand({3, 2})}), auto x = v[0]; return x.unsqueeze(1);)
DITTO_GRADCHECK("copy_", ({gc_rand({3, 2})}), auto x = v[0]; Tensor y = zeros({2, 3}, kFloat64); y.copy_(x.t());
                return x.t().contiguous() + x.clone().t() + y;)
DITTO_GRADCHECK("neg", ({gc_rand({4})}), auto x = v[0]; return -x;)
DITTO_GRADCHECK("abs", ({gc_rand({6})}), auto x = v[0]; return x.abs();)
// the same draws at every evaluation: PyTorch's zero gradient is then also the numerical one
DITTO_GRADCHECK("bernoulli", ({gc_rand({6})}), manual_seed(5); return bernoulli(v[0].sigmoid()) * v[0];)
DITTO_GRADCHECK("sign", ({gc_rand({6})}), auto x = v[0]; return x.sign() * x;)
DITTO_GRADCHECK("exp", ({gc_rand({6})}), auto x = v[0]; return x.exp();)
DITTO_GRADCHECK("log", ({gc_pos({6})}), auto x = v[0]; return x.log();)
DITTO_GRADCHECK("sqrt", ({gc_pos({6})}), auto x = v[0]; return x.sqrt();)
DITTO_GRADCHECK("rsqrt", ({gc_pos({6})}), auto x = v[0]; return x.rsqrt();)
DITTO_GRADCHECK("sigmoid", ({gc_rand({6}, -3, 3)}), auto x = v[0]; return x.sigmoid();)
DITTO_GRADCHECK("tanh", ({gc_rand({6}, -2, 2)}), auto x = v[0]; return x.tanh();)
DITTO_GRADCHECK("relu", ({gc_rand({8})}), auto x = v[0]; return x.relu();)
DITTO_GRADCHECK("sin", ({gc_rand({6}, -3, 3)}), auto x = v[0]; return x.sin();)
DITTO_GRADCHECK("cos", ({gc_rand({6}, -3, 3)}), auto x = v[0]; return x.cos();)
DITTO_GRADCHECK("erf", ({gc_rand({6}, -2, 2)}), auto x = v[0]; return x.erf();)
DITTO_GRADCHECK("log1p", ({gc_pos({6})}), auto x = v[0]; return x.log1p();)
DITTO_GRADCHECK("expm1", ({gc_rand({6})}), auto x = v[0]; return x.expm1();)
// rounding is flat away from the integers (the inputs stay inside (k, k + 1))
DITTO_GRADCHECK("floor", ({gc_rand({6}, 1.1, 1.9)}), auto x = v[0]; return x.floor() * x;)
DITTO_GRADCHECK("ceil", ({gc_rand({6}, 1.1, 1.9)}), auto x = v[0]; return x.ceil() * x;)
DITTO_GRADCHECK("round", ({gc_rand({6}, 1.1, 1.4)}), auto x = v[0]; return x.round() * x;)
DITTO_GRADCHECK("trunc", ({gc_rand({6}, -1.9, -1.1)}), auto x = v[0]; return x.trunc() * x;)
DITTO_GRADCHECK("maximum", ({gc_rand({2, 3}), gc_rand({3})}), auto a = v[0]; auto b = v[1]; return maximum(a, b);)
DITTO_GRADCHECK("minimum", ({gc_rand({2, 3}), gc_rand({3})}), auto a = v[0]; auto b = v[1]; return minimum(a, b);)
// a / b stays between integers: a in (1.1, 1.9) * b's sign
DITTO_GRADCHECK("fmod", ({gc_rand({5}, 2.2, 2.8), gc_rand({5}, 1.5, 1.9)}), auto a = v[0]; auto b = v[1];
                return fmod(a, b) + fmod(-a, b) + a.fmod(0.7);)
DITTO_GRADCHECK("remainder", ({gc_rand({5}, 2.2, 2.8), gc_rand({5}, 1.5, 1.9)}), auto a = v[0]; auto b = v[1];
                return remainder(a, b) + remainder(-a, b) + a.remainder(-0.7);)
DITTO_GRADCHECK("silu", ({gc_rand({6}, -3, 3)}), auto x = v[0]; return silu(x);)
DITTO_GRADCHECK("mish", ({gc_rand({6}, -3, 3)}), auto x = v[0]; return mish(x);)
DITTO_GRADCHECK("hardswish", ({gc_rand({8}, -4, 4)}), auto x = v[0]; return hardswish(x);)
DITTO_GRADCHECK("leaky_relu", ({gc_rand({8})}), auto x = v[0]; return leaky_relu(x, 0.2);)
DITTO_GRADCHECK("softplus", ({gc_rand({8}, -2, 2)}), auto x = v[0]; return softplus(x, 2, 1);)
DITTO_GRADCHECK("hardtanh", ({gc_rand({8}, -2, 2)}), auto x = v[0]; return hardtanh(x, -0.7, 0.9);)
DITTO_GRADCHECK("elu", ({gc_rand({8})}), auto x = v[0]; return elu(x, 1.3, 0.8, 1.5);)
DITTO_GRADCHECK("pow", ({gc_pos({6})}), auto x = v[0]; return x.pow(2.5) + x.pow(2) + x.pow(-1);)
DITTO_GRADCHECK("pow.Tensor", ({gc_pos({4}), gc_rand({4})}), auto a = v[0]; auto b = v[1]; return a.pow(b);)
DITTO_GRADCHECK("clamp", ({gc_rand({8})}), auto x = v[0]; return x.clamp(-0.5, 0.4);)
DITTO_GRADCHECK("add", ({gc_rand({2, 3}), gc_rand({3})}), auto a = v[0]; auto b = v[1]; return a + b;)
DITTO_GRADCHECK("add.alpha", ({gc_rand({2, 3}), gc_rand({3})}), auto a = v[0]; auto b = v[1];
                return a.add(b, 2.5) + a.sub(b, 0.5);)
DITTO_GRADCHECK("sub", ({gc_rand({2, 3}), gc_rand({2, 1})}), auto a = v[0]; auto b = v[1]; return a - b;)
DITTO_GRADCHECK("mul", ({gc_rand({2, 3}), gc_rand({3})}), auto a = v[0]; auto b = v[1]; return a * b;)
DITTO_GRADCHECK("div", ({gc_rand({2, 3}), gc_pos({2, 3})}), auto a = v[0]; auto b = v[1]; return a / b;)
DITTO_GRADCHECK("where", ({gc_rand({5}), gc_rand({5})}), auto a = v[0]; auto b = v[1];
                return where(tensor({true, false, true, true, false}), a, b);)
DITTO_GRADCHECK("masked_fill", ({gc_rand({2, 3})}), auto x = v[0];
                return x.masked_fill(tensor({true, false, true}), 2.0);)
DITTO_GRADCHECK("sum", ({gc_rand({2, 3, 4})}), auto x = v[0]; return x.sum({0, 2}) + x.sum({1}, true).sum();)
DITTO_GRADCHECK("mean", ({gc_rand({2, 3, 4})}), auto x = v[0]; return x.mean({1}) + x.mean();)
DITTO_GRADCHECK("prod", ({gc_rand({3, 4})}), auto x = v[0]; return x.prod(1) + x.prod();)
DITTO_GRADCHECK("amax", ({gc_rand({3, 4})}), auto x = v[0]; return amax(x, {1}) + x.max();)
DITTO_GRADCHECK("amin", ({gc_rand({3, 4})}), auto x = v[0]; return amin(x, {0}, true).sum() + x.min();)
DITTO_GRADCHECK("max.dim", ({gc_rand({3, 4})}), auto x = v[0]; return x.max(1).first;)
DITTO_GRADCHECK("min.dim", ({gc_rand({3, 4})}), auto x = v[0]; return x.min(0, true).first;)
DITTO_GRADCHECK("var", ({gc_rand({3, 4})}), auto x = v[0]; return x.var({1}) + x.std({0}, false).sum() + x.var();)
DITTO_GRADCHECK("native_layer_norm", ({gc_rand({3, 2, 5}), gc_rand({2, 5}), gc_rand({2, 5})}), auto x = v[0];
                return nn::functional::layer_norm(x, {2, 5}, v[1], v[2], 1e-5) * x +
                       nn::functional::layer_norm(x, {5}, Tensor(), Tensor(), 1e-3);)
DITTO_GRADCHECK("native_group_norm", ({gc_rand({3, 4, 5}), gc_rand({4}), gc_rand({4})}), auto x = v[0];
                return (nn::functional::group_norm(x, 2, v[1], v[2], 1e-5) * x +
                        nn::functional::group_norm(x, 4, Tensor(), v[2], 1e-3) +
                        nn::functional::group_norm(x, 1, v[1], Tensor(), 1e-5));)
// training with weight and bias, evaluation, and a transposed (N, C) input without either
DITTO_GRADCHECK("native_batch_norm", ({gc_rand({3, 2, 5}), gc_rand({2}), gc_rand({2})}), auto x = v[0];
                const Tensor rm = ones({2}, x.dtype()) * 0.25; const Tensor rv = ones({2}, x.dtype()) * 1.5;
                const Tensor t = (x.view({6, 5}).t()); return (
                    nn::functional::batch_norm(x, Tensor(), Tensor(), v[1], v[2], true, 0.1, 1e-5) * x +
                    nn::functional::batch_norm(x, rm, rv, v[1], Tensor(), false, 0.1, 1e-3) +
                    nn::functional::batch_norm(t, Tensor(), Tensor(), Tensor(), Tensor(), true).t().view({3, 2, 5}));)
DITTO_GRADCHECK("_scaled_dot_product_flash_attention", ({gc_rand({2, 5, 3}), gc_rand({2, 7, 3}), gc_rand({2, 7, 4})}),
                auto q = v[0];
                auto k = v[1]; auto w = v[2];
                return nn::functional::scaled_dot_product_attention(q, k, w) +
                       nn::functional::scaled_dot_product_attention(q, k.narrow(1, 0, 5), w.narrow(1, 0, 5), Tensor(),
                                                                    0.0, true, 0.7) +
                       nn::functional::scaled_dot_product_attention(q, k, w,
                                                                    (arange(35, kFloat64).view({5, 7}) * 0.3).sin());)
DITTO_GRADCHECK("logsumexp", ({gc_rand({3, 4}, -3, 3)}), auto x = v[0];
                return x.logsumexp({1}) + x.logsumexp({0, 1}, true).sum();)
DITTO_GRADCHECK("linalg_vector_norm", ({gc_rand({3, 4})}), auto x = v[0];
                return x.norm(2, {1}) + x.norm(1, {0}).sum() + x.norm(3) + x.norm(0.5, {1}, true).sum() +
                       linalg::vector_norm(x, INFINITY, {0}).sum() + linalg::vector_norm(x, -INFINITY, {1}).sum() +
                       x.norm(1.5) + x.norm(0) * x.sum();)
DITTO_GRADCHECK("softmax", ({gc_rand({3, 5})}), auto x = v[0]; return x.softmax(1) * tensor({1.0, 2.0, 3.0, 4.0, 5.0});)
DITTO_GRADCHECK("log_softmax", ({gc_rand({3, 5})}), auto x = v[0]; return x.log_softmax(0);)
DITTO_GRADCHECK("bmm", ({gc_rand({2, 3, 4}), gc_rand({2, 4, 5})}), auto a = v[0]; auto b = v[1]; return a.bmm(b);)
DITTO_GRADCHECK("mm", ({gc_rand({3, 4}), gc_rand({4, 2})}), auto a = v[0]; auto b = v[1]; return a.mm(b) + a.matmul(b);)
DITTO_GRADCHECK("addmm", ({gc_rand({2}), gc_rand({3, 4}), gc_rand({4, 2})}), return addmm(v[0], v[1], v[2], 0.5, 2.0);)
DITTO_GRADCHECK("cat", ({gc_rand({2, 3}), gc_rand({1, 3})}), auto a = v[0]; auto b = v[1]; return cat({a, b, a});)
DITTO_GRADCHECK("index_select", ({gc_rand({4, 3})}), auto x = v[0]; return x.index_select(0, tensor({3, 0, 3, 1}));)
DITTO_GRADCHECK("gather", ({gc_rand({3, 4})}), auto x = v[0]; return x.gather(1, tensor({{0, 0}, {3, 1}, {2, 2}}));)
DITTO_GRADCHECK("index_add_", ({gc_rand({4, 2}), gc_rand({3, 2})}), auto a = v[0]; auto b = v[1];
                return index_add(a, 0, tensor({1, 3, 1}), b, 2.0);)
DITTO_GRADCHECK("scatter_add_", ({gc_rand({3, 4}), gc_rand({3, 2})}), auto a = v[0]; auto b = v[1];
                return scatter_add(a, 1, tensor({{0, 0}, {3, 1}, {2, 2}}), b);)
}  // namespace

// Every differentiable DITTO_UNARY row without a sample of its own gets one, through the function
// its row makes, at inputs in [0.5, 1.5) (inside every such op's domain): a new row is checked
// without a line here.
namespace {
void add_unary_row_samples() {
  static const bool added = [] {
    auto& reg = ditto::testing::gradcheck_registry();
    for (const ops::OpEntry& op : ops::all_ops())
      if (op.unary && op.differentiable && !reg.count(op.name))
        reg.emplace(op.name,
                    ditto::testing::GradSample{[] { return std::vector<Tensor>{ditto::testing::gc_pos({6})}; },
                                               [fn = op.unary](const std::vector<Tensor>& v) { return fn(v[0]); }});
    return true;
  }();
  (void)added;
}
}  // namespace

TEST(GradCheck, EveryDifferentiableOpHasASample) {
  add_unary_row_samples();
  const auto& reg = ditto::testing::gradcheck_registry();
  for (const ops::OpEntry& op : ops::all_ops()) {
    if (!op.differentiable) continue;
    EXPECT_TRUE(reg.count(op.name)) << "op '" << op.name << "' has a backward formula but no gradient check sample";
  }
}

TEST(GradCheck, BackwardMatchesFiniteDifferences) {
  add_unary_row_samples();
  for (auto& [name, sample] : ditto::testing::gradcheck_registry()) {
    SCOPED_TRACE(name);
    manual_seed(1234);
    const std::vector<Tensor> base_in = sample.make_inputs();
    std::vector<Tensor> in;
    for (const Tensor& t : base_in) in.push_back(t.detach().clone().requires_grad_());
    Tensor out = sample.fn(in);
    manual_seed(99);
    const Tensor w = rand(out.sizes(), kFloat64);
    (out * w).sum().backward();
    const double eps = 1e-6;
    for (std::size_t k = 0; k < in.size(); ++k) {
      ASSERT_TRUE(in[k].grad().defined()) << "input " << k << " got no gradient";
      const std::vector<double> analytic = to_vector<double>(in[k].grad());
      for (int64_t i = 0; i < base_in[k].numel(); ++i) {
        auto loss_at = [&](double delta) {
          NoGradGuard g;
          std::vector<Tensor> pert;
          for (const Tensor& t : base_in) pert.push_back(t.contiguous().clone());
          pert[k].data_ptr<double>()[i] += delta;
          return (sample.fn(pert) * w).sum().item<double>();
        };
        const double numeric = (loss_at(eps) - loss_at(-eps)) / (2 * eps);
        ASSERT_NEAR(analytic[i], numeric, 1e-5 * std::max(1.0, std::fabs(numeric)))
            << "input " << k << " element " << i;
      }
    }
  }
}

// relu's backward is PyTorch's threshold_backward: the gradient passes where the output is above
// 0, and also where it is NaN (NaN <= 0 is false); 0 and -0 outputs block it.
TEST(Autograd, ReluBackwardIsThresholdBackward) {
  const float nan = std::nanf("");
  Tensor x = ditto::tensor({-1.0f, 0.0f, 2.0f, nan, -0.0f}).requires_grad_(true);
  ditto::relu(x).backward(ditto::tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f}));
  const Tensor want = ditto::tensor({0.0f, 0.0f, 3.0f, 4.0f, 0.0f});
  EXPECT_EQ(ditto::fingerprint(x.grad()), ditto::fingerprint(want)) << x.grad();
  EXPECT_TRUE(
      ditto::equal(ditto::threshold_backward(ditto::tensor({1.0f, 2.0f, 3.0f}), ditto::tensor({0.5f, 1.0f, 1.5f}), 1.0),
                   ditto::tensor({0.0f, 0.0f, 3.0f})));
  try {
    ditto::threshold_backward(ditto::ones({2}), ditto::ones({3}), 0);
    FAIL() << "expected a shape error";
  } catch (const ditto::Error& e) {
    EXPECT_NE(std::string(e.what()).find("[threshold_backward]"), std::string::npos) << e.what();
  }
}

// mm, addmm and bmm compute only the gradients their inputs need; the ones they compute are the
// same bits as when every input needs one.
TEST(Autograd, MatrixProductsComputeOnlyNeededGradients) {
  ditto::manual_seed(7);
  const Tensor a0 = ditto::randn({5, 7}), b0 = ditto::randn({7, 3}), c0 = ditto::randn({3}), g = ditto::randn({5, 3});
  auto run = [&](bool na, bool nb, bool nc) {
    Tensor a = a0.clone().requires_grad_(na), b = b0.clone().requires_grad_(nb), c = c0.clone().requires_grad_(nc);
    ditto::addmm(c, a, b).backward(g);
    Tensor a2 = a0.clone().requires_grad_(na), b2 = b0.clone().requires_grad_(nb);
    Tensor a3 = a0.clone().unsqueeze(0).requires_grad_(na), b3 = b0.clone().unsqueeze(0).requires_grad_(nb);
    if (na || nb) {
      a2.mm(b2).backward(g);
      a3.bmm(b3).backward(g.unsqueeze(0));
    }
    return std::vector<Tensor>{a.grad(), b.grad(), c.grad(), a2.grad(), b2.grad(), a3.grad(), b3.grad()};
  };
  const std::vector<Tensor> all = run(true, true, true);
  for (auto [na, nb, nc] : {std::tuple{true, false, false}, {false, true, false}, {false, false, true}}) {
    const std::vector<Tensor> some = run(na, nb, nc);
    const bool need[7] = {na, nb, nc, na, nb, na, nb};
    for (int i = 0; i < 7; ++i) {
      EXPECT_EQ(some[i].defined(), need[i]) << i;
      if (need[i]) {
        EXPECT_EQ(ditto::fingerprint(some[i]), ditto::fingerprint(all[i])) << i;
      }
    }
  }
}
