// Pooling kernels, on contiguous (N, C, H, W) planes. Each window is scanned in row-major order
// and each gradient plane is accumulated serially in output order, as PyTorch's CPU kernels do
// (so values and gradients match it bit for bit); planes are split over threads, never a window.
#include "cpu/decl/pool.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "core/parallel.h"
#include "cpu/loops.h"
#include "cpu/pool_kernels.h"

namespace ditto::cpu {
namespace {

struct Planes {
  int64_t planes, H, W, oH, oW;
};
Planes planes_of(const Tensor& in, const Tensor& out) {
  return {in.size(0) * in.size(1), in.size(2), in.size(3), out.size(2), out.size(3)};
}

// avg_pool2d's window of output (oh, ow): clipped bounds and divisor (PyTorch's rules).
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
  bool empty() const { return h0 >= h1 || w0 >= w1; }
};
AvgWindow avg_window(int64_t oh, int64_t ow, const Planes& p, const Pool2dArgs& a) {
  int64_t h0 = oh * a.stride[0] - a.padding[0], w0 = ow * a.stride[1] - a.padding[1];
  int64_t h1 = std::min(h0 + a.kernel[0], p.H + a.padding[0]), w1 = std::min(w0 + a.kernel[1], p.W + a.padding[1]);
  const int64_t pool_size = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, p.H), w1 = std::min(w1, p.W);
  const int64_t d = a.divisor != 0 ? a.divisor : a.count_include_pad ? pool_size : (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1, d};
}

// The cost estimate of a plane for parallel_for, saturating (huge kernels are legal arguments).
int64_t window_cost(const Planes& p, const Pool2dArgs& a) {
  int64_t c = p.oH * p.oW;
  for (int64_t k : {a.kernel[0], a.kernel[1]})
    if (__builtin_mul_overflow(c, k, &c)) return std::numeric_limits<int64_t>::max();
  return c;
}

// Adaptive window i of n over size L: [floor(i * L / n), ceil((i + 1) * L / n)).
int64_t start_index(int64_t i, int64_t n, int64_t L) { return i * L / n; }
int64_t end_index(int64_t i, int64_t n, int64_t L) { return ((i + 1) * L + n - 1) / n; }

}  // namespace

void max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& input, const Pool2dArgs& a) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const Planes p = planes_of(input, values);
    const T* px = input.data_ptr<T>();
    T* pv = values.data_ptr<T>();
    int64_t* pi = indices.data_ptr<int64_t>();
    const int64_t kH = a.kernel[0], kW = a.kernel[1], dH = a.dilation[0], dW = a.dilation[1];
    const int64_t sH = a.stride[0], sW = a.stride[1], pH = a.padding[0], pW = a.padding[1];
    // Output columns whose window lies inside the row: [in_lo, in_hi).
    const int64_t in_lo = std::min<int64_t>(pW == 0 ? 0 : (pW - 1) / sW + 1, p.oW);  // ceil(pW / sW), no overflow
    const int64_t in_hi = std::max<int64_t>(
        in_lo,
        std::min<int64_t>(p.oW, p.W - 1 - (kW - 1) * dW + pW >= 0 ? (p.W - 1 - (kW - 1) * dW + pW) / sW + 1 : 0));
    detail::parallel_for(p.planes, window_cost(p, a), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        const T* x = px + c * p.H * p.W;
        for (int64_t oh = 0; oh < p.oH; ++oh) {
          int64_t h0 = oh * sH - pH;
          const int64_t h1 = std::min(h0 + (kH - 1) * dH + 1, p.H);
          while (h0 < 0) h0 += dH;
          T* vrow = pv + (c * p.oH + oh) * p.oW;
          int64_t* irow = pi + (c * p.oH + oh) * p.oW;
          // PyTorch's scan: strictly greater replaces (ties keep the first), any NaN replaces.
          auto window = [&](int64_t ow) {
            int64_t w0 = ow * sW - pW;
            const int64_t w1 = std::min(w0 + (kW - 1) * dW + 1, p.W);
            while (w0 < 0) w0 += dW;
            int64_t best = h0 * p.W + w0;
            T m = -std::numeric_limits<T>::infinity();
            for (int64_t h = h0; h < h1; h += dH)
              for (int64_t w = w0; w < w1; w += dW) {
                const T v = x[h * p.W + w];
                if (v > m || std::isnan(v)) {
                  m = v;
                  best = h * p.W + w;
                }
              }
            vrow[ow] = m;
            irow[ow] = best;
          };
          for (int64_t ow = 0; ow < in_lo; ++ow) window(ow);
          // Inside windows: the same scan, vectorised across output columns (cpu/pool_impl.h).
          if (in_lo < in_hi) max_pool_inside(x, p.W, h0, h1, dH, kW, dW, sW, pW, in_lo, in_hi, vrow, irow);
          for (int64_t ow = in_hi; ow < p.oW; ++ow) window(ow);
        }
      }
    });
  });
}

