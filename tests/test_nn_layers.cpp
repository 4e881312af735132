// nn layers: GELU, Dropout, Embedding, LayerNorm, BatchNorm1d/2d. Known answers from PyTorch
// 1.13 (tests/data/pytorch-nn.json, tools/gen_golden_nn.py), semantics, and bad input.
//
// Tolerances (in eps of the dtype, relative to the expected tensor's largest magnitude; see
// nn_golden.h), the largest error measured against PyTorch 1.13, and why it is not bitwise:
//   GELU       4 eps (measured 1.1): ditto's erf/tanh/exp (dmath) vs PyTorch's (Sleef/libm)
//   LayerNorm  6 eps (measured 1.9): PyTorch's row moments use Welford updates, ditto's two-pass
//              canonical sums
//   BatchNorm  6 eps (measured 2.6): PyTorch accumulates the statistics in double, ditto in the
//              input dtype
// Dropout and Embedding (init, forward and backward) are compared bit for bit.
#include <gtest/gtest.h>

#include <cstring>

#include "ditto/ditto.h"
#include "gradcheck.h"
#include "guards.h"
#include "nn_golden.h"

using namespace ditto;
using namespace ditto::testing;
namespace F = ditto::nn::functional;

namespace {
DITTO_GRADCHECK("gelu", ({gc_rand({3, 5}, -3, 3)}), auto x = v[0]; return gelu(x) + gelu(x * 0.7, "tanh");)
DITTO_GRADCHECK("embedding", ({gc_rand({5, 3})}), auto w = v[0];
                return embedding(w, tensor({{4, 0}, {4, 2}})) +
                       embedding(w, tensor({3, 3}), /*padding_idx=*/1).unsqueeze(0);)

DITTO_GRADCHECK("_embedding_bag", ({gc_rand({6, 3}), gc_rand({7})}), auto w = v[0];
                const Tensor idx = tensor({4, 0, 4, 2, 5, 1, 1}); const Tensor offs = tensor({0, 2, 2, 5});
                return F::embedding_bag(idx, w, offs, "sum", v[1]) +
                       F::embedding_bag(idx, w, offs, "mean", {}, false, 1);)
DITTO_GRADCHECK("_embedding_bag", ({gc_rand({6, 3})}),
                return F::embedding_bag(tensor({4, 0, 4, 2, 5, 1, 1}), v[0], tensor({0, 3, 3}), "max");)

constexpr double kGeluTol = 4, kNormTol = 6;

Tensor leaf(const Tensor& t) { return t.defined() ? t.clone().requires_grad_() : Tensor(); }
}  // namespace

// --- known answers
TEST(NNLayersGolden, GeluForwardAndBackward) {
  for (const json& c : nn_section("gelu")) {
    const std::string name = c["name"];
    Tensor x = leaf(decode(c["x"]));
    Tensor y = F::gelu(x, c["approximate"].get<std::string>());
    y.backward(decode(c["grad_out"]));
    EXPECT_TRUE(close(y, decode(c["out"]), kGeluTol, name + " out"));
    EXPECT_TRUE(close(x.grad(), decode(c["grad_x"]), kGeluTol, name + " grad_x"));
    EXPECT_EQ(y.grad_fn_name(), "GeluBackward0");
  }
}

TEST(NNLayersGolden, DropoutMatchesPyTorchBits) {
  for (const json& c : nn_section("dropout")) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const double p = hex_double(c["p"]);
    const Tensor x0 = decode(c["x"]);
    Tensor x = leaf(x0);
    manual_seed(c["seed"].get<uint64_t>());
    Tensor y1, y2;
    if (c["module"].get<bool>()) {
      nn::Dropout d(p);
      y1 = d(x);
      y2 = d(x0);
    } else {
      y1 = F::dropout(x, p, true);
      y2 = F::dropout(x0, p, true);
    }
    EXPECT_TRUE(same_bits(y1, decode(c["outs"][0])));
    EXPECT_TRUE(same_bits(y2, decode(c["outs"][1])));
    y1.backward(decode(c["grad_out"]));
    EXPECT_TRUE(same_bits(x.grad(), decode(c["grad_x"])));
  }
}

// Dropout1d/2d after the same seed: PyTorch's bits (tools/gen_golden_nn.py, channel_dropout).
TEST(NNLayersGolden, ChannelDropoutMatchesPyTorchBits) {
  for (const json& c : nn_section("channel_dropout")) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const double p = hex_double(c["p"]);
    const Tensor x = decode(c["x"]);
    manual_seed(c["seed"].get<uint64_t>());
    const Tensor y = c["module"] == "Dropout2d" ? nn::Dropout2d(p)(x) : nn::Dropout1d(p)(x);
    EXPECT_TRUE(same_bits(y, decode(c["out"])));
  }
}

TEST(NNLayersGolden, EmbeddingInitBits) {
  for (const json& c : nn_section("embedding_init")) {
    SCOPED_TRACE(c["name"].get<std::string>());
    manual_seed(c["seed"].get<uint64_t>());
    std::optional<int64_t> pad;
    if (!c["padding_idx"].is_null()) pad = c["padding_idx"].get<int64_t>();
    nn::Embedding e(c["num"].get<int64_t>(), c["dim"].get<int64_t>(), pad);
    EXPECT_TRUE(same_bits(e.weight(), decode(c["weight"])));
  }
}

TEST(NNLayersGolden, EmbeddingForwardBackwardBits) {
  for (const json& c : nn_section("embedding")) {
    SCOPED_TRACE(c["name"].get<std::string>());
    Tensor w = leaf(decode(c["weight"]));
    std::optional<int64_t> pad;
    if (!c["padding_idx"].is_null()) pad = c["padding_idx"].get<int64_t>();
    Tensor y = F::embedding(decode(c["indices"]), w, pad);
    EXPECT_TRUE(same_bits(y, decode(c["out"])));
    y.backward(decode(c["grad_out"]));
    // index_add in index order, as PyTorch's embedding_dense_backward_cpu: the same bits
    EXPECT_TRUE(same_bits(w.grad(), decode(c["grad_weight"])));
  }
}

