// Scans (cumsum, cumprod, logcumsumexp, cummax, cummin): every dtype against a sequential reference in the accumulation
// type (Note [Scan order], PyTorch's CPU order: python/tests/sweep.py compares against PyTorch itself, bit for bit),
// the dtype rules, empty and 0-dim inputs, gradients (float64 gradcheck, zeros in cumprod's input included), PyTorch's
// tie, NaN and infinity rules, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ditto/ditto.h"
#include "expect_error.h"
#include "gradcheck.h"

using namespace ditto;
using namespace ditto::testing;

namespace {
DITTO_GRADCHECK("cumsum", ({gc_rand({3, 4, 5})}),
                return cumsum(v[0], 1) + cumsum(v[0].transpose(0, 2), -1).transpose(0, 2) * 0.5;)
DITTO_GRADCHECK("cumprod", ({gc_rand({4, 6})}), {
  // a zero in row 1, two in row 2: the gradient has no division by x to go wrong
  const Tensor zero_at = tensor({{false, false, false, false, false, false},
                                 {false, false, true, false, false, false},
                                 {false, true, false, false, true, false},
                                 {false, false, false, false, false, false}});
  return cumprod(v[0].masked_fill(zero_at, 0.0), 1) + cumprod(v[0], 0) * 0.5;
})
DITTO_GRADCHECK("logcumsumexp", ({gc_rand({3, 7})}), return logcumsumexp(v[0] * 3.0, 1) + logcumsumexp(v[0], 0) * 0.5;)
// distinct values, so each running extremum has one source and the gradient is defined
DITTO_GRADCHECK("cummax", ({gc_rand({5, 6})}), return cummax(v[0], 1).first + cummax(v[0], 0).first * 0.5;)
DITTO_GRADCHECK("cummin", ({gc_rand({5, 6})}), return cummin(v[0], 1).first * 0.5 + cummin(v[0], 0).first;)

// out[o, k, i] over a (outer, n, inner) shape, summed (multiplied) from k = 0 in double / int64.
template <class T>
std::vector<T> reference(const std::vector<T>& x, int64_t outer, int64_t n, int64_t inner, bool product) {
  std::vector<T> y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      using A = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
      A a = product ? 1 : 0;
      for (int64_t k = 0; k < n; ++k) {
        const std::size_t at = static_cast<std::size_t>((o * n + k) * inner + i);
        a = product ? a * static_cast<A>(x[at]) : a + static_cast<A>(x[at]);
        y[at] = static_cast<T>(a);
      }
    }
  return y;
}

template <class T>
void expect_scan(const Tensor& x, int64_t dim, bool product) {
  const Tensor got = product ? cumprod(x, dim) : cumsum(x, dim);
  const Tensor c = x.contiguous();
  std::vector<T> xs(static_cast<std::size_t>(c.numel()));
  std::memcpy(xs.data(), c.raw_data(), xs.size() * sizeof(T));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i) outer *= x.size(i);
  for (int64_t i = dim + 1; i < x.dim(); ++i) inner *= x.size(i);
  const std::vector<T> want = reference(xs, outer, x.size(dim), inner, product);
  ASSERT_EQ(got.dtype(), x.dtype());
  ASSERT_EQ(got.sizes(), x.sizes());
  EXPECT_EQ(std::memcmp(got.contiguous().raw_data(), want.data(), want.size() * sizeof(T)), 0)
      << (product ? "cumprod" : "cumsum") << " dim " << dim << " of " << dtype_name(x.dtype());
}

TEST(Scan, EveryDtypeIsTheSequentialScanInTheAccumulationType) {
  manual_seed(4);
  for (bool product : {false, true}) {
    for (int64_t dim : {0, 1, 2}) {
      const Tensor f = product ? rand({6, 70, 5}) + 0.5 : randn({6, 70, 5});
      expect_scan<float>(f, dim, product);
      expect_scan<double>(f.to(kFloat64), dim, product);
      expect_scan<int64_t>(randint(-5, 6, {6, 70, 5}, kInt64), dim, product);
    }
    expect_scan<float>(randn({300, 7}).t(), 1, product);  // a strided input
  }
  // float32 sums accumulate in double: 1 + 2^-24 rounds back to 1 in float32 (a tie, to even),
  // so only a double accumulator reaches 1 + 2^-23 after two of them
  const Tensor x = tensor({1.0f, std::ldexp(1.0f, -24), std::ldexp(1.0f, -24)});
  EXPECT_EQ(cumsum(x, 0)[1].item<float>(), 1.0f);
  EXPECT_EQ(cumsum(x, 0)[2].item<float>(), 1.0f + std::ldexp(1.0f, -23));
}

