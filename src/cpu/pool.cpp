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
Planes planes_of(const TensorBase& in, const TensorBase& out) {
  const bool d3 = in.dim() == 5;
  return {in.size(0) * in.size(1), d3 ? in.size(2) : 1, in.size(-2), in.size(-1),
          d3 ? out.size(2) : 1,    out.size(-2),        out.size(-1)};
}

// The cost estimate of a plane for parallel_for, saturating (huge kernels are legal arguments).
int64_t window_cost(const Planes& p, const PoolArgs& a) {
  int64_t c = p.out_size();
  for (int64_t k : {a.kernel[0], a.kernel[1], a.kernel[2]})
    if (__builtin_mul_overflow(c, k, &c)) return std::numeric_limits<int64_t>::max();
  return c;
}

// A window's bounds along one dim: [lo, hi), and for avg_pool its size with padding counted.
struct Range {
  int64_t lo, hi, padded = 0;
  int64_t size() const { return hi - lo; }
};

// Every output's window along each dim, computed once per call, so that their divisions and
// clipping stay out of the loops.
struct Boxes {
  std::vector<Range> d, h, w;
};

// Adaptive window i of n over size L: [floor(i * L / n), ceil((i + 1) * L / n)).
std::vector<Range> adaptive_ranges(int64_t n, int64_t L) {
  std::vector<Range> r(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) r[static_cast<std::size_t>(i)] = {i * L / n, ((i + 1) * L + n - 1) / n};
  return r;
}
Boxes adaptive_boxes(const Planes& p) {
  return {adaptive_ranges(p.oD, p.D), adaptive_ranges(p.oH, p.H), adaptive_ranges(p.oW, p.W)};
}

// avg_pool's windows along dim d (PyTorch's rules): the padded window clipped to the input.
std::vector<Range> avg_ranges(int64_t n, int64_t in, const PoolArgs& a, int d) {
  std::vector<Range> r(static_cast<std::size_t>(n));
  for (int64_t o = 0; o < n; ++o) {
    const int64_t lo = o * a.stride[d] - a.padding[d], hi = std::min(lo + a.kernel[d], in + a.padding[d]);
    r[static_cast<std::size_t>(o)] = {std::max<int64_t>(lo, 0), std::min(hi, in), hi - lo};
  }
  return r;
}
Boxes avg_boxes(const Planes& p, const PoolArgs& a) {
  return {avg_ranges(p.oD, p.D, a, 0), avg_ranges(p.oH, p.H, a, 1), avg_ranges(p.oW, p.W, a, 2)};
}
int64_t avg_divisor(const Range& d, const Range& h, const Range& w, const PoolArgs& a) {
  if (a.divisor != 0) return a.divisor;
  return a.count_include_pad ? d.padded * h.padded * w.padded : d.size() * h.size() * w.size();
}

// Visits every output of plane c, in order, with its window and flat output index; planes are
// split over threads.
template <class F>
void for_each_box(const Planes& p, const Boxes& b, int64_t cost, F&& f) {
  detail::parallel_for(p.planes, cost, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t od = 0, o = c * p.out_size(); od < p.oD; ++od)
        for (int64_t oh = 0; oh < p.oH; ++oh)
          for (int64_t ow = 0; ow < p.oW; ++ow, ++o)
            f(c, b.d[static_cast<std::size_t>(od)], b.h[static_cast<std::size_t>(oh)],
              b.w[static_cast<std::size_t>(ow)], o);
  });
}

// The window's sum in PyTorch's order (depth, row, column), from 0.
template <class T>
T box_sum(const T* x, const Planes& p, const Range& d, const Range& h, const Range& w) {
  T s = T(0);
  for (int64_t z = d.lo; z < d.hi; ++z)
    for (int64_t y = h.lo; y < h.hi; ++y)
      for (const T *v = x + (z * p.H + y) * p.W + w.lo, *e = v + w.size(); v < e; ++v) s = s + *v;
  return s;
}
// gx[window] += g, in the same order.
template <class T>
void box_add(T* gx, const Planes& p, const Range& d, const Range& h, const Range& w, T g) {
  for (int64_t z = d.lo; z < d.hi; ++z)
    for (int64_t y = h.lo; y < h.hi; ++y)
      for (T *v = gx + (z * p.H + y) * p.W + w.lo, *e = v + w.size(); v < e; ++v) *v = *v + g;
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

// The outputs (of n, along a dim of size L) whose window (extent from o * s - pad) lies inside:
// [lo, hi), without overflow for huge arguments.
Range inside_range(int64_t n, int64_t L, int64_t extent, int64_t s, int64_t pad) {
  const int64_t lo = std::min<int64_t>(pad == 0 ? 0 : (pad - 1) / s + 1, n);  // ceil(pad / s)
  const int64_t last = L - extent + pad;                                      // the last inside start + pad
  return {lo, std::max<int64_t>(lo, std::min<int64_t>(n, last >= 0 ? last / s + 1 : 0))};
}
Range inside_columns(const Planes& p, int64_t extent, int64_t sW, int64_t pW) {
  return inside_range(p.oW, p.W, extent, sW, pW);
}

// The rows of a window, as plane offsets in scan order (depth, then height), into rows.
void window_rows(std::vector<int64_t>& rows, const Planes& p, const Range& d, const Range& h, int64_t sd, int64_t sh) {
  rows.clear();
  for (int64_t z = d.lo; z < d.hi; z += sd)
    for (int64_t y = h.lo; y < h.hi; y += sh) rows.push_back((z * p.H + y) * p.W);
}

}  // namespace

