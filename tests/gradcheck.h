#pragma once
// Gradient-check samples, registered from any test file:
//   DITTO_GRADCHECK("mm", {r({3, 4}), r({4, 2})}, [](auto& v) { return v[0].mm(v[1]); });
// The key is the op's name in the op table. tests/test_autograd.cpp checks every registered
// sample against finite differences, and fails for any table op with a backward formula and no
// sample.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ditto/ditto.h"

namespace ditto::testing {

using GradFn = std::function<Tensor(const std::vector<Tensor>&)>;
struct GradSample {
  std::function<std::vector<Tensor>()> make_inputs;  // float64 inputs; all get requires_grad
  GradFn fn;
};

inline std::multimap<std::string, GradSample>& gradcheck_registry() {
  static std::multimap<std::string, GradSample> r;
  return r;
}

struct GradRegistrar {
  GradRegistrar(const std::string& op, std::function<std::vector<Tensor>()> make, GradFn fn) {
    gradcheck_registry().emplace(op, GradSample{std::move(make), std::move(fn)});
  }
};

// Uniform float64 values in [lo, hi) (drawn when the check runs, after a fixed seed).
inline Tensor gc_rand(const Shape& s, double lo = -1.0, double hi = 1.0) { return rand(s, kFloat64) * (hi - lo) + lo; }
inline Tensor gc_pos(const Shape& s) { return rand(s, kFloat64) + 0.5; }

}  // namespace ditto::testing

#define DITTO_GC_CAT2(a, b) a##b
#define DITTO_GC_CAT(a, b) DITTO_GC_CAT2(a, b)
#define DITTO_GRADCHECK(op, inputs, fn)                                            \
  static ::ditto::testing::GradRegistrar DITTO_GC_CAT(ditto_gradcheck_, __LINE__)( \
      op,                                                                          \
      [] {                                                                         \
        using namespace ::ditto::testing;                                          \
        return std::vector<::ditto::Tensor> inputs;                                \
      },                                                                           \
      [](const std::vector<::ditto::Tensor>& v) -> ::ditto::Tensor { fn });
