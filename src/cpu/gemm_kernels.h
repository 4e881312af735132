#pragma once
// The GEMM kernel levels (cpu/gemm_scalar in gemm.cpp, gemm_avx2.cpp, gemm_avx512.cpp) and the
// blocking each one is packed for. Accumulation order: Note [GEMM accumulation order] (cpu/gemm.h).
//
// Packed layouts (built by cpu/gemm.cpp):
//   A block (mc x kc): panels of mr rows, panel p at ap + p*mr*kc, element (r, k) at [k*mr + r].
//   B block (kc x nc): panels of nr cols, panel q at bp + q*nr*kc, element (k, j) at [k*nr + j];
//   columns past the matrix edge are zero (read by the last vector, never stored).
// A macro kernel computes C[0..mc, 0..nc) (row stride ldc) from one A block and one B block:
// each element's chain is started at 0 (load_c false) or continued from the value in C (load_c
// true: the previous kc block stored it unrounded), and on the last kc block (final) a NaN result
// is stored as the canonical quiet NaN.
#include <cstdint>

namespace ditto::cpu::gemm_detail {

struct Blocking {
  int mr, nr;  // micro-tile: registers hold mr x nr accumulators
  int lanes;   // of a vector register; nr is a multiple
  // K block; A block of mc x kc (its mr x kc micro-panel stays in L1 while B panels stream);
  // B block of kc x nc (L2). Each is cut into near-equal blocks of at most about this size.
  int64_t kc, mc, nc;
};

template <class T>
using MacroKernel = void (*)(int64_t mc, int64_t nc, int64_t kc, const T* ap, const T* bp, T* c, int64_t ldc,
                             bool load_c, bool final);

// Scalar: std::fma, so the register tile only needs to keep a few chains in flight.
inline constexpr Blocking kF32Scalar{4, 4, 1, 256, 2048, 256};
inline constexpr Blocking kF64Scalar{4, 4, 1, 256, 2048, 256};
// AVX2: 16 ymm = 12 accumulators (6 rows x 2 vectors) + 2 B vectors + 1 broadcast. B block of
// kc x nc kept within a 256 KiB L2.
inline constexpr Blocking kF32Avx2{6, 16, 8, 256, 2040, 192};
inline constexpr Blocking kF64Avx2{6, 8, 4, 256, 2040, 96};
// AVX-512: 32 zmm = 28 accumulators (14 rows x 2 vectors) + 2 B vectors + 1 broadcast; the A
// micro-panel (14 x kc) stays in L1 while B panels stream from L2. A B block of ~192 KiB was
// faster than 512 KiB on Zen 4 (1 MiB L2), whose L2 the other processes on a core also use.
inline constexpr Blocking kF32Avx512{14, 32, 16, 256, 2044, 192};
inline constexpr Blocking kF64Avx512{14, 16, 8, 256, 2044, 96};

// Lane-major packing (each lane contiguous over k), as cpu/gemm.cpp's pack_panels does it;
// AVX2 code, used by the AVX2 and AVX-512 levels.
template <class T>
using PackLanes = void (*)(T* dst, const T* s, int64_t ls, int64_t n, int64_t kc, int w);
void gemm_pack_lanes_f32_avx2(float* dst, const float* s, int64_t ls, int64_t n, int64_t kc, int w);
void gemm_pack_lanes_f64_avx2(double* dst, const double* s, int64_t ls, int64_t n, int64_t kc, int w);
// Step-major packing (each step contiguous over lanes) by whole vectors; w >= the vector's lanes.
void gemm_pack_steps_f32_avx2(float* dst, const float* s, int64_t ks, int64_t n, int64_t kc, int w);
void gemm_pack_steps_f64_avx2(double* dst, const double* s, int64_t ks, int64_t n, int64_t kc, int w);

// Unpacked small products (gemm_impl::small): C = A @ B with B's rows contiguous.
template <class T>
using SmallKernel = void (*)(int64_t M, int64_t N, int64_t K, const T* a, int64_t sam, int64_t sak, const T* b,
                             int64_t sbk, T* c, int64_t ldc);

// Each level's macro and small kernels (DITTO_GEMM_LEVEL in cpu/gemm_impl.h defines them).
#define DITTO_GEMM_DECLARE_T(level, T, sfx)                                                                          \
  void gemm_macro_##sfx##_##level(int64_t mc, int64_t nc, int64_t kc, const T* ap, const T* bp, T* c, int64_t ldc,   \
                                  bool load_c, bool final);                                                          \
  void gemm_small_##sfx##_##level(int64_t M, int64_t N, int64_t K, const T* a, int64_t sam, int64_t sak, const T* b, \
                                  int64_t sbk, T* c, int64_t ldc);
#define DITTO_GEMM_DECLARE(level) DITTO_GEMM_DECLARE_T(level, float, f32) DITTO_GEMM_DECLARE_T(level, double, f64)
DITTO_GEMM_DECLARE(scalar)
DITTO_GEMM_DECLARE(avx2)
DITTO_GEMM_DECLARE(avx512)
#undef DITTO_GEMM_DECLARE
#undef DITTO_GEMM_DECLARE_T

}  // namespace ditto::cpu::gemm_detail
