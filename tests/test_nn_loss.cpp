// Losses: L1Loss, NLLLoss, CrossEntropyLoss (class indices and probabilities), BCEWithLogitsLoss,
// SmoothL1Loss, HuberLoss, BCELoss, KLDivLoss, MarginRankingLoss, CosineEmbeddingLoss. Known answers from PyTorch 1.13
// (tests/data/pytorch-nn.json, tools/gen_golden_nn.py), semantics, and bad input.
//
// Bitwise where ditto does PyTorch's arithmetic in its order: L1 and NLL with reduction "none"
// (values and gradients) and L1's gradients. Otherwise within 4 eps of the dtype, relative to the
// expected tensor's largest magnitude (nn_golden.h); the largest errors measured against PyTorch
// 1.13 were 1.7 eps for the nll_loss sums (canonical reduction order vs PyTorch's), 1.8 eps for
// cross_entropy (also dmath's exp/log in log_softmax) and 0.9 eps for bce_with_logits (exp/log).
#include <gtest/gtest.h>

#include <limits>

#include "ditto/ditto.h"
#include "gradcheck.h"
#include "nn_golden.h"

using namespace ditto;
using namespace ditto::testing;
namespace F = ditto::nn::functional;

namespace {
DITTO_GRADCHECK("cross_entropy_loss", ({gc_rand({4, 5, 3})}),
                return F::cross_entropy(v[0], tensor({{1, 4, -100}, {0, 0, 3}, {2, 2, 2}, {4, -100, 1}}), {}, -100,
                                        nn::Reduction::None) +
                       F::cross_entropy(v[0], tensor({{1, 4, 0}, {0, 0, 3}, {2, 2, 2}, {4, 3, 1}}),
                                        tensor({0.5, 1.0, 2.0, 1.5, 0.25}).to(kFloat64));)
nn::Reduction parse_reduction(const std::string& r) {
  if (r == "none") return nn::Reduction::None;
  if (r == "sum") return nn::Reduction::Sum;
  return nn::Reduction::Mean;
}
}  // namespace

TEST(NNLossGolden, AllLosses) {
  int checked = 0;
  for (const json& c : nn_section("loss")) {
    const std::string name = c["name"], loss = c["loss"];
    const nn::Reduction red = parse_reduction(c["reduction"]);
    Tensor input = decode(c["input"]).requires_grad_();
    const Tensor target = decode(c["target"]), weight = decode(c["weight"]), pos_weight = decode(c["pos_weight"]);
    const int64_t ignore_index = c["ignore_index"];
    const double smoothing = hex_double(c["label_smoothing"]);
    Tensor out;
    const double tol = 4;
    bool bits_out = false, bits_grad = false;
    if (loss == "l1") {
      out = F::l1_loss(input, target, red);
      bits_out = red == nn::Reduction::None;
      bits_grad = true;
    } else if (loss == "nll") {
      out = F::nll_loss(input, target, weight, ignore_index, red);
      bits_out = bits_grad = red == nn::Reduction::None;
    } else if (loss == "cross_entropy") {
      out = F::cross_entropy(input, target, weight, ignore_index, red, smoothing);
    } else if (loss == "bce_with_logits") {
      out = F::binary_cross_entropy_with_logits(input, target, weight, red, pos_weight);
    } else if (loss == "cross_entropy_probs") {
      out = F::cross_entropy(input, target, weight, -100, red, smoothing);
    } else if (loss == "smooth_l1") {
      out = F::smooth_l1_loss(input, target, red, hex_double(c["number"]));
    } else if (loss == "huber") {
      out = F::huber_loss(input, target, red, hex_double(c["number"]));
    } else if (loss == "bce") {
      out = F::binary_cross_entropy(input, target, weight, red);
    } else if (loss == "kl_div") {
      out = F::kl_div(input, target, c["reduction"].get<std::string>(), c["log_target"].get<bool>());
    } else if (loss == "margin_ranking") {
      out = F::margin_ranking_loss(input, decode(c["input2"]), target, hex_double(c["number"]), red);
    } else if (loss == "cosine_embedding") {
      out = F::cosine_embedding_loss(input, decode(c["input2"]), target, hex_double(c["number"]), red);
    } else {
      ADD_FAILURE() << "unknown loss " << loss;
      continue;
    }
    out.backward(decode(c["grad_out"]));
    const Tensor eo = decode(c["out"]), eg = decode(c["grad_input"]);
    if (bits_out)
      EXPECT_TRUE(same_bits(out, eo)) << name;
    else
      EXPECT_TRUE(close(out, eo, tol, name + " out"));
    if (bits_grad)
      EXPECT_TRUE(same_bits(input.grad(), eg)) << name;
    else
      EXPECT_TRUE(close(input.grad(), eg, tol, name + " grad"));
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(nn_section("loss").size()));
  EXPECT_GE(checked, 92);
}

