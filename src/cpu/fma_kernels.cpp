// The scalar level of the elementwise fma kernels, and the dispatchers.
#include "cpu/fma_kernels.h"

#include "cpu/capability.h"
#include "cpu/fma_impl.h"

DITTO_FMA_LEVEL(scalar, F32x1, F64x1)

namespace ditto::cpu {

#define DITTO_FMA_DISPATCH(name, sfx, params, args)                                      \
  void name##_contiguous params {                                                        \
    using namespace fma_kernels;                                                         \
    by_level(&name##_##sfx##_scalar, &name##_##sfx##_avx2, &name##_##sfx##_avx512) args; \
  }
DITTO_FMA_DISPATCH(add_scaled, f32, (const float* x, const float* y, float a, float* out, int64_t n), (x, y, a, out, n))
DITTO_FMA_DISPATCH(add_scaled, f64, (const double* x, const double* y, double a, double* out, int64_t n),
                   (x, y, a, out, n))
DITTO_FMA_DISPATCH(lerp, f32, (const float* x, const float* y, float w, float* out, int64_t n), (x, y, w, out, n))
DITTO_FMA_DISPATCH(lerp, f64, (const double* x, const double* y, double w, double* out, int64_t n), (x, y, w, out, n))
DITTO_FMA_DISPATCH(addcmul, f32, (const float* s, const float* x, const float* y, float v, float* out, int64_t n),
                   (s, x, y, v, out, n))
DITTO_FMA_DISPATCH(addcmul, f64, (const double* s, const double* x, const double* y, double v, double* out, int64_t n),
                   (s, x, y, v, out, n))
#undef DITTO_FMA_DISPATCH

}  // namespace ditto::cpu
