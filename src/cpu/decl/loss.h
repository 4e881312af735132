#pragma once
// The kernels of cpu/ctc.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void ctc_loss(const TensorBase& nll, const TensorBase& log_alpha, const TensorBase& log_probs,
              const TensorBase& targets, const TensorBase& spans, int64_t blank);
void ctc_loss_backward(const TensorBase& grad, const TensorBase& grad_out, const TensorBase& log_probs,
                       const TensorBase& targets, const TensorBase& spans, const TensorBase& nll,
                       const TensorBase& log_alpha, int64_t blank, bool zero_infinity);
}  // namespace ditto::cpu
