// Padding and upsampling: PyTorch's answers bit for bit (tests/data/pytorch-resample.json, from
// tools/gen_golden_resample.py), forward and gradient, every mode; the modules; bad input;
// gradient-check samples. Thread, level and batch invariance: tests/test_invariance.cpp.
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>
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

const json& section(const char* name) { return ditto::testing::golden_section("pytorch-resample.json", name); }

// Runs fn on the case's input (transposed when PyTorch ran on a strided view) and compares the
// output and, for floating inputs, the gradient of PyTorch's upstream gradient, bit for bit.
// rtol: the gradient's tolerance where ditto adds in another order than PyTorch (0: bitwise).
template <class Fn>
void check_case(const json& c, Fn fn, double rtol = 0) {
  Tensor x = cg::decode(c.at("input"));
  const bool floating = is_floating(x.dtype());
  if (floating) x.requires_grad_();
  const Tensor in = c.at("transposed").get<bool>() ? x.transpose(-1, -2) : x;
  Tensor out = fn(in);
  cg::expect_bits(out, cg::decode(c.at("output")), "output");
  if (!floating) return;
  EXPECT_FALSE(out.grad_fn_name().empty());
  out.backward(cg::decode(c.at("grad_output")));
  if (rtol == 0)
    cg::expect_bits(x.grad(), cg::decode(c.at("grad_input")), "grad_input");
  else
    cg::expect_close(x.grad(), cg::decode(c.at("grad_input")), rtol, "grad_input");
}

std::optional<double> opt_double(const json& v) { return v.is_null() ? std::nullopt : std::optional(v.get<double>()); }
std::optional<bool> opt_bool(const json& v) { return v.is_null() ? std::nullopt : std::optional(v.get<bool>()); }

}  // namespace

TEST(NNResampleGolden, PadMatchesPyTorch) {
  const json& cases = section("pad");
  ASSERT_GE(cases.size(), 30u);
  for (const json& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    const std::string mode = c.at("mode").get<std::string>();
    // PyTorch composes circular padding of copies into slices, whose gradients autograd adds in
    // its own order; ditto adds each element's in output order (Note [Resampling order]).
    const double rtol = mode == "circular" ? 1e-6 : 0;
    check_case(
        c, [&](const Tensor& x) { return F::pad(x, c.at("pad").get<Shape>(), mode, opt_double(c.at("value"))); }, rtol);
  }
}

TEST(NNResampleGolden, InterpolateMatchesPyTorch) {
  const json& cases = section("interpolate");
  ASSERT_GE(cases.size(), 60u);
  for (const json& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    std::optional<nn::SizeArg> size;
    if (!c.at("size").is_null()) size = cg::size_arg(c.at("size"));
    std::optional<std::vector<double>> scale;
    const json& s = c.at("scale_factor");
    if (s.is_number()) scale = std::vector<double>{s.get<double>()};
    if (s.is_array()) scale = s.get<std::vector<double>>();
    check_case(c, [&](const Tensor& x) {
      return F::interpolate(x, size, scale, c.at("mode").get<std::string>(), opt_bool(c.at("align_corners")),
                            opt_bool(c.at("recompute_scale_factor")));
    });
  }
}

TEST(NNResample, GradFnNamesArePyTorchs) {
  const Tensor x = randn({1, 2, 4, 5}).requires_grad_();
  EXPECT_EQ(F::pad(x, {1, 1}).grad_fn_name(), "ConstantPadNdBackward0");
  EXPECT_EQ(F::pad(x, {1, 1, 2, 2}, "reflect").grad_fn_name(), "ReflectionPad2DBackward0");
  EXPECT_EQ(F::pad(x[0], {1, 1}, "replicate").grad_fn_name(), "ReplicationPad1DBackward0");
  EXPECT_EQ(F::interpolate(x, nn::SizeArg{8, 9}, {}, "bilinear").grad_fn_name(), "UpsampleBilinear2DBackward0");
  EXPECT_EQ(F::interpolate(x, std::nullopt, std::vector<double>{2.0}).grad_fn_name(), "UpsampleNearest2DBackward0");
  EXPECT_EQ(F::interpolate(x, nn::SizeArg{3}, {}, "bicubic", true).grad_fn_name(), "UpsampleBicubic2DBackward0");
}

