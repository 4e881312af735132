// The GEMM's lane-major packing with AVX2 register transposes (cpu/gemm.cpp's pack_panels calls
// it at the AVX2 and AVX-512 levels; built with -mavx2 -mfma, called only after the run-time check
// in cpu/capability.h). Pure data movement: any bits come out as they went in.
#include <immintrin.h>

#include "cpu/gemm_kernels.h"
#include "cpu/simd.h"

namespace ditto::cpu::gemm_detail {

// Lane-major packing (see cpu/gemm.cpp, pack_panels) by register transposes of 8 lanes x 8
// steps (4 x 4 for double): the scalar copy does one element per cycle at best. Pure data
// movement, so any level may use it; the AVX-512 level does too. (No std:: templates here: an
// out-of-line copy built with AVX2 could be linked into baseline code.)
namespace {

template <class T>
struct Lanes;
template <>
struct Lanes<float> {
  static constexpr int N = 8;
  static __m256 load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, __m256 v, int n) {
    if (n == N)
      _mm256_storeu_ps(p, v);
    else
      _mm256_maskstore_ps(p, simd::avx2_lanes_below32(n), v);
  }
  static void transpose(__m256 (&v)[N]) {
    __m256 t[N], u[N];
    for (int i = 0; i < N; i += 2) {
      t[i] = _mm256_unpacklo_ps(v[i], v[i + 1]);
      t[i + 1] = _mm256_unpackhi_ps(v[i], v[i + 1]);
    }
    for (int i = 0; i < N; i += 4) {
      u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
      u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
      u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
      u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
    }
    for (int i = 0; i < 4; ++i) {
      v[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
      v[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
    }
  }
};
template <>
struct Lanes<double> {
  static constexpr int N = 4;
  static __m256d load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, __m256d v, int n) {
    if (n == N)
      _mm256_storeu_pd(p, v);
    else
      _mm256_maskstore_pd(p, simd::avx2_lanes_below64(n), v);
  }
  static void transpose(__m256d (&v)[N]) {
    const __m256d t0 = _mm256_unpacklo_pd(v[0], v[1]), t1 = _mm256_unpackhi_pd(v[0], v[1]);
    const __m256d t2 = _mm256_unpacklo_pd(v[2], v[3]), t3 = _mm256_unpackhi_pd(v[2], v[3]);
    v[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    v[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    v[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    v[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
  }
};

// A panel's rows are w lanes and a store writes N: where w is not a multiple of N, a group's
// store runs on into the next row's first lanes (w = 6 or 14 rows of A). Those are written again
// later, by group 0 (the groups go from the last to the first, and a row's group 0 comes after
// the rows before it), so every store is a plain one (a masked store is microcoded on AMD's cores:
// it took 60 % of the packing) except one that would run past the panel's end.
template <class T>
void pack_lanes(T* dst, const T* s, int64_t ls, int64_t n, int64_t kc, int w) {
  using L = Lanes<T>;
  constexpr int N = L::N;
  constexpr int64_t kAhead = 4 * 64 / sizeof(T);  // prefetch distance: 4 lines
  for (int64_t q = 0; q < n; q += w) {
    const int64_t lanes = n - q < w ? n - q : w;
    T* dp = dst + q * kc;
    for (int64_t l0 = (lanes - 1) / N * N; l0 >= 0; l0 -= N) {
      const int g = lanes - l0 < N ? static_cast<int>(lanes - l0) : N;
      const T* r[N];
      for (int i = 0; i < N; ++i) r[i] = s + (q + l0 + (i < g ? i : g - 1)) * ls;  // repeat the last lane
      int64_t k = 0;
      for (; k + N <= kc; k += N) {
        decltype(L::load(r[0])) v[N];
        for (int i = 0; i < N; ++i) {
          if (k % (64 / sizeof(T)) == 0) __builtin_prefetch(r[i] + k + kAhead);
          v[i] = L::load(r[i] + k);
        }
        L::transpose(v);
        for (int j = 0; j < N; ++j) {
          const int64_t at = (k + j) * w + l0;
          L::store(dp + at, v[j], at + N <= kc * w ? N : g);
        }
      }
      for (; k < kc; ++k)
        for (int i = 0; i < g; ++i) dp[k * w + l0 + i] = r[i][k];
    }
  }
}

// Step-major packing (each step contiguous over lanes: row-major B, column-major A): a step's w
// lanes of a panel by whole vectors, the last one ending at the panel row's end (it overlaps the
// one before when w is not a multiple of N: w = 14 rows of A); a last panel narrower than w one
// lane at a time, zeros after. Panels are w * kc elements apart, often a multiple of 2 KiB, so
// their rows fall in one or two L1 sets: a few panels at a time (their write streams stay in L1),
// all their steps. Source rows are often a page apart: prefetched kAhead steps ahead.
template <class T>
void pack_steps(T* dst, const T* s, int64_t ks, int64_t n, int64_t kc, int w) {
  using L = Lanes<T>;
  constexpr int N = L::N;
  constexpr int64_t kLine = 64 / sizeof(T), kAhead = 8, kPanels = 4;
  const int64_t full = n / w * w;
  for (int64_t q0 = 0; q0 < n; q0 += kPanels * w) {
    const int64_t q1 = n < q0 + kPanels * w ? n : q0 + kPanels * w, qf = full < q1 ? full : q1;
    for (int64_t k = 0; k < kc; ++k) {
      const T* sk = s + k * ks;
      if (k + kAhead < kc)
        for (int64_t l = q0; l < q1; l += kLine) __builtin_prefetch(sk + kAhead * ks + l);
      T* d = dst + q0 * kc + k * w;
      for (int64_t q = q0; q < qf; q += w, d += w * kc) {
        for (int j = 0; j + N < w; j += N) L::store(d + j, L::load(sk + q + j), N);
        L::store(d + w - N, L::load(sk + q + w - N), N);
      }
      if (qf < q1) {
        for (int64_t j = qf; j < q1; ++j) d[j - qf] = sk[j];
        for (int64_t j = q1 - qf; j < w; ++j) d[j] = T(0);
      }
    }
  }
}

}  // namespace

void gemm_pack_steps_f32_avx2(float* dst, const float* s, int64_t ks, int64_t n, int64_t kc, int w) {
  pack_steps(dst, s, ks, n, kc, w);
}
void gemm_pack_steps_f64_avx2(double* dst, const double* s, int64_t ks, int64_t n, int64_t kc, int w) {
  pack_steps(dst, s, ks, n, kc, w);
}
void gemm_pack_lanes_f32_avx2(float* dst, const float* s, int64_t ls, int64_t n, int64_t kc, int w) {
  pack_lanes(dst, s, ls, n, kc, w);
}
void gemm_pack_lanes_f64_avx2(double* dst, const double* s, int64_t ls, int64_t n, int64_t kc, int w) {
  pack_lanes(dst, s, ls, n, kc, w);
}

}  // namespace ditto::cpu::gemm_detail
