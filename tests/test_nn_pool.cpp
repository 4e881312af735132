// Pooling: PyTorch's answers bit for bit (tests/data/pytorch-nn-conv.json), max_unpool's refusal
// in deterministic mode, thread and batch invariance, modules, bad input, gradient-check samples.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "ditto/ditto.h"
#include "expect_error.h"
#include "gradcheck.h"
#include "guards.h"
#include "nn_conv_golden.h"

using namespace ditto;
namespace F = ditto::nn::functional;
namespace cg = ditto::testing::conv_golden;
using cg::json;

namespace {

using ditto::testing::expect_error;

void expect_refused(const std::function<void()>& fn, const std::string& op) {
  try {
    fn();
    ADD_FAILURE() << "expected NondeterministicError for " << op;
  } catch (const NondeterministicError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(op + " does not have a deterministic implementation", 0), 0u) << m;
  }
}

Shape shape_or_empty(const json& v) { return v.is_null() ? Shape{} : v.get<Shape>(); }

}  // namespace

// ------------------------------------------------------------------------------ PyTorch's answers

TEST(NNPoolGolden, MaxPoolValuesIndicesAndGradientsMatchPyTorchExactly) {
  const json& cases = cg::section("max_pool");
  ASSERT_GE(cases.size(), 14u);
  for (const json& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    const int dims = c.at("dims").get<int>();
    const bool grad = c.contains("grad_output");
    Tensor x = cg::decode(c.at("input"));
    if (grad) x.requires_grad_();
    const nn::SizeArg k = cg::size_arg(c.at("kernel")), s = cg::size_arg(c.at("stride")),
                      p = cg::size_arg(c.at("padding")), d = cg::size_arg(c.at("dilation"));
    const bool ceil = c.at("ceil_mode").get<bool>();
    auto [v, i] =
        dims == 1 ? F::max_pool1d_with_indices(x, k, s, p, d, ceil) : F::max_pool2d_with_indices(x, k, s, p, d, ceil);
    cg::expect_bits(v, cg::decode(c.at("values")), "values");
    cg::expect_bits(i, cg::decode(c.at("indices")), "indices");
    const Tensor v_only = dims == 1 ? F::max_pool1d(x, k, s, p, d, ceil) : F::max_pool2d(x, k, s, p, d, ceil);
    EXPECT_TRUE(equal(v_only, v));
    if (!grad) continue;
    v.backward(cg::decode(c.at("grad_output")));
    cg::expect_bits(x.grad(), cg::decode(c.at("grad_input")), "grad_input");
  }
}

TEST(NNPoolGolden, MaxUnpoolMatchesPyTorchExactly) {
  const json& cases = cg::section("max_unpool");
  ASSERT_GE(cases.size(), 10u);
  for (const json& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    const int dims = c.at("dims").get<int>();
    Tensor x = cg::decode(c.at("input")).requires_grad_();
    const Tensor idx = cg::decode(c.at("indices"));
    const nn::SizeArg k = cg::size_arg(c.at("kernel")), s = cg::size_arg(c.at("stride")),
                      p = cg::size_arg(c.at("padding"));
    const Shape os = shape_or_empty(c.at("output_size"));
    Tensor out = dims == 1   ? F::max_unpool1d(x, idx, k, s, p, os)
                 : dims == 2 ? F::max_unpool2d(x, idx, k, s, p, os)
                             : F::max_unpool3d(x, idx, k, s, p, os);
    cg::expect_bits(out, cg::decode(c.at("output")), "output");
    EXPECT_EQ(out.grad_fn_name(), dims == 3 ? "MaxUnpool3DBackward0" : "MaxUnpool2DBackward0");
    out.backward(cg::decode(c.at("grad_output")));
    cg::expect_bits(x.grad(), cg::decode(c.at("grad_input")), "grad_input");
  }
}