TEST(NNLayersGolden, LayerNorm) {
  for (const json& c : nn_section("layer_norm")) {
    const std::string name = c["name"];
    Tensor x = leaf(decode(c["x"])), w = leaf(decode(c["weight"])), b = leaf(decode(c["bias"]));
    const Shape ns = c["normalized_shape"].get<Shape>();
    Tensor y = F::layer_norm(x, ns, w, b, hex_double(c["eps"]));
    y.backward(decode(c["grad_out"]));
    EXPECT_TRUE(close(y, decode(c["out"]), kNormTol, name + " out"));
    EXPECT_TRUE(close(x.grad(), decode(c["grad_x"]), kNormTol, name + " grad_x"));
    EXPECT_TRUE(close(w.defined() ? w.grad() : Tensor(), decode(c["grad_weight"]), kNormTol, name + " grad_weight"));
    EXPECT_TRUE(close(b.defined() ? b.grad() : Tensor(), decode(c["grad_bias"]), kNormTol, name + " grad_bias"));
    // the module gives the same bits as the function
    nn::LayerNorm m(ns, hex_double(c["eps"]), w.defined(), x.dtype());
    if (w.defined()) {
      NoGradGuard g;
      m.weight().copy_(w);
      m.bias().copy_(b);
    }
    EXPECT_TRUE(same_bits(m(x), y));
  }
}

// GroupNorm and InstanceNorm (with running stats) against PyTorch, forward and backward.
TEST(NNLayersGolden, GroupAndInstanceNorm) {
  for (const json& c : nn_section("group_norm")) {
    const std::string name = c["name"];
    Tensor x = leaf(decode(c["x"])), w = leaf(decode(c["weight"])), b = leaf(decode(c["bias"]));
    Tensor y, rm, rv;
    if (c["kind"] == "group") {
      y = F::group_norm(x, c["groups"].get<int64_t>(), w, b, 1e-5);
    } else {
      const int64_t C = x.size(1);
      rm = full({C}, 0.25, x.dtype());
      rv = full({C}, 1.5, x.dtype());
      y = F::instance_norm(x, rm, rv, w, b, true, 0.2, 1e-5);
      EXPECT_TRUE(close(rm, decode(c["running_mean"]), kNormTol, name + " running_mean"));
      EXPECT_TRUE(close(rv, decode(c["running_var"]), kNormTol, name + " running_var"));
    }
    y.backward(decode(c["grad_out"]));
    EXPECT_TRUE(close(y, decode(c["out"]), kNormTol, name + " out"));
    EXPECT_TRUE(close(x.grad(), decode(c["grad_x"]), kNormTol, name + " grad_x"));
    EXPECT_TRUE(close(w.defined() ? w.grad() : Tensor(), decode(c["grad_weight"]), kNormTol, name + " grad_weight"));
    EXPECT_TRUE(close(b.defined() ? b.grad() : Tensor(), decode(c["grad_bias"]), kNormTol, name + " grad_bias"));
  }
}

TEST(NNLayersGolden, BatchNorm) {
  for (const json& c : nn_section("batch_norm")) {
    const std::string name = c["name"];
    const int64_t C = c["num_features"];
    std::optional<double> momentum;
    if (!c["momentum"].is_null()) momentum = hex_double(c["momentum"]);
    const bool affine = c["affine"], track = c["track_running_stats"];
    std::unique_ptr<nn::BatchNormBase> m;
    if (c["module"] == "BatchNorm1d")
      m = std::make_unique<nn::BatchNorm1d>(C, hex_double(c["eps"]), momentum, affine, track);
    else
      m = std::make_unique<nn::BatchNorm2d>(C, hex_double(c["eps"]), momentum, affine, track);
    {
      NoGradGuard g;
      if (affine) {
        m->weight().copy_(decode(c["weight"]));
        m->bias().copy_(decode(c["bias"]));
      }
      if (track) {
        m->running_mean().copy_(decode(c["running_mean"]));
        m->running_var().copy_(decode(c["running_var"]));
      }
    }
    m->train(c["training"].get<bool>());
    Tensor x = leaf(decode(c["x"]));
    Tensor y = (*m)(x);
    y.backward(decode(c["grad_out"]));
    EXPECT_TRUE(close(y, decode(c["out"]), kNormTol, name + " out"));
    EXPECT_TRUE(close(x.grad(), decode(c["grad_x"]), kNormTol, name + " grad_x"));
    if (affine) {
      EXPECT_TRUE(close(m->weight().grad(), decode(c["grad_weight"]), kNormTol, name + " grad_weight"));
      EXPECT_TRUE(close(m->bias().grad(), decode(c["grad_bias"]), kNormTol, name + " grad_bias"));
    }
    if (track) {
      EXPECT_TRUE(close(m->running_mean(), decode(c["running_mean_after"]), kNormTol, name + " running_mean"));
      EXPECT_TRUE(close(m->running_var(), decode(c["running_var_after"]), kNormTol, name + " running_var"));
      EXPECT_EQ(m->num_batches_tracked().item<int64_t>(), c["num_batches_tracked_after"].get<int64_t>()) << name;
    }
  }
}

// --- semantics
TEST(NNLayers, GeluModuleAndErrors) {
  Tensor x = tensor({-2.0, -0.5, 0.0, 0.5, 2.0});
  nn::GELU exact, approx("tanh");
  EXPECT_TRUE(equal(exact(x), gelu(x)));
  EXPECT_TRUE(equal(approx(x), gelu(x, "tanh")));
  EXPECT_FALSE(equal(exact(x), approx(x)));
  EXPECT_EQ(exact(x)[2].item<float>(), 0.0f);
  EXPECT_NEAR(exact(x)[4].item<float>(), 1.9544997f, 1e-6);  // 2 * Phi(2)
  EXPECT_DITTO_ERROR(nn::GELU("fast"), "[GELU]", "none or tanh");
  EXPECT_DITTO_ERROR(gelu(x, "erf"), "[gelu]");
  EXPECT_DITTO_ERROR(gelu(tensor({1, 2})), "[gelu]");
}

TEST(NNLayers, DropoutEvalZeroAndOne) {
  manual_seed(0);
  Tensor x = randn({4, 5});
  nn::Dropout d(0.5);
  d.eval();
  EXPECT_TRUE(d(x).is_same(x));  // identity in eval mode, as PyTorch
  EXPECT_TRUE(F::dropout(x, 0.0, true).is_same(x));
  EXPECT_EQ(F::dropout(x, 1.0, true).abs().sum().item<float>(), 0.0f);  // x * 0
  d.train();
  const auto state = get_rng_state();
  Tensor y = d(x);
  EXPECT_NE(get_rng_state(), state);  // training draws
  // kept elements are x / (1 - p) exactly, dropped ones 0
  const std::vector<float> xv = to_vector<float>(x), yv = to_vector<float>(y);
  int kept = 0;
  for (std::size_t i = 0; i < xv.size(); ++i) {
    if (yv[i] != 0) {
      EXPECT_EQ(yv[i], xv[i] * 2.0f);
      ++kept;
    }
  }
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, 20);
}

