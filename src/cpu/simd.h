#pragma once
// A small SIMD abstraction for ditto's CPU kernels: one kernel template, instantiated per level.
//
//   level     float type  double type  int lanes        mask
//   scalar    F32x1       F64x1        I32x1 / I64x1    Mask1
//   AVX2      F32x8       F64x4        I32x8 / I64x4    M32x8 / M64x4   (only in *_avx2.cpp)
//   AVX-512   F32x16      F64x8        I32x16 / I64x8   M16 / M8        (only in *_avx512.cpp)
//
// Every operation has the same IEEE result on every backend (round to nearest even, the default
// MXCSR; no flush-to-zero), so a kernel written once gives the same bits at every level:
//   + - * / sqrt   correctly rounded;  fma(a,b,c) = a*b+c rounded once (std::fma at the scalar
//                  level: exact in software where the CPU has no FMA);
//   min(a,b)       a < b ? a : b, max(a,b) = a > b ? a : b (x86 minps/maxps: b if either is NaN,
//                  b for min(-0,+0));
//   a < b etc.     ordered (false if either is NaN); a != b is unordered (true if either is NaN);
//   -a, abs(a)     sign-bit operations (NaN payloads kept);
//   to_float(i)    exact for |i| < 2^24 (float lanes) / 2^51 (double lanes);
//   trunc_to_int   float lanes to int32 toward zero; x86's INT32_MIN for NaN and out of range;
//   convert        float -> double exact, double -> float rounded to nearest;
//   store_widened  int32 lanes stored as int64 (the first n).
//   store_lanes    lanes [lo, lo + n) of a vector stored to p[0 .. n) (lo + n <= N); moves only.
// Integer lanes wrap on overflow. Every name lives in an inline namespace named after the ISA the
// translation unit is compiled for, so a scalar helper emitted by an AVX-512 file can never be
// linked into baseline code (which would fault on CPUs without AVX-512).
#include <bit>
#include <cmath>
#include <cstdint>
#if defined(__AVX2__)
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 warns about the deliberately undefined lanes inside the AVX-512 intrinsics (PR105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
#endif

#if defined(__AVX512F__)
#define DITTO_SIMD_ISA isa_avx512
#elif defined(__AVX2__)
#define DITTO_SIMD_ISA isa_avx2
#else
#define DITTO_SIMD_ISA isa_baseline
#endif

namespace ditto::simd {
inline namespace DITTO_SIMD_ISA {

// ================================ scalar (baseline x86-64) ================================

struct Mask1 {
  bool b;
};
inline Mask1 operator&(Mask1 a, Mask1 b) { return {a.b && b.b}; }
inline Mask1 operator|(Mask1 a, Mask1 b) { return {a.b || b.b}; }
inline Mask1 operator^(Mask1 a, Mask1 b) { return {a.b != b.b}; }
inline Mask1 operator!(Mask1 a) { return {!a.b}; }
inline bool any(Mask1 m) { return m.b; }
inline bool all(Mask1 m) { return m.b; }

template <class S>  // S = int32_t or int64_t; arithmetic is done unsigned so that it wraps
struct IVec1 {
  using U = std::make_unsigned_t<S>;
  using M = Mask1;
  static constexpr int N = 1;
  S v;
  IVec1() = default;
  IVec1(S x) : v(x) {}
  static IVec1 load(const S* p) { return *p; }
};
template <class S>
inline IVec1<S> operator+(IVec1<S> a, IVec1<S> b) {
  return S(typename IVec1<S>::U(a.v) + typename IVec1<S>::U(b.v));
}
template <class S>
inline IVec1<S> operator-(IVec1<S> a, IVec1<S> b) {
  return S(typename IVec1<S>::U(a.v) - typename IVec1<S>::U(b.v));
}
template <class S>
inline IVec1<S> operator&(IVec1<S> a, IVec1<S> b) {
  return S(a.v & b.v);
}
template <class S>
inline IVec1<S> operator|(IVec1<S> a, IVec1<S> b) {
  return S(a.v | b.v);
}
template <class S>
inline IVec1<S> operator^(IVec1<S> a, IVec1<S> b) {
  return S(a.v ^ b.v);
}
template <int K, class S>
inline IVec1<S> sll(IVec1<S> a) {
  return S(typename IVec1<S>::U(a.v) << K);
}
template <int K, class S>
inline IVec1<S> srl(IVec1<S> a) {
  return S(typename IVec1<S>::U(a.v) >> K);
}
template <class S>
inline Mask1 operator==(IVec1<S> a, IVec1<S> b) {
  return {a.v == b.v};
}
template <class S>
inline Mask1 operator>(IVec1<S> a, IVec1<S> b) {
  return {a.v > b.v};
}
template <class S>
inline IVec1<S> select(Mask1 m, IVec1<S> a, IVec1<S> b) {
  return m.b ? a : b;
}
using I32x1 = IVec1<int32_t>;
using I64x1 = IVec1<int64_t>;
// Arithmetic shift right, 32-bit lanes only (AVX2 has none for 64-bit lanes).
template <int K>
inline I32x1 sra(I32x1 a) {
  return int32_t(a.v >> K);
}

template <class T>
struct Vec1 {
  using I = IVec1<std::conditional_t<sizeof(T) == 4, int32_t, int64_t>>;
  using M = Mask1;
  using Scalar = T;
  static constexpr int N = 1;
  T v;
  Vec1() = default;
  Vec1(T x) : v(x) {}
  static Vec1 load(const T* p) { return *p; }
  static Vec1 load_partial(const T* p, int n) { return n > 0 ? *p : T(0); }
  // Lane i reads p[i * stride] (stride small enough for 32-bit lane offsets).
  static Vec1 load_strided(const T* p, int64_t) { return *p; }
  static Vec1 load_strided_partial(const T* p, int64_t, int n) { return n > 0 ? *p : T(0); }
  // Lane i reads p[idx[i]] (a gather; idx holds N offsets).
  static Vec1 load_indexed(const T* p, const int32_t* idx) { return p[*idx]; }
  // Lane j < n holds p[2 j]; reads p[0 .. 2 n - 2] only (lanes past n are 0).
  static Vec1 load_even(const T* p, int n) { return n > 0 ? *p : T(0); }
  // Lane j holds p[2 j], read with plain loads of p[0 .. 2 W - 1] (all of them must exist).
  static Vec1 load_even_pairs(const T* p) { return *p; }
  // Double lanes read from / written to float memory (float kernels computed in double).
  static Vec1 load_f32(const float* p) { return T(*p); }
  static Vec1 load_f32_partial(const float* p, int n) { return n > 0 ? T(*p) : T(0); }
};
template <class T>
inline void store(T* p, Vec1<T> a) {
  *p = a.v;
}
template <class T>
inline void store_partial(T* p, Vec1<T> a, int n) {
  if (n > 0) *p = a.v;
}
template <class T>
inline void store_lanes(T* p, Vec1<T> a, int, int n) {
  if (n > 0) *p = a.v;
}
inline void store_f32(float* p, Vec1<double> a) { *p = float(a.v); }
inline void store_f32_partial(float* p, Vec1<double> a, int n) {
  if (n > 0) *p = float(a.v);
}

template <class T>
inline Vec1<T> operator+(Vec1<T> a, Vec1<T> b) {
  return a.v + b.v;
}
template <class T>
inline Vec1<T> operator-(Vec1<T> a, Vec1<T> b) {
  return a.v - b.v;
}
template <class T>
inline Vec1<T> operator*(Vec1<T> a, Vec1<T> b) {
  return a.v * b.v;
}
template <class T>
inline Vec1<T> operator/(Vec1<T> a, Vec1<T> b) {
  return a.v / b.v;
}
template <class T>
inline Vec1<T> fma(Vec1<T> a, Vec1<T> b, Vec1<T> c) {
  return std::fma(a.v, b.v, c.v);
}
template <class T>
inline Vec1<T> sqrt(Vec1<T> a) {
  return std::sqrt(a.v);
}
template <class T>
inline Vec1<T> min(Vec1<T> a, Vec1<T> b) {
  return a.v < b.v ? a : b;
}
template <class T>
inline Vec1<T> max(Vec1<T> a, Vec1<T> b) {
  return a.v > b.v ? a : b;
}
template <class T>
inline Mask1 operator<(Vec1<T> a, Vec1<T> b) {
  return {a.v < b.v};
}
template <class T>
inline Mask1 operator<=(Vec1<T> a, Vec1<T> b) {
  return {a.v <= b.v};
}
template <class T>
inline Mask1 operator>(Vec1<T> a, Vec1<T> b) {
  return {a.v > b.v};
}
template <class T>
inline Mask1 operator>=(Vec1<T> a, Vec1<T> b) {
  return {a.v >= b.v};
}
template <class T>
inline Mask1 operator==(Vec1<T> a, Vec1<T> b) {
  return {a.v == b.v};
}
template <class T>
inline Mask1 operator!=(Vec1<T> a, Vec1<T> b) {
  return {!(a.v == b.v)};
}
template <class T>
inline Vec1<T> select(Mask1 m, Vec1<T> a, Vec1<T> b) {
  return m.b ? a : b;
}
template <class T>
inline typename Vec1<T>::I as_int(Vec1<T> a) {
  using S = decltype(Vec1<T>::I::v);
  return std::bit_cast<S>(a.v);
}
template <class S>
inline auto as_float(IVec1<S> a) {
  using T = std::conditional_t<sizeof(S) == 4, float, double>;
  return Vec1<T>(std::bit_cast<T>(a.v));
}
inline Vec1<float> to_float(I32x1 a) { return float(a.v); }
inline I32x1 trunc_to_int(Vec1<float> a) {
  if (!(a.v >= -0x1p31f && a.v < 0x1p31f)) return INT32_MIN;  // cvttps2dq's "integer indefinite"
  return int32_t(a.v);
}
inline Vec1<double> to_float(I64x1 a) { return double(a.v); }
inline void store_widened(int64_t* p, I32x1 a, int n) {
  if (n > 0) *p = a.v;
}
using F32x1 = Vec1<float>;
using F64x1 = Vec1<double>;

#if defined(__AVX2__)
// ================================ AVX2 + FMA ================================

struct M32x8 {
  __m256 m;
};
struct M64x4 {
  __m256d m;
};
inline M32x8 operator&(M32x8 a, M32x8 b) { return {_mm256_and_ps(a.m, b.m)}; }
inline M32x8 operator|(M32x8 a, M32x8 b) { return {_mm256_or_ps(a.m, b.m)}; }
inline M32x8 operator^(M32x8 a, M32x8 b) { return {_mm256_xor_ps(a.m, b.m)}; }
inline M32x8 operator!(M32x8 a) { return {_mm256_xor_ps(a.m, _mm256_castsi256_ps(_mm256_set1_epi32(-1)))}; }
inline bool any(M32x8 a) { return _mm256_movemask_ps(a.m) != 0; }
inline bool all(M32x8 a) { return _mm256_movemask_ps(a.m) == 0xff; }
inline M64x4 operator&(M64x4 a, M64x4 b) { return {_mm256_and_pd(a.m, b.m)}; }
inline M64x4 operator|(M64x4 a, M64x4 b) { return {_mm256_or_pd(a.m, b.m)}; }
inline M64x4 operator^(M64x4 a, M64x4 b) { return {_mm256_xor_pd(a.m, b.m)}; }
inline M64x4 operator!(M64x4 a) { return {_mm256_xor_pd(a.m, _mm256_castsi256_pd(_mm256_set1_epi32(-1)))}; }
inline bool any(M64x4 a) { return _mm256_movemask_pd(a.m) != 0; }
inline bool all(M64x4 a) { return _mm256_movemask_pd(a.m) == 0xf; }

struct I32x8 {
  using M = M32x8;
  static constexpr int N = 8;
  __m256i v;
  I32x8() = default;
  I32x8(__m256i x) : v(x) {}
  I32x8(int32_t x) : v(_mm256_set1_epi32(x)) {}
};
inline I32x8 operator+(I32x8 a, I32x8 b) { return _mm256_add_epi32(a.v, b.v); }
inline I32x8 operator-(I32x8 a, I32x8 b) { return _mm256_sub_epi32(a.v, b.v); }
inline I32x8 operator&(I32x8 a, I32x8 b) { return _mm256_and_si256(a.v, b.v); }
inline I32x8 operator|(I32x8 a, I32x8 b) { return _mm256_or_si256(a.v, b.v); }
inline I32x8 operator^(I32x8 a, I32x8 b) { return _mm256_xor_si256(a.v, b.v); }
template <int K>
inline I32x8 sll(I32x8 a) {
  return _mm256_slli_epi32(a.v, K);
}
template <int K>
inline I32x8 srl(I32x8 a) {
  return _mm256_srli_epi32(a.v, K);
}
template <int K>
inline I32x8 sra(I32x8 a) {
  return _mm256_srai_epi32(a.v, K);
}
inline M32x8 operator==(I32x8 a, I32x8 b) { return {_mm256_castsi256_ps(_mm256_cmpeq_epi32(a.v, b.v))}; }
inline M32x8 operator>(I32x8 a, I32x8 b) { return {_mm256_castsi256_ps(_mm256_cmpgt_epi32(a.v, b.v))}; }
inline I32x8 select(M32x8 m, I32x8 a, I32x8 b) { return _mm256_blendv_epi8(b.v, a.v, _mm256_castps_si256(m.m)); }

struct I64x4 {
  using M = M64x4;
  static constexpr int N = 4;
  __m256i v;
  I64x4() = default;
  I64x4(__m256i x) : v(x) {}
  I64x4(int64_t x) : v(_mm256_set1_epi64x(x)) {}
  static I64x4 load(const int64_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
};
inline I64x4 operator+(I64x4 a, I64x4 b) { return _mm256_add_epi64(a.v, b.v); }
inline I64x4 operator-(I64x4 a, I64x4 b) { return _mm256_sub_epi64(a.v, b.v); }
inline I64x4 operator&(I64x4 a, I64x4 b) { return _mm256_and_si256(a.v, b.v); }
inline I64x4 operator|(I64x4 a, I64x4 b) { return _mm256_or_si256(a.v, b.v); }
inline I64x4 operator^(I64x4 a, I64x4 b) { return _mm256_xor_si256(a.v, b.v); }
template <int K>
inline I64x4 sll(I64x4 a) {
  return _mm256_slli_epi64(a.v, K);
}
template <int K>
inline I64x4 srl(I64x4 a) {
  return _mm256_srli_epi64(a.v, K);
}
inline M64x4 operator==(I64x4 a, I64x4 b) { return {_mm256_castsi256_pd(_mm256_cmpeq_epi64(a.v, b.v))}; }
inline M64x4 operator>(I64x4 a, I64x4 b) { return {_mm256_castsi256_pd(_mm256_cmpgt_epi64(a.v, b.v))}; }
inline I64x4 select(M64x4 m, I64x4 a, I64x4 b) { return _mm256_blendv_epi8(b.v, a.v, _mm256_castpd_si256(m.m)); }

inline __m256i avx2_lanes_below32(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline __m256i avx2_lanes_below64(int n) {
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
}

struct F32x8 {
  using I = I32x8;
  using M = M32x8;
  using Scalar = float;
  static constexpr int N = 8;
  __m256 v;
  F32x8() = default;
  F32x8(__m256 x) : v(x) {}
  F32x8(float x) : v(_mm256_set1_ps(x)) {}
  static F32x8 load(const float* p) { return _mm256_loadu_ps(p); }
  static F32x8 load_partial(const float* p, int n) { return _mm256_maskload_ps(p, avx2_lanes_below32(n)); }
  static __m256i offsets(int64_t s) {
    return _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(int32_t(s)));
  }
  static F32x8 load_strided(const float* p, int64_t s) { return _mm256_i32gather_ps(p, offsets(s), 4); }
  static F32x8 load_indexed(const float* p, const int32_t* idx) {
    return _mm256_i32gather_ps(p, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx)), 4);
  }
  static F32x8 load_strided_partial(const float* p, int64_t s, int n) {
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), p, offsets(s), _mm256_castsi256_ps(avx2_lanes_below32(n)), 4);
  }
  static F32x8 load_even(const float* p, int n) {
    return evens(_mm256_maskload_ps(p, avx2_lanes_below32(2 * n - 1)),
                 _mm256_maskload_ps(p + 8, avx2_lanes_below32(2 * n - 9)));
  }
  static F32x8 load_even_pairs(const float* p) { return evens(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)); }
  // The even lanes of lo then hi.
  static F32x8 evens(__m256 lo, __m256 hi) {
    const __m256 pairs = _mm256_shuffle_ps(lo, hi, 0x88);  // lo0 lo2 hi0 hi2 | lo4 lo6 hi4 hi6
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(pairs), 0xD8));
  }
};
inline void store(float* p, F32x8 a) { _mm256_storeu_ps(p, a.v); }
inline void store_partial(float* p, F32x8 a, int n) { _mm256_maskstore_ps(p, avx2_lanes_below32(n), a.v); }
inline void store_lanes(float* p, F32x8 a, int lo, int n) {
  const __m256i from = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(lo));
  _mm256_maskstore_ps(p, avx2_lanes_below32(n), _mm256_permutevar8x32_ps(a.v, from));
}
inline F32x8 operator+(F32x8 a, F32x8 b) { return _mm256_add_ps(a.v, b.v); }
inline F32x8 operator-(F32x8 a, F32x8 b) { return _mm256_sub_ps(a.v, b.v); }
inline F32x8 operator*(F32x8 a, F32x8 b) { return _mm256_mul_ps(a.v, b.v); }
inline F32x8 operator/(F32x8 a, F32x8 b) { return _mm256_div_ps(a.v, b.v); }
inline F32x8 fma(F32x8 a, F32x8 b, F32x8 c) { return _mm256_fmadd_ps(a.v, b.v, c.v); }
inline F32x8 sqrt(F32x8 a) { return _mm256_sqrt_ps(a.v); }
inline F32x8 min(F32x8 a, F32x8 b) { return _mm256_min_ps(a.v, b.v); }
inline F32x8 max(F32x8 a, F32x8 b) { return _mm256_max_ps(a.v, b.v); }
inline M32x8 operator<(F32x8 a, F32x8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)}; }
inline M32x8 operator<=(F32x8 a, F32x8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)}; }
inline M32x8 operator>(F32x8 a, F32x8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ)}; }
inline M32x8 operator>=(F32x8 a, F32x8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_GE_OQ)}; }
inline M32x8 operator==(F32x8 a, F32x8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_EQ_OQ)}; }
inline M32x8 operator!=(F32x8 a, F32x8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_NEQ_UQ)}; }
inline F32x8 select(M32x8 m, F32x8 a, F32x8 b) { return _mm256_blendv_ps(b.v, a.v, m.m); }
inline I32x8 as_int(F32x8 a) { return _mm256_castps_si256(a.v); }
inline F32x8 as_float(I32x8 a) { return _mm256_castsi256_ps(a.v); }
inline F32x8 to_float(I32x8 a) { return _mm256_cvtepi32_ps(a.v); }
inline I32x8 trunc_to_int(F32x8 a) { return _mm256_cvttps_epi32(a.v); }
inline void store_widened(int64_t* p, I32x8 a, int n) {
  const __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(a.v));
  const __m256i hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(a.v, 1));
  auto* q = reinterpret_cast<long long*>(p);
  if (n >= 8) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q), lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + 4), hi);
  } else {
    _mm256_maskstore_epi64(q, avx2_lanes_below64(n), lo);
    _mm256_maskstore_epi64(q + 4, avx2_lanes_below64(n - 4), hi);
  }
}

