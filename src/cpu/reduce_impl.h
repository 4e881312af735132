#pragma once
// Contiguous float reductions and softmax rows, written once over the SIMD abstraction in
// cpu/simd.h and instantiated per kernel level (cpu/reduce_kernels.cpp, *_avx2.cpp,
// *_avx512.cpp). Include only from those files.
//
// Each level implements Note [Canonical reduction order] (core/parallel.h) literally: the 32
// lanes are kReduceLanes / V::N vector registers holding consecutive lanes, so register k lane j
// is lane k*N + j; the halving tree first combines whole registers (h >= N), then the lanes of
// register 0 one by one. Lanes past the end of a chunk are left untouched (select), exactly as
// the scalar description never touches them. The arithmetic is therefore the same at every
// level, and so are the bits.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <vector>

#include "core/parallel.h"
#include "cpu/dmath_impl.h"
#include "cpu/reduce.h"
#include "cpu/simd.h"

namespace ditto::cpu::reduce_impl {
inline namespace DITTO_SIMD_ISA {

using namespace ::ditto::simd;
template <class V>
using S = typename V::Scalar;

// Lanes [0, count) of a register.
template <class V>
inline typename V::M first_lanes(int count) {
  alignas(64) static constexpr S<V> iota[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  return V::load(iota) < V(S<V>(count));
}

// The operations of the folds, as in cpu/reduce.cpp: a NaN wins max and min (the first operand's
// if both are NaN), and a tie keeps the first operand (so max(-0, +0) is -0).
struct Add {
  template <class V>
  V operator()(V a, V b) const {
    return a + b;
  }
};
struct NanMax {
  template <class V>
  V operator()(V a, V b) const {
    return select(a != a, a, select(b != b, b, select(a < b, b, a)));
  }
};
struct NanMin {
  template <class V>
  V operator()(V a, V b) const {
    return select(a != a, a, select(b != b, b, select(b < a, b, a)));
  }
};

// One chunk of n <= kReduceChunk elements. get(i, count) returns the register of elements
// [i, i + V::N) of which the first count are real (count == V::N but at the end).
template <class V, class Op, class Get>
inline S<V> fold_chunk(int64_t n, S<V> identity, Op op, Get get) {
  constexpr int N = V::N;
  constexpr int K = int(detail::kReduceLanes) / N;
  static_assert(K * N == detail::kReduceLanes);
  V acc[K];
  for (int k = 0; k < K; ++k) acc[k] = V(identity);
  int64_t i = 0;
  for (; i + detail::kReduceLanes <= n; i += detail::kReduceLanes)
    for (int k = 0; k < K; ++k) acc[k] = op(acc[k], get(i + k * N, N));
  for (int k = 0; k < K && i + k * N < n; ++k) {
    const int count = n - (i + k * N) < N ? int(n - (i + k * N)) : N;
    const V v = get(i + k * N, count);
    acc[k] = count == N ? op(acc[k], v) : select(first_lanes<V>(count), op(acc[k], v), acc[k]);
  }
  for (int h = K / 2; h >= 1; h /= 2)
    for (int k = 0; k < h; ++k) acc[k] = op(acc[k], acc[k + h]);
  alignas(64) S<V> lane[N];
  store(lane, acc[0]);
  using V1 = Vec1<S<V>>;
  for (int h = N / 2; h >= 1; h /= 2)
    for (int l = 0; l < h; ++l) lane[l] = op(V1(lane[l]), V1(lane[l + h])).v;
  return lane[0];
}

// A whole contiguous sequence: chunks, then the pairwise tree over the chunk results.
template <class V, class Op, class Get>
inline S<V> fold(int64_t n, S<V> identity, Op op, Get get) {
  const int64_t C = (n + detail::kReduceChunk - 1) / detail::kReduceChunk;
  if (C <= 1) return fold_chunk<V>(n, identity, op, get);
  std::vector<S<V>> p(static_cast<std::size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    const int64_t start = c * detail::kReduceChunk;
    const int64_t len = n - start < detail::kReduceChunk ? n - start : detail::kReduceChunk;
    p[c] = fold_chunk<V>(len, identity, op, [&](int64_t i, int count) { return get(start + i, count); });
  }
  using V1 = Vec1<S<V>>;
  return fold_pairwise(p.data(), C, [op](S<V> a, S<V> b) { return op(V1(a), V1(b)).v; });
}

template <class V>
inline V load_n(const S<V>* p, int count) {
  return count == V::N ? V::load(p) : V::load_partial(p, count);
}
template <class V>
inline void store_n(S<V>* p, V v, int count) {
  if (count == V::N)
    store(p, v);
  else
    store_partial(p, v, count);
}

template <class V>
inline S<V> sum_chunk(const S<V>* x, int64_t n) {
  return fold_chunk<V>(n, S<V>(0), Add{}, [x](int64_t i, int c) { return load_n<V>(x + i, c); });
}
// One chunk of a row made of segments of L contiguous elements, ss apart (L a multiple of
// kReduceLanes): its elements [start, start + n) in the row's order (start a multiple of
// kReduceLanes), folded as sum_chunk folds them laid out contiguously. A vector never straddles
// two segments, and fold_chunk asks for them in increasing order, so the segment only moves on.
template <class V>
inline S<V> sum_segments_chunk(const S<V>* x, int64_t start, int64_t n, int64_t L, int64_t ss) {
  int64_t seg_end = (start / L + 1) * L, shift = start / L * (ss - L);  // element i at x[i + shift]
  return fold_chunk<V>(n, S<V>(0), Add{}, [&](int64_t i, int c) {
    const int64_t at = start + i;
    if (at >= seg_end) {
      shift = at / L * (ss - L);
      seg_end = (at / L + 1) * L;
    }
    return load_n<V>(x + (at + shift), c);
  });
}
template <class V>
inline S<V> max_chunk(const S<V>* x, int64_t n) {
  return fold_chunk<V>(n, std::numeric_limits<S<V>>::lowest(), NanMax{},
                       [x](int64_t i, int c) { return load_n<V>(x + i, c); });
}
template <class V>
inline S<V> min_chunk(const S<V>* x, int64_t n) {
  return fold_chunk<V>(n, std::numeric_limits<S<V>>::max(), NanMin{},
                       [x](int64_t i, int c) { return load_n<V>(x + i, c); });
}

// The smallest and largest of x[0, n), n > 0 (exact, so any order gives the same result): four
// registers of each, so neither the loads nor the compares wait on one chain.
template <class VI>
inline void int64_range(const int64_t* x, int64_t n, int64_t* lo, int64_t* hi) {
  constexpr int64_t N = VI::N, U = 4 * N;
  int64_t i = 0;
  if (n >= U) {
    VI mn[4], mx[4];
    for (int k = 0; k < 4; ++k) mn[k] = mx[k] = VI::load(x + k * N);
    for (i = U; i + U <= n; i += U)
      for (int k = 0; k < 4; ++k) {
        const VI v = VI::load(x + i + k * N);
        mn[k] = select(mn[k] > v, v, mn[k]);
        mx[k] = select(v > mx[k], v, mx[k]);
      }
    alignas(64) int64_t a[4 * N], b[4 * N];
    for (int k = 0; k < 4; ++k) {
      std::memcpy(a + k * N, &mn[k], sizeof(VI));
      std::memcpy(b + k * N, &mx[k], sizeof(VI));
    }
    *lo = a[0];
    *hi = b[0];
    for (int64_t j = 1; j < U; ++j) {
      *lo = a[j] < *lo ? a[j] : *lo;
      *hi = b[j] > *hi ? b[j] : *hi;
    }
  } else {
    *lo = *hi = x[0];
    i = 1;
  }
  for (; i < n; ++i) {
    *lo = x[i] < *lo ? x[i] : *lo;
    *hi = x[i] > *hi ? x[i] : *hi;
  }
}

// Columns in lanes, for K sequences at once: lanes[(k * L + l) * Cols + m] is lane l of output m
// of sequence k (L = kReduceLanes). add_rows_to_lanes adds rows [r0, r1) to their lanes (row r
// to lane r mod L), rows(r, m0, count, v) writing to v[0, K) the registers of row r's elements
// [m0, m0 + count), m0 + count <= M <= Cols; then fold_lanes (cpu/reduce.h) for each k. Rows
// added in order from r = 0 give every output exactly the lanes and tree of the rows case.
template <class V, int K, class Rows>
inline void add_rows_to_lanes(S<V>* lanes, int64_t Cols, int64_t M, int64_t r0, int64_t r1, Rows rows) {
  constexpr int L = int(detail::kReduceLanes);
  V v[K];
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t m0 = 0; m0 < M; m0 += V::N) {
      const int c = M - m0 < V::N ? int(M - m0) : V::N;
      rows(r, m0, c, v);
      for (int k = 0; k < K; ++k) {
        S<V>* acc = lanes + (k * L + r % L) * Cols + m0;
        store_n(acc, load_n<V>(acc, c) + v[k], c);
      }
    }
}

// Columns: out[m] = the chunk fold (sum) over r in [0, len) of x[r * sr + m], for m in [0, M).
// A register holds one lane of V::N neighbouring outputs, so every output gets exactly the
// lanes and tree of the rows case.
// Where the outputs span several registers (up to kColsInL1), the lanes live in an L1 block
// instead (add_rows_to_lanes): a register per lane and output vector would walk all the rows once per
// vector, a cache line of each, and spill its 32 lanes.
inline constexpr int64_t kColsInL1 = 256;
template <class V>
inline void sum_cols_chunk(const S<V>* x, int64_t M, int64_t len, int64_t sr, S<V>* out) {
  constexpr int L = int(detail::kReduceLanes);
  if (M > V::N && M <= kColsInL1) {
    alignas(64) S<V> lanes[L * kColsInL1];
    const int64_t used = len < L ? (len > 0 ? len : 1) : L;  // lanes with an element, and lane 0
    for (int64_t l = 0; l < used; ++l) std::fill(lanes + l * kColsInL1, lanes + l * kColsInL1 + M, S<V>(0));
    add_rows_to_lanes<V, 1>(lanes, kColsInL1, M, 0, len,
                            [&](int64_t r, int64_t m0, int c, V* v) { v[0] = load_n<V>(x + r * sr + m0, c); });
    fold_lanes<S<V>, V>(lanes, kColsInL1, M, used);
    std::copy(lanes, lanes + M, out);
    return;
  }
  for (int64_t m0 = 0; m0 < M; m0 += V::N) {
    const int count = M - m0 < V::N ? int(M - m0) : V::N;
    V lane[L];
    for (int l = 0; l < L; ++l) lane[l] = V(S<V>(0));
    int64_t r = 0;
    for (; r + L <= len; r += L)
      for (int l = 0; l < L; ++l) lane[l] = lane[l] + load_n<V>(x + (r + l) * sr + m0, count);
    for (int l = 0; r + l < len; ++l) lane[l] = lane[l] + load_n<V>(x + (r + l) * sr + m0, count);
    for (int h = L / 2; h >= 1; h /= 2)
      for (int l = 0; l < h; ++l) lane[l] = lane[l] + lane[l + h];
    store_n(out + m0, lane[0], count);
  }
}

// softmax: y = exp(x - m) / s; log_softmax: y = (x - m) - log(s); m = max(x) (0 if infinite,
// so an all -inf row gives NaN/-inf as PyTorch does), s = canonical sum of exp(x - m).
template <class V, bool Log>
inline void softmax_row(const S<V>* x, S<V>* y, int64_t n) {
  using T = S<V>;
  T m =
      fold<V>(n, -std::numeric_limits<T>::infinity(), NanMax{}, [x](int64_t i, int c) { return load_n<V>(x + i, c); });
  if (std::isinf(m)) m = m > 0 ? m : T(0);
  const V vm(m);
  if constexpr (Log) {
    const T s = fold<V>(n, T(0), Add{}, [&](int64_t i, int c) { return dmath::impl::exp(load_n<V>(x + i, c) - vm); });
    const V ls(dmath::impl::log(Vec1<T>(s)).v);
    int64_t i = 0;
    for (; i + V::N <= n; i += V::N) store(y + i, (V::load(x + i) - vm) - ls);
    if (i < n) store_partial(y + i, (V::load_partial(x + i, int(n - i)) - vm) - ls, int(n - i));
  } else {
    const T s = fold<V>(n, T(0), Add{}, [&](int64_t i, int c) {
      const V e = dmath::impl::exp(load_n<V>(x + i, c) - vm);
      store_n(y + i, e, c);
      return e;
    });
    const V vs(s);
    int64_t i = 0;
    for (; i + V::N <= n; i += V::N) store(y + i, V::load(y + i) / vs);
    if (i < n) store_partial(y + i, V::load_partial(y + i, int(n - i)) / vs, int(n - i));
  }
}

// The gradient of one contiguous row, the composed formulas' arithmetic (ops/formulas.cpp):
// softmax: gi = y * (g - s), s = canonical sum of g * y; log_softmax: gi = g - exp(y) * s,
// s = canonical sum of g.
template <class V, bool Log>
inline void softmax_backward_row(const S<V>* g, const S<V>* y, S<V>* gi, int64_t n) {
  using T = S<V>;
  T s;
  if constexpr (Log)
    s = fold<V>(n, T(0), Add{}, [g](int64_t i, int c) { return load_n<V>(g + i, c); });
  else
    s = fold<V>(n, T(0), Add{}, [g, y](int64_t i, int c) { return load_n<V>(g + i, c) * load_n<V>(y + i, c); });
  const V vs(s);
  for (int64_t i = 0; i < n; i += V::N) {
    const int c = n - i < V::N ? int(n - i) : V::N;
    const V gv = load_n<V>(g + i, c), yv = load_n<V>(y + i, c);
    if constexpr (Log)
      store_n(gi + i, gv - dmath::impl::exp(yv) * vs, c);
    else
      store_n(gi + i, yv * (gv - vs), c);
  }
}

// The affine parameters of a normalised row, p null for none: one per element (layer_norm's,
// Each) or one per run of `run` elements (group_norm's, a channel's plane: Runs). at(i, c) is
// the register of elements [i, i + c). (Runs found its run by a division per register first: 5-6 %
// slower on group_norm's forward and backward, (8, 64, 56, 56) in 8 groups, Zen 4.)
template <class V>
struct Each {
  const S<V>* p;
  V at(int64_t i, int c) const { return load_n<V>(p + i, c); }
};
template <class V>
struct Runs {
  const S<V>* p;
  int64_t run;
  int64_t q = 0, begin = 0, end = 0;  // the run of the last register asked for, [begin, end)
  V at(int64_t i, int c) {
    if (i < begin || i >= end) {  // a division only on entering a run (registers come in order)
      q = i / run;
      begin = q * run;
      end = begin + run;
    }
    if (i + c <= end) return V(p[q]);
    alignas(64) S<V> v[V::N] = {};
    for (int j = 0; j < c; ++j) v[j] = p[(i + j) / run];
    return V::load(v);
  }
};

// A normalised row (Note [Layer norm order], cpu/layer_norm.cpp; Note [Batch norm order] for
// group_norm's): mean = sum(x) / n, var = sum((x - mean)^2) / n, both canonical, rstd = 1 /
// sqrt(var + eps), y = (x - mean) * rstd (* w) (+ b).
template <class V, class W>
inline void norm_row(const S<V>* x, S<V>* y, int64_t n, W w, W b, S<V> eps, S<V>* mean, S<V>* rstd) {
  using T = S<V>;
  const T nt = static_cast<T>(n);
  auto at = [x](int64_t i, int c) { return load_n<V>(x + i, c); };
  const T m = fold<V>(n, T(0), Add{}, at) / nt;
  const V vm(m);
  const T var = fold<V>(n, T(0), Add{},
                        [&](int64_t i, int c) {
                          const V d = at(i, c) - vm;
                          return d * d;
                        }) /
                nt;
  const T r = T(1) / std::sqrt(var + eps);
  *mean = m;
  *rstd = r;
  const V vr(r);
  for (int64_t i = 0; i < n; i += V::N) {
    const int c = n - i < V::N ? int(n - i) : V::N;
    V v = (at(i, c) - vm) * vr;
    if (w.p) v = v * w.at(i, c);
    if (b.p) v = v + b.at(i, c);
    store_n(y + i, v, c);
  }
}

// Its input gradient, with gw = g * w (g where w is null) and xhat = (x - mean) * rstd:
// dx = rstd * ((gw - sum(gw) / n) - xhat * (sum(gw * xhat) / n)), both sums canonical.
template <class V, class W>
inline void norm_backward_row(const S<V>* x, const S<V>* g, W w, S<V> mean, S<V> rstd, S<V>* dx, int64_t n) {
  using T = S<V>;
  const T nt = static_cast<T>(n);
  const V vm(mean), vr(rstd);
  auto gw = [&](int64_t i, int c) {
    const V v = load_n<V>(g + i, c);
    return w.p ? v * w.at(i, c) : v;
  };
  auto xhat = [&](int64_t i, int c) { return (load_n<V>(x + i, c) - vm) * vr; };
  const V a(fold<V>(n, T(0), Add{}, gw) / nt);
  const V k(fold<V>(n, T(0), Add{}, [&](int64_t i, int c) { return gw(i, c) * xhat(i, c); }) / nt);
  for (int64_t i = 0; i < n; i += V::N) {
    const int c = n - i < V::N ? int(n - i) : V::N;
    store_n(dx + i, vr * ((gw(i, c) - a) - xhat(i, c) * k), c);
  }
}

// A run of n values of a sequence being summed in the canonical order, the run's first value
// going to lane `lane` of its chunk's lanes, for K sums at once (lanes[k * 32 + l]: lane l of sum
// k): get(t, c, v) writes to v[0, K) the registers of the run's values [t, t + c). The head and
// the tail take consecutive lanes, the middle whole rows of 32 lanes in registers; every lane
// gets its values in order, so the sums are the rows case's.
template <class V, int K, class Get>
inline void add_run_to_lanes(int64_t n, int64_t lane, S<V>* lanes, Get get) {
  constexpr int L = int(detail::kReduceLanes), R = L / V::N;
  V v[K];
  auto add_part = [&](int64_t t, int64_t l, int64_t count) {  // values [t, t + count) to lanes [l, l + count)
    for (int64_t u = 0; u < count; u += V::N) {
      const int c = count - u < V::N ? int(count - u) : V::N;
      get(t + u, c, v);
      for (int k = 0; k < K; ++k) store_n(lanes + k * L + l + u, load_n<V>(lanes + k * L + l + u, c) + v[k], c);
    }
  };
  const int64_t head = std::min<int64_t>(n, (L - lane % L) % L);
  add_part(0, lane % L, head);
  int64_t t = head;
  if (t + L <= n) {
    V acc[K][R];
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < R; ++j) acc[k][j] = V::load(lanes + k * L + j * V::N);
    for (; t + L <= n; t += L)
      for (int j = 0; j < R; ++j) {
        get(t + j * V::N, V::N, v);
        for (int k = 0; k < K; ++k) acc[k][j] = acc[k][j] + v[k];
      }
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < R; ++j) store(lanes + k * L + j * V::N, acc[k][j]);
  }
  add_part(t, 0, n - t);
}

