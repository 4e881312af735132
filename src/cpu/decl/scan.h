#pragma once
// The kernels of cpu/scan.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void cumsum(const TensorBase& out, const TensorBase& in, bool reverse);
void cumprod(const TensorBase& out, const TensorBase& in, bool reverse);
void logcumsumexp(const TensorBase& out, const TensorBase& in, bool reverse);
void cummax(const TensorBase& values, const TensorBase& indices, const TensorBase& in);
void cummin(const TensorBase& values, const TensorBase& indices, const TensorBase& in);
void cumprod_backward(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& in);
}  // namespace ditto::cpu
