// 3-D, adaptive, fractional and power-average pooling: PyTorch's answers bit for bit
// (tests/data/pytorch-pool.json, from tools/gen_golden_pool.py), forward, indices and gradient;
// fractional pooling's own draw from a seed; the modules; bad input. Thread, level and batch
// invariance: tests/test_invariance.cpp; gradient checks: tests/test_autograd.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
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

const json& cases() { return ditto::testing::golden_section("pytorch-pool.json", "cases"); }

// A keyword argument as PyTorch got it: a number, a list, or absent (the default).
nn::SizeArg size(const json& args, const char* key, nn::SizeArg absent = {}) {
  if (!args.contains(key) || args.at(key).is_null()) return absent;
  const json& v = args.at(key);
  return v.is_array() ? nn::SizeArg(v.get<Shape>()) : nn::SizeArg(v.get<int64_t>());
}
bool flag(const json& args, const char* key, bool absent) {
  return args.contains(key) ? args.at(key).get<bool>() : absent;
}
std::vector<double> ratio(const json& args) {
  if (!args.contains("output_ratio")) return {};
  const json& v = args.at("output_ratio");
  return v.is_array() ? v.get<std::vector<double>>() : std::vector<double>{v.get<double>()};
}

using Outputs = std::vector<Tensor>;
using Call = std::function<Outputs(const Tensor&, const json& args, const Tensor& samples)>;
Outputs pair(std::pair<Tensor, Tensor> p) { return {p.first, p.second}; }

// Each op of the file, called as ditto's C++ API spells it.
const std::map<std::string, Call>& calls() {
  static const std::map<std::string, Call> m = {
      {"max_pool3d",
       [](const Tensor& x, const json& a, const Tensor&) {
         return pair(F::max_pool3d_with_indices(x, size(a, "kernel_size"), size(a, "stride"), size(a, "padding", 0),
                                                size(a, "dilation", 1), flag(a, "ceil_mode", false)));
       }},
      {"avg_pool3d",
       [](const Tensor& x, const json& a, const Tensor&) {
         const std::optional<int64_t> div =
             a.contains("divisor_override") ? std::optional(a.at("divisor_override").get<int64_t>()) : std::nullopt;
         return Outputs{F::avg_pool3d(x, size(a, "kernel_size"), size(a, "stride"), size(a, "padding", 0),
                                      flag(a, "ceil_mode", false), flag(a, "count_include_pad", true), div)};
       }},
      {"avg_pool1d",
       [](const Tensor& x, const json& a, const Tensor&) {
         return Outputs{F::avg_pool1d(x, size(a, "kernel_size"), size(a, "stride"), size(a, "padding", 0),
                                      flag(a, "ceil_mode", false), flag(a, "count_include_pad", true))};
       }},
      {"adaptive_avg_pool1d", [](const Tensor& x, const json& a,
                                 const Tensor&) { return Outputs{F::adaptive_avg_pool1d(x, size(a, "output_size"))}; }},
      {"adaptive_avg_pool3d", [](const Tensor& x, const json& a,
                                 const Tensor&) { return Outputs{F::adaptive_avg_pool3d(x, size(a, "output_size"))}; }},
      {"adaptive_max_pool1d",
       [](const Tensor& x, const json& a, const Tensor&) {
         return pair(F::adaptive_max_pool1d_with_indices(x, size(a, "output_size")));
       }},
      {"adaptive_max_pool2d",
       [](const Tensor& x, const json& a, const Tensor&) {
         return pair(F::adaptive_max_pool2d_with_indices(x, size(a, "output_size")));
       }},
      {"adaptive_max_pool3d",
       [](const Tensor& x, const json& a, const Tensor&) {
         return pair(F::adaptive_max_pool3d_with_indices(x, size(a, "output_size")));
       }},
      {"fractional_max_pool2d",
       [](const Tensor& x, const json& a, const Tensor& u) {
         return pair(
             F::fractional_max_pool2d_with_indices(x, size(a, "kernel_size"), size(a, "output_size"), ratio(a), u));
       }},
      {"fractional_max_pool3d",
       [](const Tensor& x, const json& a, const Tensor& u) {
         return pair(
             F::fractional_max_pool3d_with_indices(x, size(a, "kernel_size"), size(a, "output_size"), ratio(a), u));
       }},
      {"lp_pool1d",
       [](const Tensor& x, const json& a, const Tensor&) {
         return Outputs{F::lp_pool1d(x, a.at("norm_type").get<double>(), size(a, "kernel_size"), size(a, "stride"),
                                     flag(a, "ceil_mode", false))};
       }},
      {"lp_pool2d",
       [](const Tensor& x, const json& a, const Tensor&) {
         return Outputs{F::lp_pool2d(x, a.at("norm_type").get<double>(), size(a, "kernel_size"), size(a, "stride"),
                                     flag(a, "ceil_mode", false))};
       }},
  };
  return m;
}

}  // namespace

