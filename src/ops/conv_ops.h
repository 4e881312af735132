#pragma once
// What nn::functional's convolution and pooling and the conv/pool modules share. `op` is the name
// errors carry: the functional op's ("conv2d") or the module's ("Conv2d"). dims: spatial dims.
#include "ditto/nn/functional.h"

namespace ditto::nn::impl {

Tensor conv(int dims, const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
            const SizeArg& stride, const SizeArg& padding, const SizeArg& dilation, int64_t groups);
std::pair<Tensor, Tensor> max_pool(int dims, const char* op, const Tensor& input, const SizeArg& kernel_size,
                                   const SizeArg& stride, const SizeArg& padding, const SizeArg& dilation,
                                   bool ceil_mode);
Tensor max_unpool(int dims, const char* op, const Tensor& input, const Tensor& indices, const SizeArg& kernel_size,
                  const SizeArg& stride, const SizeArg& padding, const Shape& output_size);
Tensor avg_pool2d(const char* op, const Tensor& input, const SizeArg& kernel_size, const SizeArg& stride,
                  const SizeArg& padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override);
Tensor adaptive_avg_pool2d(const char* op, const Tensor& input, const SizeArg& output_size);
Tensor avg_pool1d(const char* op, const Tensor& input, const SizeArg& kernel_size, const SizeArg& stride,
                  const SizeArg& padding, bool ceil_mode, bool count_include_pad);
Tensor adaptive_avg_pool1d(const char* op, const Tensor& input, const SizeArg& output_size);

// Checks a convolution's arguments (shapes as the user passed them: dims spatial dims, batched)
// and returns its output shape.
Shape conv_output_shape(int dims, const char* op, const Shape& input, const Shape& weight, const Shape& stride,
                        const Shape& padding, const Shape& dilation, int64_t groups);

}  // namespace ditto::nn::impl