// Dropout against an independent reference written from PyTorch's algorithm (docs/spec/
// pytorch-cpu-rng.md §4): element i is kept when U53(next64()) < 1 - p, in row-major order, and
// then y_i = x_i * (1 / f32(1 - p)) in float32; for every thread count, bit for bit.
TEST(NNLayers, DropoutFollowsPyTorchsStreamForAnyThreadCount) {
  ditto::testing::ConfigGuard keep;
  const double p = 0.3;
  const int64_t n = 300 * 301;  // above the parallel grain, so several threads share the work
  const Tensor x = (arange(n, kFloat32) / 977.0).tanh().view({300, 301});
  Generator ref(7);
  std::vector<float> want(static_cast<std::size_t>(n));
  const float scale = 1.0f / static_cast<float>(1 - p);
  const float* xp = x.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(ref.random64() & ((uint64_t{1} << 53) - 1)) * 0x1p-53;
    want[static_cast<std::size_t>(i)] = xp[i] * (u < 1 - p ? scale : 0.0f);
  }
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    Generator g(7);
    const Tensor y = F::dropout(x, p, true, &g);
    ASSERT_EQ(y.sizes(), x.sizes());
    EXPECT_EQ(std::memcmp(y.data_ptr<float>(), want.data(), want.size() * sizeof(float)), 0) << threads << " threads";
    Generator after(7);
    for (int64_t i = 0; i < n; ++i) after.random64();
    EXPECT_EQ(g.random(), after.random()) << "dropout uses exactly two words per element";
  }
}

TEST(NNLayers, DropoutGeneratorArgument) {
  Generator g1(5), g2(5);
  Tensor x = ones({50});
  EXPECT_TRUE(equal(F::dropout(x, 0.4, true, &g1), F::dropout(x, 0.4, true, &g2)));
  nn::Dropout d(0.4, &g1);
  EXPECT_TRUE(equal(d(x), F::dropout(x, 0.4, true, &g2)));
  EXPECT_FALSE(equal(d(x), d(x)));  // the stream moves on
}

TEST(NNLayers, EmbeddingPaddingRowGetsNoGradient) {
  manual_seed(3);
  nn::Embedding e(5, 3, /*padding_idx=*/-2);
  EXPECT_EQ(e.padding_idx(), 3);
  EXPECT_TRUE(equal(e.weight()[3], zeros({3})));
  {
    NoGradGuard g;
    e.weight()[3].fill_(2.0);  // the forward still reads the row, as PyTorch's
  }
  Tensor idx = tensor({{3, 1}, {1, 3}});
  Tensor y = e(idx);
  EXPECT_EQ(y.sizes(), (Shape{2, 2, 3}));
  EXPECT_TRUE(equal(y[0][0], full({3}, 2.0)));
  EXPECT_EQ(y.grad_fn_name(), "ViewBackward0");
  (y * 3).sum().backward();
  EXPECT_TRUE(equal(e.weight().grad()[3], zeros({3})));
  EXPECT_TRUE(equal(e.weight().grad()[1], full({3}, 6.0)));
  EXPECT_TRUE(equal(e.weight().grad()[0], zeros({3})));
  // int32 indices work too
  EXPECT_TRUE(equal(e(idx.to(kInt32)), y));
}

TEST(NNLayers, EmbeddingBackwardIsDeterministic) {
  auto run = [](int threads) {
    const int saved = get_num_threads();
    set_num_threads(threads);
    manual_seed(11);
    nn::Embedding e(50, 64);
    Tensor idx = randint(0, 50, {4000});
    Tensor y = e(idx);
    (y * randn(y.sizes())).sum().backward();
    set_num_threads(saved);
    return e.weight().grad().clone();
  };
  const Tensor a = run(1), b = run(4), c = run(4);
  EXPECT_TRUE(equal(a, b));
  EXPECT_TRUE(equal(b, c));
  // the same kernel serves deterministic mode (no fallback is needed)
  EXPECT_TRUE(equal(embedding_dense_backward(ones({3, 2}), tensor({1, 1, 0}), 3, 0),
                    tensor({{0.0, 0.0}, {2.0, 2.0}, {0.0, 0.0}})));
}

// PyTorch 1.13's outputs for these bags, by hand (F.embedding_bag of arange(12).view(6, 2)).
TEST(NNLayers, EmbeddingBagModesOffsetsAndPadding) {
  const Tensor w = arange(12.0).to(kFloat32).view({6, 2});
  const Tensor i = tensor({1, 2, 4, 5, 4, 3, 2, 0}), o = tensor({0, 3, 3, 5});
  EXPECT_TRUE(
      equal(F::embedding_bag(i, w, o, "sum"), tensor({{14.0f, 17.0f}, {0.0f, 0.0f}, {18.0f, 20.0f}, {10.0f, 13.0f}})));
  EXPECT_TRUE(
      equal(F::embedding_bag(i, w, o, "max"), tensor({{8.0f, 9.0f}, {0.0f, 0.0f}, {10.0f, 11.0f}, {6.0f, 7.0f}})));
  const Tensor mean = F::embedding_bag(i, w, o, "mean");
  EXPECT_EQ(mean[0][0].item<float>(), 14.0f * (1.0f / 3.0f));
  EXPECT_EQ(mean[1][1].item<float>(), 0.0f);  // an empty bag
  // padding_idx 2 leaves its entries out of the bags and out of the mean's count
  EXPECT_TRUE(equal(F::embedding_bag(i, w, o, "mean", Tensor(), false, 2),
                    tensor({{5.0f, 6.0f}, {0.0f, 0.0f}, {9.0f, 10.0f}, {3.0f, 4.0f}})));
  EXPECT_TRUE(
      equal(F::embedding_bag(i, w, tensor({0, 3, 3, 5, 8}), "sum", Tensor(), true), F::embedding_bag(i, w, o, "sum")));
  EXPECT_TRUE(equal(F::embedding_bag(i.view({2, 4}), w, Tensor(), "max"), tensor({{10.0f, 11.0f}, {8.0f, 9.0f}})));
  // per_sample_weights scale the rows; their gradient is the row against the bag's gradient
  const Tensor psw = tensor({1.0f, 0.5f, 2.0f, 1.0f, 1.0f, 1.0f, -1.0f, 3.0f}).requires_grad_();
  const Tensor ws = F::embedding_bag(i, w, o, "sum", psw);
  EXPECT_EQ(ws[0][0].item<float>(), 2.0f * 1.0f + 4.0f * 0.5f + 8.0f * 2.0f);
  ws.sum().backward();
  EXPECT_EQ(psw.grad()[2].item<float>(), 8.0f + 9.0f);
}

