// dmath scalar entry points, the scalar-level array functions, the dispatching array functions,
// and the Payne-Hanek reduction shared by every level.
#include "cpu/dmath.h"

#include <bit>
#include <cmath>

#include "cpu/capability.h"
#include "cpu/dmath_impl.h"

DITTO_DMATH_LEVEL(scalar, F32x1, F64x1)

namespace ditto::dmath {
using simd::F32x1;
using simd::F64x1;

#define DITTO_DMATH_DEFINE(fn, ...)                                        \
  float fn(float x) { return impl::fn(F32x1(x)).v; }                       \
  double fn(double x) { return impl::fn(F64x1(x)).v; }                     \
  void fn##_f32(const float* x, float* y, int64_t n) {                     \
    by_level(&fn##_f32_scalar, &fn##_f32_avx2, &fn##_f32_avx512)(x, y, n); \
  }                                                                        \
  void fn##_f64(const double* x, double* y, int64_t n) {                   \
    by_level(&fn##_f64_scalar, &fn##_f64_avx2, &fn##_f64_avx512)(x, y, n); \
  }
DITTO_DMATH_UNARY_FUNCTIONS(DITTO_DMATH_DEFINE, )
#undef DITTO_DMATH_DEFINE

float pow(float x, float y) { return float(impl::pow<F64x1, true>(F64x1(x), F64x1(y)).v); }
double pow(double x, double y) { return impl::pow(F64x1(x), F64x1(y)).v; }

void pow_f32(const float* x, const float* y, float* out, int64_t n) {
  by_level(&pow_f32_scalar, &pow_f32_avx2, &pow_f32_avx512)(x, y, out, n);
}
void pow_f64(const double* x, const double* y, double* out, int64_t n) {
  by_level(&pow_f64_scalar, &pow_f64_avx2, &pow_f64_avx512)(x, y, out, n);
}

namespace detail {

namespace {
// Bits of 2/pi: bit j (most significant first) is the bit of weight 2^(63-j), so the first 64
// bits are the (zero) integer part and room for the window of small exponents.
constexpr uint64_t two_over_pi_bits[20] = {
    0x0000000000000000ull, 0xa2f9836e4e441529ull, 0xfc2757d1f534ddc0ull, 0xdb6295993c439041ull, 0xfe5163abdebbc561ull,
    0xb7246e3a424dd2e0ull, 0x06492eea09d1921cull, 0xfe1deb1cb129a73eull, 0xe88235f52ebb4484ull, 0xe99c7026b45f7e41ull,
    0x3991d639835339f4ull, 0x9c845f8bbdf9283bull, 0x1ff897ffde05980full, 0xef2f118b5a0a6d1full, 0x6d367ecf27cb09b7ull,
    0x4f463f669e5fea2dull, 0x7527bac7ebe5f17bull, 0x3d0739f78a5292eaull, 0x6bfb5fb11f8d5d08ull, 0x56033046fc7b6babull};
using u128 = unsigned __int128;
}  // namespace

int rem_pio2_large(double x, double* hi, double* lo) {
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  const int e = int((bits >> 52) & 0x7ff) - 1023;  // |x| = m * 2^(e-52), x normal and >= 2^18
  const uint64_t m = (bits & 0x000fffffffffffffull) | (1ull << 52);
  // Bits of 2/pi of weight >= 2^(54-e) contribute multiples of 4 to x*2/pi: skip them and take
  // the next 192 bits W, so that x*2/pi = m*W / 2^190 (mod 4) to within 2^-137.
  const int j0 = e - 53 + 63;
  const int w = j0 / 64, sh = j0 % 64;
  uint64_t a[4] = {two_over_pi_bits[w], two_over_pi_bits[w + 1], two_over_pi_bits[w + 2], two_over_pi_bits[w + 3]};
  uint64_t wd[3];
  for (int i = 0; i < 3; ++i) wd[i] = sh == 0 ? a[i] : (a[i] << sh) | (a[i + 1] >> (64 - sh));
  // P = m * (wd[0]:wd[1]:wd[2]), limbs p0 (least significant) .. p2; bits >= 192 are dropped.
  const u128 t2 = u128(m) * wd[2], t1 = u128(m) * wd[1], t0 = u128(m) * wd[0];
  const uint64_t p0 = uint64_t(t2);
  const u128 s1 = u128(uint64_t(t1)) + uint64_t(t2 >> 64);
  const uint64_t p1 = uint64_t(s1);
  const uint64_t p2 = uint64_t(t0) + uint64_t(s1 >> 64) + uint64_t(t1 >> 64);
  int q = int(p2 >> 62);
  // The fraction, top 128 bits, taken as signed so that it lies in [-1/2, 1/2).
  u128 f = (u128(p2 & ((1ull << 62) - 1)) << 66) | (u128(p1) << 2) | (p0 >> 62);
  const bool negf = (f >> 127) != 0;
  if (negf) {
    f = -f;  // 2^128 - f
    q += 1;
  }
  double fh = 0, fl = 0;
  if (f != 0) {
    const uint64_t top = uint64_t(f >> 64);
    const int lz = top != 0 ? std::countl_zero(top) : 64 + std::countl_zero(uint64_t(f));
    const u128 g = f << lz;  // leading bit at 127: value = g * 2^(-128-lz)
    const uint64_t h53 = uint64_t(g >> 75);
    const uint64_t rest = uint64_t((g << 53) >> 64);  // the next 64 bits
    fh = std::ldexp(double(h53), -53 - lz);
    fl = std::ldexp(double(rest), -117 - lz);
  }
  // r = f * pi/2, double-length
  const double pio2_hi = 0x1.921fb54442d18p+0, pio2_lo = 0x1.1a62633145c07p-54;
  const double rh = fh * pio2_hi;
  const double rl = std::fma(fh, pio2_hi, -rh) + (fh * pio2_lo + fl * pio2_hi);
  double h = rh + rl;
  double l = rl - (h - rh);
  if (negf) {
    h = -h;
    l = -l;
  }
  if (x < 0) {
    h = -h;
    l = -l;
    q = -q;
  }
  *hi = h;
  *lo = l;
  return q & 3;
}

}  // namespace detail

namespace {
// Double-double arithmetic (Dekker, Knuth): a value is hi + lo, |lo| <= ulp(hi) / 2.
struct DD {
  double hi, lo;
};
DD two_sum(double a, double b) {
  const double s = a + b, bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}
DD fast_two_sum(double a, double b) {
  const double s = a + b;
  return {s, b - (s - a)};
}
DD dd_add(DD a, DD b) {
  DD s = two_sum(a.hi, b.hi);
  s.lo += a.lo + b.lo;
  return fast_two_sum(s.hi, s.lo);
}
DD dd_mul(DD a, DD b) {
  const double p = a.hi * b.hi;
  const double e = std::fma(a.hi, b.hi, -p) + (a.hi * b.lo + a.lo * b.hi);
  return fast_two_sum(p, e);
}
DD dd_div(DD a, double b) {
  const double q = a.hi / b;
  const double r = std::fma(-q, b, a.hi) + a.lo;
  return fast_two_sum(q, r / b);
}
}  // namespace

double cos_correctly_rounded(double x) {
  if (!std::isfinite(x) || std::fabs(x) >= 0x1p20) return cos(x);
  // x - k pi/2 with pi/2 in parts of 33, 33 and 53 bits: k * P1 and k * P2 are exact for
  // |k| < 2^20, and so is x - k * P1 (Sterbenz).
  constexpr double P1 = 0x1.921fb544p+0, P2 = 0x1.0b4611a6p-34, P3 = 0x1.3198a2e037073p-69;
  const double k = std::nearbyint(x * 0x1.45f306dc9c883p-1);
  DD r = two_sum(x - k * P1, -k * P2);
  r = dd_add(r, {-k * P3, -std::fma(k, P3, -(k * P3))});
  // Taylor series of cos and sin at r (|r| <= pi/4 and a little), to about 2^-110.
  const DD r2 = dd_mul(r, r);
  DD c{1, 0}, s{1, 0}, tc{1, 0}, ts{1, 0};
  for (int n = 1; n <= 14; ++n) {
    const double m = 2.0 * n;
    tc = dd_div(dd_mul(tc, r2), -((m - 1) * m));
    ts = dd_div(dd_mul(ts, r2), -(m * (m + 1)));
    c = dd_add(c, tc);
    s = dd_add(s, ts);
  }
  s = dd_mul(s, r);
  switch (static_cast<int64_t>(k) & 3) {
    case 0: return c.hi + c.lo;
    case 1: return -(s.hi + s.lo);
    case 2: return -(c.hi + c.lo);
    default: return s.hi + s.lo;
  }
}

}  // namespace ditto::dmath
