#pragma once
// The canonical reduction of Note [Canonical reduction order] (core/parallel.h), for one
// sequence x[0], x[stride], ..., x[(n-1)*stride].
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/parallel.h"
#include "cpu/reduce_kernels.h"

namespace ditto::cpu {

// Folds the chunk partials p[0..n) by the fixed pairwise tree; p is overwritten.
template <class A, class Op>
A fold_pairwise(A* p, int64_t n, Op op) {
  while (n > 1) {
    const int64_t half = n / 2;
    for (int64_t i = 0; i < half; ++i) p[i] = op(p[2 * i], p[2 * i + 1]);
    if (n & 1) p[half] = p[n - 1];
    n = half + (n & 1);
  }
  return p[0];
}

// The halving tree over the kReduceLanes lanes of M outputs side by side (lane l of output m at
// lanes[l * stride + m]): each output's sum ends in lane 0. Only lanes [0, used) are read: the
// others never had an element (a chunk of fewer than kReduceLanes), so they hold the identity
// +0, and adding it changes no lane (a lane that starts at +0 is never -0). A level's kernels pass
// their vector type as Tag: their instantiation is then their own (cpu/simd.h: code compiled for
// AVX-512 must never be what the linker keeps for a baseline caller).
template <class T, class Tag = void>
void fold_lanes(T* lanes, int64_t stride, int64_t M, int64_t used = detail::kReduceLanes) {
  for (int64_t h = detail::kReduceLanes / 2; h >= 1; h /= 2)
    for (int64_t l = 0; l < h && l + h < used; ++l)
      for (int64_t m = 0; m < M; ++m) lanes[l * stride + m] = lanes[l * stride + m] + lanes[(l + h) * stride + m];
}

// One chunk (at most kReduceChunk elements): lanes by index mod kReduceLanes, then the halving tree.
template <class A, class T, class Op, class Load>
A reduce_chunk(const T* x, int64_t n, int64_t stride, A identity, Op op, Load load) {
  constexpr int64_t L = detail::kReduceLanes;
  A lane[L];
  for (int64_t l = 0; l < L; ++l) lane[l] = identity;
  int64_t i = 0;
  if (stride == 1) {
    for (; i + L <= n; i += L)
      for (int64_t l = 0; l < L; ++l) lane[l] = op(lane[l], load(x[i + l]));
  } else {
    for (; i + L <= n; i += L)
      for (int64_t l = 0; l < L; ++l) lane[l] = op(lane[l], load(x[(i + l) * stride]));
  }
  for (int64_t l = 0; i + l < n; ++l) lane[l] = op(lane[l], load(x[(i + l) * stride]));
  for (int64_t h = L / 2; h >= 1; h /= 2)
    for (int64_t l = 0; l < h; ++l) lane[l] = op(lane[l], lane[l + h]);
  return lane[0];
}

inline int64_t num_chunks(int64_t n) { return n == 0 ? 1 : (n + detail::kReduceChunk - 1) / detail::kReduceChunk; }

// Reduces every row m of a strided (M, R) block: out(m) = canonical fold of row m, where
// chunk(p, len, stride) folds one chunk (lanes and halving tree) and op folds the chunk results.
// Work is split over (row, chunk) pairs, so the thread count never changes a partial or the tree.
template <class A, class T, class Chunk, class Op, class Store>
void reduce_rows_by(const T* base, int64_t M, int64_t R, int64_t sm, int64_t sr, Chunk chunk, Op op, Store store) {
  const int64_t C = num_chunks(R);
  if (C == 1) {
    detail::parallel_for(M, R, [&](int64_t b, int64_t e) {
      for (int64_t m = b; m < e; ++m) store(m, chunk(base + m * sm, R, sr));
    });
    return;
  }
  std::unique_ptr<A[]> partial(new A[static_cast<std::size_t>(M * C)]);
  detail::parallel_for(M * C, detail::kReduceChunk, [&](int64_t b, int64_t e) {
    for (int64_t w = b; w < e; ++w) {
      const int64_t m = w / C, c = w % C;
      const int64_t start = c * detail::kReduceChunk;
      const int64_t len = start + detail::kReduceChunk <= R ? detail::kReduceChunk : R - start;
      partial[w] = chunk(base + m * sm + start * sr, len, sr);
    }
  });
  for (int64_t m = 0; m < M; ++m) store(m, fold_pairwise(partial.get() + m * C, C, op));
}

// reduce_rows_by with the generic chunk fold: identity, op, and load (T -> A) for each element.
template <class A, class T, class Op, class Load, class Store>
void reduce_rows(const T* base, int64_t M, int64_t R, int64_t sm, int64_t sr, A identity, Op op, Load load,
                 Store store) {
  reduce_rows_by<A>(
      base, M, R, sm, sr,
      [&](const T* p, int64_t len, int64_t stride) { return reduce_chunk<A>(p, len, stride, identity, op, load); }, op,
      store);
}

// The sums of M outputs from their C chunk sums (partial[c * M + m]), by the pairwise tree over
// the chunks: store(m, sum).
template <class A, class Store>
void fold_chunk_sums(const A* partial, int64_t C, int64_t M, Store store) {
  std::vector<A> tree(static_cast<std::size_t>(C));
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t c = 0; c < C; ++c) tree[static_cast<std::size_t>(c)] = partial[c * M + m];
    store(m, fold_pairwise(tree.data(), C, [](A a, A b) { return a + b; }));
  }
}

// The sum of every column m of an (M, R) floating block whose outputs are neighbours in memory
// (x[r * sr + m]: the reduction over a leading dim, e.g. a bias gradient), store(m, sum): blocks
// of outputs go through sum_cols_chunk, which folds each one exactly as reduce_chunk folds a row.
template <class A, class Store>
void sum_cols(const A* x, int64_t M, int64_t R, int64_t sr, Store store) {
  const int64_t C = num_chunks(R);
  constexpr int64_t kBlock = 256;  // outputs per task
  const int64_t B = (M + kBlock - 1) / kBlock;
  std::vector<A> partial(static_cast<std::size_t>(C * M));  // partial[c * M + m]
  detail::parallel_for(B * C, kBlock * std::min(R, detail::kReduceChunk), [&](int64_t b, int64_t e) {
    for (int64_t w = b; w < e; ++w) {
      const int64_t m0 = (w / C) * kBlock, c = w % C;
      const int64_t start = c * detail::kReduceChunk;
      sum_cols_chunk(x + start * sr + m0, std::min(kBlock, M - m0), std::min(detail::kReduceChunk, R - start), sr,
                     partial.data() + c * M + m0);
    }
  });
  fold_chunk_sums(partial.data(), C, M, store);
}

}  // namespace ditto::cpu
