// Counting ops (histc, bincount): against plain loops, PyTorch's range and edge rules, counts
// that would round in float32 partial sums, the dtype rules, bad input. PyTorch's own results:
// the OpInfo sweep and python/tests/test_pytorch_determinism.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ditto/ditto.h"
#include "expect_error.h"
#include "guards.h"

using namespace ditto;
using namespace ditto::testing;

namespace {

TEST(Count, HistcCountsEachElementInItsBin) {
  manual_seed(2);
  const Tensor x = randn({10000}) * 2.0;
  const Tensor h = histc(x, 13, -3.0, 4.0);
  std::vector<int64_t> want(13, 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float v = x[i].item<float>();
    if (!(v >= -3.0f && v <= 4.0f)) continue;
    // PyTorch 1.13's arithmetic: in float, (v - lo) / (hi - lo) * bins, truncated; hi goes to the last bin
    const int64_t b = std::min<int64_t>(static_cast<int64_t>((v - -3.0f) / 7.0f * 13.0f), 12);
    ++want[static_cast<std::size_t>(b)];
  }
  ASSERT_EQ(h.dtype(), kFloat32);
  for (int64_t b = 0; b < 13; ++b)
    EXPECT_EQ(h[b].item<float>(), static_cast<float>(want[static_cast<std::size_t>(b)])) << b;
  // PyTorch's edge rules, by hand (the values torch 1.13 prints)
  EXPECT_TRUE(equal(histc(tensor({1.0f, 2.0f, 3.0f, 4.0f}), 4), tensor({1.0f, 1.0f, 1.0f, 1.0f})));
  EXPECT_TRUE(equal(histc(tensor({2.0f, 2.0f}), 4), tensor({0.0f, 0.0f, 2.0f, 0.0f})));  // range [1, 3]
  EXPECT_TRUE(equal(histc(tensor({0.0f, 1.0f, 2.0f, 3.0f, 10.0f}), 3, 0, 3), tensor({1.0f, 1.0f, 2.0f})));
  EXPECT_TRUE(equal(histc(zeros({0}), 4), zeros({4})));
  const float nan = std::nanf("");
  EXPECT_TRUE(equal(histc(tensor({1.0f, nan, 2.0f}), 2, 0, 2), tensor({0.0f, 2.0f})));  // NaN not counted
  EXPECT_EQ(histc(randn({3, 4}, kFloat64), 5).dtype(), kFloat64);
  EXPECT_FALSE(histc(randn({5}).requires_grad_(), 3).requires_grad());
}

TEST(Count, CountsAreExactBeyondFloatsIntegers) {
  // 2^24 + 3 ones in one bin: float32 partial sums per thread would have to round; the exact count
  // rounded once is 2^24 + 4 (the nearest float, ties to even), at any thread count
  const Tensor x = ones({(int64_t{1} << 24) + 3});
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    EXPECT_EQ(histc(x, 1, 0, 2)[0].item<float>(), 16777220.0f) << threads;
  }
  set_num_threads(1);
}