struct F64x4 {
  using I = I64x4;
  using M = M64x4;
  using Scalar = double;
  static constexpr int N = 4;
  __m256d v;
  F64x4() = default;
  F64x4(__m256d x) : v(x) {}
  F64x4(double x) : v(_mm256_set1_pd(x)) {}
  static F64x4 load(const double* p) { return _mm256_loadu_pd(p); }
  static F64x4 load_partial(const double* p, int n) { return _mm256_maskload_pd(p, avx2_lanes_below64(n)); }
  static __m128i offsets(int64_t s) { return _mm_mullo_epi32(_mm_setr_epi32(0, 1, 2, 3), _mm_set1_epi32(int32_t(s))); }
  static F64x4 load_strided(const double* p, int64_t s) { return _mm256_i32gather_pd(p, offsets(s), 8); }
  static F64x4 load_indexed(const double* p, const int32_t* idx) {
    return _mm256_i32gather_pd(p, _mm_loadu_si128(reinterpret_cast<const __m128i*>(idx)), 8);
  }
  static F64x4 load_strided_partial(const double* p, int64_t s, int n) {
    return _mm256_mask_i32gather_pd(_mm256_setzero_pd(), p, offsets(s), _mm256_castsi256_pd(avx2_lanes_below64(n)), 8);
  }
  static F64x4 load_even(const double* p, int n) {
    return evens(_mm256_maskload_pd(p, avx2_lanes_below64(2 * n - 1)),
                 _mm256_maskload_pd(p + 4, avx2_lanes_below64(2 * n - 5)));
  }
  static F64x4 load_even_pairs(const double* p) { return evens(_mm256_loadu_pd(p), _mm256_loadu_pd(p + 4)); }
  // The even lanes of lo then hi.
  static F64x4 evens(__m256d lo, __m256d hi) {
    return _mm256_permute4x64_pd(_mm256_unpacklo_pd(lo, hi), 0xD8);  // lo0 hi0 lo2 hi2 -> lo0 lo2 hi0 hi2
  }
  static F64x4 load_f32(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
  static F64x4 load_f32_partial(const float* p, int n) {
    return _mm256_cvtps_pd(_mm_maskload_ps(p, _mm256_castsi256_si128(avx2_lanes_below32(n))));
  }
};
inline void store(double* p, F64x4 a) { _mm256_storeu_pd(p, a.v); }
inline void store_partial(double* p, F64x4 a, int n) { _mm256_maskstore_pd(p, avx2_lanes_below64(n), a.v); }
inline void store_lanes(double* p, F64x4 a, int lo, int n) {  // a double lane is two float lanes
  const __m256i from = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(2 * lo));
  const __m256 moved = _mm256_permutevar8x32_ps(_mm256_castpd_ps(a.v), from);
  _mm256_maskstore_pd(p, avx2_lanes_below64(n), _mm256_castps_pd(moved));
}
inline void store_f32(float* p, F64x4 a) { _mm_storeu_ps(p, _mm256_cvtpd_ps(a.v)); }
inline void store_f32_partial(float* p, F64x4 a, int n) {
  _mm_maskstore_ps(p, _mm256_castsi256_si128(avx2_lanes_below32(n)), _mm256_cvtpd_ps(a.v));
}
inline F64x4 operator+(F64x4 a, F64x4 b) { return _mm256_add_pd(a.v, b.v); }
inline F64x4 operator-(F64x4 a, F64x4 b) { return _mm256_sub_pd(a.v, b.v); }
inline F64x4 operator*(F64x4 a, F64x4 b) { return _mm256_mul_pd(a.v, b.v); }
inline F64x4 operator/(F64x4 a, F64x4 b) { return _mm256_div_pd(a.v, b.v); }
inline F64x4 fma(F64x4 a, F64x4 b, F64x4 c) { return _mm256_fmadd_pd(a.v, b.v, c.v); }
inline F64x4 sqrt(F64x4 a) { return _mm256_sqrt_pd(a.v); }
inline F64x4 min(F64x4 a, F64x4 b) { return _mm256_min_pd(a.v, b.v); }
inline F64x4 max(F64x4 a, F64x4 b) { return _mm256_max_pd(a.v, b.v); }
inline M64x4 operator<(F64x4 a, F64x4 b) { return {_mm256_cmp_pd(a.v, b.v, _CMP_LT_OQ)}; }
inline M64x4 operator<=(F64x4 a, F64x4 b) { return {_mm256_cmp_pd(a.v, b.v, _CMP_LE_OQ)}; }
inline M64x4 operator>(F64x4 a, F64x4 b) { return {_mm256_cmp_pd(a.v, b.v, _CMP_GT_OQ)}; }
inline M64x4 operator>=(F64x4 a, F64x4 b) { return {_mm256_cmp_pd(a.v, b.v, _CMP_GE_OQ)}; }
inline M64x4 operator==(F64x4 a, F64x4 b) { return {_mm256_cmp_pd(a.v, b.v, _CMP_EQ_OQ)}; }
inline M64x4 operator!=(F64x4 a, F64x4 b) { return {_mm256_cmp_pd(a.v, b.v, _CMP_NEQ_UQ)}; }
inline F64x4 select(M64x4 m, F64x4 a, F64x4 b) { return _mm256_blendv_pd(b.v, a.v, m.m); }
inline I64x4 as_int(F64x4 a) { return _mm256_castpd_si256(a.v); }
inline F64x4 as_float(I64x4 a) { return _mm256_castsi256_pd(a.v); }
// No int64 -> double instruction before AVX-512DQ: add into the mantissa of 1.5*2^52 instead.
inline F64x4 to_float(I64x4 a) {
  const __m256d magic = _mm256_set1_pd(0x1.8p52);
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(a.v, _mm256_castpd_si256(magic))), magic);
}
#endif  // __AVX2__

