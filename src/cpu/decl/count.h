#pragma once
// The kernels of cpu/count.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "ditto/tensor.h"

namespace ditto::cpu {
void histc(const Tensor& hist, const Tensor& in, double lo, double hi);
void bincount(const Tensor& out, const Tensor& in, const Tensor& weights);
}  // namespace ditto::cpu
