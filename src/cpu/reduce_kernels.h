#pragma once
// Contiguous float reduction kernels per level (cpu/reduce_impl.h) and their dispatchers, which
// pick the level from cpu_capability(). Every level gives the same bits.
#include <cstdint>

namespace ditto::cpu::reduce_kernels {

#define DITTO_REDUCE_DECLARE(level)                                                                                    \
  float sum_chunk_f32_##level(const float* x, int64_t n);                                                              \
  double sum_chunk_f64_##level(const double* x, int64_t n);                                                            \
  float sum_segments_chunk_f32_##level(const float* x, int64_t start, int64_t n, int64_t L, int64_t ss);               \
  double sum_segments_chunk_f64_##level(const double* x, int64_t start, int64_t n, int64_t L, int64_t ss);             \
  float max_chunk_f32_##level(const float* x, int64_t n);                                                              \
  double max_chunk_f64_##level(const double* x, int64_t n);                                                            \
  float min_chunk_f32_##level(const float* x, int64_t n);                                                              \
  double min_chunk_f64_##level(const double* x, int64_t n);                                                            \
  void range_chunk_i64_##level(const int64_t* x, int64_t n, int64_t* lo, int64_t* hi);                                 \
  void sum_cols_chunk_f32_##level(const float* x, int64_t M, int64_t len, int64_t sr, float* out);                     \
  void sum_cols_chunk_f64_##level(const double* x, int64_t M, int64_t len, int64_t sr, double* out);                   \
  void softmax_row_f32_##level(const float* x, float* y, int64_t n, bool log);                                         \
  void softmax_row_f64_##level(const double* x, double* y, int64_t n, bool log);                                       \
  void softmax_cols_f32_##level(const float* x, float* y, int64_t n, int64_t stride, int64_t ncols, bool log);         \
  void softmax_cols_f64_##level(const double* x, double* y, int64_t n, int64_t stride, int64_t ncols, bool log);       \
  void softmax_backward_cols_f32_##level(const float* g, const float* y, float* gi, int64_t n, int64_t stride,         \
                                         int64_t ncols, bool log);                                                     \
  void softmax_backward_cols_f64_##level(const double* g, const double* y, double* gi, int64_t n, int64_t stride,      \
                                         int64_t ncols, bool log);                                                     \
  void layer_norm_row_f32_##level(const float* x, float* y, int64_t n, const float* w, const float* b, float eps,      \
                                  float* mean, float* rstd);                                                           \
  void layer_norm_row_f64_##level(const double* x, double* y, int64_t n, const double* w, const double* b, double eps, \
                                  double* mean, double* rstd);                                                         \
  void layer_norm_backward_row_f32_##level(const float* x, const float* g, const float* w, float mean, float rstd,     \
                                           float* dx, int64_t n);                                                      \
  void layer_norm_backward_row_f64_##level(const double* x, const double* g, const double* w, double mean,             \
                                           double rstd, double* dx, int64_t n);                                        \
  void group_norm_row_f32_##level(const float* x, float* y, int64_t n, int64_t run, const float* w, const float* b,    \
                                  float eps, float* mean, float* rstd);                                                \
  void group_norm_row_f64_##level(const double* x, double* y, int64_t n, int64_t run, const double* w,                 \
                                  const double* b, double eps, double* mean, double* rstd);                            \
  void group_norm_backward_row_f32_##level(const float* x, const float* g, const float* w, int64_t run, float mean,    \
                                           float rstd, float* dx, int64_t n);                                          \
  void group_norm_backward_row_f64_##level(const double* x, const double* g, const double* w, int64_t run,             \
                                           double mean, double rstd, double* dx, int64_t n);                           \
  void channel_sum_run_f32_##level(const float* x, int64_t n, int64_t lane, float* lanes);                             \
  void channel_sum_run_f64_##level(const double* x, int64_t n, int64_t lane, double* lanes);                           \
  void channel_sqdev_run_f32_##level(const float* x, int64_t n, int64_t lane, float mean, float* lanes);               \
  void channel_sqdev_run_f64_##level(const double* x, int64_t n, int64_t lane, double mean, double* lanes);            \
  void norm_param_run_f32_##level(const float* x, const float* g, int64_t n, int64_t lane, float mean, float rstd,     \
                                  float* lanes);                                                                       \
  void norm_param_run_f64_##level(const double* x, const double* g, int64_t n, int64_t lane, double mean, double rstd, \
                                  double* lanes);                                                                      \
  void layer_norm_param_rows_f32_##level(const float* x, const float* g, const float* mean, const float* rstd,         \
                                         int64_t M, int64_t r0, int64_t r1, int64_t sr, float* lanes);                 \
  void layer_norm_param_rows_f64_##level(const double* x, const double* g, const double* mean, const double* rstd,     \
                                         int64_t M, int64_t r0, int64_t r1, int64_t sr, double* lanes);                \
  void softmax_backward_row_f32_##level(const float* g, const float* y, float* gi, int64_t n, bool log);               \
  void softmax_backward_row_f64_##level(const double* g, const double* y, double* gi, int64_t n, bool log);
