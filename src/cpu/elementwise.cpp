// Elementwise CPU kernels. Transcendentals come from ditto's own dmath (one algorithm for every
// kernel level), never from the platform libm: see cpu/dmath_impl.h.
#include "cpu/decl/elementwise.h"

#include <cmath>
#include <limits>

#include "cpu/dmath.h"
#include "cpu/fma_kernels.h"
#include "cpu/loops.h"

namespace ditto::cpu {
namespace {

template <class T>
using Wide = std::conditional_t<std::is_same_v<T, bool>, uint8_t, std::make_unsigned_t<T>>;

// Integer arithmetic wraps (two's complement), as PyTorch's does in practice, without UB.
template <class T>
T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(Wide<T>(a) + Wide<T>(b));
  else
    return a + b;
}
template <class T>
T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(Wide<T>(a) - Wide<T>(b));
  else
    return a - b;
}
template <class T>
T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(Wide<T>(a) * Wide<T>(b));
  else
    return a * b;
}

template <class F>
void unary_same(const TensorBase& out, const TensorBase& in, F f) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    map<T, T>(
        out, [&](T x) { return f(x); }, in);
  });
}

template <class F>
void unary_float(const TensorBase& out, const TensorBase& in, F f) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    map<T, T>(
        out, [&](T x) { return f(x); }, in);
  });
}

template <class F>
void binary_same(const TensorBase& out, const TensorBase& a, const TensorBase& b, F f) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    map<T, T, T>(
        out, [&](T x, T y) { return f(x, y); }, a, b);
  });
}

template <class F>
void compare(const TensorBase& out, const TensorBase& a, const TensorBase& b, F f) {
  dispatch_dtype(a.dtype(), [&]<class T>() {
    map<bool, T, T>(
        out, [&](T x, T y) { return f(x, y); }, a, b);
  });
}

// Integer power by squaring (exponent >= 0), wrapping like multiplication.
template <class T>
T ipow(T base, int64_t e) {
  T r = 1;
  while (e > 0) {
    if (e & 1) r = wrap_mul(r, base);
    base = wrap_mul(base, base);
    e >>= 1;
  }
  return r;
}

// y = f(x) through dmath's array entry points (vectorised at the CPU's level, the same bits at
// every level) when both are contiguous; otherwise elementwise with the scalar function.
template <class F32, class F64, class S>
void unary_dmath(const TensorBase& out, const TensorBase& in, F32 array_f32, F64 array_f64, S scalar) {
  if (flat(out, in)) {
    dispatch_floating(out.dtype(), [&]<class T>() {
      const T* x = static_cast<const T*>(in.raw_data());
      T* y = static_cast<T*>(out.raw_data());
      flat_blocks(out.numel(), 8, [&](int64_t lo, int64_t hi) {
        if constexpr (std::is_same_v<T, float>)
          array_f32(x + lo, y + lo, hi - lo);
        else
          array_f64(x + lo, y + lo, hi - lo);
      });
    });
    return;
  }
  unary_float(out, in, scalar);
}

}  // namespace

// The kernel of a DITTO_UNARY row (ops/op_table.def), whose row declares it for the op table; the
// first line here declares it for its definition.
#define DITTO_UNARY_KERNEL(name)                          \
  void name(const TensorBase& out, const TensorBase& in); \
  void name(const TensorBase& out, const TensorBase& in)

