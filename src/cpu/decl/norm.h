#pragma once
// The kernels of cpu/layer_norm.cpp, declared beside them (cpu/kernels.h gathers these headers for
// the op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "ditto/tensor.h"

namespace ditto::cpu {
void layer_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& weight,
                const Tensor& bias, double eps);
void layer_norm_backward(const Tensor& dx, const Tensor& dweight, const Tensor& dbias, const Tensor& dy,
                         const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& weight);
}  // namespace ditto::cpu
