// dmath array entry points at the AVX2+FMA level (built with -mavx2 -mfma; called only after the
// run-time check in cpu/capability.h).
#include "cpu/dmath.h"
#include "cpu/dmath_impl.h"

DITTO_DMATH_LEVEL(avx2, F32x8, F64x4)
