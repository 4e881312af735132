#pragma once
// Reading tests/data/pytorch-nn.json (written by tools/gen_golden_nn.py; its docstring has the
// format) and comparing results with it, for test_nn_layers.cpp, test_nn_loss.cpp and
// test_optim.cpp.
//
// Comparisons are bitwise where ditto follows PyTorch's arithmetic order, otherwise within `tol`
// of the expected tensor's scale: |actual - expected| <= tol * max|expected| for every element
// (scale-relative, so gradients with cancellation are judged against their magnitude). Set
// DITTO_NN_REPORT=1 to print the error each comparison measured, in units of the dtype's epsilon.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ditto/ditto.h"
#include "golden.h"

namespace ditto::testing {

using json = nlohmann::json;

inline const json& nn_golden() { return ditto::testing::golden_file("pytorch-nn.json"); }

// A section's cases; throws (failing the calling test) when the file or the section is missing,
// so a missing golden file cannot pass silently.
inline const json& nn_section(const char* name) { return golden_section("pytorch-nn.json", name); }

inline uint64_t hex_bits(const json& v) { return std::stoull(v.get<std::string>(), nullptr, 16); }
inline double hex_double(const json& v) { return std::bit_cast<double>(hex_bits(v)); }

inline Tensor decode(const json& j) { return golden_tensor(j); }

inline std::vector<double> as_doubles(const Tensor& t) {
  const Tensor c = t.detach().to(kFloat64).contiguous();
  return to_vector<double>(c);
}

inline bool report_errors() {
  static const bool on = std::getenv("DITTO_NN_REPORT") != nullptr;
  return on;
}

// Bitwise equality of dtype, shape and values (any NaN matches any NaN).
inline ::testing::AssertionResult same_bits(const Tensor& actual, const Tensor& expected) {
  if (!actual.defined() || !expected.defined())
    return actual.defined() == expected.defined() ? ::testing::AssertionSuccess()
                                                  : ::testing::AssertionFailure() << "one tensor is undefined";
  if (actual.dtype() != expected.dtype())
    return ::testing::AssertionFailure() << "dtype " << actual.dtype() << " != " << expected.dtype();
  if (actual.sizes() != expected.sizes()) return ::testing::AssertionFailure() << "shapes differ";
  const std::vector<double> a = as_doubles(actual), e = as_doubles(expected);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(e[i])) continue;
    if (std::bit_cast<uint64_t>(a[i]) != std::bit_cast<uint64_t>(e[i]))
      return ::testing::AssertionFailure()
             << "element " << i << ": " << a[i] << " != " << e[i] << " (of " << a.size() << ")";
  }
  return ::testing::AssertionSuccess();
}

inline double dtype_eps(ScalarType t) {
  return t == kFloat64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
}

// |actual - expected| <= tol_eps * eps(dtype) * max|expected|, elementwise; NaN must match NaN.
inline ::testing::AssertionResult close(const Tensor& actual, const Tensor& expected, double tol_eps,
                                        const std::string& what = "") {
  if (!actual.defined() || !expected.defined())
    return actual.defined() == expected.defined()
               ? ::testing::AssertionSuccess()
               : ::testing::AssertionFailure() << what << ": one tensor is undefined";
  if (actual.dtype() != expected.dtype())
    return ::testing::AssertionFailure() << what << ": dtype " << actual.dtype() << " != " << expected.dtype();
  if (actual.sizes() != expected.sizes()) return ::testing::AssertionFailure() << what << ": shapes differ";
  const std::vector<double> a = as_doubles(actual), e = as_doubles(expected);
  double scale = 0;
  for (double v : e)
    if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
  const double eps = dtype_eps(expected.dtype());
  double worst = 0;
  std::size_t worst_i = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(e[i]) || std::isinf(e[i])) {
      if (std::isnan(e[i]) ? !std::isnan(a[i]) : a[i] != e[i])
        return ::testing::AssertionFailure() << what << ": element " << i << " is " << a[i] << ", expected " << e[i];
      continue;
    }
    const double err = scale > 0 ? std::fabs(a[i] - e[i]) / (scale * eps) : (a[i] == 0 ? 0.0 : INFINITY);
    if (!(err <= worst)) {
      worst = std::isnan(err) ? INFINITY : err;
      worst_i = i;
    }
  }
  if (report_errors())
    std::cout << "[nn-report] " << what << ": max error " << worst << " eps of scale " << scale << "\n";
  if (worst <= tol_eps) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": element " << worst_i << " is " << a[worst_i] << ", expected "
                                       << e[worst_i] << ": error " << worst << " eps of the scale " << scale
                                       << " (allowed " << tol_eps << ")";
}

// The message of the ditto::Error that f throws, or "" when it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace ditto::testing

// Expects statement to throw ditto::Error whose message contains every given substring.
#define EXPECT_DITTO_ERROR(statement, ...)                                                   \
  do {                                                                                       \
    const std::string ditto_msg_ = ::ditto::testing::error_of([&] { (void)(statement); });   \
    EXPECT_FALSE(ditto_msg_.empty()) << #statement << " did not throw ditto::Error";         \
    for (const char* ditto_part_ : {__VA_ARGS__})                                            \
      EXPECT_NE(ditto_msg_.find(ditto_part_), std::string::npos)                             \
          << #statement << ": message '" << ditto_msg_ << "' lacks '" << ditto_part_ << "'"; \
  } while (0)
