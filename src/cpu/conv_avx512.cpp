// The direct convolution's tiles at the AVX-512 level (built with -mavx512f/dq/bw/vl; called only
// after the run-time check in cpu/capability.h). The algorithm: cpu/conv_impl.h.
#include "cpu/conv_impl.h"

DITTO_CONV_LEVEL(avx512, F32x16, F64x8)
