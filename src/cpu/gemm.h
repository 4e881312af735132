#pragma once
// Note [GEMM accumulation order]
// ------------------------------
// Every output element of a matrix product is one sequential chain over k:
//   acc = 0; for k = 0 .. K-1: acc = fma(a[i,k], b[k,j], acc)
// whatever the tiling, the threading or the kernel level: tiles only choose which (i, j) are
// computed together, never how one element's k terms are combined. addmm then forms
// beta * self + alpha * acc (each product skipped when its factor is 1, so bias + acc is one
// rounding). So a row of the result is the same whether its sample is alone or in a batch
// (batch invariance), and no shape selects another order (no split-K, no GEMV reduction).
// How the fast kernels keep it (cpu/gemm.cpp, cpu/gemm_impl.h):
//  * A register tile holds mr x nr chains; each k step does one fma into each, in increasing k.
//    Tails (rows or columns past a multiple of the tile) run the same steps on fewer lanes.
//  * K is cut into blocks for the caches; between blocks a chain's value is stored to C and
//    loaded back unchanged (a store is exact), so the chain simply continues.
//  * Threads own disjoint blocks of C (owner computes); the grid only balances the work.
//  * With few columns (A @ vector) C^T = B^T @ A^T is computed instead, so vector lanes run
//    over rows: the same chains, as fma(a, b, c) == fma(b, a, c) exactly.
//  * A NaN result is stored as the canonical quiet NaN: which NaN operand an x86 FMA propagates
//    depends on the instruction form the compiler picks, so payloads and signs would differ
//    between levels. Other results, inf and signed zeros included, are the chain's own bits.
// Integer and bool products use a plain loop (exact, so any order gives the same result).
#include <cstdint>
#include <functional>

namespace ditto::cpu {

// C (M, N), row-major contiguous, = A (M, K) @ B (K, N), A and B strided, by the rule above;
// blocks of C are split over threads. With accumulate, each chain starts from C's current value
// instead of 0, so one chain can continue over several calls (conv's weight gradient does).
void gemm(float* c, const float* a, int64_t sam, int64_t sak, const float* b, int64_t sbk, int64_t sbn, int64_t M,
          int64_t N, int64_t K, bool accumulate = false);
void gemm(double* c, const double* a, int64_t sam, int64_t sak, const double* b, int64_t sbk, int64_t sbn, int64_t M,
          int64_t N, int64_t K, bool accumulate = false);

// B given by a packer instead of a strided matrix (a convolution gathers its panels straight from
// its input): pack(dst, k0, kc, j0, nc, w) writes rows [k0, k0 + kc) and columns [j0, j0 + nc) of
// B as panels of w columns, dst[q * kc + k * w + l] = B[k0 + k][j0 + q + l], columns past nc
// zero. It may be called from several threads at once. The same chains as above.
template <class T>
using PackB = std::function<void(T* dst, int64_t k0, int64_t kc, int64_t j0, int64_t nc, int w)>;
void gemm(float* c, const float* a, int64_t sam, int64_t sak, const PackB<float>& b, int64_t M, int64_t N, int64_t K,
          bool accumulate = false);
void gemm(double* c, const double* a, int64_t sam, int64_t sak, const PackB<double>& b, int64_t M, int64_t N, int64_t K,
          bool accumulate = false);

}  // namespace ditto::cpu
