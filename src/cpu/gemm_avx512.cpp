// GEMM kernels at the AVX-512 level (built with -mavx512f/dq/bw/vl; called only after the run-time
// check in cpu/capability.h). The algorithm: cpu/gemm_impl.h; accumulation order: Note [GEMM
// accumulation order].
#include "cpu/gemm_impl.h"

DITTO_GEMM_LEVEL(avx512, F32x16, F64x8, kF32Avx512, kF64Avx512)
