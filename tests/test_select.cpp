// Selection by data (src/ops/select_ops.cpp): nonzero, argwhere, where(condition), masked_select,
// masked_scatter, take, take_along_dim, repeat_interleave, index_fill. Results, gradients (each
// summed in index order where elements repeat), the same bits at every thread count and under the
// mode, and bad input. PyTorch's own samples: the OpInfo sweep (python/tests/sweep.py).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ditto/ditto.h"
#include "expect_error.h"
#include "gradcheck.h"
#include "guards.h"

using namespace ditto;
using ditto::testing::expect_error;

TEST(Select, NonzeroListsCoordinatesInRowMajorOrder) {
  const Tensor x = tensor({{0.0f, NAN, -0.0f}, {2.0f, 0.0f, 1.0f}});
  EXPECT_TRUE(equal(nonzero(x), tensor({{0, 1}, {1, 0}, {1, 2}})));  // NaN counts, -0.0 does not
  EXPECT_TRUE(equal(argwhere(x), nonzero(x)));
  const std::vector<Tensor> t = where(x);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_TRUE(equal(t[0], tensor({0, 1, 1})));
  EXPECT_TRUE(equal(t[1], tensor({1, 0, 2})));
  EXPECT_EQ(nonzero(scalar_tensor(3.0)).sizes(), (Shape{1, 0}));
  EXPECT_TRUE(equal(nonzero_as_tuple(scalar_tensor(3.0))[0], tensor({0})));
  EXPECT_EQ(nonzero(zeros({0, 4})).sizes(), (Shape{0, 2}));
  EXPECT_TRUE(equal(tensor({true, false, true}).nonzero(), tensor({{0}, {2}})));
  // many parts (the kernel counts 65536 elements per task): the same as a plain loop
  ditto::testing::ConfigGuard guard;
  manual_seed(1);
  const Tensor big = randint(0, 3, {5, 70001}).to(kInt32);
  std::vector<int64_t> want;
  const Tensor c = big.contiguous();
  const int32_t* p = c.data_ptr<int32_t>();
  for (int64_t i = 0; i < c.numel(); ++i)
    if (p[i] != 0) want.insert(want.end(), {i / 70001, i % 70001});
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    const Tensor nz = nonzero(big);
    ASSERT_EQ(nz.numel(), static_cast<int64_t>(want.size()));
    EXPECT_TRUE(equal(nz.reshape({-1}), tensor(want))) << threads << " threads";
  }
}

TEST(Select, MaskedSelectAndScatterFollowTheMaskInRowMajorOrder) {
  const Tensor x = arange(6.0).view({2, 3}).requires_grad_();
  const Tensor mask = tensor({true, false, true});  // broadcast over the rows
  const Tensor sel = masked_select(x, mask);
  EXPECT_TRUE(equal(sel, tensor({0.0f, 2.0f, 3.0f, 5.0f})));
  sel.backward(tensor({1.0f, 2.0f, 3.0f, 4.0f}));
  EXPECT_TRUE(equal(x.grad(), tensor({{1.0f, 0.0f, 2.0f}, {3.0f, 0.0f, 4.0f}})));
  // a mask broadcast over a smaller x: its gradient sums the copies
  const Tensor row = tensor({1.0f, 2.0f}).requires_grad_();
  masked_select(row, tensor({{true, true}, {false, true}})).sum().backward();
  EXPECT_TRUE(equal(row.grad(), tensor({1.0f, 2.0f})));

  const Tensor y = zeros({2, 3}).requires_grad_(), src = tensor({9.0f, 8.0f, 7.0f, 6.0f, 5.0f}).requires_grad_();
  const Tensor out = masked_scatter(y, mask, src);
  EXPECT_TRUE(equal(out, tensor({{9.0f, 0.0f, 8.0f}, {7.0f, 0.0f, 6.0f}})));
  out.backward(arange(1.0, 7.0).view({2, 3}));
  EXPECT_TRUE(equal(y.grad(), tensor({{0.0f, 2.0f, 0.0f}, {0.0f, 5.0f, 0.0f}})));
  EXPECT_TRUE(equal(src.grad(), tensor({1.0f, 3.0f, 4.0f, 6.0f, 0.0f})));  // the fifth was not used
  Tensor z = zeros({3});
  z.masked_scatter_(tensor({false, true, true}), tensor({4.0f, 5.0f}));
  EXPECT_TRUE(equal(z, tensor({0.0f, 4.0f, 5.0f})));

  expect_error([] { (void)masked_select(zeros({3}), tensor({1, 0, 1})); }, "[masked_select]", "BoolTensor");
  expect_error([] { (void)masked_select(zeros({3}), tensor({true, false})); }, "[masked_select]", "");
  expect_error(
      [] {
        (void)masked_scatter(zeros({3}), tensor({true, true, false}), tensor({1.0f}));
      },
      "[masked_scatter]", "Number of elements of source < number of ones in mask");
  expect_error(
      [] {
        (void)masked_scatter(zeros({3}), tensor({true, true, false}), tensor({1, 2}));
      },
      "[masked_scatter]", "same dtypes but gotFloat and Long");
}

