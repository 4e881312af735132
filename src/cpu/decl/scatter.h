#pragma once
// The kernels of cpu/scatter.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
// gather and the scatter-style kernels, each of which owns its outputs (Note [Scatter lines]; rows in index order), so
// their results depend only on the inputs.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {
bool gather(const TensorBase& out, const TensorBase& in, int64_t dim, const TensorBase& index);
bool scatter_add(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src);
bool scatter_reduce(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src,
                    ScatterReduction reduce, bool include_self);
void index_add_ordered(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source);
void index_copy_ordered(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source);
}  // namespace ditto::cpu
