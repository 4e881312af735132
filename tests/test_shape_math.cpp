// The ops a transformer and its training loop use (issue 17, item 2): shape ops made of views,
// copies and cat (split, chunk, unbind, repeat, tile, flip, roll, movedim), einsum, baddbmm,
// outer, norms, logsumexp, the rounding and modulo ops, maximum/minimum and the activations.
// References are written out with index arithmetic; where the op moves elements or rounds
// exactly the comparison is bitwise. PyTorch's own results for all of them: the OpInfo sweep
// (python/tests/sweep.py).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ditto/ditto.h"
#include "expect_error.h"

using namespace ditto;
using ditto::testing::expect_error;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

int64_t shape_numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// 0, 1, 2, ... as float32 of the given shape (every value distinct, so moves are visible)
Tensor iota(const Shape& s) { return arange(Scalar(shape_numel(s)), kFloat32).reshape(s); }

std::vector<float> values(const Tensor& t) {
  const Tensor c = t.contiguous().to(kFloat32);
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

// float64 results within a relative 1e-12 of a reference computed another way
bool allclose_for_test(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  const Tensor x = a.contiguous().to(kFloat64), y = b.contiguous().to(kFloat64);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double u = x.data_ptr<double>()[i], v = y.data_ptr<double>()[i];
    if (std::fabs(u - v) > 1e-12 * (1 + std::fabs(v))) return false;
  }
  return true;
}

}  // namespace

TEST(ShapeOps, SplitChunkUnbindAreViewsOfTheRightSizes) {
  const Tensor x = iota({7, 3});
  const auto parts = x.split(3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].sizes(), (Shape{3, 3}));
  EXPECT_EQ(parts[2].sizes(), (Shape{1, 3}));
  EXPECT_EQ(parts[2].storage(), x.storage());
  EXPECT_EQ(parts[2][0][1].item<float>(), 19.0f);
  const auto sized = x.split({2, 0, 5});
  ASSERT_EQ(sized.size(), 3u);
  EXPECT_EQ(sized[1].sizes(), (Shape{0, 3}));
  EXPECT_EQ(sized[2][0][0].item<float>(), 6.0f);
  // chunk: ceil(7 / 3) = 3 per piece; 6 chunks of a dim of 7 give 4 (2 each), as PyTorch
  EXPECT_EQ(x.chunk(3).size(), 3u);
  EXPECT_EQ(x.chunk(6).size(), 4u);
  EXPECT_EQ(x.chunk(6)[3].sizes(), (Shape{1, 3}));
  EXPECT_EQ(zeros({0, 2}).chunk(3).size(), 3u);  // an empty dim: `chunks` empty pieces
  EXPECT_EQ(zeros({0, 2}).split(2).size(), 1u);
  const auto cols = x.unbind(1);
  ASSERT_EQ(cols.size(), 3u);
  EXPECT_EQ(cols[1].sizes(), (Shape{7}));
  EXPECT_EQ(values(cols[1])[4], 13.0f);
  // q, k, v from one projection, as a GPT writes it
  const auto qkv = iota({2, 5, 12}).split(4, 2);
  ASSERT_EQ(qkv.size(), 3u);
  EXPECT_EQ(qkv[2][1][4][3].item<float>(), 1.0f * (1 * 60 + 4 * 12 + 8 + 3));
}

TEST(ShapeOps, SplitGradientsReachTheirSlices) {
  Tensor x = rand({6, 2}).requires_grad_();
  const auto p = x.split({1, 2, 3});
  (p[0].sum() + p[2].sum() * 3.0).backward();
  const std::vector<float> g = values(x.grad());
  const std::vector<float> want = {1, 1, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3};
  EXPECT_EQ(g, want);
}