TEST(NNResample, ModulesAreTheFunctions) {
  const Tensor x = randn({2, 3, 5, 6}), x3 = randn({1, 2, 3, 4, 5});
  EXPECT_TRUE(equal(nn::ReflectionPad2d(2)(x), F::pad(x, {2, 2, 2, 2}, "reflect")));
  EXPECT_TRUE(equal(nn::ReplicationPad2d({1, 2, 0, 3})(x), F::pad(x, {1, 2, 0, 3}, "replicate")));
  EXPECT_TRUE(equal(nn::ReflectionPad1d({1, 3})(x[0]), F::pad(x[0], {1, 3}, "reflect")));
  EXPECT_TRUE(equal(nn::ReplicationPad3d(1)(x3), F::pad(x3, {1, 1, 1, 1, 1, 1}, "replicate")));
  EXPECT_TRUE(equal(nn::CircularPad2d(1)(x), F::pad(x, {1, 1, 1, 1}, "circular")));
  EXPECT_TRUE(equal(nn::ZeroPad2d({1, 0, 2, 0})(x), F::pad(x, {1, 0, 2, 0})));
  EXPECT_TRUE(equal(nn::ConstantPad3d(1, 3.5)(x3), F::pad(x3, {1, 1, 1, 1, 1, 1}, "constant", 3.5)));
  EXPECT_TRUE(equal(nn::Upsample(std::nullopt, std::vector<double>{2.0}, "bilinear", false)(x),
                    F::interpolate(x, std::nullopt, std::vector<double>{2.0}, "bilinear", false)));
  EXPECT_TRUE(equal(nn::Upsample(nn::SizeArg{4, 5, 6}, std::nullopt, "trilinear")(x3),
                    F::interpolate(x3, nn::SizeArg{4, 5, 6}, std::nullopt, "trilinear")));
  expect_error([&] { nn::ReflectionPad2d(5)(x); }, "[ReflectionPad2d]", "Padding size should be less than");
  expect_error([&] { nn::Upsample(nn::SizeArg{4})(randn({2, 3})); }, "[Upsample]", "Only 3D, 4D and 5D");
  expect_error([] { nn::ReflectionPad2d({1, 2, 3}); }, "[ReflectionPad2d]", "expected padding to be one number or 4");
}

// "area" is adaptive average pooling to the output size (as PyTorch's interpolate).
TEST(NNResample, AreaIsAdaptiveAvgPool) {
  const Tensor x = randn({2, 3, 7, 9}), x1 = randn({2, 3, 11});
  EXPECT_TRUE(equal(F::interpolate(x, nn::SizeArg{3, 4}, {}, "area"), F::adaptive_avg_pool2d(x, {3, 4})));
  EXPECT_TRUE(
      equal(F::interpolate(x, std::nullopt, std::vector<double>{0.5}, "area"), F::adaptive_avg_pool2d(x, {3, 4})));
  EXPECT_TRUE(equal(F::interpolate(x1, nn::SizeArg{4}, {}, "area"),
                    F::adaptive_avg_pool2d(x1.unsqueeze(2), {1, 4}).squeeze(2)));
  const Tensor x3 = randn({2, 3, 5, 7, 9});
  const Tensor a3 = F::interpolate(x3, nn::SizeArg{2, 3, 4}, {}, "area");
  EXPECT_EQ(a3.sizes(), (Shape{2, 3, 2, 3, 4}));
  EXPECT_TRUE(equal(a3, F::adaptive_avg_pool3d(x3, {2, 3, 4})));
}

TEST(NNResample, NeverRefusedInDeterministicMode) {
  ditto::testing::ConfigGuard restore;
  use_deterministic_algorithms(true);
  const Tensor x = randn({1, 2, 5, 6}).requires_grad_();
  for (const char* m : {"reflect", "replicate", "circular", "constant"}) F::pad(x, {2, 1, 1, 2}, m).sum().backward();
  for (const char* m : {"nearest", "nearest-exact", "bilinear", "bicubic"})
    F::interpolate(x, nn::SizeArg{9, 7}, {}, m).sum().backward();
  EXPECT_TRUE(x.grad().defined());
}