// Window sums in PyTorch's order (row-major, then one division), so the bits are PyTorch's.
TEST(NNPoolGolden, AvgPool2dMatchesPyTorchExactly) {
  const json& cases = cg::section("avg_pool2d");
  ASSERT_GE(cases.size(), 9u);
  for (const json& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    Tensor x = cg::decode(c.at("input")).requires_grad_();
    const std::optional<int64_t> div = c.at("divisor_override").is_null()
                                           ? std::nullopt
                                           : std::optional<int64_t>(c.at("divisor_override").get<int64_t>());
    Tensor out =
        F::avg_pool2d(x, cg::size_arg(c.at("kernel")), cg::size_arg(c.at("stride")), cg::size_arg(c.at("padding")),
                      c.at("ceil_mode").get<bool>(), c.at("count_include_pad").get<bool>(), div);
    cg::expect_bits(out, cg::decode(c.at("output")), "output");
    out.backward(cg::decode(c.at("grad_output")));
    cg::expect_bits(x.grad(), cg::decode(c.at("grad_input")), "grad_input");
  }
}

TEST(NNPoolGolden, AdaptiveAvgPool2dMatchesPyTorch) {
  const json& cases = cg::section("adaptive_avg_pool2d");
  ASSERT_GE(cases.size(), 8u);
  for (const json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    SCOPED_TRACE(name);
    Tensor x = cg::decode(c.at("input")).requires_grad_();
    Tensor out = F::adaptive_avg_pool2d(x, cg::size_arg(c.at("output_size")));
    const Tensor want = cg::decode(c.at("output")), gout = cg::decode(c.at("grad_output"));
    if (name == "global_mean_1x1") {
      // (1, 1) is a mean over (H, W) in both libraries, each summing in its own order.
      cg::expect_close(out, want, 1e-6, "output");
      out.backward(gout);
      cg::expect_close(x.grad(), cg::decode(c.at("grad_input")), 1e-6, "grad_input");
      continue;
    }
    cg::expect_bits(out, want, "output");
    out.backward(gout);
    cg::expect_bits(x.grad(), cg::decode(c.at("grad_input")), "grad_input");
  }
}

// ------------------------------------------------------------------------------ determinism

TEST(NNPoolDeterminism, MaxUnpoolIsRefusedInDeterministicMode) {
  const Tensor x = tensor({{{{1.0, 2.0}, {3.0, 4.0}}}});  // (1, 1, 2, 2)
  const Tensor idx = tensor({{{{0, 3}, {8, 15}}}});
  const Tensor x1 = tensor({{1.0, 2.0, 3.0}}), idx1 = tensor({{1, 2, 5}});
  const Tensor x3 = tensor({{{{{1.0, 2.0}}}}}), idx3 = tensor({{{{{0, 31}}}}});  // (1, 1, 1, 1, 2)
  {
    DeterministicGuard g(true);
    expect_refused([&] { F::max_unpool2d(x, idx, 2); }, "max_unpooling2d_forward_out");
    expect_refused([&] { F::max_unpool1d(x1, idx1, 2); }, "max_unpooling2d_forward_out");
    expect_refused([&] { F::max_unpool3d(x3, idx3, {4, 4, 2}); }, "max_unpooling3d_forward_out");
    expect_refused([&] { nn::MaxUnpool2d(2).unpool(x, idx); }, "max_unpooling2d_forward_out");
    expect_refused([&] { nn::MaxUnpool3d(2)(x3, idx3, {2, 2, 4}); }, "max_unpooling3d_forward_out");
    EXPECT_THROW(F::max_unpool2d(x, idx, 2), NondeterministicError);
    // the deterministic pools run
    EXPECT_NO_THROW(F::max_pool2d(x, 2));
    EXPECT_NO_THROW(F::avg_pool2d(x, 2));
    EXPECT_NO_THROW(F::adaptive_avg_pool2d(x, {2, 1}));
  }
  // Mode off: it runs and puts each value at its index.
  const Tensor out = F::max_unpool2d(x, idx, 2);
  std::vector<float> want(16, 0.0f);
  want[0] = 1, want[3] = 2, want[8] = 3, want[15] = 4;
  EXPECT_EQ(out.sizes(), (Shape{1, 1, 4, 4}));
  EXPECT_EQ(to_vector<float>(out), want);
  EXPECT_EQ(to_vector<float>(F::max_unpool1d(x1, idx1, 2)), (std::vector<float>{0, 1, 2, 0, 0, 3}));
  std::vector<float> want3(32, 0.0f);
  want3[0] = 1, want3[31] = 2;
  EXPECT_EQ(to_vector<float>(F::max_unpool3d(x3, idx3, {2, 4, 2})), want3);
  // warn_only: runs, and the warning names the op.
  std::vector<Warning> seen;
  set_warning_handler([&](const Warning& w) { seen.push_back(w); });
  {
    DeterministicGuard g(true, /*warn_only=*/true);
    EXPECT_TRUE(equal(F::max_unpool2d(x, idx, 2), out));
  }
  set_warning_handler(nullptr);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].op, "max_unpooling2d_forward_out");
}

