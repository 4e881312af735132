// Elementwise fma kernels at the AVX-512 level (built with -mavx512f/dq/bw/vl; called only after
// the run-time check in cpu/capability.h). The algorithm: cpu/fma_impl.h.
#include "cpu/fma_impl.h"
#include "cpu/fma_kernels.h"

DITTO_FMA_LEVEL(avx512, F32x16, F64x8)