#if defined(__AVX512F__)
// ================================ AVX-512 (F, DQ, BW, VL) ================================

struct M16 {
  __mmask16 m;
};
struct M8 {
  __mmask8 m;
};
inline M16 operator&(M16 a, M16 b) { return {__mmask16(a.m & b.m)}; }
inline M16 operator|(M16 a, M16 b) { return {__mmask16(a.m | b.m)}; }
inline M16 operator^(M16 a, M16 b) { return {__mmask16(a.m ^ b.m)}; }
inline M16 operator!(M16 a) { return {__mmask16(~a.m)}; }
inline bool any(M16 a) { return a.m != 0; }
inline bool all(M16 a) { return a.m == 0xffff; }
inline M8 operator&(M8 a, M8 b) { return {__mmask8(a.m & b.m)}; }
inline M8 operator|(M8 a, M8 b) { return {__mmask8(a.m | b.m)}; }
inline M8 operator^(M8 a, M8 b) { return {__mmask8(a.m ^ b.m)}; }
inline M8 operator!(M8 a) { return {__mmask8(~a.m)}; }
inline bool any(M8 a) { return a.m != 0; }
inline bool all(M8 a) { return a.m == 0xff; }

struct I32x16 {
  using M = M16;
  static constexpr int N = 16;
  __m512i v;
  I32x16() = default;
  I32x16(__m512i x) : v(x) {}
  I32x16(int32_t x) : v(_mm512_set1_epi32(x)) {}
};
inline I32x16 operator+(I32x16 a, I32x16 b) { return _mm512_add_epi32(a.v, b.v); }
inline I32x16 operator-(I32x16 a, I32x16 b) { return _mm512_sub_epi32(a.v, b.v); }
inline I32x16 operator&(I32x16 a, I32x16 b) { return _mm512_and_si512(a.v, b.v); }
inline I32x16 operator|(I32x16 a, I32x16 b) { return _mm512_or_si512(a.v, b.v); }
inline I32x16 operator^(I32x16 a, I32x16 b) { return _mm512_xor_si512(a.v, b.v); }
template <int K>
inline I32x16 sll(I32x16 a) {
  return _mm512_slli_epi32(a.v, K);
}
template <int K>
inline I32x16 srl(I32x16 a) {
  return _mm512_srli_epi32(a.v, K);
}
template <int K>
inline I32x16 sra(I32x16 a) {
  return _mm512_srai_epi32(a.v, K);
}
inline M16 operator==(I32x16 a, I32x16 b) { return {_mm512_cmpeq_epi32_mask(a.v, b.v)}; }
inline M16 operator>(I32x16 a, I32x16 b) { return {_mm512_cmpgt_epi32_mask(a.v, b.v)}; }
inline I32x16 select(M16 m, I32x16 a, I32x16 b) { return _mm512_mask_blend_epi32(m.m, b.v, a.v); }

