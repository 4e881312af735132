#pragma once
// The kernels of cpu/pool.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {
// Inputs and outputs are 4-D (N, C, H, W) or 5-D (N, C, D, H, W), contiguous.
void max_pool(const TensorBase& values, const TensorBase& indices, const TensorBase& input, const PoolArgs& args);
void max_pool_backward(const TensorBase& grad_input, const TensorBase& grad_out, const TensorBase& indices);
void avg_pool(const TensorBase& out, const TensorBase& input, const PoolArgs& args);
void avg_pool_backward(const TensorBase& grad_input, const TensorBase& grad_out, const PoolArgs& args);
void adaptive_avg_pool(const TensorBase& out, const TensorBase& input);
void adaptive_avg_pool_backward(const TensorBase& grad_input, const TensorBase& grad_out);
void adaptive_max_pool(const TensorBase& values, const TensorBase& indices, const TensorBase& input);
void fractional_max_pool(const TensorBase& values, const TensorBase& indices, const TensorBase& input,
                         const TensorBase& samples, const PoolArgs& args);
void max_unpool_racing(const TensorBase& out, const TensorBase& input, const TensorBase& indices);
}  // namespace ditto::cpu
