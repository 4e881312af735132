#pragma once
// The direct convolution's register tiles (cpu/conv.cpp drives them), written once over cpu/simd.h
// and instantiated per level by DITTO_CONV_LEVEL (conv.cpp: scalar, conv_avx2.cpp,
// conv_avx512.cpp). Include only from those files. Each accumulator lane is one chain of Note
// [Convolution accumulation order]: one fma per step, in the Note's order, from 0, so every level
// and tile shape gives the chains' own bits; a NaN result is stored as the canonical quiet NaN
// (x86 FMA forms differ in which NaN operand they propagate).
#include <cstdint>
#include <limits>

#include "cpu/conv_kernels.h"
#include "cpu/simd.h"

namespace ditto::cpu::conv_impl {
inline namespace DITTO_SIMD_ISA {

using namespace ::ditto::simd;

template <class V>
V canonical(V x) {
  return select(x != x, V(std::numeric_limits<typename V::Scalar>::quiet_NaN()), x);
}

// The padded copy's rows: row i of dst (ldd elements) is `lead` zeros, n elements of src's row i
// (rows lds apart) taken `step` apart (src[0], src[step], ...), then zeros to ldd. Moves only: a
// stride-2 phase is two loads and a permute per vector, other strides a gather (offsets of up to
// (W - 1) step must fit 32 bits) or one element at a time.
template <class V>
void pad_rows(const typename V::Scalar* src, int64_t lds, int64_t step, int64_t n, int64_t lead,
              typename V::Scalar* dst, int64_t ldd, int64_t rows) {
  using T = typename V::Scalar;
  constexpr int W = V::N;
  const V zero(T(0));
  auto zeros = [&](T* p, int64_t count) {
    for (; count >= W; count -= W, p += W) store(p, zero);
    if (count > 0) store_partial(p, zero, int(count));
  };
  const bool gather = step > 2 && step <= (int64_t(1) << 31) / W;
  for (int64_t i = 0; i < rows; ++i, src += lds, dst += ldd) {
    zeros(dst, lead);
    T* d = dst + lead;
    int64_t j = 0;
    if (step == 1) {
      for (; j + W <= n; j += W) store(d + j, V::load(src + j));
      if (j < n) store_partial(d + j, V::load_partial(src + j, int(n - j)), int(n - j));
    } else if (step == 2) {
      // plain loads while the pair after the vector's last element exists (masked loads are slow
      // on AMD's cores: 11 % of a strided 1x1 convolution's weight gradient at AVX2)
      for (; j + W < n; j += W) store(d + j, V::load_even_pairs(src + 2 * j));
      if (j + W == n) {  // the last whole vector, whose src[2 n - 1] may not exist
        store(d + j, V::load_even(src + 2 * j, W));
        j += W;
      }
      if (j < n) store_partial(d + j, V::load_even(src + 2 * j, int(n - j)), int(n - j));
    } else if (gather) {
      for (; j + W <= n; j += W) store(d + j, V::load_strided(src + j * step, step));
      if (j < n) store_partial(d + j, V::load_strided_partial(src + j * step, step, int(n - j)), int(n - j));
    } else {
      for (; j < n; ++j) d[j] = src[j * step];
    }
    zeros(d + n, ldd - lead - n);
  }
}

// The forward tile's outputs in general: row r of vector v (acc[r * NV + v]) as bias[r] + chain,
// NaN canonical, by the runs [first[v], first[v + 1]) of `runs`, to y + r * ldy. Out of line, so
// that the tile keeps its accumulators in registers (they come here through memory).
template <class V, int R, int NV>
[[gnu::noinline]] void store_runs(const V* acc, typename V::Scalar* y, int64_t ldy, const conv_kernels::OutRun* runs,
                                  const int* first, int rows, const typename V::Scalar* bias) {
  using T = typename V::Scalar;
  constexpr int W = V::N;
  for (int r = 0; r < R && r < rows; ++r)
    for (int v = 0; v < NV; ++v) {
      if (first[v] == first[v + 1]) continue;
      V s = acc[r * NV + v];
      if (bias) s = V(bias[r]) + s;
      s = canonical(s);
      for (int u = first[v]; u < first[v + 1]; ++u) {
        T* dst = y + r * ldy + runs[u].off;
        if (runs[u].lo == 0 && runs[u].n == W)
          store(dst, s);
        else if (runs[u].lo == 0)
          store_partial(dst, s, runs[u].n);
        else
          store_lanes(dst, s, runs[u].lo, runs[u].n);
      }
    }
}

// Forward: R output channels x NV vectors of output positions. Vector v's lane l reads tap k at
// xb[v] + koff[k] + l (Masked: ANDed with lane l of the mask mk[v] + kj[k] * W, all bits set or
// none, so a tap in the padding reads +0, the padded copy's zero; the element read must exist
// either way); wp[k * R + r] is row r's weight of tap k (rows past `rows` are zero and not
// stored). Row r of vector v goes out as bias[r] + chain (bias null: the chain), NaN canonical, by
// the runs [first[v], first[v + 1]) of `runs`, to y + r * ldy (no runs: the vector is unused).
template <class V, int R, int NV, bool Masked>
void forward_tile(int64_t K, const int64_t* koff, const typename V::Scalar* const* xb,
                  const typename V::Scalar* const* mk, const int32_t* kj, const typename V::Scalar* wp,
                  typename V::Scalar* y, int64_t ldy, const conv_kernels::OutRun* runs, const int* first, int rows,
                  const typename V::Scalar* bias) {
  using T = typename V::Scalar;
  constexpr int W = V::N;
  V acc[R][NV];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = V(T(0));
  const T* x[NV];
  const T* m[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) x[v] = xb[v], m[v] = Masked ? mk[v] : nullptr;
  for (int64_t k = 0; k < K; ++k) {
    const int64_t o = koff[k];
    V b[NV];
    if constexpr (Masked) {
      const int64_t j = int64_t(kj[k]) * W;
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) b[v] = as_float(as_int(V::load(x[v] + o)) & as_int(V::load(m[v] + j)));
    } else {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) b[v] = V::load(x[v] + o);
    }
    const T* a = wp + k * R;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const V av(a[r]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = fma(av, b[v], acc[r][v]);
    }
  }
  // The common case, every vector one whole run: stored straight from the registers.
  bool whole = true;
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v)
    whole = whole && first[v + 1] - first[v] == 1 && runs[first[v]].lo == 0 && runs[first[v]].n == W;
  if (!whole) {
    V out[R * NV];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) out[r * NV + v] = acc[r][v];
    store_runs<V, R, NV>(out, y, ldy, runs, first, rows, bias);
    return;
  }
  T* dst[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) dst[v] = y + runs[first[v]].off;
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    if (r >= rows) break;
    const V br = bias ? V(bias[r]) : V(T(0));
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) store(dst[v] + r * ldy, canonical(bias ? br + acc[r][v] : acc[r][v]));
  }
}