TEST(Scan, DtypesFollowPyTorch) {
  EXPECT_EQ(cumsum(tensor({true, true, false}), 0).dtype(), kInt64);
  EXPECT_EQ(cumsum(tensor({true, true, false}), 0)[1].item<int64_t>(), 2);
  EXPECT_EQ(cumprod(tensor({3, 4}).to(kInt32), 0).dtype(), kInt64);
  EXPECT_EQ(cumsum(tensor({1, 2}), 0, kInt32).dtype(), kInt32);
  EXPECT_EQ(cumsum(tensor({1.5f, 2.25f}), 0, kFloat64)[1].item<double>(), 3.75);
  EXPECT_EQ(cumsum(tensor({2.7, 3.9}), 0, kInt64)[1].item<int64_t>(), 5);  // converted first, as PyTorch
  // int64 products wrap as PyTorch's two's complement arithmetic does
  EXPECT_EQ(cumprod(full({3}, int64_t{1} << 32, kInt64), 0)[2].item<int64_t>(), 0);
  EXPECT_EQ(cumsum(scalar_tensor(2.5), 0).item<double>(), 2.5);
  EXPECT_EQ(cumsum(scalar_tensor(2.5), -1).dim(), 0);
  EXPECT_EQ(cumprod(zeros({3, 0, 2}), 1).sizes(), (Shape{3, 0, 2}));
}

TEST(Scan, CumsumsGradientIsTheReverseScan) {
  const Tensor x = randn({4, 50}, kFloat32).requires_grad_();
  const Tensor g = randn({4, 50});
  cumsum(x, 1).backward(g);
  // the gradient is the scan from the end, in double, rounded once: PyTorch's flip, cumsum, flip
  const Tensor want = cumsum(g.index_select(1, arange(49, -1, -1)), 1).index_select(1, arange(49, -1, -1));
  EXPECT_TRUE(equal(x.grad(), want));
  EXPECT_EQ(x.grad().dtype(), kFloat32);
}

// cummax / cummin of a 1-D line the plain way: PyTorch's rule (>= / <=: ties take the later
// index; a NaN always takes over, a NaN running value is never replaced by a number).
template <class T>
std::pair<std::vector<T>, std::vector<int64_t>> running_extremum(const std::vector<T>& x, bool is_max) {
  std::vector<T> v(x.size());
  std::vector<int64_t> ix(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    const bool nan_x = x[k] != x[k], nan_best = k > 0 && v[k - 1] != v[k - 1];
    const bool take = k == 0 || nan_x || (!nan_best && (is_max ? x[k] >= v[k - 1] : x[k] <= v[k - 1]));
    v[k] = take ? x[k] : v[k - 1];
    ix[k] = take ? static_cast<int64_t>(k) : ix[k - 1];
  }
  return {v, ix};
}

TEST(Scan, CummaxAndCumminTakeTheLastTieAndTheLatestNaN) {
  const float nan = std::nanf("");
  const std::vector<float> x = {1, 3, 3, 2, nan, 5, nan, -1, 7};
  for (bool is_max : {true, false}) {
    const auto [v, ix] = is_max ? cummax(tensor(x), 0) : cummin(tensor(x), 0);
    const auto [wv, wix] = running_extremum(x, is_max);
    for (std::size_t k = 0; k < x.size(); ++k) {
      const float got = v[static_cast<int64_t>(k)].item<float>();
      EXPECT_TRUE(std::memcmp(&got, &wv[k], sizeof(float)) == 0) << k;
      EXPECT_EQ(ix[static_cast<int64_t>(k)].item<int64_t>(), wix[k]) << k;
    }
  }
  // PyTorch's values, by hand: ties take the later index
  EXPECT_TRUE(equal(cummax(tensor({1, 3, 3, 2}), 0).second, tensor({0, 1, 2, 2})));
  EXPECT_TRUE(equal(cummin(tensor({2, 1, 1, 3}), 0).second, tensor({0, 1, 2, 2})));
  // every dtype, along every dim of a strided input, against the line-by-line reference
  manual_seed(11);
  const Tensor r = randint(0, 4, {5, 60, 3}, kInt64);  // many ties
  for (int64_t dim : {0, 1, 2})
    for (ScalarType t : {kInt64, kInt32, kFloat32, kFloat64, kBool}) {
      const Tensor in = r.to(t).transpose(0, 2);
      const auto [v, ix] = cummax(in, dim);
      const Tensor lines = in.transpose(dim, -1).contiguous().to(kFloat64).reshape({-1, in.size(dim)});
      const Tensor got_v = v.transpose(dim, -1).contiguous().to(kFloat64).reshape({-1, in.size(dim)});
      const Tensor got_i = ix.transpose(dim, -1).contiguous().reshape({-1, in.size(dim)});
      for (int64_t l = 0; l < lines.size(0); ++l) {
        std::vector<double> line(static_cast<std::size_t>(in.size(dim)));
        for (int64_t k = 0; k < in.size(dim); ++k) line[static_cast<std::size_t>(k)] = lines[l][k].item<double>();
        const auto [wv, wix] = running_extremum(line, true);
        for (int64_t k = 0; k < in.size(dim); ++k) {
          ASSERT_EQ(got_v[l][k].item<double>(), wv[static_cast<std::size_t>(k)]) << dtype_name(t) << " dim " << dim;
          ASSERT_EQ(got_i[l][k].item<int64_t>(), wix[static_cast<std::size_t>(k)]) << dtype_name(t) << " dim " << dim;
        }
      }
      EXPECT_EQ(v.dtype(), t);
      EXPECT_EQ(ix.dtype(), kInt64);
    }
  const auto [v0, i0] = cummax(scalar_tensor(2.5), 0);
  EXPECT_EQ(v0.dim(), 0);
  EXPECT_EQ(v0.item<double>(), 2.5);
  EXPECT_EQ(i0.item<int64_t>(), 0);
  EXPECT_EQ(cummin(zeros({0, 3}), 1).second.sizes(), (Shape{0, 3}));
}

