#pragma once
// The kernels of cpu/pool.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
// Inputs and outputs are 4-D (N, C, H, W) or 5-D (N, C, D, H, W), contiguous.
void max_pool(const Tensor& values, const Tensor& indices, const Tensor& input, const PoolArgs& args);
void max_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices);
void avg_pool(const Tensor& out, const Tensor& input, const PoolArgs& args);
void avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const PoolArgs& args);
void adaptive_avg_pool(const Tensor& out, const Tensor& input);
void adaptive_avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out);
void adaptive_max_pool(const Tensor& values, const Tensor& indices, const Tensor& input);
void fractional_max_pool(const Tensor& values, const Tensor& indices, const Tensor& input, const Tensor& samples,
                         const PoolArgs& args);
void max_unpool_racing(const Tensor& out, const Tensor& input, const Tensor& indices);
}  // namespace ditto::cpu
