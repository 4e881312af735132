#pragma once
// The kernels of cpu/pool.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
void max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& input, const Pool2dArgs& args);
void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices);
void avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dArgs& args);
void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dArgs& args);
void adaptive_avg_pool2d(const Tensor& out, const Tensor& input);
void adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out);
void max_unpool_racing(const Tensor& out, const Tensor& input, const Tensor& indices);
}  // namespace ditto::cpu
