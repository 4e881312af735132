#pragma once
// The kernels of cpu/gemm.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void bmm(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void addmm(const TensorBase& out, const TensorBase& self, const TensorBase& a, const TensorBase& b, const Scalar& beta,
           const Scalar& alpha);
}  // namespace ditto::cpu
