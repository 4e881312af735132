// Ops against slow, obviously correct references. Where ditto defines the bits (canonical
// reductions, sequential-k GEMM, IEEE elementwise arithmetic) the comparison is bitwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ditto/ditto.h"
#include "expect_error.h"

using namespace ditto;

namespace {

std::vector<float> random_floats(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Note [Canonical reduction order], written out plainly.
float canonical_sum_reference(const std::vector<float>& x) {
  const size_t C = 32768, L = 32;
  std::vector<float> partial;
  for (size_t start = 0; start < x.size() || partial.empty(); start += C) {
    float lane[32] = {};
    for (size_t i = start; i < std::min(x.size(), start + C); ++i) lane[(i - start) % L] += x[i];
    for (size_t h = 16; h >= 1; h /= 2)
      for (size_t l = 0; l < h; ++l) lane[l] += lane[l + h];
    partial.push_back(lane[0]);
    if (x.empty()) break;
  }
  while (partial.size() > 1) {
    std::vector<float> next;
    for (size_t i = 0; i + 1 < partial.size(); i += 2) next.push_back(partial[i] + partial[i + 1]);
    if (partial.size() % 2) next.push_back(partial.back());
    partial = next;
  }
  return partial[0];
}

}  // namespace

TEST(OpsElementwise, ArithmeticMatchesScalarIEEE) {
  auto a = random_floats(1000, 1), b = random_floats(1000, 2);
  Tensor ta = from_vector(a, {10, 100}), tb = from_vector(b, {10, 100});
  auto sum = to_vector<float>(ta + tb), dif = to_vector<float>(ta - tb), pr = to_vector<float>(ta * tb),
       qu = to_vector<float>(ta / tb);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(bits(sum[i]), bits(a[i] + b[i]));
    ASSERT_EQ(bits(dif[i]), bits(a[i] - b[i]));
    ASSERT_EQ(bits(pr[i]), bits(a[i] * b[i]));
    ASSERT_EQ(bits(qu[i]), bits(a[i] / b[i]));
  }
}

TEST(OpsElementwise, BroadcastingAndStridedInputs) {
  Tensor a = arange(6).view({2, 3}).to(kFloat32);
  Tensor b = tensor({10.0, 20.0, 30.0});
  EXPECT_EQ(to_vector<float>(a + b), (std::vector<float>{10, 21, 32, 13, 24, 35}));
  Tensor col = tensor({{1.0}, {2.0}});
  EXPECT_EQ(to_vector<float>(a * col), (std::vector<float>{0, 1, 2, 6, 8, 10}));
  EXPECT_EQ(to_vector<float>(a.t() + a.t()), (std::vector<float>{0, 6, 2, 8, 4, 10}));
  EXPECT_THROW(a + tensor({1.0, 2.0}), Error);
}

TEST(OpsElementwise, TypePromotionFollowsPyTorch) {
  Tensor i = tensor({1, 2}), f = tensor({1.0, 2.0}), d = tensor({1.0}, kFloat64), b = tensor({true, false});
  EXPECT_EQ((i + f).dtype(), kFloat32);
  EXPECT_EQ((f + d).dtype(), kFloat64);
  EXPECT_EQ((i + 1).dtype(), kInt64);
  EXPECT_EQ((i + 1.5).dtype(), kFloat32);
  EXPECT_EQ((f + 1.5).dtype(), kFloat32);
  EXPECT_EQ((b + 1).dtype(), kInt64);
  EXPECT_EQ((b + b).dtype(), kBool);
  EXPECT_EQ((i / i).dtype(), kFloat32);  // true division
  EXPECT_EQ(to_vector<float>(tensor({1, 3}) / 2), (std::vector<float>{0.5f, 1.5f}));
  // a 0-dim float64 tensor does not raise a float32 tensor, but does raise an int64 one
  EXPECT_EQ((f + scalar_tensor(2.0, kFloat64)).dtype(), kFloat32);
  EXPECT_EQ((i + scalar_tensor(2.0, kFloat64)).dtype(), kFloat64);
  EXPECT_EQ((i < f).dtype(), kBool);
  EXPECT_THROW(-b, Error);
  EXPECT_THROW(b - b, Error);
}

