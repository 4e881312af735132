#pragma once
// Distribution cores over raw pointers, bit-identical to PyTorch 1.13's AVX2 CPU kernels
// (spec: docs/spec/pytorch-cpu-rng.md). Every a*b+c that PyTorch's AVX2 build fuses is an
// explicit std::fma here; everything else is a separately rounded operation, which relies on
// the -ffp-contract=off set for the whole library. The caller holds the generator's mutex.
//
// This header is compiled both into baseline code and into random_avx2.cpp (-mavx2 -mfma, where
// std::fma becomes one instruction). Its functions have internal linkage so that the linker can
// never hand the AVX2 copy to baseline code; both copies give the same bits.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "core/tensor_impl.h"
#include "ditto/random.h"

namespace ditto::detail {
namespace {

// U24 / U53: exact uniforms in [0, 1).
inline float u24(uint32_t r) { return static_cast<float>(r & 0xFFFFFFu) * 0x1p-24f; }
inline double u53(uint64_t r) { return static_cast<double>(r & ((uint64_t{1} << 53) - 1)) * 0x1p-53; }

inline float f32_bits(uint32_t b) { return std::bit_cast<float>(b); }

// avx_mathfun's log256_ps, one lane (spec §3b, LOG).
inline float avx2_logf(float u) {
  const float min_norm = f32_bits(0x00800000u);
  u = u < min_norm ? min_norm : u;  // never active for u in (0, 1]
  const uint32_t ub = std::bit_cast<uint32_t>(u);
  const float m = f32_bits((ub & 0x807FFFFFu) | 0x3F000000u);
  float e = static_cast<float>(static_cast<int32_t>(ub >> 23) - 127) + 1.0f;
  float x;
  if (m < f32_bits(0x3F3504F3u)) {  // SQRTHF
    e = e - 1.0f;
    x = (m - 1.0f) + m;
  } else {
    x = m - 1.0f;
  }
  static constexpr uint32_t kP[9] = {0x3d9021bb, 0xbdebd1b8, 0x3def251a, 0xbdfe5d4f, 0x3e11e9bf,
                                     0xbe2aae50, 0x3e4cceac, 0xbe7ffffc, 0x3eaaaaaa};
  const float z = x * x;
  float y = f32_bits(kP[0]);
  for (int k = 1; k < 9; ++k) y = std::fma(y, x, f32_bits(kP[k]));
  y = y * x;
  y = std::fma(y, z, e * f32_bits(0xb95e8083u));  // q1
  y = std::fma(-z, 0.5f, y);
  float r = x + y;
  return std::fma(e, f32_bits(0x3f318000u), r);  // q2
}

// avx_mathfun's sincos256_ps, one lane (spec §3b, SINCOS).
inline void avx2_sincosf(float th, float* s_out, float* c_out) {
  const bool sgn = std::signbit(th);
  float x = std::fabs(th);
  int32_t j = static_cast<int32_t>(x * f32_bits(0x3fa2f983u));  // FOPI; truncation
  j = (j + 1) & ~1;
  const float y = static_cast<float>(j);
  x = std::fma(y, f32_bits(0xbf490000u), x);  // -DP1
  x = std::fma(y, f32_bits(0xb97da000u), x);  // -DP2
  x = std::fma(y, f32_bits(0xb3222169u), x);  // -DP3
  const float z = x * x;
  float c = std::fma(f32_bits(0x37ccf5ceu), z, f32_bits(0xbab6061au));
  c = std::fma(c, z, f32_bits(0x3d2aaaa5u));
  c = c * z;
  c = std::fma(c, z, -(0.5f * z));
  c = c + 1.0f;
  float s = std::fma(f32_bits(0xb94ca1f9u), z, f32_bits(0x3c08839eu));
  s = std::fma(s, z, f32_bits(0xbe2aaaa3u));
  s = s * z;
  s = std::fma(s, x, x);
  // The SIMD select is and/andnot/add, so a -0 comes out as +0.
  float sv = ((j & 2) == 0 ? s : c) + 0.0f;
  float cv = ((j & 2) == 0 ? c : s) + 0.0f;
  if (sgn != ((j & 4) != 0)) sv = -sv;
  if (((j - 2) & 4) == 0) cv = -cv;
  *s_out = sv;
  *c_out = cv;
}

// normal_fill_16_AVX2: lane j (radius source, cos output) pairs with lane j+8.
inline void normal_block16_f32(float* d, float mean, float std) {
  const float two_pi = f32_bits(0x40C90FDBu);
  for (int j = 0; j < 8; ++j) {
    const float u = 1.0f - d[j];
    const float v = d[j + 8];
    const float rho = std::sqrt(-2.0f * avx2_logf(u));
    const float th = two_pi * v;
    float s, c;
    avx2_sincosf(th, &s, &c);
    const float n1 = rho * c;
    const float n2 = rho * s;
    d[j] = std::fma(n1, std, mean);
    d[j + 8] = std::fma(n2, std, mean);
  }
}

// PyTorch's results come from glibc's log and sincos (the FMA builds, on AVX2 machines); see
// the report in Note [glibc dependence] in distributions.cpp.
inline void sincos_d(double x, double* s, double* c) {
#if defined(__GLIBC__)
  ::sincos(x, s, c);
#else
  *s = std::sin(x);
  *c = std::cos(x);
#endif
}

constexpr double kTwoPiD = 6.283185307179586232;  // 0x401921FB54442D18
static_assert(std::bit_cast<uint64_t>(kTwoPiD) == 0x401921FB54442D18ull);

// normal_fill_16<double> with glibc log and sincos.
inline void normal_block16_f64(double* d, double mean, double std) {
  for (int j = 0; j < 8; ++j) {
    const double u = 1.0 - d[j];
    const double v = d[j + 8];
    const double rho = std::sqrt(-2.0 * std::log(u));
    const double th = kTwoPiD * v;
    double s, c;
    sincos_d(th, &s, &c);
    const double n1 = rho * c;
    const double n2 = rho * s;
    d[j] = std::fma(n1, std, mean);
    d[j + 8] = std::fma(n2, std, mean);
  }
}

// Path F (contiguous, n >= 16): fill with uniforms, transform 16-blocks, then redo the last 16
// from fresh draws when n % 16 != 0.
inline void normal_fill_f32(float* d, int64_t n, float mean, float std, Generator& g) {
  for (int64_t i = 0; i < n; ++i) d[i] = u24(g.random());
  for (int64_t b = 0; b + 16 <= n; b += 16) normal_block16_f32(d + b, mean, std);
  if (n % 16 != 0) {
    float* t = d + n - 16;
    for (int i = 0; i < 16; ++i) t[i] = u24(g.random());
    normal_block16_f32(t, mean, std);
  }
}

inline void normal_fill_f64(double* d, int64_t n, double mean, double std, Generator& g) {
  for (int64_t i = 0; i < n; ++i) d[i] = u53(g.random64());
  for (int64_t b = 0; b + 16 <= n; b += 16) normal_block16_f64(d + b, mean, std);
  if (n % 16 != 0) {
    double* t = d + n - 16;
    for (int i = 0; i < 16; ++i) t[i] = u53(g.random64());
    normal_block16_f64(t, mean, std);
  }
}

// Path S: at::normal_distribution<double> with the generator's Box-Muller cache. Here u1 is
// the angle source and u2 the radius source (the reverse of path F).
inline double normal_scalar(Generator& g, double mean, double std) {
  double z;
  if (g.normal_cache_d.has_value()) {
    z = *g.normal_cache_d;
    g.normal_cache_d.reset();
  } else {
    const double u1 = u53(g.random64());
    const double u2 = u53(g.random64());
    const double rho = std::sqrt(-2.0 * std::log(1.0 - u2));
    const double th = kTwoPiD * u1;
    double s, c;
    sincos_d(th, &s, &c);
    g.normal_cache_d = rho * s;
    z = rho * c;
  }
  return std::fma(z, std, mean);
}

// uniform_real_distribution<float>(a, b) with a, b already rounded to float.
inline float uniform_f32(Generator& g, float a, float d) { return std::fma(u24(g.random()), d, a); }
inline double uniform_f64(Generator& g, double a, double d) { return std::fma(u53(g.random64()), d, a); }

// uniform_int_from_to_distribution: 64-bit draws only for wide ranges and wide dtypes.
inline int64_t uniform_int_from_to(Generator& g, uint64_t range, int64_t base, bool wide_dtype) {
  const uint64_t v = (wide_dtype && range >= (uint64_t{1} << 32)) ? g.random64() : g.random();
  return static_cast<int64_t>(v % range + static_cast<uint64_t>(base));
}

// Contiguous uniform fills (the common case; same draws as the strided walk).
inline void uniform_fill_f32(float* d, int64_t n, float a, float span, Generator& g) {
  for (int64_t i = 0; i < n; ++i) d[i] = uniform_f32(g, a, span);
}
inline void uniform_fill_f64(double* d, int64_t n, double a, double span, Generator& g) {
  for (int64_t i = 0; i < n; ++i) d[i] = uniform_f64(g, a, span);
}

// x86's cvttss2si/cvttsd2si: truncation, giving INT64_MIN for NaN and out-of-range values.
template <class F>
int64_t x86_trunc_i64(F v) {
  if (!(v >= F(-0x1p63) && v < F(0x1p63))) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// ATen's update_from / update_to for floating outputs of random_(from, to): when from + 1 or
// to - 1 does not survive a round trip through F, the bound moves inwards to a value that does.
template <class F>
int64_t float_update_from(int64_t from) {
  const int64_t from_plus_1 = x86_trunc_i64(static_cast<F>(from + 1));
  if (from_plus_1 < from) {
    int64_t a = from + 1 < 0 ? -(from + 1) : from + 1;
    int n = 0;
    while (a >>= 1) ++n;
    from = from_plus_1 + (int64_t{1} << (n - std::numeric_limits<F>::digits + 1));
  }
  return from;
}
template <class F>
int64_t float_update_to(int64_t to) {
  const int64_t to_minus_1 = x86_trunc_i64(static_cast<F>(to - 1));
  if (to_minus_1 >= to) {
    int64_t a = to - 1 < 0 ? -(to - 1) : to - 1;
    int n = 0;
    while (a >>= 1) ++n;
    to = to_minus_1 - (int64_t{1} << (n - std::numeric_limits<F>::digits + 1));
  }
  return to;
}

// --- element order ---------------------------------------------------------------------------
// TensorIterator's reorder_dimensions: returns dims fastest-first. For a non-overlapping
// tensor this visits elements in ascending address order. strides[k] is operand k's strides;
// operand 0 is the output.
inline std::vector<int64_t> iteration_perm(const Shape& sizes, const std::vector<const Shape*>& strides) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> perm(nd);
  std::iota(perm.rbegin(), perm.rend(), int64_t{0});
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (const Shape* st : strides) {
      const int64_t s0 = (*st)[d0], s1 = (*st)[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (sizes[d0] > sizes[d1]) return 1;  // equal strides: the smaller size goes first
    }
    return 0;
  };
  // Insertion sort that tolerates ambiguous comparisons, exactly as ATen's.
  for (int64_t i = 1; i < nd; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  return perm;
}

// Calls f(offsets) for every element in TensorIterator order; offsets[k] is in elements of
// operand k.
template <std::size_t K, class F>
void for_each_element(const Shape& sizes, const std::array<const Shape*, K>& strides, F&& f) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return;
  const auto perm = iteration_perm(sizes, std::vector<const Shape*>(strides.begin(), strides.end()));
  const std::size_t nd = perm.size();
  std::vector<int64_t> idx(nd, 0);
  std::array<int64_t, K> off{};
  for (int64_t e = 0; e < numel; ++e) {
    f(off);
    for (std::size_t p = 0; p < nd; ++p) {
      const int64_t d = perm[p];
      if (++idx[p] < sizes[d]) {
        for (std::size_t k = 0; k < K; ++k) off[k] += (*strides[k])[d];
        break;
      }
      for (std::size_t k = 0; k < K; ++k) off[k] -= (*strides[k])[d] * (sizes[d] - 1);
      idx[p] = 0;
    }
  }
}

}  // namespace

// The fills and uniform loops built with -mavx2 -mfma (random_avx2.cpp); cpu/random.cpp picks
// them with by_level at the AVX2 and AVX-512 levels (the same bits as the baseline ones).
void normal_fill_f32_avx2(float* d, int64_t n, float mean, float std, Generator& g);
void normal_fill_f64_avx2(double* d, int64_t n, double mean, double std, Generator& g);
void uniform_fill_f32_avx2(float* d, int64_t n, float a, float span, Generator& g);
void uniform_fill_f64_avx2(double* d, int64_t n, double a, double span, Generator& g);

}  // namespace ditto::detail
