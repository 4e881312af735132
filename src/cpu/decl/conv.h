#pragma once
// The kernels of cpu/conv.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {
// 4-D (1-D and 2-D convolution) or 5-D (3-D) tensors.
void conv(const TensorBase& out, const TensorBase& input, const TensorBase& weight, const TensorBase& bias,
          const ConvArgs& args);
void conv_backward_input(const TensorBase& grad_input, const TensorBase& grad_out, const TensorBase& weight,
                         const ConvArgs& args);
void conv_backward_weight(const TensorBase& grad_weight, const TensorBase& grad_out, const TensorBase& input,
                          const ConvArgs& args);
void conv_transpose(const TensorBase& out, const TensorBase& input, const TensorBase& weight, const TensorBase& bias,
                    const ConvArgs& args);
}  // namespace ditto::cpu