TEST(Count, BincountCountsAndSumsWeightsInInputOrder) {
  manual_seed(6);
  const Tensor x = randint(0, 50, {20000}, kInt64);
  const Tensor w = rand({20000});
  const Tensor c = bincount(x), s = bincount(x, w), d = bincount(x, w.to(kFloat64), 60);
  std::vector<int64_t> count(50, 0);
  std::vector<float> sum(50, 0.0f);
  std::vector<double> dsum(60, 0.0);
  for (int64_t i = 0; i < 20000; ++i) {
    const int64_t v = x[i].item<int64_t>();
    ++count[static_cast<std::size_t>(v)];
    sum[static_cast<std::size_t>(v)] += w[i].item<float>();  // float, in input order: PyTorch's bits
    dsum[static_cast<std::size_t>(v)] += static_cast<double>(w[i].item<float>());
  }
  ASSERT_EQ(c.dtype(), kInt64);
  ASSERT_EQ(s.dtype(), kFloat32);
  ASSERT_EQ(d.dtype(), kFloat64);
  ASSERT_EQ(d.numel(), 60);
  for (int64_t v = 0; v < 50; ++v) {
    EXPECT_EQ(c[v].item<int64_t>(), count[static_cast<std::size_t>(v)]);
    EXPECT_EQ(s[v].item<float>(), sum[static_cast<std::size_t>(v)]);
    EXPECT_EQ(d[v].item<double>(), dsum[static_cast<std::size_t>(v)]);
  }
  EXPECT_EQ(bincount(tensor({1, 1}), tensor({2, 3})).dtype(), kFloat64);  // integer weights: double
  EXPECT_TRUE(equal(bincount(zeros({0}, kInt64), std::nullopt, 3), zeros({3}, kInt64)));
  EXPECT_TRUE(equal(bincount(tensor({3}).to(kInt32)), tensor({0, 0, 0, 1})));
}

// int64 amin, amax and bincount's range check read the input once, by vector registers at each
// level: the extreme value found wherever it sits (first, inside the unrolled body, in the
// tail), at every length around the unroll, every level and thread count.
TEST(Count, Int64RangeFindsTheExtremeAnywhereAtEveryLevel) {
  ConfigGuard guard;
  for (CpuCapability level : supported_levels()) {
    set_cpu_capability_for_testing(level);
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      for (int64_t n : {1, 2, 7, 31, 32, 33, 63, 64, 65, 100, 200003}) {
        for (int64_t at : {int64_t{0}, n / 2, n - 1}) {
          std::vector<int64_t> v(static_cast<std::size_t>(n));
          for (int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = 1000 + (i * 7919) % 1000;
          Tensor x = tensor(v);
          x.index_put_({tensor({at})}, tensor({int64_t{4321}}));
          v[static_cast<std::size_t>(at)] = 4321;
          const int64_t low = *std::min_element(v.begin(), v.end());
          EXPECT_EQ(amax(x).item<int64_t>(), 4321) << n << " " << at << " " << capability_name(level);
          EXPECT_EQ(bincount(x).numel(), 4322) << n << " " << at << " " << capability_name(level);
          EXPECT_EQ(amin(x).item<int64_t>(), low) << n << " " << at;
          x.index_put_({tensor({at})}, tensor({int64_t{-5}}));
          EXPECT_EQ(amin(x).item<int64_t>(), -5) << n << " " << at << " " << capability_name(level);
          expect_error([&] { bincount(x); }, "[bincount]", "1-d non-negative integral inputs");
        }
      }
    }
  }
}

TEST(Count, BadInputRaises) {
  expect_error([] { histc(tensor({1, 2}), 3); }, "[histc]", "not implemented for 'Long'");
  expect_error([] { histc(ones({3}), 0); }, "[histc]", "bins must be > 0");
  expect_error([] { histc(ones({3}), 3, 2, 1); }, "[histc]", "max must be larger than min");
  expect_error([] { histc(tensor({1.0f, std::nanf("")}), 3); }, "[histc]", "is not finite");
  expect_error([] { histc(tensor({1.0f, INFINITY}), 3); }, "[histc]", "is not finite");
  expect_error([] { bincount(tensor({-1})); }, "[bincount]", "1-d non-negative integral inputs");
  expect_error([] { bincount(tensor({{1}})); }, "[bincount]", "1-d non-negative integral inputs");
  expect_error([] { bincount(tensor({1.0f})); }, "[bincount]", "not implemented for 'Float'");
  expect_error([] { bincount(tensor({1}), std::nullopt, -1); }, "[bincount]", "minlength should be >= 0");
  expect_error([] { bincount(tensor({1, 2}), ones({3})); }, "[bincount]", "same length as input");
  expect_error([] { bincount(tensor({std::numeric_limits<int64_t>::max()})); }, "[bincount]", "overflows");
}

}  // namespace
