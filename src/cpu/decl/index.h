#pragma once
// The kernels of cpu/index.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
void cat(const Tensor& out, const std::vector<Tensor>& inputs, int64_t dim);
void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
Tensor nonzero(const Tensor& in);
}  // namespace ditto::cpu
