#pragma once
// max and average pooling (1-D to 3-D) over the windows that lie inside the row, V::N output columns at a time, written
// once over the SIMD abstraction in cpu/simd.h and instantiated per level (cpu/pool_kernels.cpp,
// *_avx2.cpp, *_avx512.cpp). Include only from those files.
//
// Each window is scanned as PyTorch's CPU kernels scan it, row-major, a tap replacing the running
// maximum when it is strictly greater or NaN (so the first maximum wins, or the last NaN). Lane j
// follows exactly that scan for its own window: the lanes are only different windows. The winner
// is tracked by its plane index when that is exact in a float lane, else by its tap number,
// turned into a plane index after.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/simd.h"

namespace ditto::cpu::pool_impl {
inline namespace DITTO_SIMD_ISA {

using namespace ::ditto::simd;
template <class V>
using S = typename V::Scalar;

// The taps at p of count consecutive output columns, sW input columns apart.
template <class V>
inline V load_columns(const S<V>* p, int64_t sW, int count) {
  if (sW == 1) return count == V::N ? V::load(p) : V::load_partial(p, count);
  if (sW == 2) return V::load_even(p, count);  // two loads and a permute instead of a gather
  return count == V::N ? V::load_strided(p, sW) : V::load_strided_partial(p, sW, count);
}
template <class V>
inline void store_columns(S<V>* p, V v, int count) {
  if (count == V::N)
    store(p, v);
  else
    store_partial(p, v, count);
}

// max_pool_inside's scan of output rows [i0, i0 + U) (of nout) at the vector of columns from ow:
// row i's window rows at rows[r] + i * row_step. The U rows' scans are independent chains, side
// by side so that one's compare and select hide the others' latency; each lane still scans its own
// window in PyTorch's order. Index (float lanes only): the lanes carry the winner's plane index
// itself (every index exact in float), from offf (the taps' offsets as float); else its tap
// number, looked up in off.
template <class V, bool Index, int U>
inline void max_scan_rows(const S<V>* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t dW, int64_t sW,
                          int64_t pW, int64_t ow, int count, V col0, int64_t i0, int64_t row_step, const int64_t* off,
                          const S<V>* offf, S<V>* vrow, int64_t* irow, int64_t ldo) {
  using T = S<V>;
  V m[U], best[U], col[U];
  const S<V>* xr[U];
  for (int u = 0; u < U; ++u) {
    m[u] = V(-std::numeric_limits<T>::infinity());
    best[u] = V(T(0));
    col[u] = Index ? col0 + V(T((i0 + u) * row_step)) : col0;  // exact: below 2^24 when Index
    xr[u] = x + (i0 + u) * row_step + ow * sW - pW;
  }
  int64_t tap = 0;
  for (int64_t r = 0; r < nrows; ++r)
    for (int64_t kw = 0; kw < kW; ++kw, ++tap) {
      const int64_t at = rows[r] + kw * dW;
      for (int u = 0; u < U; ++u) {
        const V v = load_columns<V>(xr[u] + at, sW, count);
        const auto take = (v > m[u]) | (v != v);
        m[u] = select(take, v, m[u]);
        if constexpr (Index)
          best[u] = select(take, V(offf[tap]) + col[u], best[u]);
        else
          best[u] = select(take, V(T(tap)), best[u]);
      }
    }
  for (int u = 0; u < U; ++u) {
    const int64_t i = i0 + u;
    store_columns(vrow + i * ldo + ow, m[u], count);
    if constexpr (Index) {
      store_widened(irow + i * ldo + ow, trunc_to_int(best[u]), count);
    } else {
      alignas(64) T bt[V::N];
      store(bt, best[u]);
      for (int j = 0; j < count; ++j) irow[i * ldo + ow + j] = off[int64_t(bt[j])] + i * row_step + (ow + j) * sW - pW;
    }
  }
}

template <class V, bool Index>
inline void max_scan(const S<V>* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t dW, int64_t sW, int64_t pW,
                     int64_t ow0, int64_t ow1, int64_t nout, int64_t row_step, const int64_t* off, const S<V>* offf,
                     S<V>* vrow, int64_t* irow, int64_t ldo) {
  using T = S<V>;
  alignas(64) T iota[V::N];
  for (int j = 0; j < V::N; ++j) iota[j] = T(j);
  const V lane = V::load(iota);
  constexpr int kRows = 4;
  for (int64_t ow = ow0; ow < ow1; ow += V::N) {
    const int count = ow1 - ow < V::N ? int(ow1 - ow) : V::N;
    V col(T(0));
    if constexpr (Index) col = (V(T(ow)) + lane) * V(T(sW)) - V(T(pW));  // exact: below 2^24
    int64_t i = 0;
    for (; i + kRows <= nout; i += kRows)
      max_scan_rows<V, Index, kRows>(x, rows, nrows, kW, dW, sW, pW, ow, count, col, i, row_step, off, offf, vrow, irow,
                                     ldo);
    for (; i < nout; ++i)
      max_scan_rows<V, Index, 1>(x, rows, nrows, kW, dW, sW, pW, ow, count, col, i, row_step, off, offf, vrow, irow,
                                 ldo);
  }
}

// Output columns [ow0, ow1) of nout output rows whose windows are inside the rows: row i's window
// rows start at plane offsets rows[r] + i * row_step (nrows >= 1, in scan order: depth, then
// height), its columns at ow * sW - pW + kw * dW; its values go to vrow + i * ldo, its indices to
// irow + i * ldo. Tap numbers (nrows * kW of them) must be exact in T.
template <class V>
inline void max_pool_inside(const S<V>* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t dW, int64_t sW,
                            int64_t pW, int64_t ow0, int64_t ow1, int64_t nout, int64_t row_step, S<V>* vrow,
                            int64_t* irow, int64_t ldo) {
  using T = S<V>;
  // each tap's offset from the window's first column (no division per output below)
  constexpr int64_t kTable = 64;
  const int64_t taps = nrows * kW;
  int64_t off_small[kTable];
  T offf_small[kTable];
  std::vector<int64_t> off_big(taps > kTable ? static_cast<std::size_t>(taps) : 0);
  std::vector<T> offf_big(taps > kTable ? static_cast<std::size_t>(taps) : 0);
  int64_t* off = taps > kTable ? off_big.data() : off_small;
  T* offf = taps > kTable ? offf_big.data() : offf_small;
  for (int64_t r = 0, t = 0; r < nrows; ++r)
    for (int64_t kw = 0; kw < kW; ++kw, ++t) off[t] = rows[r] + kw * dW;
  // float32 with every index of the rows below 2^24 carries indices; otherwise tap numbers
  if constexpr (std::is_same_v<T, float>) {
    const int64_t off_max = *std::max_element(off, off + taps);
    if (off_max + (nout - 1) * row_step + (ow1 - 1) * sW - pW < (int64_t(1) << 24)) {
      for (int64_t t = 0; t < taps; ++t) offf[t] = T(off[t]);
      return max_scan<V, true>(x, rows, nrows, kW, dW, sW, pW, ow0, ow1, nout, row_step, off, offf, vrow, irow, ldo);
    }
  }
  max_scan<V, false>(x, rows, nrows, kW, dW, sW, pW, ow0, ow1, nout, row_step, off, offf, vrow, irow, ldo);
}

// avg_pool's output columns [ow0, ow1) of one output row whose windows are inside the row (kW
// columns from ow * sW - pW): lane j sums its own window in PyTorch's order (rows in scan order,
// then columns), from 0, and writes 0 + sum / divisor, as the scalar kernel does.
template <class V>
inline void avg_pool_inside(const S<V>* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t sW, int64_t pW,
                            int64_t ow0, int64_t ow1, S<V> divisor, S<V>* out) {
  using T = S<V>;
  for (int64_t ow = ow0; ow < ow1; ow += V::N) {
    const int count = ow1 - ow < V::N ? int(ow1 - ow) : V::N;
    V s(T(0));
    for (int64_t r = 0; r < nrows; ++r)
      for (int64_t kw = 0; kw < kW; ++kw) s = s + load_columns<V>(x + rows[r] + ow * sW - pW + kw, sW, count);
    store_columns(out + ow, V(T(0)) + s / V(divisor), count);
  }
}

}  // namespace DITTO_SIMD_ISA
}  // namespace ditto::cpu::pool_impl

#define DITTO_POOL_LEVEL_T(level, V, T, sfx)                                                                        \
  void max_pool_inside_##sfx##_##level(const T* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t dW,      \
                                       int64_t sW, int64_t pW, int64_t ow0, int64_t ow1, int64_t nout,              \
                                       int64_t row_step, T* vrow, int64_t* irow, int64_t ldo) {                     \
    pool_impl::max_pool_inside<simd::V>(x, rows, nrows, kW, dW, sW, pW, ow0, ow1, nout, row_step, vrow, irow, ldo); \
  }                                                                                                                 \
  void avg_pool_inside_##sfx##_##level(const T* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t sW,      \
                                       int64_t pW, int64_t ow0, int64_t ow1, T divisor, T* out) {                   \
    pool_impl::avg_pool_inside<simd::V>(x, rows, nrows, kW, sW, pW, ow0, ow1, divisor, out);                        \
  }
#define DITTO_POOL_LEVEL(level, VF, VD)      \
  namespace ditto::cpu::pool_kernels {       \
  DITTO_POOL_LEVEL_T(level, VF, float, f32)  \
  DITTO_POOL_LEVEL_T(level, VD, double, f64) \
  }