TEST(Select, TakeAndTakeAlongDim) {
  const Tensor x = arange(6.0).view({2, 3}).requires_grad_();
  const Tensor t = take(x, tensor({{0, 5}, {-1, 0}}));
  EXPECT_TRUE(equal(t, tensor({{0.0f, 5.0f}, {5.0f, 0.0f}})));
  t.backward(tensor({{1.0f, 2.0f}, {3.0f, 4.0f}}));
  EXPECT_TRUE(equal(x.grad(), tensor({{5.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 5.0f}})));  // repeats add up
  EXPECT_TRUE(equal(x.take(tensor({2})), tensor({2.0f})));
  expect_error(
      [] {
        (void)take(zeros({2, 3}), tensor({6}));
      },
      "[take]", "out of range: tried to access index 6 on a tensor of 6 elements.");
  expect_error([] { (void)take(zeros({2, 3}), tensor({-7})); }, "[take]", "index -7");
  expect_error([] { (void)take(zeros({2, 3}), tensor({1}).to(kInt32)); }, "[take]", "Expected a long tensor");

  const Tensor a = arange(6.0).view({2, 3});
  EXPECT_TRUE(equal(take_along_dim(a, tensor({{0}, {2}}), 1), tensor({{0.0f}, {5.0f}})));
  EXPECT_TRUE(equal(take_along_dim(a, tensor({{2, 0}}), 1), tensor({{2.0f, 0.0f}, {5.0f, 3.0f}})));  // broadcast
  EXPECT_TRUE(equal(take_along_dim(a, tensor({{0}, {2}})), tensor({0.0f, 2.0f})));                   // flattened
  EXPECT_TRUE(equal(take_along_dim(a, argsort(a, 1, true), 1), sort(a, 1, true).first));
  expect_error(
      [] {
        (void)take_along_dim(zeros({2, 3}), tensor({0, 2}), 1);
      },
      "[take_along_dim]", "same number of dimensions, but got 2 dimensions for input, and 1 dimensions for indices");
  expect_error(
      [] {
        (void)take_along_dim(zeros({2, 3}), tensor({{0}}).to(kInt32), 1);
      },
      "[take_along_dim]", "dtype of indices should be Long but got Int");
  expect_error([] { (void)take_along_dim(zeros({2, 3}), tensor({{3}}), 1); }, "[", "out of bounds");
}