TEST(Scan, CummaxsGradientGoesToTheSourceOfEachRunningMaximum) {
  const Tensor x = tensor({1.0, 3.0, 2.0, 3.0, 0.0}).requires_grad_();
  cummax(x, 0).first.backward(tensor({1.0, 10.0, 100.0, 1000.0, 10000.0}));
  // sources: 0, 1, 1, 3, 3 (the tie at 3 takes the later index)
  EXPECT_TRUE(equal(x.grad(), tensor({1.0, 110.0, 0.0, 11000.0, 0.0})));
}

TEST(Scan, LogcumsumexpIsTheLogOfTheRunningSumOfExps) {
  manual_seed(5);
  const Tensor x = randn({4, 200}, kFloat64) * 30.0;
  const Tensor got = logcumsumexp(x, 1);
  for (int64_t r = 0; r < 4; ++r) {
    long double m = -INFINITY, s = 0;  // the running sum of exp(x - m), rescaled when m grows
    for (int64_t k = 0; k < 200; ++k) {
      const long double v = x[r][k].item<double>();
      if (v > m) {
        s = s * std::exp(m - v) + 1;
        m = v;
      } else {
        s += std::exp(v - m);
      }
      const double want = static_cast<double>(m + std::log(s));
      // each step rounds (log1p, exp, +) once or so: the error grows with the line, here to ~20 ulp
      EXPECT_NEAR(got[r][k].item<double>(), want, 1e-13 * std::max(1.0, std::abs(want))) << r << " " << k;
    }
  }
  // large values do not overflow; float32 results are the double accumulation rounded once
  EXPECT_FLOAT_EQ(logcumsumexp(tensor({1000.0f, 1000.0f}), 0)[1].item<float>(), 1000.0f + std::log(2.0f));
  const Tensor xf = x.to(kFloat32);
  EXPECT_TRUE(equal(logcumsumexp(xf, 0), logcumsumexp(xf.to(kFloat64), 0).to(kFloat32)));
  // PyTorch's special values: -inf is the identity, equal infinities stay, NaN propagates
  const float inf = INFINITY, nan = std::nanf("");
  const Tensor a = logcumsumexp(tensor({-inf, -inf, 1.0f, inf, -inf}), 0);
  const Tensor b = logcumsumexp(tensor({inf, inf, -inf, nan, 1.0f}), 0);
  EXPECT_TRUE(equal(a, tensor({-inf, -inf, 1.0f, inf, inf})));
  EXPECT_EQ(b[0].item<float>(), inf);
  EXPECT_EQ(b[2].item<float>(), inf);
  EXPECT_TRUE(std::isnan(b[3].item<float>()) && std::isnan(b[4].item<float>()));
}

TEST(Scan, BadInputRaises) {
  expect_error([] { logcumsumexp(tensor({1, 2}), 0); }, "[logcumsumexp]", "not implemented for 'Long'");
  expect_error([] { logcumsumexp(ones({2}), 1); }, "[logcumsumexp]", "out of range");
  expect_error([] { cummax(ones({2}), 1); }, "[cummax]", "out of range");
  expect_error([] { cummin(Tensor(), 0); }, "[cummin]", "");
  expect_error([] { cumsum(ones({2, 3}), 2); }, "[cumsum]", "out of range");
  expect_error([] { cumprod(ones({2}), -2); }, "[cumprod]", "out of range");
  expect_error([] { cumsum(ones({2}), 0, kBool); }, "[cumsum]", "not implemented for 'Bool'");
  expect_error([] { cumsum(Tensor(), 0); }, "[cumsum]", "");
}

}  // namespace
