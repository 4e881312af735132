#pragma once
// The kernels of cpu/reduce.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void sum(const TensorBase& out, const TensorBase& in);
void mean(const TensorBase& out, const TensorBase& in);
void prod(const TensorBase& out, const TensorBase& in);
void amax(const TensorBase& out, const TensorBase& in);
void amin(const TensorBase& out, const TensorBase& in);
void max_dim(const TensorBase& values, const TensorBase& indices, const TensorBase& in);
void min_dim(const TensorBase& values, const TensorBase& indices, const TensorBase& in);
void argmax(const TensorBase& indices, const TensorBase& in);
void argmin(const TensorBase& indices, const TensorBase& in);
void logsumexp(const TensorBase& out, const TensorBase& in);
void vector_norm(const TensorBase& out, const TensorBase& in, const Scalar& ord);
void var(const TensorBase& out, const TensorBase& in, int64_t correction, bool take_sqrt);
void softmax(const TensorBase& out, const TensorBase& in);
void log_softmax(const TensorBase& out, const TensorBase& in);
void softmax_backward(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& out);
void log_softmax_backward(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& out);
void cross_entropy(const TensorBase& logp, const TensorBase& terms, const TensorBase& in, const TensorBase& target,
                   const TensorBase& weights, int64_t ignore_index);
void cross_entropy_backward(const TensorBase& grad_in, const TensorBase& logp, const TensorBase& target,
                            const TensorBase& grad_target);
}  // namespace ditto::cpu
