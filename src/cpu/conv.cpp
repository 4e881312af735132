// Convolution kernels (1-D as 2-D, 2-D and 3-D, and transposed): direct register tiles (cpu/conv_impl.h)
// for 2-D, the GEMM of cpu/gemm.h otherwise (its panels of col gathered from the input for 2-D
// small planes, im2col for the rest).
//
// Note [Convolution accumulation order]
// -------------------------------------
// Shapes: input (N, C, [D,] H, W), weight (O, C/G, [kD,] kH, kW), output (N, O, [oD,] oH, oW);
// k = (c, kd, kh, kw) runs over one group's C/G input channels, p = (od, oh, ow) over output
// positions (2-D convolution: depth 1). Padding is explicit zeros: a padded tap contributes
// fma(w, 0, acc), as on a zero-padded input.
//   forward        out[n, o, p] = bias[o] + acc, acc a sequential fma chain over k ascending
//                  (Note [GEMM accumulation order]; no bias: acc itself).
//   grad weight    gw[o, k] = one sequential fma chain over (n, oh, ow) ascending, from 0.
//   grad input     dcol[k, p] = one sequential fma chain over the group's o ascending; then
//                  gx = 0 + dcol terms added in (c, kd, kh, kw, od, oh, ow) order (col2im).
//   grad bias      the canonical sum over (n, od, oh, ow) (the public sum op).
//   transposed     conv_transpose's forward is grad input's computation on its input (then
//                  + bias[o] per element, as the forward's), its input gradient the forward's
//                  computation and its weight gradient grad weight's, with input and output
//                  swapped: the same chains.
//   NaN            a NaN result (bias included) is the canonical quiet NaN: x86 FMA forms differ in
//                  which NaN operand they pass on, so payloads would differ between levels.
// How: 2-D convolutions run the direct tiles of Note [Direct convolution] below (grad input at
// stride 1), except small planes with many channels, where the tiles would waste lanes; the rest
// the GEMM on col (gathered or written by im2col), with samples taken in blocks whose columns sit
// side by side in one GEMM (samples_per_block). Either way work is split only over whole outputs
// (tiles, samples for the copies, GEMM blocks of C), never inside a chain, so the bits depend
// neither on the thread count nor on the path, tile or block; a sample's forward never reads
// another sample, so it is the same alone or in any batch.
#include "cpu/decl/conv.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "core/allocator.h"
#include "core/parallel.h"
#include "core/transpose.h"
#include "cpu/capability.h"
#include "cpu/conv_impl.h"
#include "cpu/conv_kernels.h"
#include "cpu/gemm.h"
#include "cpu/loops.h"

DITTO_CONV_LEVEL(scalar, F32x1, F64x1)

namespace ditto::cpu {
namespace {

std::atomic<int> forced_input_tile{-1};        // conv_kernels::force_input_tile_for_testing
std::atomic<int> forced_in_place_forward{-1};  // conv_kernels::force_forward_in_place_for_testing

struct Geom {
  int64_t N, C, D, H, W, O, G, Cg, Og, kD, kH, kW, oD, oH, oW, K, P;
  int64_t sD, sH, sW, pD, pH, pW, dD, dH, dW;
  int64_t plane() const { return H * W; }     // one input depth slice
  int64_t oplane() const { return oH * oW; }  // one output depth slice
  int64_t volume() const { return D * H * W; }
};

// in, w, out: 4-D (2-D convolution, depth 1) or 5-D shapes.
Geom geom(const Shape& in, const Shape& w, const Shape& out, const ConvArgs& a) {
  const bool d3 = in.size() == 5;
  auto sp = [&](const Shape& s, int i) { return d3 ? s[static_cast<std::size_t>(2 + i)] : i == 0 ? 1 : s[1 + i]; };
  Geom g;
  g.N = in[0], g.C = in[1], g.D = sp(in, 0), g.H = sp(in, 1), g.W = sp(in, 2);
  g.O = w[0], g.kD = sp(w, 0), g.kH = sp(w, 1), g.kW = sp(w, 2);
  g.oD = sp(out, 0), g.oH = sp(out, 1), g.oW = sp(out, 2);
  g.G = a.groups, g.Cg = g.C / g.G, g.Og = g.O / g.G;
  g.K = g.Cg * g.kD * g.kH * g.kW, g.P = g.oD * g.oH * g.oW;
  g.sD = a.stride[0], g.sH = a.stride[1], g.sW = a.stride[2];
  g.pD = a.padding[0], g.pH = a.padding[1], g.pW = a.padding[2];
  g.dD = a.dilation[0], g.dH = a.dilation[1], g.dW = a.dilation[2];
  return g;
}

// The output columns ow whose tap iw = ow * sW + off lies inside [0, W): [lo, hi).
struct Span {
  int64_t lo, hi;
};
Span valid_span(int64_t off, int64_t sW, int64_t W, int64_t oW) {
  int64_t lo = off >= 0 ? 0 : (-off - 1) / sW + 1;  // ceil(-off / sW), without overflow for a huge sW
  int64_t hi = off > W - 1 ? 0 : (W - 1 - off) / sW + 1;
  hi = hi < oW ? hi : oW;
  lo = lo < hi ? lo : hi;
  return {lo, hi};
}

// std::copy in pieces of at most 1 KiB: glibc copies longer blocks with `rep movsb`, which is
// slow on AMD Zen when source and destination are differently aligned, as im2col's are.
template <class T>
void copy_short(const T* first, const T* last, T* out) {
  constexpr std::ptrdiff_t kPiece = 1024 / sizeof(T);
  while (last - first > kPiece) {
    out = std::copy(first, first + kPiece, out);
    first += kPiece;
  }
  std::copy(first, last, out);
}

// col[k * ldk + p] = the zero-padded input tap of (k, p) for the taps k = (c, kd, kh, kw) of input
// channel c of one sample's group (x points at its first channel). Pure copies: no arithmetic,
// so the layout never changes a bit.
template <class T>
void im2col(const T* x, const Geom& g, int64_t c, T* col, int64_t ldk) {
  for (int64_t kd = 0; kd < g.kD; ++kd)
    for (int64_t kh = 0; kh < g.kH; ++kh)
      for (int64_t kw = 0; kw < g.kW; ++kw) {
        T* slab = col + (((c * g.kD + kd) * g.kH + kh) * g.kW + kw) * ldk;
        const int64_t off = kw * g.dW - g.pW;
        const Span s = valid_span(off, g.sW, g.W, g.oW);
        for (int64_t od = 0; od < g.oD; ++od, slab += g.oplane()) {
          T* dst = slab;
          const int64_t id = od * g.sD - g.pD + kd * g.dD;
          if (id < 0 || id >= g.D) {
            std::fill(dst, dst + g.oplane(), T(0));
            continue;
          }
          const T* xs = x + (c * g.D + id) * g.plane();  // the input slice of this output slice
          if (g.sH == 1 && g.sW == 1 && g.W == g.oW && s.lo < s.hi) {
            // Rows of the output and of the input have the same length, so the inside rows are one
            // block copy; the few border columns it fills with neighbours' values are zeroed after.
            const int64_t a = std::clamp<int64_t>(g.pH - kh * g.dH, 0, g.oH);
            const int64_t b = std::clamp<int64_t>(g.H + g.pH - kh * g.dH, a, g.oH);
            std::fill(dst, dst + a * g.oW, T(0));
            if (a < b) {
              const T* row = xs + (a - g.pH + kh * g.dH) * g.W;  // input row of output row a
              copy_short(row + (s.lo + off), row + ((b - a - 1) * g.W + s.hi + off), dst + a * g.oW + s.lo);
              for (int64_t oh = a; oh < b; ++oh) {
                std::fill(dst + oh * g.oW, dst + oh * g.oW + s.lo, T(0));
                std::fill(dst + oh * g.oW + s.hi, dst + (oh + 1) * g.oW, T(0));
              }
            }
            std::fill(dst + b * g.oW, dst + g.oH * g.oW, T(0));
            continue;
          }
          for (int64_t oh = 0; oh < g.oH; ++oh, dst += g.oW) {
            const int64_t ih = oh * g.sH - g.pH + kh * g.dH;
            if (ih < 0 || ih >= g.H) {
              std::fill(dst, dst + g.oW, T(0));
              continue;
            }
            const T* row = xs + ih * g.W;
            std::fill(dst, dst + s.lo, T(0));
            if (g.sW == 1)
              std::copy(row + s.lo + off, row + s.hi + off, dst + s.lo);
            else
              for (int64_t ow = s.lo; ow < s.hi; ++ow) dst[ow] = row[ow * g.sW + off];
            std::fill(dst + s.hi, dst + g.oW, T(0));
          }
        }
      }
}

// col2im's rows stay scalar: vectorised, a row's loads overlapped the stores of the tap before,
// one element over, and stalled on store forwarding (GCC; other compilers may vectorise them).
#if defined(__GNUC__) && !defined(__clang__)
#define DITTO_SCALAR_LOOPS __attribute__((optimize("no-tree-vectorize")))
#else
#define DITTO_SCALAR_LOOPS
#endif

// Channel c of gx (one sample's group; zeroed here) += dcol, in (kd, kh, kw, od, oh, ow) order:
// each gx element receives its terms in that order (one (kd, kh, kw, od, oh) row touches distinct
// elements).
template <class T>
DITTO_SCALAR_LOOPS void col2im(const T* dcol, int64_t ldk, const Geom& g, int64_t c, T* gx) {
  for (int64_t i = c * g.volume(); i < (c + 1) * g.volume(); ++i) gx[i] = T(0);
  for (int64_t kd = 0; kd < g.kD; ++kd)
    for (int64_t kh = 0; kh < g.kH; ++kh)
      for (int64_t kw = 0; kw < g.kW; ++kw) {
        const T* src = dcol + (((c * g.kD + kd) * g.kH + kh) * g.kW + kw) * ldk;
        const int64_t off = kw * g.dW - g.pW;
        const Span s = valid_span(off, g.sW, g.W, g.oW);
        for (int64_t od = 0; od < g.oD; ++od) {
          const int64_t id = od * g.sD - g.pD + kd * g.dD;
          if (id < 0 || id >= g.D) continue;
          for (int64_t oh = 0; oh < g.oH; ++oh) {
            const int64_t ih = oh * g.sH - g.pH + kh * g.dH;
            if (ih < 0 || ih >= g.H) continue;
            T* row = gx + ((c * g.D + id) * g.H + ih) * g.W;
            const T* sr = src + (od * g.oH + oh) * g.oW;
            if (g.sW == 1)
              for (int64_t ow = s.lo; ow < s.hi; ++ow) row[ow + off] = row[ow + off] + sr[ow];
            else
              for (int64_t ow = s.lo; ow < s.hi; ++ow) row[ow * g.sW + off] = row[ow * g.sW + off] + sr[ow];
          }
        }
      }
}

// Samples are processed in blocks: the block's columns side by side form one (K, S*P) matrix, so
// one GEMM serves S samples (small convolutions would otherwise be many tiny GEMMs that repack the
// weights each time). Every output element is still one chain (Note [Convolution accumulation
// order]) that reads only its own sample, so the block size changes no bit.
// The column matrix is kept within L2 (column_budget elements), except that small planes take
// enough samples for kMinColumns columns within 8 MiB: a 7x7 plane alone would be a GEMM of 49
// columns, two panels of 32 a quarter empty, its weights packed again for each sample.
int64_t samples_per_block(const Geom& g, int64_t column_budget = int64_t(1) << 17) {
  constexpr int64_t kMinColumns = 384, kMaxColumnElems = int64_t(1) << 21;
  const int64_t per_sample = std::max<int64_t>(1, g.K * g.P);
  const int64_t wide = std::min((kMinColumns + g.P - 1) / std::max<int64_t>(g.P, 1), kMaxColumnElems / per_sample);
  return std::clamp<int64_t>(std::max(column_budget / per_sample, wide), 1, std::max<int64_t>(g.N, 1));
}

// col (K, S*P): sample j's columns at col + j * P (row stride L = S * P).
template <class T>
void im2col_block(const T* px, const Geom& g, int64_t gi, int64_t n0, int64_t S, T* col) {
  const int64_t L = S * g.P;
  // items: (sample, input channel) pairs, so that a single sample is split over threads too
  detail::parallel_for(S * g.Cg, g.kD * g.kH * g.kW * g.P, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t j = i / g.Cg, c = i % g.Cg;
      im2col(px + ((n0 + j) * g.C + gi * g.Cg) * g.volume(), g, c, col + j * g.P, L);
    }
  });
}