// Every case: outputs (values and indices) and the gradient of PyTorch's upstream gradient, bit
// for bit; the autograd node's name is PyTorch's.
TEST(NNPool3dGolden, MatchesPyTorchBitForBit) {
  ASSERT_GE(cases().size(), 60u);
  std::map<std::string, int> per_op;
  for (const json& c : cases()) {
    const std::string name = c.at("name").get<std::string>(), op = c.at("op").get<std::string>();
    SCOPED_TRACE(name);
    ASSERT_TRUE(calls().count(op)) << op;
    ++per_op[op];
    Tensor x = cg::decode(c.at("input"));
    const bool grad = c.contains("grad_output");
    if (grad) x.requires_grad_();
    const Tensor in = c.at("transposed").get<bool>() ? x.transpose(-1, -2) : x;
    const Tensor samples = c.at("samples").is_null() ? Tensor() : cg::decode(c.at("samples"));
    if (!c.at("seed").is_null()) manual_seed(c.at("seed").get<uint64_t>());
    Outputs out = calls().at(op)(in, c.at("args"), samples);
    const json& want = c.at("outputs");
    ASSERT_EQ(out.size(), want.size());
    // lp_pool's pow to other exponents than 2 is ditto's own (cpu/dmath.h), within an ulp or two
    // of PyTorch's libm pow; x^2 is x * x in both, exact.
    const bool pow_ulps = op.rfind("lp_pool", 0) == 0 && c.at("args").at("norm_type").get<double>() != 2.0;
    const double rtol = x.dtype() == kFloat32 ? 1e-6 : 1e-14;
    auto compare = [&](const Tensor& got, const Tensor& expected, const char* what) {
      if (pow_ulps)
        cg::expect_close(got, expected, rtol, what);
      else
        cg::expect_bits(got, expected, what);
    };
    for (std::size_t i = 0; i < out.size(); ++i) compare(out[i], cg::decode(want[i]), i ? "indices" : "values");
    if (!grad) continue;
    // (PyTorch's unbatched forms run its batched kernel on a view; ditto's squeeze the batch)
    if (name.find("unbatched") == std::string::npos) {
      EXPECT_EQ(out[0].grad_fn_name(), c.at("grad_fn").get<std::string>());
    }
    out[0].backward(cg::decode(c.at("grad_output")));
    compare(x.grad(), cg::decode(c.at("grad_input")), "grad_input");
  }
  EXPECT_EQ(per_op.size(), calls().size());  // every op has cases
}

// Sums that divide to -0: avg_pool writes 0 + sum / divisor (+0), adaptive_avg_pool
// sum / kd / kh / kw (-0 stays), as PyTorch's kernels (the golden case *_tiny_negative).
TEST(NNPool3d, SignOfZeroIsPyTorchs) {
  const Tensor x = from_vector(std::vector<float>{-1.4e-45f, 0, 0, 0, 0, 0, 0, 0}, {1, 1, 2, 2, 2});
  const float a = F::avg_pool3d(x, 2, {}, 0, false, true, 1000).item<float>();
  EXPECT_EQ(a, 0.0f);
  EXPECT_FALSE(std::signbit(a));
  const float b = to_vector<float>(F::adaptive_avg_pool3d(x, {1, 1, 2}))[0];
  EXPECT_EQ(b, 0.0f);
  EXPECT_TRUE(std::signbit(b));
}

