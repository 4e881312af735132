// GEMM macro kernels at the AVX2+FMA level (built with -mavx2 -mfma; called only after the
// run-time check in cpu/capability.h). Accumulation order: Note [GEMM accumulation order].
#include "cpu/gemm_impl.h"
#include "cpu/gemm_kernels.h"

namespace ditto::cpu::gemm_detail {

void gemm_macro_f32_avx2(int64_t mc, int64_t nc, int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc,
                         bool load_c, bool final) {
  gemm_impl::macro<simd::F32x8, kF32Avx2.mr, kF32Avx2.nr / 8>(mc, nc, kc, ap, bp, c, ldc, load_c, final);
}

void gemm_macro_f64_avx2(int64_t mc, int64_t nc, int64_t kc, const double* ap, const double* bp, double* c,
                         int64_t ldc, bool load_c, bool final) {
  gemm_impl::macro<simd::F64x4, kF64Avx2.mr, kF64Avx2.nr / 4>(mc, nc, kc, ap, bp, c, ldc, load_c, final);
}

}  // namespace ditto::cpu::gemm_detail