// The block's output gradients of group gi as an (Og, S*P) matrix: gy itself for one sample,
// else gathered into dy.
template <class T>
const T* gather_grad_out(const T* pgy, const Geom& g, int64_t gi, int64_t n0, int64_t S, T* dy) {
  if (S == 1) return pgy + (n0 * g.O + gi * g.Og) * g.P;
  const int64_t L = S * g.P;
  detail::parallel_for(S * g.Og, g.P, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t j = r / g.Og, o = r % g.Og;
      const T* src = pgy + ((n0 + j) * g.O + gi * g.Og + o) * g.P;
      std::copy(src, src + g.P, dy + o * L + j * g.P);
    }
  });
  return dy;
}

// Runs block(gi, n0, s) over every (group, block of samples). With at least as many blocks as
// threads the blocks run in parallel, each on one thread (its GEMM and copies then stay on it);
// otherwise one after another, each splitting its GEMM and copies over the threads. A block's
// outputs are its own, so the split changes no bit.
void for_sample_blocks(const Geom& g, int64_t S, const std::function<void(int64_t, int64_t, int64_t)>& block) {
  const int64_t per_group = (g.N + S - 1) / S, blocks = g.G * per_group;
  auto run = [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t gi = b / per_group, n0 = (b % per_group) * S;
      block(gi, n0, std::min(S, g.N - n0));
    }
  };
  if (blocks >= detail::num_threads())
    detail::parallel_for(blocks, S * g.Og * g.P * g.K, run);
  else
    run(0, blocks);
}

// ------------------------------------------------------------------ the direct convolution
// Note [Direct convolution]
// -------------------------
// 2-D convolutions (any stride, padding, dilation and groups; grad input at stride 1) skip
// im2col and the GEMM's packing: register tiles (cpu/conv_impl.h) read the input where it lies:
// the forward, where output rows are input rows (stride 1, oW = W), in the input itself, a padded
// tap's lanes masked to +0 (lane_masks below); otherwise in a copy of one sample's group made once:
//   the padded input, split into sH x sW phases of rows and columns:
//   xq[c][ph][q][r][j] = xpad[c][r * sH + ph][j * sW + q] (xpad the zero-padded input), so the
//   tap (kh, kw) of output (oh, ow) is xq[c][(kh*dH) % sH][(kw*dW) % sW][oh + (kh*dH) / sH]
//   [ow + (kw*dW) / sW]: for every tap, consecutive output positions oh * Wq + ow lie at one
//   offset from their base, at any stride, and a padded tap reads a stored 0 (im2col's zero).
//   At sW = 1 a row's right padding is the next row's left padding: rows are Wq = W + pW apart
//   (not W + 2 pW), and a tap past a row's end reads the next row's leading zeros (or, after the
//   last row, the zeroed slack), so the spanning vectors below waste pW lanes a row, not 2 pW.
//   (Where the padding reaches past the kernel, oW > W + pW, rows are oW apart: a tap then reads
//   at most dW (kW - 1) - 1 < pW past a row's end, still into leading zeros.)
// Forward: a tile holds R output channels x NV vectors of output positions, each lane one chain
// over k = (c, kh, kw) ascending from 0 (Note [Convolution accumulation order]), then bias + chain.
// A vector covers up to W consecutive ow of one output row, or, where that wastes fewer lanes,
// W consecutive positions oh * Wq + ow of the phase plane, whose lanes past oW are computed and
// dropped (a stride-2 3x3 convolution to 7x7 outputs: 4 vectors of 16, not 7). Grad weight: a
// tile holds R taps x NV vectors of output channels, each lane one chain over (n, oh, ow)
// ascending, carried in a buffer from one sample block to the next. Grad input (stride 1): a tile
// holds R input channels x NV vectors of one input row; per tap (kh, kw) in order, the chain over
// o ascending, rounded, is added to the lanes whose output position exists. So every tile shape,
// level and thread split gives the Note's bits; tiles own their outputs, and threads take whole
// tiles (or whole samples).
template <class T>
const conv_kernels::Kernels<T>& direct_kernels() {
  using namespace conv_kernels;
  if constexpr (std::is_same_v<T, float>)
    return by_level(&conv_kernels_f32_scalar, &conv_kernels_f32_avx2, &conv_kernels_f32_avx512)();
  else
    return by_level(&conv_kernels_f64_scalar, &conv_kernels_f64_avx2, &conv_kernels_f64_avx512)();
}

// Small planes with many channels go to the GEMM, samples side by side (ColGather), instead of the
// tiles (forward_direct, weight_direct and input_direct each say when): kGemmChannels channels or
// more make the column copy cost at most one move per kGemmChannels fmas; kSmallPlane positions
// a sample bound a small plane. The GEMM gives the tiles' bits (Note [Convolution accumulation
// order]).
constexpr int64_t kGemmChannels = 64, kSmallPlane = 128;

