#pragma once
// Contiguous elementwise fma kernels per level (cpu/fma_impl.h) and their dispatchers, which pick
// the level from cpu_capability(). Every level gives the same bits.
#include <cstdint>

namespace ditto::cpu::fma_kernels {

#define DITTO_FMA_DECLARE_T(level, T, sfx)                                         \
  void add_scaled_##sfx##_##level(const T* x, const T* y, T a, T* out, int64_t n); \
  void lerp_##sfx##_##level(const T* x, const T* y, T w, T* out, int64_t n);       \
  void addcmul_##sfx##_##level(const T* s, const T* x, const T* y, T v, T* out, int64_t n);
#define DITTO_FMA_DECLARE(level) DITTO_FMA_DECLARE_T(level, float, f32) DITTO_FMA_DECLARE_T(level, double, f64)
DITTO_FMA_DECLARE(scalar)
DITTO_FMA_DECLARE(avx2)
DITTO_FMA_DECLARE(avx512)
#undef DITTO_FMA_DECLARE
#undef DITTO_FMA_DECLARE_T

}  // namespace ditto::cpu::fma_kernels

namespace ditto::cpu {

// out = fma(y, a, x)
void add_scaled_contiguous(const float* x, const float* y, float a, float* out, int64_t n);
void add_scaled_contiguous(const double* x, const double* y, double a, double* out, int64_t n);
// out = lerp(x, y, w) (see cpu/fma_impl.h)
void lerp_contiguous(const float* x, const float* y, float w, float* out, int64_t n);
void lerp_contiguous(const double* x, const double* y, double w, double* out, int64_t n);
// out = fma(v * x, y, s)
void addcmul_contiguous(const float* s, const float* x, const float* y, float v, float* out, int64_t n);
void addcmul_contiguous(const double* s, const double* x, const double* y, double v, double* out, int64_t n);

}  // namespace ditto::cpu
