// embedding_bag's bag sum at the AVX-512 level (built with -mavx512f/dq/bw/vl; called only after
// the run-time check in cpu/capability.h). The algorithm: cpu/embedding_impl.h.
#include "cpu/embedding_impl.h"

DITTO_BAG_LEVEL(avx512, F32x16, F64x8)
