// max pooling's inside windows at the AVX-512 level (built with -mavx512f/dq/bw/vl; called only after
// the run-time check in cpu/capability.h). The algorithm: cpu/pool_impl.h.
#include "cpu/pool_impl.h"
#include "cpu/pool_kernels.h"

DITTO_POOL_LEVEL(avx512, F32x16, F64x8)
