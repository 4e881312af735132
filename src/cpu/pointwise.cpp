// Pointwise kernels with several operands (lerp, addcmul, addcdiv) and GELU. Each follows the
// arithmetic of PyTorch's AVX2 CPU kernel, with the fmas it makes written out as std::fma.
#include "cpu/decl/pointwise.h"

#include <algorithm>
#include <cmath>

#include "cpu/dmath.h"
#include "cpu/fma_kernels.h"
#include "cpu/loops.h"

namespace ditto::cpu {

namespace {
// The dmath array entry point of T's width: y[i] = fn(x[i]).
using ArrayFn32 = void (*)(const float*, float*, int64_t);
using ArrayFn64 = void (*)(const double*, double*, int64_t);
template <class T>
void apply(ArrayFn32 f32, ArrayFn64 f64, const T* x, T* y, int64_t n) {
  if constexpr (std::is_same_v<T, float>)
    f32(x, y, n);
  else
    f64(x, y, n);
}

// body(i, n, buf, buf2) over [0, numel) in chunks of at most kChunk elements (in parallel blocks),
// with two scratch buffers of kChunk: the vectorised path of an activation over contiguous
// tensors, whose scalar arithmetic around the dmath array calls is the per-element formula's, so
// its bits are the strided path's.
constexpr int64_t kChunk = 256;
template <class T, class F>
void in_chunks(int64_t numel, F body) {
  flat_blocks(numel, 16, [&](int64_t lo, int64_t hi) {
    T buf[kChunk], buf2[kChunk];
    for (int64_t i = lo; i < hi; i += kChunk) body(i, std::min(kChunk, hi - i), buf, buf2);
  });
}
}  // namespace

// --- activations: PyTorch's formulas (Activation.cpp), dmath for exp, log1p, expm1 and tanh
void silu(const TensorBase& out, const TensorBase& in) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    map<T, T>(
        out, [](T x) { return x / (T(1) + dmath::exp(-x)); }, in);
  });
}
void hardswish(const TensorBase& out, const TensorBase& in) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    map<T, T>(
        out,
        [](T x) {
          // relu6(x + 3), NaN kept (std::max / std::min return their first argument on NaN)
          const T r = std::min(std::max(x + T(3), T(0)), T(6));
          return x * r / T(6);
        },
        in);
  });
}
void mish(const TensorBase& out, const TensorBase& in) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    map<T, T>(
        out, [](T x) { return x * dmath::tanh(dmath::log1p(dmath::exp(x))); }, in);
  });
}
void leaky_relu(const TensorBase& out, const TensorBase& in, const Scalar& negative_slope) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    const T slope = negative_slope.to<T>();
    map<T, T>(
        out, [slope](T x) { return x > T(0) ? x : x * slope; }, in);
  });
}
void softplus(const TensorBase& out, const TensorBase& in, const Scalar& beta, const Scalar& threshold) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    const T b = beta.to<T>(), th = threshold.to<T>();
    map<T, T>(
        out, [b, th](T x) { return x * b > th ? x : dmath::log1p(dmath::exp(x * b)) / b; }, in);
  });
}
void hardtanh(const TensorBase& out, const TensorBase& in, const Scalar& min_val, const Scalar& max_val) {
  dispatch_dtype(out.dtype(), [&]<class T>() {  // integers too (the public op refuses bool)
    const T lo = min_val.to<T>(), hi = max_val.to<T>();
    map<T, T>(
        out,
        [lo, hi](T x) {  // clamp's order: min(max(x, lo), hi), so hi wins when lo > hi; NaN stays
          if (x != x) return x;
          const T r = x < lo ? lo : x;
          return r > hi ? hi : r;
        },
        in);
  });
}
void elu(const TensorBase& out, const TensorBase& in, const Scalar& alpha, const Scalar& scale,
         const Scalar& input_scale) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    const T neg = alpha.to<T>() * scale.to<T>(), pos = scale.to<T>(), in_s = input_scale.to<T>();
    map<T, T>(
        out, [=](T x) { return x <= T(0) ? dmath::expm1(x * in_s) * neg : x * pos; }, in);
  });
}

void gelu(const TensorBase& out, const TensorBase& in, bool tanh_approx) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    if (tanh_approx) {
      const T beta = static_cast<T>(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = static_cast<T>(0.044715);
      map<T, T>(
          out,
          [=](T x) {
            const T inner = beta * (x + kappa * (x * x * x));
            return T(0.5) * x * (T(1) + dmath::tanh(inner));
          },
          in);
    } else {
      const T alpha = static_cast<T>(M_SQRT1_2);
      if (flat(out, in)) {
        const T* x = in.data_ptr<T>();
        T* o = out.data_ptr<T>();
        in_chunks<T>(out.numel(), [&](int64_t i0, int64_t n, T* e, T*) {
          for (int64_t i = 0; i < n; ++i) e[i] = x[i0 + i] * alpha;
          apply(dmath::erf_f32, dmath::erf_f64, e, e, n);
          for (int64_t i = 0; i < n; ++i) o[i0 + i] = x[i0 + i] * T(0.5) * (T(1) + e[i]);
        });
        return;
      }
      map<T, T>(
          out, [=](T x) { return x * T(0.5) * (T(1) + dmath::erf(x * alpha)); }, in);
    }
  });
}