TEST(NNPoolDeterminism, MaxUnpoolDuplicateIndexTakesOneOfTheValues) {
  const Tensor x = tensor({{{{1.0, 2.0}, {3.0, 4.0}}}});
  const Tensor idx = tensor({{{{5, 5}, {5, 0}}}});
  const std::vector<float> out = to_vector<float>(F::max_unpool2d(x, idx, 2));
  EXPECT_TRUE(out[5] == 1 || out[5] == 2 || out[5] == 3) << out[5];
  EXPECT_EQ(out[0], 4);
  EXPECT_EQ(out[1], 0);
}

// ------------------------------------------------------------------------------ invariance

TEST(NNPoolInvariance, ForwardAndGradientsIndependentOfThreadCount) {
  ditto::testing::ConfigGuard keep;
  manual_seed(31);
  const Tensor x0 = randn({8, 6, 33, 31});
  std::vector<Tensor> ref;
  for (int t : {1, 2, 3, 8}) {
    set_num_threads(t);
    Tensor x = x0.clone().requires_grad_();
    auto [mv, mi] = F::max_pool2d_with_indices(x, 3, 2, 1, 1, true);
    Tensor av = F::avg_pool2d(x, 3, 2, 1, true, false);
    Tensor ad = F::adaptive_avg_pool2d(x, {5, 7});
    (mv.sum() + (av * av).sum() + (ad * 3).sum()).backward();
    const std::vector<Tensor> r{mv.detach(), mi, av.detach(), ad.detach(), x.grad()};
    if (ref.empty()) {
      ref = r;
      continue;
    }
    for (std::size_t i = 0; i < r.size(); ++i) EXPECT_TRUE(equal(r[i], ref[i])) << t << " threads, result " << i;
  }
}

TEST(NNPoolInvariance, SampleIsTheSameAloneOrInAnyBatch) {
  manual_seed(32);
  const Tensor xs = randn({8, 3, 11, 10});
  auto pools = [](const Tensor& x) {
    return std::vector<Tensor>{F::max_pool2d(x, 3, 2, 1), F::avg_pool2d(x, 2, 2, 1, true),
                               F::adaptive_avg_pool2d(x, {4, 3})};
  };
  const auto full = pools(xs);
  for (int64_t i : {0, 3, 7}) {
    const auto alone = pools(xs.narrow(0, i, 1));
    for (std::size_t k = 0; k < full.size(); ++k) EXPECT_TRUE(equal(alone[k], full[k].narrow(0, i, 1)));
    const auto unb = pools(xs[i]);
    for (std::size_t k = 0; k < full.size(); ++k) EXPECT_TRUE(equal(unb[k], full[k][i]));
  }
}

// ------------------------------------------------------------------------------ modules