struct I64x8 {
  using M = M8;
  static constexpr int N = 8;
  __m512i v;
  I64x8() = default;
  I64x8(__m512i x) : v(x) {}
  I64x8(int64_t x) : v(_mm512_set1_epi64(x)) {}
  static I64x8 load(const int64_t* p) { return _mm512_loadu_si512(p); }
};
inline I64x8 operator+(I64x8 a, I64x8 b) { return _mm512_add_epi64(a.v, b.v); }
inline I64x8 operator-(I64x8 a, I64x8 b) { return _mm512_sub_epi64(a.v, b.v); }
inline I64x8 operator&(I64x8 a, I64x8 b) { return _mm512_and_si512(a.v, b.v); }
inline I64x8 operator|(I64x8 a, I64x8 b) { return _mm512_or_si512(a.v, b.v); }
inline I64x8 operator^(I64x8 a, I64x8 b) { return _mm512_xor_si512(a.v, b.v); }
template <int K>
inline I64x8 sll(I64x8 a) {
  return _mm512_slli_epi64(a.v, K);
}
template <int K>
inline I64x8 srl(I64x8 a) {
  return _mm512_srli_epi64(a.v, K);
}
inline M8 operator==(I64x8 a, I64x8 b) { return {_mm512_cmpeq_epi64_mask(a.v, b.v)}; }
inline M8 operator>(I64x8 a, I64x8 b) { return {_mm512_cmpgt_epi64_mask(a.v, b.v)}; }
inline I64x8 select(M8 m, I64x8 a, I64x8 b) { return _mm512_mask_blend_epi64(m.m, b.v, a.v); }