TEST(Select, RepeatInterleave) {
  EXPECT_TRUE(equal(repeat_interleave(tensor({2, 0, 1})), tensor({0, 0, 2})));
  const Tensor x = arange(6.0).view({2, 3}).requires_grad_();
  EXPECT_TRUE(
      equal(repeat_interleave(x, 2), tensor({0.0f, 0.0f, 1.0f, 1.0f, 2.0f, 2.0f, 3.0f, 3.0f, 4.0f, 4.0f, 5.0f, 5.0f})));
  const Tensor r = repeat_interleave(x, tensor({1, 2}), 0);
  EXPECT_TRUE(equal(r, tensor({{0.0f, 1.0f, 2.0f}, {3.0f, 4.0f, 5.0f}, {3.0f, 4.0f, 5.0f}})));
  r.backward(ones({3, 3}));
  EXPECT_TRUE(equal(x.grad(), tensor({{1.0f, 1.0f, 1.0f}, {2.0f, 2.0f, 2.0f}})));
  EXPECT_TRUE(equal(x.repeat_interleave(tensor({2}), 1).select(0, 1), tensor({3.0f, 3.0f, 4.0f, 4.0f, 5.0f, 5.0f})));
  EXPECT_EQ(repeat_interleave(x, 0, 1).sizes(), (Shape{2, 0}));
  EXPECT_EQ(repeat_interleave(x, 2, 0, 4).sizes(), (Shape{4, 3}));
  expect_error(
      [] {
        (void)repeat_interleave(tensor({2, -1, 1}));
      },
      "[repeat_interleave]", "repeats can not be negative");
  expect_error(
      [] {
        (void)repeat_interleave(zeros({2, 3}), tensor({1, 2, 3}), 0);
      },
      "[repeat_interleave]", "repeats must have the same size as input along dim");
  expect_error(
      [] {
        (void)repeat_interleave(zeros({2, 3}), tensor({{2}}), 1);
      },
      "[repeat_interleave]", "repeats must be 0-dim or 1-dim tensor");
  expect_error(
      [] {
        (void)repeat_interleave(zeros({2, 3}), tensor({1.0, 2.0}), 0);
      },
      "[repeat_interleave]", "not implemented for 'Float'");
  expect_error([] { (void)repeat_interleave(zeros({2, 3}), 2, 0, 5); }, "[repeat_interleave]", "output_size 5");
}

TEST(Select, IndexFill) {
  const Tensor x = arange(6.0).view({2, 3}).requires_grad_();
  const Tensor f = index_fill(x, 1, tensor({0, -1}), 7.0);
  EXPECT_TRUE(equal(f, tensor({{7.0f, 1.0f, 7.0f}, {7.0f, 4.0f, 7.0f}})));
  f.backward(ones({2, 3}));
  EXPECT_TRUE(equal(x.grad(), tensor({{0.0f, 1.0f, 0.0f}, {0.0f, 1.0f, 0.0f}})));
  EXPECT_TRUE(equal(index_fill(arange(6.0).view({2, 3}), 0, scalar_tensor(1, kInt64), scalar_tensor(-1.0)),
                    tensor({{0.0f, 1.0f, 2.0f}, {-1.0f, -1.0f, -1.0f}})));
  Tensor y = zeros({3}, kInt64);
  y.index_fill_(0, tensor({1, 1}), 5);
  EXPECT_TRUE(equal(y, tensor({0, 5, 0})));
  const Tensor leaf = zeros({3}).requires_grad_();
  expect_error([&] { Tensor(leaf).index_fill_(0, tensor({1}), 1.0); }, "[index_fill_]", "a leaf Variable");
  expect_error(
      [&] {
        Tensor(leaf).masked_scatter_(tensor({true, false, true}), ones({3}));
      },
      "[masked_scatter_]", "a leaf Variable");
  const Tensor base = zeros({3}).requires_grad_();
  Tensor h = base * 1.0;
  h.index_fill_(0, tensor({1}), 2.0);
  h.backward(tensor({1.0f, 2.0f, 3.0f}));
  EXPECT_TRUE(equal(base.grad(), tensor({1.0f, 0.0f, 3.0f})));  // the filled place gets no gradient
  expect_error(
      [] {
        (void)index_fill(zeros({2, 3}), 1, tensor({3}), 7.0);
      },
      "[index_fill]", "index 3 is out of bounds for dimension 1 with size 3");
  expect_error([] { (void)index_fill(zeros({2, 3}), 1, tensor({{0}}), 7.0); }, "[index_fill]", "vector/scalar");
  expect_error(
      [] {
        (void)index_fill(zeros({2, 3}), 1, tensor({0}).to(kInt32), 7.0);
      },
      "[index_fill]", "Expected dtype int64 for index");
  expect_error(
      [] {
        (void)index_fill(zeros({2, 3}), 1, tensor({0}), tensor({7.0}));
      },
      "[index_fill]", "only supports a 0-dimensional value tensor");
}