TEST(NNPoolModule, MaxPoolAndUnpoolModules) {
  manual_seed(33);
  const Tensor x = randn({2, 3, 6, 7});
  nn::MaxPool2d pool(2);
  EXPECT_EQ(pool.name(), "MaxPool2d");
  const Tensor y = pool(x);
  auto [v, i] = pool.forward_with_indices(x);
  EXPECT_EQ(y.sizes(), (Shape{2, 3, 3, 3}));
  EXPECT_TRUE(equal(y, v));
  EXPECT_TRUE(equal(v, F::max_pool2d(x, 2)));
  EXPECT_EQ(i.dtype(), kInt64);

  nn::MaxUnpool2d unpool(2);
  EXPECT_EQ(unpool.name(), "MaxUnpool2d");
  // The default size is 6x6 here, too small for indices into the 6x7 planes.
  expect_error([&] { unpool.unpool(v, i); }, "[MaxUnpool2d]", "Found an invalid max index");
  auto [v6, i6] = pool.forward_with_indices(x.narrow(3, 0, 6));  // a non-contiguous input
  EXPECT_TRUE(equal(v6, F::max_pool2d(x.narrow(3, 0, 6).contiguous(), 2)));
  EXPECT_EQ(unpool.unpool(v6, i6).sizes(), (Shape{2, 3, 6, 6}));
  const Tensor full = unpool(v, i, {2, 3, 6, 7});  // the full size, as PyTorch allows
  const Tensor spatial = unpool.unpool(v, i, {6, 7});
  EXPECT_EQ(full.sizes(), (Shape{2, 3, 6, 7}));
  EXPECT_TRUE(equal(full, spatial));
  // Each maximum is back at its place: gathering at the indices gives the pooled values.
  EXPECT_TRUE(equal(full.reshape({6, 42}).gather(1, i.reshape({6, 9})), v.reshape({6, 9})));

  nn::MaxPool1d p1(3, 2, 1, 1, true);
  const Tensor x1 = randn({2, 4, 10});
  auto [v1, i1] = p1.forward_with_indices(x1);
  EXPECT_TRUE(equal(v1, F::max_pool1d(x1, 3, 2, 1, 1, true)));
  EXPECT_EQ(v1.sizes(), (Shape{2, 4, 6}));
  EXPECT_EQ(nn::MaxUnpool1d(3, 2, 1).unpool(v1, i1, {10}).sizes(), (Shape{2, 4, 10}));

  nn::MaxPool2d rect({2, 3}, {1, 2});
  EXPECT_EQ(rect(x).sizes(), (Shape{2, 3, 5, 3}));
  EXPECT_EQ(nn::MaxPool2d({2, 3})(x).sizes(), (Shape{2, 3, 3, 2}));  // stride defaults to the kernel
  EXPECT_EQ(nn::AvgPool2d({2, 3})(x).sizes(), (Shape{2, 3, 3, 2}));
}

TEST(NNPoolModule, AvgAndAdaptiveModules) {
  manual_seed(34);
  const Tensor x = randn({2, 3, 7, 8});
  nn::AvgPool2d avg(3, 2, 1, false, false);
  EXPECT_EQ(avg.name(), "AvgPool2d");
  EXPECT_TRUE(equal(avg(x), F::avg_pool2d(x, 3, 2, 1, false, false)));
  nn::AvgPool2d avgd(2, {}, 0, false, true, 3);
  EXPECT_TRUE(equal(avgd(x), F::avg_pool2d(x, 2, 2, 0, false, true, 3)));
  nn::AdaptiveAvgPool2d ad({2, 3});
  EXPECT_EQ(ad.name(), "AdaptiveAvgPool2d");
  EXPECT_EQ(ad(x).sizes(), (Shape{2, 3, 2, 3}));
  EXPECT_TRUE(equal(ad(x), F::adaptive_avg_pool2d(x, {2, 3})));
  Tensor xr = x.clone().requires_grad_();
  Tensor g = nn::AdaptiveAvgPool2d(1)(xr);
  EXPECT_EQ(g.sizes(), (Shape{2, 3, 1, 1}));
  EXPECT_EQ(g.grad_fn_name(), "MeanBackward1");  // as PyTorch: a mean over (H, W)
  EXPECT_EQ(F::adaptive_avg_pool2d(xr, {2, 2}).grad_fn_name(), "AdaptiveAvgPool2DBackward0");
  EXPECT_EQ(F::avg_pool2d(xr, 2).grad_fn_name(), "AvgPool2DBackward0");
  EXPECT_EQ(F::max_pool2d(xr, 2).grad_fn_name(), "MaxPool2DWithIndicesBackward0");
}