// The runs of batch_norm's and group_norm's channel sums (Note [Batch norm order]): x, (x -
// mean)^2, and the affine gradients' g * ((x - mean) * rstd) and g.
template <class V>
inline void channel_sum_run(const S<V>* x, int64_t n, int64_t lane, S<V>* lanes) {
  add_run_to_lanes<V, 1>(n, lane, lanes, [&](int64_t t, int c, V* v) { v[0] = load_n<V>(x + t, c); });
}
template <class V>
inline void channel_sqdev_run(const S<V>* x, int64_t n, int64_t lane, S<V> mean, S<V>* lanes) {
  const V vm(mean);
  add_run_to_lanes<V, 1>(n, lane, lanes, [&](int64_t t, int c, V* v) {
    const V d = load_n<V>(x + t, c) - vm;
    v[0] = d * d;
  });
}
template <class V>
inline void norm_param_run(const S<V>* x, const S<V>* g, int64_t n, int64_t lane, S<V> mean, S<V> rstd, S<V>* lanes) {
  const V vm(mean), vr(rstd);
  add_run_to_lanes<V, 2>(n, lane, lanes, [&](int64_t t, int c, V* v) {
    const V dy = load_n<V>(g + t, c);
    v[0] = dy * ((load_n<V>(x + t, c) - vm) * vr);
    v[1] = dy;
  });
}

