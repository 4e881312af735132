// Pooling kernels, on contiguous (N, C, H, W) or (N, C, D, H, W) planes; one kernel per direction
// serves 1-D, 2-D and 3-D pooling (1-D is 2-D with height 1). Each window is scanned in row-major order
// and each gradient plane is accumulated serially in output order, as PyTorch's CPU kernels do
// (so values and gradients match it bit for bit); planes are split over threads, never a window.
#include "cpu/decl/pool.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "core/parallel.h"
#include "cpu/loops.h"
#include "cpu/pool_kernels.h"

namespace ditto::cpu {
namespace {

// Contiguous (N, C, H, W) or (N, C, D, H, W) planes; 2-D planes have depth 1.
struct Planes {
  int64_t planes, D, H, W, oD, oH, oW;
  int64_t in_size() const { return D * H * W; }
  int64_t out_size() const { return oD * oH * oW; }
};
Planes planes_of(const Tensor& in, const Tensor& out) {
  const bool d3 = in.dim() == 5;
  return {in.size(0) * in.size(1), d3 ? in.size(2) : 1, in.size(-2), in.size(-1),
          d3 ? out.size(2) : 1,    out.size(-2),        out.size(-1)};
}

// One dim of avg_pool's window of output o: clipped bounds, and the size with padding counted
// (PyTorch's rules).
struct Span {
  int64_t lo, hi, padded;
};
Span avg_span(int64_t o, int64_t in, const PoolArgs& a, int d) {
  int64_t lo = o * a.stride[d] - a.padding[d];
  int64_t hi = std::min(lo + a.kernel[d], in + a.padding[d]);
  const int64_t padded = hi - lo;
  return {std::max<int64_t>(lo, 0), std::min(hi, in), padded};
}
struct AvgWindow {
  Span d, h, w;
  int64_t divisor;
  bool empty() const { return d.lo >= d.hi || h.lo >= h.hi || w.lo >= w.hi; }
};
AvgWindow avg_window(int64_t od, int64_t oh, int64_t ow, const Planes& p, const PoolArgs& a) {
  AvgWindow win{avg_span(od, p.D, a, 0), avg_span(oh, p.H, a, 1), avg_span(ow, p.W, a, 2), 0};
  win.divisor = a.divisor != 0        ? a.divisor
                : a.count_include_pad ? win.d.padded * win.h.padded * win.w.padded
                                      : (win.d.hi - win.d.lo) * (win.h.hi - win.h.lo) * (win.w.hi - win.w.lo);
  return win;
}

// The cost estimate of a plane for parallel_for, saturating (huge kernels are legal arguments).
int64_t window_cost(const Planes& p, const PoolArgs& a) {
  int64_t c = p.out_size();
  for (int64_t k : {a.kernel[0], a.kernel[1], a.kernel[2]})
    if (__builtin_mul_overflow(c, k, &c)) return std::numeric_limits<int64_t>::max();
  return c;
}

// Adaptive window i of n over size L: [floor(i * L / n), ceil((i + 1) * L / n)).
struct Range {
  int64_t lo, hi;
  int64_t size() const { return hi - lo; }
};
Range adaptive_range(int64_t i, int64_t n, int64_t L) { return {i * L / n, ((i + 1) * L + n - 1) / n}; }

// Visits every output (od, oh, ow) of plane c with its flat output index, then its flat index in
// the plane; planes are split over threads, each plane's outputs visited in order.
template <class F>
void for_each_output(const Planes& p, int64_t cost, F&& f) {
  detail::parallel_for(p.planes, cost, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t od = 0, o = c * p.out_size(); od < p.oD; ++od)
        for (int64_t oh = 0; oh < p.oH; ++oh)
          for (int64_t ow = 0; ow < p.oW; ++ow, ++o) f(c, od, oh, ow, o);
  });
}