// ------------------------------------------------------------------------------ bad input

TEST(NNPoolErrors, BadInputNamesTheOpOrModule) {
  const Tensor x = randn({1, 2, 5, 5});
  expect_error(
      [] {
        F::max_pool2d(randn({5, 5}), 2);
      },
      "[max_pool2d]", "expected 3D (unbatched) or 4D (batched) input, got 2D");
  expect_error([&] { F::max_pool2d(x, 0); }, "[max_pool2d]", "expected kernel_size > 0");
  expect_error([&] { F::max_pool2d(x, 2, 0); }, "[max_pool2d]", "expected stride > 0");
  expect_error([&] { F::max_pool2d(x, 2, -1); }, "[max_pool2d]", "expected stride > 0");
  expect_error([&] { F::max_pool2d(x, 3, 1, 2); }, "[max_pool2d]", "padding should be at most half");
  expect_error([&] { F::max_pool2d(x, 2, 1, 0, 0); }, "[max_pool2d]", "expected dilation > 0");
  expect_error([&] { F::max_pool2d(x, 6); }, "[max_pool2d]", "too small");
  expect_error([&] { F::max_pool2d(x, {2, 2, 2}); }, "[max_pool2d]", "kernel_size to be one number or 2 numbers");
  expect_error([] { F::max_pool2d(randn({1, 0, 4, 4}), 2); }, "[max_pool2d]", "non-zero sizes");
  expect_error([] { F::max_pool2d(ones({1, 1, 4, 4}, kInt64), 2); }, "[max_pool2d]", "floating-point");
  expect_error([] { F::max_pool1d(randn({1, 2, 5, 5}), 2); }, "[max_pool1d]", "got 4D");
  expect_error([&] { F::avg_pool2d(x, 0); }, "[avg_pool2d]", "expected kernel_size > 0");
  expect_error([&] { F::avg_pool2d(x, 2, 1, 2); }, "[avg_pool2d]", "padding should be at most half");
  expect_error([&] { F::avg_pool2d(x, 2, 1, 0, false, true, 0); }, "[avg_pool2d]", "divisor_override");
  expect_error([&] { F::avg_pool2d(x, 6); }, "[avg_pool2d]", "too small");
  expect_error([&] { F::adaptive_avg_pool2d(x, 0); }, "[adaptive_avg_pool2d]", "expected output_size > 0");
  expect_error([&] { F::adaptive_avg_pool2d(x, {1, 2, 3}); }, "[adaptive_avg_pool2d]", "output_size");
  expect_error([] { F::adaptive_avg_pool2d(randn({4}), 2); }, "[adaptive_avg_pool2d]", "got 1D");
  expect_error([] { F::adaptive_avg_pool2d(randn({1, 1, 0, 4}), 2); }, "[adaptive_avg_pool2d]", "non-zero");

  const Tensor v = randn({1, 1, 2, 2});
  const Tensor idx = tensor({{{{0, 3}, {8, 15}}}});
  expect_error([&] { F::max_unpool2d(v, idx.to(kInt32), 2); }, "[max_unpool2d]", "expected int64 indices");
  expect_error([&] { F::max_unpool2d(v, tensor({{{{0, 3}}}}), 2); }, "[max_unpool2d]", "indices of the input's shape");
  expect_error(
      [&] {
        F::max_unpool2d(v, idx, 2, {}, 0, {8, 8});
      },
      "[max_unpool2d]", "invalid output_size (8, 8) (dim 0 must be between 2 and 6)");
  expect_error(
      [&] {
        F::max_unpool2d(v, idx, 2, {}, 0, {4, 4, 4});
      },
      "[max_unpool2d]", "output_size should have 2 or 4 elements");
  expect_error([&] { F::max_unpool2d(v[0][0], idx[0][0], 2); }, "[max_unpool2d]", "got 2D");
  expect_error(
      [&] {
        F::max_unpool2d(v, tensor({{{{0, 3}, {8, 16}}}}), 2);
      },
      "[max_unpool2d]", "Found an invalid max index: 16 (output volumes are of size 4x4)");
  expect_error(
      [&] {
        F::max_unpool3d(v.unsqueeze(0), tensor({{{{{0, 3}, {8, -1}}}}}), 2);
      },
      "[max_unpool3d]", "Found an invalid max index: -1 (output volumes are of size 2x4x4)");
  expect_error(
      [&] {
        F::max_unpool1d(randn({1, 2}), tensor({{0, 1}}), 3, 1, 2);
      },
      "[max_unpool1d]", "expected output size > 0");

  // Modules name themselves.
  expect_error(
      [] {
        nn::MaxPool2d(2)(randn({4, 4}));
      },
      "[MaxPool2d]", "expected 3D (unbatched) or 4D (batched) input, got 2D");
  expect_error([] { nn::MaxPool1d(2)(randn({4})); }, "[MaxPool1d]", "got 1D");
  expect_error([] { nn::MaxPool2d(3, 1, 2)(randn({1, 1, 4, 4})); }, "[MaxPool2d]", "padding");
  expect_error([] { nn::AvgPool2d(2)(randn({4, 4})); }, "[AvgPool2d]", "got 2D");
  expect_error([] { nn::AdaptiveAvgPool2d(0)(randn({1, 4, 4})); }, "[AdaptiveAvgPool2d]", "output_size");
  expect_error([&] { nn::MaxUnpool2d(2).unpool(v, idx.to(kInt32)); }, "[MaxUnpool2d]", "int64");
  expect_error(
      [&] {
        nn::MaxUnpool2d(2).unpool(v, tensor({{{{0, 3}, {8, 99}}}}));
      },
      "[MaxUnpool2d]", "Found an invalid max index: 99");
}

