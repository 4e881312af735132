// Padding and upsampling: separable resampling of the last 1 to 3 dims of contiguous tensors.
// Along each spatial axis, output position o reads a few taps of the input: one index for padding
// and nearest (padding's constant positions read none), two indices and weights for linear, four
// for cubic. The taps are PyTorch's index and weight arithmetic (Note [Upsampling arithmetic]).
//
// Note [Resampling order]
// Forward: each output element is computed alone, from its taps, outer axis first, as PyTorch's
// CPU kernel writes it (and its AVX2 build contracts it): two taps t0 w0 + t1 w1 as
// fma(t0, w0, t1 * w1); four taps as acc = fma(t0, w0, t1 * w1), then acc = fma(t_j, w_j, acc)
// for j = 2, 3.
// Backward, in gather form: each input element's gradient is owned by one task, which adds the
// contributions of every output that reads it, in PyTorch's serial order: outputs in row-major
// order, and the taps of one output in row-major order, each as fma(w_0 w_1 ..., g, acc) (linear),
// acc + g (nearest, padding), or acc + (g w_y) w_x with the taps in column-major order (bicubic,
// as PyTorch's uncontracted bicubic backward). No atomics, no race: the result is the same for
// every thread count and split, and matches PyTorch 1.13's bits.
#include "cpu/decl/resample.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/parallel.h"
#include "cpu/loops.h"

namespace ditto::cpu {
namespace {

// One axis of a resampling: taps[o * ntaps + j] for output position o; index -1 reads the pad value.
template <class T>
struct Axis {
  int64_t in = 1, out = 1, ntaps = 1;
  std::vector<int64_t> idx{0};
  std::vector<T> w{T(1)};
};

// The inverse of an axis, for the backward: for input position i, the groups [gstart[i],
// gstart[i + 1]) in increasing o, each the taps of one output o that read i, in tap order.
template <class T>
struct Inverse {
  struct Group {
    int64_t o, e0, e1;  // entries [e0, e1) of ew
  };
  std::vector<int64_t> gstart;
  std::vector<Group> groups;
  std::vector<T> ew;  // each entry's weight
};

template <class T>
Inverse<T> invert(const Axis<T>& a) {
  Inverse<T> r;
  std::vector<int64_t> count(static_cast<std::size_t>(a.in) + 1, 0);
  // groups: an output o and input i with at least one tap; entries in (o, tap) order
  std::vector<std::vector<typename Inverse<T>::Group>> by_in(static_cast<std::size_t>(a.in));
  std::vector<std::vector<T>> w_in(static_cast<std::size_t>(a.in));
  for (int64_t o = 0; o < a.out; ++o)
    for (int64_t j = 0; j < a.ntaps; ++j) {
      const int64_t i = a.idx[static_cast<std::size_t>(o * a.ntaps + j)];
      if (i < 0) continue;
      auto& gs = by_in[static_cast<std::size_t>(i)];
      auto& ws = w_in[static_cast<std::size_t>(i)];
      if (gs.empty() || gs.back().o != o) gs.push_back({o, int64_t(ws.size()), int64_t(ws.size())});
      ws.push_back(a.w[static_cast<std::size_t>(o * a.ntaps + j)]);
      gs.back().e1 = int64_t(ws.size());
    }
  r.gstart.assign(static_cast<std::size_t>(a.in) + 1, 0);
  for (int64_t i = 0; i < a.in; ++i) {
    const int64_t base = int64_t(r.ew.size());
    for (auto g : by_in[static_cast<std::size_t>(i)]) r.groups.push_back({g.o, g.e0 + base, g.e1 + base});
    r.ew.insert(r.ew.end(), w_in[static_cast<std::size_t>(i)].begin(), w_in[static_cast<std::size_t>(i)].end());
    r.gstart[static_cast<std::size_t>(i) + 1] = int64_t(r.groups.size());
  }
  return r;
}

// --- Note [Upsampling arithmetic]: PyTorch 1.13's (aten/src/ATen/native/UpSample.h and its CPU
// kernels), with every a * b + c of the AVX2-built forward and linear backward as one fma.

// compute_scales_value: 1 / scale_factor when given, else in / out, in S.
template <class S>
S scale_value(double scale, int64_t in, int64_t out) {
  return scale > 0. ? static_cast<S>(1.0 / scale) : static_cast<S>(in) / static_cast<S>(out);
}
// area_pixel_compute_scale
template <class S>
S area_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? static_cast<S>(in - 1) / static_cast<S>(out - 1) : S(0);
  return scale_value<S>(scale, in, out);
}

template <class T>
Axis<T> nearest_axis(int64_t in, int64_t out, double scale, bool exact) {
  Axis<T> a;
  a.in = in, a.out = out, a.ntaps = 1;
  a.idx.resize(static_cast<std::size_t>(out));
  a.w.assign(static_cast<std::size_t>(out), T(1));
  const float s = scale_value<float>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i;
    if (exact) {
      i = static_cast<int64_t>(std::floor(static_cast<float>((static_cast<double>(o) + 0.5) * s)));
    } else if (out == in) {
      i = o;
    } else if (out == 2 * in) {
      i = o >> 1;
    } else {
      i = static_cast<int64_t>(std::floor(static_cast<float>(o) * s));
    }
    a.idx[static_cast<std::size_t>(o)] = std::min(i, in - 1);
  }
  return a;
}

