#pragma once
// The GEMM micro- and macro-kernel, written once over cpu/simd.h and instantiated per level
// (gemm.cpp: scalar, gemm_avx2.cpp, gemm_avx512.cpp). Include only from those files.
// Every accumulator lane is one output element; each k step does exactly one fma into it, in
// increasing k, so every level computes Note [GEMM accumulation order] (cpu/gemm.h).
#include <array>
#include <cstdint>
#include <limits>
#include <utility>

#include "cpu/gemm_kernels.h"
#include "cpu/simd.h"

namespace ditto::cpu::gemm_impl {
inline namespace DITTO_SIMD_ISA {

using namespace ::ditto::simd;

// Rows 0..R-1 and vectors 0..NV-1 of a micro-tile whose packed panels are MR rows and NVS
// vectors wide; nr (in ((NV-1)*W, NV*W]) columns of C are read and written.
template <class V, int MR, int NVS, int R, int NV>
void micro(int64_t kc, const typename V::Scalar* ap, const typename V::Scalar* bp, typename V::Scalar* c, int64_t ldc,
           int nr, bool load_c, bool final) {
  using T = typename V::Scalar;
  constexpr int W = V::N, NR = NVS * W;
  const int last = nr - (NV - 1) * W;  // columns in the last vector
  V acc[R][NV];
  if (load_c) {
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        acc[r][v] =
            (v < NV - 1 || last == W) ? V::load(c + r * ldc + v * W) : V::load_partial(c + r * ldc + v * W, last);
  } else {
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = V(T(0));
  }
  for (int64_t k = 0; k < kc; ++k) {
    const T* ak = ap + k * MR;
    const T* bk = bp + k * NR;
    V b[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) b[v] = V::load(bk + v * W);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const V a(ak[r]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = fma(a, b[v], acc[r][v]);
    }
  }
  // Keeps the compiler from holding the row addresses of C live through the k loop (it would
  // spill accumulators to hold them).
  asm("" : "+r"(c), "+r"(ldc));
  // x86 FMA forms differ in which NaN operand they propagate, so NaN is made canonical.
  const V qnan(std::numeric_limits<T>::quiet_NaN());
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      V x = acc[r][v];
      if (final) x = select(x != x, qnan, x);
      if (v < NV - 1 || last == W)
        store(c + r * ldc + v * W, x);
      else
        store_partial(c + r * ldc + v * W, x, last);
    }
}

template <class V, int MR, int NVS>
struct MicroTable {
  using T = typename V::Scalar;
  using Fn = void (*)(int64_t, const T*, const T*, T*, int64_t, int, bool, bool);
  template <std::size_t... I>
  static constexpr std::array<Fn, sizeof...(I)> make(std::index_sequence<I...>) {
    return {&micro<V, MR, NVS, int(I / NVS) + 1, int(I % NVS) + 1>...};
  }
  static constexpr std::array<Fn, MR* NVS> fns = make(std::make_index_sequence<MR * NVS>{});
};

// C[0..mc, 0..nc) from a packed A block and B block (layouts in cpu/gemm_kernels.h).
template <class V, int MR, int NVS>
void macro(int64_t mc, int64_t nc, int64_t kc, const typename V::Scalar* ap, const typename V::Scalar* bp,
           typename V::Scalar* c, int64_t ldc, bool load_c, bool final) {
  constexpr int W = V::N, NR = NVS * W;
  const auto& fns = MicroTable<V, MR, NVS>::fns;
  for (int64_t ir = 0; ir < mc; ir += MR) {
    const int mr = mc - ir < MR ? int(mc - ir) : MR;
    for (int64_t jr = 0; jr < nc; jr += NR) {
      const int nr = nc - jr < NR ? int(nc - jr) : NR;
      // Fetch the next tile of C while this one computes (it comes from L3 or memory).
      constexpr int kLine = 64 / int(sizeof(typename V::Scalar));
      const int64_t nir = jr + NR < nc ? ir : ir + MR, njr = jr + NR < nc ? jr + NR : 0;
      for (int64_t r = nir; r < nir + MR && r < mc; ++r)
        for (int v = 0; v < NR && njr + v < nc; v += kLine) __builtin_prefetch(c + r * ldc + njr + v, 1);
      fns[(mr - 1) * NVS + (nr + W - 1) / W - 1](kc, ap + ir * kc, bp + jr * kc, c + ir * ldc + jr, ldc, nr, load_c,
                                                 final);
    }
  }
}

}  // namespace DITTO_SIMD_ISA
// C (M x N, row stride ldc) = A @ B straight from the operands, for products too small to repay
// packing; B's rows must be contiguous (sbn == 1). Each element's chain is the packed kernels':
// from 0, one fma per k in ascending order, a NaN result made canonical, so the bits are the
// same (Note [GEMM accumulation order]). Four rows at a time keep four chains in flight.
template <class V>
void small(int64_t M, int64_t N, int64_t K, const typename V::Scalar* a, int64_t sam, int64_t sak,
           const typename V::Scalar* b, int64_t sbk, typename V::Scalar* c, int64_t ldc) {
  using T = typename V::Scalar;
  constexpr int W = V::N, R = 4;
  const V qnan(std::numeric_limits<T>::quiet_NaN());
  for (int64_t j0 = 0; j0 < N; j0 += W) {
    const int n = N - j0 < W ? static_cast<int>(N - j0) : W;
    for (int64_t i0 = 0; i0 < M; i0 += R) {
      const int rows = M - i0 < R ? static_cast<int>(M - i0) : R;
      V acc[R] = {V(T(0)), V(T(0)), V(T(0)), V(T(0))};
      const T* ai[R];
      for (int r = 0; r < R; ++r) ai[r] = a + (i0 + (r < rows ? r : rows - 1)) * sam;  // repeat the last row
      for (int64_t k = 0; k < K; ++k) {
        const T* bk = b + k * sbk + j0;
        const V bv = n == W ? V::load(bk) : V::load_partial(bk, n);
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) acc[r] = fma(V(ai[r][k * sak]), bv, acc[r]);
      }
      for (int r = 0; r < rows; ++r) {
        const V x = select(acc[r] != acc[r], qnan, acc[r]);
        if (n == W)
          store(c + (i0 + r) * ldc + j0, x);
        else
          store_partial(c + (i0 + r) * ldc + j0, x, n);
      }
    }
  }
}

}  // namespace ditto::cpu::gemm_impl