// The phase-split padded input of one sample's group (Note [Direct convolution]).
struct Padded {
  int64_t Hq, Wq, plane, size;  // a phase's rows and width, Hq * Wq, elements with the slack
  int64_t phases;               // sH * sW planes a channel
};
Padded padded(const Geom& g) {
  Padded p;
  p.Hq = (g.H + 2 * g.pH + g.sH - 1) / g.sH;
  p.Wq = g.sW == 1 ? std::max(g.W + g.pW, g.oW) : (g.W + 2 * g.pW + g.sW - 1) / g.sW;
  p.plane = p.Hq * p.Wq;
  p.phases = g.sH * g.sW;
  // a vector's lanes past the last position, and the last row's right padding, stay inside
  p.size = g.Cg * p.phases * p.plane + 64 + g.pW;
  return p;
}

// Whether the direct kernels take this convolution: 2-D, and the padded copy no more than a few
// times the input and output (a huge padding or stride would make it mostly zeros).
bool direct_fits(const Geom& g) {
  if (g.D != 1 || g.kD != 1 || g.oD != 1 || g.P == 0 || g.N == 0 || g.O == 0) return false;
  const double hp = double(g.H) + 2.0 * double(g.pH), wp = double(g.W) + 2.0 * double(g.pW);
  const double copy = double(g.Cg) * (hp + double(g.sH)) * (wp + double(g.sW));
  return copy <= 4.0 * (double(g.Cg) * double(g.H) * double(g.W) + double(g.Og) * double(g.P)) + 65536.0;
}

// Channels [c0, c1) of xq (Padded) from x, the sample's group's first channel; the slack is zeroed
// with the last channel.
template <class T>
void fill_padded(const T* x, const Geom& g, const Padded& pd, int64_t c0, int64_t c1, T* xq) {
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t ph = 0; ph < g.sH; ++ph)
      for (int64_t q = 0; q < g.sW; ++q) {
        T* plane = xq + ((c * g.sH + ph) * g.sW + q) * pd.plane;
        // columns j whose input column iw = j * sW + q - pW lies in [0, W)
        const int64_t jlo = std::min(pd.Wq, g.pW > q ? (g.pW - q + g.sW - 1) / g.sW : 0);
        const int64_t last = g.W - 1 + g.pW - q;  // the last column's j times sW (none when negative)
        const int64_t jhi = last < 0 ? jlo : std::max(jlo, std::min(pd.Wq, last / g.sW + 1));
        // rows [rlo, rhi), whose input row ih = r * sH + ph - pH lies in [0, H), hold the input's
        // rows; the others are zeros
        const int64_t rlo = std::min(pd.Hq, g.pH > ph ? (g.pH - ph + g.sH - 1) / g.sH : 0);
        const int64_t end = g.pH + g.H - ph;  // rows r with r * sH < end
        const int64_t rhi = end <= 0 ? rlo : std::max(rlo, std::min(pd.Hq, (end + g.sH - 1) / g.sH));
        std::fill(plane, plane + rlo * pd.Wq, T(0));
        std::fill(plane + rhi * pd.Wq, plane + pd.plane, T(0));
        if (rhi == rlo) continue;
        const T* src = x + c * g.H * g.W + (rlo * g.sH + ph - g.pH) * g.W + (jlo * g.sW + q - g.pW);
        direct_kernels<T>().pad_rows(src, g.sH * g.W, g.sW, jhi - jlo, jlo, plane + rlo * pd.Wq, pd.Wq, rhi - rlo);
      }
  if (c1 == g.Cg) std::fill(xq + g.Cg * pd.phases * pd.plane, xq + pd.size, T(0));
}

// The offset of tap k = (c, kh, kw) from its output position's base oh * Wq + ow.
std::vector<int64_t> tap_offsets(const Geom& g, const Padded& pd) {
  std::vector<int64_t> off(static_cast<std::size_t>(g.K));
  for (int64_t c = 0; c < g.Cg; ++c)
    for (int64_t kh = 0; kh < g.kH; ++kh)
      for (int64_t kw = 0; kw < g.kW; ++kw)
        off[static_cast<std::size_t>((c * g.kH + kh) * g.kW + kw)] =
            (((c * g.sH + (kh * g.dH) % g.sH) * g.sW + (kw * g.dW) % g.sW) * pd.Hq + (kh * g.dH) / g.sH) * pd.Wq +
            (kw * g.dW) / g.sW;
  return off;
}

// The padded copies of samples [n0, n0 + s) of group gi, pd.size elements apart from xq, filled
// over the threads.
template <class T>
void fill_padded_block(const T* px, const Geom& g, const Padded& pd, int64_t gi, int64_t n0, int64_t s, T* xq) {
  detail::parallel_for(s * g.Cg, pd.plane * pd.phases, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t j = i / g.Cg, c = i % g.Cg;
      fill_padded(px + ((n0 + j) * g.C + gi * g.Cg) * g.volume(), g, pd, c, c + 1, xq + j * pd.size);
    }
  });
  if (g.Cg == 0)
    for (int64_t j = 0; j < s; ++j) fill_padded(px, g, pd, 0, 0, xq + j * pd.size);
}

// Output position p = (oh, ow) of sample j of a block reads its taps at j * size + oh * Wq + ow of
// the block's padded copies (plus tap_offsets): the offsets of the block's s * P positions.
template <class I>
std::vector<I> position_offsets(const Geom& g, const Padded& pd, int64_t s, int64_t size) {
  std::vector<I> off(static_cast<std::size_t>(s * g.P));
  for (int64_t j = 0; j < s; ++j)
    for (int64_t oh = 0; oh < g.oH; ++oh)
      for (int64_t ow = 0; ow < g.oW; ++ow)
        off[static_cast<std::size_t>((j * g.oH + oh) * g.oW + ow)] = static_cast<I>(j * size + oh * pd.Wq + ow);
  return off;
}

// Unpadded and unstrided, a padded copy would have the input's own layout: the input is read in
// place (weight_direct's tiles, ColGather).
bool copy_is_input(const Geom& g) { return g.pH == 0 && g.pW == 0 && g.sH == 1 && g.sW == 1; }

// Where the GEMM route gathers its panels of col (K, s * P) from, instead of im2col writing col
// out: the block's padded copies, or the input itself (copy_is_input). col[k][j * P + p] = source[j * sample +
// position_offsets[p] + tap_offsets[k]]: the values im2col writes, so the same bits. Offsets fit 32 bits.
struct ColGather {
  bool on = false, in_place = false;
  Padded pd{};
  int64_t sample = 0;  // elements from one sample's source to the next's
  // The buffer col_source fills for s samples (none in place).
  int64_t buffer(int64_t s) const { return in_place ? 0 : s * pd.size; }
};
ColGather col_gather(const Geom& g, int64_t S) {
  ColGather c;
  if (!direct_fits(g)) return c;  // (which bounds the padded copy's size first)
  c.pd = padded(g);
  c.in_place = copy_is_input(g);
  c.sample = c.in_place ? g.C * g.volume() : c.pd.size;
  c.on = double(S) * double(c.sample) + double(c.pd.size) < double(int64_t(1) << 30);
  return c;
}
// Samples [n0, n0 + s) of group gi as ColGather's source: the input, or copies filled into buf
// (cg.buffer(s) elements).
template <class T>
const T* col_source(const ColGather& cg, const T* px, const Geom& g, int64_t gi, int64_t n0, int64_t s, T* buf) {
  if (cg.in_place) return px + (n0 * g.C + gi * g.Cg) * g.volume();
  fill_padded_block(px, g, cg.pd, gi, n0, s, buf);
  return buf;
}

// Runs whole(j, buffer, next) for j in [0, jobs) (a (sample, group) pair each) with a thread-local
// buffer of `elems` when there are jobs for every thread (next: whether this thread runs job j + 1
// after j), else calls split(j, buffer) one job at a time (split then splits the job's work over
// the threads).
template <class T, class Whole, class Split>
void for_jobs(int64_t jobs, int64_t elems, int64_t cost, Whole whole, Split split) {
  if (jobs >= detail::num_threads()) {
    detail::parallel_for(jobs, cost, [&](int64_t j0, int64_t j1) {
      detail::Scratch<T> buf(static_cast<std::size_t>(elems));
      for (int64_t j = j0; j < j1; ++j) whole(j, buf.data(), j + 1 < j1);
    });
  } else {
    detail::Scratch<T> buf(static_cast<std::size_t>(elems));
    for (int64_t j = 0; j < jobs; ++j) split(j, buf.data());
  }
}