TEST(NNLayers, EmbeddingBagGradientsGoWherePyTorchSendsThem) {
  // max: each column's gradient to the first row that reaches the bag's maximum (ties: the first)
  const Tensor w = tensor({{1.0, 5.0}, {3.0, 5.0}, {3.0, 0.0}}).requires_grad_();
  F::embedding_bag(tensor({0, 1, 2}), w, tensor({0}), "max").backward(tensor({{10.0, 20.0}}));
  EXPECT_TRUE(equal(w.grad(), tensor({{0.0, 20.0}, {10.0, 0.0}, {0.0, 0.0}})));
  // sum over repeated rows: the gradient summed in index order; padding rows get none
  const Tensor v = tensor({{1.0, 1.0}, {2.0, 2.0}, {3.0, 3.0}}).requires_grad_();
  F::embedding_bag(tensor({1, 1, 2, 0}), v, tensor({0, 2}), "mean", Tensor(), false, 0)
      .backward(tensor({{2.0, 4.0}, {6.0, 8.0}}));
  EXPECT_TRUE(equal(v.grad(), tensor({{0.0, 0.0}, {2.0, 4.0}, {6.0, 8.0}})));  // bag 1's mean is of row 2 alone
  // the module starts from normal weights with the padding row zero
  manual_seed(2);
  nn::EmbeddingBag bag(10, 4, "sum", false, 3);
  EXPECT_TRUE(equal(bag.weight()[3], zeros({4})));
  EXPECT_EQ(bag(tensor({{3, 4}}), Tensor()).sizes(), (Shape{1, 4}));
  // every bag empty: zeros, and still a graph to the weight
  const Tensor z = F::embedding_bag(tensor({0}), v, tensor({0}), "max", Tensor(), false, 0);
  EXPECT_TRUE(equal(z, zeros({1, 2}, v.dtype())));
  EXPECT_TRUE(z.requires_grad());
}

// Note [Bag order]: the fused bags have the bits of the ops a bag is defined by: embedding rows
// (times their per-sample weights) added into zeros by index_add in index order, mean times
// 1 / count (float32) or divided by it (float64); max the first row reaching each column's
// maximum, gathered. Forward, the weight's gradient and per_sample_weights', bit for bit.
TEST(NNLayers, EmbeddingBagIsItsDefinitionBitForBit) {
  manual_seed(7);
  const int64_t num = 50, L = 400;
  const Tensor idx = randint(0, num, {L});
  std::vector<int64_t> offs = {0, 0, 3};  // an empty bag first
  while (offs.back() < L - 40) offs.push_back(offs.back() + randint(0, 40, {}).item<int64_t>());
  const int64_t B = int64_t(offs.size());
  // 19 and 93 columns: at every level, passes of fewer than eight vectors, of eight, and partial vectors
  for (int64_t D : {19, 93}) {
    for (ScalarType dt : {kFloat32, kFloat64}) {
      for (const char* mode : {"sum", "mean", "max"}) {
        for (bool weighted : {false, true}) {
          if (weighted && std::string(mode) != "sum") continue;
          for (int64_t pad : {int64_t(-1), int64_t(4)}) {
            const std::string what = std::string(mode) + (weighted ? " weighted " : " ") + dtype_name(dt) + " pad " +
                                     std::to_string(pad) + " D " + std::to_string(D);
            Tensor w = randn({num, D}, dt).requires_grad_();
            Tensor psw = weighted ? randn({L}, dt).requires_grad_() : Tensor();
            const Tensor gout = randn({B, D}, dt);
            // the definition, from public ops
            std::vector<int64_t> kept, bag, count(size_t(B), 0);
            const auto iv = idx.contiguous();
            for (int64_t b = 0; b < B; ++b)
              for (int64_t p = offs[b]; p < (b + 1 < B ? offs[b + 1] : L); ++p)
                if (iv[p].item<int64_t>() != pad) kept.push_back(p), bag.push_back(b), ++count[size_t(b)];
            const Tensor pos = tensor(kept, kInt64), bg = tensor(bag, kInt64), words = idx.index_select(0, pos);
            Tensor w2 = w.detach().clone().requires_grad_();
            Tensor psw2 = weighted ? psw.detach().clone().requires_grad_() : Tensor();
            Tensor want;
            if (std::string(mode) == "max") {
              std::vector<int64_t> first(size_t(B * D), -1);
              const Tensor wv = w.detach();
              for (int64_t k = 0; k < int64_t(kept.size()); ++k)
                for (int64_t j = 0; j < D; ++j) {
                  int64_t& f = first[size_t(bag[k] * D + j)];
                  const int64_t word = words[k].item<int64_t>();
                  if (f < 0 || wv[word][j].item<double>() > wv[f][j].item<double>()) f = word;
                }
              std::vector<int64_t> safe(first.size());
              for (size_t e = 0; e < first.size(); ++e) safe[e] = std::max<int64_t>(first[e], 0);
              want =
                  where(tensor(first, kInt64).view({B, D}).ge(0), w2.gather(0, tensor(safe, kInt64).view({B, D})), 0.0);
            } else {
              Tensor rows = embedding(w2, words, -1);
              if (weighted) rows = rows * psw2.index_select(0, pos).unsqueeze(1);
              want = index_add(zeros({B, D}, dt), 0, bg, rows);
              if (std::string(mode) == "mean") {
                std::vector<double> c(count.begin(), count.end());
                for (double& v : c) v = std::max(v, 1.0);
                const Tensor cnt = tensor(c).to(dt).unsqueeze(1);
                want = dt == kFloat32 ? want * (1.0 / cnt) : want / cnt;
              }
            }
            const Tensor got = F::embedding_bag(idx, w, tensor(offs, kInt64), mode, psw, false,
                                                pad < 0 ? std::nullopt : std::optional<int64_t>(pad));
            EXPECT_EQ(fingerprint(got), fingerprint(want)) << what;
            got.backward(gout);
            want.backward(gout);
            EXPECT_EQ(fingerprint(w.grad()), fingerprint(w2.grad())) << what;
            if (weighted) {
              EXPECT_EQ(fingerprint(psw.grad()), fingerprint(psw2.grad())) << what;
            }
          }
        }
      }
    }
  }
}