// Without samples the op draws rand(N, C, dims) from the default generator, as PyTorch's
// F.fractional_max_pool2d, so a seed fixes the windows; a module draws afresh on each call.
TEST(NNPool3d, FractionalPoolDrawsItsSamplesAsPyTorch) {
  const Tensor x = randn({2, 3, 9, 10});
  manual_seed(5);
  const Tensor u = rand({2, 3, 2});
  manual_seed(5);
  const auto [v, i] = F::fractional_max_pool2d_with_indices(x, 2, {4, 5});
  const auto [v2, i2] = F::fractional_max_pool2d_with_indices(x, 2, {4, 5}, {}, u);
  EXPECT_TRUE(equal(v, v2));
  EXPECT_TRUE(equal(i, i2));
  nn::FractionalMaxPool2d m(2, {}, {0.5, 0.5});
  manual_seed(5);
  EXPECT_TRUE(equal(m(x), v));  // output_ratio 0.5: (4, 5)
  EXPECT_EQ(m.name(), "FractionalMaxPool2d");
  nn::FractionalMaxPool3d m3(2, {3, 3, 3});
  manual_seed(1);
  const Tensor y = m3(randn({1, 2, 6, 6, 6}));
  EXPECT_EQ(y.sizes(), (Shape{1, 2, 3, 3, 3}));
}

TEST(NNPool3d, ModulesCallTheirOps) {
  const Tensor x5 = randn({2, 3, 6, 7, 8}), x4 = randn({2, 3, 7, 8}), x3 = randn({2, 3, 9});
  nn::MaxPool3d mp(3, 2, 1);
  EXPECT_TRUE(equal(mp(x5), F::max_pool3d(x5, 3, 2, 1)));
  EXPECT_TRUE(equal(mp.forward_with_indices(x5).second, F::max_pool3d_with_indices(x5, 3, 2, 1).second));
  nn::AvgPool3d ap({2, 3, 2}, {}, 0, true, false, std::nullopt);
  EXPECT_TRUE(equal(ap(x5), F::avg_pool3d(x5, {2, 3, 2}, {}, 0, true, false)));
  EXPECT_TRUE(equal(nn::AdaptiveAvgPool3d({2, 3, 4})(x5), F::adaptive_avg_pool3d(x5, {2, 3, 4})));
  EXPECT_TRUE(equal(nn::AdaptiveMaxPool1d(4)(x3), F::adaptive_max_pool1d(x3, 4)));
  EXPECT_TRUE(equal(nn::AdaptiveMaxPool2d({3, 5})(x4), F::adaptive_max_pool2d(x4, {3, 5})));
  nn::AdaptiveMaxPool3d am3({2, 2, 3});
  EXPECT_TRUE(equal(am3(x5), F::adaptive_max_pool3d(x5, {2, 2, 3})));
  EXPECT_TRUE(equal(am3.forward_with_indices(x5).second, F::adaptive_max_pool3d_with_indices(x5, {2, 2, 3}).second));
  EXPECT_TRUE(equal(nn::LPPool1d(2.0, 3, 2)(x3), F::lp_pool1d(x3, 2.0, 3, 2)));
  EXPECT_TRUE(equal(nn::LPPool2d(3.0, {2, 3})(x4), F::lp_pool2d(x4, 3.0, {2, 3})));
  EXPECT_EQ(mp.name(), "MaxPool3d");
  EXPECT_EQ(ap.name(), "AvgPool3d");
  EXPECT_EQ(am3.name(), "AdaptiveMaxPool3d");
  EXPECT_EQ(nn::LPPool2d(2.0, 2).name(), "LPPool2d");
}

