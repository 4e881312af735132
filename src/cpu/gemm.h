#pragma once
// Note [GEMM accumulation order]
// ------------------------------
// Every output element of a matrix product is one sequential chain over k:
//   acc = 0; for k = 0 .. K-1: acc = fma(a[i,k], b[k,j], acc)
// whatever the tiling, the threading or the kernel level: tiles only choose which (i, j) are
// computed together, never how one element's k terms are combined. addmm then forms
// beta * self + alpha * acc (each product skipped when its factor is 1, so bias + acc is one
// rounding). So a row of the result is the same whether its sample is alone or in a batch
// (batch invariance), and no algorithm switches with the shape (no split-K, no GEMV path).
#include <cstdint>

namespace ditto::cpu {

// C (M, N), row-major contiguous, = A (M, K) @ B (K, N), A and B strided, by the rule above;
// rows of C are split over threads. With accumulate, each chain starts from C's current value
// instead of 0, so one chain can continue over several calls (conv's weight gradient does).
void gemm(float* c, const float* a, int64_t sam, int64_t sak, const float* b, int64_t sbk, int64_t sbn, int64_t M,
          int64_t N, int64_t K, bool accumulate = false);
void gemm(double* c, const double* a, int64_t sam, int64_t sak, const double* b, int64_t sbk, int64_t sbn, int64_t M,
          int64_t N, int64_t K, bool accumulate = false);

}  // namespace ditto::cpu