TEST(Select, NeverRefusedAndTheSameBitsUnderTheMode) {
  ditto::testing::ConfigGuard guard;
  manual_seed(2);
  const Tensor base = randn({300, 40});
  auto run = [&] {
    const Tensor x = base.detach().requires_grad_();
    const Tensor idx = randint(-12000, 12000, {5000});
    const Tensor rep = repeat_interleave(x, randint(0, 4, {300}), 0);
    const Tensor y = masked_select(x, x > 0.5).sum() + take(x, idx).sum() + (rep * rep).sum() +
                     masked_scatter(x, x < 0.0, x.reshape({-1}) * 2.0).sum() +
                     take_along_dim(x, randint(0, 40, {300, 7}), 1).sum() +
                     index_fill(x, 1, randint(-40, 40, {50}), 1.0).sum();
    y.backward();
    return fingerprint(std::vector<Tensor>{y, x.grad(), nonzero(x > 1.0)});
  };
  manual_seed(3);
  const uint64_t want = run();
  for (bool mode : {false, true}) {
    use_deterministic_algorithms(mode);
    for (int threads : {1, 3}) {
      set_num_threads(threads);
      manual_seed(3);
      EXPECT_EQ(run(), want) << "mode " << mode << ", " << threads << " threads";
    }
  }
}

// Advanced indexing (ops.h index / index_put): PyTorch's placement rules, checked against loops.
TEST(Select, AdvancedIndexPlacesTheBroadcastIndicesAsPyTorch) {
  const Tensor x = arange(60.0).view({3, 4, 5});
  auto at = [&](int64_t i, int64_t j, int64_t k) { return x[i][j][k].item<float>(); };
  // one tensor after a full slice: x[:, [0, 2]]
  EXPECT_TRUE(equal(index(x, {Tensor(), tensor({0, 2})}), x.index_select(1, tensor({0, 2}))));
  // two consecutive, broadcast (2, 1) with (3,): x[[[0], [2]], [1, 3, -1]] -> (2, 3, 5)
  const Tensor i0 = tensor({{0}, {2}}), i1 = tensor({1, 3, -1});
  const Tensor r = index(x, {i0, i1});
  ASSERT_EQ(r.sizes(), (Shape{2, 3, 5}));
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t k = 0; k < 5; ++k)
        EXPECT_EQ(r[a][b][k].item<float>(), at(a * 2, std::vector<int64_t>{1, 3, 3}[b], k));
  // not next to each other: x[[0, 1], :, [4, 0]] -> the broadcast dims first, (2, 4)
  const Tensor s = index(x, {tensor({0, 1}), Tensor(), tensor({4, 0})});
  ASSERT_EQ(s.sizes(), (Shape{2, 4}));
  for (int64_t j = 0; j < 4; ++j) {
    EXPECT_EQ(s[0][j].item<float>(), at(0, j, 4));
    EXPECT_EQ(s[1][j].item<float>(), at(1, j, 0));
  }
  // a mask over dims 1 and 2 after a full slice: (3, count)
  const Tensor mask = x[0] > 12.0;
  EXPECT_TRUE(
      equal(index(x, {Tensor(), mask}), x.reshape({3, 20}).index_select(1, nonzero(mask.reshape({-1})).view({-1}))));
  EXPECT_TRUE(equal(x.index({tensor({2})}), x.slice(0, 2, 3)));
  ditto::testing::expect_error(
      [&] {
        (void)index(x, {tensor({0}), tensor({0}), tensor({0}), tensor({0})});
      },
      "[index]", "too many indices for tensor of dimension 3");
  ditto::testing::expect_error(
      [&] {
        (void)index(x, {tensor({0, 1}), tensor({0, 1, 2})});
      },
      "[index]", "shape mismatch: indexing tensors could not be broadcast together");
  ditto::testing::expect_error(
      [&] {
        (void)index(x, {Tensor(), tensor({4})});
      },
      "[index]", "index 4 is out of bounds for dimension 1 with size 4");
  ditto::testing::expect_error([&] { (void)index(x, {tensor({0.5})}); }, "[index]", "tensors used as indices");
}