DITTO_REDUCE_DECLARE(scalar)
DITTO_REDUCE_DECLARE(avx2)
DITTO_REDUCE_DECLARE(avx512)
#undef DITTO_REDUCE_DECLARE

}  // namespace ditto::cpu::reduce_kernels

namespace ditto::cpu {

// One chunk (n <= kReduceChunk) of contiguous elements, folded by the lanes and halving tree of
// Note [Canonical reduction order]: the sum, and max/min where NaN wins.
float sum_chunk(const float* x, int64_t n);
double sum_chunk(const double* x, int64_t n);
// The chunk [start, start + n) of a row of segments of L contiguous elements, ss apart, folded as
// sum_chunk folds it copied out (L and start multiples of kReduceLanes).
float sum_segments_chunk(const float* x, int64_t start, int64_t n, int64_t L, int64_t ss);
double sum_segments_chunk(const double* x, int64_t start, int64_t n, int64_t L, int64_t ss);
float max_chunk(const float* x, int64_t n);
double max_chunk(const double* x, int64_t n);
float min_chunk(const float* x, int64_t n);
double min_chunk(const double* x, int64_t n);
// *lo and *hi = the smallest and largest of x[0, n), n > 0.
void range_chunk(const int64_t* x, int64_t n, int64_t* lo, int64_t* hi);
// Exact, so the same at every level: max_chunk and min_chunk of int64 are range_chunk's.
inline int64_t max_chunk(const int64_t* x, int64_t n) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  if (n > 0) range_chunk(x, n, &lo, &hi);
  return hi;
}
inline int64_t min_chunk(const int64_t* x, int64_t n) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  if (n > 0) range_chunk(x, n, &lo, &hi);
  return lo;
}

// out[m] = the chunk sum over r in [0, len) (len <= kReduceChunk) of x[r * sr + m], m in [0, M):
// M neighbouring outputs at once, each folded exactly as sum_chunk folds one row.
void sum_cols_chunk(const float* x, int64_t M, int64_t len, int64_t sr, float* out);
void sum_cols_chunk(const double* x, int64_t M, int64_t len, int64_t sr, double* out);

// One contiguous row of softmax (log = false) or log_softmax (log = true).
void softmax_row(const float* x, float* y, int64_t n, bool log);
void softmax_row(const double* x, double* y, int64_t n, bool log);
// ncols neighbouring lines of n <= kReduceChunk elements, line j at x[r * stride + j]: each
// line's bits are softmax_row's (and softmax_backward_row's) for it.
void softmax_cols(const float* x, float* y, int64_t n, int64_t stride, int64_t ncols, bool log);
void softmax_cols(const double* x, double* y, int64_t n, int64_t stride, int64_t ncols, bool log);
void softmax_backward_cols(const float* g, const float* y, float* gi, int64_t n, int64_t stride, int64_t ncols,
                           bool log);
void softmax_backward_cols(const double* g, const double* y, double* gi, int64_t n, int64_t stride, int64_t ncols,
                           bool log);
