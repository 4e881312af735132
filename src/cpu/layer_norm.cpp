// layer_norm fused, forward and backward (native_layer_norm), over the rows of a contiguous
// (M, N) input. Note [Layer norm order]: each row's mean is the canonical sum of its N values
// (Note [Canonical reduction order]) over N, its variance the canonical sum of the squared
// deviations over N, rstd = 1 / sqrt(var + eps), and out = (x - mean) * rstd * weight + bias,
// one rounding per operation in that order: the bits of the composition mean, var, sub, rsqrt,
// mul, mul, add that ditto's layer_norm was before, from two passes over the row instead of
// eleven. The backward, with g = dy * weight and xhat = (x - mean) * rstd, is
//   dx = rstd * ((g - sum(g) / N) - xhat * (sum(g * xhat) / N)),
// both sums canonical over the row; dweight = sum over rows of dy * xhat and dbias = sum over
// rows of dy, canonical over the M rows (the bits of a sum over dim 0). A row is computed by one
// thread; a block of columns adds the rows of a chunk to its lanes in order, a block of rows at a
// time, one thread per block of columns. So nothing depends on the thread count or the blocks,
// and the row and column kernels (cpu/reduce_impl.h) fold as reduce_chunk does at every level.
#include <algorithm>
#include <vector>

#include "core/allocator.h"
#include "cpu/decl/norm.h"
#include "cpu/loops.h"
#include "cpu/reduce.h"
#include "cpu/reduce_kernels.h"

namespace ditto::cpu {

void layer_norm(const TensorBase& out, const TensorBase& mean, const TensorBase& rstd, const TensorBase& x,
                const TensorBase& weight, const TensorBase& bias, double eps) {
  dispatch_floating(x.dtype(), [&]<class T>() {
    const int64_t M = x.size(0), N = x.size(1);
    const T* xp = x.data_ptr<T>();
    const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
    const T* b = bias.defined() ? bias.data_ptr<T>() : nullptr;
    T *o = out.data_ptr<T>(), *mu = mean.data_ptr<T>(), *rs = rstd.data_ptr<T>();
    const T e = static_cast<T>(eps);
    detail::parallel_for(M, 4 * N, [&](int64_t lo, int64_t hi) {
      for (int64_t m = lo; m < hi; ++m) layer_norm_row(xp + m * N, o + m * N, N, w, b, e, mu + m, rs + m);
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
    auto rows = [&](int64_t r0, int64_t r1) {
      detail::parallel_for(r1 - r0, 8 * N, [&](int64_t lo, int64_t hi) {
        for (int64_t m = r0 + lo; m < r0 + hi; ++m)
          layer_norm_backward_row(xp + m * N, g + m * N, w, mu[m], rs[m], d + m * N, N);
      });
    };
    if (!dweight.defined() && !dbias.defined()) return rows(0, M);
    // dweight and dbias, the column sums: the rows a block at a time, first dx, then each block of
    // kLayerNormColumns columns adds its part of the block's rows to its lanes, while the block is
    // still in cache; the lanes fold at each chunk's end, then the pairwise tree over the chunks.
    constexpr int64_t L = detail::kReduceLanes, W = kLayerNormColumns, kLanes = 2 * L * W;
    const int64_t C = num_chunks(M), B = (N + W - 1) / W;
    const int64_t block = std::max<int64_t>(L, kNormBlockBytes / (2 * N * int64_t(sizeof(T))));  // rows
    detail::Scratch<T> lanes(static_cast<std::size_t>(B * kLanes));
    std::vector<T> partial(static_cast<std::size_t>(2 * C * N));  // [dweight, dbias][chunk][column]
    for (int64_t c = 0; c < C; ++c) {
      const int64_t start = c * detail::kReduceChunk, len = std::min(detail::kReduceChunk, M - start);
      const int64_t used = std::clamp<int64_t>(len, 1, L);  // lanes with an element, and lane 0
      for (int64_t j = 0; j < B; ++j)
        for (int k = 0; k < 2; ++k) {
          T* lk = lanes.data() + j * kLanes + k * L * W;
          std::fill(lk, lk + used * W, T(0));
        }
      for (int64_t r0 = 0; r0 < len; r0 += block) {
        const int64_t r1 = std::min(len, r0 + block);
        rows(start + r0, start + r1);
        detail::parallel_for(B, 4 * W * (r1 - r0), [&](int64_t lo, int64_t hi) {
          for (int64_t j = lo; j < hi; ++j)
            layer_norm_param_rows(xp + start * N + j * W, g + start * N + j * W, mu + start, rs + start,
                                  std::min(W, N - j * W), r0, r1, N, lanes.data() + j * kLanes);
        });
      }
      for (int64_t j = 0; j < B; ++j) {
        const int64_t m = std::min(W, N - j * W);
        for (int k = 0; k < 2; ++k) {
          T* lk = lanes.data() + j * kLanes + k * L * W;
          fold_lanes(lk, W, m, used);
          std::copy(lk, lk + m, partial.data() + (k * C + c) * N + j * W);
        }
      }
    }
    if (dweight.defined()) {
      T* p = dweight.data_ptr<T>();
      fold_chunk_sums(partial.data(), C, N, [p](int64_t j, T v) { p[j] = v; });
    }
    if (dbias.defined()) {
      T* p = dbias.data_ptr<T>();
      fold_chunk_sums(partial.data() + C * N, C, N, [p](int64_t j, T v) { p[j] = v; });
    }
  });
}

}  // namespace ditto::cpu
