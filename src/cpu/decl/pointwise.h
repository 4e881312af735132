#pragma once
// The kernels of cpu/pointwise.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
void lerp(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& weight);
void addcmul(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
void addcdiv(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
void gelu(const Tensor& out, const Tensor& in, bool tanh_approx);
void gelu_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& in, bool tanh_approx);
void silu(const Tensor& out, const Tensor& in);
void hardswish(const Tensor& out, const Tensor& in);
void mish(const Tensor& out, const Tensor& in);
void leaky_relu(const Tensor& out, const Tensor& in, const Scalar& negative_slope);
void softplus(const Tensor& out, const Tensor& in, const Scalar& beta, const Scalar& threshold);
void hardtanh(const Tensor& out, const Tensor& in, const Scalar& min_val, const Scalar& max_val);
void elu(const Tensor& out, const Tensor& in, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale);
void threshold_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& self, const Scalar& threshold);
}  // namespace ditto::cpu
