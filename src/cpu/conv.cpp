// Convolution kernels: im2col + the GEMM of cpu/gemm.h.
//
// Note [Convolution accumulation order]
// -------------------------------------
// Shapes: input (N, C, H, W), weight (O, C/G, kH, kW), output (N, O, oH, oW); k = (c, kh, kw)
// runs over one group's C/G input channels, p = (oh, ow) over output positions. Padding is
// explicit zeros: a padded tap contributes fma(w, 0, acc), as on a zero-padded input.
//   forward        out[n, o, p] = bias[o] + acc, acc a sequential fma chain over k ascending
//                  (Note [GEMM accumulation order]; no bias: acc itself).
//   grad weight    gw[o, k] = one sequential fma chain over (n, oh, ow) ascending, from 0.
//   grad input     dcol[k, p] = one sequential fma chain over the group's o ascending; then
//                  gx = 0 + dcol terms added in (c, kh, kw, oh, ow) order (col2im).
//   grad bias      the canonical sum over (n, oh, ow) (the public sum op).
// Work is split only over whole outputs ((n, group) blocks or GEMM rows), never inside a chain,
// so the bits do not depend on the thread count; a sample's forward never reads another
// sample, so it is the same alone or in any batch.
#include <algorithm>
#include <vector>

#include "core/parallel.h"
#include "cpu/gemm.h"
#include "cpu/loops.h"
#include "ops/kernels.h"

namespace ditto::cpu {
namespace {

struct Geom {
  int64_t N, C, H, W, O, G, Cg, Og, kH, kW, oH, oW, K, P;
  int64_t sH, sW, pH, pW, dH, dW;
};

Geom geom(const Shape& in, const Shape& w, const Shape& out, const Conv2dArgs& a) {
  Geom g;
  g.N = in[0], g.C = in[1], g.H = in[2], g.W = in[3];
  g.O = w[0], g.kH = w[2], g.kW = w[3];
  g.oH = out[2], g.oW = out[3];
  g.G = a.groups, g.Cg = g.C / g.G, g.Og = g.O / g.G;
  g.K = g.Cg * g.kH * g.kW, g.P = g.oH * g.oW;
  g.sH = a.stride[0], g.sW = a.stride[1], g.pH = a.padding[0], g.pW = a.padding[1];
  g.dH = a.dilation[0], g.dW = a.dilation[1];
  return g;
}

// The output columns ow whose tap iw = ow * sW + off lies inside [0, W): [lo, hi).
struct Span {
  int64_t lo, hi;
};
Span valid_span(int64_t off, int64_t sW, int64_t W, int64_t oW) {
  int64_t lo = off >= 0 ? 0 : (-off + sW - 1) / sW;
  int64_t hi = off > W - 1 ? 0 : (W - 1 - off) / sW + 1;
  hi = hi < oW ? hi : oW;
  lo = lo < hi ? lo : hi;
  return {lo, hi};
}

// col[k * ldk + p * ldp] = the zero-padded input tap of (k, p), for one sample's group (x points
// at its first channel). Pure copies: no arithmetic, so the layout never changes a bit.
template <class T>
void im2col(const T* x, const Geom& g, T* col, int64_t ldk, int64_t ldp) {
  for (int64_t c = 0; c < g.Cg; ++c)
    for (int64_t kh = 0; kh < g.kH; ++kh)
      for (int64_t kw = 0; kw < g.kW; ++kw) {
        const int64_t k = (c * g.kH + kh) * g.kW + kw;
        const int64_t off = kw * g.dW - g.pW;
        const Span s = valid_span(off, g.sW, g.W, g.oW);
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          const int64_t ih = oh * g.sH - g.pH + kh * g.dH;
          T* dst = col + k * ldk + oh * g.oW * ldp;
          if (ih < 0 || ih >= g.H) {
            for (int64_t ow = 0; ow < g.oW; ++ow) dst[ow * ldp] = T(0);
            continue;
          }
          const T* row = x + (c * g.H + ih) * g.W;
          if (ldp == 1) {
            for (int64_t ow = 0; ow < s.lo; ++ow) dst[ow] = T(0);
            if (g.sW == 1) std::copy(row + s.lo + off, row + s.hi + off, dst + s.lo);
            else
              for (int64_t ow = s.lo; ow < s.hi; ++ow) dst[ow] = row[ow * g.sW + off];
            for (int64_t ow = s.hi; ow < g.oW; ++ow) dst[ow] = T(0);
          } else {
            for (int64_t ow = 0; ow < s.lo; ++ow) dst[ow * ldp] = T(0);
            for (int64_t ow = s.lo; ow < s.hi; ++ow) dst[ow * ldp] = row[ow * g.sW + off];
            for (int64_t ow = s.hi; ow < g.oW; ++ow) dst[ow * ldp] = T(0);
          }
        }
      }
}

// gx (one sample's group, zeroed here) += dcol, in (c, kh, kw, oh, ow) order: each gx element
// receives its terms in that order (one (kh, kw, oh) row touches distinct elements).
template <class T>
void col2im(const T* dcol, const Geom& g, T* gx) {
  for (int64_t i = 0; i < g.Cg * g.H * g.W; ++i) gx[i] = T(0);
  for (int64_t c = 0; c < g.Cg; ++c)
    for (int64_t kh = 0; kh < g.kH; ++kh)
      for (int64_t kw = 0; kw < g.kW; ++kw) {
        const T* src = dcol + ((c * g.kH + kh) * g.kW + kw) * g.P;
        const int64_t off = kw * g.dW - g.pW;
        const Span s = valid_span(off, g.sW, g.W, g.oW);
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          const int64_t ih = oh * g.sH - g.pH + kh * g.dH;
          if (ih < 0 || ih >= g.H) continue;
          T* row = gx + (c * g.H + ih) * g.W;
          const T* sr = src + oh * g.oW;
          if (g.sW == 1)
            for (int64_t ow = s.lo; ow < s.hi; ++ow) row[ow + off] = row[ow + off] + sr[ow];
          else
            for (int64_t ow = s.lo; ow < s.hi; ++ow) row[ow * g.sW + off] = row[ow * g.sW + off] + sr[ow];
        }
      }
}

