// Scans (cumsum, cumprod): every dtype against a sequential reference in the accumulation type
// (Note [Scan order], PyTorch's CPU order: python/tests/sweep.py compares against PyTorch itself,
// bit for bit), the dtype rules, empty and 0-dim inputs, gradients (float64 gradcheck, zeros in
// cumprod's input included), bad input.
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

TEST(Scan, BadInputRaises) {
  expect_error([] { cumsum(ones({2, 3}), 2); }, "[cumsum]", "out of range");
  expect_error([] { cumprod(ones({2}), -2); }, "[cumprod]", "out of range");
  expect_error([] { cumsum(ones({2}), 0, kBool); }, "[cumsum]", "not implemented for 'Bool'");
  expect_error([] { cumsum(Tensor(), 0); }, "[cumsum]", "");
}

}  // namespace
