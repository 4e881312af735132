#pragma once
// ditto's deterministic transcendental functions, written once over the SIMD abstraction in
// cpu/simd.h. Include only from the files that instantiate them (cpu/dmath*.cpp).
//
// Note [One dmath algorithm for every kernel level]
// Each function below is a template over a vector type V (simd::F32x1, F32x8, F32x16, F64x1,
// F64x4, F64x8). It uses only operations whose IEEE-754 result is fully specified (+ - * / sqrt
// rounded to nearest even, fma rounded once, ordered compares, selects, bit and integer ops),
// in a fixed order and with fixed constants, so the scalar, AVX2 and AVX-512 instantiations
// compute the same bits lane by lane. The rules that keep it so:
//  * fma appears exactly where written: Horner steps, exact products (two_prod), the exact
//    Cody-Waite reductions fma(k, -C_hi, x), and a few error terms. At the scalar level it is
//    std::fma, which is exact on CPUs without FMA too (glibc emulates it); every file is built
//    with -ffp-contract=off so the compiler never fuses anything else.
//  * No libm call, no table lookup by lane, no data-dependent branch: special cases are
//    computed and then chosen with select. The only branches test any(mask) to skip work no
//    lane needs (the result of each lane is the same whether or not it is skipped), and the
//    Payne-Hanek reduction for huge sin/cos arguments, which is one scalar function
//    (detail::rem_pio2_large, in dmath.cpp) called per lane by every level.
//  * Integers come from the 1.5*2^p "shifter" (round to nearest even), never from cvt
//    instructions that differ between levels; min/max use x86 semantics everywhere.
//  * NaN results are either the input NaN made quiet (same payload) or the canonical quiet NaN,
//    never whatever NaN the hardware happened to propagate.
// Accuracy: within 1 ulp of the exact result, float and double (measured at most 0.84 ulp; float
// exhaustively; tests/test_dmath.cpp checks). Polynomial coefficients are minimax fits made with
// mpmath for the exact forms used here (tools/gen_dmath_coeffs.py).
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cpu/simd.h"

namespace ditto::dmath::detail {
// Payne-Hanek reduction of a finite |x| >= 2^18: x = q*pi/2 + (hi + lo), |hi + lo| <= pi/4
// (about 2^-120 relative); returns q mod 4. Integer arithmetic, so the same on every CPU.
int rem_pio2_large(double x, double* hi, double* lo);
}  // namespace ditto::dmath::detail

