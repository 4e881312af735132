// The scalar level of the contiguous reduction kernels, and the dispatchers.
#include "cpu/reduce_kernels.h"

#include "cpu/capability.h"
#include "cpu/reduce_impl.h"

DITTO_REDUCE_LEVEL(scalar, F32x1, F64x1)

namespace ditto::cpu {

#define DITTO_REDUCE_DISPATCH(ret, name, suffix, params, args)                                           \
  ret name params {                                                                                      \
    using namespace reduce_kernels;                                                                      \
    return by_level(&name##_##suffix##_scalar, &name##_##suffix##_avx2, &name##_##suffix##_avx512) args; \
  }
DITTO_REDUCE_DISPATCH(float, sum_chunk, f32, (const float* x, int64_t n), (x, n))
DITTO_REDUCE_DISPATCH(double, sum_chunk, f64, (const double* x, int64_t n), (x, n))
DITTO_REDUCE_DISPATCH(float, sum_segments_chunk, f32, (const float* x, int64_t start, int64_t n, int64_t L, int64_t ss),
                      (x, start, n, L, ss))
DITTO_REDUCE_DISPATCH(double, sum_segments_chunk, f64,
                      (const double* x, int64_t start, int64_t n, int64_t L, int64_t ss), (x, start, n, L, ss))
DITTO_REDUCE_DISPATCH(float, max_chunk, f32, (const float* x, int64_t n), (x, n))
DITTO_REDUCE_DISPATCH(double, max_chunk, f64, (const double* x, int64_t n), (x, n))
DITTO_REDUCE_DISPATCH(float, min_chunk, f32, (const float* x, int64_t n), (x, n))
DITTO_REDUCE_DISPATCH(double, min_chunk, f64, (const double* x, int64_t n), (x, n))
DITTO_REDUCE_DISPATCH(void, range_chunk, i64, (const int64_t* x, int64_t n, int64_t* lo, int64_t* hi), (x, n, lo, hi))
DITTO_REDUCE_DISPATCH(void, sum_cols_chunk, f32, (const float* x, int64_t M, int64_t len, int64_t sr, float* out),
                      (x, M, len, sr, out))
DITTO_REDUCE_DISPATCH(void, sum_cols_chunk, f64, (const double* x, int64_t M, int64_t len, int64_t sr, double* out),
                      (x, M, len, sr, out))
DITTO_REDUCE_DISPATCH(void, softmax_row, f32, (const float* x, float* y, int64_t n, bool log), (x, y, n, log))
DITTO_REDUCE_DISPATCH(void, softmax_row, f64, (const double* x, double* y, int64_t n, bool log), (x, y, n, log))
DITTO_REDUCE_DISPATCH(void, softmax_backward_row, f32, (const float* g, const float* y, float* gi, int64_t n, bool log),
                      (g, y, gi, n, log))
DITTO_REDUCE_DISPATCH(void, softmax_backward_row, f64,
                      (const double* g, const double* y, double* gi, int64_t n, bool log), (g, y, gi, n, log))
DITTO_REDUCE_DISPATCH(void, softmax_cols, f32,
                      (const float* x, float* y, int64_t n, int64_t stride, int64_t ncols, bool log),
                      (x, y, n, stride, ncols, log))
DITTO_REDUCE_DISPATCH(void, softmax_cols, f64,
                      (const double* x, double* y, int64_t n, int64_t stride, int64_t ncols, bool log),
                      (x, y, n, stride, ncols, log))
DITTO_REDUCE_DISPATCH(void, softmax_backward_cols, f32,
                      (const float* g, const float* y, float* gi, int64_t n, int64_t stride, int64_t ncols, bool log),
                      (g, y, gi, n, stride, ncols, log))
DITTO_REDUCE_DISPATCH(void, softmax_backward_cols, f64,
                      (const double* g, const double* y, double* gi, int64_t n, int64_t stride, int64_t ncols,
                       bool log),
                      (g, y, gi, n, stride, ncols, log))
DITTO_REDUCE_DISPATCH(void, layer_norm_row, f32,
                      (const float* x, float* y, int64_t n, const float* w, const float* b, float eps, float* mean,
                       float* rstd),
                      (x, y, n, w, b, eps, mean, rstd))
DITTO_REDUCE_DISPATCH(void, layer_norm_row, f64,
                      (const double* x, double* y, int64_t n, const double* w, const double* b, double eps,
                       double* mean, double* rstd),
                      (x, y, n, w, b, eps, mean, rstd))
DITTO_REDUCE_DISPATCH(void, layer_norm_backward_row, f32,
                      (const float* x, const float* g, const float* w, float mean, float rstd, float* dx, int64_t n),
                      (x, g, w, mean, rstd, dx, n))
DITTO_REDUCE_DISPATCH(void, layer_norm_backward_row, f64,
                      (const double* x, const double* g, const double* w, double mean, double rstd, double* dx,
                       int64_t n),
                      (x, g, w, mean, rstd, dx, n))
DITTO_REDUCE_DISPATCH(void, layer_norm_param_rows, f32,
                      (const float* x, const float* g, const float* mean, const float* rstd, int64_t M, int64_t r0,
                       int64_t r1, int64_t sr, float* lanes),
                      (x, g, mean, rstd, M, r0, r1, sr, lanes))
DITTO_REDUCE_DISPATCH(void, layer_norm_param_rows, f64,
                      (const double* x, const double* g, const double* mean, const double* rstd, int64_t M, int64_t r0,
                       int64_t r1, int64_t sr, double* lanes),
                      (x, g, mean, rstd, M, r0, r1, sr, lanes))
DITTO_REDUCE_DISPATCH(void, group_norm_row, f32,
                      (const float* x, float* y, int64_t n, int64_t run, const float* w, const float* b, float eps,
                       float* mean, float* rstd),
                      (x, y, n, run, w, b, eps, mean, rstd))
DITTO_REDUCE_DISPATCH(void, group_norm_row, f64,
                      (const double* x, double* y, int64_t n, int64_t run, const double* w, const double* b, double eps,
                       double* mean, double* rstd),
                      (x, y, n, run, w, b, eps, mean, rstd))
DITTO_REDUCE_DISPATCH(void, group_norm_backward_row, f32,
                      (const float* x, const float* g, const float* w, int64_t run, float mean, float rstd, float* dx,
                       int64_t n),
                      (x, g, w, run, mean, rstd, dx, n))
DITTO_REDUCE_DISPATCH(void, group_norm_backward_row, f64,
                      (const double* x, const double* g, const double* w, int64_t run, double mean, double rstd,
                       double* dx, int64_t n),
                      (x, g, w, run, mean, rstd, dx, n))
DITTO_REDUCE_DISPATCH(void, channel_sum_run, f32, (const float* x, int64_t n, int64_t lane, float* lanes),
                      (x, n, lane, lanes))
DITTO_REDUCE_DISPATCH(void, channel_sum_run, f64, (const double* x, int64_t n, int64_t lane, double* lanes),
                      (x, n, lane, lanes))
DITTO_REDUCE_DISPATCH(void, channel_sqdev_run, f32, (const float* x, int64_t n, int64_t lane, float mean, float* lanes),
                      (x, n, lane, mean, lanes))
DITTO_REDUCE_DISPATCH(void, channel_sqdev_run, f64,
                      (const double* x, int64_t n, int64_t lane, double mean, double* lanes), (x, n, lane, mean, lanes))
DITTO_REDUCE_DISPATCH(void, norm_param_run, f32,
                      (const float* x, const float* g, int64_t n, int64_t lane, float mean, float rstd, float* lanes),
                      (x, g, n, lane, mean, rstd, lanes))
DITTO_REDUCE_DISPATCH(void, norm_param_run, f64,
                      (const double* x, const double* g, int64_t n, int64_t lane, double mean, double rstd,
                       double* lanes),
                      (x, g, n, lane, mean, rstd, lanes))
#undef DITTO_REDUCE_DISPATCH

}  // namespace ditto::cpu