inline __mmask16 avx512_lanes_below16(int n) {
  return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n < 0 ? 0 : n)) - 1);
}
inline __mmask8 avx512_lanes_below8(int n) { return n >= 8 ? __mmask8(0xff) : __mmask8((1u << (n < 0 ? 0 : n)) - 1); }

struct F32x16 {
  using I = I32x16;
  using M = M16;
  using Scalar = float;
  static constexpr int N = 16;
  __m512 v;
  F32x16() = default;
  F32x16(__m512 x) : v(x) {}
  F32x16(float x) : v(_mm512_set1_ps(x)) {}
  static F32x16 load(const float* p) { return _mm512_loadu_ps(p); }
  static F32x16 load_partial(const float* p, int n) { return _mm512_maskz_loadu_ps(avx512_lanes_below16(n), p); }
  static __m512i offsets(int64_t s) {
    return _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                              _mm512_set1_epi32(int32_t(s)));
  }
  static F32x16 load_strided(const float* p, int64_t s) { return _mm512_i32gather_ps(offsets(s), p, 4); }
  static F32x16 load_indexed(const float* p, const int32_t* idx) {
    return _mm512_i32gather_ps(_mm512_loadu_si512(idx), p, 4);
  }
  static F32x16 load_strided_partial(const float* p, int64_t s, int n) {
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), avx512_lanes_below16(n), offsets(s), p, 4);
  }
  static F32x16 load_even(const float* p, int n) {
    return evens(_mm512_maskz_loadu_ps(avx512_lanes_below16(2 * n - 1), p),
                 _mm512_maskz_loadu_ps(avx512_lanes_below16(2 * n - 17), p + 16));
  }
  static F32x16 load_even_pairs(const float* p) { return evens(_mm512_loadu_ps(p), _mm512_loadu_ps(p + 16)); }
  // The even lanes of lo then hi.
  static F32x16 evens(__m512 lo, __m512 hi) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_ps(lo, even, hi);
  }
};
inline void store(float* p, F32x16 a) { _mm512_storeu_ps(p, a.v); }
inline void store_partial(float* p, F32x16 a, int n) { _mm512_mask_storeu_ps(p, avx512_lanes_below16(n), a.v); }
inline void store_lanes(float* p, F32x16 a, int lo, int n) {
  const __m512i from =
      _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(lo));
  _mm512_mask_storeu_ps(p, avx512_lanes_below16(n), _mm512_permutexvar_ps(from, a.v));
}
inline F32x16 operator+(F32x16 a, F32x16 b) { return _mm512_add_ps(a.v, b.v); }
inline F32x16 operator-(F32x16 a, F32x16 b) { return _mm512_sub_ps(a.v, b.v); }
inline F32x16 operator*(F32x16 a, F32x16 b) { return _mm512_mul_ps(a.v, b.v); }
inline F32x16 operator/(F32x16 a, F32x16 b) { return _mm512_div_ps(a.v, b.v); }
inline F32x16 fma(F32x16 a, F32x16 b, F32x16 c) { return _mm512_fmadd_ps(a.v, b.v, c.v); }
inline F32x16 sqrt(F32x16 a) { return _mm512_sqrt_ps(a.v); }
inline F32x16 min(F32x16 a, F32x16 b) { return _mm512_min_ps(a.v, b.v); }
inline F32x16 max(F32x16 a, F32x16 b) { return _mm512_max_ps(a.v, b.v); }
inline M16 operator<(F32x16 a, F32x16 b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)}; }
inline M16 operator<=(F32x16 a, F32x16 b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)}; }
inline M16 operator>(F32x16 a, F32x16 b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ)}; }
inline M16 operator>=(F32x16 a, F32x16 b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GE_OQ)}; }
inline M16 operator==(F32x16 a, F32x16 b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_EQ_OQ)}; }
inline M16 operator!=(F32x16 a, F32x16 b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_NEQ_UQ)}; }
inline F32x16 select(M16 m, F32x16 a, F32x16 b) { return _mm512_mask_blend_ps(m.m, b.v, a.v); }
inline I32x16 as_int(F32x16 a) { return _mm512_castps_si512(a.v); }
inline F32x16 as_float(I32x16 a) { return _mm512_castsi512_ps(a.v); }
inline F32x16 to_float(I32x16 a) { return _mm512_cvtepi32_ps(a.v); }
inline I32x16 trunc_to_int(F32x16 a) { return _mm512_cvttps_epi32(a.v); }
inline void store_widened(int64_t* p, I32x16 a, int n) {
  const __m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(a.v));
  const __m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(a.v, 1));
  _mm512_mask_storeu_epi64(p, avx512_lanes_below8(n), lo);
  _mm512_mask_storeu_epi64(p + 8, avx512_lanes_below8(n - 8), hi);
}

