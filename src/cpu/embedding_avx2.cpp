// embedding_bag's bag sum at the AVX2 level (built with -mavx2 -mfma; called only after the
// run-time check in cpu/capability.h). The algorithm: cpu/embedding_impl.h.
#include "cpu/embedding_impl.h"

DITTO_BAG_LEVEL(avx2, F32x8, F64x4)