// Elements [b, e) of src's n, copied to dst + lo + b, with lo zeros before them (when b = 0) and
// hi after them (when e = n): the copy of an input whose reads run up to lo before it and hi after.
template <class T>
void copy_guarded(const T* src, int64_t n, int64_t lo, int64_t hi, int64_t b, int64_t e, T* dst) {
  if (b == 0) std::fill(dst, dst + lo, T(0));
  std::copy(src + b, src + e, dst + lo + b);
  if (e == n) std::fill(dst + lo + n, dst + lo + n + hi, T(0));
}

// The forward reads the input itself, not a padded copy, where output rows are input rows (stride
// 1, oW = W: "same" padding, and 1x1): output position p = oh * W + ow reads tap (kh, kw) at input
// position p + (kh dH - pH) W + (kw dW - pW), a constant offset per tap, so a vector of W
// consecutive positions reads W consecutive elements. Its lanes whose tap falls in the padding (or
// whose position is past the plane) are masked: they read +0, the padded copy's stored zero, so
// the chains are the same. One lane mask per (vector, spatial tap); vectors whose rows need no
// top or bottom padding share them by the column their first lane starts at. Without padding no
// output's tap falls outside the input (lanes past the plane are computed and not stored), so the
// tiles read in place without masks.
struct LaneMasks {
  std::vector<int32_t> set;    // per vector: its masks are bits[set * KK .. + KK)
  std::vector<uint32_t> bits;  // per (set, spatial tap j = kh * kW + kw): lane l's bit
};
LaneMasks lane_masks(const Geom& g, int W, int64_t nvec) {
  const int64_t KK = g.kH * g.kW;
  LaneMasks m;
  m.set.resize(static_cast<std::size_t>(nvec));
  auto add_set = [&](int64_t p0) {
    for (int64_t kh = 0; kh < g.kH; ++kh)
      for (int64_t kw = 0; kw < g.kW; ++kw) {
        uint32_t b = 0;
        for (int l = 0; l < W && p0 + l < g.P; ++l) {
          const int64_t ih = (p0 + l) / g.oW + kh * g.dH - g.pH, iw = (p0 + l) % g.oW + kw * g.dW - g.pW;
          if (ih >= 0 && ih < g.H && iw >= 0 && iw < g.W) b |= uint32_t(1) << l;
        }
        m.bits.push_back(b);
      }
    return static_cast<int32_t>(m.bits.size() / static_cast<std::size_t>(KK) - 1);
  };
  // rows whose every tap row lies inside the input
  const int64_t row_lo = g.pH, row_hi = g.H + g.pH - (g.kH - 1) * g.dH;
  std::vector<int32_t> by_column(static_cast<std::size_t>(g.oW), -1);
  for (int64_t i = 0; i < nvec; ++i) {
    const int64_t p0 = i * W, p1 = p0 + W;  // [p0, p1)
    int32_t& s = m.set[static_cast<std::size_t>(i)];
    if (p1 <= g.P && p0 / g.oW >= row_lo && (p1 - 1) / g.oW < row_hi) {
      int32_t& c = by_column[static_cast<std::size_t>(p0 % g.oW)];
      s = c = c >= 0 ? c : add_set(p0);
    } else {
      s = add_set(p0);
    }
  }
  return m;
}

