// max pooling's inside windows at the AVX2 level (built with -mavx2 -mfma; called only after the
// run-time check in cpu/capability.h). The algorithm: cpu/pool_impl.h.
#include "cpu/pool_impl.h"
#include "cpu/pool_kernels.h"

DITTO_POOL_LEVEL(avx2, F32x8, F64x4)