TEST(NNLoss, ModulesMatchFunctions) {
  manual_seed(4);
  Tensor x = randn({6, 4}), t = randint(0, 4, {6}), w = rand({4}) + 0.5;
  nn::CrossEntropyLoss ce(w, 2, nn::Reduction::Sum, 0.1);
  EXPECT_TRUE(equal(ce(x, t), F::cross_entropy(x, t, w, 2, nn::Reduction::Sum, 0.1)));
  EXPECT_EQ(ce.named_buffers().size(), 1u);
  nn::NLLLoss nll;
  EXPECT_TRUE(equal(nll(x.log_softmax(1), t), F::nll_loss(x.log_softmax(1), t)));
  nn::L1Loss l1(nn::Reduction::None);
  Tensor y = randn({6, 4});
  EXPECT_TRUE(equal(l1(x, y), (x - y).abs()));
  EXPECT_TRUE(equal(nn::SmoothL1Loss(nn::Reduction::Sum, 0.5)(x, y), F::smooth_l1_loss(x, y, nn::Reduction::Sum, 0.5)));
  EXPECT_TRUE(equal(nn::HuberLoss(nn::Reduction::None, 2.0)(x, y), F::huber_loss(x, y, nn::Reduction::None, 2.0)));
  const Tensor p = rand({6, 4}), q = rand({6, 4});
  nn::BCELoss bcel(w);
  EXPECT_TRUE(equal(bcel(p, q), F::binary_cross_entropy(p, q, w)));
  EXPECT_EQ(bcel.named_buffers().size(), 1u);
  EXPECT_TRUE(equal(nn::KLDivLoss("batchmean", true)(x, y), F::kl_div(x, y, "batchmean", true)));
  const Tensor sign = tensor({1.0f, -1.0f, 1.0f, 1.0f, -1.0f, -1.0f});
  EXPECT_TRUE(equal(nn::MarginRankingLoss(0.1)(x.select(1, 0), y.select(1, 0), sign),
                    F::margin_ranking_loss(x.select(1, 0), y.select(1, 0), sign, 0.1)));
  EXPECT_TRUE(equal(nn::CosineEmbeddingLoss(0.2, nn::Reduction::Sum)(x, y, sign),
                    F::cosine_embedding_loss(x, y, sign, 0.2, nn::Reduction::Sum)));
  nn::BCEWithLogitsLoss bce(Tensor(), nn::Reduction::Mean, ones({4}) * 2);
  EXPECT_TRUE(equal(bce(x, rand({6, 4}) * 0 + 1), F::binary_cross_entropy_with_logits(
                                                      x, ones({6, 4}), Tensor(), nn::Reduction::Mean, ones({4}) * 2)));
}

TEST(NNLoss, CrossEntropyIsLogSoftmaxPlusNll) {
  manual_seed(5);
  Tensor x = randn({5, 7});
  Tensor t = tensor({0, 6, 3, 3, 1});
  EXPECT_TRUE(equal(F::cross_entropy(x, t), F::nll_loss(x.log_softmax(1), t)));
  // ignored targets contribute nothing and are not counted in the mean
  Tensor ti = tensor({0, -100, 3, -100, 1});
  const Tensor per = F::cross_entropy(x, ti, Tensor(), -100, nn::Reduction::None);
  EXPECT_EQ(per[1].item<float>(), 0.0f);
  EXPECT_EQ(per[3].item<float>(), 0.0f);
  EXPECT_FLOAT_EQ(F::cross_entropy(x, ti).item<float>(), per.sum().item<float>() / 3);
  // everything ignored: 0 / 0, as PyTorch
  EXPECT_TRUE(std::isnan(F::cross_entropy(x, full({5}, int64_t(-100)), Tensor()).item<float>()));
}