// Deterministic mode refuses none of them (PyTorch refuses their CUDA backward, or switches it).
TEST(NNPool3d, NeverRefusedInDeterministicMode) {
  ditto::testing::ConfigGuard restore;
  use_deterministic_algorithms(true);
  const Tensor x5 = randn({1, 2, 5, 6, 7}).requires_grad_(), x4 = randn({1, 2, 6, 7}).requires_grad_();
  Tensor s = F::max_pool3d(x5, 2).sum() + F::avg_pool3d(x5, 3, 2, 1).sum() + F::adaptive_avg_pool3d(x5, 3).sum() +
             F::adaptive_max_pool3d(x5, {2, 3, 2}).sum() + F::fractional_max_pool3d(x5, 2, {3, 3, 3}).sum() +
             F::adaptive_max_pool2d(x4, 3).sum() + F::fractional_max_pool2d(x4, 2, {3, 4}).sum() +
             F::lp_pool2d(x4, 2.0, 2).sum();
  s.backward();
  EXPECT_TRUE(x5.grad().defined());
  EXPECT_TRUE(x4.grad().defined());
}

TEST(NNPool3dErrors, BadInputNamesTheOp) {
  const Tensor x5 = randn({1, 2, 4, 5, 6}), x4 = randn({1, 2, 5, 6});
  expect_error([&] { F::max_pool3d(x4.view({2, 5, 6}), 2); }, "[max_pool3d]", "expected 4D (unbatched) or 5D");
  expect_error([&] { F::max_pool3d(x5, {2, 2}); }, "[max_pool3d]", "kernel_size to be one number or 3");
  expect_error([&] { F::max_pool3d(x5, 2, 1, 2); }, "[max_pool3d]", "at most half of the kernel size");
  expect_error([&] { F::max_pool3d(x5, 5); }, "[max_pool3d]", "too small for kernel_size");
  expect_error([&] { F::max_pool3d(x5, 2, 0); }, "[max_pool3d]", "stride > 0");
  expect_error([&] { F::max_pool3d(randn({1, 0, 4, 5, 6}), 2); }, "[max_pool3d]", "non-zero sizes");
  expect_error([&] { F::max_pool3d(x5.to(kInt64), 2); }, "[max_pool3d]", "floating-point");
  expect_error([&] { F::avg_pool3d(x5, 2, {}, 0, false, true, 0); }, "[avg_pool3d]", "divisor_override");
  expect_error([&] { F::avg_pool3d(x5, std::numeric_limits<int64_t>::max() / 2); }, "[avg_pool3d]", "");
  expect_error([&] { F::adaptive_avg_pool3d(x5, {2, 0, 2}); }, "[adaptive_avg_pool3d]", "output_size > 0");
  expect_error([&] { F::adaptive_max_pool2d(x5, 2); }, "[adaptive_max_pool2d]", "expected 3D (unbatched) or 4D");
  expect_error([&] { F::adaptive_max_pool1d(x4, 2); }, "[adaptive_max_pool1d]", "expected 2D (unbatched) or 3D");
  expect_error([&] { F::adaptive_max_pool3d(x5, {1, 2}); }, "[adaptive_max_pool3d]", "output_size to be one number");
  expect_error([&] { F::fractional_max_pool2d(x4, 2); }, "[fractional_max_pool2d]", "output_size or output_ratio");
  expect_error([&] { F::fractional_max_pool2d(x4, 3, {4, 4}); }, "[fractional_max_pool2d]", "too large");
  expect_error([&] { F::fractional_max_pool2d(x4, 2, {}, {1.5}); }, "[fractional_max_pool2d]", "between 0 and 1");
  expect_error(
      [&] {
        F::fractional_max_pool2d(x4, 2, {2, 2}, {}, rand({1, 2, 3}));
      },
      "[fractional_max_pool2d]", "random samples of shape");
  expect_error(
      [&] {
        F::fractional_max_pool2d(x4, 2, {2, 2}, {}, rand({1, 2, 2}, kFloat64));
      },
      "[fractional_max_pool2d]", "input's dtype");
  expect_error([&] { F::fractional_max_pool3d(x5, 2, {0, 2, 2}); }, "[fractional_max_pool3d]", "output_size > 0");
  expect_error([&] { F::lp_pool2d(x4, 2.0, {2, 2, 2}); }, "[lp_pool2d]", "kernel_size to be one number or 2");
  expect_error([&] { nn::AdaptiveMaxPool3d(2)(x4.view({10, 6})); }, "[AdaptiveMaxPool3d]", "expected 4D");
  // the backward ops check what they are given
  const Tensor g = randn({1, 2, 2, 2, 3});
  expect_error(
      [&] {
        F::max_pool3d_with_indices_backward(g, zeros({1, 2, 2, 2}, kInt64), {1, 2, 4, 5, 6});
      },
      "[max_pool3d_with_indices_backward]", "differ in shape");
  expect_error(
      [&] {
        F::max_pool3d_with_indices_backward(g, zeros({1, 2, 2, 2, 3}), {1, 2, 4, 5, 6});
      },
      "[max_pool3d_with_indices_backward]", "int64 indices");
  expect_error(
      [&] {
        F::adaptive_max_pool3d_backward(g, zeros({1, 2, 2, 2, 3}, kInt64), {1, 2, 4, 5});
      },
      "[adaptive_max_pool3d_backward]", "5D input size");
  expect_error(
      [&] {
        F::avg_pool3d_backward(g, {1, 2, 4, 5, 6}, 3, 1, 1, false, true, std::nullopt);
      },
      "[avg_pool3d_backward]", "grad_output of shape");
  expect_error(
      [&] {
        F::adaptive_avg_pool3d_backward(g, {1, 3, 4, 5, 6});
      },
      "[adaptive_avg_pool3d_backward]", "does not fit");
  expect_error(
      [&] {
        F::fractional_max_pool2d_backward(g, g.to(kInt64), {1, 2, 4, 5});
      },
      "[fractional_max_pool2d_backward]", "grad_output to be 4D");
}

