#pragma once
// The kernels of cpu/count.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void histc(const TensorBase& hist, const TensorBase& in, double lo, double hi);
void bincount(const TensorBase& out, const TensorBase& in, const TensorBase& weights);
}  // namespace ditto::cpu