TEST(NNResample, BadInputRaisesNamingTheOp) {
  const Tensor x = randn({2, 3, 4, 5});
  expect_error([&] { F::pad(x, {1, 2, 3}); }, "[pad]", "Padding length must be divisible by 2");
  expect_error([&] { F::pad(x, Shape(10, 1)); }, "[pad]", "Padding length too large");
  expect_error([&] { F::pad(x, {1, 1}, "wrap"); }, "[pad]", "Unrecognised padding mode wrap");
  expect_error([&] { F::pad(x, {5, 0, 0, 0}, "reflect"); }, "[pad]", "Padding size should be less than");
  expect_error([&] { F::pad(x, {6, 0, 0, 0}, "circular"); }, "[pad]", "wrapping around more than once");
  expect_error([&] { F::pad(x, {1, 1, 0, 0}, "reflect", 2.0); }, "[pad]", "doesn't take in value argument");
  expect_error([&] { F::pad(x, {-3, -3, 0, 0}, "replicate"); }, "[pad]", "negative output size");
  expect_error([&] { F::pad(x, {1, 1}, "reflect"); }, "[pad]", "Only 2D, 3D, 4D, 5D padding");
  expect_error([&] { F::pad(x, {-3, -3}); }, "[pad]", "negative output size");
  expect_error([&] { F::pad(randn({4}), {1, 1}, "reflect"); }, "[pad]", "Only 2D, 3D, 4D, 5D padding");
  expect_error([&] { F::pad(zeros({2, 3}, kInt64), {1, 1}, "reflect"); }, "[pad]", "not implemented for 'Long'");
  expect_error([&] { F::pad(zeros({2, 3, 0}), {1, 1}, "replicate"); }, "[pad]", "non-zero sizes");
  expect_error([&] { F::pad(x, {int64_t{1} << 62, int64_t{1} << 62}); }, "[pad]", "overflow");
  expect_error(
      [&] {
        F::pad(x, {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()});
      },
      "[pad]", "out of range");
  expect_error([&] { F::pad(x, {-3, 3, 0, 0}, "circular"); }, "[pad]", "wrapping around more than once");
  expect_error([&] { F::pad(x, {-3, -2, 0, 0}, "circular"); }, "[pad]", "resulting in an empty dimension");
  expect_error(
      [&] {
        F::interpolate(x, nn::SizeArg{3, 3}, std::vector<double>{2.0});
      },
      "[interpolate]", "only one of size or scale_factor");
  expect_error([&] { F::interpolate(x); }, "[interpolate]", "either size or scale_factor");
  expect_error([&] { F::interpolate(x, nn::SizeArg{3, 3, 3}); }, "[interpolate]", "same number of spatial");
  expect_error(
      [&] {
        F::interpolate(x, std::nullopt, std::vector<double>{1, 2, 3});
      },
      "[interpolate]", "same number of spatial");
  // area mode reads size and scale_factor as the other modes do
  expect_error(
      [&] {
        F::interpolate(x, std::nullopt, std::vector<double>{1, 2, 3}, "area");
      },
      "[interpolate]", "same number of spatial");
  expect_error([&] { F::interpolate(x, std::nullopt, std::vector<double>{}, "area"); }, "[interpolate]",
               "same number of spatial");
  expect_error(
      [&] {
        F::interpolate(x, nn::SizeArg{3, 3}, std::vector<double>{2.0}, "area");
      },
      "[interpolate]", "only one of size or scale_factor");
  expect_error([&] { F::interpolate(x, nn::SizeArg{0, 3}); }, "[interpolate]", "greater than 0");
  expect_error([&] { F::interpolate(x, std::nullopt, std::vector<double>{0.1}); }, "[interpolate]", "greater than 0");
  expect_error([&] { F::interpolate(x, std::nullopt, std::vector<double>{-1.0}); }, "[interpolate]",
               "invalid scale_factor");
  expect_error([&] { F::interpolate(x, nn::SizeArg{3}, {}, "linear"); }, "[interpolate]", "linear mode needs 3D");
  expect_error([&] { F::interpolate(x, nn::SizeArg{3}, {}, "trilinear"); }, "[interpolate]", "needs 5D");
  expect_error([&] { F::interpolate(x, nn::SizeArg{3}, {}, "lanczos"); }, "[interpolate]", "got lanczos");
  expect_error([&] { F::interpolate(x, nn::SizeArg{3}, {}, "nearest", true); }, "[interpolate]",
               "align_corners option can only be set");
  expect_error([&] { F::interpolate(x, nn::SizeArg{3}, {}, "bilinear", false, true); }, "[interpolate]",
               "recompute_scale_factor is not meaningful");
  expect_error(
      [&] {
        F::interpolate(zeros({1, 1, 3}, kInt64), nn::SizeArg{4});
      },
      "[interpolate]", "not implemented for 'Long'");
  expect_error([&] { F::interpolate(zeros({1, 1, 0, 3}), nn::SizeArg{4}); }, "[interpolate]", "greater than 0");
}