// ------------------------------------------------------------------------------ gradient checks
namespace {
DITTO_GRADCHECK("max_pool2d_with_indices", ({gc_rand({2, 2, 5, 6})}), return F::max_pool2d(v[0], 3, 2, 1);)
DITTO_GRADCHECK("max_pool2d_with_indices", ({gc_rand({2, 7})}), return F::max_pool1d(v[0], 3, 1, 1, 2, true);)
DITTO_GRADCHECK("avg_pool2d", ({gc_rand({2, 2, 5, 6})}), return F::avg_pool2d(v[0], 3, 2, 1, true, false);)
DITTO_GRADCHECK("avg_pool2d", ({gc_rand({2, 4, 5})}),
                return F::avg_pool2d(v[0], {2, 3}, {1, 2}, {1, 0}, false, true, 5);)
DITTO_GRADCHECK("adaptive_avg_pool2d", ({gc_rand({2, 2, 7, 5})}), return F::adaptive_avg_pool2d(v[0], {3, 4});)
DITTO_GRADCHECK("max_unpooling2d_forward_out", ({gc_rand({1, 2, 2, 2})}),
                return F::max_unpool2d(v[0], tensor({{{{0, 3}, {9, 15}}, {{5, 6}, {12, 2}}}}), 2);)
DITTO_GRADCHECK("max_unpooling2d_forward_out", ({gc_rand({2, 3})}),
                return F::max_unpool1d(v[0], tensor({{0, 5, 2}, {4, 1, 3}}), 2);)
DITTO_GRADCHECK("max_unpooling3d_forward_out", ({gc_rand({1, 1, 1, 2, 2})}),
                return F::max_unpool3d(v[0], tensor({{{{{0, 7}, {10, 15}}}}}), 2);)
}  // namespace

