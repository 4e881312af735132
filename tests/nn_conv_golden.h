#pragma once
// Shared by tests/test_nn_conv.cpp and tests/test_nn_pool.cpp: PyTorch's answers for convolution
// and pooling, tests/data/pytorch-nn-conv.json (written by tools/gen_golden_nn_conv.py), and
// tensor comparisons, bitwise or within a stated tolerance.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "ditto/ditto.h"
#include "golden.h"

namespace ditto::testing::conv_golden {
using json = nlohmann::json;

inline const json& section(const char* name) { return golden_section("pytorch-nn-conv.json", name); }

inline Tensor decode(const json& t) { return golden_tensor(t); }

// Raw bits of every element, as uint64 (float32 bits zero-extended), for exact comparison.
inline std::vector<uint64_t> bits(const Tensor& t) {
  std::vector<uint64_t> r;
  const Tensor c = t.contiguous();
  if (c.dtype() == kFloat32)
    for (float v : to_vector<float>(c)) r.push_back(std::bit_cast<uint32_t>(v));
  else if (c.dtype() == kFloat64)
    for (double v : to_vector<double>(c)) r.push_back(std::bit_cast<uint64_t>(v));
  else
    for (int64_t v : to_vector<int64_t>(c)) r.push_back(static_cast<uint64_t>(v));
  return r;
}

inline std::vector<double> values(const Tensor& t) {
  const Tensor c = t.contiguous().to(kFloat64);
  return to_vector<double>(c);
}

// Same shape, dtype and bits.
inline void expect_bits(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what << ": undefined";
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  const auto g = bits(got), w = bits(want);
  for (std::size_t i = 0; i < g.size(); ++i)
    if (g[i] != w[i]) {
      ADD_FAILURE() << what << ": element " << i << " differs: " << values(got)[i] << " vs " << values(want)[i];
      return;
    }
}

// |got - want| <= rtol * max(1, |want|) elementwise (NaN only where NaN). Returns how many
// elements were bit-identical.
inline std::size_t expect_close(const Tensor& got, const Tensor& want, double rtol, const std::string& what) {
  EXPECT_TRUE(got.defined()) << what << ": undefined";
  if (!got.defined()) return 0;
  EXPECT_EQ(got.sizes(), want.sizes()) << what;
  EXPECT_EQ(got.dtype(), want.dtype()) << what;
  if (got.sizes() != want.sizes()) return 0;
  const auto g = values(got), w = values(want);
  const auto gb = bits(got), wb = bits(want);
  std::size_t same = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    same += gb[i] == wb[i];
    if (std::isnan(w[i]) || std::isnan(g[i])) {
      EXPECT_TRUE(std::isnan(w[i]) && std::isnan(g[i])) << what << ": element " << i;
      continue;
    }
    if (!(std::fabs(g[i] - w[i]) <= rtol * std::max(1.0, std::fabs(w[i])))) {
      ADD_FAILURE() << what << ": element " << i << ": " << g[i] << " vs PyTorch " << w[i];
      return same;
    }
  }
  return same;
}

// A pooling argument as passed to torch.nn.functional: a number, a list, or null (default).
inline nn::SizeArg size_arg(const json& v) {
  if (v.is_null()) return {};
  if (v.is_number()) return v.get<int64_t>();
  return v.get<Shape>();
}

}  // namespace ditto::testing::conv_golden