// Weight gradient: R taps x NV vectors of output channels. Step p (of npos, in order) multiplies
// the output gradients gy[p * ldg + o] by each tap's input x[pos[p] + toff[r]]; row r of the
// chains lives at acc[r * lda], continued from there when `load` (else from 0) and stored back
// unrounded (the caller makes NaN canonical once every step is done).
template <class V, int R, int NV>
void weight_tile(int64_t npos, const int64_t* pos, const typename V::Scalar* x, const int64_t* toff,
                 const typename V::Scalar* gy, int64_t ldg, typename V::Scalar* acc_io, int64_t lda, bool load) {
  using T = typename V::Scalar;
  constexpr int W = V::N;
  V acc[R][NV];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = load ? V::load(acc_io + r * lda + v * W) : V(T(0));
  int64_t t[R];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) t[r] = toff[r];
  for (int64_t p = 0; p < npos; ++p) {
    const T* xp = x + pos[p];
    const T* g = gy + p * ldg;
    V b[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) b[v] = V::load(g + v * W);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const V av(xp[t[r]]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = fma(b[v], av, acc[r][v]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) store(acc_io + r * lda + v * W, acc[r][v]);
}

// Input gradient (stride 1): R input channels x `groups` groups of NV vectors of input
// positions. Vector i (= group * NV + v) holds the positions i * W + l of a run of `count`
// positions from gx (at most W of them), whose coordinates are (ih[i * W + l], iw[i * W + l]);
// channel r at gx + r * ldx. For each tap of `taps`, in order: the chain over the group's Og
// output channels of w[tap, o, r] (wk[(tap.j * Og + o) * R + r]) times the output gradient (of
// output channel o at gy + o * ldo + tap.goff + i * W + l), rounded, is added to the lane's sum
// when the lane's output position (ih - tap.dh, iw - tap.dw) lies in [0, oH) x [0, oW); the sums
// start at 0. Each goes out as bias[r] + sum (bias null: the sum), NaN canonical: a NaN term makes
// the sum NaN whatever follows, so making NaN canonical once at the end gives the bits of doing it
// for every term (as col2im's GEMM does).
template <class V, int R, int NV>
void input_tile(int64_t Og, int ntaps, const conv_kernels::InputTap* taps, const typename V::Scalar* wk,
                const typename V::Scalar* gy, int64_t ldo, int64_t oH, int64_t oW, const typename V::Scalar* ih,
                const typename V::Scalar* iw, int64_t groups, typename V::Scalar* gx, int64_t ldx, int64_t count,
                int rows, const typename V::Scalar* bias) {
  using T = typename V::Scalar;
  constexpr int W = V::N;
  for (int64_t grp = 0; grp < groups; ++grp) {
    const int64_t first = grp * NV * W;  // the group's first position in the run
    V sum[R][NV];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) sum[r][v] = V(T(0));
    for (int i = 0; i < ntaps; ++i) {
      const conv_kernels::InputTap& tap = taps[i];
      V acc[R][NV];
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[r][v] = V(T(0));
      const T* g = gy + tap.goff + first;
      const T* w = wk + tap.j * Og * R;
      for (int64_t o = 0; o < Og; ++o, g += ldo, w += R) {
        V b[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) b[v] = V::load(g + v * W);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
          const V av(w[r]);
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) acc[r][v] = fma(av, b[v], acc[r][v]);
        }
      }
      const V h0(T(tap.dh)), h1(T(oH + tap.dh)), w0(T(tap.dw)), w1(T(oW + tap.dw));
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const V h = V::load(ih + first + v * W), c = V::load(iw + first + v * W);
        const auto inside = (h >= h0) & (h < h1) & (c >= w0) & (c < w1);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) sum[r][v] = select(inside, sum[r][v] + acc[r][v], sum[r][v]);
      }
    }
    for (int r = 0; r < R && r < rows; ++r)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const int64_t lanes = count - first - v * W;
        if (lanes <= 0) continue;
        V s = sum[r][v];
        if (bias) s = V(bias[r]) + s;
        s = canonical(s);
        if (lanes >= W)
          store(gx + r * ldx + first + v * W, s);
        else
          store_partial(gx + r * ldx + first + v * W, s, int(lanes));
      }
  }
}

