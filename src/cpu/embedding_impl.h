#pragma once
// embedding_bag's sum of one bag, written once over the SIMD abstraction in cpu/simd.h and
// instantiated per level (cpu/embedding.cpp for the scalar level and the dispatcher,
// embedding_avx2.cpp, embedding_avx512.cpp). The bag's row is held in registers, up to eight
// vectors of columns at a time, while the bag's rows stream past; each column is still
// 0 + row_0 (* s_0) + row_1 (* s_1) + ... in index order, one rounding per multiply and per add
// (Note [Bag order] in cpu/embedding.cpp), so every level gives the scalar loop's bits.
#include <cstdint>

#include "cpu/simd.h"

namespace ditto::cpu::embedding_kernels {

// One level's kernel: out[0, D) = the sum over positions p in [begin, end) with idx[p] !=
// padding_idx of w[idx[p] * D + j] (times psw[p] when psw is not null). Rows of positions ahead
// are asked for early (positions below n only).
#define DITTO_BAG_DECLARE_T(level, T, sfx)                                                                          \
  void bag_sum_##sfx##_##level(const T* w, const int64_t* idx, int64_t begin, int64_t end, int64_t n, const T* psw, \
                               int64_t D, int64_t padding_idx, T* out);
#define DITTO_BAG_DECLARE(level) DITTO_BAG_DECLARE_T(level, float, f32) DITTO_BAG_DECLARE_T(level, double, f64)
DITTO_BAG_DECLARE(scalar)
DITTO_BAG_DECLARE(avx2)
DITTO_BAG_DECLARE(avx512)
#undef DITTO_BAG_DECLARE
#undef DITTO_BAG_DECLARE_T

// Rows are read at random: the rows of the positions kPrefetch ahead are asked for early, so their
// cache misses overlap. Changes no arithmetic. On the bench's bag sum (1M positions into a
// 100000 x 64 float table, Zen 5) 8 / 16 / 32 / 48 / 64 / 128 positions measured about 10 / 9.5 /
// 7.5 / 6.5 / 7.5 / 8 ms at one thread: the misses go to L3 or memory, whose latency needs about
// 48 rows of 256 bytes in flight to hide.
inline constexpr int64_t kPrefetch = 48;
template <class T>
inline void prefetch_row(const T* row, int64_t D) {
  for (int64_t j = 0; j < D; j += 64 / int64_t(sizeof(T))) __builtin_prefetch(row + j);
}

}  // namespace ditto::cpu::embedding_kernels

namespace ditto::cpu::embedding_impl {
inline namespace DITTO_SIMD_ISA {

using namespace ::ditto::simd;
using embedding_kernels::kPrefetch;
template <class V>
using S = typename V::Scalar;

// The cache lines of cols columns from p, unrolled (cols known at compile time): one prefetch
// per 64 bytes and one for the last column, which is in a further line when p is not aligned.
// A loop here measured about 20 % slower on the bag sum.
template <class T, int cols>
inline void prefetch_cols(const T* p) {
  constexpr int kLine = 64 / int(sizeof(T));
  for (int j = 0; j < cols; j += kLine) __builtin_prefetch(p + j);
  __builtin_prefetch(p + cols - 1);
}

// Columns [c, c + R * V::N) (or the last `part` < V::N columns when R == 0) of the bag's sum,
// times psw when Weighted. Each pass asks early for its columns of the row kPrefetch positions
// ahead.
template <class V, int R, bool Weighted>
inline void bag_cols(const S<V>* w, const int64_t* idx, int64_t begin, int64_t end, int64_t n, const S<V>* psw,
                     int64_t D, int64_t padding_idx, S<V>* out, int64_t c, int part) {
  constexpr int K = R > 0 ? R : 1;
  V acc[K];
  for (int r = 0; r < K; ++r) acc[r] = V(S<V>(0));
  for (int64_t p = begin; p < end; ++p) {
    const int64_t k = idx[p];
    if (p + kPrefetch < n) {
      const S<V>* ahead = w + idx[p + kPrefetch] * D + c;
      if constexpr (R == 0) {
        __builtin_prefetch(ahead);
        __builtin_prefetch(ahead + part - 1);
      } else {
        prefetch_cols<S<V>, R * V::N>(ahead);
      }
    }
    if (k == padding_idx) continue;
    const S<V>* src = w + k * D + c;
    if constexpr (R == 0) {
      const V x = V::load_partial(src, part);
      if constexpr (Weighted) {
        acc[0] = acc[0] + x * V(psw[p]);
      } else {
        acc[0] = acc[0] + x;
      }
    } else if constexpr (Weighted) {
      const V s(psw[p]);
      for (int r = 0; r < R; ++r) acc[r] = acc[r] + V::load(src + r * V::N) * s;
    } else {
      for (int r = 0; r < R; ++r) acc[r] = acc[r] + V::load(src + r * V::N);
    }
  }
  if constexpr (R == 0) {
    store_partial(out + c, acc[0], part);
  } else {
    for (int r = 0; r < R; ++r) store(out + c + r * V::N, acc[r]);
  }
}

template <class V, bool Weighted>
inline void bag_sum_t(const S<V>* w, const int64_t* idx, int64_t begin, int64_t end, int64_t n, const S<V>* psw,
                      int64_t D, int64_t padding_idx, S<V>* out) {
  constexpr int kMax = 8;  // vectors of columns held at once
  int64_t c = 0;
  for (; c + kMax * V::N <= D; c += kMax * V::N)
    bag_cols<V, kMax, Weighted>(w, idx, begin, end, n, psw, D, padding_idx, out, c, 0);
  const int64_t full = (D - c) / V::N;
  switch (full) {
#define DITTO_BAG_CASE(r) \
  case r: bag_cols<V, r, Weighted>(w, idx, begin, end, n, psw, D, padding_idx, out, c, 0); break;
    DITTO_BAG_CASE(1)
    DITTO_BAG_CASE(2)
    DITTO_BAG_CASE(3)
    DITTO_BAG_CASE(4)
    DITTO_BAG_CASE(5)
    DITTO_BAG_CASE(6)
    DITTO_BAG_CASE(7)
#undef DITTO_BAG_CASE
    default: break;
  }
  c += full * V::N;
  if (c < D) bag_cols<V, 0, Weighted>(w, idx, begin, end, n, psw, D, padding_idx, out, c, int(D - c));
}

template <class V>
inline void bag_sum(const S<V>* w, const int64_t* idx, int64_t begin, int64_t end, int64_t n, const S<V>* psw,
                    int64_t D, int64_t padding_idx, S<V>* out) {
  if (psw)
    bag_sum_t<V, true>(w, idx, begin, end, n, psw, D, padding_idx, out);
  else
    bag_sum_t<V, false>(w, idx, begin, end, n, psw, D, padding_idx, out);
}

}  // namespace DITTO_SIMD_ISA
}  // namespace ditto::cpu::embedding_impl

// The entry points of one level (declared above).
#define DITTO_BAG_LEVEL_T(level, V, T, sfx)                                                                         \
  void bag_sum_##sfx##_##level(const T* w, const int64_t* idx, int64_t begin, int64_t end, int64_t n, const T* psw, \
                               int64_t D, int64_t padding_idx, T* out) {                                            \
    embedding_impl::bag_sum<simd::V>(w, idx, begin, end, n, psw, D, padding_idx, out);                              \
  }
#define DITTO_BAG_LEVEL(level, VF, VD)      \
  namespace ditto::cpu::embedding_kernels { \
  DITTO_BAG_LEVEL_T(level, VF, float, f32)  \
  DITTO_BAG_LEVEL_T(level, VD, double, f64) \
  }
