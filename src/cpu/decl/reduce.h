#pragma once
// The kernels of cpu/reduce.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
void sum(const Tensor& out, const Tensor& in);
void mean(const Tensor& out, const Tensor& in);
void prod(const Tensor& out, const Tensor& in);
void amax(const Tensor& out, const Tensor& in);
void amin(const Tensor& out, const Tensor& in);
void max_dim(const Tensor& values, const Tensor& indices, const Tensor& in);
void min_dim(const Tensor& values, const Tensor& indices, const Tensor& in);
void argmax(const Tensor& indices, const Tensor& in);
void argmin(const Tensor& indices, const Tensor& in);
void logsumexp(const Tensor& out, const Tensor& in);
void vector_norm(const Tensor& out, const Tensor& in, const Scalar& ord);
void var(const Tensor& out, const Tensor& in, int64_t correction, bool take_sqrt);
void softmax(const Tensor& out, const Tensor& in);
void log_softmax(const Tensor& out, const Tensor& in);
void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out);
void log_softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out);
void cross_entropy(const Tensor& logp, const Tensor& terms, const Tensor& in, const Tensor& target,
                   const Tensor& weights, int64_t ignore_index);
void cross_entropy_backward(const Tensor& grad_in, const Tensor& logp, const Tensor& target, const Tensor& grad_target);
}  // namespace ditto::cpu
