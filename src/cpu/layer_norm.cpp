// layer_norm fused, forward and backward (native_layer_norm), over the rows of a contiguous
// (M, N) input. Note [Layer norm order]: each row's mean is the canonical sum of its N values
// (Note [Canonical reduction order]) over N, its variance the canonical sum of the squared
// deviations over N, rstd = 1 / sqrt(var + eps), and out = (x - mean) * rstd * weight + bias,
// one rounding per operation in that order: the bits of the composition mean, var, sub, rsqrt,
// mul, mul, add that ditto's layer_norm was before, from two passes over the row instead of
// eleven. The backward, with g = dy * weight and xhat = (x - mean) * rstd, is
//   dx = rstd * ((g - sum(g) / N) - xhat * (sum(g * xhat) / N)),
// both sums canonical over the row; dweight = sum over rows of dy * xhat and dbias = sum over
// rows of dy, canonical over the M rows (cpu::sum of the columns). Rows are computed by one
// thread each, so nothing depends on the thread count, the level or the other rows.
#include <cmath>
#include <vector>

#include "core/allocator.h"
#include "cpu/decl/norm.h"
#include "cpu/loops.h"
#include "cpu/reduce.h"
#include "cpu/reduce_kernels.h"

namespace ditto::cpu {

namespace {
template <class T>
struct Add {
  T operator()(T a, T b) const { return a + b; }
};

// The canonical sum of x[0..n) (contiguous): chunk(p, len) folds one chunk, the chunk sums fold
// by the pairwise tree.
template <class T, class Chunk>
T fold_row(const T* x, int64_t n, Chunk chunk) {
  const int64_t C = num_chunks(n);
  if (C == 1) return chunk(x, n);
  std::vector<T> partial(static_cast<std::size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    const int64_t start = c * detail::kReduceChunk;
    partial[static_cast<std::size_t>(c)] = chunk(x + start, std::min(detail::kReduceChunk, n - start));
  }
  return fold_pairwise(partial.data(), C, Add<T>{});
}

// Each element loaded by load, through the generic chunk fold.
template <class T, class Load>
T row_sum(const T* x, int64_t n, Load load) {
  return fold_row(x, n, [&](const T* p, int64_t len) { return reduce_chunk<T>(p, len, 1, T(0), Add<T>{}, load); });
}

// The plain sum, through the vectorised chunk kernels (the same bits as reduce_chunk).
template <class T>
T row_sum(const T* x, int64_t n) {
  return fold_row(x, n, [](const T* p, int64_t len) { return sum_chunk(p, len); });
}
}  // namespace

void layer_norm(const TensorBase& out, const TensorBase& mean, const TensorBase& rstd, const TensorBase& x,
                const TensorBase& weight, const TensorBase& bias, double eps) {
  dispatch_floating(x.dtype(), [&]<class T>() {
    const int64_t M = x.size(0), N = x.size(1);
    const T* xp = x.data_ptr<T>();
    const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
    const T* b = bias.defined() ? bias.data_ptr<T>() : nullptr;
    T *o = out.data_ptr<T>(), *mu = mean.data_ptr<T>(), *rs = rstd.data_ptr<T>();
    const T e = static_cast<T>(eps), n = static_cast<T>(N);
    detail::parallel_for(M, 4 * N, [&](int64_t lo, int64_t hi) {
      for (int64_t m = lo; m < hi; ++m) {
        const T* row = xp + m * N;
        const T mm = row_sum(row, N) / n;
        const T var = row_sum(row, N, [mm](T v) { return (v - mm) * (v - mm); }) / n;
        const T r = T(1) / std::sqrt(var + e);
        mu[m] = mm;
        rs[m] = r;
        T* y = o + m * N;
        for (int64_t i = 0; i < N; ++i) {
          T v = (row[i] - mm) * r;
          if (w) v = v * w[i];
          if (b) v = v + b[i];
          y[i] = v;
        }
      }
    });
  });
}

void layer_norm_backward(const TensorBase& dx, const TensorBase& dweight, const TensorBase& dbias, const TensorBase& dy,
                         const TensorBase& x, const TensorBase& mean, const TensorBase& rstd,
                         const TensorBase& weight) {
  dispatch_floating(x.dtype(), [&]<class T>() {
    const int64_t M = x.size(0), N = x.size(1);
    const T *xp = x.data_ptr<T>(), *g = dy.data_ptr<T>(), *mu = mean.data_ptr<T>(), *rs = rstd.data_ptr<T>();
    const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
    T* d = dx.data_ptr<T>();
    // dy * xhat, row by row, for dweight's column sums (uninitialised: every element is written)
    detail::Scratch<T> prod(dweight.defined() ? static_cast<std::size_t>(M * N) : 0);
    T* pp = dweight.defined() ? prod.data() : nullptr;
    const T n = static_cast<T>(N);
    detail::parallel_for(M, 8 * N, [&](int64_t lo, int64_t hi) {
      std::vector<T> gw(static_cast<std::size_t>(N)), gx(static_cast<std::size_t>(N));
      for (int64_t m = lo; m < hi; ++m) {
        const T *row = xp + m * N, *gr = g + m * N;
        const T mm = mu[m], r = rs[m];
        for (int64_t i = 0; i < N; ++i) {
          const T xhat = (row[i] - mm) * r;
          gw[i] = w ? gr[i] * w[i] : gr[i];
          gx[i] = gw[i] * xhat;
          if (pp) pp[m * N + i] = gr[i] * xhat;
        }
        const T a = row_sum(gw.data(), N) / n, c = row_sum(gx.data(), N) / n;
        T* out = d + m * N;
        for (int64_t i = 0; i < N; ++i) {
          const T xhat = (row[i] - mm) * r;
          out[i] = r * ((gw[i] - a) - xhat * c);
        }
      }
    });
    // column sums over the rows, canonical (the bits of a sum over dim 0)
    if (dweight.defined()) {
      T* dw = dweight.data_ptr<T>();
      sum_cols<T>(pp, N, M, N, [dw](int64_t j, T v) { dw[j] = v; });
    }
    if (dbias.defined()) {
      T* db = dbias.data_ptr<T>();
      sum_cols<T>(g, N, M, N, [db](int64_t j, T v) { db[j] = v; });
    }
  });
}

}  // namespace ditto::cpu
