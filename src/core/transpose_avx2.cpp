// 4-byte elements transposed by AVX2's 8x8 shuffles (core/transpose.h).
#include <immintrin.h>

#include <cstring>

#include "core/transpose.h"

namespace ditto::detail {

namespace {
// The 8x8 block at rows [i, i + 8), cols [j, j + 8).
inline void block8(const char* s, int64_t ld, char* out, int64_t out_ld, int64_t i, int64_t j) {
  __m256 r[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(s + (j + k) * ld + i * 4));
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  const __m256 o[8] = {_mm256_permute2f128_ps(u0, u4, 0x20), _mm256_permute2f128_ps(u1, u5, 0x20),
                       _mm256_permute2f128_ps(u2, u6, 0x20), _mm256_permute2f128_ps(u3, u7, 0x20),
                       _mm256_permute2f128_ps(u0, u4, 0x31), _mm256_permute2f128_ps(u1, u5, 0x31),
                       _mm256_permute2f128_ps(u2, u6, 0x31), _mm256_permute2f128_ps(u3, u7, 0x31)};
  for (int k = 0; k < 8; ++k) _mm256_storeu_ps(reinterpret_cast<float*>(out + (i + k) * out_ld + j * 4), o[k]);
}
}  // namespace

void transpose4_avx2(const char* s, int64_t ld, char* out, int64_t out_ld, int64_t rows, int64_t cols) {
  // Sixteen rows (64 bytes of each column) at a time where there are: each cache line read is used
  // whole before the next columns, which with a stride of a multiple of 4 KiB fall in the same L1
  // set and would evict it before its second half is read.
  int64_t i = 0;
  for (; i + 8 <= rows; i += i + 16 <= rows ? 16 : 8) {
    const bool two = i + 16 <= rows;
    int64_t j = 0;
    for (; j + 8 <= cols; j += 8) {
      block8(s, ld, out, out_ld, i, j);
      if (two) block8(s, ld, out, out_ld, i + 8, j);
    }
    for (; j < cols; ++j)
      for (int k = 0; k < (two ? 16 : 8); ++k) std::memcpy(out + (i + k) * out_ld + j * 4, s + j * ld + (i + k) * 4, 4);
  }
  for (; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) std::memcpy(out + i * out_ld + j * 4, s + j * ld + i * 4, 4);
}

}  // namespace ditto::detail