// max_pool2d's vectorised inside windows (cpu/pool_impl.h) against a literal scan of PyTorch's
// rule (strictly greater or NaN replaces), values and indices, at every level this CPU runs: ties
// (values on a coarse grid), NaNs, -inf, strides, dilation, padding (edge windows) and row
// lengths that leave SIMD tails.
TEST(NNPool, MaxPool2dEveryLevelMatchesTheLiteralScan) {
  struct Case {
    int64_t H, W, k, s, p, d;
  };
  const Case cases[] = {
      {28, 28, 2, 2, 0, 1}, {13, 37, 3, 1, 1, 1}, {20, 45, 3, 2, 1, 2}, {9, 70, 2, 3, 0, 1}, {7, 7, 3, 3, 1, 1}};
  manual_seed(11);
  for (const Case& c : cases) {
    Tensor x = randint(-3, 4, {2, 3, c.H, c.W}).to(kFloat32);  // many ties
    float* px = x.data_ptr<float>();
    px[5] = std::nanf(""), px[77] = std::nanf(""), px[78] = -std::numeric_limits<float>::infinity();
    const int64_t oH = (c.H + 2 * c.p - c.d * (c.k - 1) - 1) / c.s + 1,
                  oW = (c.W + 2 * c.p - c.d * (c.k - 1) - 1) / c.s + 1;
    std::vector<float> want_v;
    std::vector<int64_t> want_i;
    for (int64_t plane = 0; plane < 6; ++plane)
      for (int64_t oh = 0; oh < oH; ++oh)
        for (int64_t ow = 0; ow < oW; ++ow) {
          float m = -std::numeric_limits<float>::infinity();
          int64_t best = -1;
          for (int64_t kh = 0; kh < c.k; ++kh)
            for (int64_t kw = 0; kw < c.k; ++kw) {
              const int64_t h = oh * c.s - c.p + kh * c.d, w = ow * c.s - c.p + kw * c.d;
              if (h < 0 || h >= c.H || w < 0 || w >= c.W) continue;
              const float v = px[plane * c.H * c.W + h * c.W + w];
              if (best < 0) best = h * c.W + w;
              if (v > m || std::isnan(v)) m = v, best = h * c.W + w;
            }
          want_v.push_back(m);
          want_i.push_back(best);
        }
    for (CpuCapability level : ditto::testing::supported_levels()) {
      Tensor v, i;
      {
        ditto::testing::ConfigGuard guard(level);
        std::tie(v, i) = F::max_pool2d_with_indices(x, c.k, c.s, c.p, c.d);
      }
      ASSERT_EQ(v.numel(), int64_t(want_v.size()));
      const float* pv = v.data_ptr<float>();
      const int64_t* pi = i.data_ptr<int64_t>();
      int64_t bad = 0;
      for (std::size_t j = 0; j < want_v.size(); ++j)
        bad += std::memcmp(&pv[j], &want_v[j], sizeof(float)) != 0 || pi[j] != want_i[j];
      EXPECT_EQ(bad, 0) << capability_name(level) << " H=" << c.H << " W=" << c.W << " k=" << c.k << " s=" << c.s;
    }
  }
}

// float32 lanes carry the winner's index while every index of the row is exact in a float (below
// 2^24); past that the lanes carry tap numbers. A row longer than 2^24 whose maxima sit at odd
// positions (not representable in float beyond 2^24) at every level.
TEST(NNPool, MaxPoolIndicesPastTwoToThe24AreExact) {
  const int64_t n = (int64_t(1) << 24) + 64;
  std::vector<float> data(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) data[static_cast<std::size_t>(i)] = float(i % 2);
  const Tensor x = tensor(data).view({1, 1, 1, n});
  for (CpuCapability level : ditto::testing::supported_levels()) {
    ditto::testing::ConfigGuard guard(level);
    auto [v, i] = F::max_pool2d_with_indices(x, {1, 2}, {1, 2});
    const int64_t* pi = i.data_ptr<int64_t>();
    int64_t bad = 0;
    for (int64_t o = 0; o < n / 2; o += 4099) bad += pi[o] != 2 * o + 1;
    for (int64_t o = n / 2 - 100; o < n / 2; ++o) bad += pi[o] != 2 * o + 1;  // past 2^24
    EXPECT_EQ(bad, 0) << capability_name(level);
    EXPECT_TRUE(equal(v, ones({1, 1, 1, n / 2})));
  }
}