// Runs fn(begin, end) over items [0, n): split over threads when there are enough items,
// otherwise serially so that the GEMM inside can split its rows. Either way each item is
// computed whole by one thread.
void for_items(int64_t n, int64_t cost, const std::function<void(int64_t, int64_t)>& fn) {
  if (n >= detail::num_threads()) detail::parallel_for(n, cost, fn);
  else fn(0, n);
}

}  // namespace

void conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dArgs& a) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    const Geom g = geom(input.sizes(), weight.sizes(), out.sizes(), a);
    const T* px = input.data_ptr<T>();
    const T* pw = weight.data_ptr<T>();
    const T* pb = bias.defined() ? bias.data_ptr<T>() : nullptr;
    T* py = out.data_ptr<T>();
    // A 1x1 kernel with stride 1 and no padding reads the input as its own column matrix.
    const bool direct = g.kH == 1 && g.kW == 1 && g.sH == 1 && g.sW == 1 && g.pH == 0 && g.pW == 0;
    for_items(g.N * g.G, g.Og * g.P * g.K, [&](int64_t i0, int64_t i1) {
      std::vector<T> col(direct ? 0 : static_cast<std::size_t>(g.K * g.P));
      for (int64_t it = i0; it < i1; ++it) {
        const int64_t n = it / g.G, gi = it % g.G;
        const T* x = px + (n * g.C + gi * g.Cg) * g.H * g.W;
        if (!direct) im2col(x, g, col.data(), g.P, 1);
        T* y = py + (n * g.O + gi * g.Og) * g.P;
        gemm(y, pw + gi * g.Og * g.K, g.K, 1, direct ? x : col.data(), g.P, 1, g.Og, g.P, g.K);
        if (pb)
          for (int64_t o = 0; o < g.Og; ++o) {
            const T b = pb[gi * g.Og + o];
            for (int64_t p = 0; p < g.P; ++p) y[o * g.P + p] = b + y[o * g.P + p];
          }
      }
    });
  });
}

void conv2d_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                           const Conv2dArgs& a) {
  dispatch_floating(grad_input.dtype(), [&]<class T>() {
    const Geom g = geom(grad_input.sizes(), weight.sizes(), grad_out.sizes(), a);
    const T* pw = weight.data_ptr<T>();
    const T* pgy = grad_out.data_ptr<T>();
    T* pgx = grad_input.data_ptr<T>();
    for_items(g.N * g.G, g.Og * g.P * g.K, [&](int64_t i0, int64_t i1) {
      std::vector<T> dcol(static_cast<std::size_t>(g.K * g.P));
      for (int64_t it = i0; it < i1; ++it) {
        const int64_t n = it / g.G, gi = it % g.G;
        // dcol (K, P) = W_g^T (K, Og) @ dY_g (Og, P)
        gemm(dcol.data(), pw + gi * g.Og * g.K, 1, g.K, pgy + (n * g.O + gi * g.Og) * g.P, g.P, 1, g.K, g.P, g.Og);
        col2im(dcol.data(), g, pgx + (n * g.C + gi * g.Cg) * g.H * g.W);
      }
    });
  });
}

void conv2d_backward_weight(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                            const Conv2dArgs& a) {
  dispatch_floating(grad_weight.dtype(), [&]<class T>() {
    const Geom g = geom(input.sizes(), grad_weight.sizes(), grad_out.sizes(), a);
    const T* px = input.data_ptr<T>();
    const T* pgy = grad_out.data_ptr<T>();
    T* pgw = grad_weight.data_ptr<T>();
    for (int64_t i = 0; i < g.O * g.K; ++i) pgw[i] = T(0);
    // One chain per gw element over (n, p): the GEMM continues it sample after sample.
    for_items(g.G, g.N * g.Og * g.P * g.K, [&](int64_t g0, int64_t g1) {
      std::vector<T> col(static_cast<std::size_t>(g.K * g.P));  // (K, P); B of the GEMM is its transpose
      for (int64_t gi = g0; gi < g1; ++gi)
        for (int64_t n = 0; n < g.N; ++n) {
          im2col(px + (n * g.C + gi * g.Cg) * g.H * g.W, g, col.data(), g.P, 1);
          gemm(pgw + gi * g.Og * g.K, pgy + (n * g.O + gi * g.Og) * g.P, g.P, 1, col.data(), 1, g.P, g.Og, g.K, g.P,
               /*accumulate=*/true);
        }
    });
  });
}

}  // namespace ditto::cpu