template <class T>
bool forward_direct(const Geom& g, const T* px, const T* pw, const T* pb, T* py) {
  if (!direct_fits(g)) return false;
  const conv_kernels::Kernels<T>& kn = direct_kernels<T>();
  const int W = kn.lanes, R = kn.forward_rows, NV = kn.forward_vectors;
  const int forced = forced_in_place_forward.load(std::memory_order_relaxed);
  // In place where there is no padding (no tap of an output lane is ever in the padding: no masks)
  // at every level; with padding (masked) at AVX-512 on AMD's cores only: Zen 4 and 5 run the
  // masks' ANDs on pipes the FMAs leave free, where Intel's run AVX-512 ANDs on the FMA ports (0
  // and 5), 3 issue slots in 27 (not measured there: they keep the padded copy, which was).
  const bool unpadded = g.pH == 0 && g.pW == 0;
  const bool in_place = g.sH == 1 && g.sW == 1 && g.oW == g.W &&
                        (forced >= 0 ? forced == 1 : unpadded || (kn.forward_in_place && cpu_is_amd()));
  const bool masked = in_place && !unpadded;
  const Padded pd = padded(g);
  // tap k = (c, kh, kw)'s offset from its output position's base (in place: in the input), and
  // (masked) its spatial tap kh * kW + kw, which picks its lane masks
  std::vector<int64_t> koff = in_place ? std::vector<int64_t>() : tap_offsets(g, pd);
  std::vector<int32_t> kj;
  if (in_place)
    for (int64_t c = 0; c < g.Cg; ++c)
      for (int64_t kh = 0; kh < g.kH; ++kh)
        for (int64_t kw = 0; kw < g.kW; ++kw) {
          koff.push_back(c * g.plane() + (kh * g.dH - g.pH) * g.W + (kw * g.dW - g.pW));
          if (masked) kj.push_back(static_cast<int32_t>(kh * g.kW + kw));
        }
  // The output's vectors: each one's base offset in the input (in place) or xq, and the runs of its
  // lanes that are outputs (vector i's runs are [first[i], first[i + 1]); vectors past the last,
  // up to whole groups of NV, have none). In place, a vector covers W consecutive positions of the
  // output plane. Else it covers up to W consecutive ow of one output row, or, spanning, W
  // consecutive positions oh * Wq + ow of the phase plane, whose lanes at ow >= oW are dropped.
  const int64_t per_row = (g.oW + W - 1) / W * W * g.oH;
  const int64_t span_end = (g.oH - 1) * pd.Wq + g.oW;
  const bool spanning = (span_end + W - 1) / W * W < per_row;
  std::vector<int64_t> vx;
  std::vector<conv_kernels::OutRun> runs;
  std::vector<int> first;
  auto add_run = [&](int64_t off, int lo, int n) {  // joined to the vector's last run where contiguous
    const std::size_t i0 = static_cast<std::size_t>(first.back());
    if (runs.size() > i0 && runs.back().off + runs.back().n == off && runs.back().lo + runs.back().n == lo)
      runs.back().n += n;
    else
      runs.push_back({off, lo, n});
  };
  if (in_place) {
    for (int64_t p = 0; p < g.P; p += W) {
      vx.push_back(p);
      first.push_back(static_cast<int>(runs.size()));
      runs.push_back({p, 0, static_cast<int>(std::min<int64_t>(W, g.P - p))});
    }
  } else if (spanning) {
    for (int64_t p = 0; p < span_end; p += W) {
      vx.push_back(p);
      first.push_back(static_cast<int>(runs.size()));
      const int lanes = static_cast<int>(std::min<int64_t>(W, span_end - p));
      int64_t oh = p / pd.Wq, ow = p % pd.Wq;
      for (int l = 0; l < lanes; ow = 0, ++oh) {
        const int run = static_cast<int>(std::min<int64_t>(lanes - l, pd.Wq - ow));
        const int out = static_cast<int>(std::clamp<int64_t>(g.oW - ow, 0, run));
        if (out > 0) add_run(oh * g.oW + ow, l, out);
        l += run;
      }
    }
  } else {
    for (int64_t oh = 0; oh < g.oH; ++oh)
      for (int64_t ow = 0; ow < g.oW; ow += W) {
        vx.push_back(oh * pd.Wq + ow);
        first.push_back(static_cast<int>(runs.size()));
        runs.push_back({oh * g.oW + ow, 0, static_cast<int>(std::min<int64_t>(W, g.oW - ow))});
      }
  }
  const int64_t nvec = static_cast<int64_t>(vx.size()), ngroups = (nvec + NV - 1) / NV;
  // Small planes (7x7: 49 outputs in 2 groups of 3 vectors of 16 lanes) waste lanes that the
  // GEMM, samples side by side, does not: the GEMM takes those where a quarter of the lanes or
  // more would be wasted. Measured on (8, 512, 7, 7) 3x3 to 512 at one thread: 20.5 (im2col; 18.5
  // gathering col) against 33 ms.
  if (forced < 0 && g.Og >= kGemmChannels && 4 * g.P < 3 * ngroups * NV * W) return false;
  const int64_t nob = (g.Og + R - 1) / R;
  // weights packed per block of R output channels: wpk[k * R + r], rows past Og zero
  detail::Scratch<T> wpk(static_cast<std::size_t>(g.G * nob * g.K * R));
  for (int64_t gi = 0; gi < g.G; ++gi)
    for (int64_t ob = 0; ob < nob; ++ob)
      for (int64_t k = 0; k < g.K; ++k)
        for (int64_t r = 0; r < R; ++r) {
          const int64_t o = ob * R + r;
          wpk.data()[((gi * nob + ob) * g.K + k) * R + r] = o < g.Og ? pw[(gi * g.Og + o) * g.K + k] : T(0);
        }
  first.resize(static_cast<std::size_t>(ngroups * NV + 1), static_cast<int>(runs.size()));
  // Masked: the lane masks (W lanes of all bits set or none, per set and spatial tap). In place:
  // the guard around a job's input: a masked-off lane (or one past the plane) still reads its
  // element, up to guard_lo before the job's input and guard_hi after it; a job whose reads could
  // fall outside the whole input (the first and the last, or more on tiny planes) reads a copy
  // with zeros around it.
  const int64_t KK = g.kH * g.kW;
  LaneMasks lm;
  if (masked) lm = lane_masks(g, W, nvec);
  detail::Scratch<T> masks(masked ? lm.bits.size() * static_cast<std::size_t>(W) : 0);
  for (std::size_t i = 0; i < (masked ? lm.bits.size() : 0); ++i)
    for (int l = 0; l < W; ++l) {
      using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
      const U bits = (lm.bits[i] >> l & 1u) ? ~U(0) : U(0);
      std::memcpy(masks.data() + i * static_cast<std::size_t>(W) + static_cast<std::size_t>(l), &bits, sizeof(T));
    }
  int64_t guard_lo = 0, guard_hi = 0;  // elements read before the job's input, and after it
  if (in_place)
    for (const int64_t o : koff) {
      guard_lo = std::max(guard_lo, -o);
      guard_hi = std::max(guard_hi, o + nvec * W - g.Cg * g.volume());
    }
  guard_lo = (guard_lo + 15) / 16 * 16;  // the copy keeps a 64-byte-aligned input aligned
  const int64_t guarded = guard_lo + g.Cg * g.volume() + guard_hi;
  // The job's input as its tiles read it: x itself or a guarded copy in buf (in place); the padded
  // copy in buf otherwise.
  auto job_source = [&](int64_t j, const T* x, T* buf, int64_t c0, int64_t c1) -> const T* {
    if (!in_place) {
      fill_padded(x, g, pd, c0, c1, buf);
      return buf;
    }
    const int64_t job = g.Cg * g.volume();  // jobs lie job elements apart in the input
    if (j * job >= guard_lo && (g.N * g.G - 1 - j) * job >= guard_hi) return x;
    copy_guarded(x, job, guard_lo, guard_hi, c0 * g.volume(), c1 * g.volume(), buf);
    return buf + guard_lo;
  };

  // tile (ob, vector group vg) of sample n, group gi, from xq: its input (in place) or its padded copy
  auto tile = [&](const T* xq, int64_t n, int64_t gi, int64_t ob, int64_t vg) {
    const int rows = static_cast<int>(std::min<int64_t>(R, g.Og - ob * R));
    const T* xb[4];
    const T* mk[4] = {};
    for (int v = 0; v < NV; ++v) {
      const int64_t i = vg * NV + v < nvec ? vg * NV + v : 0;  // an unused vector repeats the first
      xb[v] = xq + vx[static_cast<std::size_t>(i)];
      if (masked) mk[v] = masks.data() + static_cast<int64_t>(lm.set[static_cast<std::size_t>(i)]) * KK * W;
    }
    kn.forward[masked](g.K, koff.data(), xb, mk, kj.data(), wpk.data() + (gi * nob + ob) * g.K * R,
                       py + (n * g.O + gi * g.Og + ob * R) * g.P, g.P, runs.data(), first.data() + vg * NV, rows,
                       pb ? pb + gi * g.Og + ob * R : nullptr);
  };
  // Tiles in chunks of kChunk vector groups, each chunk through every block of output channels:
  // the chunk's input (about NV W sH sW Cg elements a group) stays in L2 while the blocks' weights
  // stream from L2, and each output plane is written in runs of kChunk NV W elements. Up to 16
  // groups whose input fits 256 KiB: 4 groups measured 5 % slower on the 7x7 stride-2 first layer
  // (3 channels), 16 groups 3 % slower on the 1x1 256-channel convolution (768 KiB of input).
  const double group_bytes = double(NV * W) * double(g.sH) * double(g.sW) * double(g.Cg) * double(sizeof(T));
  const int64_t kChunk = std::clamp<int64_t>(int64_t(262144.0 / std::max(group_bytes, 1.0)), 1, 16);  // 256 KiB
  const int64_t nchunks = (ngroups + kChunk - 1) / kChunk;
  auto all_tiles = [&](const T* xq, int64_t n, int64_t gi, int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t ch = t / nob, ob = t % nob;
      for (int64_t vg = ch * kChunk; vg < std::min(ngroups, (ch + 1) * kChunk); ++vg) tile(xq, n, gi, ob, vg);
    }
  };
  const int64_t sample_fmas = g.Og * g.P * g.K, tiles = nob * nchunks;
  const int64_t job_bytes = g.Cg * g.volume() * int64_t(sizeof(T));
  auto job_input = [&](int64_t j) { return px + (j / g.G * g.C + j % g.G * g.Cg) * g.volume(); };  // j = (n, gi)
  for_jobs<T>(
      g.N * g.G, in_place ? guarded : pd.size, sample_fmas,
      [&](int64_t j, T* buf, bool mine) {
        const int64_t n = j / g.G, gi = j % g.G;
        const T* xq = job_source(j, job_input(j), buf, 0, g.Cg);
        // The next job's input, when this thread runs it, is fetched into L2 a slice per tile
        // block while this job computes (its first reads otherwise wait on memory: 5 % of a small
        // convolution's time, measured); another thread's next job would only crowd this L2.
        const char* next = mine ? reinterpret_cast<const char*>(job_input(j + 1)) : nullptr;
        for (int64_t t = 0; t < tiles; ++t) {
          if (next)
            for (int64_t b = t * job_bytes / tiles / 64 * 64; b < (t + 1) * job_bytes / tiles; b += 64)
              __builtin_prefetch(next + b, 0, 2);
          all_tiles(xq, n, gi, t, t + 1);
        }
      },
      [&](int64_t j, T* buf) {
        const int64_t n = j / g.G, gi = j % g.G;
        const T* x = job_input(j);
        const T* xq = nullptr;
        detail::parallel_for(g.Cg, pd.phases * pd.plane, [&](int64_t c0, int64_t c1) {
          const T* src = job_source(j, x, buf, c0, c1);
          if (c0 == 0) xq = src;
        });
        if (g.Cg == 0) xq = job_source(j, x, buf, 0, 0);
        detail::parallel_for(tiles, sample_fmas / tiles + 1,
                             [&](int64_t t0, int64_t t1) { all_tiles(xq, n, gi, t0, t1); });
      });
  return true;
}