// compute_source_index_and_lambda: the source position in double (the accumulate type).
template <class T>
Axis<T> linear_axis(int64_t in, int64_t out, double scale, bool align_corners) {
  Axis<T> a;
  a.in = in, a.out = out, a.ntaps = 2;
  a.idx.resize(static_cast<std::size_t>(2 * out));
  a.w.resize(static_cast<std::size_t>(2 * out));
  const double ratio = area_scale<T>(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i0 = o, i1 = o;
    T l0 = T(1), l1 = T(0);
    if (out != in) {
      double real =
          align_corners ? ratio * static_cast<double>(o) : std::fma(ratio, static_cast<double>(o) + 0.5, -0.5);
      if (!align_corners && real < 0.) real = 0.;
      i0 = static_cast<int64_t>(real);
      i1 = i0 + (i0 < in - 1 ? 1 : 0);
      l1 = static_cast<T>(real - static_cast<double>(i0));
      l0 = T(1) - l1;
    }
    a.idx[static_cast<std::size_t>(2 * o)] = i0, a.idx[static_cast<std::size_t>(2 * o + 1)] = i1;
    a.w[static_cast<std::size_t>(2 * o)] = l0, a.w[static_cast<std::size_t>(2 * o + 1)] = l1;
  }
  return a;
}

// get_cubic_upsample_coefficients (A = -0.75) at t in [0, 1), as PyTorch's bicubic backward
// (plain arithmetic in T) writes it.
template <class T>
void cubic_coefficients(T w[4], T t) {
  const T A = T(-0.75);
  auto c1 = [A](T x) { return ((A + T(2)) * x - (A + T(3))) * x * x + T(1); };
  auto c2 = [A](T x) { return ((A * x - T(5) * A) * x + T(8) * A) * x - T(4) * A; };
  w[0] = c2(static_cast<T>(t + 1.0));
  w[1] = c1(t);
  const T x2 = static_cast<T>(1.0 - t);
  w[2] = c1(x2);
  w[3] = c2(static_cast<T>(x2 + 1.0));
}

// PyTorch's bicubic forward (its AVX2 build; A = -0.75 folded): the source position in double,
// floored in float, and the weights with some of their multiply-adds fused.
template <class T>
void cubic_coefficients_fused(T w[4], T t) {
  auto c1 = [](T x) { return std::fma(T(1.25), x, T(-2.25)) * x * x + T(1); };
  auto c2 = [](T x) { return std::fma(std::fma(T(-0.75), x, T(3.75)), x, T(-6)) * x + T(3); };
  const T x2 = static_cast<T>(1.0 - static_cast<double>(t));
  w[0] = c2(static_cast<T>(static_cast<double>(t) + 1.0));
  w[1] = c1(t);
  w[2] = c1(x2);
  w[3] = c2(static_cast<T>(static_cast<double>(x2) + 1.0));
}

// forward: the forward kernel's arithmetic; else the backward's (PyTorch's two kernels differ).
template <class T>
Axis<T> cubic_axis(int64_t in, int64_t out, double scale, bool align_corners, bool forward) {
  Axis<T> a;
  a.in = in, a.out = out, a.ntaps = 4;
  a.idx.resize(static_cast<std::size_t>(4 * out));
  a.w.resize(static_cast<std::size_t>(4 * out));
  const T ratio = area_scale<T>(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i;
    T w[4];
    if (forward) {
      const double real = align_corners ? static_cast<double>(ratio) * static_cast<double>(o)
                                        : std::fma(static_cast<double>(ratio), static_cast<double>(o) + 0.5, -0.5);
      i = static_cast<int64_t>(std::floor(static_cast<float>(real)));  // floorf, as PyTorch
      cubic_coefficients_fused<T>(w, static_cast<T>(real - static_cast<double>(i)));
    } else {
      const T real = align_corners ? ratio * static_cast<T>(o) : ratio * (static_cast<T>(o) + T(0.5)) - T(0.5);
      i = static_cast<int64_t>(std::floor(static_cast<float>(real)));
      cubic_coefficients<T>(w, real - static_cast<T>(i));
    }
    for (int64_t j = 0; j < 4; ++j) {
      a.idx[static_cast<std::size_t>(4 * o + j)] = std::clamp<int64_t>(i - 1 + j, 0, in - 1);
      a.w[static_cast<std::size_t>(4 * o + j)] = w[j];
    }
  }
  return a;
}

