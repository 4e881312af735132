// ctc_loss and nn::CTCLoss (src/ops/loss_ops.cpp, src/cpu/ctc.cpp). The loss is checked against a
// brute-force sum over every alignment, the gradient against finite differences (through
// log_softmax, as PyTorch's gradient assumes: tests/gradcheck.h), the forms of the arguments
// against each other bit for bit, and bad input. Thread and kernel-level invariance: the
// ctc_loss entry of tests/test_invariance.cpp; PyTorch's own results: python/tests/test_ctc.py.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ditto/ditto.h"
#include "gradcheck.h"
#include "guards.h"
#include "nn_golden.h"

using namespace ditto;
namespace F = ditto::nn::functional;
using nn::Reduction;

DITTO_GRADCHECK("_ctc_loss", ({gc_rand({6, 3, 5})}),
                return F::ctc_loss(v[0].log_softmax(2), tensor({{1, 2, 2}, {3, 0, 0}, {4, 4, 1}}), Shape{6, 4, 5},
                                   Shape{3, 1, 2}, 0, Reduction::Sum);)
DITTO_GRADCHECK("_ctc_loss", ({gc_rand({5, 2, 4})}),
                return F::ctc_loss(v[0].log_softmax(2), tensor({1, 1, 3, 2}), Shape{5, 3}, Shape{2, 2}, 3,
                                   Reduction::Mean);)

namespace {
// -log of the sum, over every path of length len through the C labels that collapses (repeats
// merged, then blanks removed) to target, of the path's probability: the definition of the loss.
double brute_force(const Tensor& lp, int64_t b, int64_t len, const std::vector<int64_t>& target, int64_t blank) {
  const int64_t C = lp.size(2);
  const Tensor l = lp.to(kFloat64).contiguous();
  const double* p = l.data_ptr<double>();
  double total = 0;
  std::vector<int64_t> path(static_cast<std::size_t>(len), 0);
  for (;;) {
    std::vector<int64_t> collapsed;
    for (int64_t t = 0; t < len; ++t)
      if (path[t] != blank && (t == 0 || path[t] != path[t - 1])) collapsed.push_back(path[t]);
    if (collapsed == target) {
      double logp = 0;
      for (int64_t t = 0; t < len; ++t) logp += p[(t * lp.size(1) + b) * C + path[t]];
      total += std::exp(logp);
    }
    int64_t t = 0;  // next path, as an odometer over t
    while (t < len && ++path[t] == C) path[t++] = 0;
    if (t == len) break;
  }
  return -std::log(total);
}

bool same_bits(const Tensor& a, const Tensor& b) { return fingerprint(a) == fingerprint(b); }
}  // namespace

TEST(CtcLoss, IsMinusTheLogOfTheSumOverAlignments) {
  manual_seed(3);
  const Tensor lp = randn({6, 5, 3}, kFloat64).log_softmax(2);
  // repeated labels (need a blank between them), an empty target, a short input, blank = 2
  const std::vector<std::vector<int64_t>> targets{{0, 1}, {1, 1}, {}, {1, 0, 1}, {0}};
  const Shape il{6, 6, 4, 5, 1}, tl{2, 2, 0, 3, 1};
  std::vector<int64_t> flat;
  for (const auto& t : targets) flat.insert(flat.end(), t.begin(), t.end());
  const Tensor loss = F::ctc_loss(lp, tensor(flat), il, tl, 2, Reduction::None);
  ASSERT_EQ(loss.sizes(), (Shape{5}));
  for (int64_t b = 0; b < 5; ++b) {
    const double want = brute_force(lp, b, il[b], targets[b], 2), got = loss[b].item<double>();
    EXPECT_NEAR(got, want, 1e-12 * std::abs(want)) << "item " << b;
  }
  // float32: the same recursion in float
  const Tensor loss32 = F::ctc_loss(lp.to(kFloat32), tensor(flat), il, tl, 2, Reduction::None);
  for (int64_t b = 0; b < 5; ++b)
    EXPECT_NEAR(loss32[b].item<float>(), loss[b].item<double>(), 1e-5 * std::abs(loss[b].item<double>()));
}

