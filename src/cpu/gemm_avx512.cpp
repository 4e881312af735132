// GEMM macro kernels at the AVX-512 level (built with -mavx512f/dq/bw/vl; called only after the
// run-time check in cpu/capability.h). Accumulation order: Note [GEMM accumulation order].
#include "cpu/gemm_impl.h"
#include "cpu/gemm_kernels.h"

namespace ditto::cpu::gemm_detail {
using simd::F32x16;
using simd::F64x8;
static_assert(kF32Avx512.lanes == F32x16::N && kF64Avx512.lanes == F64x8::N);

void gemm_macro_f32_avx512(int64_t mc, int64_t nc, int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc,
                           bool load_c, bool final) {
  gemm_impl::macro<F32x16, kF32Avx512.mr, kF32Avx512.nr / F32x16::N>(mc, nc, kc, ap, bp, c, ldc, load_c, final);
}

void gemm_macro_f64_avx512(int64_t mc, int64_t nc, int64_t kc, const double* ap, const double* bp, double* c,
                           int64_t ldc, bool load_c, bool final) {
  gemm_impl::macro<F64x8, kF64Avx512.mr, kF64Avx512.nr / F64x8::N>(mc, nc, kc, ap, bp, c, ldc, load_c, final);
}

void gemm_small_f32_avx512(int64_t M, int64_t N, int64_t K, const float* a, int64_t sam, int64_t sak, const float* b,
                           int64_t sbk, float* c, int64_t ldc) {
  gemm_impl::small<F32x16>(M, N, K, a, sam, sak, b, sbk, c, ldc);
}
void gemm_small_f64_avx512(int64_t M, int64_t N, int64_t K, const double* a, int64_t sam, int64_t sak, const double* b,
                           int64_t sbk, double* c, int64_t ldc) {
  gemm_impl::small<F64x8>(M, N, K, a, sam, sak, b, sbk, c, ldc);
}

}  // namespace ditto::cpu::gemm_detail
