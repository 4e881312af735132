#pragma once
// The kernels of cpu/embedding.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void embedding_backward(const TensorBase& grad_weight, const TensorBase& grad, const TensorBase& indices,
                        int64_t padding_idx);
void embedding_bag(const TensorBase& out, const TensorBase& max_indices, const TensorBase& weight,
                   const TensorBase& indices, const TensorBase& bounds, const TensorBase& per_sample_weights,
                   int64_t mode, int64_t padding_idx);
void embedding_bag_backward(const TensorBase& grad_weight, const TensorBase& grad, const TensorBase& indices,
                            const TensorBase& bounds, const TensorBase& per_sample_weights,
                            const TensorBase& max_indices, int64_t mode, int64_t padding_idx);
}  // namespace ditto::cpu
