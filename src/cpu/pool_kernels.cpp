// The scalar level of max and average pooling's inside windows, and the dispatcher.
#include "cpu/pool_kernels.h"

#include "cpu/capability.h"
#include "cpu/pool_impl.h"

DITTO_POOL_LEVEL(scalar, F32x1, F64x1)

namespace ditto::cpu {

#define DITTO_POOL_DISPATCH(T, sfx)                                                                                    \
  void max_pool_inside(const T* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t dW, int64_t sW, int64_t pW, \
                       int64_t ow0, int64_t ow1, int64_t nout, int64_t row_step, T* vrow, int64_t* irow,               \
                       int64_t ldo) {                                                                                  \
    using namespace pool_kernels;                                                                                      \
    by_level(&max_pool_inside_##sfx##_scalar, &max_pool_inside_##sfx##_avx2, &max_pool_inside_##sfx##_avx512)(         \
        x, rows, nrows, kW, dW, sW, pW, ow0, ow1, nout, row_step, vrow, irow, ldo);                                    \
  }                                                                                                                    \
  void avg_pool_inside(const T* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t sW, int64_t pW,             \
                       int64_t ow0, int64_t ow1, T divisor, T* out) {                                                  \
    using namespace pool_kernels;                                                                                      \
    by_level(&avg_pool_inside_##sfx##_scalar, &avg_pool_inside_##sfx##_avx2, &avg_pool_inside_##sfx##_avx512)(         \
        x, rows, nrows, kW, sW, pW, ow0, ow1, divisor, out);                                                           \
  }
DITTO_POOL_DISPATCH(float, f32)
DITTO_POOL_DISPATCH(double, f64)
#undef DITTO_POOL_DISPATCH

}  // namespace ditto::cpu