// PyTorch's max scan over a box of the plane x: strictly greater replaces (ties keep the first),
// any NaN replaces (the last NaN wins). The index starts at the box's first position, which an
// empty box (possible with dilation) keeps, with the value -inf.
template <class T>
void max_scan(const T* x, const Planes& p, Range d, Range h, Range w, int64_t sd, int64_t sh, int64_t sw, T& value,
              int64_t& index) {
  T m = -std::numeric_limits<T>::infinity();
  int64_t best = (d.lo * p.H + h.lo) * p.W + w.lo;
  for (int64_t z = d.lo; z < d.hi; z += sd)
    for (int64_t y = h.lo; y < h.hi; y += sh)
      for (int64_t i = (z * p.H + y) * p.W + w.lo, e = (z * p.H + y) * p.W + w.hi; i < e; i += sw) {
        const T v = x[i];
        if (v > m || std::isnan(v)) {
          m = v;
          best = i;
        }
      }
  value = m;
  index = best;
}

// A dilated window's valid range in one dim: from its first tap inside the input to the input's end.
Range dilated_range(int64_t o, int64_t in, const PoolArgs& a, int d) {
  int64_t lo = o * a.stride[d] - a.padding[d];
  const int64_t hi = std::min(lo + (a.kernel[d] - 1) * a.dilation[d] + 1, in);
  while (lo < 0) lo += a.dilation[d];
  return {lo, hi};
}

}  // namespace

void max_pool(const Tensor& values, const Tensor& indices, const Tensor& input, const PoolArgs& a) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const Planes p = planes_of(input, values);
    const T* px = input.data_ptr<T>();
    T* pv = values.data_ptr<T>();
    int64_t* pi = indices.data_ptr<int64_t>();
    const int64_t kW = a.kernel[2], dW = a.dilation[2], sW = a.stride[2], pW = a.padding[2];
    // Output columns whose window lies inside the row: [in_lo, in_hi).
    const int64_t in_lo = std::min<int64_t>(pW == 0 ? 0 : (pW - 1) / sW + 1, p.oW);  // ceil(pW / sW), no overflow
    const int64_t in_hi = std::max<int64_t>(
        in_lo,
        std::min<int64_t>(p.oW, p.W - 1 - (kW - 1) * dW + pW >= 0 ? (p.W - 1 - (kW - 1) * dW + pW) / sW + 1 : 0));
    detail::parallel_for(p.planes, window_cost(p, a), [&](int64_t c0, int64_t c1) {
      std::vector<int64_t> rows;  // the window's rows, as plane offsets in scan order
      for (int64_t c = c0; c < c1; ++c) {
        const T* x = px + c * p.in_size();
        for (int64_t od = 0; od < p.oD; ++od) {
          const Range d = dilated_range(od, p.D, a, 0);
          for (int64_t oh = 0; oh < p.oH; ++oh) {
            const Range h = dilated_range(oh, p.H, a, 1);
            const int64_t o = ((c * p.oD + od) * p.oH + oh) * p.oW;
            T* vrow = pv + o;
            int64_t* irow = pi + o;
            auto window = [&](int64_t ow) {
              max_scan(x, p, d, h, dilated_range(ow, p.W, a, 2), a.dilation[0], a.dilation[1], dW, vrow[ow], irow[ow]);
            };
            rows.clear();
            for (int64_t z = d.lo; z < d.hi; z += a.dilation[0])
              for (int64_t y = h.lo; y < h.hi; y += a.dilation[1]) rows.push_back((z * p.H + y) * p.W);
            const auto nrows = static_cast<int64_t>(rows.size());
            // Inside windows: the same scan, vectorised across output columns (cpu/pool_impl.h),
            // where the window has rows and its tap numbers are exact in a float lane.
            const bool simd = nrows > 0 && nrows <= (int64_t(1) << 24) / kW;
            for (int64_t ow = 0; ow < (simd ? in_lo : p.oW); ++ow) window(ow);
            if (!simd) continue;
            if (in_lo < in_hi) max_pool_inside(x, rows.data(), nrows, kW, dW, sW, pW, in_lo, in_hi, vrow, irow);
            for (int64_t ow = in_hi; ow < p.oW; ++ow) window(ow);
          }
        }
      }
    });
  });
}