struct F64x8 {
  using I = I64x8;
  using M = M8;
  using Scalar = double;
  static constexpr int N = 8;
  __m512d v;
  F64x8() = default;
  F64x8(__m512d x) : v(x) {}
  F64x8(double x) : v(_mm512_set1_pd(x)) {}
  static F64x8 load(const double* p) { return _mm512_loadu_pd(p); }
  static F64x8 load_partial(const double* p, int n) { return _mm512_maskz_loadu_pd(avx512_lanes_below8(n), p); }
  static __m256i offsets(int64_t s) {
    return _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(int32_t(s)));
  }
  static F64x8 load_strided(const double* p, int64_t s) { return _mm512_i32gather_pd(offsets(s), p, 8); }
  static F64x8 load_indexed(const double* p, const int32_t* idx) {
    return _mm512_i32gather_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx)), p, 8);
  }
  static F64x8 load_strided_partial(const double* p, int64_t s, int n) {
    return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), avx512_lanes_below8(n), offsets(s), p, 8);
  }
  static F64x8 load_even(const double* p, int n) {
    return evens(_mm512_maskz_loadu_pd(avx512_lanes_below8(2 * n - 1), p),
                 _mm512_maskz_loadu_pd(avx512_lanes_below8(2 * n - 9), p + 8));
  }
  static F64x8 load_even_pairs(const double* p) { return evens(_mm512_loadu_pd(p), _mm512_loadu_pd(p + 8)); }
  // The even lanes of lo then hi.
  static F64x8 evens(__m512d lo, __m512d hi) {
    return _mm512_permutex2var_pd(lo, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), hi);
  }
  static F64x8 load_f32(const float* p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }
  static F64x8 load_f32_partial(const float* p, int n) {
    return _mm512_cvtps_pd(_mm256_maskz_loadu_ps(avx512_lanes_below8(n), p));
  }
};
inline void store(double* p, F64x8 a) { _mm512_storeu_pd(p, a.v); }
inline void store_partial(double* p, F64x8 a, int n) { _mm512_mask_storeu_pd(p, avx512_lanes_below8(n), a.v); }
inline void store_lanes(double* p, F64x8 a, int lo, int n) {
  const __m512i from = _mm512_add_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), _mm512_set1_epi64(lo));
  _mm512_mask_storeu_pd(p, avx512_lanes_below8(n), _mm512_permutexvar_pd(from, a.v));
}
inline void store_f32(float* p, F64x8 a) { _mm256_storeu_ps(p, _mm512_cvtpd_ps(a.v)); }
inline void store_f32_partial(float* p, F64x8 a, int n) {
  _mm256_mask_storeu_ps(p, avx512_lanes_below8(n), _mm512_cvtpd_ps(a.v));
}
inline F64x8 operator+(F64x8 a, F64x8 b) { return _mm512_add_pd(a.v, b.v); }
inline F64x8 operator-(F64x8 a, F64x8 b) { return _mm512_sub_pd(a.v, b.v); }
inline F64x8 operator*(F64x8 a, F64x8 b) { return _mm512_mul_pd(a.v, b.v); }
inline F64x8 operator/(F64x8 a, F64x8 b) { return _mm512_div_pd(a.v, b.v); }
inline F64x8 fma(F64x8 a, F64x8 b, F64x8 c) { return _mm512_fmadd_pd(a.v, b.v, c.v); }
inline F64x8 sqrt(F64x8 a) { return _mm512_sqrt_pd(a.v); }
inline F64x8 min(F64x8 a, F64x8 b) { return _mm512_min_pd(a.v, b.v); }
inline F64x8 max(F64x8 a, F64x8 b) { return _mm512_max_pd(a.v, b.v); }
inline M8 operator<(F64x8 a, F64x8 b) { return {_mm512_cmp_pd_mask(a.v, b.v, _CMP_LT_OQ)}; }
inline M8 operator<=(F64x8 a, F64x8 b) { return {_mm512_cmp_pd_mask(a.v, b.v, _CMP_LE_OQ)}; }
inline M8 operator>(F64x8 a, F64x8 b) { return {_mm512_cmp_pd_mask(a.v, b.v, _CMP_GT_OQ)}; }
inline M8 operator>=(F64x8 a, F64x8 b) { return {_mm512_cmp_pd_mask(a.v, b.v, _CMP_GE_OQ)}; }
inline M8 operator==(F64x8 a, F64x8 b) { return {_mm512_cmp_pd_mask(a.v, b.v, _CMP_EQ_OQ)}; }
inline M8 operator!=(F64x8 a, F64x8 b) { return {_mm512_cmp_pd_mask(a.v, b.v, _CMP_NEQ_UQ)}; }
inline F64x8 select(M8 m, F64x8 a, F64x8 b) { return _mm512_mask_blend_pd(m.m, b.v, a.v); }
inline I64x8 as_int(F64x8 a) { return _mm512_castpd_si512(a.v); }
inline F64x8 as_float(I64x8 a) { return _mm512_castsi512_pd(a.v); }
// Same magic-number conversion as AVX2 (vcvtqq2pd would give the same bits in this range).
inline F64x8 to_float(I64x8 a) {
  const __m512d magic = _mm512_set1_pd(0x1.8p52);
  return _mm512_sub_pd(_mm512_castsi512_pd(_mm512_add_epi64(a.v, _mm512_castpd_si512(magic))), magic);
}
#endif  // __AVX512F__

// ================================ generic helpers (any backend) ================================

template <class V>
concept FloatVec = requires(V a) {
  typename V::I;
  typename V::Scalar;
  as_int(a);
};

template <FloatVec V>
inline typename V::I sign_bit_of() {
  using I = typename V::I;
  if constexpr (sizeof(typename V::Scalar) == 4)
    return I(int32_t(INT32_MIN));
  else
    return I(int64_t(INT64_MIN));
}
template <FloatVec V>
inline V operator-(V a) {
  return as_float(as_int(a) ^ sign_bit_of<V>());
}
template <FloatVec V>
inline V abs(V a) {
  return as_float(as_int(a) & (sign_bit_of<V>() ^ typename V::I(-1)));
}

}  // namespace DITTO_SIMD_ISA
}  // namespace ditto::simd
