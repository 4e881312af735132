#pragma once
// The kernels of cpu/scatter.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
// gather and the scatter-style kernels, each of which owns its outputs (Note [Scatter lines]; rows in index order), so
// their results depend only on the inputs.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
bool gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
bool scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
bool scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduction reduce,
                    bool include_self);
void index_add_ordered(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
void index_copy_ordered(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
}  // namespace ditto::cpu
