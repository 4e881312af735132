// Padding and upsampling's loops at the AVX-512 level (built with -mavx512f ... -mfma; called only after
// the run-time check in cpu/capability.h). The loops: cpu/resample_impl.h.
#include "cpu/resample_impl.h"

DITTO_RESAMPLE_LEVEL(avx512)
