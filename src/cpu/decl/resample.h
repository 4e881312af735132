#pragma once
// The kernels of cpu/resample.cpp, declared beside them (cpu/kernels.h gathers these headers for
// the op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "cpu/kernel_args.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void pad(const TensorBase& out, const TensorBase& in, const PadArgs& args);
void pad_backward(const TensorBase& grad_in, const TensorBase& grad_out, const PadArgs& args);
void upsample(const TensorBase& out, const TensorBase& in, const UpsampleArgs& args);
void upsample_backward(const TensorBase& grad_in, const TensorBase& grad_out, const UpsampleArgs& args);
}  // namespace ditto::cpu