TEST(NNLayers, EmbeddingBagBadInputNamesTheOp) {
  const Tensor w = randn({6, 2});
  EXPECT_DITTO_ERROR(F::embedding_bag(tensor({1, 2}), w, tensor({1})), "[embedding_bag]", "offsets[0] has to be 0");
  EXPECT_DITTO_ERROR(F::embedding_bag(tensor({1, 2}), w, tensor({0, 3})), "[embedding_bag]",
                     "can not be greater than input's length 2");
  EXPECT_DITTO_ERROR(F::embedding_bag(tensor({1, 2, 3}), w, tensor({0, 2, 1})), "[embedding_bag]", "non-decreasing");
  // a bag past the input's end, with a last offset inside it (found by the fuzzer under ASan)
  EXPECT_DITTO_ERROR(F::embedding_bag(tensor({1, 2, 3}), w, tensor({0, 10, 2})), "[embedding_bag]", "non-decreasing");
  EXPECT_DITTO_ERROR(F::embedding_bag(tensor({7}), w, tensor({0})), "[embedding_bag]", "index 7 is out of range");
  EXPECT_DITTO_ERROR(F::embedding_bag(tensor({1}), w, tensor({0}), "max", ones({1})), "[embedding_bag]",
                     "only supported for mode='sum'");
  EXPECT_DITTO_ERROR(F::embedding_bag(tensor({{1}}), w, tensor({0})), "[embedding_bag]", "offsets has to be None");
  EXPECT_DITTO_ERROR(F::embedding_bag(tensor({1}), w, tensor({0}), "avg"), "[embedding_bag]",
                     "one of sum, mean or max");
  EXPECT_DITTO_ERROR(F::embedding_bag(tensor({1.0f}), w, tensor({0})), "[embedding_bag]", "int64 or int32");
  EXPECT_DITTO_ERROR(nn::EmbeddingBag(3, 2, "mean", false, 5), "[EmbeddingBag]", "padding_idx must be within");
}

TEST(NNLayers, LayerNormModule) {
  nn::LayerNorm ln({2, 3});
  const auto np = ln.named_parameters();
  ASSERT_EQ(np.size(), 2u);
  EXPECT_EQ(np[0].first, "weight");
  EXPECT_EQ(np[1].first, "bias");
  EXPECT_TRUE(equal(ln.weight(), ones({2, 3})));
  EXPECT_TRUE(equal(ln.bias(), zeros({2, 3})));
  manual_seed(1);
  Tensor x = randn({4, 2, 3}) * 5 + 3;
  Tensor y = ln(x);
  // each (2, 3) block has mean ~0 and biased variance ~1
  const Tensor m = y.mean({1, 2}), v = y.var({1, 2}, false);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(m[i].item<float>(), 0.0f, 1e-6);
    EXPECT_NEAR(v[i].item<float>(), 1.0f, 1e-4);
  }
  nn::LayerNorm plain({3}, 1e-5, false);
  EXPECT_TRUE(plain.parameters().empty());
  EXPECT_FALSE(plain.weight().defined());
}

TEST(NNLayers, BatchNormBuffersAndModes) {
  nn::BatchNorm2d bn(3);
  const auto nb = bn.named_buffers();
  ASSERT_EQ(nb.size(), 3u);
  EXPECT_EQ(nb[0].first, "running_mean");
  EXPECT_EQ(nb[1].first, "running_var");
  EXPECT_EQ(nb[2].first, "num_batches_tracked");
  EXPECT_EQ(nb[2].second.dtype(), kInt64);
  EXPECT_EQ(bn.parameters().size(), 2u);
  manual_seed(2);
  Tensor x = randn({4, 3, 2, 2}) * 2 + 1;
  Tensor y = bn(x);
  EXPECT_EQ(bn.num_batches_tracked().item<int64_t>(), 1);
  // running_mean = 0.9 * 0 + 0.1 * batch mean; running_var uses the unbiased variance
  const Tensor bm = x.mean({0, 2, 3}), bv = x.var({0, 2, 3}, true);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(bn.running_mean()[c].item<float>(), 0.1f * bm[c].item<float>(), 1e-6);
    EXPECT_NEAR(bn.running_var()[c].item<float>(), 0.9f + 0.1f * bv[c].item<float>(), 1e-6);
  }
  // eval: normalised with the running statistics, which stay put
  bn.eval();
  const Tensor rm = bn.running_mean().clone();
  Tensor ye = bn(x);
  EXPECT_TRUE(equal(bn.running_mean(), rm));
  EXPECT_EQ(bn.num_batches_tracked().item<int64_t>(), 1);
  const Tensor expect = (x - rm.view({1, 3, 1, 1})) / (bn.running_var().view({1, 3, 1, 1}) + 1e-5).sqrt();
  EXPECT_TRUE(close(ye, expect, 4, "eval"));
  EXPECT_FALSE(equal(ye, y));
}

