#pragma once
// ditto's deterministic transcendental functions: the same bits at every kernel level (scalar,
// AVX2, AVX-512) and on every CPU; never the platform libm. See Note [One dmath algorithm for
// every kernel level] in cpu/dmath_impl.h. Accuracy: within 1 ulp, float and double; C99
// special values; a NaN argument comes back as the same NaN, quieted.
#include <cstdint>

namespace ditto::dmath {

// Scalar entry points (the scalar-level algorithm).
float exp(float x);
double exp(double x);
float log(float x);
double log(double x);
float log1p(float x);
double log1p(double x);
float expm1(float x);
double expm1(double x);
float tanh(float x);
double tanh(double x);
float erf(float x);
double erf(double x);
float sin(float x);
double sin(double x);
float cos(float x);
double cos(double x);
float pow(float x, float y);  // computed in double and rounded once
double pow(double x, double y);
// cos correctly rounded (a double-double evaluation, |x| < 2^20; slow): for scalar host code
// whose doubles should be the true ones, such as the LR schedules. Python's math.cos (glibc)
// is not always (measured: 0.13% of arguments in [-10, 10] are an ulp off).
double cos_correctly_rounded(double x);

// The unary functions, as an X-macro over their names.
// (X is called as X(fn, args...) with any further arguments given.)
// clang-format off
#define DITTO_DMATH_UNARY_FUNCTIONS(X, ...) \
  X(exp, __VA_ARGS__) X(log, __VA_ARGS__) X(log1p, __VA_ARGS__) X(expm1, __VA_ARGS__) \
  X(tanh, __VA_ARGS__) X(erf, __VA_ARGS__) X(sin, __VA_ARGS__) X(cos, __VA_ARGS__)
// clang-format on

// Array entry points: y[i] = fn(x[i]) for 0 <= i < n (y may equal x). fn_f32 / fn_f64 use the
// level cpu_capability() picks; the _scalar/_avx2/_avx512 versions run one level and must only be
// called when cpu_supports(level). Every level returns the same bits.
#define DITTO_DMATH_DECLARE_UNARY(fn, ...)                     \
  void fn##_f32(const float* x, float* y, int64_t n);          \
  void fn##_f64(const double* x, double* y, int64_t n);        \
  void fn##_f32_scalar(const float* x, float* y, int64_t n);   \
  void fn##_f64_scalar(const double* x, double* y, int64_t n); \
  void fn##_f32_avx2(const float* x, float* y, int64_t n);     \
  void fn##_f64_avx2(const double* x, double* y, int64_t n);   \
  void fn##_f32_avx512(const float* x, float* y, int64_t n);   \
  void fn##_f64_avx512(const double* x, double* y, int64_t n);
DITTO_DMATH_UNARY_FUNCTIONS(DITTO_DMATH_DECLARE_UNARY, )
#undef DITTO_DMATH_DECLARE_UNARY

// out[i] = pow(x[i], y[i]).
void pow_f32(const float* x, const float* y, float* out, int64_t n);
void pow_f64(const double* x, const double* y, double* out, int64_t n);
void pow_f32_scalar(const float* x, const float* y, float* out, int64_t n);
void pow_f64_scalar(const double* x, const double* y, double* out, int64_t n);
void pow_f32_avx2(const float* x, const float* y, float* out, int64_t n);
void pow_f64_avx2(const double* x, const double* y, double* out, int64_t n);
void pow_f32_avx512(const float* x, const float* y, float* out, int64_t n);
void pow_f64_avx512(const double* x, const double* y, double* out, int64_t n);

}  // namespace ditto::dmath