void neg(const TensorBase& out, const TensorBase& in) {
  unary_same(out, in, []<class T>(T x) -> T {
    if constexpr (std::is_floating_point_v<T>)
      return -x;  // -(+0) is -0, as in PyTorch
    else
      return wrap_sub(T(0), x);
  });
}
DITTO_UNARY_KERNEL(abs) {
  unary_same(out, in, []<class T>(T x) -> T {
    if constexpr (std::is_floating_point_v<T>)
      return std::fabs(x);
    else if constexpr (std::is_same_v<T, bool>)
      return x;
    else
      return x < 0 ? wrap_sub(T(0), x) : x;
  });
}
// -1, 0 or 1 (NaN and -0 give +0, bool is itself), as PyTorch's (0 < x) - (x < 0).
DITTO_UNARY_KERNEL(sign) {
  unary_same(out, in, []<class T>(T x) -> T {
    if constexpr (std::is_same_v<T, bool>)
      return x;
    else
      return static_cast<T>(static_cast<int>(T(0) < x) - static_cast<int>(x < T(0)));
  });
}
DITTO_UNARY_KERNEL(exp) {
  unary_dmath(out, in, dmath::exp_f32, dmath::exp_f64, [](auto x) { return dmath::exp(x); });
}
DITTO_UNARY_KERNEL(log) {
  unary_dmath(out, in, dmath::log_f32, dmath::log_f64, [](auto x) { return dmath::log(x); });
}
DITTO_UNARY_KERNEL(sqrt) {
  unary_float(out, in, [](auto x) { return std::sqrt(x); });
}
DITTO_UNARY_KERNEL(rsqrt) {
  unary_float(out, in, [](auto x) { return decltype(x)(1) / std::sqrt(x); });
}
DITTO_UNARY_KERNEL(sigmoid) {
  // 1 / (1 + exp(-x)): exp through the array path, the rest elementwise
  neg(out, in);
  exp(out, out);
  unary_float(out, out, [](auto e) { return decltype(e)(1) / (decltype(e)(1) + e); });
}
DITTO_UNARY_KERNEL(tanh) {
  unary_dmath(out, in, dmath::tanh_f32, dmath::tanh_f64, [](auto x) { return dmath::tanh(x); });
}
DITTO_UNARY_KERNEL(relu) {
  unary_same(out, in, []<class T>(T x) -> T { return (x > T(0) || x != x) ? x : T(0); });
}

DITTO_UNARY_KERNEL(sin) {
  unary_dmath(out, in, dmath::sin_f32, dmath::sin_f64, [](auto x) { return dmath::sin(x); });
}
DITTO_UNARY_KERNEL(cos) {
  unary_dmath(out, in, dmath::cos_f32, dmath::cos_f64, [](auto x) { return dmath::cos(x); });
}
DITTO_UNARY_KERNEL(erf) {
  unary_dmath(out, in, dmath::erf_f32, dmath::erf_f64, [](auto x) { return dmath::erf(x); });
}
DITTO_UNARY_KERNEL(log1p) {
  unary_dmath(out, in, dmath::log1p_f32, dmath::log1p_f64, [](auto x) { return dmath::log1p(x); });
}
DITTO_UNARY_KERNEL(expm1) {
  unary_dmath(out, in, dmath::expm1_f32, dmath::expm1_f64, [](auto x) { return dmath::expm1(x); });
}
DITTO_UNARY_KERNEL(reciprocal) {
  unary_float(out, in, [](auto x) { return decltype(x)(1) / x; });
}
// Rounding is exact; integers (and bool) are their own floor, ceil, round and trunc.
template <class F>
void rounding(const TensorBase& out, const TensorBase& in, F f) {
  unary_same(out, in, [f]<class T>(T x) -> T {
    if constexpr (std::is_floating_point_v<T>)
      return f(x);
    else
      return x;
  });
}
DITTO_UNARY_KERNEL(floor) {
  rounding(out, in, [](auto x) { return std::floor(x); });
}
DITTO_UNARY_KERNEL(ceil) {
  rounding(out, in, [](auto x) { return std::ceil(x); });
}
DITTO_UNARY_KERNEL(round) {  // half to even (the default rounding mode)
  rounding(out, in, [](auto x) { return std::nearbyint(x); });
}
DITTO_UNARY_KERNEL(trunc) {
  rounding(out, in, [](auto x) { return std::trunc(x); });
}
// NaN in either operand gives NaN; on ties (0 and -0) b, as PyTorch's vector kernel (vmaxps).
void maximum(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  binary_same(out, a, b, []<class T>(T x, T y) -> T {
    if constexpr (std::is_floating_point_v<T>)
      return x != x ? x : y != y ? y : x > y ? x : y;
    else
      return x > y ? x : y;
  });
}
void minimum(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  binary_same(out, a, b, []<class T>(T x, T y) -> T {
    if constexpr (std::is_floating_point_v<T>)
      return x != x ? x : y != y ? y : x < y ? x : y;
    else
      return x < y ? x : y;
  });
}
// C's fmod, exact for floats; for integers the public op has rejected zero divisors, and x % -1
// is 0 without computing INT_MIN % -1 (undefined).
template <class T>
T int_fmod(T x, T y) {
  return y == T(-1) ? T(0) : static_cast<T>(x % y);
}
void fmod(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  binary_same(out, a, b, []<class T>(T x, T y) -> T {
    if constexpr (std::is_floating_point_v<T>)
      return std::fmod(x, y);
    else if constexpr (std::is_same_v<T, bool>)
      return x;  // unreachable: the public op refuses bool
    else
      return int_fmod(x, y);
  });
}
// fmod moved to the sign of b, as PyTorch's CPU kernel: mod + b where mod != 0 and the signs
// of mod and b differ.
void remainder(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  binary_same(out, a, b, []<class T>(T x, T y) -> T {
    if constexpr (std::is_same_v<T, bool>) {
      return x;  // unreachable: the public op refuses bool
    } else {
      T mod;
      if constexpr (std::is_floating_point_v<T>)
        mod = std::fmod(x, y);
      else
        mod = int_fmod(x, y);
      return (mod != T(0) && ((y < T(0)) != (mod < T(0)))) ? static_cast<T>(mod + y) : mod;
    }
  });
}