// Its weight and bias gradients: adds rows [r0, r1) of a chunk of rows (element m of row r at
// r * sr + m, m < M <= kLayerNormColumns) to the lanes of dweight's and dbias's sums
// (add_rows_to_lanes, K = 2, Cols = kLayerNormColumns): g * ((x - mean[r]) * rstd[r]) and g.
// The rows kLayerNormAhead ahead are asked for early: the rows are a stride apart, which the
// hardware prefetchers do not follow far enough (in-process alternation on (4096, 768) float32,
// Zen 4, 64 columns: 13-23 % faster forward and backward with 4 to 16 rows ahead).
inline constexpr int64_t kLayerNormAhead = 8;
template <class V>
inline void layer_norm_param_rows(const S<V>* x, const S<V>* g, const S<V>* mean, const S<V>* rstd, int64_t M,
                                  int64_t r0, int64_t r1, int64_t sr, S<V>* lanes) {
  add_rows_to_lanes<V, 2>(lanes, kLayerNormColumns, M, r0, r1, [&](int64_t r, int64_t m0, int c, V* v) {
    if (m0 == 0 && r + kLayerNormAhead < r1)
      for (int64_t q = 0; q < M; q += 64 / int64_t(sizeof(S<V>))) {
        __builtin_prefetch(g + (r + kLayerNormAhead) * sr + q);
        __builtin_prefetch(x + (r + kLayerNormAhead) * sr + q);
      }
    const V dy = load_n<V>(g + r * sr + m0, c);
    v[0] = dy * ((load_n<V>(x + r * sr + m0, c) - V(mean[r])) * V(rstd[r]));
    v[1] = dy;
  });
}