TEST(ShapeOps, RepeatTileFlipRollMovedimMoveEveryElementWhereIndexArithmeticSays) {
  const Tensor x = iota({2, 3});
  // repeat (2, 1, 2): out[a][i][j] = x[i % 2][j % 3]
  const Tensor r = x.repeat({2, 1, 2});
  ASSERT_EQ(r.sizes(), (Shape{2, 2, 6}));
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 6; ++j) EXPECT_EQ(r[a][i][j].item<float>(), x[i][j % 3].item<float>());
  EXPECT_TRUE(equal(x.tile({2}), x.repeat({1, 2})));
  EXPECT_NE(x.repeat({1, 1}).storage(), x.storage());  // a copy even when nothing repeats
  // flip both dims: out[i][j] = x[1 - i][2 - j]
  const Tensor f = x.flip({0, 1});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(f[i][j].item<float>(), x[1 - i][2 - j].item<float>());
  EXPECT_TRUE(equal(x.flip({}), x));
  // roll: out[i][j] = x[(i - 1) mod 2][(j + 1) mod 3]; flat roll by 2 of 0..5 is 4 5 0 1 2 3
  const Tensor rl = x.roll({1, -1}, {0, 1});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(rl[i][j].item<float>(), x[(i + 1) % 2][(j + 1) % 3].item<float>());
  EXPECT_EQ(values(x.roll(2)), (std::vector<float>{4, 5, 0, 1, 2, 3}));
  EXPECT_EQ(values(x.roll(-7)), (std::vector<float>{1, 2, 3, 4, 5, 0}));
  // movedim (0, 1) -> (2, 0) of (2, 3, 4): the result's dims are (1, 2, 0)
  const Tensor y = iota({2, 3, 4});
  const Tensor m = y.movedim({0, 1}, {2, 0});
  EXPECT_EQ(m.sizes(), (Shape{3, 4, 2}));
  EXPECT_TRUE(equal(m, y.permute({1, 2, 0})));
  EXPECT_TRUE(equal(y.movedim(-1, 0), y.permute({2, 0, 1})));
  EXPECT_TRUE(equal(y.swapaxes(0, 2), y.transpose(0, 2)));
}

TEST(ShapeOps, GradientsOfCopiesAreExact) {
  Tensor x = rand({3, 4}, kFloat64).requires_grad_();
  const Tensor w = rand({3, 4}, kFloat64);
  (x.flip({1}) * w.flip({1})).sum().backward();
  EXPECT_TRUE(equal(x.grad(), w));
  x.mutable_grad() = Tensor();
  (x.roll({2}, {1}) * w.roll({2}, {1})).sum().backward();
  EXPECT_TRUE(equal(x.grad(), w));
  x.mutable_grad() = Tensor();
  x.repeat({2, 1}).sum().backward();  // each element copied twice
  EXPECT_TRUE(equal(x.grad(), full({3, 4}, 2.0, kFloat64)));
}

TEST(ShapeOps, BadArgumentsRaiseNamingTheOp) {
  const Tensor x = zeros({4, 3});
  expect_error([&] { x.split({1, 2}); }, "[split_with_sizes]", "to sum exactly to 4");
  expect_error([&] { x.split(-1); }, "[split]", "non-negative");
  expect_error([&] { x.split(0); }, "[split]", "can only be 0");
  expect_error([&] { x.chunk(0); }, "[chunk]", "greater than 0");
  expect_error([&] { zeros({}).unbind(); }, "[unbind]", "no dimensions");
  expect_error([&] { x.repeat({2}); }, "[repeat]", "can not be smaller");
  expect_error([&] { x.repeat({int64_t{1} << 62, 8}); }, "[repeat]", "overflows");
  expect_error([&] { x.flip({0, -2}); }, "[flip]", "duplicates");
  expect_error([&] { x.roll({1, 2}, {0}); }, "[roll]", "must align");
  expect_error([&] { x.movedim({0, 0}, {0, 1}); }, "[movedim]", "repeated dim in `source`");
  expect_error([&] { x.movedim({0}, {5}); }, "[movedim]", "out of range");
}