void max_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) {
  dispatch_floating(grad_input.dtype(), [&]<class T>() {
    const Planes p = planes_of(grad_input, grad_out);
    const T* pg = grad_out.data_ptr<T>();
    const int64_t* pi = indices.data_ptr<int64_t>();
    T* px = grad_input.data_ptr<T>();
    const int64_t L = p.out_size(), HW = p.in_size();
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

void avg_pool(const Tensor& out, const Tensor& input, const PoolArgs& a) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const Planes p = planes_of(input, out);
    const T* px = input.data_ptr<T>();
    T* py = out.data_ptr<T>();
    for_each_output(p, window_cost(p, a), [&](int64_t c, int64_t od, int64_t oh, int64_t ow, int64_t o) {
      const T* x = px + c * p.in_size();
      const AvgWindow win = avg_window(od, oh, ow, p, a);
      T s = T(0);
      if (!win.empty())
        for (int64_t z = win.d.lo; z < win.d.hi; ++z)
          for (int64_t y = win.h.lo; y < win.h.hi; ++y)
            for (int64_t i = (z * p.H + y) * p.W + win.w.lo, e = i + win.w.hi - win.w.lo; i < e; ++i) s = s + x[i];
      // 0 + sum / divisor, as PyTorch's kernels write it (a -0 sum gives +0)
      py[o] = win.empty() ? T(0) : T(0) + s / static_cast<T>(win.divisor);
    });
  });
}

void avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const PoolArgs& a) {
  dispatch_floating(grad_input.dtype(), [&]<class T>() {
    const Planes p = planes_of(grad_input, grad_out);
    const T* pg = grad_out.data_ptr<T>();
    T* px = grad_input.data_ptr<T>();
    detail::parallel_for(p.planes, window_cost(p, a), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        T* gx = px + c * p.in_size();
        for (int64_t i = 0; i < p.in_size(); ++i) gx[i] = T(0);
        for (int64_t od = 0, o = c * p.out_size(); od < p.oD; ++od)
          for (int64_t oh = 0; oh < p.oH; ++oh)
            for (int64_t ow = 0; ow < p.oW; ++ow, ++o) {
              const AvgWindow win = avg_window(od, oh, ow, p, a);
              if (win.empty()) continue;
              const T g = pg[o] / static_cast<T>(win.divisor);
              for (int64_t z = win.d.lo; z < win.d.hi; ++z)
                for (int64_t y = win.h.lo; y < win.h.hi; ++y)
                  for (int64_t i = (z * p.H + y) * p.W + win.w.lo, e = i + win.w.hi - win.w.lo; i < e; ++i)
                    gx[i] = gx[i] + g;
            }
      }
    });
  });
}

void adaptive_avg_pool(const Tensor& out, const Tensor& input) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const Planes p = planes_of(input, out);
    const T* px = input.data_ptr<T>();
    T* py = out.data_ptr<T>();
    for_each_output(p, p.in_size() + p.out_size(), [&](int64_t c, int64_t od, int64_t oh, int64_t ow, int64_t o) {
      const T* x = px + c * p.in_size();
      const Range d = adaptive_range(od, p.oD, p.D), h = adaptive_range(oh, p.oH, p.H),
                  w = adaptive_range(ow, p.oW, p.W);
      T s = T(0);
      for (int64_t z = d.lo; z < d.hi; ++z)
        for (int64_t y = h.lo; y < h.hi; ++y)
          for (int64_t i = (z * p.H + y) * p.W + w.lo, e = i + w.size(); i < e; ++i) s = s + x[i];
      // one division per dim, as PyTorch's kernels (sum / kd / kh / kw; 2-D planes divide by kd = 1,
      // which is exact)
      py[o] = s / static_cast<T>(d.size()) / static_cast<T>(h.size()) / static_cast<T>(w.size());
    });
  });
}

