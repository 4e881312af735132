#pragma once
// The kernels of cpu/attention.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "cpu/kernel_args.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void attention(const TensorBase& out, const TensorBase& lse, const TensorBase& q, const TensorBase& k,
               const TensorBase& v, const TensorBase& mask, const AttentionArgs& args);
void attention_backward(const TensorBase& dq, const TensorBase& dk, const TensorBase& dv, const TensorBase& dout,
                        const TensorBase& q, const TensorBase& k, const TensorBase& v, const TensorBase& out,
                        const TensorBase& lse, const TensorBase& mask, const AttentionArgs& args);
}  // namespace ditto::cpu