template <class T>
bool weight_direct(const Geom& g, const T* px, const T* pgy, T* pgw) {
  if (!direct_fits(g)) return false;
  // On small planes a tile's chains are loaded and stored again every few dozen steps (its
  // position chunks end with the sample), so the GEMM takes them: 7x7 planes 1.4-1.9x faster,
  // 14x14 ones within 5 % either way.
  if (g.P < kSmallPlane && g.Og >= kGemmChannels) return false;
  const conv_kernels::Kernels<T>& kn = direct_kernels<T>();
  const int W = kn.lanes;
  // Vectors of output channels per tile (1 to 4, R = 24 / NV taps): a step costs about the larger
  // of its fmas (2 a cycle) and its loads (R broadcasts, a cycle each, and NV vectors, measured at
  // about half a cycle each); the choice costs the fewest cycles for the whole product.
  auto cycles = [&](int nv) {
    const int64_t r = kn.weight_rows[nv - 1];
    return double((g.Og + nv * W - 1) / (nv * W) * ((g.K + r - 1) / r)) *
           std::max(double(r * nv) / 2.0, double(r) + double(nv) / 2.0);
  };
  int NV = 4;
  for (int nv : {3, 2, 1})
    if (cycles(nv) < cycles(NV)) NV = nv;
  const int R = kn.weight_rows[NV - 1];
  const auto fn = kn.weight[NV - 1];
  const int64_t cols = NV * W, otiles = (g.Og + cols - 1) / cols, Ogp = otiles * cols;
  const int64_t ktiles = (g.K + R - 1) / R, Kp = ktiles * R;
  const Padded pd = padded(g);
  std::vector<int64_t> toff = tap_offsets(g, pd);
  toff.resize(static_cast<std::size_t>(Kp), 0);  // rows past K read a real element; never stored
  const std::vector<int64_t> pos = position_offsets<int64_t>(g, pd, 1, 0);
  // In place (copy_is_input), the tiles read only real positions, element by element: no copy.
  // Samples per block: their padded inputs within about 4 MiB.
  const bool in_place = copy_is_input(g);
  const int64_t S = in_place ? g.N : std::clamp<int64_t>((int64_t(1) << 20) / std::max<int64_t>(pd.size, 1), 1, g.N);
  detail::Scratch<T> xq(static_cast<std::size_t>(in_place ? 0 : S * pd.size)), acc(static_cast<std::size_t>(Kp * Ogp));
  // Each thread takes one contiguous range of tiles and walks the positions in chunks of about
  // 64 KiB of gradients: it transposes the chunk's gradients itself (gyt[p * Ogp + o], o past Og
  // zero) into a buffer that stays in L1/L2, then runs every tile of its range over the chunk;
  // the chains go on from chunk to chunk through acc. So the gradients are read from memory once
  // per thread and the transposed copy is never written back (one shared copy, or more ranges
  // than threads, each streaming it, measured up to 1.5x slower at two threads).
  const int64_t chunk = std::max<int64_t>(64, 16384 / Ogp);
  const bool shuffles = std::is_same_v<T, float> && cpu_capability() != CpuCapability::Scalar;
  auto transpose_chunk = [&](const T* src, int64_t p0, int64_t p1, T* dst) {  // moves only
    if (shuffles)
      detail::transpose4_avx2(reinterpret_cast<const char*>(src + p0), g.P * 4, reinterpret_cast<char*>(dst), Ogp * 4,
                              p1 - p0, g.Og);
    else
      for (int64_t p = p0; p < p1; ++p)
        for (int64_t o = 0; o < g.Og; ++o) dst[(p - p0) * Ogp + o] = src[o * g.P + p];
    for (int64_t p = p0; p < p1; ++p) std::fill(dst + (p - p0) * Ogp + g.Og, dst + (p - p0 + 1) * Ogp, T(0));
  };
  const int64_t tiles = ktiles * otiles, parts = std::min<int64_t>(tiles, detail::num_threads());
  for (int64_t gi = 0; gi < g.G; ++gi) {
    for (int64_t n0 = 0; n0 < g.N; n0 += S) {
      const int64_t s = std::min(S, g.N - n0);
      if (!in_place) fill_padded_block(px, g, pd, gi, n0, s, xq.data());
      auto sample_x = [&](int64_t j) {
        return in_place ? px + ((n0 + j) * g.C + gi * g.Cg) * g.volume() : xq.data() + j * pd.size;
      };
      detail::parallel_for(parts, s * g.P * R * cols * (tiles / parts), [&](int64_t q0, int64_t q1) {
        const int64_t t0 = q0 * tiles / parts, t1 = q1 * tiles / parts;
        detail::Scratch<T> gyt(static_cast<std::size_t>(chunk * Ogp));
        for (int64_t j = 0; j < s; ++j)
          for (int64_t p0 = 0; p0 < g.P; p0 += chunk) {
            const int64_t p1 = std::min(g.P, p0 + chunk);
            transpose_chunk(pgy + ((n0 + j) * g.O + gi * g.Og) * g.P, p0, p1, gyt.data());
            // The next chunk's gradients (Og rows of up to chunk positions, far apart: too many
            // streams for the hardware prefetcher) are fetched into L2 a few rows per tile while
            // these tiles compute.
            const int64_t nj = p1 < g.P ? j : j + 1, np0 = p1 < g.P ? p1 : 0;
            const int64_t nbytes = (std::min(g.P, np0 + chunk) - np0) * int64_t(sizeof(T));
            const char* next =
                nj < s ? reinterpret_cast<const char*>(pgy + ((n0 + nj) * g.O + gi * g.Og) * g.P + np0) : nullptr;
            for (int64_t t = t0; t < t1; ++t) {
              if (next)
                for (int64_t o = (t - t0) * g.Og / (t1 - t0); o < (t - t0 + 1) * g.Og / (t1 - t0); ++o)
                  for (int64_t b = 0; b < nbytes; b += 64)
                    __builtin_prefetch(next + o * g.P * int64_t(sizeof(T)) + b, 0, 2);
              const int64_t kt = t / otiles, ot = t % otiles;
              fn(p1 - p0, pos.data() + p0, sample_x(j), toff.data() + kt * R, gyt.data() + ot * cols, Ogp,
                 acc.data() + kt * R * Ogp + ot * cols, Ogp, n0 + j > 0 || p0 > 0);
            }
          }
      });
    }
    const T qnan = std::numeric_limits<T>::quiet_NaN();
    for (int64_t o = 0; o < g.Og; ++o)
      for (int64_t k = 0; k < g.K; ++k) {
        const T v = acc.data()[k * Ogp + o];
        pgw[(gi * g.Og + o) * g.K + k] = v != v ? qnan : v;
      }
  }
  return true;
}