// Columns: the chunk fold over r in [0, len) (len <= kReduceChunk) of get(r), a register holding
// one element of each of V::N neighbouring lines; call it as fold_cols_node<V, 0, 1>. Every lane gets exactly
// fold_chunk's lanes and tree for its line (as sum_cols_chunk), so a line folded here has the bits of the same line
// folded as a contiguous row. The halving tree is evaluated depth first, node (l, h) being
// op(node(l, 2h), node(l + h, 2h)) and node(l, 32) lane l: the same pairs as level by level,
// with at most six registers live instead of 32 lanes in memory; a subtree whose lanes are all
// empty (its first lane l >= len) is the identity, as op(identity, identity) is.
static_assert(detail::kReduceLanes == 32, "fold_cols_node's tree has 32 leaves");
template <class V, int l, int h, class Op, class Get>
inline V fold_cols_node(int64_t len, V identity, Op op, Get& get) {
  constexpr int L = int(detail::kReduceLanes);
  if (l >= len) return identity;
  if constexpr (h == L) {
    V acc = op(identity, get(l));
    for (int64_t r = l + L; r < len; r += L) acc = op(acc, get(r));
    return acc;
  } else {
    const V a = fold_cols_node<V, l, 2 * h>(len, identity, op, get);
    const V b = fold_cols_node<V, l + h, 2 * h>(len, identity, op, get);
    return op(a, b);
  }
}
// softmax_row over ncols lines at once: line j is x[r * stride + j], r in [0, n), n <=
// kReduceChunk (one chunk, so the row kernel's pairwise tree over chunks is the identity). The
// same arithmetic per line as softmax_row, vectorised across lines instead of along them.
template <class V, bool Log>
inline void softmax_cols(const S<V>* x, S<V>* y, int64_t n, int64_t stride, int64_t ncols) {
  using T = S<V>;
  const V zero(T(0)), ninf(-std::numeric_limits<T>::infinity());
  for (int64_t j = 0; j < ncols; j += V::N) {
    const int c = ncols - j < V::N ? int(ncols - j) : V::N;
    const T* xj = x + j;
    T* yj = y + j;
    auto at = [&](int64_t r) { return load_n<V>(xj + r * stride, c); };
    V m = fold_cols_node<V, 0, 1>(n, ninf, NanMax{}, at);
    m = select(m == ninf, zero, m);  // softmax_row: an infinite max becomes 0 unless it is +inf
    if constexpr (Log) {
      auto e = [&](int64_t r) { return dmath::impl::exp(at(r) - m); };
      const V ls = dmath::impl::log(fold_cols_node<V, 0, 1>(n, zero, Add{}, e));
      for (int64_t r = 0; r < n; ++r) store_n(yj + r * stride, (at(r) - m) - ls, c);
    } else {
      auto e = [&](int64_t r) {
        const V v = dmath::impl::exp(at(r) - m);
        store_n(yj + r * stride, v, c);
        return v;
      };
      const V s = fold_cols_node<V, 0, 1>(n, zero, Add{}, e);
      for (int64_t r = 0; r < n; ++r) store_n(yj + r * stride, load_n<V>(yj + r * stride, c) / s, c);
    }
  }
}