// cross_entropy with class targets is one node (cross_entropy_loss) whose forward and gradient
// are log_softmax then nll_loss's, bit for bit: batched, spatial and unbatched, weighted or not,
// ignored targets, every reduction, float32 and float64.
TEST(NNLoss, CrossEntropyNodeHasLogSoftmaxAndNllBits) {
  manual_seed(11);
  struct Case {
    Shape input;
    bool weighted;
  };
  for (const Case& k : {Case{{6, 5}, false}, Case{{6, 5}, true}, Case{{3, 21, 7, 9}, false}, Case{{3, 21, 7, 9}, true},
                        Case{{5}, false}, Case{{5}, true}, Case{{2, 4, 3, 2, 5}, true},
                        Case{{2, 33000, 3}, true}}) {  // lines longer than one chunk
    for (ScalarType dt : {kFloat32, kFloat64}) {
      for (nn::Reduction red : {nn::Reduction::Mean, nn::Reduction::Sum, nn::Reduction::None}) {
        const int64_t C = k.input.size() == 1 ? k.input[0] : k.input[1];
        Shape ts = k.input;
        ts.erase(ts.begin() + (k.input.size() == 1 ? 0 : 1));
        Tensor t = randint(0, C, ts);
        t = where(rand(ts).lt(0.2), full(ts, int64_t(-100)), t);  // some ignored
        const Tensor w = k.weighted ? rand({C}, dt) + 0.5 : Tensor();
        Tensor x = randn(k.input, dt) * 3.0;
        if (x.numel() > 20) {  // special values: a NaN, infinities (lines of NaN, 0 and -inf results)
          const Tensor flat = x.view({-1});
          flat.select(0, 3).fill_(std::numeric_limits<double>::quiet_NaN());
          flat.select(0, 7).fill_(std::numeric_limits<double>::infinity());
          flat.select(0, 11).fill_(-std::numeric_limits<double>::infinity());
        }
        x.requires_grad_();
        Tensor x2 = x.detach().clone().requires_grad_();
        const Tensor got = F::cross_entropy(x, t, w, -100, red);
        const Tensor want = F::nll_loss(x2.log_softmax(k.input.size() == 1 ? 0 : 1), t, w, -100, red);
        const std::string what = std::to_string(k.input.size()) + "-D C=" + std::to_string(C) +
                                 (k.weighted ? " weighted " : " ") + dtype_name(dt) + " reduction " +
                                 std::to_string(int(red));
        EXPECT_EQ(fingerprint(got), fingerprint(want)) << what;
        {
          NoGradGuard no_grad;  // the forward alone keeps no log-probabilities, and the same bits
          EXPECT_EQ(fingerprint(F::cross_entropy(x, t, w, -100, red)), fingerprint(want)) << what << " no grad";
        }
        const Tensor up = randn(got.sizes(), dt);
        got.backward(up);
        want.backward(up);
        EXPECT_EQ(fingerprint(x.grad()), fingerprint(x2.grad())) << what;
        if (red == nn::Reduction::None) {
          EXPECT_EQ(got.grad_fn_name(), "CrossEntropyLossBackward0") << what;
        }
      }
    }
  }
}

TEST(NNLoss, BceWithLogitsIsStableForLargeLogits) {
  Tensor z = tensor({100.0, -100.0, 0.0});
  Tensor t = tensor({0.0, 1.0, 1.0});
  const std::vector<float> l =
      to_vector<float>(F::binary_cross_entropy_with_logits(z, t, Tensor(), nn::Reduction::None));
  EXPECT_FLOAT_EQ(l[0], 100.0f);
  EXPECT_FLOAT_EQ(l[1], 100.0f);
  EXPECT_FLOAT_EQ(l[2], std::log(2.0f));
  Tensor zg = z.clone().requires_grad_();
  F::binary_cross_entropy_with_logits(zg, t, Tensor(), nn::Reduction::Sum).backward();
  const std::vector<float> g = to_vector<float>(zg.grad());  // sigmoid(z) - t
  EXPECT_FLOAT_EQ(g[0], 1.0f);
  EXPECT_FLOAT_EQ(g[1], -1.0f);
  EXPECT_FLOAT_EQ(g[2], -0.5f);
}

TEST(NNLoss, SameBitsForAnyThreadCount) {
  auto run = [](int threads) {
    const int saved = get_num_threads();
    set_num_threads(threads);
    manual_seed(9);
    Tensor x = randn({512, 300}).requires_grad_();
    Tensor t = randint(0, 300, {512});
    Tensor l = F::cross_entropy(x, t, rand({300}), -100, nn::Reduction::Mean, 0.05);
    l.backward();
    set_num_threads(saved);
    return std::make_pair(l.detach(), x.grad());
  };
  const auto a = run(1), b = run(5);
  EXPECT_TRUE(equal(a.first, b.first));
  EXPECT_TRUE(equal(a.second, b.second));
}