TEST(Einsum, ContractionsEqualTheirMatrixProducts) {
  const Tensor a = rand({3, 4}), b = rand({4, 5}), q = rand({2, 3, 6, 8}), k = rand({2, 3, 7, 8});
  // one bmm with the GEMM's fixed order: the same bits as mm / matmul
  EXPECT_TRUE(equal(einsum("ij,jk->ik", {a, b}), mm(a, b)));
  EXPECT_TRUE(equal(einsum("bhqd,bhkd->bhqk", {q, k}), matmul(q, k.transpose(-1, -2))));
  EXPECT_TRUE(equal(einsum("...ij,...kj", {q, k}), matmul(q, k.transpose(-1, -2))));
  EXPECT_TRUE(equal(einsum("ij->ji", {a}), a.t()));
  EXPECT_TRUE(equal(einsum("ij", {a}), a));
  EXPECT_TRUE(equal(einsum("ji", {a}), a.t()));  // implicit output: alphabetical
  const Tensor u = rand({3}), v = rand({5});
  EXPECT_TRUE(equal(einsum("i,j->ij", {u, v}), outer(u, v)));
  EXPECT_TRUE(equal(outer(u, v), u.reshape({3, 1}) * v));
  // a diagonal and a trace: exact sums of one element and zeros
  const Tensor s = iota({3, 3});
  EXPECT_EQ(values(einsum("ii->i", {s})), (std::vector<float>{0, 4, 8}));
  EXPECT_EQ(einsum("ii", {s}).item<float>(), 12.0f);
  // three operands, left to right
  const Tensor c = rand({5, 2});
  const Tensor abc = einsum("ij,jk,kl->il", {a, b, c});
  EXPECT_TRUE(equal(abc, mm(mm(a, b), c)));
}

TEST(Einsum, BadEquationsRaise) {
  const Tensor a = rand({3, 4}), b = rand({4, 5});
  expect_error([&] { einsum("ij,jk->ik", {a}); }, "[einsum]", "more operands were provided than specified");
  expect_error([&] { einsum("ij->ij", {a, b}); }, "[einsum]", "fewer operands");
  expect_error([&] { einsum("i1,jk", {a, b}); }, "[einsum]", "invalid subscript given at index 1");
  expect_error([&] { einsum("ijk,jk", {a, b}); }, "[einsum]", "does not match the number of dimensions");
  expect_error([&] { einsum("ij,jk->iz", {a, b}); }, "[einsum]", "output subscript z does not appear");
  expect_error([&] { einsum("ij,jk->ii", {a, b}); }, "[einsum]", "appears more than once");
  expect_error([&] { einsum("ij,ik", {a, b}); }, "[einsum]", "do not broadcast");
  expect_error([&] { einsum("i.j", {a}); }, "[einsum]", "not part of any ellipsis");
  expect_error([&] { einsum("ij,jk", {a, b.to(kFloat64)}); }, "[einsum]", "same dtype");
}

TEST(Baddbmm, IsBetaSelfPlusAlphaProducts) {
  const Tensor self = rand({2, 3, 5}), b1 = rand({2, 3, 4}), b2 = rand({2, 4, 5});
  EXPECT_TRUE(equal(baddbmm(self, b1, b2), self + bmm(b1, b2)));
  EXPECT_TRUE(equal(baddbmm(self, b1, b2, 0.5, 2), self * 0.5 + bmm(b1, b2) * 2));
  // beta 0 does not read self: its NaNs do not propagate
  const Tensor nan_self = full({1}, kNaN);
  EXPECT_TRUE(equal(baddbmm(nan_self, b1, b2, 0), bmm(b1, b2)));
  // integers take the scalars truncated, as PyTorch (0.6 -> 0, 2.6 -> 2)
  const Tensor i1 = ones({1, 2, 2}, kInt64);
  EXPECT_EQ(values(baddbmm(i1 * 5, i1, i1, 1.7, 2.6))[0], 9.0f);
  expect_error([&] { baddbmm(rand({7}), b1, b2); }, "[baddbmm]", "cannot be broadcast");
  expect_error([&] { baddbmm(self, rand({3, 4}), b2); }, "[baddbmm]", "batch1 must be a 3D tensor");
}