void pow_scalar(const TensorBase& out, const TensorBase& in, const Scalar& e) {
  if (is_floating(out.dtype())) {
    const double ed = e.to_double();
    dispatch_floating(out.dtype(), [&]<class T>() {
      const T et = static_cast<T>(ed);
      // The exponents PyTorch computes without pow(), giving the same results as it.
      if (ed == 2.0)
        map<T, T>(
            out, [](T x) { return x * x; }, in);
      else if (ed == 3.0)
        map<T, T>(
            out, [](T x) { return x * x * x; }, in);
      else if (ed == 0.5)
        map<T, T>(
            out, [](T x) { return std::sqrt(x); }, in);
      else if (ed == -0.5)
        map<T, T>(
            out, [](T x) { return T(1) / std::sqrt(x); }, in);
      else if (ed == -1.0)
        map<T, T>(
            out, [](T x) { return T(1) / x; }, in);
      else if (ed == -2.0)
        map<T, T>(
            out, [](T x) { return T(1) / (x * x); }, in);
      else if (ed == 1.0)
        map<T, T>(
            out, [](T x) { return x; }, in);
      else
        map<T, T>(
            out, [et](T x) { return dmath::pow(x, et); }, in);
    });
    return;
  }
  const int64_t ei = e.to_int();  // the public op has rejected negative integer exponents
  dispatch_dtype(out.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>)
      map<T, T>(
          out, [ei](T x) { return ei == 0 ? true : x; }, in);
    else
      map<T, T>(
          out, [ei](T x) { return ipow<T>(x, ei); }, in);
  });
}

void pow_tensor(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  binary_same(out, a, b, []<class T>(T x, T y) -> T {
    if constexpr (std::is_floating_point_v<T>)
      return dmath::pow(x, y);
    else if constexpr (std::is_same_v<T, bool>)
      return y ? x : true;
    else
      return y < 0 ? (x == 1 ? T(1) : x == -1 ? ((y & 1) ? T(-1) : T(1)) : T(0)) : ipow<T>(x, y);
  });
}

void clamp(const TensorBase& out, const TensorBase& in, const std::optional<Scalar>& lo,
           const std::optional<Scalar>& hi) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    const bool has_lo = lo.has_value(), has_hi = hi.has_value();
    const T l = has_lo ? lo->to<T>() : T(0), h = has_hi ? hi->to<T>() : T(0);
    map<T, T>(
        out,
        [=](T x) {
          if (x != x) return x;  // NaN propagates
          if (has_lo && x < l) x = l;
          if (has_hi && x > h) x = h;
          return x;
        },
        in);
  });
}

void add(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  binary_same(out, a, b, []<class T>(T x, T y) -> T {
    if constexpr (std::is_same_v<T, bool>)
      return x || y;
    else
      return wrap_add(x, y);
  });
}
void add_scaled(const TensorBase& out, const TensorBase& a, const TensorBase& b, const Scalar& alpha) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    const T al = alpha.to<T>();
    if constexpr (std::is_floating_point_v<T>) {
      if (flat(out, a, b)) {
        const T *x = a.data_ptr<T>(), *y = b.data_ptr<T>();
        T* o = out.data_ptr<T>();
        flat_blocks(out.numel(), 1,
                    [&](int64_t lo, int64_t hi) { add_scaled_contiguous(x + lo, y + lo, al, o + lo, hi - lo); });
      } else {
        map<T, T, T>(
            out, [al](T x, T y) { return std::fma(y, al, x); }, a, b);
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      map<T, T, T>(
          out, [al](T x, T y) { return x || (y && al); }, a, b);
    } else {
      map<T, T, T>(
          out, [al](T x, T y) { return wrap_add(x, wrap_mul(y, al)); }, a, b);
    }
  });
}
void sub(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  binary_same(out, a, b, [](auto x, auto y) { return wrap_sub(x, y); });
}
void mul(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  binary_same(out, a, b, []<class T>(T x, T y) -> T {
    if constexpr (std::is_same_v<T, bool>)
      return x && y;
    else
      return wrap_mul(x, y);
  });
}
void div(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    map<T, T, T>(
        out, [](T x, T y) { return x / y; }, a, b);
  });
}
void eq(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  compare(out, a, b, [](auto x, auto y) { return x == y; });
}
void ne(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  compare(out, a, b, [](auto x, auto y) { return x != y; });
}
void lt(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  compare(out, a, b, [](auto x, auto y) { return x < y; });
}
void le(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  compare(out, a, b, [](auto x, auto y) { return x <= y; });
}
void gt(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  compare(out, a, b, [](auto x, auto y) { return x > y; });
}
void ge(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  compare(out, a, b, [](auto x, auto y) { return x >= y; });
}

