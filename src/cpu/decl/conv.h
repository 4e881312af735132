#pragma once
// The kernels of cpu/conv.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
// 4-D (1-D and 2-D convolution) or 5-D (3-D) tensors.
void conv(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvArgs& args);
void conv_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight, const ConvArgs& args);
void conv_backward_weight(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input, const ConvArgs& args);
void conv_transpose(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                    const ConvArgs& args);
}  // namespace ditto::cpu