// The fused native_layer_norm (Note [Layer norm order]) gives, bit for bit, what its formulas
// give composed of ditto's ops: the output, mean and rstd (mean, var, sub, add eps, rsqrt, mul,
// mul, add); dx = rstd * ((gw - sum(gw) / N) - xhat * (sum(gw * xhat) / N)) with gw = dy * weight,
// sums over each row; dweight and dbias the canonical sums over the rows. Rows shorter than a
// vector, longer than a reduction chunk (32768 values); no rows, fewer rows than the 32 lanes,
// more rows than a chunk, and several of the backward's blocks of rows (400 of 768: 170 a block).
TEST(NNLayers, LayerNormFusedGivesTheCompositionsBits) {
  manual_seed(13);
  for (const ScalarType dt : {kFloat32, kFloat64})
    for (const Shape& s : {Shape{33, 768}, Shape{4, 5}, Shape{0, 5}, Shape{3, 7, 45}, Shape{2, 40000}, Shape{400, 768},
                           Shape{33000, 17}})
      for (const int affine : {0, 1, 2, 3}) {  // bit 0: weight, bit 1: bias
        SCOPED_TRACE(::testing::Message()
                     << s.size() << "-D, " << s[0] << "x" << s.back() << " " << dtype_name(dt) << " affine " << affine);
        const int64_t N = s.back();
        Tensor x = (randn(s, dt) * 3 + 0.5).requires_grad_();
        Tensor w = affine & 1 ? (randn({N}, dt) + 1).requires_grad_() : Tensor();
        Tensor b = affine & 2 ? randn({N}, dt).requires_grad_() : Tensor();
        const auto [y, mean, rstd] = native_layer_norm(x, {N}, w, b, 1e-4);
        const Tensor dy = randn(s, dt);
        y.backward(dy);
        NoGradGuard no_grad;
        const Tensor xd = x.detach();
        const Tensor mu = xd.sum({-1}, true) / double(N);
        const Tensor r = (xd.var({-1}, false, true) + 1e-4).rsqrt();
        const Tensor xhat = (xd - mu) * r;
        Tensor want = xhat;
        if (w.defined()) want = want * w.detach();
        if (b.defined()) want = want + b.detach();
        EXPECT_TRUE(same_bits(y.detach(), want));
        EXPECT_TRUE(same_bits(mean.reshape(mu.sizes()), mu));
        EXPECT_TRUE(same_bits(rstd.reshape(r.sizes()), r));
        const Tensor gw = w.defined() ? dy * w.detach() : dy;
        const Tensor a = gw.sum({-1}, true) / double(N), c = (gw * xhat).sum({-1}, true) / double(N);
        EXPECT_TRUE(same_bits(x.grad(), r * ((gw - a) - xhat * c)));
        Shape rows;
        for (std::size_t d = 0; d + 1 < s.size(); ++d) rows.push_back(static_cast<int64_t>(d));
        if (w.defined()) {
          EXPECT_TRUE(same_bits(w.grad(), (dy * xhat).sum(rows)));
        }
        if (b.defined()) {
          EXPECT_TRUE(same_bits(b.grad(), dy.sum(rows)));
        }
      }
}

// The fused native_batch_norm (Note [Batch norm order]) gives the bits of the composition ditto's
// batch_norm was before it: mean and var over (0, 2, ...), sub, add eps, rsqrt, mul, mul, add, and
// the running statistics' float64 update. Its weight and bias gradients are the canonical sums
// over (0, 2, ...) of dy * xhat and dy, bit for bit; its input gradient is within a few eps of the
// float64 formula. Planes whose size is and is not a multiple of the reduction lanes, an (N, C)
// input (runs of one element), channels of more than one reduction chunk (32768 values).
TEST(NNLayers, BatchNormFusedGivesTheCompositionsBits) {
  manual_seed(11);
  for (const ScalarType dt : {kFloat32, kFloat64})
    for (const Shape& s : {Shape{4, 3, 8, 8}, Shape{3, 5, 7, 7}, Shape{64, 33}, Shape{5, 2, 90, 80}, Shape{2, 3, 5}})
      for (const bool affine : {true, false})
        for (const bool training : {true, false}) {
          SCOPED_TRACE(::testing::Message() << s.size() << "-D, " << s[0] << "x" << s[1] << " " << dtype_name(dt)
                                            << (affine ? " affine" : "") << (training ? " train" : " eval"));
          const int64_t C = s[1];
          Tensor x = (randn(s, dt) * 3 + 0.5).requires_grad_();
          Tensor w = affine ? (randn({C}, dt) + 1).requires_grad_() : Tensor();
          Tensor b = affine ? randn({C}, dt).requires_grad_() : Tensor();
          Tensor rm = randn({C}, dt), rv = rand({C}, dt) + 0.5;
          const Tensor rm0 = rm.clone(), rv0 = rv.clone();
          Tensor y = F::batch_norm(x, rm, rv, w, b, training, 0.3, 1e-4);
          const Tensor dy = randn(s, dt);
          y.backward(dy);
          Shape dims{0}, ps(s.size(), 1);
          for (std::size_t d = 2; d < s.size(); ++d) dims.push_back(static_cast<int64_t>(d));
          ps[1] = C;
          NoGradGuard no_grad;
          const Tensor xd = x.detach();
          const Tensor mean = training ? xd.mean(dims, true) : rm0.view(ps);
          const Tensor var = training ? xd.var(dims, false, true) : rv0.view(ps);
          Tensor want = (xd - mean) * (var + 1e-4).rsqrt();
          const Tensor xhat = want;
          if (affine) want = want * w.detach().view(ps) + b.detach().view(ps);
          EXPECT_TRUE(same_bits(y.detach(), want));
          if (training) {
            const Tensor um = rm0.to(kFloat64) * 0.7 + mean.view({C}).to(kFloat64) * 0.3;
            const Tensor uv = rv0.to(kFloat64) * 0.7 + xd.var(dims, true).to(kFloat64) * 0.3;
            EXPECT_TRUE(same_bits(rm, um.to(dt)));
            EXPECT_TRUE(same_bits(rv, uv.to(dt)));
          } else {
            EXPECT_TRUE(same_bits(rm, rm0));
          }
          if (affine) {
            EXPECT_TRUE(same_bits(b.grad(), dy.sum(dims)));
            EXPECT_TRUE(same_bits(w.grad(), (dy * xhat).sum(dims)));
          }
          // dx in float64 from the float64 statistics
          const Tensor x64 = xd.to(kFloat64), dy64 = dy.to(kFloat64);
          const Tensor m64 = training ? x64.mean(dims, true) : rm0.view(ps).to(kFloat64);
          const Tensor r64 = ((training ? x64.var(dims, false, true) : rv0.view(ps).to(kFloat64)) + 1e-4).rsqrt();
          const Tensor xh = (x64 - m64) * r64;
          Tensor dx = training ? dy64 - dy64.mean(dims, true) - xh * (dy64 * xh).mean(dims, true) : dy64;
          dx = dx * r64;
          if (affine) dx = dx * w.detach().view(ps).to(kFloat64);
          EXPECT_TRUE(close(x.grad(), dx.to(dt), 16, "dx"));
        }
}