void where(const TensorBase& out, const TensorBase& cond, const TensorBase& a, const TensorBase& b) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    map<T, bool, T, T>(
        out, [](bool c, T x, T y) { return select_bits(c, x, y); }, cond, a, b);
  });
}

void masked_fill(const TensorBase& self, const TensorBase& mask, const Scalar& value) {
  dispatch_dtype(self.dtype(), [&]<class T>() {
    const T v = value.to<T>();
    map<T, T, bool>(
        self, [v](T x, bool m) { return select_bits(m, v, x); }, self, mask);
  });
}

void fill(const TensorBase& out, const Scalar& value) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    const T v = value.to<T>();
    map<T>(out, [v]() { return v; });
  });
}

void copy(const TensorBase& dst, const TensorBase& src) {
  dispatch_dtype(dst.dtype(), [&]<class D>() {
    dispatch_dtype(src.dtype(), [&]<class S>() {
      map<D, S>(
          dst, [](S x) { return convert<D>(x); }, src);
    });
  });
}

// PyTorch fills long float ranges one 32-byte vector at a time (V lanes): the first
// 2V*floor(n/2V) elements take a base at the vector's first index plus j*step; the rest use the
// per-element formula. Following the same scheme gives PyTorch's bits: p[i + j] = lane(base(i), j)
// for the vectors, p[i] = rest(i) after them (and everywhere for integer dtypes).
template <class T, class Base, class Lane, class Rest>
void torch_range_fill(T* p, int64_t n, Base base, Lane lane, Rest rest) {
  int64_t i = 0;
  if constexpr (std::is_floating_point_v<T>) {
    constexpr int64_t V = 32 / static_cast<int64_t>(sizeof(T));
    if (n >= 2 * V) {
      const int64_t vec_end = 2 * V * (n / (2 * V));
      for (; i < vec_end; i += V) {
        const auto b = base(i);
        for (int64_t j = 0; j < V; ++j) p[i + j] = lane(b, j);
      }
    }
  }
  for (; i < n; ++i) p[i] = rest(i);
}

void arange(const TensorBase& out, double start, double step) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    torch_range_fill(
        out.data_ptr<T>(), out.numel(),
        [&](int64_t i) { return static_cast<T>(start + step * static_cast<double>(i)); },
        [&](T base, int64_t j) { return static_cast<T>(static_cast<double>(base) + static_cast<double>(j) * step); },
        [&](int64_t i) { return convert<T>(start + step * static_cast<double>(i)); });
  });
}

void linspace(const TensorBase& out, double start, double end) {
  const int64_t n = out.numel();
  dispatch_dtype(out.dtype(), [&]<class T>() {
    T* p = out.data_ptr<T>();
    if (n == 1) {
      p[0] = convert<T>(start);
      return;
    }
    // PyTorch's scheme: the first half counts up from start, the second half down from end.
    using C = std::conditional_t<std::is_same_v<T, float>, float, double>;
    const C s = static_cast<C>(start), e = static_cast<C>(end);
    const C step = (e - s) / static_cast<C>(n - 1);
    const int64_t half = n / 2;
    auto at = [&](int64_t i) { return i < half ? s + step * static_cast<C>(i) : e - step * static_cast<C>(n - i - 1); };
    torch_range_fill(
        p, n, at, [&](C base, int64_t j) { return static_cast<T>(base + static_cast<C>(j) * step); },
        [&](int64_t i) { return convert<T>(at(i)); });
  });
}

}  // namespace ditto::cpu