TEST(Select, AdvancedIndexPutWritesAndAddsInIndexOrder) {
  const Tensor x = zeros({3, 4});
  // x[[0, 2, 0], [1, 3, 1]] = [1, 2, 3]: the repeated (0, 1) keeps the last write
  const Tensor w = index_put(x, {tensor({0, 2, 0}), tensor({1, 3, 1})}, tensor({1.0f, 2.0f, 3.0f}));
  EXPECT_EQ(w[0][1].item<float>(), 3.0f);
  EXPECT_EQ(w[2][3].item<float>(), 2.0f);
  EXPECT_EQ(w.sum().item<float>(), 5.0f);
  const Tensor acc = index_put(x, {tensor({0, 2, 0}), tensor({1, 3, 1})}, tensor({1.0f, 2.0f, 3.0f}), true);
  EXPECT_EQ(acc[0][1].item<float>(), 4.0f);
  // x[:, [3, 0]] = a column broadcast; x[[1], :] via a full slice after it
  EXPECT_TRUE(equal(index_put(x, {Tensor(), tensor({3, 0})}, tensor({{7.0f}, {8.0f}, {9.0f}})).select(1, 0),
                    tensor({7.0f, 8.0f, 9.0f})));
  // in place, with a mask over both dims, values broadcast
  Tensor y = arange(12.0).view({3, 4});
  y.index_put_({y > 8.0}, scalar_tensor(-1.0f));
  EXPECT_EQ(y.eq(-1.0).sum().item<int64_t>(), 3);
  // not consecutive on a 3-D tensor: values take the (b, rest) layout
  const Tensor z = index_put(zeros({2, 3, 2}), {tensor({0, 1}), Tensor(), tensor({1, 0})},
                             tensor({{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}}));
  EXPECT_TRUE(equal(z.select(0, 0).select(1, 1), tensor({1.0f, 2.0f, 3.0f})));
  EXPECT_TRUE(equal(z.select(0, 1).select(1, 0), tensor({4.0f, 5.0f, 6.0f})));
  // gradients: values get the gradient at their place, self none where written
  const Tensor base = zeros({3, 4}).requires_grad_(), v = tensor({1.0f, 2.0f}).requires_grad_();
  index_put(base, {tensor({1, 2}), tensor({0, 3})}, v).backward(arange(12.0).view({3, 4}));
  EXPECT_TRUE(equal(v.grad(), tensor({4.0f, 11.0f})));
  EXPECT_EQ(base.grad()[1][0].item<float>(), 0.0f);
  EXPECT_EQ(base.grad()[1][1].item<float>(), 5.0f);
  ditto::testing::expect_error(
      [] {
        (void)index_put(zeros({3, 4}), {tensor({0, 1})}, zeros({3}));
      },
      "[index_put_]", "cannot be broadcast to indexing result of shape (2, 4)");
}
