// The random fills at the AVX2+FMA level (built with -mavx2 -mfma; entered only after the
// run-time check in cpu/capability.h): cpu/random_impl.h with F32x8, the same bits as the scalar
// level.
#include "cpu/random_impl.h"

DITTO_RANDOM_LEVEL(avx2, F32x8)
