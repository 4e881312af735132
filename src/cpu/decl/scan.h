#pragma once
// The kernels of cpu/scan.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "ditto/tensor.h"

namespace ditto::cpu {
void cumsum(const Tensor& out, const Tensor& in, bool reverse);
void cumprod(const Tensor& out, const Tensor& in, bool reverse);
void logcumsumexp(const Tensor& out, const Tensor& in, bool reverse);
void cummax(const Tensor& values, const Tensor& indices, const Tensor& in);
void cummin(const Tensor& values, const Tensor& indices, const Tensor& in);
void cumprod_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& in);
}  // namespace ditto::cpu
