// Contiguous reduction kernels at the AVX2 level (built with -mavx2 -mfma; called only after the
// run-time check in cpu/capability.h). The algorithm: cpu/reduce_impl.h.
#include "cpu/reduce_impl.h"
#include "cpu/reduce_kernels.h"

DITTO_REDUCE_LEVEL(avx2, F32x8, F64x4)
