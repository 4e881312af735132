// scaled_dot_product_attention: the fused kernel against the composition it replaces, the
// properties Note [Attention order] promises (a query's bits do not depend on the batch, the other
// queries or a KV cache; nor on the thread count, checked here and by the invariance corpus at
// every level), and bad input. PyTorch's values: python/tests/test_attention.py.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ditto/ditto.h"
#include "expect_error.h"

using namespace ditto;
using ditto::testing::expect_error;
namespace F = ditto::nn::functional;

namespace {

// softmax(q k^T * scale + mask) v from the ops, in float64
Tensor reference(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool causal) {
  const Tensor q64 = q.to(kFloat64), k64 = k.to(kFloat64), v64 = v.to(kFloat64);
  Tensor s = matmul(q64, k64.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(q.size(-1))));
  if (causal) s = s.masked_fill(triu(ones({q.size(-2), k.size(-2)}, kBool), 1), -INFINITY);
  if (mask.defined())
    s = mask.dtype() == kBool ? s.masked_fill(mask.eq(Scalar(false)), -INFINITY) : s + mask.to(kFloat64);
  return matmul(softmax(s, -1), v64);
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  return (a.to(kFloat64) - b.to(kFloat64)).abs().max().item<double>();
}

}  // namespace

TEST(Attention, FusedMatchesTheComposition) {
  manual_seed(1);
  struct Case {
    Shape q, k;
    int64_t ev;
    bool causal;
    int mask;  // 0 none, 1 bool, 2 float
  };
  for (const Case& c :
       {Case{{2, 3, 70, 16}, {2, 3, 130, 16}, 8, false, 0}, Case{{3, 130, 32}, {3, 130, 32}, 32, true, 0},
        Case{{4, 65, 8}, {4, 200, 8}, 8, false, 1}, Case{{2, 1, 5, 8}, {2, 3, 7, 8}, 4, false, 2}}) {
    Shape vs = c.k;
    vs.back() = c.ev;
    for (ScalarType t : {kFloat32, kFloat64}) {
      Tensor q = randn(c.q, t).requires_grad_(), k = randn(c.k, t).requires_grad_(), v = randn(vs, t).requires_grad_();
      Tensor mask;
      const int64_t L = c.q[c.q.size() - 2], S = c.k[c.k.size() - 2];
      if (c.mask == 1) mask = (rand({L, S}) > 0.3) + (arange(S).view({1, S}) == 0);  // key 0 always kept
      if (c.mask == 2) mask = randn({L, S}, t);
      const Tensor out = F::scaled_dot_product_attention(q, k, v, mask, 0.0, c.causal);
      EXPECT_EQ(out.grad_fn_name(), "ScaledDotProductFlashAttentionBackward0");
      const double tol = t == kFloat32 ? 2e-5 : 1e-12;
      EXPECT_LT(max_abs_diff(out, reference(q, k, v, mask, c.causal)), tol);
      const Tensor g = randn(out.sizes(), t);
      out.backward(g);
      const Tensor q2 = q.detach().to(kFloat64).requires_grad_(), k2 = k.detach().to(kFloat64).requires_grad_(),
                   v2 = v.detach().to(kFloat64).requires_grad_();
      reference(q2, k2, v2, mask, c.causal).backward(g.to(kFloat64));
      EXPECT_LT(max_abs_diff(q.grad(), q2.grad()), 10 * tol);
      EXPECT_LT(max_abs_diff(k.grad(), k2.grad()), 10 * tol);  // broadcast batch dims summed back
      EXPECT_LT(max_abs_diff(v.grad(), v2.grad()), 10 * tol);
    }
  }
}

TEST(Attention, AQuerysBitsDependOnlyOnItsOwnKeysNotTheBatchOrACache) {
  manual_seed(2);
  const int64_t T = 150, H = 2, E = 16;
  const Tensor q = randn({4, H, T, E}), k = randn({4, H, T, E}), v = randn({4, H, T, E});
  const Tensor batch = F::scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
  // the same sequence alone, and with a different number of heads computed together
  const Tensor alone =
      F::scaled_dot_product_attention(q.narrow(0, 2, 1), k.narrow(0, 2, 1), v.narrow(0, 2, 1), Tensor(), 0.0, true);
  EXPECT_TRUE(equal(alone, batch.narrow(0, 2, 1)));
  const Tensor one_head = F::scaled_dot_product_attention(q[1].narrow(0, 1, 1), k[1].narrow(0, 1, 1),
                                                          v[1].narrow(0, 1, 1), Tensor(), 0.0, true);
  EXPECT_TRUE(equal(one_head, batch[1].narrow(0, 1, 1)));
  // incremental decoding: query t against the cached keys 0..t, without a mask, is the full
  // causal computation's row t (at block boundaries and inside blocks)
  for (int64_t t : {0, 5, 63, 64, 100, 149}) {
    const Tensor step =
        F::scaled_dot_product_attention(q.narrow(2, t, 1), k.narrow(2, 0, t + 1), v.narrow(2, 0, t + 1));
    EXPECT_TRUE(equal(step, batch.narrow(2, t, 1))) << "position " << t;
  }
  // a padded batch: sequence lengths 1, 7, 64 and 150 in one (4, T) batch with a key padding
  // mask; each real row equals the sequence computed alone
  const int64_t lens[] = {1, 7, 64, 150};
  Tensor keep = zeros({4, 1, T, T}, kBool);
  for (int b = 0; b < 4; ++b) keep[b].narrow(-1, 0, lens[b]).fill_(true);
  keep = keep * tril(ones({T, T}, kBool));
  const Tensor padded = F::scaled_dot_product_attention(q, k, v, keep);
  for (int b = 0; b < 4; ++b) {
    const int64_t n = lens[b];
    const Tensor own =
        F::scaled_dot_product_attention(q.narrow(0, b, 1).narrow(2, 0, n), k.narrow(0, b, 1).narrow(2, 0, n),
                                        v.narrow(0, b, 1).narrow(2, 0, n), Tensor(), 0.0, true);
    EXPECT_TRUE(equal(own, padded.narrow(0, b, 1).narrow(2, 0, n))) << "length " << n;
  }
}