// softmax_backward_row over ncols lines at once, laid out as in softmax_cols.
template <class V, bool Log>
inline void softmax_backward_cols(const S<V>* g, const S<V>* y, S<V>* gi, int64_t n, int64_t stride, int64_t ncols) {
  using T = S<V>;
  const V zero(T(0));
  for (int64_t j = 0; j < ncols; j += V::N) {
    const int c = ncols - j < V::N ? int(ncols - j) : V::N;
    auto gat = [&](int64_t r) { return load_n<V>(g + j + r * stride, c); };
    auto yat = [&](int64_t r) { return load_n<V>(y + j + r * stride, c); };
    auto gy = [&](int64_t r) { return gat(r) * yat(r); };
    const V s = Log ? fold_cols_node<V, 0, 1>(n, zero, Add{}, gat) : fold_cols_node<V, 0, 1>(n, zero, Add{}, gy);
    for (int64_t r = 0; r < n; ++r) {
      if constexpr (Log)
        store_n(gi + j + r * stride, gat(r) - dmath::impl::exp(yat(r)) * s, c);
      else
        store_n(gi + j + r * stride, yat(r) * (gat(r) - s), c);
    }
  }
}

}  // namespace DITTO_SIMD_ISA
}  // namespace ditto::cpu::reduce_impl

