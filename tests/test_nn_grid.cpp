// grid_sample and affine_grid: PyTorch's answers (tests/data/pytorch-grid.json, from
// tools/gen_golden_grid.py), forward and gradients of input and grid, every mode, padding and
// align_corners, 2-D and 3-D; the module-free API's bad input; gradient-check samples. Thread,
// level and batch invariance: tests/test_invariance.cpp.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
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
using ditto::testing::expect_error;

namespace {
const json& section(const char* name) { return ditto::testing::golden_section("pytorch-grid.json", name); }
}  // namespace

TEST(NNGridGolden, GridSampleMatchesPyTorch) {
  const json& cases = section("grid_sample");
  ASSERT_GE(cases.size(), 36u);
  for (const json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    SCOPED_TRACE(name);
    Tensor x = cg::decode(c.at("input")).requires_grad_();
    Tensor g = cg::decode(c.at("grid")).requires_grad_();
    Tensor out = F::grid_sample(x, g, c.at("mode").get<std::string>(), c.at("padding_mode").get<std::string>(),
                                c.at("align_corners").get<bool>());
    EXPECT_EQ(out.grad_fn_name(), x.dim() == 5 ? "GridSampler3DBackward0" : "GridSampler2DBackward0");
    cg::expect_bits(out, cg::decode(c.at("output")), "output");
    out.backward(cg::decode(c.at("grad_output")));
    cg::expect_bits(x.grad(), cg::decode(c.at("grad_input")), "grad_input");
    cg::expect_bits(g.grad(), cg::decode(c.at("grad_grid")), "grad_grid");
  }
}

// affine_grid is base @ theta^T: a 3- or 4-term dot product per coordinate, which ditto's GEMM
// sums in its own fixed order (PyTorch's in its BLAS's), so within a few ulp.
TEST(NNGridGolden, AffineGridMatchesPyTorch) {
  const json& cases = section("affine_grid");
  ASSERT_GE(cases.size(), 5u);
  for (const json& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    Tensor theta = cg::decode(c.at("theta")).requires_grad_();
    Tensor out = F::affine_grid(theta, c.at("size").get<Shape>(), c.at("align_corners").get<bool>());
    const double rtol = theta.dtype() == kFloat64 ? 1e-14 : 1e-6;
    cg::expect_close(out, cg::decode(c.at("output")), rtol, "grid");
    out.backward(cg::decode(c.at("grad_output")));
    cg::expect_close(theta.grad(), cg::decode(c.at("grad_theta")), rtol * 10, "grad_theta");
  }
}

TEST(NNGrid, NeverRefusedInDeterministicModeAndRepeatsItsBits) {
  ditto::testing::ConfigGuard restore;
  use_deterministic_algorithms(true);
  Tensor x = randn({2, 3, 6, 7}).requires_grad_();
  const Tensor g = (rand({2, 9, 8, 2}) * 2.2 - 1.1).requires_grad_();
  Tensor first;
  for (int i = 0; i < 2; ++i) {
    x.mutable_grad() = Tensor();
    F::grid_sample(x, g, "bilinear", "zeros", false).sum().backward();
    if (i == 0) first = x.grad().clone();
  }
  EXPECT_TRUE(equal(first, x.grad()));
  const Tensor theta = randn({2, 3, 4}).requires_grad_();
  F::grid_sample(randn({2, 1, 3, 4, 5}), F::affine_grid(theta, {2, 1, 3, 4, 5})).sum().backward();
  EXPECT_TRUE(theta.grad().defined());
}

TEST(NNGridErrors, BadInputNamesTheOp) {
  const Tensor x = randn({2, 3, 5, 6}), g = rand({2, 4, 4, 2});
  expect_error([&] { F::grid_sample(x, rand({2, 4, 4, 3})); }, "[grid_sample]", "size 2 in last dimension");
  expect_error([&] { F::grid_sample(x, rand({3, 4, 4, 2})); }, "[grid_sample]", "same batch size");
  expect_error([&] { F::grid_sample(x, rand({2, 4, 2})); }, "[grid_sample]", "number of dimensions");
  expect_error([&] { F::grid_sample(x, g.to(kFloat64)); }, "[grid_sample]", "same dtype");
  expect_error([&] { F::grid_sample(x, g, "area"); }, "[grid_sample]", "expected mode");
  expect_error([&] { F::grid_sample(x, g, "bilinear", "wrap"); }, "[grid_sample]", "expected padding_mode");
  expect_error(
      [&] {
        F::grid_sample(randn({1, 1, 2, 2, 2}), rand({1, 2, 2, 2, 3}), "bicubic");
      },
      "[grid_sample]", "bicubic interpolation only supports 4D");
  expect_error([&] { F::grid_sample(randn({2, 3, 0, 6}), g); }, "[grid_sample]", "non-empty spatial");
  expect_error([&] { F::grid_sample(x.to(kInt64), g.to(kInt64)); }, "[grid_sample]", "floating-point");
  expect_error([&] { F::affine_grid(randn({2, 2, 3}), {2, 3, 4}); }, "[affine_grid]", "4D and 5D sizes");
  expect_error([&] { F::affine_grid(randn({2, 3, 4}), {2, 3, 4, 5}); }, "[affine_grid]", "Nx2x3");
  expect_error([&] { F::affine_grid(randn({2, 2, 3}), {2, 3, 0, 5}); }, "[affine_grid]", "positive output size");
  expect_error([&] { F::affine_grid(randn({3, 2, 3}), {2, 3, 4, 5}); }, "[affine_grid]", "batch of 2");
}

