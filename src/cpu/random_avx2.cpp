// The random fills at the AVX2+FMA level (built with -mavx2 -mfma; entered only after the
// run-time check in cpu/capability.h). The float32 block transform is avx_mathfun's log256_ps and
// sincos256_ps with an explicit fmadd wherever PyTorch's AVX2 build fuses (spec §3b), i.e. the
// scalar emulation in kernels.h done eight lanes at a time; the other fills are the kernels.h
// code with std::fma inlined. Same bits as the baseline level.
#include <immintrin.h>

#include "cpu/random_impl.h"

namespace ditto::detail {
namespace {

inline __m256 c8(uint32_t bits) { return _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(bits))); }
inline __m256i i8(int32_t v) { return _mm256_set1_epi32(v); }

__m256 log8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  x = _mm256_max_ps(x, c8(0x00800000u));  // never active for u in (0, 1]
  __m256i imm0 = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
  x = _mm256_and_ps(x, c8(0x807FFFFFu));
  x = _mm256_or_ps(x, c8(0x3F000000u));
  imm0 = _mm256_sub_epi32(imm0, i8(127));
  __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(imm0), one);
  const __m256 mask = _mm256_cmp_ps(x, c8(0x3F3504F3u), _CMP_LT_OS);
  const __m256 tmp = _mm256_and_ps(x, mask);
  x = _mm256_sub_ps(x, one);
  e = _mm256_sub_ps(e, _mm256_and_ps(one, mask));
  x = _mm256_add_ps(x, tmp);
  const __m256 z = _mm256_mul_ps(x, x);
  static constexpr uint32_t kP[9] = {0x3d9021bb, 0xbdebd1b8, 0x3def251a, 0xbdfe5d4f, 0x3e11e9bf,
                                     0xbe2aae50, 0x3e4cceac, 0xbe7ffffc, 0x3eaaaaaa};
  __m256 y = c8(kP[0]);
  for (int k = 1; k < 9; ++k) y = _mm256_fmadd_ps(y, x, c8(kP[k]));
  y = _mm256_mul_ps(y, x);
  y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, c8(0xb95e8083u)));
  y = _mm256_fnmadd_ps(z, _mm256_set1_ps(0.5f), y);
  const __m256 r = _mm256_add_ps(x, y);
  return _mm256_fmadd_ps(e, c8(0x3f318000u), r);
}

void sincos8(__m256 th, __m256* s_out, __m256* c_out) {
  const __m256 sign_mask = c8(0x80000000u);
  __m256 sign_sin = _mm256_and_ps(th, sign_mask);
  __m256 x = _mm256_andnot_ps(sign_mask, th);
  __m256i j = _mm256_cvttps_epi32(_mm256_mul_ps(x, c8(0x3fa2f983u)));
  j = _mm256_and_si256(_mm256_add_epi32(j, i8(1)), i8(~1));
  const __m256 y = _mm256_cvtepi32_ps(j);
  const __m256 swap_sign = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(j, i8(4)), 29));
  const __m256 poly_mask = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(j, i8(2)), _mm256_setzero_si256()));
  x = _mm256_fmadd_ps(y, c8(0xbf490000u), x);
  x = _mm256_fmadd_ps(y, c8(0xb97da000u), x);
  x = _mm256_fmadd_ps(y, c8(0xb3222169u), x);
  const __m256 sign_cos =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_andnot_si256(_mm256_sub_epi32(j, i8(2)), i8(4)), 29));
  sign_sin = _mm256_xor_ps(sign_sin, swap_sign);
  const __m256 z = _mm256_mul_ps(x, x);
  __m256 c = _mm256_fmadd_ps(c8(0x37ccf5ceu), z, c8(0xbab6061au));
  c = _mm256_fmadd_ps(c, z, c8(0x3d2aaaa5u));
  c = _mm256_mul_ps(c, z);
  c = _mm256_fmsub_ps(c, z, _mm256_mul_ps(z, _mm256_set1_ps(0.5f)));
  c = _mm256_add_ps(c, _mm256_set1_ps(1.0f));
  __m256 s = _mm256_fmadd_ps(c8(0xb94ca1f9u), z, c8(0x3c08839eu));
  s = _mm256_fmadd_ps(s, z, c8(0xbe2aaaa3u));
  s = _mm256_mul_ps(s, z);
  s = _mm256_fmadd_ps(s, x, x);
  // avx_mathfun's select by and/andnot/sub/add (turns -0 into +0).
  const __m256 ysin2 = _mm256_and_ps(poly_mask, s);
  const __m256 ysin1 = _mm256_andnot_ps(poly_mask, c);
  s = _mm256_sub_ps(s, ysin2);
  c = _mm256_sub_ps(c, ysin1);
  *s_out = _mm256_xor_ps(_mm256_add_ps(ysin1, ysin2), sign_sin);
  *c_out = _mm256_xor_ps(_mm256_add_ps(c, s), sign_cos);
}

// Takes mean and std as floats, not __m256: GCC emits no vzeroupper in a function with 256-bit
// arguments nor after calls to one, and the upper halves of ymm left in use slow down all SSE
// code after it on this thread (a scalar scan 3.7x on a Zen 5; Invariance.Corpus checks it).
void normal_block16_f32_avx2(float* d, float mean_s, float std_s) {
  const __m256 mean = _mm256_set1_ps(mean_s), std = _mm256_set1_ps(std_s);
  const __m256 u = _mm256_sub_ps(_mm256_set1_ps(1.0f), _mm256_loadu_ps(d));
  const __m256 v = _mm256_loadu_ps(d + 8);
  const __m256 rho = _mm256_sqrt_ps(_mm256_mul_ps(_mm256_set1_ps(-2.0f), log8(u)));
  const __m256 th = _mm256_mul_ps(c8(0x40C90FDBu), v);
  __m256 s, c;
  sincos8(th, &s, &c);
  _mm256_storeu_ps(d, _mm256_fmadd_ps(_mm256_mul_ps(rho, c), std, mean));
  _mm256_storeu_ps(d + 8, _mm256_fmadd_ps(_mm256_mul_ps(rho, s), std, mean));
}

}  // namespace

void normal_fill_f32_avx2(float* d, int64_t n, float mean, float std, Generator& g) {
  for (int64_t i = 0; i < n; ++i) d[i] = u24(g.random());
  for (int64_t b = 0; b + 16 <= n; b += 16) normal_block16_f32_avx2(d + b, mean, std);
  if (n % 16 != 0) {
    float* t = d + n - 16;
    for (int i = 0; i < 16; ++i) t[i] = u24(g.random());
    normal_block16_f32_avx2(t, mean, std);
  }
}
void normal_fill_f64_avx2(double* d, int64_t n, double mean, double std, Generator& g) {
  normal_fill_f64(d, n, mean, std, g);
}
void uniform_fill_f32_avx2(float* d, int64_t n, float a, float span, Generator& g) {
  uniform_fill_f32(d, n, a, span, g);
}
void uniform_fill_f64_avx2(double* d, int64_t n, double a, double span, Generator& g) {
  uniform_fill_f64(d, n, a, span, g);
}

}  // namespace ditto::detail