// The entry points of one level (see cpu/reduce_kernels.h): DITTO_REDUCE_LEVEL(avx512, F32x16, F64x8).
#define DITTO_REDUCE_LEVEL(level, VF, VD)                                                                              \
  namespace ditto::cpu::reduce_kernels {                                                                               \
  float sum_chunk_f32_##level(const float* x, int64_t n) { return reduce_impl::sum_chunk<simd::VF>(x, n); }            \
  double sum_chunk_f64_##level(const double* x, int64_t n) { return reduce_impl::sum_chunk<simd::VD>(x, n); }          \
  float sum_segments_chunk_f32_##level(const float* x, int64_t start, int64_t n, int64_t L, int64_t ss) {              \
    return reduce_impl::sum_segments_chunk<simd::VF>(x, start, n, L, ss);                                              \
  }                                                                                                                    \
  double sum_segments_chunk_f64_##level(const double* x, int64_t start, int64_t n, int64_t L, int64_t ss) {            \
    return reduce_impl::sum_segments_chunk<simd::VD>(x, start, n, L, ss);                                              \
  }                                                                                                                    \
  float max_chunk_f32_##level(const float* x, int64_t n) { return reduce_impl::max_chunk<simd::VF>(x, n); }            \
  double max_chunk_f64_##level(const double* x, int64_t n) { return reduce_impl::max_chunk<simd::VD>(x, n); }          \
  float min_chunk_f32_##level(const float* x, int64_t n) { return reduce_impl::min_chunk<simd::VF>(x, n); }            \
  double min_chunk_f64_##level(const double* x, int64_t n) { return reduce_impl::min_chunk<simd::VD>(x, n); }          \
  void range_chunk_i64_##level(const int64_t* x, int64_t n, int64_t* lo, int64_t* hi) {                                \
    reduce_impl::int64_range<simd::VD::I>(x, n, lo, hi);                                                               \
  }                                                                                                                    \
  void sum_cols_chunk_f32_##level(const float* x, int64_t M, int64_t len, int64_t sr, float* out) {                    \
    reduce_impl::sum_cols_chunk<simd::VF>(x, M, len, sr, out);                                                         \
  }                                                                                                                    \
  void sum_cols_chunk_f64_##level(const double* x, int64_t M, int64_t len, int64_t sr, double* out) {                  \
    reduce_impl::sum_cols_chunk<simd::VD>(x, M, len, sr, out);                                                         \
  }                                                                                                                    \
  void softmax_row_f32_##level(const float* x, float* y, int64_t n, bool log) {                                        \
    log ? reduce_impl::softmax_row<simd::VF, true>(x, y, n) : reduce_impl::softmax_row<simd::VF, false>(x, y, n);      \
  }                                                                                                                    \
  void softmax_row_f64_##level(const double* x, double* y, int64_t n, bool log) {                                      \
    log ? reduce_impl::softmax_row<simd::VD, true>(x, y, n) : reduce_impl::softmax_row<simd::VD, false>(x, y, n);      \
  }                                                                                                                    \
  void softmax_cols_f32_##level(const float* x, float* y, int64_t n, int64_t stride, int64_t ncols, bool log) {        \
    log ? reduce_impl::softmax_cols<simd::VF, true>(x, y, n, stride, ncols)                                            \
        : reduce_impl::softmax_cols<simd::VF, false>(x, y, n, stride, ncols);                                          \
  }                                                                                                                    \
  void softmax_cols_f64_##level(const double* x, double* y, int64_t n, int64_t stride, int64_t ncols, bool log) {      \
    log ? reduce_impl::softmax_cols<simd::VD, true>(x, y, n, stride, ncols)                                            \
        : reduce_impl::softmax_cols<simd::VD, false>(x, y, n, stride, ncols);                                          \
  }                                                                                                                    \
  void softmax_backward_cols_f32_##level(const float* g, const float* y, float* gi, int64_t n, int64_t stride,         \
                                         int64_t ncols, bool log) {                                                    \
    log ? reduce_impl::softmax_backward_cols<simd::VF, true>(g, y, gi, n, stride, ncols)                               \
        : reduce_impl::softmax_backward_cols<simd::VF, false>(g, y, gi, n, stride, ncols);                             \
  }                                                                                                                    \
  void softmax_backward_cols_f64_##level(const double* g, const double* y, double* gi, int64_t n, int64_t stride,      \
                                         int64_t ncols, bool log) {                                                    \
    log ? reduce_impl::softmax_backward_cols<simd::VD, true>(g, y, gi, n, stride, ncols)                               \
        : reduce_impl::softmax_backward_cols<simd::VD, false>(g, y, gi, n, stride, ncols);                             \
  }                                                                                                                    \
  void layer_norm_row_f32_##level(const float* x, float* y, int64_t n, const float* w, const float* b, float eps,      \
                                  float* mean, float* rstd) {                                                          \
    reduce_impl::norm_row<simd::VF>(x, y, n, reduce_impl::Each<simd::VF>{w}, reduce_impl::Each<simd::VF>{b}, eps,      \
                                    mean, rstd);                                                                       \
  }                                                                                                                    \
  void layer_norm_row_f64_##level(const double* x, double* y, int64_t n, const double* w, const double* b, double eps, \
                                  double* mean, double* rstd) {                                                        \
    reduce_impl::norm_row<simd::VD>(x, y, n, reduce_impl::Each<simd::VD>{w}, reduce_impl::Each<simd::VD>{b}, eps,      \
                                    mean, rstd);                                                                       \
  }                                                                                                                    \
  void layer_norm_backward_row_f32_##level(const float* x, const float* g, const float* w, float mean, float rstd,     \
                                           float* dx, int64_t n) {                                                     \
    reduce_impl::norm_backward_row<simd::VF>(x, g, reduce_impl::Each<simd::VF>{w}, mean, rstd, dx, n);                 \
  }                                                                                                                    \
  void layer_norm_backward_row_f64_##level(const double* x, const double* g, const double* w, double mean,             \
                                           double rstd, double* dx, int64_t n) {                                       \
    reduce_impl::norm_backward_row<simd::VD>(x, g, reduce_impl::Each<simd::VD>{w}, mean, rstd, dx, n);                 \
  }                                                                                                                    \
  void group_norm_row_f32_##level(const float* x, float* y, int64_t n, int64_t run, const float* w, const float* b,    \
                                  float eps, float* mean, float* rstd) {                                               \
    reduce_impl::norm_row<simd::VF>(x, y, n, reduce_impl::Runs<simd::VF>{w, run}, reduce_impl::Runs<simd::VF>{b, run}, \
                                    eps, mean, rstd);                                                                  \
  }                                                                                                                    \
  void group_norm_row_f64_##level(const double* x, double* y, int64_t n, int64_t run, const double* w,                 \
                                  const double* b, double eps, double* mean, double* rstd) {                           \
    reduce_impl::norm_row<simd::VD>(x, y, n, reduce_impl::Runs<simd::VD>{w, run}, reduce_impl::Runs<simd::VD>{b, run}, \
                                    eps, mean, rstd);                                                                  \
  }                                                                                                                    \
  void group_norm_backward_row_f32_##level(const float* x, const float* g, const float* w, int64_t run, float mean,    \
                                           float rstd, float* dx, int64_t n) {                                         \
    reduce_impl::norm_backward_row<simd::VF>(x, g, reduce_impl::Runs<simd::VF>{w, run}, mean, rstd, dx, n);            \
  }                                                                                                                    \
  void group_norm_backward_row_f64_##level(const double* x, const double* g, const double* w, int64_t run,             \
                                           double mean, double rstd, double* dx, int64_t n) {                          \
    reduce_impl::norm_backward_row<simd::VD>(x, g, reduce_impl::Runs<simd::VD>{w, run}, mean, rstd, dx, n);            \
  }                                                                                                                    \
  void channel_sum_run_f32_##level(const float* x, int64_t n, int64_t lane, float* lanes) {                            \
    reduce_impl::channel_sum_run<simd::VF>(x, n, lane, lanes);                                                         \
  }                                                                                                                    \
  void channel_sum_run_f64_##level(const double* x, int64_t n, int64_t lane, double* lanes) {                          \
    reduce_impl::channel_sum_run<simd::VD>(x, n, lane, lanes);                                                         \
  }                                                                                                                    \
  void channel_sqdev_run_f32_##level(const float* x, int64_t n, int64_t lane, float mean, float* lanes) {              \
    reduce_impl::channel_sqdev_run<simd::VF>(x, n, lane, mean, lanes);                                                 \
  }                                                                                                                    \
  void channel_sqdev_run_f64_##level(const double* x, int64_t n, int64_t lane, double mean, double* lanes) {           \
    reduce_impl::channel_sqdev_run<simd::VD>(x, n, lane, mean, lanes);                                                 \
  }                                                                                                                    \
  void norm_param_run_f32_##level(const float* x, const float* g, int64_t n, int64_t lane, float mean, float rstd,     \
                                  float* lanes) {                                                                      \
    reduce_impl::norm_param_run<simd::VF>(x, g, n, lane, mean, rstd, lanes);                                           \
  }                                                                                                                    \
  void norm_param_run_f64_##level(const double* x, const double* g, int64_t n, int64_t lane, double mean, double rstd, \
                                  double* lanes) {                                                                     \
    reduce_impl::norm_param_run<simd::VD>(x, g, n, lane, mean, rstd, lanes);                                           \
  }                                                                                                                    \
  void layer_norm_param_rows_f32_##level(const float* x, const float* g, const float* mean, const float* rstd,         \
                                         int64_t M, int64_t r0, int64_t r1, int64_t sr, float* lanes) {                \
    reduce_impl::layer_norm_param_rows<simd::VF>(x, g, mean, rstd, M, r0, r1, sr, lanes);                              \
  }                                                                                                                    \
  void layer_norm_param_rows_f64_##level(const double* x, const double* g, const double* mean, const double* rstd,     \
                                         int64_t M, int64_t r0, int64_t r1, int64_t sr, double* lanes) {               \
    reduce_impl::layer_norm_param_rows<simd::VD>(x, g, mean, rstd, M, r0, r1, sr, lanes);                              \
  }                                                                                                                    \
  void softmax_backward_row_f32_##level(const float* g, const float* y, float* gi, int64_t n, bool log) {              \
    log ? reduce_impl::softmax_backward_row<simd::VF, true>(g, y, gi, n)                                               \
        : reduce_impl::softmax_backward_row<simd::VF, false>(g, y, gi, n);                                             \
  }                                                                                                                    \
  void softmax_backward_row_f64_##level(const double* g, const double* y, double* gi, int64_t n, bool log) {           \
    log ? reduce_impl::softmax_backward_row<simd::VD, true>(g, y, gi, n)                                               \
        : reduce_impl::softmax_backward_row<simd::VD, false>(g, y, gi, n);                                             \
  }                                                                                                                    \
  }
