// The modules and utilities a transformer's training loop uses (issue 17, item 3): ModuleList,
// ModuleDict, Identity, weight tying counted once, clip_grad_norm_ / clip_grad_value_, RMSNorm
// and Embedding::from_pretrained. PyTorch's values for clipping and RMSNorm:
// python/tests/test_module.py.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "ditto/ditto.h"
#include "ditto/nn/utils.h"
#include "expect_error.h"

using namespace ditto;
using ditto::testing::expect_error;

namespace {

struct Block : nn::UnaryModule {
  explicit Block(int64_t d) { fc = register_module("fc", std::make_shared<nn::Linear>(d, d)); }
  Tensor forward(const Tensor& x) override { return x + (*fc)(x); }
  std::string name() const override { return "Block"; }
  std::shared_ptr<nn::Linear> fc;
};

struct Gpt : nn::Module {
  Gpt() {
    wte = register_module("wte", std::make_shared<nn::Embedding>(11, 4));
    blocks = register_module("blocks", std::make_shared<nn::ModuleList>());
    for (int i = 0; i < 3; ++i) blocks->push_back(std::make_shared<Block>(4));
    head = register_module("head", std::make_shared<nn::Linear>(4, 11, false));
    head->weight() = wte->weight();  // weight tying
  }
  std::shared_ptr<nn::Embedding> wte;
  std::shared_ptr<nn::ModuleList> blocks;
  std::shared_ptr<nn::Linear> head;
};

}  // namespace

TEST(ModuleList, RegistersIteratesAndCasts) {
  manual_seed(0);
  Gpt m;
  ASSERT_EQ(m.blocks->size(), 3u);
  Tensor x = m.wte->forward(tensor(std::vector<int64_t>{1, 2, 3}));
  for (const auto& b : *m.blocks) x = std::dynamic_pointer_cast<nn::UnaryModule>(b)->forward(x);
  EXPECT_EQ(x.sizes(), (Shape{3, 4}));
  EXPECT_EQ(m.blocks->as<Block>(1).fc->in_features(), 4);
  EXPECT_EQ((*m.blocks)[2].name(), "Block");
  expect_error([&] { m.blocks->as<nn::Linear>(0); }, "[ModuleList]", "is a Block, not the requested type");
  expect_error([&] { (*m.blocks)[3]; }, "[ModuleList]", "out of range");
  // names as PyTorch's: blocks.0.fc.weight ...; the tied weight once, under its first name
  std::vector<std::string> names;
  for (const auto& [n, t] : m.named_parameters()) names.push_back(n);
  const std::vector<std::string> want = {"wte.weight",         "blocks.0.fc.weight", "blocks.0.fc.bias",
                                         "blocks.1.fc.weight", "blocks.1.fc.bias",   "blocks.2.fc.weight",
                                         "blocks.2.fc.bias"};
  EXPECT_EQ(names, want);
  EXPECT_EQ(m.parameters().size(), 7u);
  EXPECT_TRUE(m.state_dict().find("head.weight") != nullptr);  // state_dict keeps every name
  // the optimizer sees the tied weight once: one step moves it once
  optim::SGD opt(m.parameters(), 0.5);
  const Tensor before = m.wte->weight().detach().clone();
  m.zero_grad();
  m.head->forward(m.wte->forward(tensor(std::vector<int64_t>{4}))).sum().backward();
  const Tensor g = m.wte->weight().grad().clone();
  opt.step();
  EXPECT_TRUE(equal(m.wte->weight().detach(), before - g * 0.5));
  EXPECT_TRUE(m.head->weight().is_same(m.wte->weight()));
}

TEST(ModuleDict, InsertsReplacesAndLooksUp) {
  nn::ModuleDict d;
  d.insert("proj", std::make_shared<nn::Linear>(2, 3));
  d.insert("act", std::make_shared<nn::GELU>());
  d.insert("proj", std::make_shared<nn::Linear>(2, 5));  // replaced in place
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"proj", "act"}));
  EXPECT_EQ(d.as<nn::Linear>("proj").out_features(), 5);
  EXPECT_TRUE(d.contains("act") && !d.contains("nope"));
  EXPECT_EQ(d["act"].name(), "GELU");
  EXPECT_EQ(d.parameters().size(), 2u);
  expect_error([&] { d["nope"]; }, "[ModuleDict]", "no module named 'nope'");
  nn::Identity id;
  const Tensor x = randn({2, 3});
  EXPECT_TRUE(id(x).is_same(x));
}

