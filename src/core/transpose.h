#pragma once
// Transposing a matrix of 4-byte elements (float32, int32) with AVX2's 8x8 shuffles: moves only,
// so any bits come out as they went in. For ditto::audit's hash of a transposed tensor and for the
// attention kernels' transposed key, value and gradient tiles. Callers check the level (AVX2 or
// above) first.
#include <cstdint>

namespace ditto::detail {

// out[i][j] = the 4 bytes at s + j * ld + i * 4, for i < rows, j < cols (ld and out_ld in bytes).
void transpose4_avx2(const char* s, int64_t ld, char* out, int64_t out_ld, int64_t rows, int64_t cols);

}  // namespace ditto::detail