// Padding: output position o is input position o - before, reflected or clamped into [0, in), or
// -1 (the constant); circular wraps around the input cropped by the negative widths.
template <class T>
Axis<T> pad_axis(int64_t in, int64_t out, int64_t before, PadMode mode) {
  Axis<T> a;
  a.in = in, a.out = out, a.ntaps = 1;
  a.idx.resize(static_cast<std::size_t>(out));
  a.w.assign(static_cast<std::size_t>(out), T(1));
  for (int64_t o = 0; o < out; ++o) {
    const int64_t x = o - before;
    int64_t i = x;
    switch (mode) {
      case PadMode::Constant: i = x >= 0 && x < in ? x : -1; break;
      case PadMode::Reflect: i = x < 0 ? -x : x >= in ? 2 * (in - 1) - x : x; break;
      case PadMode::Replicate: i = std::clamp<int64_t>(x, 0, in - 1); break;
      case PadMode::Circular: i = x; break;
    }
    a.idx[static_cast<std::size_t>(o)] = i;
  }
  if (mode == PadMode::Circular) {
    // PyTorch's: crop by the negative widths first, then wrap around what is left, [c, c + m)
    const int64_t after = out - in - before;
    const int64_t c = std::max<int64_t>(-before, 0), m = in - c - std::max<int64_t>(-after, 0);
    const int64_t lead = std::max<int64_t>(before, 0);
    for (int64_t o = 0; o < out; ++o) a.idx[static_cast<std::size_t>(o)] = c + (((o - lead) % m) + m) % m;
  }
  return a;
}

enum class Combine { Sum, Linear, Cubic };

// A resampling of contiguous (planes, ax[0].in, ax[1].in, ax[2].in) to (planes, ax[0].out, ...):
// spatial dims fewer than three get leading axes of size 1 with one tap.
template <class T>
struct Resampling {
  int64_t planes = 1;
  Axis<T> ax[3];
  Combine combine = Combine::Sum;
  T value = T(0);
};

// The leading dims of t (all but its last `dims`) as planes, its last dims as axes' sizes.
template <class T>
Resampling<T> shape_of(const Tensor& in, const Tensor& out, int dims) {
  Resampling<T> r;
  const int64_t nd = in.dim();
  for (int64_t d = 0; d < nd - dims; ++d) r.planes *= in.size(d);
  return r;
}

// Forward: row (p, o0, o1) of the output, ax[2].out elements.
template <class T>
struct Forward {
  const Resampling<T>& r;