TEST(NNLoss, BadInputNamesTheOp) {
  Tensor x = randn({4, 3});
  // a floating target is class probabilities, of input's shape
  EXPECT_DITTO_ERROR(F::cross_entropy(x, tensor({0.0, 1.0, 2.0, 1.0})), "[cross_entropy]",
                     "target shape to match input: (4, 3), target: (4,)");
  EXPECT_DITTO_ERROR(F::cross_entropy(x, rand({4, 3}), Tensor(), 1), "[cross_entropy]",
                     "ignore_index is not supported for floating point target");
  EXPECT_DITTO_ERROR(F::smooth_l1_loss(x, randn({3, 4})), "[smooth_l1_loss]", "must have the same shape");
  EXPECT_DITTO_ERROR(F::smooth_l1_loss(x, x, nn::Reduction::Mean, -1.0), "[smooth_l1_loss]",
                     "negative values for beta");
  EXPECT_DITTO_ERROR(F::huber_loss(x, x, nn::Reduction::Mean, 0.0), "[huber_loss]", "non-positive values for delta");
  EXPECT_DITTO_ERROR(F::binary_cross_entropy(x, rand({4, 3})), "[binary_cross_entropy]", "between 0 and 1");
  EXPECT_DITTO_ERROR(F::kl_div(x, x, "avg"), "[kl_div]", "avg is not a valid value for reduction");
  EXPECT_DITTO_ERROR(F::margin_ranking_loss(x, x, ones({4})), "[margin_ranking_loss]", "same dimension");
  EXPECT_DITTO_ERROR(F::cosine_embedding_loss(x, randn({4, 2}), ones({4})), "[cosine_embedding_loss]", "same shape");
  EXPECT_DITTO_ERROR(nn::CrossEntropyLoss()(x, tensor({0, 1, 2, 1}).to(kInt32)), "[cross_entropy]", "int64");
  EXPECT_DITTO_ERROR(F::cross_entropy(x, tensor({0, 1, 5, 1})), "[nll_loss] target 5 is out of bounds for 3 classes");
  EXPECT_DITTO_ERROR(F::nll_loss(x, tensor({0, -1, 2, 1})), "[nll_loss] target -1 is out of bounds for 3 classes");
  EXPECT_DITTO_ERROR(F::nll_loss(x, tensor({0, 1, 2})), "[nll_loss]", "batch_size");
  EXPECT_DITTO_ERROR(F::nll_loss(randn({2, 3, 4}), tensor({{0, 1, 2}, {0, 1, 2}})), "[nll_loss]", "size mismatch");
  EXPECT_DITTO_ERROR(F::nll_loss(x, tensor({0, 1, 2, 1}), ones({2})), "[nll_loss]", "weight");
  EXPECT_DITTO_ERROR(F::nll_loss(tensor({1, 2}), tensor({0, 1})), "[nll_loss]", "floating");
  EXPECT_DITTO_ERROR(F::nll_loss(randn({}), tensor(0)), "[nll_loss]");
  EXPECT_DITTO_ERROR(F::cross_entropy(x, tensor({0, 1, 2, 1}), Tensor(), -100, nn::Reduction::Mean, 1.5),
                     "[cross_entropy]", "label_smoothing");
  EXPECT_DITTO_ERROR(nn::CrossEntropyLoss(Tensor(), -100, nn::Reduction::Mean, -0.5), "[CrossEntropyLoss]");
  EXPECT_DITTO_ERROR(F::l1_loss(x, randn({3, 4})), "[l1_loss]", "same shape");
  EXPECT_DITTO_ERROR(F::binary_cross_entropy_with_logits(x, randn({4})), "[binary_cross_entropy_with_logits]",
                     "same as input size");
  EXPECT_DITTO_ERROR(F::binary_cross_entropy_with_logits(x, rand({4, 3}), Tensor(), nn::Reduction::Mean, ones({2})),
                     "[binary_cross_entropy_with_logits]");
  EXPECT_DITTO_ERROR(F::binary_cross_entropy_with_logits(x, tensor({{1, 0, 1}, {1, 0, 1}, {1, 0, 1}, {1, 0, 1}})),
                     "[binary_cross_entropy_with_logits]", "floating");
}