// GroupNorm (native_group_norm) and InstanceNorm (native_batch_norm over (1, N * C, *)) give the
// bits of the composition over each sample's groups (mean, var, sub, add eps, rsqrt, mul, then the
// affine part), and GroupNorm's affine gradients are the canonical sums over (0, 2, 3).
// The second shape: channels of 50700 values (two reduction chunks, the second starting inside a
// plane) and samples of 1 MB of x and dy (the backward's blocks of samples: one each). The input
// gradient: the layer_norm formula over each sample's group with gw = dy * weight[c], bit for bit.
TEST(NNLayers, GroupAndInstanceNormGiveTheCompositionsBits) {
  manual_seed(12);
  for (const ScalarType dt : {kFloat32, kFloat64})
    for (const Shape& s : {Shape{3, 6, 7, 5}, Shape{3, 8, 130, 130}}) {
      const int64_t C = s[1];
      const Tensor x = randn(s, dt) * 2 - 1, w = randn({C}, dt), b = randn({C}, dt), dy = randn(s, dt);
      for (const int64_t groups : {int64_t{1}, int64_t{2}, C}) {
        SCOPED_TRACE(::testing::Message() << dtype_name(dt) << " " << s[1] << "x" << s[2] << " groups " << groups);
        const Tensor xs = x.reshape({3, groups, -1});
        const Tensor mean = xs.sum({2}, true) / double(xs.size(2)), rstd = (xs.var({2}, false, true) + 1e-5).rsqrt();
        const Tensor norm = ((xs - mean) * rstd).reshape(x.sizes());
        const Tensor want = norm * w.view({1, C, 1, 1}) + b.view({1, C, 1, 1});
        const Tensor xl = x.clone().requires_grad_(), wl = w.clone().requires_grad_(), bl = b.clone().requires_grad_();
        const Tensor y = F::group_norm(xl, groups, wl, bl, 1e-5);
        EXPECT_TRUE(same_bits(y.detach(), want));
        // the affine gradients: canonical sums over (0, 2, 3), as batch_norm's
        y.backward(dy);
        EXPECT_TRUE(same_bits(bl.grad(), dy.sum({0, 2, 3})));
        EXPECT_TRUE(same_bits(wl.grad(), (dy * norm).sum({0, 2, 3})));
        const Tensor gw = (dy * w.view({1, C, 1, 1})).reshape({3, groups, -1}), xhat = norm.reshape({3, groups, -1});
        const double L = double(xs.size(2));
        const Tensor dx = rstd * ((gw - gw.sum({2}, true) / L) - xhat * ((gw * xhat).sum({2}, true) / L));
        EXPECT_TRUE(same_bits(xl.grad(), dx.reshape(x.sizes())));
        if (groups == C) {
          EXPECT_TRUE(same_bits(F::instance_norm(x, Tensor(), Tensor(), w, b, true, 0.1, 1e-5), want));
        }
      }
    }
}

TEST(NNLayers, BatchNormCumulativeMomentumAndNoTracking) {
  nn::BatchNorm1d bn(2, 1e-5, std::nullopt);
  Tensor a = tensor({{1.0, 2.0}, {3.0, 6.0}}), b = tensor({{5.0, 0.0}, {7.0, 2.0}});
  bn(a);
  bn(b);
  // momentum None: the running mean is the plain average of the batch means
  EXPECT_TRUE(equal(bn.running_mean(), tensor({4.0, 2.5})));
  EXPECT_EQ(bn.num_batches_tracked().item<int64_t>(), 2);
  nn::BatchNorm1d free(2, 1e-5, 0.1, false, false);
  EXPECT_TRUE(free.named_buffers().empty());
  free.eval();  // without running stats, eval still uses the batch's
  Tensor y = free(a);
  EXPECT_NEAR(y[0][0].item<float>(), -1.0f, 1e-4);
  EXPECT_NEAR(y[1][1].item<float>(), 1.0f, 1e-4);
}

// --- bad input
TEST(NNLayers, BadInputNamesTheModule) {
  Tensor x = randn({4, 3});
  EXPECT_DITTO_ERROR(nn::Dropout(1.5), "[Dropout]", "between 0 and 1");
  EXPECT_DITTO_ERROR(F::dropout(x, -0.1), "[dropout]");
  EXPECT_DITTO_ERROR(F::dropout(tensor({1, 2}), 0.5), "[dropout]");

  nn::Embedding e(4, 2);
  EXPECT_DITTO_ERROR(e(tensor({0, 4})), "[Embedding]", "index 4", "4 embeddings");
  EXPECT_DITTO_ERROR(e(tensor({-1})), "[Embedding]");
  EXPECT_DITTO_ERROR(e(tensor({0.0, 1.0})), "[Embedding]", "int64");
  EXPECT_DITTO_ERROR(nn::Embedding(4, 2, 4), "[Embedding]", "padding_idx");
  EXPECT_DITTO_ERROR(F::embedding(tensor({7}), randn({3, 2})), "[embedding]", "out of range");
  EXPECT_DITTO_ERROR(F::embedding(tensor({0}), randn({3})), "[embedding]", "2-D");

  nn::LayerNorm ln({3});
  EXPECT_DITTO_ERROR(ln(randn({3, 4})), "[LayerNorm]", "normalized_shape");
  EXPECT_DITTO_ERROR(F::layer_norm(x, {3}, ones({4})), "[layer_norm]", "weight");
  EXPECT_DITTO_ERROR(F::layer_norm(tensor({1, 2, 3}), {3}), "[layer_norm]", "floating");

  nn::BatchNorm1d bn1(3);
  EXPECT_DITTO_ERROR(bn1(randn({2, 3, 4, 5})), "[BatchNorm1d]", "2D or 3D");
  EXPECT_DITTO_ERROR(bn1(randn({2, 4})), "[BatchNorm1d]", "3 features");
  EXPECT_DITTO_ERROR(bn1(randn({1, 3})), "[BatchNorm1d]", "more than 1 value per channel");
  nn::BatchNorm2d bn2(3);
  EXPECT_DITTO_ERROR(bn2(randn({2, 3, 4})), "[BatchNorm2d]", "4D");
  EXPECT_DITTO_ERROR(bn2(randn({2, 5, 4, 4})), "[BatchNorm2d]", "3 features");
  EXPECT_DITTO_ERROR(F::batch_norm(x, zeros({4}), ones({3}), Tensor(), Tensor(), true), "[batch_norm]", "running_mean");
  EXPECT_DITTO_ERROR(F::batch_norm(x, Tensor(), Tensor()), "[batch_norm]", "evaluation mode");
  EXPECT_DITTO_ERROR(F::batch_norm(x, zeros({3}, kFloat64), ones({3}), Tensor(), Tensor(), true), "[batch_norm]",
                     "mixed dtype");
  EXPECT_DITTO_ERROR(native_batch_norm(x, ones({4}), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5),
                     "[native_batch_norm]", "weight should contain 3 elements");
  EXPECT_DITTO_ERROR(native_group_norm(randn({0, 3, 2}), Tensor(), Tensor(), 0, 3, -5, 3, 1e-5), "[native_group_norm]",
                     "N * C * HxW");
  EXPECT_DITTO_ERROR(native_group_norm(randn({2, 3, 2}), Tensor(), Tensor(), 2, 3, 2, 2, 1e-5), "[native_group_norm]",
                     "divisible");
  EXPECT_DITTO_ERROR(F::group_norm(randn({2, 4, 2}), 2, ones({3})), "[group_norm]", "weight");
}