// ------------------------------------------------------------------------------ gradient checks
namespace {
using ditto::testing::gc_rand;
DITTO_GRADCHECK("max_pool3d_with_indices", ({gc_rand({1, 2, 4, 5, 5})}), return F::max_pool3d(v[0], 3, 2, 1);)
DITTO_GRADCHECK("avg_pool3d", ({gc_rand({1, 2, 4, 5, 6})}), return F::avg_pool3d(v[0], {2, 3, 2}, 2, 1, true, false);)
DITTO_GRADCHECK("avg_pool3d", ({gc_rand({2, 3, 4, 5})}), return F::avg_pool3d(v[0], 2, 1, 0, false, true, 3);)
DITTO_GRADCHECK("adaptive_avg_pool3d", ({gc_rand({1, 2, 5, 4, 6})}), return F::adaptive_avg_pool3d(v[0], {2, 3, 4});)
DITTO_GRADCHECK("adaptive_max_pool2d", ({gc_rand({2, 2, 7, 5})}), return F::adaptive_max_pool2d(v[0], {3, 4});)
DITTO_GRADCHECK("adaptive_max_pool2d", ({gc_rand({2, 9})}), return F::adaptive_max_pool1d(v[0], 4);)
DITTO_GRADCHECK("adaptive_max_pool3d", ({gc_rand({1, 2, 5, 4, 6})}), return F::adaptive_max_pool3d(v[0], {2, 3, 4});)
DITTO_GRADCHECK("fractional_max_pool2d", ({gc_rand({2, 2, 7, 8})}),
                return F::fractional_max_pool2d(v[0], 2, {4, 5}, {}, full({2, 2, 2}, 0.37, kFloat64));)
DITTO_GRADCHECK("fractional_max_pool3d", ({gc_rand({1, 2, 5, 6, 7})}),
                return F::fractional_max_pool3d(v[0], 2, {3, 4, 4}, {}, full({1, 2, 3}, 0.61, kFloat64));)
}  // namespace
