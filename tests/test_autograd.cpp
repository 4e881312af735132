// Autograd: semantics, and a gradient check of every differentiable op in the op table.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "ditto/ditto.h"
#include "ops/op_table.h"

using namespace ditto;

TEST(Autograd, SimpleChainAndAccumulation) {
  Tensor x = tensor({1.0, 2.0, 3.0}).requires_grad_();
  Tensor y = (x * x).sum();
  EXPECT_EQ(y.grad_fn_name(), "SumBackward1");
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

TEST(Autograd, OrderDependsOnlyOnTheGraph) {
  // Many consumers of one tensor: the gradient sum must be the same bits every run.
  auto run = [] {
    manual_seed(3);
    Tensor x = randn({64}).requires_grad_();
    Tensor acc = zeros({64});
    for (int i = 0; i < 20; ++i) acc = acc + (x * (0.1 * i + 0.3)).exp() * x;
    acc.sum().backward();
    return x.grad();
  };
  Tensor a = run(), b = run();
  EXPECT_TRUE(equal(a, b));
}

// ---------------------------------------------------------------------------------------------
// Gradient check driven by the op table: every op with a backward formula must have a sample
// here, and its backward must match central finite differences in float64.
namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;
struct Sample {
  std::vector<Tensor> inputs;  // float64; all require grad
  Fn fn;
};

Tensor r(const Shape& s, double lo = -1.0, double hi = 1.0) { return rand(s, kFloat64) * (hi - lo) + lo; }
Tensor pos(const Shape& s) { return rand(s, kFloat64) + 0.5; }

std::map<std::string, Sample> samples() {
  manual_seed(1234);
  std::map<std::string, Sample> m;
  auto un = [](Tensor x, std::function<Tensor(Tensor)> f) { return Sample{{x}, [f](auto& v) { return f(v[0]); }}; };
  auto bin = [](Tensor a, Tensor b, std::function<Tensor(Tensor, Tensor)> f) {
    return Sample{{a, b}, [f](auto& v) { return f(v[0], v[1]); }};
  };
  m["view"] = un(r({2, 6}), [](Tensor x) { return x.view({3, 4}); });
  m["transpose"] = un(r({2, 3, 4}), [](Tensor x) { return x.transpose(0, 2); });
  m["permute"] = un(r({2, 3, 4}), [](Tensor x) { return x.permute({1, 2, 0}); });
  m["select"] = un(r({3, 4}), [](Tensor x) { return x.select(1, -1); });
  m["slice"] = un(r({5, 4}), [](Tensor x) { return x.slice(0, 1, 5, 2); });
  m["expand"] = un(r({3, 1}), [](Tensor x) { return x.expand({2, 3, 4}); });
  m["squeeze"] = un(r({3, 1, 2}), [](Tensor x) { return x.squeeze(); });
  m["unsqueeze"] = un(r({3, 2}), [](Tensor x) { return x.unsqueeze(1); });
  m["copy_"] = un(r({3, 2}), [](Tensor x) {
    Tensor y = zeros({2, 3}, kFloat64);
    y.copy_(x.t());
    return x.t().contiguous() + x.clone().t() + y;
  });
  m["neg"] = un(r({4}), [](Tensor x) { return -x; });
  m["abs"] = un(r({6}), [](Tensor x) { return x.abs(); });
  m["exp"] = un(r({6}), [](Tensor x) { return x.exp(); });
  m["log"] = un(pos({6}), [](Tensor x) { return x.log(); });
  m["sqrt"] = un(pos({6}), [](Tensor x) { return x.sqrt(); });
  m["rsqrt"] = un(pos({6}), [](Tensor x) { return x.rsqrt(); });
  m["sigmoid"] = un(r({6}, -3, 3), [](Tensor x) { return x.sigmoid(); });
  m["tanh"] = un(r({6}, -2, 2), [](Tensor x) { return x.tanh(); });
  m["relu"] = un(r({8}), [](Tensor x) { return x.relu(); });
  m["pow"] = un(pos({6}), [](Tensor x) { return x.pow(2.5) + x.pow(2) + x.pow(-1); });
  m["pow.Tensor"] = bin(pos({4}), r({4}), [](Tensor a, Tensor b) { return a.pow(b); });
  m["clamp"] = un(r({8}), [](Tensor x) { return x.clamp(-0.5, 0.4); });
  m["add"] = bin(r({2, 3}), r({3}), [](Tensor a, Tensor b) { return a + b; });
  m["add.alpha"] = bin(r({2, 3}), r({3}), [](Tensor a, Tensor b) { return a.add(b, 2.5) + a.sub(b, 0.5); });
  m["sub"] = bin(r({2, 3}), r({2, 1}), [](Tensor a, Tensor b) { return a - b; });
  m["mul"] = bin(r({2, 3}), r({3}), [](Tensor a, Tensor b) { return a * b; });
  m["div"] = bin(r({2, 3}), pos({2, 3}), [](Tensor a, Tensor b) { return a / b; });
  m["where"] = bin(r({5}), r({5}), [](Tensor a, Tensor b) { return where(tensor({true, false, true, true, false}), a, b); });
  m["masked_fill"] = un(r({2, 3}), [](Tensor x) { return x.masked_fill(tensor({true, false, true}), 2.0); });
  m["sum"] = un(r({2, 3, 4}), [](Tensor x) { return x.sum({0, 2}) + x.sum({1}, true).sum(); });
  m["mean"] = un(r({2, 3, 4}), [](Tensor x) { return x.mean({1}) + x.mean(); });
  m["prod"] = un(r({3, 4}), [](Tensor x) { return x.prod(1) + x.prod(); });
  m["amax"] = un(r({3, 4}), [](Tensor x) { return amax(x, {1}) + x.max(); });
  m["amin"] = un(r({3, 4}), [](Tensor x) { return amin(x, {0}, true).sum() + x.min(); });
  m["max.dim"] = un(r({3, 4}), [](Tensor x) { return x.max(1).first; });
  m["min.dim"] = un(r({3, 4}), [](Tensor x) { return x.min(0, true).first; });
  m["var"] = un(r({3, 4}), [](Tensor x) { return x.var({1}) + x.std({0}, false).sum() + x.var(); });
  m["softmax"] = un(r({3, 5}), [](Tensor x) { return x.softmax(1) * tensor({1.0, 2.0, 3.0, 4.0, 5.0}); });
  m["log_softmax"] = un(r({3, 5}), [](Tensor x) { return x.log_softmax(0); });
  m["bmm"] = bin(r({2, 3, 4}), r({2, 4, 5}), [](Tensor a, Tensor b) { return a.bmm(b); });
  m["mm"] = bin(r({3, 4}), r({4, 2}), [](Tensor a, Tensor b) { return a.mm(b) + a.matmul(b); });
  m["addmm"] = Sample{{r({2}), r({3, 4}), r({4, 2})}, [](auto& v) { return addmm(v[0], v[1], v[2], 0.5, 2.0); }};
  m["cat"] = bin(r({2, 3}), r({1, 3}), [](Tensor a, Tensor b) { return cat({a, b, a}); });
  m["index_select"] = un(r({4, 3}), [](Tensor x) { return x.index_select(0, tensor({3, 0, 3, 1})); });
  m["gather"] = un(r({3, 4}), [](Tensor x) { return x.gather(1, tensor({{0, 0}, {3, 1}, {2, 2}})); });
  m["index_add_"] = bin(r({4, 2}), r({3, 2}), [](Tensor a, Tensor b) { return index_add(a, 0, tensor({1, 3, 1}), b, 2.0); });
  m["scatter_add_"] = bin(r({3, 4}), r({3, 2}), [](Tensor a, Tensor b) {
    return scatter_add(a, 1, tensor({{0, 0}, {3, 1}, {2, 2}}), b);
  });
  return m;
}

}  // namespace

