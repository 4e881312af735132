// The elementwise fma kernels (cpu/fma_kernels.h) at every level this CPU runs against the
// formulas written with std::fma, bit for bit, on odd lengths (SIMD tails) and special values.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/capability.h"
#include "cpu/fma_kernels.h"
#include "guards.h"

namespace {
using ditto::CpuCapability;

using ditto::testing::ConfigGuard;

template <class T>
std::vector<T> values(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<T> normal(0, 2);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = normal(gen);
  const T special[] = {T(0),
                       -T(0),
                       std::numeric_limits<T>::infinity(),
                       std::numeric_limits<T>::quiet_NaN(),
                       std::numeric_limits<T>::denorm_min(),
                       std::numeric_limits<T>::max()};
  for (int64_t i = 0; i < n && i < 6; ++i) v[static_cast<std::size_t>(i * 5 % n)] = special[i];
  return v;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>(a[i]) !=
        std::bit_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>(b[i]))
      return false;
  return true;
}

template <class T>
void check() {
  for (CpuCapability level : ditto::testing::supported_levels()) {
    ConfigGuard guard(level);
    for (int64_t n : {1, 3, 7, 8, 15, 16, 17, 31, 33, 100, 1001}) {
      const auto x = values<T>(n, uint32_t(n)), y = values<T>(n, uint32_t(n + 1000)),
                 z = values<T>(n, uint32_t(n + 2000));
      const std::string at = std::string(ditto::capability_name(level)) + " n=" + std::to_string(n);
      std::vector<T> got(x.size()), want(x.size());
      for (T a : {T(-0.01), T(3)}) {
        ditto::cpu::add_scaled_contiguous(x.data(), y.data(), a, got.data(), n);
        for (int64_t i = 0; i < n; ++i) want[i] = std::fma(y[i], a, x[i]);
        EXPECT_TRUE(same_bits(got, want)) << "add_scaled " << at;
      }
      for (T w : {T(0.1), T(-0.3), T(0.5), T(0.9), T(2)}) {
        ditto::cpu::lerp_contiguous(x.data(), y.data(), w, got.data(), n);
        for (int64_t i = 0; i < n; ++i)
          want[i] = std::fabs(w) < T(0.5) ? std::fma(w, y[i] - x[i], x[i]) : std::fma(w - T(1), y[i] - x[i], y[i]);
        EXPECT_TRUE(same_bits(got, want)) << "lerp w=" << w << " " << at;
      }
      ditto::cpu::addcmul_contiguous(x.data(), y.data(), z.data(), T(0.999), got.data(), n);
      for (int64_t i = 0; i < n; ++i) want[i] = std::fma(T(0.999) * y[i], z[i], x[i]);
      EXPECT_TRUE(same_bits(got, want)) << "addcmul " << at;
    }
  }
}

TEST(FmaKernels, EveryLevelMatchesStdFmaFloat) { check<float>(); }
TEST(FmaKernels, EveryLevelMatchesStdFmaDouble) { check<double>(); }

}  // namespace
