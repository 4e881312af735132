// The direct convolution's tiles at the AVX2 level (built with -mavx2 -mfma; called only after the
// run-time check in cpu/capability.h). The algorithm: cpu/conv_impl.h.
#include "cpu/conv_impl.h"

DITTO_CONV_LEVEL(avx2, F32x8, F64x4)
