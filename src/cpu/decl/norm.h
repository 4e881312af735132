#pragma once
// The kernels of cpu/layer_norm.cpp and cpu/batch_norm.cpp, declared beside them (cpu/kernels.h gathers these headers
// for the op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void layer_norm(const TensorBase& out, const TensorBase& mean, const TensorBase& rstd, const TensorBase& x,
                const TensorBase& weight, const TensorBase& bias, double eps);
void layer_norm_backward(const TensorBase& dx, const TensorBase& dweight, const TensorBase& dbias, const TensorBase& dy,
                         const TensorBase& x, const TensorBase& mean, const TensorBase& rstd, const TensorBase& weight);
void batch_norm(const TensorBase& out, const TensorBase& mean, const TensorBase& rstd, const TensorBase& unbiased,
                const TensorBase& x, const TensorBase& weight, const TensorBase& bias, const TensorBase& running_mean,
                const TensorBase& running_var, bool training, double eps);
void batch_norm_backward(const TensorBase& dx, const TensorBase& dweight, const TensorBase& dbias, const TensorBase& dy,
                         const TensorBase& x, const TensorBase& mean, const TensorBase& rstd, const TensorBase& weight,
                         bool training);
void group_norm(const TensorBase& out, const TensorBase& mean, const TensorBase& rstd, const TensorBase& x,
                const TensorBase& weight, const TensorBase& bias, int64_t groups, double eps);
void group_norm_backward(const TensorBase& dx, const TensorBase& dweight, const TensorBase& dbias, const TensorBase& dy,
                         const TensorBase& x, const TensorBase& mean, const TensorBase& rstd, const TensorBase& weight,
                         int64_t groups);
}  // namespace ditto::cpu