void max_pool(const TensorBase& values, const TensorBase& indices, const TensorBase& input, const PoolArgs& a) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const Planes p = planes_of(input, values);
    const T* px = input.data_ptr<T>();
    T* pv = values.data_ptr<T>();
    int64_t* pi = indices.data_ptr<int64_t>();
    const int64_t kW = a.kernel[2], dW = a.dilation[2], sW = a.stride[2], pW = a.padding[2];
    const Range in = inside_columns(p, (kW - 1) * dW + 1, sW, pW);
    // the output rows whose windows lie inside the plane's rows: their window rows move by sH rows
    // from one output row to the next, so the vectorised scan takes them all in one call
    const Range in_h = inside_range(p.oH, p.H, (a.kernel[1] - 1) * a.dilation[1] + 1, a.stride[1], a.padding[1]);
    detail::parallel_for(p.planes, window_cost(p, a), [&](int64_t c0, int64_t c1) {
      std::vector<int64_t> rows;  // the window's rows, as plane offsets in scan order
      for (int64_t c = c0; c < c1; ++c) {
        const T* x = px + c * p.in_size();
        for (int64_t od = 0; od < p.oD; ++od) {
          const Range d = dilated_range(od, p.D, a, 0);
          for (int64_t oh = 0; oh < p.oH;) {
            const Range h = dilated_range(oh, p.H, a, 1);
            // output rows [oh, oh + nout): the inside rows together, any other row alone
            const int64_t nout = oh == in_h.lo && in_h.lo < in_h.hi ? in_h.hi - in_h.lo : 1;
            window_rows(rows, p, d, h, a.dilation[0], a.dilation[1]);
            const auto nrows = static_cast<int64_t>(rows.size());
            // Inside windows: the same scan, vectorised across output columns (cpu/pool_impl.h),
            // where the window has rows and its tap numbers are exact in a float lane.
            const bool simd = nrows > 0 && nrows <= (int64_t(1) << 24) / kW;
            for (int64_t r = oh; r < oh + nout; ++r) {
              const Range hr = dilated_range(r, p.H, a, 1);
              const int64_t o = ((c * p.oD + od) * p.oH + r) * p.oW;
              auto window = [&](int64_t ow) {
                max_scan(x, p, d, hr, dilated_range(ow, p.W, a, 2), a.dilation[0], a.dilation[1], dW, pv[o + ow],
                         pi[o + ow]);
              };
              for (int64_t ow = 0; ow < (simd ? in.lo : p.oW); ++ow) window(ow);
              if (simd)
                for (int64_t ow = in.hi; ow < p.oW; ++ow) window(ow);
            }
            if (simd && in.lo < in.hi) {
              const int64_t o = ((c * p.oD + od) * p.oH + oh) * p.oW;
              // (nout > 1 only when sH rows fit in the plane: no overflow for a huge stride)
              const int64_t row_step = nout > 1 ? a.stride[1] * p.W : 0;
              max_pool_inside(x, rows.data(), nrows, kW, dW, sW, pW, in.lo, in.hi, nout, row_step, pv + o, pi + o,
                              p.oW);
            }
            oh += nout;
          }
        }
      }
    });
  });
}

void max_pool_backward(const TensorBase& grad_input, const TensorBase& grad_out, const TensorBase& indices) {
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

void avg_pool(const TensorBase& out, const TensorBase& input, const PoolArgs& a) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const Planes p = planes_of(input, out);
    const Boxes b = avg_boxes(p, a);
    const T* px = input.data_ptr<T>();
    T* py = out.data_ptr<T>();
    const int64_t kW = a.kernel[2], sW = a.stride[2], pW = a.padding[2];
    const Range in = inside_columns(p, kW, sW, pW);
    detail::parallel_for(p.planes, window_cost(p, a), [&](int64_t c0, int64_t c1) {
      std::vector<int64_t> rows;  // the window's rows, as plane offsets in scan order
      for (int64_t c = c0; c < c1; ++c) {
        const T* x = px + c * p.in_size();
        for (int64_t od = 0; od < p.oD; ++od)
          for (int64_t oh = 0; oh < p.oH; ++oh) {
            const Range &d = b.d[static_cast<std::size_t>(od)], &h = b.h[static_cast<std::size_t>(oh)];
            T* y = py + ((c * p.oD + od) * p.oH + oh) * p.oW;
            // 0 + sum / divisor, as PyTorch's kernels write it (a -0 sum gives +0); an empty window 0
            auto window = [&](int64_t ow) {
              const Range& w = b.w[static_cast<std::size_t>(ow)];
              y[ow] = d.size() <= 0 || h.size() <= 0 || w.size() <= 0
                          ? T(0)
                          : T(0) + box_sum(x, p, d, h, w) / static_cast<T>(avg_divisor(d, h, w, a));
            };
            const bool simd = d.size() > 0 && h.size() > 0 && in.lo < in.hi;
            for (int64_t ow = 0; ow < (simd ? in.lo : p.oW); ++ow) window(ow);
            if (!simd) continue;
            // Inside windows: the same sums, vectorised across output columns (cpu/pool_impl.h).
            window_rows(rows, p, d, h, 1, 1);
            const T divisor = static_cast<T>(avg_divisor(d, h, b.w[static_cast<std::size_t>(in.lo)], a));
            avg_pool_inside(x, rows.data(), static_cast<int64_t>(rows.size()), kW, sW, pW, in.lo, in.hi, divisor, y);
            for (int64_t ow = in.hi; ow < p.oW; ++ow) window(ow);
          }
      }
    });
  });
}

