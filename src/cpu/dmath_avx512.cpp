// dmath array entry points at the AVX-512 level (built with -mavx512f/dq/bw/vl -mavx2 -mfma;
// called only after the run-time check in cpu/capability.h).
#include "cpu/dmath.h"
#include "cpu/dmath_impl.h"

DITTO_DMATH_LEVEL(avx512, F32x16, F64x8)