template <class T>
bool input_direct(const Geom& g, const T* pw, const T* pgy, T* pgx, const T* pb) {
  if (!direct_fits(g) || g.sH != 1 || g.sW != 1) return false;
  // Small planes: the GEMM and col2im were 1.14-1.22x faster on 7x7 planes (512 channels), the
  // tiles 4-7 % faster on 14x14.
  if (g.H * g.W < kSmallPlane && g.Cg >= kGemmChannels) return false;
  // lane coordinates are compared as T: exact below 2^24
  if (std::max({g.H, g.W, g.oH, g.oW}) + std::max({g.pH, g.pW, (g.kH - 1) * g.dH, (g.kW - 1) * g.dW}) > (1 << 22))
    return false;
  const conv_kernels::Kernels<T>& kn = direct_kernels<T>();
  const int W = kn.lanes;
  // Vectors: W consecutive input columns of one row, or, when output rows are as wide as input
  // rows (oW == W: a "same" convolution) and that computes fewer lanes, W consecutive positions
  // ih * W + iw of the whole plane, across rows; NV of them side by side in a tile. Runs of
  // groups, one kernel call each: a row's groups, or (spanning) 8 groups of the plane.
  struct Layout {
    int variant, NV, R;
    bool spanning;
    int64_t runs, run_len;
    double work;  // channel rows x lanes computed, per sample and group
  };
  const int64_t nch = (g.W + W - 1) / W;
  auto layout = [&](int variant) {
    Layout l;
    l.variant = variant, l.NV = conv_kernels::kInputVectors[variant], l.R = kn.input_rows[variant];
    const int64_t gw = l.NV * W, row_groups = (nch + l.NV - 1) / l.NV;
    // spanning on a tie too: it reads the output gradient in place (below)
    l.spanning = g.oW == g.W && (g.H * g.W + gw - 1) / gw <= g.H * row_groups;
    const int64_t nvec = l.spanning ? (g.H * g.W + W - 1) / W : g.H * nch;
    constexpr int64_t kRunGroups = 8;
    const int64_t span_groups = (nvec + l.NV - 1) / l.NV;
    const int64_t run_groups = l.spanning ? std::min(kRunGroups, span_groups) : row_groups;
    l.runs = l.spanning ? (span_groups + run_groups - 1) / run_groups : g.H;
    l.run_len = run_groups * gw;                                // positions a run's vectors cover
    const int64_t last = g.H * g.W - (l.runs - 1) * l.run_len;  // spanning: the last run's positions
    const double lanes = l.spanning ? double(l.runs - 1) * double(l.run_len) + double((last + gw - 1) / gw * gw)
                                    : double(g.H) * double(l.run_len);
    l.work = double((g.Cg + l.R - 1) / l.R * l.R) * lanes;
    return l;
  };
  const Layout lay = [&] {  // the shape with less work; the first on a tie
    const int forced = forced_input_tile.load(std::memory_order_relaxed);
    if (forced >= 0) return layout(forced);
    const Layout a = layout(0), b = layout(1);
    return b.work < a.work ? b : a;
  }();
  const int NV = lay.NV, R = lay.R;
  const auto input_tile = kn.input[lay.variant];
  const bool spanning = lay.spanning;
  const int64_t kHW = g.kH * g.kW, ncb = (g.Cg + R - 1) / R;
  const int64_t runs = lay.runs, run_len = lay.run_len;
  // weights packed per block of R input channels: wk[(j * Og + o) * R + r], rows past Cg zero
  detail::Scratch<T> wk(static_cast<std::size_t>(g.G * ncb * kHW * g.Og * R));
  for (int64_t gi = 0; gi < g.G; ++gi)
    for (int64_t cb = 0; cb < ncb; ++cb)
      for (int64_t j = 0; j < kHW; ++j)
        for (int64_t o = 0; o < g.Og; ++o)
          for (int64_t r = 0; r < R; ++r) {
            const int64_t c = cb * R + r;
            wk.data()[(((gi * ncb + cb) * kHW + j) * g.Og + o) * R + r] =
                c < g.Cg ? pw[((gi * g.Og + o) * g.Cg + c) * kHW + j] : T(0);
          }
  // Where the tiles read the output gradient: lanes whose output position does not exist are
  // computed and dropped, so a lane may read any element, as long as it exists. Spanning, a
  // vector's lanes are positions of the gradient's own plane (oW = W), so the tiles can read gy in
  // place: up to guard_lo elements before a channel's plane and guard_hi after it, inside the
  // gradient except near its ends. A sample is read from a copy instead when its reads could leave
  // the gradient (the first and the last, or more on tiny planes), or every sample is when gy's
  // planes lie a multiple of 4 KiB apart (or nearly): a tile reads Og planes side by side, and
  // those would share a few L1 sets (the 32x32 planes of 4 KiB ran 2.5x slower at AVX2). Copies,
  // S samples at a time, lie cplane apart: spanning, each plane between guards of zeros; per-row
  // runs, rows of wg with column ow at lpad + ow.
  const int64_t lpad = std::max<int64_t>(0, (g.kW - 1) * g.dW - g.pW);
  const int64_t guard_lo = spanning ? std::max<int64_t>(0, (g.kH - 1) * g.dH - g.pH) * g.oW + lpad : 0;
  const int64_t guard_hi = spanning ? std::max<int64_t>(0, runs * run_len + g.pH * g.oW + g.pW - g.P) : 0;
  const int64_t wg = lpad + std::max<int64_t>(g.oW, run_len + g.pW);
  const int64_t rows_read = std::max(g.oH, g.H + g.pH + 1);  // rows a lane may read
  const int64_t line = 64 / int64_t(sizeof(T));
  auto crowded = [&](int64_t stride) {  // Og planes stride elements apart fall in fewer than 16 L1 sets
    const int64_t lines = stride / line % 64;
    return 64 / std::gcd<int64_t>(lines, 64) < std::min<int64_t>(g.Og, 16);
  };
  int64_t cplane = spanning ? guard_lo + g.P + guard_hi : rows_read * wg + run_len + g.pW + 64;
  while (crowded(cplane)) cplane += line;
  const bool in_place = spanning && !crowded(g.P);
  auto copied = [&](int64_t n) {
    return !in_place || n * g.O * g.P < guard_lo || (g.N - 1 - n) * g.O * g.P < guard_hi;
  };
  const int64_t S = in_place ? g.N : std::clamp<int64_t>((int64_t(1) << 20) / (g.O * cplane), 1, g.N);
  // a copied sample's slot in the buffer: in place, the few copied ones in turn; else n - n0
  std::vector<int64_t> slot(static_cast<std::size_t>(g.N));
  int64_t slots = 0;
  for (int64_t n = 0; n < g.N; ++n) slot[static_cast<std::size_t>(n)] = in_place ? (copied(n) ? slots++ : -1) : n % S;
  detail::Scratch<T> gyp(static_cast<std::size_t>((in_place ? slots : S) * g.O * cplane));
  // every run's lane coordinates (run_len of each)
  std::vector<T> lane_ih(static_cast<std::size_t>(runs * run_len)), lane_iw(lane_ih.size());
  for (int64_t u = 0; u < runs; ++u)
    for (int64_t l = 0; l < run_len; ++l) {
      const std::size_t i = static_cast<std::size_t>(u * run_len + l);
      const int64_t p = u * run_len + l;
      lane_ih[i] = T(spanning ? p / g.W : u);
      lane_iw[i] = T(spanning ? p % g.W : l);
    }
  for (int64_t n0 = 0; n0 < g.N; n0 += S) {
    const int64_t s = std::min(S, g.N - n0);
    detail::parallel_for(s * g.O, cplane, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const int64_t n = n0 + i / g.O, o = i % g.O;
        if (!copied(n)) continue;
        T* dst = gyp.data() + (slot[static_cast<std::size_t>(n)] * g.O + o) * cplane;
        const T* src = pgy + (n * g.O + o) * g.P;
        if (spanning) {
          copy_guarded(src, g.P, guard_lo, cplane - guard_lo - g.P, 0, g.P, dst);
          continue;
        }
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          T* row = dst + oh * wg;
          std::fill(row, row + lpad, T(0));
          std::copy(src + oh * g.oW, src + (oh + 1) * g.oW, row + lpad);
          std::fill(row + lpad + g.oW, row + wg, T(0));
        }
        std::fill(dst + g.oH * wg, dst + cplane, T(0));
      }
    });
    const int64_t tiles = s * g.G * ncb * runs;
    detail::parallel_for(tiles, R * run_len * kHW * g.Og, [&](int64_t t0, int64_t t1) {
      std::vector<conv_kernels::InputTap> taps(static_cast<std::size_t>(kHW));
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t u = t % runs, cb = t / runs % ncb, gi = t / (runs * ncb) % g.G, n = n0 + t / (runs * ncb * g.G);
        // the run's positions and rows; a tap whose output row or column misses every lane's is skipped
        const int64_t p0 = spanning ? u * run_len : u * g.W;
        const int64_t count = spanning ? std::min(run_len, g.H * g.W - p0) : g.W;
        const int64_t ih_lo = spanning ? p0 / g.W : u, ih_hi = spanning ? (p0 + count - 1) / g.W : u;
        int ntaps = 0;
        for (int64_t kh = 0; kh < g.kH; ++kh) {
          const int64_t dh = kh * g.dH - g.pH;
          if (ih_hi - dh < 0 || ih_lo - dh >= g.oH) continue;
          for (int64_t kw = 0; kw < g.kW; ++kw) {
            const int64_t dw = kw * g.dW - g.pW;
            if (g.W - 1 - dw < 0 || -dw >= g.oW) continue;
            const int64_t goff = spanning ? p0 - dh * g.oW - dw : (u - dh) * wg + lpad - dw;
            taps[static_cast<std::size_t>(ntaps++)] = {kh * g.kW + kw, goff, dh, dw};
          }
        }
        // sample n's planes: gy's own, or its copy's (spanning: past the guard)
        const bool cp = copied(n);
        const int64_t ld = cp ? cplane : g.P;
        const T* planes =
            cp ? gyp.data() + slot[static_cast<std::size_t>(n)] * g.O * cplane + guard_lo : pgy + n * g.O * g.P;
        input_tile(g.Og, ntaps, taps.data(), wk.data() + (gi * ncb + cb) * kHW * g.Og * R, planes + gi * g.Og * ld, ld,
                   g.oH, g.oW, lane_ih.data() + u * run_len, lane_iw.data() + u * run_len,
                   (count + NV * W - 1) / (NV * W), pgx + (n * g.C + gi * g.Cg + cb * R) * g.H * g.W + p0, g.H * g.W,
                   count, static_cast<int>(std::min<int64_t>(R, g.Cg - cb * R)),
                   pb ? pb + gi * g.Cg + cb * R : nullptr);
      }
    });
  }
  return true;
}

}  // namespace

void conv(const TensorBase& out, const TensorBase& input, const TensorBase& weight, const TensorBase& bias,
          const ConvArgs& a) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    const Geom g = geom(input.sizes(), weight.sizes(), out.sizes(), a);
    const T* px = input.data_ptr<T>();
    const T* pw = weight.data_ptr<T>();
    const T* pb = bias.defined() ? bias.data_ptr<T>() : nullptr;
    T* py = out.data_ptr<T>();
    if (forward_direct(g, px, pw, pb, py)) return;
    const int64_t S = samples_per_block(g);
    // 2-D convolutions gather the GEMM's panels of col (ColGather): a small plane's padded copy is
    // about 2x its input, col 9x for a 3x3 kernel.
    const ColGather cg = col_gather(g, S);
    const bool gather = cg.on;
    const std::vector<int64_t> toff = gather ? tap_offsets(g, cg.pd) : std::vector<int64_t>();
    const std::vector<int32_t> lane =
        gather ? position_offsets<int32_t>(g, cg.pd, S, cg.sample) : std::vector<int32_t>();
    for_sample_blocks(g, S, [&](int64_t gi, int64_t n0, int64_t s) {
      const int64_t L = s * g.P;
      detail::Scratch<T> col(static_cast<std::size_t>(gather ? cg.buffer(s) : g.K * L)),
          acc(static_cast<std::size_t>(s > 1 ? g.Og * L : 0));
      // acc (Og, L) = W_g (Og, K) @ col (K, L); one sample's acc is its output itself
      T* pacc = s == 1 ? py + (n0 * g.O + gi * g.Og) * g.P : acc.data();
      if (gather) {
        const T* xq = col_source(cg, px, g, gi, n0, s, col.data());
        const auto pack = direct_kernels<T>().pack_taps;
        const PackB<T> pack_b = [&](T* dst, int64_t k0, int64_t kc, int64_t j0, int64_t nc, int w) {
          pack(dst, xq, lane.data() + j0, toff.data() + k0, kc, nc, w);
        };
        gemm(pacc, pw + gi * g.Og * g.K, g.K, 1, pack_b, g.Og, L, g.K);
      } else {
        im2col_block(px, g, gi, n0, s, col.data());
        gemm(pacc, pw + gi * g.Og * g.K, g.K, 1, col.data(), L, 1, g.Og, L, g.K);
      }
      detail::parallel_for(s * g.Og, g.P, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t j = r / g.Og, o = r % g.Og;
          const T* src = pacc + o * L + j * g.P;
          T* y = py + ((n0 + j) * g.O + gi * g.Og + o) * g.P;
          if (pb) {
            const T b = pb[gi * g.Og + o], qnan = std::numeric_limits<T>::quiet_NaN();
            for (int64_t p = 0; p < g.P; ++p) {
              const T v = b + src[p];
              y[p] = v != v ? qnan : v;
            }
          } else if (src != y) {
            std::copy(src, src + g.P, y);
          }
        }
      });
    });
  });
}

