// Tensor printing against PyTorch's str(t): golden cases from tools/gen_golden_print.py.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "core/print.h"
#include "golden.h"

using ditto::ScalarType;
using ditto::detail::format_tensor;
using ditto::detail::PrintData;

namespace {

ScalarType parse_dtype(const std::string& s) {
  if (s == "float32") return ditto::kFloat32;
  if (s == "float64") return ditto::kFloat64;
  if (s == "int32") return ditto::kInt32;
  if (s == "int64") return ditto::kInt64;
  if (s == "bool") return ditto::kBool;
  throw std::runtime_error("unknown dtype " + s);
}

PrintData from_json(const nlohmann::json& c) {
  PrintData d;
  const nlohmann::json& t = c.at("tensor");  // the golden files' one encoding (tests/golden.h)
  d.dtype = parse_dtype(t.at("dtype").get<std::string>());
  d.sizes = t.at("sizes").get<std::vector<int64_t>>();
  for (const auto& v : t.at("data")) {
    if (d.dtype == ditto::kFloat32) {
      // Widened exactly, as Python's float() of a float32 element.
      auto bits = static_cast<uint32_t>(std::stoul(v.get<std::string>(), nullptr, 16));
      d.floats.push_back(static_cast<double>(std::bit_cast<float>(bits)));
    } else if (d.dtype == ditto::kFloat64) {
      d.floats.push_back(std::bit_cast<double>(static_cast<uint64_t>(std::stoull(v.get<std::string>(), nullptr, 16))));
    } else {
      d.ints.push_back(v.is_boolean() ? int64_t{v.get<bool>()} : v.get<int64_t>());
    }
  }
  d.requires_grad = c.at("requires_grad").get<bool>();
  if (!c.at("grad_fn").is_null()) d.grad_fn = c.at("grad_fn").get<std::string>();
  return d;
}

nlohmann::json load_cases() { return ditto::testing::golden_section("pytorch-print.json", "cases"); }

}  // namespace

TEST(PrintGolden, MatchesPyTorchStr) {
  const nlohmann::json cases = load_cases();
  ASSERT_GE(cases.size(), 60u) << "tests/data/pytorch-print.json missing or short";
  for (const auto& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    SCOPED_TRACE(name);
    EXPECT_EQ(format_tensor(from_json(c)), c.at("str").get<std::string>()) << "case " << name;
  }
}

TEST(PrintUnit, SeedExampleMatrix) {
  // torch.manual_seed(0); torch.randn(4, 4)  (float32 literals round-trip the exact values)
  PrintData d{ditto::kFloat32, {4, 4}, {}, {}, false, ""};
  for (float v :
       {-1.12583983f, -1.1523602f, -0.250578582f, -0.433878809f, 0.848710358f, 0.692009151f, -0.31601277f, -2.11521935f,
        0.322274923f, -1.26333475f, 0.349983186f, 0.30813393f, 0.119841509f, 1.2376579f, 1.11677718f, -0.247278154f})
    d.floats.push_back(v);
  EXPECT_EQ(format_tensor(d),
            "tensor([[-1.1258, -1.1524, -0.2506, -0.4339],\n"
            "        [ 0.8487,  0.6920, -0.3160, -2.1152],\n"
            "        [ 0.3223, -1.2633,  0.3500,  0.3081],\n"
            "        [ 0.1198,  1.2377,  1.1168, -0.2473]])");
}

TEST(PrintUnit, ScalarsAndSuffixes) {
  EXPECT_EQ(format_tensor({ditto::kFloat32, {}, {3.5}, {}, false, ""}), "tensor(3.5000)");
  EXPECT_EQ(format_tensor({ditto::kFloat64, {}, {-2.0}, {}, true, ""}),
            "tensor(-2., dtype=torch.float64, requires_grad=True)");
  EXPECT_EQ(format_tensor({ditto::kInt32, {3}, {}, {1, 2, 3}, false, ""}), "tensor([1, 2, 3], dtype=torch.int32)");
  EXPECT_EQ(format_tensor({ditto::kFloat32, {2}, {1.5, 2.0}, {}, true, "AddBackward0"}),
            "tensor([1.5000, 2.0000], grad_fn=<AddBackward0>)");
}

TEST(PrintUnit, BoolAndEmpty) {
  EXPECT_EQ(format_tensor({ditto::kBool, {2}, {}, {1, 0}, false, ""}), "tensor([ True, False])");
  EXPECT_EQ(format_tensor({ditto::kFloat32, {0}, {}, {}, false, ""}), "tensor([])");
  EXPECT_EQ(format_tensor({ditto::kFloat32, {0, 3}, {}, {}, false, ""}), "tensor([], size=(0, 3))");
  EXPECT_EQ(format_tensor({ditto::kInt64, {0}, {}, {}, false, ""}), "tensor([], dtype=torch.int64)");
}

TEST(PrintUnit, NonFiniteAndModes) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // A sign-bit nan prints as plain "nan" in Python.
  EXPECT_EQ(format_tensor({ditto::kFloat32, {3}, {-nan, inf, 2.0}, {}, false, ""}), "tensor([nan, inf, 2.])");
  EXPECT_EQ(format_tensor({ditto::kFloat32, {2}, {1e-5, 1.0}, {}, false, ""}), "tensor([1.0000e-05, 1.0000e+00])");
  EXPECT_EQ(format_tensor({ditto::kFloat32, {2}, {-0.0, 0.0}, {}, false, ""}), "tensor([-0., 0.])");
}

TEST(PrintUnit, RejectsMismatchedValueCount) {
  EXPECT_THROW(format_tensor({ditto::kFloat32, {2, 2}, {1.0}, {}, false, ""}), std::invalid_argument);
}
