#pragma once
// The kernels of cpu/ctc.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "ditto/tensor.h"

namespace ditto::cpu {
void ctc_loss(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs, const Tensor& targets,
              const Tensor& spans, int64_t blank);
void ctc_loss_backward(const Tensor& grad, const Tensor& grad_out, const Tensor& log_probs, const Tensor& targets,
                       const Tensor& spans, const Tensor& nll, const Tensor& log_alpha, int64_t blank,
                       bool zero_infinity);
}  // namespace ditto::cpu
