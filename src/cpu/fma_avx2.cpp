// Elementwise fma kernels at the AVX2 level (built with -mavx2 -mfma; called only after the
// run-time check in cpu/capability.h). The algorithm: cpu/fma_impl.h.
#include "cpu/fma_impl.h"
#include "cpu/fma_kernels.h"

DITTO_FMA_LEVEL(avx2, F32x8, F64x4)
