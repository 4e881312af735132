#pragma once
// What the padding and upsampling functions, their modules and their backward formulas share
// (src/ops/resample_ops.cpp). `op` is the name errors carry: the function's ("pad") or the
// module's ("ReflectionPad2d").
#include <optional>
#include <string>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/nn/functional.h"

namespace ditto::nn::impl {

Tensor pad(const char* op, const Tensor& input, const Shape& pad, const std::string& mode, std::optional<double> value);
Tensor interpolate(const char* op, const Tensor& input, const std::optional<SizeArg>& size,
                   const std::optional<std::vector<double>>& scale_factor, const std::string& mode,
                   std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor);

// The gradients: grad_output of the forward's output shape to one of input_size.
Tensor pad_backward(const Tensor& grad_output, const Shape& input_size, const PadArgs& args);
Tensor upsample_backward(const Tensor& grad_output, const Shape& input_size, const UpsampleArgs& args);

}  // namespace ditto::nn::impl