TEST(Attention, SameBitsForAnyThreadCount) {
  manual_seed(3);
  Tensor q = randn({3, 2, 130, 24}).requires_grad_(), k = randn({3, 2, 130, 24}).requires_grad_(),
         v = randn({3, 2, 130, 24}).requires_grad_();
  Tensor first, first_grad;
  for (int threads : {1, 2, 3, 8}) {
    set_num_threads(threads);
    q.mutable_grad() = Tensor();
    const Tensor out = F::scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
    out.sum().backward();
    if (!first.defined()) {
      first = out.detach();
      first_grad = q.grad();
    } else {
      EXPECT_TRUE(equal(out, first)) << threads << " threads";
      EXPECT_TRUE(equal(q.grad(), first_grad)) << threads << " threads";
    }
  }
  set_num_threads(2);
}

TEST(Attention, EdgeCases) {
  // every key masked: NaN, as softmax of all -inf; no keys: zeros (the composition's matmul)
  const Tensor q = randn({1, 3, 4}), k = randn({1, 5, 4}), v = randn({1, 5, 2});
  const Tensor none = F::scaled_dot_product_attention(q, k, v, zeros({3, 5}, kBool));
  EXPECT_TRUE(std::isnan(none[0][1][0].item<float>()));
  const Tensor empty = F::scaled_dot_product_attention(q, zeros({1, 0, 4}), zeros({1, 0, 2}));
  EXPECT_TRUE(equal(empty, zeros({1, 3, 2})));
  EXPECT_EQ(F::scaled_dot_product_attention(zeros({2, 0, 4}), k.expand({2, 5, 4}), v.expand({2, 5, 2})).sizes(),
            (Shape{2, 0, 2}));
  // the scale argument, and dropout drawn as dropout draws it on the weights
  const Tensor s = F::scaled_dot_product_attention(q, k, v, Tensor(), 0.0, false, 0.3);
  const Tensor weights = softmax(matmul(q, k.transpose(-2, -1)) * 0.3, -1);
  EXPECT_LT(max_abs_diff(s, matmul(weights, v)), 1e-6);
  manual_seed(7);
  const Tensor dropped = F::scaled_dot_product_attention(q, k, v, Tensor(), 0.4);
  manual_seed(7);
  const Tensor expect = matmul(F::dropout(softmax(matmul(q, k.transpose(-2, -1)) * 0.5, -1), 0.4), v);
  EXPECT_TRUE(equal(dropped, expect));
}

TEST(Attention, BadInputRaises) {
  const Tensor q = randn({2, 3, 4}), k = randn({2, 5, 4}), v = randn({2, 5, 6});
  const char* op = "[scaled_dot_product_attention]";
  expect_error([&] { F::scaled_dot_product_attention(q, randn({2, 5, 3}), v); }, op, "head dims");
  expect_error([&] { F::scaled_dot_product_attention(q, k, randn({2, 4, 6})); }, op, "same sequence length");
  expect_error([&] { F::scaled_dot_product_attention(q, k.to(kFloat64), v); }, op, "same dtype");
  expect_error([&] { F::scaled_dot_product_attention(q, k, v, ones({3, 4}, kBool)); }, op, "cannot be broadcast");
  expect_error([&] { F::scaled_dot_product_attention(q, k, v, ones({4, 2, 3, 5}, kBool)); }, op, "does not broadcast");
  expect_error([&] { F::scaled_dot_product_attention(q, k, v, ones({3, 5}, kInt64)); }, op, "attn_mask dtype");
  expect_error(
      [&] {
        F::scaled_dot_product_attention(q, k, v, ones({3, 5}, kBool), 0.0, true);
      },
      op, "should not be set when is_causal=True");
  expect_error([&] { F::scaled_dot_product_attention(q, randn({3, 5, 4}), v); }, op, "broadcast");
  expect_error([&] { F::scaled_dot_product_attention(q, k, v, Tensor(), 1.0); }, op, "dropout_p");
  expect_error([&] { F::scaled_dot_product_attention(randn({4}), k, v); }, op, "at least 2 dims");
  expect_error([&] { F::scaled_dot_product_attention(q.to(kInt64), k.to(kInt64), v.to(kInt64)); }, op, "floating");
}