namespace ditto::dmath::impl {
inline namespace DITTO_SIMD_ISA {

using namespace ::ditto::simd;

template <class T>
struct K;

template <>
struct K<float> {
  using Int = int32_t;
  static constexpr int mant = 23, bias = 127;
  static constexpr float shifter = 0x1.8p23f;  // x + shifter rounds x to an integer (|x| < 2^22)
  static constexpr Int quiet_bit = 0x00400000, exp_mask = 0xff, mant_mask = 0x007fffff, one_bits = 0x3f800000;
  static constexpr float inf = std::numeric_limits<float>::infinity();
  static constexpr float min_normal = 0x1p-126f, subnormal_scale = 0x1p24f, subnormal_log2 = 24;
  static constexpr float sqrt2 = 0x1.6a09e6p+0f;
  static constexpr float log2e = 0x1.715476p+0f;
  static constexpr float ln2_hi = 0x1.62e430p-1f, ln2_lo = -0x1.05c610p-29f;           // ln2_hi = ln2 rounded
  static constexpr float ln2_hi_short = 0x1.62e4p-1f, ln2_lo_short = 0x1.7f7d1cp-20f;  // e*hi exact
  // exp
  static constexpr float exp_lo = -104.0f, exp_hi = 89.0f;
  static constexpr float exp_poly[] = {0x1.fffffcp-2f, 0x1.55548cp-3f, 0x1.555858p-5f, 0x1.123de0p-7f, 0x1.6ac74ep-10f};
  // log: log(1+f) = 2s + s*R(s^2), R(z) = z*log_poly(z)
  static constexpr float log_poly[] = {0x1.55557ap-1f, 0x1.995ed4p-2f, 0x1.31e0d8p-2f};
  // expm1: e^r - 1 - r - r^2/2 = r^3*expm1_poly(r)
  static constexpr float expm1_lo = -20.0f, expm1_hi = 89.0f, expm1_tiny = 0x1p-25f;
  static constexpr float expm1_poly[] = {0x1.55552cp-3f, 0x1.555502p-5f, 0x1.1155a8p-7f, 0x1.6d2e4ap-10f,
                                         0x1.3b8accp-13f};
  // tanh
  static constexpr float tanh_tiny = 0x1p-13f, tanh_sat = 9.5f;
  // sin/cos: sin r = r + r^3*sin_poly(r^2), cos r = 1 - r^2/2 + r^4*cos_poly(r^2)
  static constexpr float sin_tiny = 0x1p-12f, trig_big = 0x1p18f;
  static constexpr float two_over_pi = 0x1.45f306p-1f;
  static constexpr float pio2[] = {0x1.921fb6p+0f, -0x1.777a5cp-25f, -0x1.ee59dap-50f, 0x1.98a2e0p-77f};
  static constexpr float sin_poly[] = {-0x1.555556p-3f, 0x1.111170p-7f, -0x1.a053fap-13f, 0x1.7a8aa6p-19f};
  static constexpr float cos_poly[] = {0x1.555556p-5f, -0x1.6c1758p-10f, 0x1.a06adap-16f, -0x1.3435d0p-22f};
  // erf: |x| < 0.75: x + x*erf_small(x^2); else 1 - exp(-x^2)*G(|x|), G piecewise around erf_mid
  static constexpr float erf_split = 0.75f, erf_sat = 4.0f;
  static constexpr float erf_small[] = {0x1.06eba8p-3f,  -0x1.81273ap-2f, 0x1.ce2acep-4f,
                                        -0x1.b7a75cp-6f, 0x1.4f188ap-8f,  -0x1.613e50p-11f};
  static constexpr int erf_pieces = 2;
  static constexpr float erf_edge[] = {2.0f};
  static constexpr float erf_mid[] = {1.375f, 3.0f};
  static constexpr float erf_g[2][9] = {
      {0x1.5f88f6p-2f, -0x1.797a56p-3f, 0x1.701244p-4f, -0x1.4bd73cp-5f, 0x1.1815a4p-6f, -0x1.bb2bc0p-8f,
       0x1.4d6f68p-9f, -0x1.14a59ep-10f, 0x1.86a8c4p-12f},
      {0x1.6e9828p-3f, -0x1.bd6ab4p-5f, 0x1.0441b2p-6f, -0x1.259328p-8f, 0x1.3f966cp-10f, -0x1.5a8370p-12f,
       0x1.613692p-14f, -0x1.7f6e44p-17f, 0x1.aaf2fcp-17f}};
};

template <>
struct K<double> {
  using Int = int64_t;
  static constexpr int mant = 52, bias = 1023;
  static constexpr double shifter = 0x1.8p52;
  static constexpr Int quiet_bit = 0x0008000000000000, exp_mask = 0x7ff, mant_mask = 0x000fffffffffffff,
                       one_bits = 0x3ff0000000000000;
  static constexpr double inf = std::numeric_limits<double>::infinity();
  static constexpr double min_normal = 0x1p-1022, subnormal_scale = 0x1p54, subnormal_log2 = 54;
  static constexpr double sqrt2 = 0x1.6a09e667f3bcdp+0;
  static constexpr double log2e = 0x1.71547652b82fep+0;
  static constexpr double ln2_hi = 0x1.62e42fefa39efp-1, ln2_lo = 0x1.abc9e3b39803fp-56;
  static constexpr double ln2_hi_short = 0x1.62e42fefa3800p-1, ln2_lo_short = 0x1.ef35793c76730p-45;
  static constexpr double exp_lo = -746.0, exp_hi = 710.0;
  static constexpr double exp_poly[] = {0x1.0000000000000p-1,  0x1.555555555555bp-3,  0x1.5555555555503p-5,
                                        0x1.111111110ec63p-7,  0x1.6c16c16c30449p-10, 0x1.a01a01b37bd02p-13,
                                        0x1.a01a01369c9c5p-16, 0x1.71ddf026f26d8p-19, 0x1.27e5b436f8bf5p-22,
                                        0x1.af6bdcf8e64bap-26, 0x1.1e3d344bc9c97p-29};
  static constexpr double log_poly[] = {0x1.5555555555592p-1, 0x1.999999997fd7bp-2, 0x1.24924941f4ba1p-2,
                                        0x1.c71c520640aa0p-3, 0x1.74663f95d0bf7p-3, 0x1.39a1a846cd9a3p-3,
                                        0x1.2f0626a82e8d5p-3};
  // pow's log: log m = 2s + (2/3)s^3 + s^5*powlog_poly(s^2), 2/3 carried as hi + lo
  static constexpr double two_thirds_hi = 0x1.5555555555555p-1, two_thirds_lo = 0x1.5555555555555p-55;
  static constexpr double powlog_poly[] = {0x1.9999999999996p-2, 0x1.2492492492f51p-2, 0x1.c71c71c5968c3p-3,
                                           0x1.745d182959fb0p-3, 0x1.3b1364c7e906ep-3, 0x1.11206f7239307p-3,
                                           0x1.de3d63b3630cfp-4, 0x1.eac6384c8e69bp-4};
  static constexpr double expm1_lo = -40.0, expm1_hi = 710.0, expm1_tiny = 0x1p-54;
  static constexpr double expm1_poly[] = {0x1.5555555555559p-3,  0x1.555555555555cp-5,  0x1.111111110f3eep-7,
                                          0x1.6c16c16c118cap-10, 0x1.a01a01b11c9e2p-13, 0x1.a01a01c7063f9p-16,
                                          0x1.71ddf4ff387a3p-19, 0x1.27e4846ebee83p-22, 0x1.af64f14d148a1p-26,
                                          0x1.20133cd250262p-29};
  static constexpr double tanh_tiny = 0x1p-28, tanh_sat = 19.5;
  static constexpr double sin_tiny = 0x1p-26, trig_big = 0x1p30;
  static constexpr double two_over_pi = 0x1.45f306dc9c883p-1;
  static constexpr double pio2[] = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54, -0x1.f1976b7ed8fbcp-110};
  static constexpr double sin_poly[] = {-0x1.5555555555548p-3, 0x1.111111110f730p-7,   -0x1.a01a019be9217p-13,
                                        0x1.71de35552b52cp-19, -0x1.ae5e4b83e46f4p-26, 0x1.5d8b559495e30p-33};
  static constexpr double cos_poly[] = {0x1.555555555554bp-5,   -0x1.6c16c16c14f91p-10, 0x1.a01a019c844aep-16,
                                        -0x1.27e4f7eac16fap-22, 0x1.1ee9d7b2976fep-29,  -0x1.8fa498d0807d2p-37};
  static constexpr double erf_split = 0.75, erf_sat = 6.0;
  static constexpr double erf_small[] = {0x1.06eba8214db69p-3,   -0x1.812746b037a33p-2,  0x1.ce2f21a046eadp-4,
                                         -0x1.b82ce313f320ep-6,  0x1.565bcd4c7932ep-8,   -0x1.c02dc010aad43p-11,
                                         0x1.f9a48c1cce3e1p-14,  -0x1.f4eab00ca71c8p-17, 0x1.bac7828321f47p-20,
                                         -0x1.61bb4d8397e95p-23, 0x1.caa93337f8930p-27};
  static constexpr int erf_pieces = 3;
  static constexpr double erf_edge[] = {1.5, 2.5};
  static constexpr double erf_mid[] = {1.125, 2.0, 4.25};
  static constexpr double erf_g[3][15] = {
      {0x1.9531e09b149b5p-2, -0x1.e78b356770fc0p-3, 0x1.05e72521ca240p-3, -0x1.01343a2c9151bp-4, 0x1.d4e711a2bf7fcp-6,
       -0x1.910a5d7e3b54dp-7, 0x1.446c517d8ba8ep-8, -0x1.f38c6a87563c1p-10, 0x1.6fd99607791a6p-11,
       -0x1.041eeff6a8554p-12, 0x1.6279ba26fa9f5p-14, -0x1.d243c28ecaf4ap-16, 0x1.28933de6c7e85p-17,
       -0x1.815e7e75b4e3ap-19, 0x1.e83d9d1e2c4fap-21},
      {0x1.058671b52c776p-2, -0x1.b57034efd3f68p-4, 0x1.5672b9ea140dbp-5, -0x1.fa9d3ac957487p-7, 0x1.649072152e8e7p-8,
       -0x1.e028e8a5c062ap-10, 0x1.369ffa6f818d7p-11, -0x1.83821febc51e2p-13, 0x1.d37b505d4f0bap-15,
       -0x1.115dd06a1e417p-16, 0x1.36a91a34be83ep-18, -0x1.5716df8950835p-20, 0x1.6e99e7958b914p-22,
       -0x1.9a1b5154dae9cp-24, 0x1.e59b7e5bc88b1p-26},
      {0x1.08e62ce8b918cp-3, -0x1.da395332621a1p-6, 0x1.9ef71792c0f05p-8, -0x1.6373117aa7c44p-10, 0x1.2a66515a8f68bp-12,
       -0x1.eb91564061969p-15, 0x1.8d17c539451b3p-17, -0x1.3e61d7e04423cp-19, 0x1.e906c241cc090p-22,
       -0x1.3a330f29c323cp-24, 0x1.62631f47f7c57p-25, 0x1.063f01034090dp-26, 0x1.2a01d0c90d89dp-27,
       0x1.0bb9d5c443023p-29, 0x1.254a50d8f45eep-32}};
};

// ---------------------------------------------------------------- building blocks

template <class V>
using S = typename V::Scalar;
template <class V>
using I = typename V::I;
template <class V>
using M = typename V::M;

// c[0] + x*(c[1] + x*(c[2] + ...)), one fma per step.
template <class V, std::size_t N>
inline V horner(V x, const S<V> (&c)[N]) {
  V r(c[N - 1]);
  for (int i = int(N) - 2; i >= 0; --i) r = fma(r, x, V(c[i]));
  return r;
}

// s + e == a + b exactly (Knuth).
template <class V>
inline void two_sum(V a, V b, V& s, V& e) {
  s = a + b;
  V bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}
// Same when |a| >= |b| (Dekker).
template <class V>
inline void fast_two_sum(V a, V b, V& s, V& e) {
  s = a + b;
  e = b - (s - a);
}

template <class V>
inline V quiet(V x) {
  return as_float(as_int(x) | I<V>(K<S<V>>::quiet_bit));
}
template <class V>
inline V canonical_nan() {
  return V(std::numeric_limits<S<V>>::quiet_NaN());
}
template <class V>
inline M<V> is_nan(V x) {
  return x != x;
}
template <class V>
inline V copysign_of(V mag, V sgn) {  // |mag| with the sign of sgn
  return as_float(as_int(abs(mag)) | (as_int(sgn) & sign_bit_of<V>()));
}

// 2^k for integer k in [1 - bias, bias] given as integer lanes.
template <class V>
inline V pow2i(I<V> k) {
  using C = K<S<V>>;
  return as_float(sll<C::mant>(k + I<V>(typename C::Int(C::bias))));
}

// k = x rounded to an integer (|x| < 2^(p-2)), both as float and as integer lanes.
template <class V>
inline void round_int(V x, V& kf, I<V>& ki) {
  using C = K<S<V>>;
  V t = x + V(C::shifter);
  kf = t - V(C::shifter);
  ki = as_int(t) - as_int(V(C::shifter));
}

// y * 2^k for y in [0.5, 2] and k in [-2*bias - p, 2*bias]: two exact steps then one rounding, so
// subnormal results are rounded once and overflow gives inf.
template <class V>
inline V scale2(V y, I<V> k) {
  using C = K<S<V>>;
  using Int = typename C::Int;
  I<V> k1 = srl<1>(k + I<V>(Int(4096))) - I<V>(Int(2048));  // floor(k/2) without 64-bit sra
  I<V> k2 = k - k1;
  return (y * pow2i<V>(k1)) * pow2i<V>(k2);
}

// ---------------------------------------------------------------- exp

// e^(xh + xl) = (hi + lo) * 2^k with hi + lo in [0.7, 1.42]; xh within [exp_lo, exp_hi], |xl| tiny.
template <class V>
struct ExpParts {
  V hi, lo;
  I<V> k;
};
template <class V>
inline ExpParts<V> exp_core(V xh, V xl) {
  using C = K<S<V>>;
  ExpParts<V> o;
  // fma rounds x*log2e once, straight onto the integer grid of the shifter.
  V t = fma(xh, V(C::log2e), V(C::shifter));
  V kf = t - V(C::shifter);
  o.k = as_int(t) - as_int(V(C::shifter));
  V r = fma(kf, V(-C::ln2_hi), xh);   // exact: r is a multiple of ulp(x) or of ulp(ln2_hi)
  V rl = fma(kf, V(-C::ln2_lo), xl);  // the rest of the reduced argument, tiny
  V r2 = r * r;
  V P = horner(r, C::exp_poly);  // e^r - 1 - r = r^2*P
  // e^(r+rl) - 1 - r = r^2*P*(1 + rl) + rl*(1 + r): rl reaches 2^-45 for large k, so not dropped
  V p = fma(r2, fma(P, rl, P), fma(r, rl, rl));
  V e;
  fast_two_sum(V(1), r, o.hi, e);
  o.lo = e + p;
  return o;
}

template <class V>
inline V exp(V x) {
  using C = K<S<V>>;
  V xc = min(max(x, V(C::exp_lo)), V(C::exp_hi));
  ExpParts<V> q = exp_core(xc, V(0));
  V r = scale2(q.hi + q.lo, q.k);
  return select(is_nan(x), quiet(x), r);
}

// ---------------------------------------------------------------- log, log1p

// u = 2^e * m with m in [sqrt(1/2), sqrt(2)); u positive and finite (subnormals allowed).
template <class V>
inline void split_exponent(V u, V& m, V& e) {
  using C = K<S<V>>;
  using Int = typename C::Int;
  M<V> sub = u < V(C::min_normal);
  V us = select(sub, u * V(C::subnormal_scale), u);
  I<V> bits = as_int(us);
  V eb = to_float(srl<C::mant>(bits) & I<V>(Int(C::exp_mask)));
  m = as_float((bits & I<V>(Int(C::mant_mask))) | I<V>(Int(C::one_bits)));
  M<V> big = m > V(C::sqrt2);
  m = select(big, m * V(S<V>(0.5)), m);
  e = eb - V(S<V>(C::bias)) + select(big, V(1), V(0)) - select(sub, V(C::subnormal_log2), V(0));
}

// log(2^e * (1 + f)) + c for |f| <= sqrt(2) - 1, as in fdlibm: 2s + s*R(s^2), s = f/(2+f), with the
// 2s split as f - f^2/2 + s*f^2/2 so that the large terms are exact.
template <class V>
inline V log_kernel(V e, V f, V c) {
  using C = K<S<V>>;
  V s = f / (V(2) + f);
  V z = s * s;
  V R = z * horner(z, C::log_poly);
  V hfsq = V(S<V>(0.5)) * f * f;
  V tail = fma(s, hfsq + R, fma(e, V(C::ln2_lo_short), c));
  return fma(e, V(C::ln2_hi_short), f - (hfsq - tail));
}

template <class V>
inline V log(V x) {
  using C = K<S<V>>;
  V m, e;
  split_exponent(x, m, e);
  V r = log_kernel(e, m - V(1), V(0));
  r = select(x == V(C::inf), x, r);
  r = select(x == V(0), V(-C::inf), r);
  r = select(x < V(0), canonical_nan<V>(), r);
  return select(is_nan(x), quiet(x), r);
}

template <class V>
inline V log1p(V x) {
  using C = K<S<V>>;
  V u = V(1) + x;
  V m, e;
  split_exponent(max(u, V(C::min_normal)), m, e);
  M<V> e0 = e == V(0);
  // With e == 0, f = x exactly; otherwise f = m - 1 and c corrects for the rounding of 1 + x.
  V f = select(e0, x, m - V(1));
  V c = select(e0, V(0), (x - (u - V(1))) / u);
  V r = log_kernel(e, f, c);
  r = select(x == V(C::inf), x, r);
  r = select(x == V(-1), V(-C::inf), r);
  r = select(x < V(-1), canonical_nan<V>(), r);
  r = select(x == V(0), x, r);
  return select(is_nan(x), quiet(x), r);
}

// ---------------------------------------------------------------- expm1, tanh

// expm1(x) = 2*(hi + lo) for x in [expm1_lo, expm1_hi], |x| >= expm1_tiny. The reduced argument
// r + d (r = x - k*ln2_hi exact) gives e^(r+d) - 1 = Q as an unevaluated sum h + low, and
// expm1(x) = 2*(s*Q + (s - 1/2)) with s = 2^(k-1), the halving keeping 2^k in range for k = max.
template <class V>
inline void expm1_core(V x, V& hi, V& lo) {
  using C = K<S<V>>;
  using Int = typename C::Int;
  V t = fma(x, V(C::log2e), V(C::shifter));
  V kf = t - V(C::shifter);
  I<V> k = as_int(t) - as_int(V(C::shifter));
  V r = fma(kf, V(-C::ln2_hi), x);  // exact
  V d = kf * V(-C::ln2_lo);
  V r2 = r * r;
  V r2l = fma(r, r, -r2);
  V h, l;
  fast_two_sum(r, V(S<V>(0.5)) * r2, h, l);
  V low = fma(r2 * r, horner(r, C::expm1_poly), fma(V(S<V>(0.5)), r2l, l));  // e^r - 1 = h + low
  low = low + fma(d, h + low, d);                                            // + d*e^r
  V s = pow2i<V>(k - I<V>(Int(1)));
  V sh = s - V(S<V>(0.5));
  V sl = (s - sh) - V(S<V>(0.5));  // exact; nonzero once 2^(k-1) - 1/2 is not representable
  V a, b;
  two_sum(s * h, sh, a, b);
  hi = a;
  lo = fma(s, low, b + sl);
}

template <class V>
inline V expm1(V x) {
  using C = K<S<V>>;
  V xc = min(max(x, V(C::expm1_lo)), V(C::expm1_hi));
  V hi, lo;
  expm1_core(xc, hi, lo);
  V r = V(2) * (hi + lo);
  r = select(abs(x) < V(C::expm1_tiny), x, r);
  return select(is_nan(x), quiet(x), r);
}

// tanh|x| = E/(E+2) with E = expm1(2|x|) = 2*(hi + lo): the quotient (hi+lo)/(hi+lo+1) is formed
// in double-length arithmetic and rounded once.
template <class V>
inline V tanh(V x) {
  using C = K<S<V>>;
  V ax = min(abs(x), V(C::tanh_sat));
  V nh, nl;
  expm1_core(ax + ax, nh, nl);
  two_sum(nh, nl, nh, nl);  // the quotient below needs nl << nh
  V dh, dl;
  two_sum(nh, V(1), dh, dl);
  dl = dl + nl;
  V qh = nh / dh;
  V rem = fma(-qh, dh, nh);  // exact remainder
  V ql = (rem + fma(-qh, dl, nl)) / dh;
  V r = copysign_of(qh + ql, x);
  r = select(abs(x) < V(C::tanh_tiny), x, r);
  return select(is_nan(x), quiet(x), r);
}

// ---------------------------------------------------------------- erf

template <class V>
inline V erf(V x) {
  using C = K<S<V>>;
  using T = S<V>;
  V ax = abs(x);
  // |x| < erf_split: x + x*P(x^2); the small term keeps the rounding error well below 1/2 ulp.
  V r = fma(x, horner(x * x, C::erf_small), x);
  M<V> far = ax >= V(C::erf_split);
  if (any(far)) {
    // erfc|x| = e^(-x^2) * G(|x|): x^2 exactly as h + l, e^-(h+l) as a double-length value, G
    // from the piece's polynomial around its midpoint; 1 - erfc formed with one final rounding.
    V xa = min(max(ax, V(C::erf_split)), V(C::erf_sat));
    V x2h = xa * xa;
    V x2l = fma(xa, xa, -x2h);
    ExpParts<V> ep = exp_core(-x2h, -x2l);
    V sc = pow2i<V>(ep.k);
    V eh, el;
    fast_two_sum(ep.hi, ep.lo, eh, el);
    eh = eh * sc;
    el = el * sc;
    constexpr int P = C::erf_pieces;
    constexpr int D = int(sizeof(C::erf_g[0]) / sizeof(T));
    M<V> in[P];
    for (int j = 0; j + 1 < P; ++j) in[j] = xa < V(C::erf_edge[j]);
    auto pick = [&](const T* v) {  // v[piece], chosen per lane
      V c(v[P - 1]);
      for (int j = P - 2; j >= 0; --j) c = select(in[j], V(v[j]), c);
      return c;
    };
    T col[P];
    for (int j = 0; j < P; ++j) col[j] = C::erf_mid[j];
    V t = xa - pick(col);  // exact (Sterbenz)
    for (int j = 0; j < P; ++j) col[j] = C::erf_g[j][D - 1];
    V g = pick(col);
    for (int i = D - 2; i >= 1; --i) {
      for (int j = 0; j < P; ++j) col[j] = C::erf_g[j][i];
      g = fma(g, t, pick(col));
    }
    for (int j = 0; j < P; ++j) col[j] = C::erf_g[j][0];
    V g0 = pick(col);
    V v = g * t;  // G = g0 + v
    V ph = eh * g0;
    V pl = fma(eh, g0, -ph);
    V lo = fma(eh, v, fma(el, g0 + v, pl));
    V sh, se;
    fast_two_sum(V(1), -ph, sh, se);
    V rf = copysign_of(sh + (se - lo), x);
    r = select(far, rf, r);
  }
  return select(is_nan(x), quiet(x), r);
}

// ---------------------------------------------------------------- sin, cos

// x = q*pi/2 + (rh + rl), |rh + rl| <= pi/4 (slightly more for |x| near trig_big); q as float lanes.
template <class V>
inline void reduce_pio2(V x, V& q, V& rh, V& rl) {
  using C = K<S<V>>;
  using T = S<V>;
  V t = fma(x, V(C::two_over_pi), V(C::shifter));
  q = t - V(C::shifter);
  V r1 = fma(q, V(-C::pio2[0]), x);  // exact
  V p2h = q * V(C::pio2[1]);
  V p2l = fma(q, V(C::pio2[1]), -p2h);
  V s, e;
  two_sum(r1, -p2h, s, e);
  e = e - p2l;
  if constexpr (sizeof(T) == 4) {
    V p3h = q * V(C::pio2[2]);
    V p3l = fma(q, V(C::pio2[2]), -p3h);
    e = fma(q, V(-C::pio2[3]), (e - p3h) - p3l);
  } else {
    e = fma(q, V(-C::pio2[2]), e);
  }
  two_sum(s, e, rh, rl);
  M<V> big = (abs(x) >= V(C::trig_big)) & (abs(x) < V(C::inf));
  if (any(big)) {
    constexpr int N = V::N;
    alignas(64) T xs[N], qs[N], hs[N], ls[N];
    store(xs, x);
    store(qs, q);
    store(hs, rh);
    store(ls, rl);
    for (int i = 0; i < N; ++i) {
      T ax = xs[i] < 0 ? -xs[i] : xs[i];
      if (ax >= C::trig_big && ax < C::inf) {
        double h, l;
        qs[i] = T(detail::rem_pio2_large(double(xs[i]), &h, &l));
        hs[i] = T(h);
        ls[i] = T((h - double(hs[i])) + l);
      }
    }
    q = V::load(qs);
    rh = V::load(hs);
    rl = V::load(ls);
  }
}

template <class V, bool Cos>
inline V sincos(V x) {
  using C = K<S<V>>;
  using T = S<V>;
  using Int = typename C::Int;
  V q, rh, rl;
  reduce_pio2(x, q, rh, rl);
  V z = rh * rh;
  // sin(rh + rl) ~ sin rh + rl*(1 - z/2)
  V sn = rh + fma(rh * z, horner(z, C::sin_poly), fma(rl, V(T(-0.5)) * z, rl));
  // cos(rh + rl) ~ cos rh - rl*rh, with 1 - z/2 split exactly (z = rh^2 - zl)
  V zl = fma(rh, rh, -z);
  V hz = V(T(0.5)) * z;
  V w = V(1) - hz;
  V c = (V(1) - w) - hz;
  V cs = w + ((c - V(T(0.5)) * zl) + fma(z * z, horner(z, C::cos_poly), -(rl * rh)));
  V qf;
  I<V> n;
  round_int(q, qf, n);
  if constexpr (Cos) n = n + I<V>(Int(1));  // cos x = sin(x + pi/2)
  M<V> odd = (n & I<V>(Int(1))) == I<V>(Int(1));
  M<V> neg = (n & I<V>(Int(2))) == I<V>(Int(2));
  V r = select(odd, cs, sn);
  r = select(neg, -r, r);
  if constexpr (!Cos) r = select(abs(x) < V(C::sin_tiny), x, r);
  r = select(abs(x) == V(C::inf), canonical_nan<V>(), r);
  return select(is_nan(x), quiet(x), r);
}
template <class V>
inline V sin(V x) {
  return sincos<V, false>(x);
}
template <class V>
inline V cos(V x) {
  return sincos<V, true>(x);
}

// ---------------------------------------------------------------- pow (double lanes)

// log(x) = hi + lo to about 2^-66 relative, for positive finite x (subnormals allowed).
template <class V>
inline void log_dd(V x, V& hi, V& lo) {
  using C = K<double>;
  V m, e;
  split_exponent(x, m, e);
  V f = m - V(1.0);
  // s = f/(2+f) as sh + sl
  V dh, dl;
  fast_two_sum(V(2.0), f, dh, dl);
  V sh = f / dh;
  V rem = fma(-sh, dh, f);
  V sl = fma(-sh, dl, rem) / dh;
  // log m = 2s + (2/3)s^3 + s^5*P(s^2); s^3 carried double-length
  V s2h = sh * sh;
  V s2l = fma(sh, sh, -s2h);
  V s3h = s2h * sh;
  V s3l = fma(s2h, sh, -s3h) + fma(s2l, sh, V(3.0) * s2h * sl);
  V th = V(C::two_thirds_hi) * s3h;
  V tl = fma(V(C::two_thirds_hi), s3h, -th) + fma(V(C::two_thirds_hi), s3l, V(C::two_thirds_lo) * s3h);
  V s5 = s3h * s2h;
  V a, b;
  fast_two_sum(sh + sh, th, a, b);
  b = b + (((sl + sl) + tl) + s5 * horner(s2h, C::powlog_poly));
  // + e*ln2 (e*ln2_hi_short exact)
  V c, d;
  two_sum(e * V(C::ln2_hi_short), a, c, d);
  fast_two_sum(c, d + fma(e, V(C::ln2_lo_short), b), hi, lo);
}

// |y| integer / odd integer tests for double lanes (NaN: neither; +-inf: even integer).
template <class V>
inline void int_parity(V y, M<V>& is_int, M<V>& is_odd) {
  V ay = abs(y);
  M<V> small = ay < V(0x1p52);
  V u = select(small, ay + V(0x1p52), ay);  // integer part in the low mantissa bits
  is_int = (ay >= V(0x1p52)) | ((u - V(0x1p52)) == ay);
  M<V> low_bit = (as_int(u) & I<V>(int64_t(1))) == I<V>(int64_t(1));
  is_odd = is_int & (ay < V(0x1p53)) & low_bit;
}

// ForFloat: the float pow, whose inputs are floats and whose result is rounded to float. Then
// |y*log|x|| < 2^8 where the result is finite, and the plain double log (error < 2^-52) leaves the
// double result within 2^-44 relative, far inside float rounding; the double-length log is not needed.
template <class V, bool ForFloat = false>
inline V pow(V x, V y) {
  static_assert(sizeof(S<V>) == 8, "pow works on double lanes; float pow rounds this result");
  using C = K<double>;
  V ax = abs(x);
  // |x|^y = e^(y*log|x|), the product kept double-length
  V lh, ll;
  V axc = min(max(ax, V(0x1p-1074)), V(0x1.fffffffffffffp1023));
  if constexpr (ForFloat) {
    V m, e;
    split_exponent(axc, m, e);
    lh = log_kernel(e, m - V(1.0), V(0.0));
    ll = V(0.0);
  } else {
    log_dd(axc, lh, ll);
  }
  V p = y * lh;
  V pc = min(max(p, V(-760.0)), V(720.0));  // beyond: 0 or inf whatever the low part (p may be inf)
  V ph, pl;
  fast_two_sum(pc, select(pc == p, fma(y, lh, -p) + y * ll, V(0.0)), ph, pl);  // exp_core needs small pl
  ExpParts<V> ep = exp_core(ph, pl);
  V r = scale2(ep.hi + ep.lo, ep.k);
  M<V> yint, yodd;
  int_parity(y, yint, yodd);
  // C99 F.10.4.4: zeros, infinities and y = +-inf by the rule "|x| > 1 and y > 0 => inf, else 0"
  M<V> edge = (ax == V(0.0)) | (ax == V(C::inf)) | (abs(y) == V(C::inf));
  r = select(edge, select(!((ax > V(1.0)) ^ (y > V(0.0))), V(C::inf), V(0.0)), r);
  r = select((abs(y) == V(C::inf)) & (ax == V(1.0)), V(1.0), r);
  // sign: negative base (or -0, -inf) to an odd integer power
  M<V> xneg = (as_int(x) & sign_bit_of<V>()) == sign_bit_of<V>();
  r = select(xneg & yodd, -r, r);
  r = select((x < V(0.0)) & (x > V(-C::inf)) & !yint & (abs(y) < V(C::inf)), canonical_nan<V>(), r);
  r = select(is_nan(y), quiet(y), r);
  r = select(is_nan(x), quiet(x), r);
  return select((y == V(0.0)) | (x == V(1.0)), V(1.0), r);
}

}  // namespace DITTO_SIMD_ISA
}  // namespace ditto::dmath::impl