// ------------------------------------------------------------------------------ gradient checks
namespace {
using ditto::testing::gc_rand;
DITTO_GRADCHECK("grid_sampler_2d", ({gc_rand({1, 2, 4, 5}), gc_rand({1, 3, 3, 2}, -0.9, 0.9)}),
                return F::grid_sample(v[0], v[1], "bilinear", "zeros", false);)
DITTO_GRADCHECK("grid_sampler_2d", ({gc_rand({1, 2, 4, 5}), gc_rand({1, 3, 2, 2}, -0.8, 0.8)}),
                return F::grid_sample(v[0], v[1], "bicubic", "border", true);)
DITTO_GRADCHECK("grid_sampler_2d", ({gc_rand({1, 1, 4, 4}), gc_rand({1, 2, 3, 2}, -2.3, 2.3)}),
                return F::grid_sample(v[0], v[1], "bilinear", "reflection", false);)
DITTO_GRADCHECK("grid_sampler_3d", ({gc_rand({1, 2, 3, 3, 4}), gc_rand({1, 2, 2, 2, 3}, -0.9, 0.9)}),
                return F::grid_sample(v[0], v[1], "bilinear", "zeros", true);)
}  // namespace

// The per-sample vision ops of issue 13 that joined after the first ones: each sample's output
// (and its input gradient) is the same computed alone as inside any batch.
TEST(NNGrid, PerSampleOpsAreBatchInvariant) {
  manual_seed(3);
  const Tensor x5 = randn({5, 3, 6, 7, 8}), x4 = randn({5, 4, 9, 10}), g2 = rand({5, 6, 7, 2}) * 2.2 - 1.1,
               g3 = rand({5, 3, 4, 5, 3}) * 2.2 - 1.1, w3 = randn({4, 3, 2, 3, 2}), wt = randn({4, 2, 4, 4});
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&, int64_t)>>> ops = {
      {"max_pool3d", [&](const Tensor& b, int64_t) { return F::max_pool3d(b, 3, 2, 1); }},
      {"avg_pool3d",
       [&](const Tensor& b, int64_t) {
         return F::avg_pool3d(b, {2, 3, 2}, 1, 1, true, false);
       }},
      {"adaptive_avg_pool3d",
       [&](const Tensor& b, int64_t) {
         return F::adaptive_avg_pool3d(b, {4, 3, 5});
       }},
      {"adaptive_max_pool3d",
       [&](const Tensor& b, int64_t) {
         return F::adaptive_max_pool3d(b, {4, 3, 5});
       }},
      {"conv3d", [&](const Tensor& b, int64_t) { return F::conv3d(b, w3, Tensor(), 1, 1); }},
      {"grid_sample 3-D", [&](const Tensor& b, int64_t i) {
         return F::grid_sample(b, i < 0 ? g3 : g3.narrow(0, i, 1), "bilinear", "border", true);
       }}};
  for (const auto& [name, f] : ops) {
    SCOPED_TRACE(name);
    const Tensor all = f(x5, -1);
    for (int64_t i : {0, 3}) EXPECT_TRUE(equal(f(x5.narrow(0, i, 1), i), all.narrow(0, i, 1)));
  }
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&, int64_t)>>> ops4 = {
      {"adaptive_max_pool2d",
       [&](const Tensor& b, int64_t) {
         return F::adaptive_max_pool2d(b, {4, 3});
       }},
      {"lp_pool2d", [&](const Tensor& b, int64_t) { return F::lp_pool2d(b, 2.0, 3, 2); }},
      {"conv_transpose2d", [&](const Tensor& b, int64_t) { return F::conv_transpose2d(b, wt, Tensor(), 2, 1); }},
      {"grid_sample bicubic", [&](const Tensor& b, int64_t i) {
         return F::grid_sample(b, i < 0 ? g2 : g2.narrow(0, i, 1), "bicubic", "reflection", false);
       }}};
  for (const auto& [name, f] : ops4) {
    SCOPED_TRACE(name);
    const Tensor all = f(x4, -1);
    for (int64_t i : {0, 4}) EXPECT_TRUE(equal(f(x4.narrow(0, i, 1), i), all.narrow(0, i, 1)));
  }
  // gradients: grid_sample's input gradient of one sample, alone and in the batch
  Tensor xb = x4.clone().requires_grad_(), xs = x4.narrow(0, 2, 1).clone().requires_grad_();
  const Tensor gout = randn({5, 4, 6, 7});
  F::grid_sample(xb, g2, "bilinear", "zeros", false).backward(gout);
  F::grid_sample(xs, g2.narrow(0, 2, 1), "bilinear", "zeros", false).backward(gout.narrow(0, 2, 1).contiguous());
  EXPECT_TRUE(equal(xs.grad(), xb.grad().narrow(0, 2, 1)));
}