void adaptive_avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out) {
  dispatch_floating(grad_input.dtype(), [&]<class T>() {
    const Planes p = planes_of(grad_input, grad_out);
    const T* pg = grad_out.data_ptr<T>();
    T* px = grad_input.data_ptr<T>();
    detail::parallel_for(p.planes, p.in_size() + p.out_size(), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        T* gx = px + c * p.in_size();
        for (int64_t i = 0; i < p.in_size(); ++i) gx[i] = T(0);
        for (int64_t od = 0, o = c * p.out_size(); od < p.oD; ++od) {
          const Range d = adaptive_range(od, p.oD, p.D);
          for (int64_t oh = 0; oh < p.oH; ++oh) {
            const Range h = adaptive_range(oh, p.oH, p.H);
            for (int64_t ow = 0; ow < p.oW; ++ow, ++o) {
              const Range w = adaptive_range(ow, p.oW, p.W);
              const T g = pg[o] / static_cast<T>(d.size()) / static_cast<T>(h.size()) / static_cast<T>(w.size());
              for (int64_t z = d.lo; z < d.hi; ++z)
                for (int64_t y = h.lo; y < h.hi; ++y)
                  for (int64_t i = (z * p.H + y) * p.W + w.lo, e = i + w.size(); i < e; ++i) gx[i] = gx[i] + g;
            }
          }
        }
      }
    });
  });
}

void adaptive_max_pool(const Tensor& values, const Tensor& indices, const Tensor& input) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const Planes p = planes_of(input, values);
    const T* px = input.data_ptr<T>();
    T* pv = values.data_ptr<T>();
    int64_t* pi = indices.data_ptr<int64_t>();
    for_each_output(p, p.in_size() + p.out_size(), [&](int64_t c, int64_t od, int64_t oh, int64_t ow, int64_t o) {
      max_scan(px + c * p.in_size(), p, adaptive_range(od, p.oD, p.D), adaptive_range(oh, p.oH, p.H),
               adaptive_range(ow, p.oW, p.W), 1, 1, 1, pv[o], pi[o]);
    });
  });
}

// Fractional max pooling's window starts over one dim (PyTorch's generate_intervals): with u the
// plane's sample for the dim, start i = int((i + u) * alpha) - int(u * alpha), alpha = (in - k) /
// (out - 1) computed in T; the last window ends at the input's end.
template <class T>
std::vector<int64_t> fractional_starts(T u, int64_t in, int64_t out, int64_t k) {
  std::vector<int64_t> starts(static_cast<std::size_t>(out), in - k);
  if (out > 1) {
    const T alpha = static_cast<T>(in - k) / static_cast<T>(out - 1);
    for (int64_t i = 0; i + 1 < out; ++i)
      starts[static_cast<std::size_t>(i)] =
          static_cast<int64_t>((static_cast<T>(i) + u) * alpha) - static_cast<int64_t>(u * alpha);
  }
  return starts;
}

void fractional_max_pool(const Tensor& values, const Tensor& indices, const Tensor& input, const Tensor& samples,
                         const PoolArgs& a) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const Planes p = planes_of(input, values);
    const bool d3 = input.dim() == 5;
    const T* px = input.data_ptr<T>();
    const T* pu = samples.data_ptr<T>();
    T* pv = values.data_ptr<T>();
    int64_t* pi = indices.data_ptr<int64_t>();
    detail::parallel_for(p.planes, window_cost(p, a), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        // a plane's samples: (w, h) for 2-D pooling, (d, h, w) for 3-D, as PyTorch's
        const T* u = pu + c * (d3 ? 3 : 2);
        const auto sd = fractional_starts<T>(d3 ? u[0] : T(0), p.D, p.oD, a.kernel[0]);
        const auto sh = fractional_starts<T>(u[1], p.H, p.oH, a.kernel[1]);
        const auto sw = fractional_starts<T>(d3 ? u[2] : u[0], p.W, p.oW, a.kernel[2]);
        const T* x = px + c * p.in_size();
        for (int64_t od = 0, o = c * p.out_size(); od < p.oD; ++od)
          for (int64_t oh = 0; oh < p.oH; ++oh)
            for (int64_t ow = 0; ow < p.oW; ++ow, ++o) {
              const int64_t z = sd[static_cast<std::size_t>(od)], y = sh[static_cast<std::size_t>(oh)],
                            w = sw[static_cast<std::size_t>(ow)];
              max_scan(x, p, {z, z + a.kernel[0]}, {y, y + a.kernel[1]}, {w, w + a.kernel[2]}, 1, 1, 1, pv[o], pi[o]);
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