namespace ditto::dmath::impl {
inline namespace DITTO_SIMD_ISA {

// y[i] = f(x[i]); the tail runs the same f on a partial vector (masked load/store). y may be x.
template <class V, class F>
inline void map_unary(const S<V>* x, S<V>* y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + V::N <= n; i += V::N) store(y + i, f(V::load(x + i)));
  if (i < n) {
    int rest = int(n - i);
    store_partial(y + i, f(V::load_partial(x + i, rest)), rest);
  }
}

template <class V, class F>
inline void map_binary(const S<V>* x, const S<V>* y, S<V>* out, int64_t n, F f) {
  int64_t i = 0;
  for (; i + V::N <= n; i += V::N) store(out + i, f(V::load(x + i), V::load(y + i)));
  if (i < n) {
    int rest = int(n - i);
    store_partial(out + i, f(V::load_partial(x + i, rest), V::load_partial(y + i, rest)), rest);
  }
}

// Float arrays computed in double lanes (exact widening, one rounding back to float).
template <class V, class F>
inline void map_binary_f32_via_f64(const float* x, const float* y, float* out, int64_t n, F f) {
  int64_t i = 0;
  for (; i + V::N <= n; i += V::N) store_f32(out + i, f(V::load_f32(x + i), V::load_f32(y + i)));
  if (i < n) {
    int rest = int(n - i);
    store_f32_partial(out + i, f(V::load_f32_partial(x + i, rest), V::load_f32_partial(y + i, rest)), rest);
  }
}

}  // namespace DITTO_SIMD_ISA
}  // namespace ditto::dmath::impl

