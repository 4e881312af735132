#pragma once
// The kernels of cpu/attention.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
void attention(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
               const Tensor& mask, const AttentionArgs& args);
void attention_backward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout, const Tensor& q,
                        const Tensor& k, const Tensor& v, const Tensor& out, const Tensor& lse, const Tensor& mask,
                        const AttentionArgs& args);
}  // namespace ditto::cpu
