// Padding and upsampling: separable resampling of the last 1 to 3 dims of contiguous tensors.
// Along each spatial axis, output position o reads a few taps of the input: one index for padding
// and nearest (padding's constant positions read none), two indices and weights for linear, four
// for cubic. The taps are PyTorch's index and weight arithmetic (Note [Upsampling arithmetic]).
//
// Note [Resampling order]
// Forward: each output element is the expression of its taps, outer axis first, as PyTorch's CPU
// kernel writes it (and its AVX2 build contracts it): two taps t0 w0 + t1 w1 as
// fma(t0, w0, t1 * w1); four taps as acc = fma(t0, w0, t1 * w1), then acc = fma(t_j, w_j, acc)
// for j = 2, 3. An inner axis's result for one input row does not depend on which output row
// uses it, so the loops (cpu/resample_impl.h) compute it once per input row and keep it.
// Backward: every input element adds the contributions of the outputs that read it in PyTorch's
// serial order: outputs in row-major order, and the taps of one output in row-major order, each
// as fma(w_0 w_1 ..., g, acc) (linear), acc + g (nearest, padding), or acc + (g w_y) w_x with the
// taps in column-major order (bicubic, as PyTorch's uncontracted bicubic backward). Two forms keep
// that order: whole planes per task, scattered in output order (eight planes or more), or each
// input element per task, gathered over the axes' inverse taps (fewer planes). Each element is
// owned by one task, no atomics, no race: the same bits for every thread count, split and form
// (BatchInvariance.Resampling compares the two forms), and PyTorch 1.13's bits.
#include "cpu/decl/resample.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "cpu/capability.h"
#include "cpu/loops.h"
#include "cpu/resample_impl.h"

DITTO_RESAMPLE_LEVEL(scalar)

namespace ditto::cpu {
namespace {
using namespace resample;

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

// An axis of one tap per output (indices to fill in), weight 1.
template <class T>
Axis<T> one_tap_axis(int64_t in, int64_t out) {
  Axis<T> a;
  a.in = in, a.out = out, a.ntaps = 1;
  a.idx.resize(static_cast<std::size_t>(out));
  a.w.assign(static_cast<std::size_t>(out), T(1));
  return a;
}

template <class T>
Axis<T> nearest_axis(int64_t in, int64_t out, double scale, bool exact) {
  Axis<T> a = one_tap_axis<T>(in, out);
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
  Axis<T> a = one_tap_axis<T>(in, out);
  for (int64_t o = 0; o < out; ++o) {
    const int64_t x = o - before;
    int64_t i = x;
    switch (mode) {
      case PadMode::Constant:
        i = x >= 0 && x < in ? x : -1;
        a.constant = a.constant || i < 0;
        break;
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

// The leading dims of t (all but its last `dims`) as planes, its last dims as axes' sizes.
template <class T>
Resampling<T> shape_of(const TensorBase& in, const TensorBase& out, int dims) {
  Resampling<T> r;
  const int64_t nd = in.dim();
  for (int64_t d = 0; d < nd - dims; ++d) r.planes *= in.size(d);
  return r;
}

// The level's loops for float and double; other dtypes (padding only) at the scalar level.
template <class T>
void forward(const Resampling<T>& r, const T* in, T* out) {
  if constexpr (std::is_same_v<T, float>)
    by_level(&forward_f32_scalar, &forward_f32_avx2, &forward_f32_avx512)(r, in, out);
  else if constexpr (std::is_same_v<T, double>)
    by_level(&forward_f64_scalar, &forward_f64_avx2, &forward_f64_avx512)(r, in, out);
  else
    run_forward(r, in, out);
}
template <class T>
void backward(const Resampling<T>& r, const T* gout, T* gin) {
  if constexpr (std::is_same_v<T, float>)
    by_level(&backward_f32_scalar, &backward_f32_avx2, &backward_f32_avx512)(r, gout, gin);
  else
    by_level(&backward_f64_scalar, &backward_f64_avx2, &backward_f64_avx512)(r, gout, gin);
}

// The resampling of a pad: axes from the tensors' last dims (in: small, out: large).
template <class T>
Resampling<T> pad_resampling(const TensorBase& small, const TensorBase& large, const PadArgs& args) {
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
Resampling<T> upsample_resampling(const TensorBase& small, const TensorBase& large, const UpsampleArgs& args,
                                  bool backward) {
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

void pad(const TensorBase& out, const TensorBase& in, const PadArgs& args) {
  dispatch_dtype(in.dtype(),
                 [&]<class T>() { forward(pad_resampling<T>(in, out, args), in.data_ptr<T>(), out.data_ptr<T>()); });
}

void pad_backward(const TensorBase& grad_in, const TensorBase& grad_out, const PadArgs& args) {
  dispatch_floating(grad_in.dtype(), [&]<class T>() {
    backward(pad_resampling<T>(grad_in, grad_out, args), grad_out.data_ptr<T>(), grad_in.data_ptr<T>());
  });
}

void upsample(const TensorBase& out, const TensorBase& in, const UpsampleArgs& args) {
  dispatch_floating(in.dtype(), [&]<class T>() {
    forward(upsample_resampling<T>(in, out, args, false), in.data_ptr<T>(), out.data_ptr<T>());
  });
}

void upsample_backward(const TensorBase& grad_in, const TensorBase& grad_out, const UpsampleArgs& args) {
  dispatch_floating(grad_in.dtype(), [&]<class T>() {
    backward(upsample_resampling<T>(grad_in, grad_out, args, true), grad_out.data_ptr<T>(), grad_in.data_ptr<T>());
  });
}

}  // namespace ditto::cpu