  // Combines the taps' rows src[j] (each ax[2].out long) with weights w[j] into dst.
  static void combine(const T* const* src, const T* w, int64_t ntaps, int64_t n, T* dst) {
    for (int64_t q = 0; q < n; ++q) {
      T acc = std::fma(src[0][q], w[0], src[1][q] * w[1]);
      for (int64_t j = 2; j < ntaps; ++j) acc = std::fma(src[j][q], w[j], acc);
      dst[q] = acc;
    }
  }
  // The last axis over one input line (nullptr: the constant).
  void line(const T* x, T* dst) const {
    const Axis<T>& a = r.ax[2];
    const int64_t n = a.out;
    if (!x) {
      std::fill(dst, dst + n, r.value);
      return;
    }
    const int64_t* ix = a.idx.data();
    if (a.ntaps == 1) {
      for (int64_t q = 0; q < n; ++q) dst[q] = ix[q] < 0 ? r.value : x[ix[q]];
      return;
    }
    if constexpr (std::is_floating_point_v<T>) weighted_line(x, dst);
  }
  void weighted_line(const T* x, T* dst) const {
    const Axis<T>& a = r.ax[2];
    const int64_t n = a.out;
    const int64_t* ix = a.idx.data();
    if (a.ntaps == 2) {
      const T* w = a.w.data();
      for (int64_t q = 0; q < n; ++q) dst[q] = std::fma(x[ix[2 * q]], w[2 * q], x[ix[2 * q + 1]] * w[2 * q + 1]);
    } else {
      const T* w = a.w.data();
      const int64_t k = a.ntaps;
      for (int64_t q = 0; q < n; ++q) {
        T acc = std::fma(x[ix[k * q]], w[k * q], x[ix[k * q + 1]] * w[k * q + 1]);
        for (int64_t j = 2; j < k; ++j) acc = std::fma(x[ix[k * q + j]], w[k * q + j], acc);
        dst[q] = acc;
      }
    }
  }
  // Axis d (0 or 1) at output position o over a slab of the input (nullptr: the constant).
  void axis(int d, const T* slab, int64_t o, T* dst, T* buf) const {
    const Axis<T>& a = r.ax[d];
    const int64_t stride = d == 0 ? r.ax[1].in * r.ax[2].in : r.ax[2].in;
    auto inner = [&](const T* s, T* out_row, T* next_buf) {
      if (d == 0)
        axis(1, s, o1_, out_row, next_buf);
      else
        line(s, out_row);
    };
    if (a.ntaps == 1) {
      const int64_t i = a.idx[static_cast<std::size_t>(o)];
      inner(slab && i >= 0 ? slab + i * stride : nullptr, dst, buf);
      return;
    }
    if constexpr (std::is_floating_point_v<T>) weighted_axis(a, stride, slab, o, dst, buf, inner);
  }
  template <class Inner>
  void weighted_axis(const Axis<T>& a, int64_t stride, const T* slab, int64_t o, T* dst, T* buf,
                     const Inner& inner) const {
    const int64_t n = r.ax[2].out;
    const T* rows[4];
    for (int64_t j = 0; j < a.ntaps; ++j) {
      const int64_t i = a.idx[static_cast<std::size_t>(o * a.ntaps + j)];
      T* row = buf + j * n;
      inner(slab + i * stride, row, buf + a.ntaps * n);
      rows[j] = row;
    }
    combine(rows, a.w.data() + o * a.ntaps, a.ntaps, n, dst);
  }
  int64_t o1_ = 0;
};

template <class T>
void run_forward(const Resampling<T>& r, const T* in, T* out) {
  const int64_t rows = r.ax[0].out * r.ax[1].out, n = r.ax[2].out;
  const int64_t in_plane = r.ax[0].in * r.ax[1].in * r.ax[2].in;
  const int64_t cost = n * r.ax[0].ntaps * r.ax[1].ntaps * r.ax[2].ntaps;
  detail::parallel_for(r.planes * rows, cost, [&](int64_t b, int64_t e) {
    // rows for the taps of axes 0 and 1 (a vector<bool> has no data())
    const auto buf = std::make_unique<T[]>(static_cast<std::size_t>((r.ax[0].ntaps + r.ax[1].ntaps) * n));
    Forward<T> f{r};
    for (int64_t t = b; t < e; ++t) {
      const int64_t p = t / rows, o0 = (t % rows) / r.ax[1].out;
      f.o1_ = t % r.ax[1].out;
      f.axis(0, in + p * in_plane, o0, out + t * n, buf.get());
    }
  });
}

template <class T>
void run_backward(const Resampling<T>& r, const T* gout, T* gin) {
  const Inverse<T> inv[3] = {invert(r.ax[0]), invert(r.ax[1]), invert(r.ax[2])};
  const int64_t rows = r.ax[0].in * r.ax[1].in, n = r.ax[2].in;
  const int64_t out_plane = r.ax[0].out * r.ax[1].out * r.ax[2].out;
  const int64_t per_in = std::max<int64_t>(1, out_plane / std::max<int64_t>(1, rows * n));
  const int64_t cost = n * per_in * r.ax[0].ntaps * r.ax[1].ntaps * r.ax[2].ntaps;
  const Combine c = r.combine;
  detail::parallel_for(r.planes * rows, cost, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t p = t / rows, i0 = (t % rows) / r.ax[1].in, i1 = t % r.ax[1].in;
      const T* gp = gout + p * out_plane;
      T* dst = gin + t * n;
      const auto& I0 = inv[0];
      const auto& I1 = inv[1];
      const auto& I2 = inv[2];
      for (int64_t i2 = 0; i2 < n; ++i2) {
        T acc = T(0);
        for (int64_t a = I0.gstart[i0]; a < I0.gstart[i0 + 1]; ++a) {
          const auto& g0 = I0.groups[static_cast<std::size_t>(a)];
          for (int64_t bb = I1.gstart[i1]; bb < I1.gstart[i1 + 1]; ++bb) {
            const auto& g1 = I1.groups[static_cast<std::size_t>(bb)];
            const T* grow = gp + (g0.o * r.ax[1].out + g1.o) * r.ax[2].out;
            for (int64_t cc = I2.gstart[i2]; cc < I2.gstart[i2 + 1]; ++cc) {
              const auto& g2 = I2.groups[static_cast<std::size_t>(cc)];
              const T gv = grow[g2.o];
              if (c == Combine::Sum) {
                const int64_t k = (g0.e1 - g0.e0) * (g1.e1 - g1.e0) * (g2.e1 - g2.e0);
                for (int64_t q = 0; q < k; ++q) acc = acc + gv;
              } else if (c == Combine::Linear) {
                for (int64_t e0 = g0.e0; e0 < g0.e1; ++e0)
                  for (int64_t e1 = g1.e0; e1 < g1.e1; ++e1)
                    for (int64_t e2 = g2.e0; e2 < g2.e1; ++e2) {
                      const T w = I0.ew[static_cast<std::size_t>(e0)] * I1.ew[static_cast<std::size_t>(e1)] *
                                  I2.ew[static_cast<std::size_t>(e2)];
                      acc = std::fma(w, gv, acc);
                    }
              } else {  // bicubic: axes 1 (y) and 2 (x), x taps outer
                for (int64_t e2 = g2.e0; e2 < g2.e1; ++e2)
                  for (int64_t e1 = g1.e0; e1 < g1.e1; ++e1)
                    acc = acc + gv * I1.ew[static_cast<std::size_t>(e1)] * I2.ew[static_cast<std::size_t>(e2)];
              }
            }
          }
        }
        dst[i2] = acc;
      }
    }
  });
}