DITTO_GRADCHECK("constant_pad_nd", ({gc_rand({2, 3, 4})}), return F::pad(v[0], {2, -1, 1, 1}, "constant", 0.5);)
DITTO_GRADCHECK("reflection_pad1d", ({gc_rand({2, 5})}), return F::pad(v[0], {3, 2}, "reflect");)
DITTO_GRADCHECK("reflection_pad2d", ({gc_rand({1, 2, 4, 5})}), return F::pad(v[0], {3, 2, 1, 3}, "reflect");)
DITTO_GRADCHECK("reflection_pad3d", ({gc_rand({1, 1, 3, 3, 4})}), return F::pad(v[0], {1, 2, 2, 1, 1, 1}, "reflect");)
DITTO_GRADCHECK("replication_pad1d", ({gc_rand({1, 2, 3})}), return F::pad(v[0], {4, 2}, "replicate");)
DITTO_GRADCHECK("replication_pad2d", ({gc_rand({2, 3, 4})}), return F::pad(v[0], {2, 1, 0, 3}, "replicate");)
DITTO_GRADCHECK("replication_pad3d", ({gc_rand({1, 1, 2, 3, 3})}),
                return F::pad(v[0], {1, 2, 1, 0, 2, 1}, "replicate");)
DITTO_GRADCHECK("_pad_circular", ({gc_rand({1, 2, 4, 5})}), return F::pad(v[0], {4, 2, 1, 3}, "circular");)
DITTO_GRADCHECK("upsample_nearest1d", ({gc_rand({2, 2, 5})}), return F::interpolate(v[0], nn::SizeArg{8});)
DITTO_GRADCHECK("upsample_nearest2d", ({gc_rand({1, 2, 3, 4})}), return F::interpolate(v[0], nn::SizeArg{7, 5});)
DITTO_GRADCHECK("upsample_nearest3d", ({gc_rand({1, 1, 2, 3, 2})}), return F::interpolate(v[0], nn::SizeArg{3, 5, 4});)
DITTO_GRADCHECK("_upsample_nearest_exact1d", ({gc_rand({2, 2, 5})}),
                return F::interpolate(v[0], nn::SizeArg{8}, {}, "nearest-exact");)
DITTO_GRADCHECK("_upsample_nearest_exact2d", ({gc_rand({1, 2, 3, 4})}),
                return F::interpolate(v[0], nn::SizeArg{7, 3}, {}, "nearest-exact");)
DITTO_GRADCHECK("_upsample_nearest_exact3d", ({gc_rand({1, 1, 2, 3, 2})}),
                return F::interpolate(v[0], nn::SizeArg{3, 5, 4}, {}, "nearest-exact");)
DITTO_GRADCHECK("upsample_linear1d", ({gc_rand({2, 2, 5})}), return F::interpolate(v[0], nn::SizeArg{8}, {}, "linear");)
DITTO_GRADCHECK("upsample_bilinear2d", ({gc_rand({1, 2, 3, 4})}),
                return F::interpolate(v[0], std::nullopt, std::vector<double>{1.7, 2.0}, "bilinear", true);)
DITTO_GRADCHECK("upsample_trilinear3d", ({gc_rand({1, 1, 2, 3, 2})}),
                return F::interpolate(v[0], nn::SizeArg{3, 5, 4}, {}, "trilinear");)
DITTO_GRADCHECK("upsample_bicubic2d", ({gc_rand({1, 2, 3, 4})}),
                return F::interpolate(v[0], nn::SizeArg{7, 5}, {}, "bicubic");)
