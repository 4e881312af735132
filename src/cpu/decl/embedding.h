#pragma once
// The kernels of cpu/embedding.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
void embedding_backward(const Tensor& grad_weight, const Tensor& grad, const Tensor& indices, int64_t padding_idx);
void embedding_bag(const Tensor& out, const Tensor& max_indices, const Tensor& weight, const Tensor& indices,
                   const Tensor& bounds, const Tensor& per_sample_weights, int64_t mode, int64_t padding_idx);
void embedding_bag_backward(const Tensor& grad_weight, const Tensor& grad, const Tensor& indices, const Tensor& bounds,
                            const Tensor& per_sample_weights, const Tensor& max_indices, int64_t mode,
                            int64_t padding_idx);
}  // namespace ditto::cpu
