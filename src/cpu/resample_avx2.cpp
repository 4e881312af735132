// Padding and upsampling's loops at the AVX2 level (built with -mavx2 -mfma; called only after
// the run-time check in cpu/capability.h). The loops: cpu/resample_impl.h.
#include "cpu/resample_impl.h"

DITTO_RESAMPLE_LEVEL(avx2)