TEST(ClipGrad, NormIsPyTorchsFormula) {
  Tensor a = zeros({3, 4}).requires_grad_(), b = zeros({5}).requires_grad_(), c = zeros({2}).requires_grad_();
  a.mutable_grad() = randn({3, 4}) * 3.0;
  b.mutable_grad() = randn({5}) * 3.0;
  const Tensor ga = a.grad().clone(), gb = b.grad().clone();
  const Tensor total = nn::utils::clip_grad_norm_({a, b, c}, 1.0);  // c has no gradient: skipped
  const Tensor expect_total = linalg::vector_norm(stack({linalg::vector_norm(ga), linalg::vector_norm(gb)}));
  EXPECT_TRUE(equal(total, expect_total));
  const double t = expect_total.item<float>();
  EXPECT_NEAR(t, std::sqrt(ga.pow(2).sum().item<float>() + gb.pow(2).sum().item<float>()), 1e-4 * t);
  const Tensor coef = clamp((expect_total + 1e-6).pow(-1) * 1.0, std::nullopt, 1.0);
  EXPECT_TRUE(equal(a.grad(), ga * coef));
  EXPECT_TRUE(equal(b.grad(), gb * coef));
  EXPECT_NEAR(linalg::vector_norm(stack({linalg::vector_norm(a.grad()), linalg::vector_norm(b.grad())})).item<float>(),
              1.0, 1e-5);
  // a small norm is left alone; inf norms; errors
  const Tensor kept = a.grad().clone();
  nn::utils::clip_grad_norm_({a}, 100.0);
  EXPECT_TRUE(equal(a.grad(), kept));
  EXPECT_EQ(nn::utils::clip_grad_norm_({a}, 100.0, INFINITY).item<float>(), kept.abs().max().item<float>());
  EXPECT_EQ(nn::utils::clip_grad_norm_({c}, 1.0).item<float>(), 0.0f);
  a.mutable_grad() = full({2}, NAN);
  expect_error([&] { nn::utils::clip_grad_norm_({a}, 1.0, 2.0, true); }, "[clip_grad_norm_]", "non-finite");
  a.mutable_grad() = tensor({-3.0f, 0.25f, 2.0f});
  nn::utils::clip_grad_value_({a}, 1.0);
  EXPECT_TRUE(equal(a.grad(), tensor({-1.0f, 0.25f, 1.0f})));
}

TEST(RMSNorm, IsTheFormulaWithTheDtypesEpsilon) {
  const Tensor x = randn({2, 3, 8});
  nn::RMSNorm m({8});
  EXPECT_TRUE(equal(m(x), x * (x.pow(2).mean({2}, true) + 1.1920928955078125e-07).rsqrt()));
  EXPECT_TRUE(equal(m.weight(), ones({8})));
  const Tensor w = randn({3, 8});
  EXPECT_TRUE(
      equal(nn::functional::rms_norm(x, {3, 8}, w, 1e-3), x * (x.pow(2).mean({1, 2}, true) + 1e-3).rsqrt() * w));
  expect_error([&] { nn::functional::rms_norm(x, {4}); }, "[rms_norm]", "expected input with shape");
}

TEST(Embedding, FromPretrainedSharesTheWeightAndDrawsNothing) {
  const Tensor w = randn({5, 3});
  manual_seed(9);
  auto e = nn::Embedding::from_pretrained(w);
  const Tensor next = rand({1});
  manual_seed(9);
  EXPECT_TRUE(equal(rand({1}), next));  // the generator was not used
  EXPECT_EQ(e->weight().storage(), w.storage());
  EXPECT_FALSE(e->weight().requires_grad());
  EXPECT_TRUE(equal((*e)(tensor(std::vector<int64_t>{4, 0})), w.index_select(0, tensor(std::vector<int64_t>{4, 0}))));
  EXPECT_TRUE(nn::Embedding::from_pretrained(w, false)->weight().requires_grad());
  expect_error([&] { nn::Embedding::from_pretrained(randn({5})); }, "[Embedding.from_pretrained]", "2-dimensional");
}