void gelu_backward(const TensorBase& out, const TensorBase& grad, const TensorBase& in, bool tanh_approx) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    if (tanh_approx) {
      const T beta = static_cast<T>(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = static_cast<T>(0.044715);
      map<T, T, T>(
          out,
          [=](T dy, T x) {
            const T x_sq = x * x;
            const T inner = beta * (x + kappa * (x_sq * x));
            const T t = dmath::tanh(inner);
            const T left = T(0.5) * x, right = T(1) + t;
            const T left_d = T(0.5) * right;
            const T right_d = left * (T(1) - t * t) * (beta * (T(1) + T(3) * kappa * x_sq));
            return dy * (left_d + right_d);
          },
          grad, in);
    } else {
      const T alpha = static_cast<T>(M_SQRT1_2), beta = static_cast<T>(M_2_SQRTPI * M_SQRT1_2 * 0.5);
      if (flat(out, grad, in)) {
        const T *dy = grad.data_ptr<T>(), *x = in.data_ptr<T>();
        T* o = out.data_ptr<T>();
        in_chunks<T>(out.numel(), [&](int64_t i0, int64_t n, T* e, T* p) {
          for (int64_t i = 0; i < n; ++i) {
            e[i] = x[i0 + i] * alpha;
            p[i] = x[i0 + i] * x[i0 + i] * T(-0.5);
          }
          apply(dmath::erf_f32, dmath::erf_f64, e, e, n);
          apply(dmath::exp_f32, dmath::exp_f64, p, p, n);
          for (int64_t i = 0; i < n; ++i) {
            const T cdf = T(0.5) * (T(1) + e[i]);
            const T pdf = beta * p[i];
            o[i0 + i] = dy[i0 + i] * (cdf + x[i0 + i] * pdf);
          }
        });
        return;
      }
      map<T, T, T>(
          out,
          [=](T dy, T x) {
            const T cdf = T(0.5) * (T(1) + dmath::erf(x * alpha));
            const T pdf = beta * dmath::exp(x * x * T(-0.5));
            return dy * (cdf + x * pdf);
          },
          grad, in);
    }
  });
}

void threshold_backward(const TensorBase& out, const TensorBase& grad, const TensorBase& self,
                        const Scalar& threshold) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      const T th = threshold.to<T>();
      map<T, T, T>(
          out, [th](T g, T x) { return select_bits(x <= th, T(0), g); }, grad, self);
    }
  });
}

void lerp(const TensorBase& out, const TensorBase& a, const TensorBase& b, const Scalar& weight) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    const T w = weight.to<T>();
    if (flat(out, a, b)) {
      const T *x = a.data_ptr<T>(), *y = b.data_ptr<T>();
      T* o = out.data_ptr<T>();
      flat_blocks(out.numel(), 1, [&](int64_t lo, int64_t hi) { lerp_contiguous(x + lo, y + lo, w, o + lo, hi - lo); });
    } else if (std::fabs(w) < T(0.5))
      map<T, T, T>(
          out, [w](T x, T y) { return std::fma(w, y - x, x); }, a, b);
    else
      map<T, T, T>(
          out, [w](T x, T y) { return std::fma(w - T(1), y - x, y); }, a, b);
  });
}

void addcmul(const TensorBase& out, const TensorBase& self, const TensorBase& t1, const TensorBase& t2,
             const Scalar& value) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T v = value.to<T>();
      if (flat(out, self, t1, t2)) {
        const T *s = self.data_ptr<T>(), *x = t1.data_ptr<T>(), *y = t2.data_ptr<T>();
        T* o = out.data_ptr<T>();
        flat_blocks(out.numel(), 1,
                    [&](int64_t lo, int64_t hi) { addcmul_contiguous(s + lo, x + lo, y + lo, v, o + lo, hi - lo); });
      } else {
        map<T, T, T, T>(
            out, [v](T s, T x, T y) { return std::fma(v * x, y, s); }, self, t1, t2);
      }
    } else if constexpr (!std::is_same_v<T, bool>) {
      using U = std::make_unsigned_t<T>;  // wraps, without UB
      const U v = static_cast<U>(value.to<T>());
      map<T, T, T, T>(
          out, [v](T s, T x, T y) { return static_cast<T>(U(s) + v * U(x) * U(y)); }, self, t1, t2);
    }
  });
}

void addcdiv(const TensorBase& out, const TensorBase& self, const TensorBase& t1, const TensorBase& t2,
             const Scalar& value) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    const T v = value.to<T>();
    map<T, T, T, T>(
        out, [v](T s, T x, T y) { return s + v * x / y; }, self, t1, t2);
  });
}

}  // namespace ditto::cpu