TEST(Norms, ValuesOfEveryOrder) {
  const Tensor x = tensor({3.0, -4.0, 0.0}, kFloat64);
  EXPECT_EQ(x.norm().item<double>(), 5.0);
  EXPECT_EQ(x.norm(1).item<double>(), 7.0);
  EXPECT_EQ(x.norm(0).item<double>(), 2.0);
  EXPECT_EQ(linalg::vector_norm(x, kInf).item<double>(), 4.0);
  EXPECT_EQ(linalg::vector_norm(x, -kInf).item<double>(), 0.0);
  EXPECT_NEAR(x.norm(3).item<double>(), std::cbrt(91.0), 1e-15);
  const Tensor m = tensor({{3.0f, 4.0f}, {6.0f, 8.0f}});
  EXPECT_EQ(values(m.norm(2, {1})), (std::vector<float>{5, 10}));
  EXPECT_EQ(m.norm(2, {1}, true).sizes(), (Shape{2, 1}));
  expect_error([&] { linalg::vector_norm(zeros({0, 3}), kInf); }, "[linalg.vector_norm]", "empty tensor");
  expect_error([&] { linalg::vector_norm(zeros({0, 3}), kInf, {0}); }, "[linalg.vector_norm]", "dimension 0");
  EXPECT_EQ(linalg::vector_norm(zeros({0, 3}), kInf, {1}).sizes(), (Shape{0}));
  expect_error([&] { ones({2}, kInt64).norm(); }, "[linalg.vector_norm]", "floating point");
}

TEST(Norms, GradientIsPyTorchsAndZeroAtZero) {
  // a zero norm: PyTorch's norm_backward gives 0, not NaN (0 / 0), so F.normalize of a zero row
  // has the finite gradient 1 / eps of its clamped denominator
  Tensor z = zeros({2, 3}, kFloat64).requires_grad_();
  z.norm(2, {1}).sum().backward();
  EXPECT_TRUE(equal(z.grad(), zeros({2, 3}, kFloat64)));
  z.mutable_grad() = Tensor();
  nn::functional::normalize(z).sum().backward();
  EXPECT_TRUE(equal(z.grad(), full({2, 3}, 1e12, kFloat64)));
  Tensor x = tensor({3.0, -4.0}, kFloat64).requires_grad_();
  x.norm().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{0.6f, -0.8f}));
  // the inf norm shares the gradient among the ties
  Tensor t = tensor({1.0, -3.0, 3.0}, kFloat64).requires_grad_();
  linalg::vector_norm(t, kInf).backward();
  EXPECT_EQ(values(t.grad()), (std::vector<float>{0.0f, -0.5f, 0.5f}));
}

