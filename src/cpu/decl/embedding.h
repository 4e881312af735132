#pragma once
// The kernels of cpu/embedding.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
void embedding_backward(const Tensor& grad_weight, const Tensor& grad, const Tensor& indices, int64_t padding_idx);
}  // namespace ditto::cpu
