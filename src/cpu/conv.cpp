// Convolution kernels (1-D as 2-D, 2-D and 3-D, and transposed): im2col + the GEMM of cpu/gemm.h.
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
// Samples are taken in blocks whose columns sit side by side in one GEMM (samples_per_block);
// work is split only over whole outputs (samples for the copies, GEMM blocks of C), never inside
// a chain, so the bits depend neither on the thread count nor on the block size; a sample's
// forward never reads another sample, so it is the same alone or in any batch.
#include "cpu/decl/conv.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "core/allocator.h"
#include "core/parallel.h"
#include "cpu/gemm.h"
#include "cpu/loops.h"

namespace ditto::cpu {
namespace {

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

// gx (one sample's group, zeroed here) += dcol, in (c, kd, kh, kw, od, oh, ow) order: each gx
// element receives its terms in that order (one (kd, kh, kw, od, oh) row touches distinct
// elements).
template <class T>
void col2im(const T* dcol, int64_t ldk, const Geom& g, T* gx) {
  for (int64_t i = 0; i < g.Cg * g.volume(); ++i) gx[i] = T(0);
  for (int64_t c = 0; c < g.Cg; ++c)
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
// column_budget: elements of the column matrix (the default keeps it within L2).
int64_t samples_per_block(const Geom& g, int64_t column_budget = int64_t(1) << 17) {
  return std::clamp<int64_t>(column_budget / std::max<int64_t>(1, g.K * g.P), 1, std::max<int64_t>(g.N, 1));
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

}  // namespace

void conv(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvArgs& a) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    const Geom g = geom(input.sizes(), weight.sizes(), out.sizes(), a);
    const T* px = input.data_ptr<T>();
    const T* pw = weight.data_ptr<T>();
    const T* pb = bias.defined() ? bias.data_ptr<T>() : nullptr;
    T* py = out.data_ptr<T>();
    const int64_t S = samples_per_block(g);
    for_sample_blocks(g, S, [&](int64_t gi, int64_t n0, int64_t s) {
      const int64_t L = s * g.P;
      detail::Scratch<T> col(static_cast<std::size_t>(g.K * L)), acc(static_cast<std::size_t>(s > 1 ? g.Og * L : 0));
      im2col_block(px, g, gi, n0, s, col.data());
      // acc (Og, L) = W_g (Og, K) @ col (K, L); one sample's acc is its output itself
      T* pacc = s == 1 ? py + (n0 * g.O + gi * g.Og) * g.P : acc.data();
      gemm(pacc, pw + gi * g.Og * g.K, g.K, 1, col.data(), L, 1, g.Og, L, g.K);
      detail::parallel_for(s * g.Og, g.P, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t j = r / g.Og, o = r % g.Og;
          const T* src = pacc + o * L + j * g.P;
          T* y = py + ((n0 + j) * g.O + gi * g.Og + o) * g.P;
          if (pb) {
            const T b = pb[gi * g.Og + o];
            for (int64_t p = 0; p < g.P; ++p) y[p] = b + src[p];
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
  const int64_t S = samples_per_block(g);
  for_sample_blocks(g, S, [&](int64_t gi, int64_t n0, int64_t s) {
    const int64_t L = s * g.P;
    detail::Scratch<T> dcol(static_cast<std::size_t>(g.K * L)), dy(static_cast<std::size_t>(s > 1 ? g.Og * L : 0));
    const T* dyb = gather_grad_out(pgy, g, gi, n0, s, dy.data());
    // dcol (K, L) = W_g^T (K, Og) @ dY (Og, L)
    gemm(dcol.data(), pw + gi * g.Og * g.K, 1, g.K, dyb, L, 1, g.K, L, g.Og);
    detail::parallel_for(s, g.K * g.P, [&](int64_t j0, int64_t j1) {
      for (int64_t j = j0; j < j1; ++j) {
        T* gx = pgx + ((n0 + j) * g.C + gi * g.Cg) * g.volume();
        col2im(dcol.data() + j * g.P, L, g, gx);
        if (pb)
          for (int64_t c = 0; c < g.Cg; ++c) {
            const T b = pb[gi * g.Cg + c];
            for (T *v = gx + c * g.volume(), *e = v + g.volume(); v < e; ++v) *v = b + *v;
          }
      }
    });
  });
}
}  // namespace

void conv_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight, const ConvArgs& a) {
  dispatch_floating(grad_input.dtype(), [&]<class T>() {
    backward_input<T>(geom(grad_input.sizes(), weight.sizes(), grad_out.sizes(), a), weight.data_ptr<T>(),
                      grad_out.data_ptr<T>(), grad_input.data_ptr<T>(), nullptr);
  });
}

// out (N, C_out, *) from input (N, C_in, *) and weight (C_in, C_out / G, *k): the convolution's
// input gradient, input playing its output gradient, then + bias.
void conv_transpose(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                    const ConvArgs& a) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    backward_input<T>(geom(out.sizes(), weight.sizes(), input.sizes(), a), weight.data_ptr<T>(), input.data_ptr<T>(),
                      out.data_ptr<T>(), bias.defined() ? bias.data_ptr<T>() : nullptr);
  });
}

void conv_backward_weight(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input, const ConvArgs& a) {
  dispatch_floating(grad_weight.dtype(), [&]<class T>() {
    const Geom g = geom(input.sizes(), grad_weight.sizes(), grad_out.sizes(), a);
    const T* px = input.data_ptr<T>();
    const T* pgy = grad_out.data_ptr<T>();
    T* pgw = grad_weight.data_ptr<T>();
    for (int64_t i = 0; i < g.O * g.K; ++i) pgw[i] = T(0);
    const int64_t S = samples_per_block(g);
    detail::Scratch<T> col(static_cast<std::size_t>(g.K * S * g.P)),
        dy(static_cast<std::size_t>(S > 1 ? g.Og * S * g.P : 0));
    // When the taps are few (a first layer: K = 9 for one input channel) the product wastes far
    // fewer lanes of the micro-tiles (14 rows by 32 columns at the AVX-512 level) transposed,
    // gw^T (K, Og); only then does that pay for packing the other way (measured: 2x lanes used
    // -> 1.5x faster; 1.4x lanes -> 15% slower). Each element is the same chain either way (the
    // factors of each product swap), so the choice changes no bit.
    auto padded = [](int64_t rows, int64_t cols) { return (rows + 13) / 14 * 14 * ((cols + 31) / 32 * 32); };
    const bool transposed = 3 * padded(g.K, g.Og) <= 2 * padded(g.Og, g.K);
    detail::Scratch<T> gwt(static_cast<std::size_t>(transposed ? g.K * g.Og : 0));
    // One chain per gw element over (n, p) ascending: each block's GEMM continues it.
    for (int64_t gi = 0; gi < g.G; ++gi) {
      T* gw = pgw + gi * g.Og * g.K;
      if (transposed) std::fill(gwt.data(), gwt.data() + g.K * g.Og, T(0));
      for (int64_t n0 = 0; n0 < g.N; n0 += S) {
        const int64_t s = std::min(S, g.N - n0), L = s * g.P;
        im2col_block(px, g, gi, n0, s, col.data());
        const T* dyb = gather_grad_out(pgy, g, gi, n0, s, dy.data());
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

}  // namespace ditto::cpu