// GroupNorm normalises each group of channels of a sample (mean 0, biased variance 1 before the
// affine part); InstanceNorm is GroupNorm with one channel per group, and with tracked stats
// moves running_mean toward the batch's mean of the instance means.
TEST(Normalization, GroupAndInstanceNorm) {
  manual_seed(12);
  const Tensor x = randn({3, 6, 4, 5}, kFloat64) * 3.0 + 1.0;
  const Tensor y = F::group_norm(x, 2, Tensor(), Tensor(), 0.0);
  const Tensor g = y.reshape({3, 2, 60});
  EXPECT_LT(g.mean({2}).abs().max().item<double>(), 1e-14);
  EXPECT_LT((g.var({2}, false) - 1.0).abs().max().item<double>(), 1e-12);
  nn::GroupNorm gn(3, 6, 1e-5, true, kFloat64);
  {
    NoGradGuard no_grad;
    gn.weight().copy_(arange(6, kFloat64));
    gn.bias().fill_(0.5);
  }
  const Tensor z = gn(x);
  const Tensor plain = F::group_norm(x, 3, Tensor(), Tensor(), 1e-5);
  EXPECT_TRUE(equal(z, plain * arange(6, kFloat64).view({1, 6, 1, 1}) + 0.5));
  z.sum().backward();
  EXPECT_EQ(gn.weight().grad().sizes(), (Shape{6}));
  EXPECT_EQ(gn.named_parameters().size(), 2u);
  // instance norm: one channel per group
  EXPECT_TRUE(equal(F::instance_norm(x), F::group_norm(x, 6)));
  nn::InstanceNorm2d in(6, 1e-5, 0.1, false, true, kFloat64);
  EXPECT_EQ(in.named_buffers().size(), 3u);
  EXPECT_TRUE(in.named_parameters().empty());
  EXPECT_TRUE(equal(in(x), F::group_norm(x, 6)));
  const Tensor want = x.reshape({3, 6, 20}).mean({2}).mean({0}) * 0.1;
  EXPECT_TRUE(close(in.running_mean(), want, 4, "running_mean"));
  in.eval();  // eval with tracked stats: the running ones
  const Tensor e = in(x);
  EXPECT_TRUE(close(e, (x - in.running_mean().view({1, 6, 1, 1})) / (in.running_var().view({1, 6, 1, 1}) + 1e-5).sqrt(),
                    4, "eval"));
  nn::InstanceNorm1d in1(4);
  const Tensor u = randn({4, 9});  // unbatched (C, L)
  EXPECT_TRUE(equal(in1(u), in1(u.unsqueeze(0)).squeeze(0)));
  EXPECT_DITTO_ERROR(F::group_norm(x, 4), "[group_norm]", "divisible by num_groups");
  EXPECT_DITTO_ERROR(nn::GroupNorm(4, 6), "[GroupNorm]", "divisible");
  EXPECT_DITTO_ERROR(F::group_norm(x, 2, ones({5}, kFloat64)), "[group_norm]", "weight should contain 6");
  EXPECT_DITTO_ERROR(in1(randn({2, 3, 9})), "[InstanceNorm1d]", "num_features (4)");
  EXPECT_DITTO_ERROR(in1(randn({2, 4, 3, 9})), "[InstanceNorm1d]", "2D or 3D");
  EXPECT_DITTO_ERROR(F::instance_norm(randn({2, 3, 1})), "[instance_norm]", "more than 1 spatial element");
}

// Dropout1d/2d keep or drop whole channels, one draw per (sample, channel) as PyTorch's
// feature dropout: the noise is what bernoulli_(1 - p) gives a (N, C, 1, 1) tensor.
TEST(Dropout, ChannelDropoutDrawsOnePerChannel) {
  const Tensor x = ones({4, 8, 3, 5});
  manual_seed(3);
  const Tensor y = nn::Dropout2d(0.5)(x);
  manual_seed(3);
  Tensor noise = empty({4, 8, 1, 1});
  noise.bernoulli_(0.5);
  EXPECT_TRUE(same_bits(y, (noise / 0.5).expand({4, 8, 3, 5}).contiguous()));
  const double kept = noise.sum().item<double>();
  EXPECT_GT(kept, 4);
  EXPECT_LT(kept, 28);
  manual_seed(3);
  EXPECT_TRUE(same_bits(F::dropout1d(x.reshape({4, 8, 15}), 0.5), y.reshape({4, 8, 15})));
  manual_seed(3);
  const Tensor u = F::dropout1d(ones({8, 15}), 0.5);  // unbatched: one sample
  EXPECT_TRUE(same_bits(u, y[0].reshape({8, 15})));
  nn::Dropout2d d(0.3);
  d.eval();
  EXPECT_TRUE(same_bits(d(x), x));
  EXPECT_EQ(d.name(), "Dropout2d");
  EXPECT_DITTO_ERROR(F::dropout1d(ones({2, 3, 4, 5})), "[dropout1d]", "2D or 3D");
  EXPECT_DITTO_ERROR(F::dropout2d(ones({2, 3})), "[dropout2d]", "3D or 4D");
}

// gelu's contiguous path (dmath's array erf and exp, chunk by chunk) gives the bits of its strided
// path (the per-element formula), forward and backward, float and double.
TEST(Gelu, ContiguousAndStridedPathsGiveTheSameBits) {
  for (ScalarType dt : {kFloat32, kFloat64}) {
    manual_seed(2);
    const Tensor x = randn({37, 300}, dt) * 3.0, g = randn({37, 300}, dt);
    const Tensor xt = x.t().contiguous().t(), gt = g.t().contiguous().t();  // same values, strided
    ASSERT_FALSE(xt.is_contiguous());
    EXPECT_TRUE(same_bits(gelu(x), gelu(xt).contiguous())) << dtype_name(dt);
    Tensor a = x.clone().requires_grad_(), b = x.t().contiguous().requires_grad_();
    (gelu(a) * g).sum().backward();
    (gelu(b.t()) * gt).sum().backward();  // a strided input and a strided incoming gradient
    EXPECT_TRUE(same_bits(a.grad(), b.grad().t().contiguous())) << dtype_name(dt);
  }
}
