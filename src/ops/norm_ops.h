#pragma once
// What nn's normalisation layers (nn/normalization.cpp) call in ops/norm_ops.cpp.
#include <tuple>

#include "ditto/tensor.h"

namespace ditto::nn::impl {

// native_batch_norm, its errors naming op: the module or function the user called.
std::tuple<Tensor, Tensor, Tensor> batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                              const Tensor& running_mean, const Tensor& running_var, bool training,
                                              double momentum, double eps, const char* op);

}  // namespace ditto::nn::impl