// One level's kernels (cpu/gemm_kernels.h: gemm_macro_*_<level>, gemm_small_*_<level>) for the
// level's blockings: one line per level file (gemm.cpp: scalar, gemm_avx2.cpp, gemm_avx512.cpp).
#define DITTO_GEMM_LEVEL_T(level, V, T, sfx, BLK)                                                                    \
  static_assert(BLK.lanes == simd::V::N && BLK.nr % simd::V::N == 0);                                                \
  void gemm_macro_##sfx##_##level(int64_t mc, int64_t nc, int64_t kc, const T* ap, const T* bp, T* c, int64_t ldc,   \
                                  bool load_c, bool final) {                                                         \
    gemm_impl::macro<simd::V, BLK.mr, BLK.nr / simd::V::N>(mc, nc, kc, ap, bp, c, ldc, load_c, final);               \
  }                                                                                                                  \
  void gemm_small_##sfx##_##level(int64_t M, int64_t N, int64_t K, const T* a, int64_t sam, int64_t sak, const T* b, \
                                  int64_t sbk, T* c, int64_t ldc) {                                                  \
    gemm_impl::small<simd::V>(M, N, K, a, sam, sak, b, sbk, c, ldc);                                                 \
  }
#define DITTO_GEMM_LEVEL(level, VF, VD, BF, BD)  \
  namespace ditto::cpu::gemm_detail {            \
  DITTO_GEMM_LEVEL_T(level, VF, float, f32, BF)  \
  DITTO_GEMM_LEVEL_T(level, VD, double, f64, BD) \
  }