TEST(Logsumexp, StaysFiniteAndKeepsInfinities) {
  const Tensor big = tensor({1000.0f, 1000.0f});
  EXPECT_NEAR(big.logsumexp(0).item<float>(), 1000.0f + std::log(2.0f), 1e-3);
  EXPECT_EQ(tensor({-kInf, -kInf}).logsumexp(0).item<float>(), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(tensor({kInf, 1.0}).logsumexp(0).item<float>(), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(tensor({kNaN, 1.0}).logsumexp(0).item<float>()));
  EXPECT_EQ(zeros({0}).logsumexp(0).item<float>(), -std::numeric_limits<float>::infinity());
  const Tensor x = rand({4, 5}, kFloat64);
  const Tensor naive = x.exp().sum({1}).log();
  EXPECT_TRUE(allclose_for_test(x.logsumexp(1), naive));
  EXPECT_EQ(ones({2, 3}, kInt64).logsumexp(1).dtype(), kFloat32);
  Tensor g = x.clone().requires_grad_();
  g.logsumexp({1}).sum().backward();
  EXPECT_TRUE(allclose_for_test(g.grad(), x.softmax(1)));
}

TEST(Elementwise, RoundingAndModuloAreExact) {
  const Tensor x = tensor({-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.7, 1.7}, kFloat64);
  EXPECT_EQ(values(x.round()), (std::vector<float>{-2, -2, -0, 0, 2, 2, -2, 2}));  // half to even
  EXPECT_EQ(values(x.floor()), (std::vector<float>{-3, -2, -1, 0, 1, 2, -2, 1}));
  EXPECT_EQ(values(x.ceil()), (std::vector<float>{-2, -1, -0, 1, 2, 3, -1, 2}));
  EXPECT_EQ(values(x.trunc()), (std::vector<float>{-2, -1, -0, 0, 1, 2, -1, 1}));
  EXPECT_EQ(std::signbit(tensor({-0.5}).round().item<float>()), true);
  EXPECT_EQ(ones({2}, kInt64).floor().dtype(), kInt64);
  expect_error([&] { ones({2}, kBool).floor(); }, "[floor]", "Bool");
  // fmod has a's sign, remainder b's
  const Tensor a = tensor({-3.0, 3.0, -3.0, 3.0}), b = tensor({2.0, 2.0, -2.0, -2.0});
  EXPECT_EQ(values(fmod(a, b)), (std::vector<float>{-1, 1, -1, 1}));
  EXPECT_EQ(values(remainder(a, b)), (std::vector<float>{1, 1, -1, -1}));
  EXPECT_TRUE(std::isnan(remainder(tensor({5.5}), tensor({0.0})).item<float>()));
  const Tensor ia = tensor(std::vector<int64_t>{-7, 7, std::numeric_limits<int64_t>::min()});
  EXPECT_EQ(values(remainder(ia, Scalar(3)))[0], 2.0f);
  EXPECT_EQ(fmod(ia, Scalar(-1)).sum().item<int64_t>(), 0);  // INT64_MIN % -1 is 0, without UB
  expect_error([&] { fmod(ia, tensor(std::vector<int64_t>{1, 0, 1})); }, "[fmod]", "ZeroDivisionError");
  expect_error([&] { remainder(ia, Scalar(0)); }, "[remainder]", "ZeroDivisionError");
  expect_error([&] { fmod(ones({1}, kBool), ones({1}, kBool)); }, "[fmod]", "Bool");
}

TEST(Elementwise, MaximumPropagatesNaNAndSplitsTies) {
  const Tensor a = tensor({1.0, kNaN, 2.0, 5.0}), b = tensor({2.0, 1.0, kNaN, 5.0});
  const std::vector<float> mx = values(maximum(a, b)), mn = values(minimum(a, b));
  EXPECT_EQ(mx[0], 2.0f);
  EXPECT_TRUE(std::isnan(mx[1]) && std::isnan(mx[2]) && std::isnan(mn[1]) && std::isnan(mn[2]));
  EXPECT_EQ(mn[0], 1.0f);
  Tensor x = tensor({1.0, 2.0, 3.0}).requires_grad_(), y = tensor({1.0, 1.0, 4.0}).requires_grad_();
  maximum(x, y).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{0.5f, 1, 0}));
  EXPECT_EQ(values(y.grad()), (std::vector<float>{0.5f, 0, 1}));
  EXPECT_EQ(values(clamp_min(tensor({-1.0, 2.0}), 0)), (std::vector<float>{0, 2}));
  EXPECT_EQ(values(clamp_max(tensor({-1.0, 2.0}), 0)), (std::vector<float>{-1, 0}));
}

