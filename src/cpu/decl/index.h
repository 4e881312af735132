#pragma once
// The kernels of cpu/index.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor_base.h"

namespace ditto {
class Tensor;  // cat's inputs, nonzero's output (ditto/tensor.h)
}

namespace ditto::cpu {
void cat(const TensorBase& out, const std::vector<Tensor>& inputs, int64_t dim);
void index_select(const TensorBase& out, const TensorBase& in, int64_t dim, const TensorBase& index);
Tensor nonzero(const TensorBase& in);
}  // namespace ditto::cpu