// The resampling of a pad: axes from the tensors' last dims (in: small, out: large).
template <class T>
Resampling<T> pad_resampling(const Tensor& small, const Tensor& large, const PadArgs& args) {
  Resampling<T> r = shape_of<T>(small, large, args.dims);
  const int64_t nd = small.dim();
  for (int d = 0; d < args.dims; ++d) {
    const int64_t k = nd - args.dims + d;
    r.ax[3 - args.dims + d] = pad_axis<T>(small.size(k), large.size(k), args.before[d], args.mode);
  }
  r.value = static_cast<T>(args.value);
  r.combine = Combine::Sum;
  return r;
}

template <class T>
Resampling<T> upsample_resampling(const Tensor& small, const Tensor& large, const UpsampleArgs& args, bool backward) {
  Resampling<T> r = shape_of<T>(small, large, args.dims);
  const int64_t nd = small.dim();
  for (int d = 0; d < args.dims; ++d) {
    const int64_t k = nd - args.dims + d, in = small.size(k), out = large.size(k);
    const double s = args.scales[d];
    Axis<T>& a = r.ax[3 - args.dims + d];
    switch (args.mode) {
      case UpsampleMode::Nearest: a = nearest_axis<T>(in, out, s, false); break;
      case UpsampleMode::NearestExact: a = nearest_axis<T>(in, out, s, true); break;
      case UpsampleMode::Linear: a = linear_axis<T>(in, out, s, args.align_corners); break;
      case UpsampleMode::Cubic: a = cubic_axis<T>(in, out, s, args.align_corners, !backward); break;
    }
  }
  r.combine = args.mode == UpsampleMode::Linear  ? Combine::Linear
              : args.mode == UpsampleMode::Cubic ? Combine::Cubic
                                                 : Combine::Sum;
  return r;
}

}  // namespace

void pad(const Tensor& out, const Tensor& in, const PadArgs& args) {
  dispatch_dtype(in.dtype(), [&]<class T>() {
    run_forward(pad_resampling<T>(in, out, args), in.data_ptr<T>(), out.data_ptr<T>());
  });
}

void pad_backward(const Tensor& grad_in, const Tensor& grad_out, const PadArgs& args) {
  dispatch_floating(grad_in.dtype(), [&]<class T>() {
    run_backward(pad_resampling<T>(grad_in, grad_out, args), grad_out.data_ptr<T>(), grad_in.data_ptr<T>());
  });
}

void upsample(const Tensor& out, const Tensor& in, const UpsampleArgs& args) {
  dispatch_floating(in.dtype(), [&]<class T>() {
    run_forward(upsample_resampling<T>(in, out, args, false), in.data_ptr<T>(), out.data_ptr<T>());
  });
}

void upsample_backward(const Tensor& grad_in, const Tensor& grad_out, const UpsampleArgs& args) {
  dispatch_floating(grad_in.dtype(), [&]<class T>() {
    run_backward(upsample_resampling<T>(grad_in, grad_out, args, true), grad_out.data_ptr<T>(), grad_in.data_ptr<T>());
  });
}

}  // namespace ditto::cpu
