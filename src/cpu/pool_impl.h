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

// max_pool_inside's scan. Index: the lanes carry the winner's plane index itself (every index
// exact in T), converted once per vector; else its tap number, looked up in off per output.
template <class V, bool Index>
inline void max_scan(const S<V>* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t dW, int64_t sW, int64_t pW,
                     int64_t ow0, int64_t ow1, const int64_t* off, S<V>* vrow, int64_t* irow) {
  using T = S<V>;
  alignas(64) T iota[V::N];
  for (int j = 0; j < V::N; ++j) iota[j] = T(j);
  const V lane = V::load(iota);
  for (int64_t ow = ow0; ow < ow1; ow += V::N) {
    const int count = ow1 - ow < V::N ? int(ow1 - ow) : V::N;
    V col(T(0));
    if constexpr (Index) col = (V(T(ow)) + lane) * V(T(sW)) - V(T(pW));  // exact: below 2^24
    V m(-std::numeric_limits<T>::infinity()), best(T(0));
    int64_t tap = 0;
    for (int64_t r = 0; r < nrows; ++r)
      for (int64_t kw = 0; kw < kW; ++kw, ++tap) {
        const V v = load_columns<V>(x + rows[r] + ow * sW - pW + kw * dW, sW, count);
        const auto take = (v > m) | (v != v);
        m = select(take, v, m);
        if constexpr (Index)
          best = select(take, V(T(off[tap])) + col, best);
        else
          best = select(take, V(T(tap)), best);
      }
    alignas(64) T bt[V::N];
    store(bt, best);
    store_columns(vrow + ow, m, count);
    for (int j = 0; j < count; ++j) irow[ow + j] = Index ? int64_t(bt[j]) : off[int64_t(bt[j])] + (ow + j) * sW - pW;
  }
}

// Output columns [ow0, ow1) of one output row whose windows are inside the row: the window's rows
// start at plane offsets rows[0..nrows) (nrows >= 1, in scan order: depth, then height), its
// columns at ow * sW - pW + kw * dW. Tap numbers (nrows * kW of them) must be exact in T.
template <class V>
inline void max_pool_inside(const S<V>* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t dW, int64_t sW,
                            int64_t pW, int64_t ow0, int64_t ow1, S<V>* vrow, int64_t* irow) {
  using T = S<V>;
  // each tap's offset from the window's first column (no division per output below)
  constexpr int64_t kTable = 64;
  int64_t off_small[kTable];
  std::vector<int64_t> off_big(nrows * kW > kTable ? static_cast<std::size_t>(nrows * kW) : 0);
  int64_t* off = nrows * kW > kTable ? off_big.data() : off_small;
  for (int64_t r = 0, t = 0; r < nrows; ++r)
    for (int64_t kw = 0; kw < kW; ++kw, ++t) off[t] = rows[r] + kw * dW;
  // float32 with every index of the row below 2^24 carries indices; otherwise tap numbers
  const int64_t off_max = *std::max_element(off, off + nrows * kW);
  if (std::is_same_v<T, float> && off_max + (ow1 - 1) * sW - pW < (int64_t(1) << 24))
    max_scan<V, true>(x, rows, nrows, kW, dW, sW, pW, ow0, ow1, off, vrow, irow);
  else
    max_scan<V, false>(x, rows, nrows, kW, dW, sW, pW, ow0, ow1, off, vrow, irow);
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

#define DITTO_POOL_LEVEL_T(level, V, T, sfx)                                                                       \
  void max_pool_inside_##sfx##_##level(const T* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t dW,     \
                                       int64_t sW, int64_t pW, int64_t ow0, int64_t ow1, T* vrow, int64_t* irow) { \
    pool_impl::max_pool_inside<simd::V>(x, rows, nrows, kW, dW, sW, pW, ow0, ow1, vrow, irow);                     \
  }                                                                                                                \
  void avg_pool_inside_##sfx##_##level(const T* x, const int64_t* rows, int64_t nrows, int64_t kW, int64_t sW,     \
                                       int64_t pW, int64_t ow0, int64_t ow1, T divisor, T* out) {                  \
    pool_impl::avg_pool_inside<simd::V>(x, rows, nrows, kW, sW, pW, ow0, ow1, divisor, out);                       \
  }
#define DITTO_POOL_LEVEL(level, VF, VD)      \
  namespace ditto::cpu::pool_kernels {       \
  DITTO_POOL_LEVEL_T(level, VF, float, f32)  \
  DITTO_POOL_LEVEL_T(level, VD, double, f64) \
  }