// layer_norm over one contiguous row of n values, with its mean and rstd; its input gradient; and
// its weight and bias gradients: rows [r0, r1) of a chunk of rows (r0 counted from the chunk's
// start, element m < M <= kLayerNormColumns of row r at r * sr + m) added to the lanes of the two
// sums, lanes[(k * kReduceLanes + l) * kLayerNormColumns + m] lane l of column m of dweight (k = 0)
// and dbias (k = 1), row r to lane r mod kReduceLanes (cpu/reduce_impl.h, Note [Layer norm order]).
void layer_norm_row(const float* x, float* y, int64_t n, const float* w, const float* b, float eps, float* mean,
                    float* rstd);
void layer_norm_row(const double* x, double* y, int64_t n, const double* w, const double* b, double eps, double* mean,
                    double* rstd);
void layer_norm_backward_row(const float* x, const float* g, const float* w, float mean, float rstd, float* dx,
                             int64_t n);
void layer_norm_backward_row(const double* x, const double* g, const double* w, double mean, double rstd, double* dx,
                             int64_t n);
inline constexpr int64_t kLayerNormColumns = 64;
// The normalisation backwards' blocks (layer_norm's rows, group_norm's samples): about this many
// bytes of x and dy, whose dx is computed and whose affine gradients' lanes are then added to while
// the block is in cache. In-process alternation on layer_norm (4096, 768) float32 (Zen 4): 96 to
// 512 rows (0.6 to 3 MB) about as fast at one thread, 1.2x slower without blocks; at two threads
// 170 rows (1 MB) fastest, 1.1-1.2x slower at 96 or 256 to 1024 rows or without blocks.
inline constexpr int64_t kNormBlockBytes = int64_t{1} << 20;
void layer_norm_param_rows(const float* x, const float* g, const float* mean, const float* rstd, int64_t M, int64_t r0,
                           int64_t r1, int64_t sr, float* lanes);
void layer_norm_param_rows(const double* x, const double* g, const double* mean, const double* rstd, int64_t M,
                           int64_t r0, int64_t r1, int64_t sr, double* lanes);

// group_norm's row of n values (a sample's group), whose weight and bias (w, b: null, or one per
// run of `run` values, a channel) change every run; and its input gradient.
void group_norm_row(const float* x, float* y, int64_t n, int64_t run, const float* w, const float* b, float eps,
                    float* mean, float* rstd);
void group_norm_row(const double* x, double* y, int64_t n, int64_t run, const double* w, const double* b, double eps,
                    double* mean, double* rstd);
void group_norm_backward_row(const float* x, const float* g, const float* w, int64_t run, float mean, float rstd,
                             float* dx, int64_t n);
void group_norm_backward_row(const double* x, const double* g, const double* w, int64_t run, double mean, double rstd,
                             double* dx, int64_t n);
// batch_norm's and group_norm's channel sums, a run of n contiguous values of a channel's
// sequence at a time, the first to lane `lane` of its chunk's lanes (lanes[k * 32 + l], lane l of
// sum k; cpu/reduce_impl.h, Note [Batch norm order]): the sum of x; of (x - mean)^2; and of
// g * ((x - mean) * rstd) (k = 0) and g (k = 1), the affine gradients.
void channel_sum_run(const float* x, int64_t n, int64_t lane, float* lanes);
void channel_sum_run(const double* x, int64_t n, int64_t lane, double* lanes);
void channel_sqdev_run(const float* x, int64_t n, int64_t lane, float mean, float* lanes);
void channel_sqdev_run(const double* x, int64_t n, int64_t lane, double mean, double* lanes);
void norm_param_run(const float* x, const float* g, int64_t n, int64_t lane, float mean, float rstd, float* lanes);
void norm_param_run(const double* x, const double* g, int64_t n, int64_t lane, double mean, double rstd, double* lanes);

// Its gradient gi from the output's gradient g and the output y (cpu/reduce_impl.h).
void softmax_backward_row(const float* g, const float* y, float* gi, int64_t n, bool log);
void softmax_backward_row(const double* g, const double* y, double* gi, int64_t n, bool log);

}  // namespace ditto::cpu