// The output rows whose windows lie inside the plane run in one vectorised call, row i's windows
// i * stride rows further down (cpu/pool.cpp). A plane of more than 2^24 elements takes the
// tap-number path there, whose indices add the row's offset: each 2x2 window's maximum sits at
// its bottom-right, so output (oh, ow) must name (2 oh + 1) * W + 2 ow + 1, past 2^24 too.
TEST(NNPool, MaxPoolRowsTogetherPastTwoToThe24AreExact) {
  const int64_t H = 4098, W = 4098;  // H * W > 2^24
  std::vector<float> data(static_cast<std::size_t>(H * W));
  for (int64_t h = 0; h < H; ++h)
    for (int64_t w = 0; w < W; ++w) data[static_cast<std::size_t>(h * W + w)] = float(2 * (h % 2) + w % 2);
  const Tensor x = tensor(data).view({1, 1, H, W});
  for (CpuCapability level : ditto::testing::supported_levels()) {
    ditto::testing::ConfigGuard guard(level);
    auto [v, i] = F::max_pool2d_with_indices(x, 2, 2);
    const int64_t* pi = i.data_ptr<int64_t>();
    const int64_t oH = H / 2, oW = W / 2;
    int64_t bad = 0;
    for (int64_t oh = 0; oh < oH; oh += oh < 8 || oh > oH - 8 ? 1 : 97)
      for (int64_t ow = 0; ow < oW; ++ow) bad += pi[oh * oW + ow] != (2 * oh + 1) * W + 2 * ow + 1;
    EXPECT_EQ(bad, 0) << capability_name(level);
    EXPECT_TRUE(equal(v, full({1, 1, oH, oW}, 3.0f)));
  }
}

// avg_pool1d and adaptive_avg_pool1d are the 2-D ops over (N, C, 1, L), as in PyTorch (so their
// bits, forward and backward, are the 2-D ops' bits, checked against PyTorch above).
TEST(NNPool, OneDimensionalAveragesAreTheTwoDimensionalOnes) {
  const Tensor x = randn({2, 3, 17}), x1 = randn({3, 11});
  auto via2d = [](const Tensor& t, auto f) { return f(t.unsqueeze(-2)).squeeze(-2); };
  EXPECT_TRUE(equal(F::avg_pool1d(x, 3, 2, 1, true, false), via2d(x, [](const Tensor& t) {
                      return F::avg_pool2d(t, {1, 3}, {1, 2}, {0, 1}, true, false);
                    })));
  EXPECT_TRUE(equal(F::avg_pool1d(x1, 4), via2d(x1, [](const Tensor& t) { return F::avg_pool2d(t, {1, 4}); })));
  EXPECT_TRUE(equal(F::adaptive_avg_pool1d(x, 5), via2d(x, [](const Tensor& t) {
                      return F::adaptive_avg_pool2d(t, {1, 5});
                    })));
  EXPECT_TRUE(equal(nn::AvgPool1d(3, 1)(x), F::avg_pool1d(x, 3, 1)));
  EXPECT_TRUE(equal(nn::AdaptiveAvgPool1d(4)(x1), F::adaptive_avg_pool1d(x1, 4)));
  Tensor xr = x.detach().requires_grad_();
  F::avg_pool1d(xr, 3, 2).sum().backward();
  EXPECT_EQ(xr.grad().sizes(), x.sizes());
  expect_error([] { F::avg_pool1d(randn({2, 3, 4, 5}), 2); }, "[avg_pool1d]", "expected 2D (unbatched) or 3D");
  expect_error([&] { F::avg_pool1d(x, {2, 2}); }, "[avg_pool1d]", "kernel_size");
  expect_error([&] { F::adaptive_avg_pool1d(x, 0); }, "[adaptive_avg_pool1d]", "output_size");
  expect_error([&] { nn::AdaptiveAvgPool1d({2, 3})(x); }, "[AdaptiveAvgPool1d]", "output_size");
}
