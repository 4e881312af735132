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