TEST(GradCheck, EveryDifferentiableOpHasASample) {
  const auto m = samples();
  for (const ops::OpEntry& op : ops::all_ops()) {
    if (!op.backward) continue;
    EXPECT_TRUE(m.count(op.name)) << "op '" << op.name << "' has a backward formula but no gradient check sample";
  }
}

TEST(GradCheck, BackwardMatchesFiniteDifferences) {
  for (auto& [name, sample] : samples()) {
    SCOPED_TRACE(name);
    std::vector<Tensor> in;
    for (const Tensor& t : sample.inputs) in.push_back(t.detach().clone().requires_grad_());
    Tensor out = sample.fn(in);
    manual_seed(99);
    const Tensor w = rand(out.sizes(), kFloat64);
    (out * w).sum().backward();
    const double eps = 1e-6;
    for (std::size_t k = 0; k < in.size(); ++k) {
      ASSERT_TRUE(in[k].grad().defined()) << "input " << k << " got no gradient";
      const Tensor base = sample.inputs[k].contiguous();
      const std::vector<double> analytic = to_vector<double>(in[k].grad());
      for (int64_t i = 0; i < base.numel(); ++i) {
        auto loss_at = [&](double delta) {
          NoGradGuard g;
          std::vector<Tensor> pert;
          for (std::size_t j = 0; j < in.size(); ++j) pert.push_back(sample.inputs[j].clone());
          double* p = pert[k].data_ptr<double>();
          p[i] += delta;
          return (sample.fn(pert) * w).sum().item<double>();
        };
        const double numeric = (loss_at(eps) - loss_at(-eps)) / (2 * eps);
        ASSERT_NEAR(analytic[i], numeric, 1e-5 * std::max(1.0, std::fabs(numeric))) << "input " << k << " element " << i;
      }
    }
  }
}