TEST(Activations, MatchTheirFormulasInDouble) {
  std::vector<double> xs;
  for (int i = -40; i <= 40; ++i) xs.push_back(i * 0.25);
  const Tensor x = tensor(xs, kFloat64);
  auto check = [&](const Tensor& got, double (*ref)(double), double tol) {
    const Tensor c = got.contiguous();
    for (std::size_t i = 0; i < xs.size(); ++i)
      EXPECT_NEAR(c.data_ptr<double>()[i], ref(xs[i]), tol * (1 + std::fabs(ref(xs[i])))) << "x = " << xs[i];
  };
  check(
      silu(x), [](double v) { return v / (1 + std::exp(-v)); }, 1e-15);
  check(
      mish(x), [](double v) { return v * std::tanh(std::log1p(std::exp(v))); }, 1e-15);
  check(
      softplus(x, 2, 3), [](double v) { return 2 * v > 3 ? v : std::log1p(std::exp(2 * v)) / 2; }, 1e-15);
  check(
      elu(x, 1.5), [](double v) { return v > 0 ? v : 1.5 * std::expm1(v); }, 1e-15);
  check(
      leaky_relu(x, 0.2), [](double v) { return v > 0 ? v : 0.2 * v; }, 0);
  check(
      hardswish(x), [](double v) { return v * std::min(std::max(v + 3, 0.0), 6.0) / 6; }, 0);
  check(
      hardtanh(x, -1, 2), [](double v) { return std::min(std::max(v, -1.0), 2.0); }, 0);
  check(
      nn::functional::relu6(x), [](double v) { return std::min(std::max(v, 0.0), 6.0); }, 0);
  check(
      sin(x), [](double v) { return std::sin(v); }, 1e-15);
  check(
      erf(x), [](double v) { return std::erf(v); }, 1e-15);
  check(
      expm1(x), [](double v) { return std::expm1(v); }, 1e-15);
  // clamp's order: when min > max every element is max, as PyTorch
  EXPECT_EQ(values(hardtanh(tensor({-5.0f, 0.0f, 5.0f}), 0.5, -0.5)), (std::vector<float>{-0.5f, -0.5f, -0.5f}));
  EXPECT_TRUE(std::isnan(hardswish(tensor({kNaN})).item<float>()));
  EXPECT_EQ(hardtanh(tensor(std::vector<int64_t>{-3, 0, 5})).sum().item<int64_t>(), 0);
  expect_error([&] { silu(ones({2}, kInt64)); }, "[silu]", "not implemented for 'Long'");
  expect_error([&] { leaky_relu(ones({2}), 1e300); }, "[leaky_relu]", "without overflow");
  // the modules call them
  nn::SiLU m;
  EXPECT_TRUE(equal(m(x), silu(x)));
  nn::Hardtanh h(-0.5, 0.5);
  EXPECT_TRUE(equal(h(x), hardtanh(x, -0.5, 0.5)));
}

// reciprocal is IEEE division, 1 / x, so PyTorch's bits: signed zeros give signed infinities,
// integers and bool are computed as float32; a strided float64 input too.
TEST(Reciprocal, IsOneOverXBitForBit) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> xs = {3.0f, -0.0f, 0.0f, 1e-40f, -7.25f, inf, -inf, nan, 3e38f, 0.1f};
  const std::vector<float> got = to_vector<float>(reciprocal(tensor(xs)));
  ASSERT_EQ(got.size(), xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(1.0f / xs[i])) << "x = " << xs[i];
  const Tensor d = arange(1.0, 41.0, 1.0, kFloat64).view({5, 8}).t();
  const std::vector<double> dv = to_vector<double>(d.contiguous()), dr = to_vector<double>(d.reciprocal().contiguous());
  for (std::size_t i = 0; i < dv.size(); ++i) EXPECT_EQ(dr[i], 1.0 / dv[i]);
  const Tensor ints = reciprocal(tensor(std::vector<int64_t>{-2, 0, 4}));
  EXPECT_EQ(ints.dtype(), kFloat32);
  EXPECT_EQ(to_vector<float>(ints), (std::vector<float>{-0.5f, inf, 0.25f}));
}