TEST(OpsElementwise, IntegerArithmeticIsExactAndWraps) {
  Tensor x = tensor({std::numeric_limits<int64_t>::max(), int64_t(-7), int64_t(5)});
  auto r = to_vector<int64_t>(x + 1);
  EXPECT_EQ(r[0], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(r[1], -6);
  EXPECT_EQ(to_vector<int64_t>(tensor({-3, 4}).abs()), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(to_vector<int64_t>(tensor({2, -3}).pow(3)), (std::vector<int64_t>{8, -27}));
  EXPECT_THROW(tensor({2}).pow(-1), Error);
  EXPECT_EQ(to_vector<int64_t>(tensor({-5, 0, 5}).clamp(-1, 2)), (std::vector<int64_t>{-1, 0, 2}));
}

TEST(OpsElementwise, UnaryFunctionsAgreeWithReference) {
  auto a = random_floats(5000, 3, 3.0f);
  Tensor t = from_vector(a, {5000});
  auto e = to_vector<float>(t.exp()), th = to_vector<float>(t.tanh()), sg = to_vector<float>(t.sigmoid()),
       rl = to_vector<float>(t.relu()), ab = to_vector<float>(t.abs()), lg = to_vector<float>(t.abs().log()),
       sq = to_vector<float>(t.abs().sqrt()), rs = to_vector<float>(t.abs().rsqrt()), p = to_vector<float>(t.pow(2)),
       ng = to_vector<float>(-t);
  for (size_t i = 0; i < a.size(); ++i) {
    const double x = a[i];
    ASSERT_NEAR(e[i], std::exp(x), 2e-7 * std::exp(x));
    ASSERT_NEAR(th[i], std::tanh(x), 2e-7);
    ASSERT_NEAR(sg[i], 1 / (1 + std::exp(-x)), 2e-7);
    ASSERT_EQ(rl[i], x > 0 ? a[i] : 0.0f);
    ASSERT_EQ(ab[i], std::fabs(a[i]));
    ASSERT_NEAR(lg[i], std::log(std::fabs(x)), 2e-7 * std::max(1.0, std::fabs(std::log(std::fabs(x)))));
    ASSERT_EQ(sq[i], std::sqrt(std::fabs(a[i])));
    ASSERT_EQ(rs[i], 1.0f / std::sqrt(std::fabs(a[i])));
    ASSERT_EQ(p[i], a[i] * a[i]);
    ASSERT_EQ(ng[i], -a[i]);
  }
  EXPECT_EQ(tensor({1, 2}).exp().dtype(), kFloat32);  // integers compute in float32
  EXPECT_TRUE(std::isnan(tensor({-1.0}).log().item<float>()));
  EXPECT_NEAR(tensor({2.0}).pow(0.3).item<float>(), std::pow(2.0, 0.3), 1e-6);
  EXPECT_NEAR(tensor({2.0}).pow(tensor({3.0})).item<float>(), 8.0f, 0.0f);
}

TEST(OpsElementwise, ComparisonsWhereMaskedFillClamp) {
  Tensor a = tensor({1.0, 2.0, 3.0}), b = tensor({3.0, 2.0, 1.0});
  EXPECT_EQ(to_vector<bool>(a < b), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(to_vector<bool>(a == b), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(to_vector<bool>(a >= 2), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(to_vector<float>(where(a > 1.5, a, b)), (std::vector<float>{3, 2, 3}));
  EXPECT_EQ(to_vector<float>(where(a > 1.5, a, 0.0)), (std::vector<float>{0, 2, 3}));
  EXPECT_EQ(to_vector<float>(a.masked_fill(a > 1.5, -1.0)), (std::vector<float>{1, -1, -1}));
  EXPECT_THROW(a.masked_fill(tensor({1, 0, 1}), 0.0), Error);
  EXPECT_THROW(where(tensor({1, 0, 1}), a, b), Error);
  EXPECT_EQ(to_vector<float>(a.clamp(1.5, 2.5)), (std::vector<float>{1.5f, 2, 2.5f}));
  EXPECT_EQ(to_vector<float>(a.clamp(std::nullopt, 2)), (std::vector<float>{1, 2, 2}));
  EXPECT_TRUE(std::isnan(tensor({NAN}).clamp(0, 1).item<float>()));
}

TEST(OpsReduce, SumIsTheCanonicalOrderBitForBit) {
  for (int64_t n : {0, 1, 31, 33, 1000, 32768, 32769, 100000, 1 << 20}) {
    auto a = random_floats(n, static_cast<uint32_t>(n) + 7);
    Tensor t = from_vector(a, {n});
    EXPECT_EQ(bits(t.sum().item<float>()), bits(canonical_sum_reference(a))) << "n=" << n;
  }
}

TEST(OpsReduce, LayoutDoesNotChangeTheBits) {
  // The reduced elements are combined in logical order, whatever the memory layout.
  auto a = random_floats(300 * 257, 11);
  Tensor x = from_vector(a, {300, 257});
  Tensor xt = x.t().contiguous().t();  // same values, column-major
  EXPECT_TRUE(equal(x.sum({0}), xt.sum({0})));
  EXPECT_TRUE(equal(x.sum({1}), xt.sum({1})));
  EXPECT_TRUE(equal(x.sum(), xt.sum()));
  for (int64_t j : {0, 5, 256}) {
    std::vector<float> col;
    for (int64_t i = 0; i < 300; ++i) col.push_back(a[i * 257 + j]);
    EXPECT_EQ(bits(x.sum({0})[j].item<float>()), bits(canonical_sum_reference(col)));
  }
}

TEST(OpsReduce, DimsKeepdimDtypes) {
  Tensor x = arange(24).view({2, 3, 4});
  EXPECT_EQ(x.sum().item<int64_t>(), 276);
  EXPECT_EQ(x.sum({1}).sizes(), (Shape{2, 4}));
  EXPECT_EQ(x.sum({1}, true).sizes(), (Shape{2, 1, 4}));
  EXPECT_EQ(to_vector<int64_t>(x.sum({0, 2})), (std::vector<int64_t>{60, 92, 124}));
  EXPECT_EQ(x.sum({-1}).sizes(), (Shape{2, 3}));
  EXPECT_EQ(tensor({true, true, false}).sum().item<int64_t>(), 2);
  EXPECT_EQ(tensor({true}).sum().dtype(), kInt64);
  EXPECT_EQ(x.to(kFloat32).mean({2}).sizes(), (Shape{2, 3}));
  EXPECT_FLOAT_EQ(x.to(kFloat32).mean().item<float>(), 11.5f);
  EXPECT_THROW(x.mean(), Error);  // integers: PyTorch refuses too
  EXPECT_EQ(tensor({1, 2, 3, 4}).prod().item<int64_t>(), 24);
  EXPECT_EQ(to_vector<int64_t>(x.prod(2)), (std::vector<int64_t>{0, 840, 7920, 32760, 93024, 212520}));
  EXPECT_THROW(x.sum({3}), Error);
  EXPECT_THROW(x.sum({1, 1}), Error);
  EXPECT_EQ(zeros({0}).sum().item<float>(), 0.0f);
  EXPECT_TRUE(std::isnan(zeros({0}).mean().item<float>()));
}

TEST(OpsReduce, MaxMinArgmaxVarStd) {
  Tensor x = tensor({{1.0, 5.0, 5.0}, {7.0, -1.0, 7.0}});
  EXPECT_EQ(x.max().item<float>(), 7.0f);
  EXPECT_EQ(x.min().item<float>(), -1.0f);
  auto [v, i] = x.max(1);
  EXPECT_EQ(to_vector<float>(v), (std::vector<float>{5, 7}));
  EXPECT_EQ(to_vector<int64_t>(i), (std::vector<int64_t>{1, 0}));  // first index of ties
  EXPECT_EQ(x.argmax().item<int64_t>(), 3);
  EXPECT_EQ(to_vector<int64_t>(x.argmin(0)), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(x.argmax(1, true).sizes(), (Shape{2, 1}));
  EXPECT_TRUE(std::isnan(tensor({1.0, NAN, 3.0}).max().item<float>()));
  EXPECT_EQ(tensor({1.0, NAN, 3.0}).argmax().item<int64_t>(), 1);
  EXPECT_THROW(zeros({0}).max(), Error);
  Tensor y = tensor({1.0, 2.0, 3.0, 4.0}, kFloat64);
  EXPECT_DOUBLE_EQ(y.var().item<double>(), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(y.var({}, false).item<double>(), 1.25);
  EXPECT_DOUBLE_EQ(y.std().item<double>(), std::sqrt(5.0 / 3.0));
  EXPECT_EQ(x.var({1}).sizes(), (Shape{2}));
  EXPECT_THROW(tensor({1, 2}).var(), Error);
}

TEST(OpsReduce, SoftmaxRowsSumToOneAndMatchReference) {
  auto a = random_floats(37 * 50, 5, 4.0f);
  Tensor x = from_vector(a, {37, 50});
  for (int64_t dim : {0, 1}) {
    Tensor s = x.softmax(dim), ls = x.log_softmax(dim);
    const int64_t M = dim == 1 ? 37 : 50, R = dim == 1 ? 50 : 37;
    for (int64_t m = 0; m < M; ++m) {
      double mx = -1e30, tot = 0;
      for (int64_t r = 0; r < R; ++r) mx = std::max<double>(mx, dim == 1 ? a[m * 50 + r] : a[r * 50 + m]);
      for (int64_t r = 0; r < R; ++r) tot += std::exp((dim == 1 ? a[m * 50 + r] : a[r * 50 + m]) - mx);
      for (int64_t r = 0; r < R; ++r) {
        const double xv = dim == 1 ? a[m * 50 + r] : a[r * 50 + m];
        const float sv = dim == 1 ? s[m][r].item<float>() : s[r][m].item<float>();
        const float lv = dim == 1 ? ls[m][r].item<float>() : ls[r][m].item<float>();
        ASSERT_NEAR(sv, std::exp(xv - mx) / tot, 1e-6);
        ASSERT_NEAR(lv, xv - mx - std::log(tot), 1e-5);
      }
    }
  }
  EXPECT_THROW(tensor({1, 2}).softmax(0), Error);
}

// Note [Softmax over any dim]: over a non-last dim, each line gets the row kernel's bits (the
// same values moved last and made contiguous), whatever the tile; and the one-pass backward gives
// the composed formula's bits (y * (g - sum(g * y)), g - exp(y) * sum(g)).
TEST(OpsReduce, SoftmaxOverAnyDimIsTheRowKernelsBitsForwardAndBackward) {
  const std::vector<Shape> shapes = {{4, 21, 9, 11}, {40000, 3}, {3, 5000, 5}, {2, 300, 70}, {7}};
  for (const Shape& shape : shapes) {
    for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
      for (bool log : {false, true}) {
        for (ScalarType dt : {kFloat32, kFloat64}) {
          const std::string what = std::string(log ? "log_softmax " : "softmax ") + dtype_name(dt) + " " +
                                   std::to_string(shape.size()) + "-D of " + std::to_string(shape[0]) + ".. dim " +
                                   std::to_string(d);
          auto f = [log](const Tensor& t, int64_t dim) { return log ? t.log_softmax(dim) : t.softmax(dim); };
          Tensor x = (randn(shape, dt) * 4.0).requires_grad_();
          const Tensor w = randn(shape, dt);
          Tensor y = f(x, d);
          const Tensor moved = f(x.detach().transpose(d, -1).contiguous(), -1).transpose(d, -1);
          EXPECT_EQ(fingerprint(y), fingerprint(moved.contiguous())) << what;
          (y * w).sum().backward();
          const Tensor yd = y.detach();
          const Tensor want = log ? w - yd.exp() * w.sum({d}, true) : yd * (w - (w * yd).sum({d}, true));
          EXPECT_EQ(fingerprint(x.grad()), fingerprint(want)) << what;
        }
      }
    }
  }
}

TEST(OpsLinalg, MatmulIsTheSequentialFmaChain) {
  const int64_t M = 13, K = 70, N = 9;
  auto a = random_floats(M * K, 21), b = random_floats(K * N, 22);
  Tensor ta = from_vector(a, {M, K}), tb = from_vector(b, {K, N});
  auto c = to_vector<float>(ta.mm(tb));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < K; ++k) acc = std::fma(a[i * K + k], b[k * N + j], acc);
      ASSERT_EQ(bits(c[i * N + j]), bits(acc)) << i << "," << j;
    }
  // transposed operands give the same bits
  Tensor tbt = tb.t().contiguous().t();
  EXPECT_TRUE(equal(ta.mm(tbt), ta.mm(tb)));
}

TEST(OpsLinalg, MatmulShapesAndBatchInvariance) {
  Tensor a = randn({4, 3, 5}), b = randn({5, 2});
  Tensor c = a.matmul(b);
  EXPECT_EQ(c.sizes(), (Shape{4, 3, 2}));
  for (int64_t i = 0; i < 4; ++i) EXPECT_TRUE(equal(c[i], a[i].mm(b)));  // each sample alone: same bits
  EXPECT_EQ(tensor({1.0, 2.0}).matmul(tensor({3.0, 4.0})).item<float>(), 11.0f);
  EXPECT_EQ(randn({3, 4}).matmul(randn({4})).sizes(), (Shape{3}));
  EXPECT_EQ(randn({4}).matmul(randn({4, 2})).sizes(), (Shape{2}));
  EXPECT_EQ(randn({2, 1, 3, 4}).matmul(randn({5, 4, 2})).sizes(), (Shape{2, 5, 3, 2}));
  EXPECT_EQ(to_vector<int64_t>(tensor({{1, 2}, {3, 4}}).mm(tensor({{5}, {6}}))), (std::vector<int64_t>{17, 39}));
  try {
    randn({4, 2}).mm(randn({3, 1}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "[mm] shapes (4x2) and (3x1) cannot be multiplied");
  }
  EXPECT_THROW(randn({2, 3}).mm(randn({3, 2}, kFloat64)), Error);
  EXPECT_THROW(bmm(randn({2, 3, 4}), randn({3, 4, 5})), Error);
}

TEST(OpsLinalg, AddmmAddsBiasAfterTheChain) {
  Tensor bias = tensor({0.5, -1.0});
  Tensor a = randn({3, 4}), w = randn({4, 2});
  Tensor out = addmm(bias, a, w);
  Tensor ref = a.mm(w) + bias;
  EXPECT_TRUE(equal(out, ref));
  Tensor scaled = addmm(bias, a, w, 2.0, 0.5);
  auto s = to_vector<float>(scaled), m = to_vector<float>(a.mm(w)), bv = to_vector<float>(bias);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(s[i], 2.0f * bv[i % 2] + 0.5f * m[i]);
}

TEST(OpsIndex, CatStackIndexSelectGather) {
  Tensor a = arange(6).view({2, 3}), b = arange(6, 9).view({1, 3});
  Tensor c = cat({a, b});
  EXPECT_EQ(c.sizes(), (Shape{3, 3}));
  EXPECT_EQ(to_vector<int64_t>(c), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(cat({a, a}, 1).sizes(), (Shape{2, 6}));
  EXPECT_EQ(cat({a.to(kFloat32), a}).dtype(), kFloat32);
  EXPECT_THROW(cat({a, arange(4).view({2, 2})}), Error);
  Tensor s = stack({a, a}, 1);
  EXPECT_EQ(s.sizes(), (Shape{2, 2, 3}));
  EXPECT_TRUE(equal(s.select(1, 0), a));
  EXPECT_THROW(stack({a, b}), Error);
  Tensor idx = tensor({2, 0, 2});
  EXPECT_EQ(to_vector<int64_t>(a.index_select(1, idx)), (std::vector<int64_t>{2, 0, 2, 5, 3, 5}));
  EXPECT_THROW(a.index_select(1, tensor({3})), Error);
  EXPECT_THROW(a.index_select(1, tensor({-1})), Error);
  EXPECT_THROW(a.index_select(1, tensor({1.0})), Error);
  Tensor g = a.gather(1, tensor({{2, 2}, {0, 1}}));
  EXPECT_EQ(to_vector<int64_t>(g), (std::vector<int64_t>{2, 2, 3, 4}));
  Tensor g0 = a.gather(0, tensor({{1, 0, 1}}));
  EXPECT_EQ(to_vector<int64_t>(g0), (std::vector<int64_t>{3, 1, 5}));
  try {
    a.gather(1, tensor({{3}, {0}}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[gather] index 3 is out of bounds", 0), 0u) << e.what();
  }
  EXPECT_THROW(a.gather(1, tensor({1, 2})), Error);
}

// libtorch's spellings (issue: a C++ user writes them): one int where a dim list goes, Tensor
// methods for amax/amin, and the functional names beside ditto's without ambiguity.
namespace spelling {
using namespace ditto;
using namespace ditto::nn::functional;

TEST(LibtorchSpellings, SingleDimReductionsAndFunctionalNames) {
  const Tensor t = arange(12, kFloat32).reshape({3, 4}) - 5.0;
  EXPECT_TRUE(equal(t.sum(0), t.sum({0})));
  EXPECT_TRUE(equal(t.sum(1, /*keepdim=*/true), t.sum(Shape{1}, true)));
  EXPECT_EQ(t.sum(1, true).sizes(), Shape({3, 1}));
  EXPECT_EQ(t.sum().dim(), 0);
  EXPECT_EQ(t.sum(kFloat64).dtype(), kFloat64);
  EXPECT_EQ(t.sum(0, false, kFloat64).dtype(), kFloat64);
  EXPECT_TRUE(equal(t.mean(-1), t.mean({1})));
  EXPECT_TRUE(equal(t.amax(1), tensor({-2.0f, 2.0f, 6.0f})));
  EXPECT_TRUE(equal(t.amin(0, true), tensor({{-5.0f, -4.0f, -3.0f, -2.0f}})));
  EXPECT_EQ(t.amax().item<float>(), 6.0f);
  EXPECT_TRUE(equal(t.var(0), t.var({0})));
  EXPECT_TRUE(equal(t.std(1, false, true), t.std({1}, false, true)));
  EXPECT_TRUE(equal(t.softmax(-1), t.softmax(1)));
  EXPECT_TRUE(equal(t.argmax(1), tensor({3, 3, 3})));
  EXPECT_TRUE(equal(ditto::sum(t, 1), t.sum({1})));
  EXPECT_TRUE(equal(ditto::amax(t, 0), t.amax({0})));
  EXPECT_TRUE(equal(ditto::var(t, 1, false), t.var({1}, false)));
  // unqualified, with both namespaces open: one function each
  EXPECT_TRUE(equal(relu(t), t.relu()));
  EXPECT_TRUE(equal(softmax(t, 1), t.softmax(1)));
  EXPECT_TRUE(equal(log_softmax(t, 1), t.log_softmax(1)));
  EXPECT_TRUE(equal(gelu(t), ditto::gelu(t)));
  EXPECT_TRUE(equal(sigmoid(t), t.sigmoid()));
}
}  // namespace spelling

// tril / triu against the definition, element by element and bit for bit: kept elements are the
// input's (inf and NaN too), the others exactly 0; leading dims batch; any dtype; the gradient is
// masked the same way.
TEST(Ops, TrilTriuKeepTheirTriangleExactly) {
  Tensor x = randn({2, 4, 5});
  x.view({-1}).narrow(0, 3, 1).fill_(std::numeric_limits<float>::infinity());
  x.view({-1}).narrow(0, 17, 1).fill_(std::nanf(""));
  for (int64_t k : {-5, -1, 0, 2, 7}) {
    for (bool lower : {true, false}) {
      const Tensor y = lower ? tril(x, k) : triu(x, k);
      ASSERT_EQ(y.sizes(), x.sizes());
      const auto xv = to_vector<float>(x), yv = to_vector<float>(y);
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < 4; ++i)
          for (int64_t j = 0; j < 5; ++j) {
            const std::size_t e = static_cast<std::size_t>((b * 4 + i) * 5 + j);
            const bool keep = lower ? j - i <= k : j - i >= k;
            const float want = keep ? xv[e] : 0.0f;
            EXPECT_EQ(std::memcmp(&yv[e], &want, sizeof(float)), 0) << "k " << k << " lower " << lower << " at " << e;
          }
    }
  }
  EXPECT_TRUE(equal(tril(ones({3, 3}, kBool)), tril(ones({3, 3})).to(kBool)));
  EXPECT_EQ(triu(ones({2, 3}, kInt64), 1).dtype(), kInt64);
  Tensor w = randn({3, 4}).requires_grad_();
  tril(w, 1).backward(ones({3, 4}));
  EXPECT_TRUE(equal(w.grad(), tril(ones({3, 4}), 1)));
  try {
    tril(randn({3}));
    ADD_FAILURE() << "expected ditto::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[tril] tril: input tensor must have at least 2 dimensions"),
              std::string::npos)
        << e.what();
  }
}

// An empty input reduced over a dim of size 0 is refused even when the result is empty too
// (PyTorch's "Expected reduction dim 1 to have non-zero size."); a non-empty reduced dim of an
// empty input gives an empty result.
TEST(Ops, EmptyInputsReduceOnlyOverNonEmptyDims) {
  using ditto::testing::expect_error;
  const Tensor x = zeros({0, 0, 5});
  expect_error([&] { amax(x, {1}, true); }, "[amax]", "Expected reduction dim 1 to have non-zero size.");
  expect_error([&] { amin(x, {-2}); }, "[amin]", "Expected reduction dim 1");
  expect_error([&] { x.max(1); }, "[max]", "Expected reduction dim 1");
  expect_error([&] { x.argmax(1); }, "[argmax]", "Expected reduction dim 1");
  EXPECT_EQ(amax(x, {2}).sizes(), (Shape{0, 0}));
  EXPECT_EQ(x.argmax(2).sizes(), (Shape{0, 0}));
  EXPECT_EQ(zeros({0, 3}).max(1).first.sizes(), (Shape{0}));
}