TEST(CtcLoss, ImpossibleAlignmentsAreInfiniteOrZeroed) {
  manual_seed(4);
  const Tensor logits = randn({4, 3, 5}, kFloat64).requires_grad_();
  const Tensor lp = logits.log_softmax(2);
  // item 1 needs 2 + 1 (a blank between the repeated 3s) > 2 steps; item 2 has no input at all
  const Tensor targets = tensor({{1, 2}, {3, 3}, {0, 0}});
  const Shape il{4, 2, 0}, tl{2, 2, 0};
  const Tensor loss = F::ctc_loss(lp, targets, il, tl, 0, Reduction::None);
  EXPECT_TRUE(std::isfinite(loss[0].item<double>()));
  EXPECT_EQ(loss[1].item<double>(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(loss[2].item<double>(), 0.0);  // the empty target from no input: one empty path
  EXPECT_EQ(F::ctc_loss(lp, targets, Shape{4, 2, 0}, Shape{2, 2, 1}, 0, Reduction::None)[2].item<double>(),
            std::numeric_limits<double>::infinity());

  const Tensor zeroed = F::ctc_loss(lp, targets, il, tl, 0, Reduction::None, true);
  EXPECT_EQ(zeroed[0].item<double>(), loss[0].item<double>());
  EXPECT_EQ(zeroed[1].item<double>(), 0.0);
  zeroed.sum().backward();
  const Tensor g = logits.grad();
  EXPECT_TRUE(equal(g.select(1, 1), zeros({4, 5}, kFloat64)));                // the impossible item
  EXPECT_TRUE(equal(g.select(1, 2), zeros({4, 5}, kFloat64)));                // no steps
  EXPECT_FALSE(equal(g.select(1, 0), zeros({4, 5}, kFloat64)));               // the possible one learns
  EXPECT_NEAR(g.select(1, 0).sum(1).abs().max().item<double>(), 0.0, 1e-12);  // rows of softmax - posterior
}

TEST(CtcLoss, StepsPastAnInputLengthGetNoGradient) {
  const Tensor logits = randn({7, 2, 4}).requires_grad_();
  F::ctc_loss(logits.log_softmax(2), tensor({{1, 2}, {3, 1}}), Shape{7, 4}, Shape{2, 2}).backward();
  EXPECT_TRUE(equal(logits.grad().slice(0, 4, 7).select(1, 1), zeros({3, 4})));
  EXPECT_FALSE(equal(logits.grad().slice(0, 0, 4).select(1, 1), zeros({4, 4})));
}

TEST(CtcLoss, EveryFormOfTheArgumentsGivesTheSameBits) {
  manual_seed(5);
  const Tensor lp = randn({30, 4, 6}).log_softmax(2);
  const Tensor padded = tensor({{1, 2, 3, 0, 0}, {5, 5, 5, 5, 5}, {2, 0, 0, 0, 0}, {4, 1, 4, 1, 9}});
  const Shape il{30, 25, 30, 12}, tl{3, 5, 1, 4};
  const Tensor concatenated = tensor({1, 2, 3, 5, 5, 5, 5, 5, 2, 4, 1, 4, 1});
  for (Reduction r : {Reduction::None, Reduction::Sum, Reduction::Mean}) {
    const Tensor want = F::ctc_loss(lp, padded, il, tl, 0, r);
    EXPECT_TRUE(same_bits(F::ctc_loss(lp, concatenated, il, tl, 0, r), want));
    EXPECT_TRUE(same_bits(F::ctc_loss(lp, padded.to(kInt32), il, tl, 0, r), want));
    EXPECT_TRUE(same_bits(F::ctc_loss(lp, padded, tensor(il), tensor(tl).to(kInt32), 0, r), want));
    EXPECT_TRUE(same_bits(nn::CTCLoss(0, r)(lp, padded, il, tl), want));
    // a non-contiguous log_probs: the same values
    EXPECT_TRUE(same_bits(F::ctc_loss(lp.transpose(1, 2).contiguous().transpose(1, 2), padded, il, tl, 0, r), want));
  }
  // mean: each loss over its target length, then the average
  const Tensor none = F::ctc_loss(lp, padded, il, tl, 0, Reduction::None);
  EXPECT_TRUE(same_bits(F::ctc_loss(lp, padded, il, tl), (none / tensor({3.0f, 5.0f, 1.0f, 4.0f})).mean()));
  // unbatched: (T, C) with 1-D targets and one length each, a 0-D loss
  const Tensor one = F::ctc_loss(lp.select(1, 3), tensor({4, 1, 4, 1}), Shape{12}, Shape{4}, 0, Reduction::None);
  EXPECT_EQ(one.dim(), 0);
  EXPECT_TRUE(same_bits(one, none[3]));
  EXPECT_TRUE(same_bits(F::ctc_loss(lp.select(1, 3), tensor({4, 1, 4, 1}), scalar_tensor(12, kInt64),
                                    scalar_tensor(4, kInt64), 0, Reduction::None),
                        one));
  // the batch: an item's loss does not depend on the others
  EXPECT_TRUE(
      same_bits(F::ctc_loss(lp.slice(1, 1, 3), padded.slice(0, 1, 3), Shape{25, 30}, Shape{5, 1}, 0, Reduction::None),
                none.slice(0, 1, 3)));
}

TEST(CtcLoss, SameBitsWithAndWithoutDeterministicModeAndForEveryThreadCount) {
  ditto::testing::ConfigGuard guard;
  manual_seed(6);
  const Tensor logits = randn({50, 9, 12}, kFloat32);
  const Tensor targets = randint(1, 12, {9, 20});
  const Shape il{50, 40, 50, 50, 10, 45, 50, 30, 50}, tl{20, 15, 0, 20, 4, 19, 1, 11, 20};
  auto run = [&] {
    const Tensor x = logits.detach().requires_grad_();
    const Tensor loss = F::ctc_loss(x.log_softmax(2), targets, il, tl);
    loss.backward();
    return fingerprint(std::vector<Tensor>{loss, x.grad()});
  };
  set_num_threads(1);
  const uint64_t want = run();
  for (int threads : {2, 3, 4}) {
    set_num_threads(threads);
    EXPECT_EQ(run(), want) << threads << " threads";
  }
  use_deterministic_algorithms(true);  // never refused: a deterministic kernel forward and backward
  EXPECT_EQ(run(), want);
}

TEST(CtcLoss, RejectsBadInput) {
  const Tensor lp = randn({5, 2, 4}).log_softmax(2);
  const Tensor tg = tensor({{1, 2}, {3, 1}});
  const Shape il{5, 5}, tl{2, 2};
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tg, il, tl, 4), "[ctc_loss]", "blank must be in label range");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tg, il, tl, -1), "blank must be in label range");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tg, Shape{6, 5}, tl), "input_lengths to have value at most 5, but got value 6");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tg, Shape{-1, 5}, tl), "input_lengths to have value at least 0");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tg, il, Shape{-2, 2}), "target_lengths to have value at least 0");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tg, Shape{5}, tl), "input_lengths must be of size batch_size");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tg, il, Shape{2, 2, 2}), "target_lengths must be of size batch_size");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tg, il, Shape{3, 2}), "size at least 3 at dimension 1, but got size 2");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tensor({1, 2, 3}), il, tl), "size 4 at dimension 0, but got size 3");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tensor({{1, 2}}), il, tl), "size 2 at dimension 0, but got size 1");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tensor({{1, 4}, {3, 1}}), il, tl), "target 4 of batch item 0 is out of range");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tensor({{1, 2}, {-1, 1}}), il, tl), "target -1 of batch item 1");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tg.to(kFloat32), il, tl), "targets must be integers");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tg.unsqueeze(0), il, tl), "expected targets of shape");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp.unsqueeze(0), tg, il, tl), "expected log_probs of shape (T, N, C)");
  EXPECT_DITTO_ERROR(F::ctc_loss(tg.unsqueeze(0).expand({5, 2, 2}), tg, il, tl), "not implemented for 'Long'");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tg, tensor({5.0, 5.0}), tensor(tl)), "input_lengths must be integral");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, tg, tensor(il), tensor({{2, 2}})), "target_lengths must be 0-D or 1-D");
  EXPECT_DITTO_ERROR(F::ctc_loss(lp, Tensor(), il, tl), "[ctc_loss]");
  // padding past a target's length is never read, whatever it holds
  EXPECT_TRUE(same_bits(F::ctc_loss(lp, tensor({{1, 2, -7}, {3, 1, 99}}), il, tl), F::ctc_loss(lp, tg, il, tl)));
}
