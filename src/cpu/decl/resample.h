#pragma once
// The kernels of cpu/resample.cpp, declared beside them (cpu/kernels.h gathers these headers for
// the op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
void pad(const Tensor& out, const Tensor& in, const PadArgs& args);
void pad_backward(const Tensor& grad_in, const Tensor& grad_out, const PadArgs& args);
void upsample(const Tensor& out, const Tensor& in, const UpsampleArgs& args);
void upsample_backward(const Tensor& grad_in, const Tensor& grad_out, const UpsampleArgs& args);
}  // namespace ditto::cpu
