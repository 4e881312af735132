#pragma once
// Distribution cores over raw pointers, bit-identical to PyTorch 1.13's AVX2 CPU kernels
// (spec: docs/spec/pytorch-cpu-rng.md). Every a*b+c that PyTorch's AVX2 build fuses is an
// explicit std::fma here; everything else is a separately rounded operation, which relies on
// the -ffp-contract=off set for the whole library. The caller holds the generator's mutex.
//
// This header is compiled both into baseline code and into random_avx2.cpp (-mavx2 -mfma, where
// std::fma becomes one instruction and the float32 normal block runs eight lanes at a time). Its
// functions have internal linkage so that the linker can never hand the AVX2 copy to baseline
// code; both copies give the same bits.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "core/tensor_impl.h"
#include "cpu/simd.h"
#include "ditto/generator.h"

namespace ditto::detail {
namespace {

// U24 / U53: exact uniforms in [0, 1).
inline float u24(uint32_t r) { return static_cast<float>(r & 0xFFFFFFu) * 0x1p-24f; }
inline double u53(uint64_t r) { return static_cast<double>(r & ((uint64_t{1} << 53) - 1)) * 0x1p-53; }

// avx_mathfun's log256_ps (spec §3b, LOG) over ditto's SIMD types: F32x1 at the scalar level,
// F32x8 at AVX2 (and AVX-512, which runs the AVX2 build: PyTorch's block pairs 8 lanes with 8).
// Every a*b+c that PyTorch's AVX2 build fuses is an fma; everything else is rounded alone.
template <class V>
V bits_of(uint32_t b) {
  return V(std::bit_cast<float>(b));
}
template <class V>
V mathfun_log(V x) {
  using I = typename V::I;
  x = simd::max(x, bits_of<V>(0x00800000u));  // never active for u in (0, 1]
  const I exponent = simd::srl<23>(simd::as_int(x)) - I(127);
  x = simd::as_float((simd::as_int(x) & I(int32_t(0x807FFFFFu))) | I(0x3F000000));
  V e = simd::to_float(exponent) + V(1.0f);
  const auto below_sqrthf = x < bits_of<V>(0x3F3504F3u);
  const V tmp = simd::select(below_sqrthf, x, V(0.0f));
  x = x - V(1.0f);
  e = e - simd::select(below_sqrthf, V(1.0f), V(0.0f));
  x = x + tmp;
  const V z = x * x;
  static constexpr uint32_t kP[9] = {0x3d9021bb, 0xbdebd1b8, 0x3def251a, 0xbdfe5d4f, 0x3e11e9bf,
                                     0xbe2aae50, 0x3e4cceac, 0xbe7ffffc, 0x3eaaaaaa};
  V y = bits_of<V>(kP[0]);
  for (int k = 1; k < 9; ++k) y = simd::fma(y, x, bits_of<V>(kP[k]));
  y = y * x;
  y = simd::fma(y, z, e * bits_of<V>(0xb95e8083u));  // q1
  y = simd::fma(-z, V(0.5f), y);
  const V r = x + y;
  return simd::fma(e, bits_of<V>(0x3f318000u), r);  // q2
}

// avx_mathfun's sincos256_ps (spec §3b, SINCOS), as mathfun_log.
template <class V>
void mathfun_sincos(V th, V* s_out, V* c_out) {
  using I = typename V::I;
  const I sign_bit(INT32_MIN);
  I sign_sin = simd::as_int(th) & sign_bit;
  V x = simd::abs(th);
  I j = simd::trunc_to_int(x * bits_of<V>(0x3fa2f983u));  // FOPI
  j = (j + I(1)) & I(~1);
  const V y = simd::to_float(j);
  const I swap_sign = simd::sll<29>(j & I(4));
  const auto poly = (j & I(2)) == I(0);
  x = simd::fma(y, bits_of<V>(0xbf490000u), x);  // -DP1
  x = simd::fma(y, bits_of<V>(0xb97da000u), x);  // -DP2
  x = simd::fma(y, bits_of<V>(0xb3222169u), x);  // -DP3
  const I sign_cos = simd::sll<29>(((j - I(2)) ^ I(-1)) & I(4));
  sign_sin = sign_sin ^ swap_sign;
  const V z = x * x;
  V c = simd::fma(bits_of<V>(0x37ccf5ceu), z, bits_of<V>(0xbab6061au));
  c = simd::fma(c, z, bits_of<V>(0x3d2aaaa5u));
  c = c * z;
  c = simd::fma(c, z, -(z * V(0.5f)));
  c = c + V(1.0f);
  V s = simd::fma(bits_of<V>(0xb94ca1f9u), z, bits_of<V>(0x3c08839eu));
  s = simd::fma(s, z, bits_of<V>(0xbe2aaaa3u));
  s = s * z;
  s = simd::fma(s, x, x);
  // The select by and/andnot, then sub and add (turns -0 into +0).
  const V ysin2 = simd::select(poly, s, V(0.0f));
  const V ysin1 = simd::select(poly, V(0.0f), c);
  s = s - ysin2;
  c = c - ysin1;
  *s_out = simd::as_float(simd::as_int(ysin1 + ysin2) ^ sign_sin);
  *c_out = simd::as_float(simd::as_int(c + s) ^ sign_cos);
}

// normal_fill_16_AVX2: lane j (radius source, cos output) pairs with lane j+8.
template <class V>
void normal_block16_f32(float* d, float mean, float std) {
  static_assert(8 % V::N == 0);
  for (int j = 0; j < 8; j += V::N) {
    const V u = V(1.0f) - V::load(d + j);
    const V v = V::load(d + j + 8);
    const V rho = simd::sqrt(V(-2.0f) * mathfun_log(u));
    const V th = bits_of<V>(0x40C90FDBu) * v;  // 2 pi
    V s, c;
    mathfun_sincos(th, &s, &c);
    simd::store(d + j, simd::fma(rho * c, V(std), V(mean)));
    simd::store(d + j + 8, simd::fma(rho * s, V(std), V(mean)));
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
template <class V>
void normal_fill_f32(float* d, int64_t n, float mean, float std, Generator& g) {
  for (int64_t i = 0; i < n; ++i) d[i] = u24(g.random());
  for (int64_t b = 0; b + 16 <= n; b += 16) normal_block16_f32<V>(d + b, mean, std);
  if (n % 16 != 0) {
    float* t = d + n - 16;
    for (int i = 0; i < 16; ++i) t[i] = u24(g.random());
    normal_block16_f32<V>(t, mean, std);
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

// The contiguous fills per kernel level: one line per level, DITTO_RANDOM_LEVEL(level, VF), in
// cpu/random.cpp (scalar, F32x1) and cpu/random_avx2.cpp (avx2, F32x8); cpu/random.cpp picks
// them with by_level, the AVX-512 level taking the AVX2 build. The same bits at every level.
#define DITTO_RANDOM_FILLS(X, level)                                                      \
  X(normal_fill_f32_##level, float* d, int64_t n, float mean, float std, Generator& g)    \
  X(normal_fill_f64_##level, double* d, int64_t n, double mean, double std, Generator& g) \
  X(uniform_fill_f32_##level, float* d, int64_t n, float a, float span, Generator& g)     \
  X(uniform_fill_f64_##level, double* d, int64_t n, double a, double span, Generator& g)
#define DITTO_RANDOM_DECLARE(name, ...) void name(__VA_ARGS__);
DITTO_RANDOM_FILLS(DITTO_RANDOM_DECLARE, scalar)
DITTO_RANDOM_FILLS(DITTO_RANDOM_DECLARE, avx2)

#define DITTO_RANDOM_LEVEL(level, VF)                                                         \
  namespace ditto::detail {                                                                   \
  void normal_fill_f32_##level(float* d, int64_t n, float mean, float std, Generator& g) {    \
    normal_fill_f32<simd::VF>(d, n, mean, std, g);                                            \
  }                                                                                           \
  void normal_fill_f64_##level(double* d, int64_t n, double mean, double std, Generator& g) { \
    normal_fill_f64(d, n, mean, std, g);                                                      \
  }                                                                                           \
  void uniform_fill_f32_##level(float* d, int64_t n, float a, float span, Generator& g) {     \
    uniform_fill_f32(d, n, a, span, g);                                                       \
  }                                                                                           \
  void uniform_fill_f64_##level(double* d, int64_t n, double a, double span, Generator& g) {  \
    uniform_fill_f64(d, n, a, span, g);                                                       \
  }                                                                                           \
  }

}  // namespace ditto::detail
