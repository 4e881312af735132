// Ordering ops (sort, argsort, topk, kthvalue, median, nanmedian, searchsorted, bucketize) and scatter: what each
// returns by definition (sorted values, a permutation, ranks, NaN placement), the tie rules that need no PyTorch to
// state (stable order; the median's index), gradients (float64 gradcheck), 0-dim and empty inputs, bad input. PyTorch's
// own tie choices for the unstable sort, topk and kthvalue are compared against PyTorch itself in
// python/tests/test_ordering.py and the OpInfo sweep.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "ditto/ditto.h"
#include "expect_error.h"
#include "gradcheck.h"

using namespace ditto;
using namespace ditto::testing;

namespace {
DITTO_GRADCHECK("sort", ({gc_rand({4, 7})}), return sort(v[0], 1).first * 2.0 + sort(v[0], 0, true, true).first;)
DITTO_GRADCHECK("topk", ({gc_rand({5, 9})}), return topk(v[0], 3, 1).first + topk(v[0], 2, 0, false).first.sum();)
DITTO_GRADCHECK("kthvalue", ({gc_rand({5, 9})}),
                return kthvalue(v[0], 4, 1).first + kthvalue(v[0], 2, 0, true).first.sum();)
DITTO_GRADCHECK("median.dim", ({gc_rand({5, 8})}), return median(v[0], 1).first + median(v[0], 0, true).first.sum();)
DITTO_GRADCHECK("nanmedian.dim", ({gc_rand({5, 8})}), return nanmedian(v[0], 1).first;)
DITTO_GRADCHECK("median", ({gc_rand({5, 7})}), return median(v[0]) * 3.0;)
DITTO_GRADCHECK("nanmedian", ({gc_rand({4, 6})}), return nanmedian(v[0]);)
DITTO_GRADCHECK("mode", ({gc_rand({4, 6})}), return mode(v[0], 1).first + mode(v[0], 0, true).first.sum();)
DITTO_GRADCHECK("scatter_", ({gc_rand({3, 5}), gc_rand({3, 2})}),
                return scatter(v[0], 1, tensor({{0, 4}, {2, 1}, {1, 3}}),
                               v[1]);)  // no repeats: PyTorch's gradient assumes none

std::vector<double> row(const Tensor& t, int64_t r) {
  const Tensor c = t.to(kFloat64).contiguous();
  std::vector<double> out(static_cast<std::size_t>(c.size(1)));
  for (int64_t k = 0; k < c.size(1); ++k) out[static_cast<std::size_t>(k)] = c[r][k].item<double>();
  return out;
}
std::vector<int64_t> irow(const Tensor& t, int64_t r) {
  std::vector<int64_t> out(static_cast<std::size_t>(t.size(1)));
  for (int64_t k = 0; k < t.size(1); ++k) out[static_cast<std::size_t>(k)] = t[r][k].item<int64_t>();
  return out;
}

TEST(Sort, ValuesAreOrderedAndIndicesAPermutationThatGathersThem) {
  manual_seed(3);
  const float nan = std::nanf("");
  Tensor x = randint(0, 6, {7, 300}, kFloat32);  // many ties
  x = x.masked_fill(x.eq(5.0), nan);
  for (bool descending : {false, true})
    for (bool stable : {false, true}) {
      const auto [v, i] = sort(x, 1, descending, stable);
      EXPECT_TRUE(equal(x.gather(1, i).ne(x.gather(1, i)), v.ne(v)));  // NaNs where gathered NaNs are
      for (int64_t r = 0; r < 7; ++r) {
        const std::vector<double> vs = row(v, r), xs = row(x, r);
        std::vector<int64_t> is = irow(i, r), perm = is;
        std::sort(perm.begin(), perm.end());
        for (int64_t k = 0; k < 300; ++k) ASSERT_EQ(perm[static_cast<std::size_t>(k)], k);
        const auto nan_count = std::count_if(xs.begin(), xs.end(), [](double a) { return std::isnan(a); });
        for (std::size_t k = 0; k < vs.size(); ++k) {
          // NaN sorts above every number: last ascending, first descending
          const bool in_nan_block = descending ? k < static_cast<std::size_t>(nan_count)
                                               : k >= vs.size() - static_cast<std::size_t>(nan_count);
          ASSERT_EQ(std::isnan(vs[k]), in_nan_block) << k;
          if (k > 0 && !std::isnan(vs[k]) && !std::isnan(vs[k - 1])) {
            ASSERT_TRUE(descending ? vs[k - 1] >= vs[k] : vs[k - 1] <= vs[k]);
            if (stable && vs[k - 1] == vs[k]) {
              ASSERT_LT(is[k - 1], is[k]);  // ties in index order
            }
          }
        }
      }
    }
  // a non-last dim, an int dtype, bool
  const Tensor y = randint(-50, 50, {40, 3}, kInt64);
  const auto [yv, yi] = sort(y, 0, false, true);
  EXPECT_TRUE(equal(yv, y.gather(0, yi)));
  EXPECT_TRUE(equal(argsort(y, 0, false, true), yi));
  EXPECT_TRUE(equal(sort(tensor({true, false, true}), 0, false, true).second, tensor({1, 0, 2})));
  // a line along a 0 stride stays in index order, as PyTorch's
  EXPECT_TRUE(equal(sort(ones({3, 1}).expand({3, 40}), 1).second, arange(40).expand({3, 40})));
  const auto [sv, si] = sort(scalar_tensor(2.5));
  EXPECT_EQ(sv.dim(), 0);
  EXPECT_EQ(si.item<int64_t>(), 0);
  EXPECT_EQ(sort(zeros({0, 4}), 1).first.sizes(), (Shape{0, 4}));
}

TEST(Sort, TopkAndKthvalueSelectWhatASortSelects) {
  manual_seed(4);
  const Tensor x = randn({6, 500}, kFloat64);  // distinct values: the selection is unique
  const auto [sv, si] = sort(x, 1, true);
  for (int64_t k : {1, 7, 8, 100, 500}) {  // both of PyTorch's paths: k * 64 <= n and not
    const auto [tv, ti] = topk(x, k, 1);
    EXPECT_TRUE(equal(tv, sv.narrow(1, 0, k))) << k;
    EXPECT_TRUE(equal(ti, si.narrow(1, 0, k))) << k;
    const auto [lv, li] = topk(x, k, 1, false);
    EXPECT_TRUE(equal(lv, sort(x, 1).first.narrow(1, 0, k))) << k;
    const auto [kv, ki] = kthvalue(x, k, 1);
    EXPECT_TRUE(equal(kv, sort(x, 1).first.select(1, k - 1))) << k;
    EXPECT_TRUE(equal(ki, sort(x, 1).second.select(1, k - 1))) << k;
  }
  // unsorted topk holds the same set
  const auto [uv, ui] = topk(x, 300, 1, true, false);
  EXPECT_TRUE(equal(sort(uv, 1, true).first, sv.narrow(1, 0, 300)));
  // NaN counts as the largest
  const float nan = std::nanf("");
  EXPECT_TRUE(std::isnan(topk(tensor({1.0f, nan, 3.0f}), 1).first[0].item<float>()));
  EXPECT_EQ(topk(tensor({1.0f, nan, 3.0f}), 1).second[0].item<int64_t>(), 1);
  EXPECT_EQ(kthvalue(tensor({1.0f, nan, 3.0f}), 2).first.item<float>(), 3.0f);
  EXPECT_EQ(kthvalue(tensor({4, 1, 3}), 1, 0, true).first.sizes(), (Shape{1}));
  EXPECT_EQ(topk(zeros({0, 3}), 0, 0).first.sizes(), (Shape{0, 3}));
  EXPECT_EQ(kthvalue(scalar_tensor(7.0), 1).second.item<int64_t>(), 0);
}

// Sorted topk with k * 64 > n keeps partial_sort's answer only when its k values are distinct and
// strictly ahead of the rest (then it is the only answer); otherwise it runs PyTorch's selection on
// the line in index order. Against that selection written out here (partial_sort when
// k * 64 <= n, else nth_element at k - 1 then a sort of the k - 1 before it; NaN the largest): distinct lines, ties at
// the k-th value, ties inside the k, signed zeros, NaNs, both directions.
TEST(Sort, SortedTopkIsPyTorchsSelectionWithAndWithoutTies) {
  manual_seed(9);
  const int64_t n = 200;
  std::vector<Tensor> rows = {randn({n}), randint(0, 5, {n}).to(kFloat32), randint(0, 60, {n}).to(kFloat32)};
  Tensor z = randn({n});
  z.narrow(0, 10, 5).fill_(0.0), z.narrow(0, 30, 5).fill_(-0.0), z.narrow(0, 50, 3).fill_(std::nan(""));
  rows.push_back(z.abs().neg());  // many values ahead of the zeros for smallest
  rows.push_back(z);
  const Tensor x = stack(rows);
  for (bool largest : {true, false})
    for (int64_t k : {1, 3, 4, 20, 199, 200}) {
      const auto [tv, ti] = topk(x, k, 1, largest);
      for (int64_t r = 0; r < x.size(0); ++r) {
        std::vector<std::pair<float, int64_t>> q;
        for (int64_t i = 0; i < n; ++i) q.push_back({x[r][i].item<float>(), i});
        auto before = [largest](const std::pair<float, int64_t>& a, const std::pair<float, int64_t>& b) {
          if (largest) return (std::isnan(a.first) && !std::isnan(b.first)) || a.first > b.first;
          return (!std::isnan(a.first) && std::isnan(b.first)) || a.first < b.first;
        };
        if (k * 64 <= n) {
          std::partial_sort(q.begin(), q.begin() + k, q.end(), before);
        } else {
          std::nth_element(q.begin(), q.begin() + (k - 1), q.end(), before);
          std::sort(q.begin(), q.begin() + (k - 1), before);
        }
        int64_t bad = 0;
        for (int64_t i = 0; i < k; ++i) {
          const float got = tv[r][i].item<float>();
          bad += std::memcmp(&got, &q[static_cast<std::size_t>(i)].first, sizeof(float)) != 0 ||
                 ti[r][i].item<int64_t>() != q[static_cast<std::size_t>(i)].second;
        }
        EXPECT_EQ(bad, 0) << "row " << r << " k " << k << " largest " << largest;
      }
    }
}

TEST(Sort, MedianIsTheLowerMiddleWithTiesBrokenByIndex) {
  // lower median of 1 2 2 2 3 3 (sorted stably: 2 at indices 1, 3, 4): rank 2 is index 3
  const auto [v, i] = median(tensor({3.0, 2.0, 1.0, 2.0, 2.0, 3.0}), 0);
  EXPECT_EQ(v.item<double>(), 2.0);
  EXPECT_EQ(i.item<int64_t>(), 3);
  const double nan = std::nan("");
  // median reports the first NaN; nanmedian leaves NaNs out
  const Tensor x = tensor({{1.0, nan, 5.0, nan, 4.0}, {2.0, 1.0, 3.0, 0.0, 9.0}});
  const auto [mv, mi] = median(x, 1);
  EXPECT_TRUE(std::isnan(mv[0].item<double>()));
  EXPECT_EQ(mi[0].item<int64_t>(), 1);
  EXPECT_EQ(mv[1].item<double>(), 2.0);
  const auto [nv, ni] = nanmedian(x, 1);
  EXPECT_EQ(nv[0].item<double>(), 4.0);  // of 1 5 4
  EXPECT_EQ(ni[0].item<int64_t>(), 4);
  // whole tensor: median() is NaN (the quiet NaN) with a NaN in it; nanmedian() skips them
  EXPECT_TRUE(std::isnan(median(x).item<double>()));
  EXPECT_EQ(nanmedian(x).item<double>(), 2.0);  // of 1 5 4 2 1 3 0 9: sorted 0 1 1 2 3 4 5 9, rank 3
  EXPECT_EQ(median(tensor({4, 1, 3, 2})).item<int64_t>(), 2);
  EXPECT_TRUE(std::isnan(median(zeros({0})).item<float>()));
  EXPECT_EQ(median(zeros({0}, kInt64)).item<int64_t>(), std::numeric_limits<int64_t>::min());
  // every row of a random matrix against a stable sort
  manual_seed(9);
  const Tensor r = randint(0, 5, {9, 41}, kFloat32);
  const auto [rv, ri] = median(r, 1);
  const auto [sv, si] = sort(r, 1, false, true);
  EXPECT_TRUE(equal(rv, sv.select(1, 20)));
  EXPECT_TRUE(equal(ri, si.select(1, 20)));
}

TEST(Sort, MediansGradientIsSharedAmongTheTiedElements) {
  const Tensor x = tensor({1.0, 2.0, 2.0, 5.0}).requires_grad_();
  median(x).backward(scalar_tensor(1.0, kFloat64));
  EXPECT_TRUE(equal(x.grad(), tensor({0.0, 0.5, 0.5, 0.0})));  // PyTorch's evenly_distribute_backward
  const Tensor y = tensor({1.0, 2.0, 2.0, 5.0}).requires_grad_();
  median(y, 0).first.backward(scalar_tensor(1.0, kFloat64));
  EXPECT_TRUE(equal(y.grad(), tensor({0.0, 1.0, 0.0, 0.0})));  // median.dim: the reported index
}

TEST(Sort, ScatterWritesAndTheLastRepeatWins) {
  const Tensor out =
      scatter(zeros({2, 4}), 1, tensor({{1, 1, 3}, {0, 2, 0}}), tensor({{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}}));
  EXPECT_TRUE(equal(out, tensor({{0.0f, 2.0f, 0.0f, 3.0f}, {6.0f, 0.0f, 5.0f, 0.0f}})));
  EXPECT_TRUE(equal(scatter(zeros({3}), 0, tensor({2, 0}), 7.5), tensor({7.5f, 0.0f, 7.5f})));
  Tensor t = zeros({3}, kInt64);
  t.scatter_(0, tensor({1}), tensor({9}));
  EXPECT_TRUE(equal(t, tensor({0, 9, 0})));
  expect_error([] { scatter(zeros({3}), 0, tensor({3}), 1.0); }, "[scatter_]", "");
}

TEST(Sort, SearchsortedIsLowerOrUpperBoundPerRow) {
  const float nan = std::nanf("");
  const Tensor s = tensor({1.0f, 3.0f, 5.0f, 7.0f, 9.0f});
  const Tensor v = tensor({{3.0f, 6.0f, 9.0f}, {3.0f, 6.0f, nan}});
  // PyTorch 1.13's outputs: a NaN value goes after every boundary
  EXPECT_TRUE(equal(searchsorted(s, v), tensor({{1, 3, 4}, {1, 3, 5}})));
  EXPECT_TRUE(equal(searchsorted(s, v, false, true), tensor({{2, 3, 5}, {2, 3, 5}})));
  EXPECT_TRUE(equal(searchsorted(s, v, false, false, "right"), searchsorted(s, v, false, true)));
  EXPECT_EQ(searchsorted(s, 5.0).item<int64_t>(), 2);
  EXPECT_EQ(searchsorted(s, 5.0).dim(), 0);
  EXPECT_TRUE(equal(bucketize(v, s), searchsorted(s, v)));
  EXPECT_EQ(bucketize(4.0, s).item<int64_t>(), 2);
  // one row of boundaries per row of values; int32 output
  const Tensor S = tensor({{1.0f, 3.0f, 5.0f}, {2.0f, 4.0f, 6.0f}}), V = tensor({{3.0f, 4.0f}, {3.0f, 4.0f}});
  EXPECT_TRUE(equal(searchsorted(S, V), tensor({{1, 2}, {1, 1}})));
  EXPECT_EQ(searchsorted(S, V, true).dtype(), kInt32);
  // the dtypes are promoted together; sorter sorts an unsorted sequence
  EXPECT_TRUE(equal(searchsorted(s, tensor({1, 2})), tensor({0, 1})));
  EXPECT_TRUE(
      equal(searchsorted(tensor({3.0f, 1.0f, 2.0f}), tensor({2.0f}), false, false, std::nullopt, tensor({1, 2, 0})),
            tensor({1})));
  // against std::lower_bound / upper_bound on random data, a strided input included
  manual_seed(8);
  const Tensor b = sort(randn({5000})).first, q = randn({300, 7}).t();
  const Tensor lo = searchsorted(b, q), hi = searchsorted(b, q, false, true);
  const std::vector<float> bv = [&] {
    std::vector<float> r(5000);
    for (int64_t i = 0; i < 5000; ++i) r[static_cast<std::size_t>(i)] = b[i].item<float>();
    return r;
  }();
  for (int64_t i = 0; i < 7; ++i)
    for (int64_t j = 0; j < 300; j += 13) {
      const float x = q[i][j].item<float>();
      EXPECT_EQ(lo[i][j].item<int64_t>(), std::lower_bound(bv.begin(), bv.end(), x) - bv.begin());
      EXPECT_EQ(hi[i][j].item<int64_t>(), std::upper_bound(bv.begin(), bv.end(), x) - bv.begin());
    }
  EXPECT_EQ(searchsorted(zeros({0}), ones({3})).sizes(), (Shape{3}));
}

// Known answers from PyTorch 1.13 (torch.mode, torch.unique, torch.unique_consecutive), and
// ditto's rule where PyTorch sorts NaNs with a plain < (no ordering): NaNs last, each distinct.
TEST(Sort, ModeIsTheSmallestMostFrequentValueAtTheEndOfItsRun) {
  const auto [v, i] = mode(tensor({{1, 2, 2, 3, 3}, {5, 5, 1, 1, 0}}), 1);
  EXPECT_TRUE(equal(v, tensor({2, 1})));
  EXPECT_TRUE(equal(i, tensor({2, 3})));
  EXPECT_EQ(mode(tensor({2.0, 1.0, 2.0, 1.0, 1.0, 2.0})).second.item<int64_t>(), 4);  // PyTorch's sort leaves it last
  EXPECT_TRUE(mode(tensor({true, false, true})).first.item<bool>());
  const auto [nv, ni] = mode(tensor({NAN, 1.0f, NAN, 1.0f}));
  EXPECT_EQ(nv.item<float>(), 1.0f);  // NaNs never repeat (PyTorch 1.13 gives NaN here)
  EXPECT_EQ(ni.item<int64_t>(), 3);
  const auto [kv, ki] = mode(tensor({{4, 4}, {7, 8}}), 0, true);
  EXPECT_EQ(kv.sizes(), (Shape{1, 2}));
  EXPECT_TRUE(equal(kv, tensor({{4, 4}})));
  EXPECT_TRUE(equal(mode(scalar_tensor(3.5)).first, scalar_tensor(3.5)));
  EXPECT_EQ(mode(zeros({0, 3}), 1).first.sizes(), (Shape{0}));
  ditto::testing::expect_error(
      [] {
        (void)mode(zeros({2, 0}), 1);
      },
      "[mode]", "mode(): Expected reduction dim 1 to have non-zero size.");
  Tensor x = tensor({{1.0, 2.0, 2.0}}).requires_grad_();
  mode(x, 1).first.sum().backward();
  EXPECT_TRUE(equal(x.grad(), tensor({{0.0, 0.0, 1.0}})));
}

TEST(Sort, UniqueGroupsEqualElementsWithInverseAndCounts) {
  {  // sorted = false: PyTorch 1.13's hash-set order
    const auto [u, inv, cnt] = unique(tensor({3, 1, 2, 3, 1}), false, true, true);
    EXPECT_TRUE(equal(u, tensor({2, 1, 3})));
    EXPECT_TRUE(equal(inv, tensor({2, 1, 0, 2, 1})));
    EXPECT_TRUE(equal(cnt, tensor({1, 2, 2})));
    EXPECT_TRUE(
        equal(std::get<0>(unique(tensor({3, 1, 2, 3, 1, 7, 5, 5, 9, 0}), false)), tensor({0, 9, 5, 7, 2, 1, 3})));
  }
  {  // sorted, NaNs last and each its own; inverse keeps the input's shape
    const auto [u, inv, cnt] = unique(tensor({{3.0, 1.0, 2.0}, {NAN, NAN, 1.0}}), true, true, true);
    EXPECT_EQ(u.numel(), 5);
    EXPECT_TRUE(equal(u.slice(0, 0, 3), tensor({1.0, 2.0, 3.0})));
    const Tensor tail = u.slice(0, 3, 5);
    EXPECT_EQ(tail.ne(tail).sum().item<int64_t>(), 2);  // both NaN
    EXPECT_TRUE(equal(inv, tensor({{2, 0, 1}, {3, 4, 0}})));
    EXPECT_TRUE(equal(cnt, tensor({2, 1, 1, 1, 1})));
    const auto [u2, inv2, cnt2] = unique(tensor({3.0, 1.0}));
    EXPECT_EQ(inv2.numel(), 0);  // not asked for
    EXPECT_EQ(cnt2.numel(), 0);
  }
  // -0.0 and 0.0 are one element, represented by the first one met, as PyTorch's set
  EXPECT_TRUE(std::signbit(std::get<0>(unique(tensor({-0.0, 1.0, 0.0})))[0].item<double>()));
  EXPECT_FALSE(std::signbit(std::get<0>(unique(tensor({0.0, 1.0, -0.0})))[0].item<double>()));
  {  // along a dim: distinct rows, sorted lexicographically
    const auto [u, inv, cnt] = unique(tensor({{1, 2}, {1, 2}, {0, 5}}), false, true, true, 0);
    EXPECT_TRUE(equal(u, tensor({{0, 5}, {1, 2}})));
    EXPECT_TRUE(equal(inv, tensor({1, 1, 0})));
    EXPECT_TRUE(equal(cnt, tensor({1, 2})));
    EXPECT_TRUE(
        equal(std::get<0>(unique(tensor({{2, 1, 2}, {5, 0, 5}}), true, false, false, 1)), tensor({{1, 2}, {0, 5}})));
  }
  {
    const auto [u, inv, cnt] = unique_consecutive(tensor({1, 1, 2, 2, 3, 1, 1, 2}), true, true);
    EXPECT_TRUE(equal(u, tensor({1, 2, 3, 1, 2})));
    EXPECT_TRUE(equal(inv, tensor({0, 0, 1, 1, 2, 3, 3, 4})));
    EXPECT_TRUE(equal(cnt, tensor({2, 2, 1, 2, 1})));
    EXPECT_TRUE(equal(std::get<0>(unique_consecutive(tensor({{1, 1}, {1, 1}, {2, 0}}), false, false, 0)),
                      tensor({{1, 1}, {2, 0}})));
  }
  EXPECT_EQ(std::get<0>(unique(zeros({0, 3}), true, false, false, 0)).sizes(), (Shape{0, 3}));
  EXPECT_EQ(std::get<1>(unique(scalar_tensor(5.0), true, true)).dim(), 0);
  ditto::testing::expect_error(
      [] {
        (void)unique(zeros({0, 3}), true, false, false, 1);
      },
      "[unique_dim]", "aren't selected");
  ditto::testing::expect_error([] { (void)unique(zeros({0, 0}), true, false, false, 0); }, "[", "more than one");
  ditto::testing::expect_error([] { (void)unique(scalar_tensor(5.0), true, false, false, 0); }, "[",
                               "tensor has no dimensions");
  ditto::testing::expect_error(
      [] {
        (void)unique_consecutive(zeros({2, 3}), false, false, 2);
      },
      "[unique_consecutive]", "out of range");
}

TEST(Sort, BadInputRaises) {
  expect_error([] { searchsorted(scalar_tensor(1.0), ones({2})); }, "[searchsorted]", "positive dimension");
  expect_error([] { searchsorted(ones({2, 3}), ones({2})); }, "[searchsorted]", "first N-1 dimensions");
  expect_error([] { searchsorted(ones({3}), ones({2}), false, true, "left"); }, "[searchsorted]", "opposites");
  expect_error([] { searchsorted(ones({3}), ones({2}), false, false, "middle"); }, "[searchsorted]",
               "'left' or 'right'");
  expect_error(
      [] {
        searchsorted(ones({3}), ones({2}), false, false, std::nullopt, tensor({0, 1, 3}));
      },
      "[searchsorted]", "sorter index out of range");
  expect_error(
      [] {
        searchsorted(ones({3}), ones({2}), false, false, std::nullopt, tensor({0, 1}));
      },
      "[searchsorted]", "must have the same size");
  expect_error([] { searchsorted(tensor({true}), tensor({true})); }, "[searchsorted]", "not implemented for 'Bool'");
  expect_error([] { bucketize(ones({2}), ones({2, 2})); }, "[bucketize]", "must be 1 dimension");
  expect_error([] { topk(ones({3}), 4); }, "[topk]", "selected index k out of range");
  expect_error([] { topk(ones({3}), -1); }, "[topk]", "selected index k out of range");
  expect_error([] { topk(tensor({true}), 1); }, "[topk]", "not implemented for 'Bool'");
  expect_error([] { kthvalue(ones({3}), 0); }, "[kthvalue]", "selected number k out of range");
  expect_error([] { kthvalue(ones({0, 3}), 1, 0); }, "[kthvalue]", "to have non-zero size");
  expect_error([] { median(ones({0, 3}), 0); }, "[median.dim]", "to have non-zero size");
  expect_error([] { median(tensor({true})); }, "[median]", "not implemented for 'Bool'");
  expect_error([] { sort(ones({2, 3}), 2); }, "[sort]", "out of range");
  expect_error([] { nanmedian(Tensor(), 0); }, "[nanmedian.dim]", "");
}
}  // namespace
