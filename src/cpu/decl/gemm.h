#pragma once
// The kernels of cpu/gemm.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
void bmm(const Tensor& out, const Tensor& a, const Tensor& b);
void addmm(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
           const Scalar& alpha);
}  // namespace ditto::cpu
