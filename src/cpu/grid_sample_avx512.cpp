// grid_sample's loops at the AVX-512 level (built with -mavx512f/dq/bw/vl; called only after the
// run-time check in cpu/capability.h). The loops: cpu/grid_sample_impl.h.
#include "cpu/grid_sample_impl.h"

DITTO_GRID_LEVEL(avx512)