// The GEMM's B panels gathered straight from a padded copy (conv_kernels::PackTaps): for panels of
// w lanes, dst[q * steps + k * w + l] = x[step_off[k] + lane_off[q + l]], lanes past n zero. A lane
// vector's offsets are loaded once for all its steps; consecutive ones (a 1x1 convolution's
// positions) are read with plain loads. Moves only.
template <class V>
void pack_taps(typename V::Scalar* dst, const typename V::Scalar* x, const int32_t* lane_off, const int64_t* step_off,
               int64_t steps, int64_t n, int w) {
  using T = typename V::Scalar;
  constexpr int W = V::N;
  for (int64_t q = 0; q < n; q += w, dst += w * steps) {
    const int64_t lanes = n - q < w ? n - q : w;
    const int32_t* lo = lane_off + q;
    int64_t j = 0;
    for (; j + W <= lanes; j += W) {
      bool run = true;
      for (int i = 1; i < W; ++i) run = run && lo[j + i] == lo[j] + i;
      if (run)
        for (int64_t k = 0; k < steps; ++k) store(dst + k * w + j, V::load(x + step_off[k] + lo[j]));
      else
        for (int64_t k = 0; k < steps; ++k) store(dst + k * w + j, V::load_indexed(x + step_off[k], lo + j));
    }
    for (int64_t k = 0; k < steps && j < w; ++k) {
      T* d = dst + k * w;
      for (int64_t l = j; l < lanes; ++l) d[l] = x[step_off[k] + lo[l]];
      for (int64_t l = lanes; l < w; ++l) d[l] = T(0);
    }
  }
}

}  // namespace DITTO_SIMD_ISA
}  // namespace ditto::cpu::conv_impl

// One level's instantiations: the tile shapes of cpu/conv_kernels.h's Tiles for that level.
#define DITTO_CONV_LEVEL_T(level, V, T, sfx)                                              \
  const conv_kernels::Kernels<T>& conv_kernels_##sfx##_##level() {                        \
    using Tl = conv_kernels::Tiles<simd::V>;                                              \
    static const conv_kernels::Kernels<T> k{                                              \
        simd::V::N,                                                                       \
        Tl::kForwardRows,                                                                 \
        Tl::kForwardVectors,                                                              \
        {&conv_impl::forward_tile<simd::V, Tl::kForwardRows, Tl::kForwardVectors, false>, \
         &conv_impl::forward_tile<simd::V, Tl::kForwardRows, Tl::kForwardVectors, true>}, \
        Tl::kForwardInPlace,                                                              \
        {Tl::weight_rows(1), Tl::weight_rows(2), Tl::weight_rows(3), Tl::weight_rows(4)}, \
        {&conv_impl::weight_tile<simd::V, Tl::weight_rows(1), 1>,                         \
         &conv_impl::weight_tile<simd::V, Tl::weight_rows(2), 2>,                         \
         &conv_impl::weight_tile<simd::V, Tl::weight_rows(3), 3>,                         \
         &conv_impl::weight_tile<simd::V, Tl::weight_rows(4), 4>},                        \
        {Tl::kInputRows0, Tl::kInputRows1},                                               \
        {&conv_impl::input_tile<simd::V, Tl::kInputRows0, conv_kernels::kInputVectors0>,  \
         &conv_impl::input_tile<simd::V, Tl::kInputRows1, conv_kernels::kInputVectors1>}, \
        &conv_impl::pad_rows<simd::V>,                                                    \
        &conv_impl::pack_taps<simd::V>};                                                  \
    return k;                                                                             \
  }
#define DITTO_CONV_LEVEL(level, VF, VD)      \
  namespace ditto::cpu::conv_kernels {       \
  DITTO_CONV_LEVEL_T(level, VF, float, f32)  \
  DITTO_CONV_LEVEL_T(level, VD, double, f64) \
  }