void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) {
  dispatch_floating(grad_input.dtype(), [&]<class T>() {
    const Planes p = planes_of(grad_input, grad_out);
    const T* pg = grad_out.data_ptr<T>();
    const int64_t* pi = indices.data_ptr<int64_t>();
    T* px = grad_input.data_ptr<T>();
    const int64_t L = p.oH * p.oW, HW = p.H * p.W;
    detail::parallel_for(p.planes, L + HW, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        T* gx = px + c * HW;
        for (int64_t i = 0; i < HW; ++i) gx[i] = T(0);
        for (int64_t o = 0; o < L; ++o) {
          const int64_t j = pi[c * L + o];
          // An empty window (possible with dilation) has no valid argmax: it gets no gradient.
          if (j >= 0 && j < HW) gx[j] = gx[j] + pg[c * L + o];
        }
      }
    });
  });
}

void avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dArgs& a) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const Planes p = planes_of(input, out);
    const T* px = input.data_ptr<T>();
    T* py = out.data_ptr<T>();
    detail::parallel_for(p.planes, window_cost(p, a), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        const T* x = px + c * p.H * p.W;
        for (int64_t oh = 0; oh < p.oH; ++oh)
          for (int64_t ow = 0; ow < p.oW; ++ow) {
            const AvgWindow win = avg_window(oh, ow, p, a);
            T s = T(0);
            if (!win.empty())
              for (int64_t h = win.h0; h < win.h1; ++h)
                for (int64_t w = win.w0; w < win.w1; ++w) s = s + x[h * p.W + w];
            py[(c * p.oH + oh) * p.oW + ow] = win.empty() ? T(0) : T(0) + s / static_cast<T>(win.divisor);
          }
      }
    });
  });
}

void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dArgs& a) {
  dispatch_floating(grad_input.dtype(), [&]<class T>() {
    const Planes p = planes_of(grad_input, grad_out);
    const T* pg = grad_out.data_ptr<T>();
    T* px = grad_input.data_ptr<T>();
    detail::parallel_for(p.planes, window_cost(p, a), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        T* gx = px + c * p.H * p.W;
        for (int64_t i = 0; i < p.H * p.W; ++i) gx[i] = T(0);
        for (int64_t oh = 0; oh < p.oH; ++oh)
          for (int64_t ow = 0; ow < p.oW; ++ow) {
            const AvgWindow win = avg_window(oh, ow, p, a);
            if (win.empty()) continue;
            const T d = pg[(c * p.oH + oh) * p.oW + ow] / static_cast<T>(win.divisor);
            for (int64_t h = win.h0; h < win.h1; ++h)
              for (int64_t w = win.w0; w < win.w1; ++w) gx[h * p.W + w] = gx[h * p.W + w] + d;
          }
      }
    });
  });
}

void adaptive_avg_pool2d(const Tensor& out, const Tensor& input) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const Planes p = planes_of(input, out);
    const T* px = input.data_ptr<T>();
    T* py = out.data_ptr<T>();
    detail::parallel_for(p.planes, p.H * p.W + p.oH * p.oW, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        const T* x = px + c * p.H * p.W;
        for (int64_t oh = 0; oh < p.oH; ++oh) {
          const int64_t h0 = start_index(oh, p.oH, p.H), h1 = end_index(oh, p.oH, p.H);
          for (int64_t ow = 0; ow < p.oW; ++ow) {
            const int64_t w0 = start_index(ow, p.oW, p.W), w1 = end_index(ow, p.oW, p.W);
            T s = T(0);
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) s = s + x[h * p.W + w];
            // two divisions, as PyTorch's kernel (sum / kh / kw)
            py[(c * p.oH + oh) * p.oW + ow] = s / static_cast<T>(h1 - h0) / static_cast<T>(w1 - w0);
          }
        }
      }
    });
  });
}

void adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out) {
  dispatch_floating(grad_input.dtype(), [&]<class T>() {
    const Planes p = planes_of(grad_input, grad_out);
    const T* pg = grad_out.data_ptr<T>();
    T* px = grad_input.data_ptr<T>();
    detail::parallel_for(p.planes, p.H * p.W + p.oH * p.oW, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        T* gx = px + c * p.H * p.W;
        for (int64_t i = 0; i < p.H * p.W; ++i) gx[i] = T(0);
        for (int64_t oh = 0; oh < p.oH; ++oh) {
          const int64_t h0 = start_index(oh, p.oH, p.H), h1 = end_index(oh, p.oH, p.H);
          for (int64_t ow = 0; ow < p.oW; ++ow) {
            const int64_t w0 = start_index(ow, p.oW, p.W), w1 = end_index(ow, p.oW, p.W);
            const T d = pg[(c * p.oH + oh) * p.oW + ow] / static_cast<T>(h1 - h0) / static_cast<T>(w1 - w0);
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) gx[h * p.W + w] = gx[h * p.W + w] + d;
          }
        }
      }
    });
  });
}

// Split over single input elements, so duplicate indices in a plane race: whichever store lands
// last wins. Declared Nondeterministic in the op table (atomic stores keep it free of UB).
void max_unpool_racing(const Tensor& out, const Tensor& input, const Tensor& indices) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const int64_t P = out.size(0), Lout = out.size(1), Lin = input.size(1);
    T* po = out.data_ptr<T>();
    const T* px = input.data_ptr<T>();
    const int64_t* pi = indices.data_ptr<int64_t>();
    detail::parallel_for(P * Lout, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) po[i] = T(0);
    });
    detail::parallel_for(P * Lin, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t)
        std::atomic_ref<T>(po[(t / Lin) * Lout + pi[t]]).store(px[t], std::memory_order_relaxed);
    });
  });
}

}  // namespace ditto::cpu
