#pragma once
// max pooling's inside windows per level (cpu/pool_impl.h) and their dispatcher, which picks the
// level from cpu_capability(). Every level gives the same values and indices.
#include <cstdint>

namespace ditto::cpu::pool_kernels {

#define DITTO_POOL_DECLARE_T(level, T, sfx)                                                                    \
  void max_pool_inside_##sfx##_##level(const T* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t dW, \
                                       int64_t sW, int64_t pW, int64_t ow0, int64_t ow1, int64_t nout,         \
                                       int64_t row_step, T* vrow, int64_t* irow, int64_t ldo);                 \
  void avg_pool_inside_##sfx##_##level(const T* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t sW, \
                                       int64_t pW, int64_t ow0, int64_t ow1, T divisor, T* out);
#define DITTO_POOL_DECLARE(level) DITTO_POOL_DECLARE_T(level, float, f32) DITTO_POOL_DECLARE_T(level, double, f64)
DITTO_POOL_DECLARE(scalar)
DITTO_POOL_DECLARE(avx2)
DITTO_POOL_DECLARE(avx512)
#undef DITTO_POOL_DECLARE
#undef DITTO_POOL_DECLARE_T

}  // namespace ditto::cpu::pool_kernels

namespace ditto::cpu {

// Output columns [ow0, ow1) of nout output rows of max pooling whose windows lie inside the rows,
// row i's window rows row_step further than row 0's (see cpu/pool_impl.h): values to vrow + i * ldo,
// plane indices to irow + i * ldo.
void max_pool_inside(const float* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t dW, int64_t sW, int64_t pW,
                     int64_t ow0, int64_t ow1, int64_t nout, int64_t row_step, float* vrow, int64_t* irow, int64_t ldo);
void max_pool_inside(const double* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t dW, int64_t sW,
                     int64_t pW, int64_t ow0, int64_t ow1, int64_t nout, int64_t row_step, double* vrow, int64_t* irow,
                     int64_t ldo);
// avg_pool's output columns [ow0, ow1) of one output row whose windows lie inside the row: 0 + sum
// / divisor to out (see cpu/pool_impl.h).
void avg_pool_inside(const float* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t sW, int64_t pW,
                     int64_t ow0, int64_t ow1, float divisor, float* out);
void avg_pool_inside(const double* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t sW, int64_t pW,
                     int64_t ow0, int64_t ow1, double divisor, double* out);

}  // namespace ditto::cpu