// One level's array entry points (cpu/dmath.h: fn_f32_<level>, fn_f64_<level>, pow_*_<level>):
// one line per level file (dmath.cpp: scalar, dmath_avx2.cpp, dmath_avx512.cpp).
#define DITTO_DMATH_LEVEL_UNARY(fn, level, VF, VD)                              \
  void fn##_f32_##level(const float* x, float* y, int64_t n) {                  \
    impl::map_unary<simd::VF>(x, y, n, [](simd::VF v) { return impl::fn(v); }); \
  }                                                                             \
  void fn##_f64_##level(const double* x, double* y, int64_t n) {                \
    impl::map_unary<simd::VD>(x, y, n, [](simd::VD v) { return impl::fn(v); }); \
  }
#define DITTO_DMATH_LEVEL(level, VF, VD)                                                                            \
  namespace ditto::dmath {                                                                                          \
  DITTO_DMATH_UNARY_FUNCTIONS(DITTO_DMATH_LEVEL_UNARY, level, VF, VD)                                               \
  void pow_f32_##level(const float* x, const float* y, float* out, int64_t n) {                                     \
    impl::map_binary_f32_via_f64<simd::VD>(x, y, out, n,                                                            \
                                           [](simd::VD a, simd::VD b) { return impl::pow<simd::VD, true>(a, b); }); \
  }                                                                                                                 \
  void pow_f64_##level(const double* x, const double* y, double* out, int64_t n) {                                  \
    impl::map_binary<simd::VD>(x, y, out, n, [](simd::VD a, simd::VD b) { return impl::pow(a, b); });               \
  }                                                                                                                 \
  }