namespace {
// grad_input = col2im(W^T @ grad_out) per sample block, then + bias[c] (conv_transpose's bias).
template <class T>
void backward_input(const Geom& g, const T* pw, const T* pgy, T* pgx, const T* pb) {
  if (input_direct(g, pw, pgy, pgx, pb)) return;
  const int64_t S = samples_per_block(g);
  for_sample_blocks(g, S, [&](int64_t gi, int64_t n0, int64_t s) {
    const int64_t L = s * g.P;
    detail::Scratch<T> dcol(static_cast<std::size_t>(g.K * L)), dy(static_cast<std::size_t>(s > 1 ? g.Og * L : 0));
    const T* dyb = gather_grad_out(pgy, g, gi, n0, s, dy.data());
    // dcol (K, L) = W_g^T (K, Og) @ dY (Og, L)
    gemm(dcol.data(), pw + gi * g.Og * g.K, 1, g.K, dyb, L, 1, g.K, L, g.Og);
    // Items (channel, sample), the samples of a channel one after another: they read the same
    // rows of dcol, each the next piece (sample by sample, each read every row a piece: 15 % of
    // a small plane's input gradient waited on those reads).
    detail::parallel_for(s * g.Cg, g.kD * g.kH * g.kW * g.P, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const int64_t c = i / s, j = i % s;
        T* gx = pgx + ((n0 + j) * g.C + gi * g.Cg) * g.volume();
        col2im(dcol.data() + j * g.P, L, g, c, gx);
        if (pb) {
          const T b = pb[gi * g.Cg + c], qnan = std::numeric_limits<T>::quiet_NaN();
          for (T *v = gx + c * g.volume(), *e = v + g.volume(); v < e; ++v) {
            const T sum = b + *v;
            *v = sum != sum ? qnan : sum;
          }
        }
      }
    });
  });
}
}  // namespace

void conv_backward_input(const TensorBase& grad_input, const TensorBase& grad_out, const TensorBase& weight,
                         const ConvArgs& a) {
  dispatch_floating(grad_input.dtype(), [&]<class T>() {
    backward_input<T>(geom(grad_input.sizes(), weight.sizes(), grad_out.sizes(), a), weight.data_ptr<T>(),
                      grad_out.data_ptr<T>(), grad_input.data_ptr<T>(), nullptr);
  });
}

// out (N, C_out, *) from input (N, C_in, *) and weight (C_in, C_out / G, *k): the convolution's
// input gradient, input playing its output gradient, then + bias.
void conv_transpose(const TensorBase& out, const TensorBase& input, const TensorBase& weight, const TensorBase& bias,
                    const ConvArgs& a) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    backward_input<T>(geom(out.sizes(), weight.sizes(), input.sizes(), a), weight.data_ptr<T>(), input.data_ptr<T>(),
                      out.data_ptr<T>(), bias.defined() ? bias.data_ptr<T>() : nullptr);
  });
}

void conv_backward_weight(const TensorBase& grad_weight, const TensorBase& grad_out, const TensorBase& input,
                          const ConvArgs& a) {
  dispatch_floating(grad_weight.dtype(), [&]<class T>() {
    const Geom g = geom(input.sizes(), grad_weight.sizes(), grad_out.sizes(), a);
    const T* px = input.data_ptr<T>();
    const T* pgy = grad_out.data_ptr<T>();
    T* pgw = grad_weight.data_ptr<T>();
    if (weight_direct(g, px, pgy, pgw)) return;
    for (int64_t i = 0; i < g.O * g.K; ++i) pgw[i] = T(0);
    const int64_t S = samples_per_block(g);
    // When the taps are few (a first layer: K = 9 for one input channel) the product wastes far
    // fewer lanes of the micro-tiles (14 rows by 32 columns at the AVX-512 level) transposed,
    // gw^T (K, Og); only then does that pay for packing the other way (measured: 2x lanes used
    // -> 1.5x faster; 1.4x lanes -> 15% slower). Each element is the same chain either way (the
    // factors of each product swap), so the choice changes no bit.
    auto padded = [](int64_t rows, int64_t cols) { return (rows + 13) / 14 * 14 * ((cols + 31) / 32 * 32); };
    const bool transposed = 3 * padded(g.K, g.Og) <= 2 * padded(g.Og, g.K);
    // Otherwise B = col^T is gathered (ColGather), as the forward's col is: lanes over taps, steps
    // over positions.
    const ColGather cg = col_gather(g, S);
    const bool gather = !transposed && cg.on;
    std::vector<int32_t> taps;
    for (int64_t off : gather ? tap_offsets(g, cg.pd) : std::vector<int64_t>())
      taps.push_back(static_cast<int32_t>(off));
    const std::vector<int64_t> lanes =
        gather ? position_offsets<int64_t>(g, cg.pd, S, cg.sample) : std::vector<int64_t>();
    detail::Scratch<T> col(static_cast<std::size_t>(gather ? cg.buffer(S) : g.K * S * g.P)),
        dy(static_cast<std::size_t>(S > 1 ? g.Og * S * g.P : 0));
    detail::Scratch<T> gwt(static_cast<std::size_t>(transposed ? g.K * g.Og : 0));
    // One chain per gw element over (n, p) ascending: each block's GEMM continues it.
    for (int64_t gi = 0; gi < g.G; ++gi) {
      T* gw = pgw + gi * g.Og * g.K;
      if (transposed) std::fill(gwt.data(), gwt.data() + g.K * g.Og, T(0));
      for (int64_t n0 = 0; n0 < g.N; n0 += S) {
        const int64_t s = std::min(S, g.N - n0), L = s * g.P;
        const T* dyb = gather_grad_out(pgy, g, gi, n0, s, dy.data());
        if (gather) {
          const T* xq = col_source(cg, px, g, gi, n0, s, col.data());
          const auto pack = direct_kernels<T>().pack_taps;
          const PackB<T> pack_b = [&](T* dst, int64_t k0, int64_t kc, int64_t j0, int64_t nc, int w) {
            pack(dst, xq, taps.data() + j0, lanes.data() + k0, kc, nc, w);
          };
          gemm(gw, dyb, L, 1, pack_b, g.Og, g.K, L, /*accumulate=*/true);
          continue;
        }
        im2col_block(px, g, gi, n0, s, col.data());
        if (transposed)  // gw_g^T (K, Og) += col (K, L) @ dY^T (L, Og)
          gemm(gwt.data(), col.data(), L, 1, dyb, 1, L, g.K, g.Og, L, /*accumulate=*/true);
        else  // gw_g (Og, K) += dY (Og, L) @ col^T (L, K)
          gemm(gw, dyb, L, 1, col.data(), 1, L, g.Og, g.K, L, /*accumulate=*/true);
      }
      if (transposed)
        for (int64_t o = 0; o < g.Og; ++o)
          for (int64_t k = 0; k < g.K; ++k) gw[o * g.K + k] = gwt.data()[k * g.Og + o];
    }
  });
}

void conv_kernels::force_input_tile_for_testing(int shape) {
  DITTO_CHECK(shape >= -1 && shape <= 1, "conv", "force_input_tile_for_testing: shape must be -1, 0 or 1, got ", shape);
  forced_input_tile.store(shape, std::memory_order_relaxed);
}

void conv_kernels::force_forward_in_place_for_testing(int in_place) {
  DITTO_CHECK(in_place >= -1 && in_place <= 1, "conv",
              "force_forward_in_place_for_testing: in_place must be -1, 0 or 1, got ", in_place);
  forced_in_place_forward.store(in_place, std::memory_order_relaxed);
}

}  // namespace ditto::cpu