// Each plane's gradient accumulated serially in output order (as PyTorch's kernels).
template <class T, class G>
void scatter_boxes(const TensorBase& grad_input, const TensorBase& grad_out, const Boxes& b, int64_t cost,
                   G&& grad_of) {
  const Planes p = planes_of(grad_input, grad_out);
  const T* pg = grad_out.data_ptr<T>();
  T* px = grad_input.data_ptr<T>();
  detail::parallel_for(p.planes, cost, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      T* gx = px + c * p.in_size();
      std::fill(gx, gx + p.in_size(), T(0));
      for (int64_t od = 0, o = c * p.out_size(); od < p.oD; ++od)
        for (int64_t oh = 0; oh < p.oH; ++oh)
          for (int64_t ow = 0; ow < p.oW; ++ow, ++o) {
            const Range &d = b.d[static_cast<std::size_t>(od)], &h = b.h[static_cast<std::size_t>(oh)],
                        &w = b.w[static_cast<std::size_t>(ow)];
            if (d.size() <= 0 || h.size() <= 0 || w.size() <= 0) continue;
            box_add(gx, p, d, h, w, grad_of(pg[o], d, h, w));
          }
    }
  });
}

void avg_pool_backward(const TensorBase& grad_input, const TensorBase& grad_out, const PoolArgs& a) {
  dispatch_floating(grad_input.dtype(), [&]<class T>() {
    const Planes p = planes_of(grad_input, grad_out);
    scatter_boxes<T>(grad_input, grad_out, avg_boxes(p, a), window_cost(p, a),
                     [&](T g, const Range& d, const Range& h, const Range& w) {
                       return g / static_cast<T>(avg_divisor(d, h, w, a));
                     });
  });
}

// One division per dim, as PyTorch's kernels (sum / kd / kh / kw; 2-D planes divide by kd = 1,
// which is exact); the gradient the same way.
template <class T>
T adaptive_mean(T s, const Range& d, const Range& h, const Range& w) {
  return s / static_cast<T>(d.size()) / static_cast<T>(h.size()) / static_cast<T>(w.size());
}

void adaptive_avg_pool(const TensorBase& out, const TensorBase& input) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const Planes p = planes_of(input, out);
    const T* px = input.data_ptr<T>();
    T* py = out.data_ptr<T>();
    for_each_box(p, adaptive_boxes(p), p.in_size() + p.out_size(),
                 [&](int64_t c, const Range& d, const Range& h, const Range& w, int64_t o) {
                   py[o] = adaptive_mean(box_sum(px + c * p.in_size(), p, d, h, w), d, h, w);
                 });
  });
}

void adaptive_avg_pool_backward(const TensorBase& grad_input, const TensorBase& grad_out) {
  dispatch_floating(grad_input.dtype(), [&]<class T>() {
    const Planes p = planes_of(grad_input, grad_out);
    scatter_boxes<T>(grad_input, grad_out, adaptive_boxes(p), p.in_size() + p.out_size(),
                     [](T g, const Range& d, const Range& h, const Range& w) { return adaptive_mean(g, d, h, w); });
  });
}

void adaptive_max_pool(const TensorBase& values, const TensorBase& indices, const TensorBase& input) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const Planes p = planes_of(input, values);
    const T* px = input.data_ptr<T>();
    T* pv = values.data_ptr<T>();
    int64_t* pi = indices.data_ptr<int64_t>();
    for_each_box(p, adaptive_boxes(p), p.in_size() + p.out_size(),
                 [&](int64_t c, const Range& d, const Range& h, const Range& w, int64_t o) {
                   max_scan(px + c * p.in_size(), p, d, h, w, 1, 1, 1, pv[o], pi[o]);
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

void fractional_max_pool(const TensorBase& values, const TensorBase& indices, const TensorBase& input,
                         const TensorBase& samples, const PoolArgs& a) {
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
void max_unpool_racing(const TensorBase& out, const TensorBase& input, const TensorBase& indices) {
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
