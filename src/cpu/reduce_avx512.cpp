// Contiguous reduction kernels at the AVX-512 level (built with -mavx512f/dq/bw/vl; called only
// after the run-time check in cpu/capability.h). The algorithm: cpu/reduce_impl.h.
#include "cpu/reduce_impl.h"
#include "cpu/reduce_kernels.h"

DITTO_REDUCE_LEVEL(avx512, F32x16, F64x8)
