#pragma once
// The kernels of cpu/pointwise.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void lerp(const TensorBase& out, const TensorBase& a, const TensorBase& b, const Scalar& weight);
void addcmul(const TensorBase& out, const TensorBase& self, const TensorBase& t1, const TensorBase& t2,
             const Scalar& value);
void addcdiv(const TensorBase& out, const TensorBase& self, const TensorBase& t1, const TensorBase& t2,
             const Scalar& value);
void gelu(const TensorBase& out, const TensorBase& in, bool tanh_approx);
void gelu_backward(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& in, bool tanh_approx);
void silu(const TensorBase& out, const TensorBase& in);
void hardswish(const TensorBase& out, const TensorBase& in);
void mish(const TensorBase& out, const TensorBase& in);
void leaky_relu(const TensorBase& out, const TensorBase& in, const Scalar& negative_slope);
void softplus(const TensorBase& out, const TensorBase& in, const Scalar& beta, const Scalar& threshold);
void hardtanh(const TensorBase& out, const TensorBase& in, const Scalar& min_val, const Scalar& max_val);
void elu(const TensorBase& out, const TensorBase& in, const Scalar& alpha, const Scalar& scale,
         const Scalar& input_scale);
void threshold_backward(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& self,
                        const Scalar& threshold);
}  // namespace ditto::cpu
