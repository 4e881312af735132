// GEMM kernels at the AVX2+FMA level (built with -mavx2 -mfma; called only after the run-time
// check in cpu/capability.h). The algorithm: cpu/gemm_impl.h; accumulation order: Note [GEMM
// accumulation order].
#include "cpu/gemm_impl.h"

DITTO_GEMM_LEVEL(avx2, F32x8, F64x4, kF32Avx2, kF64Avx2)
