#pragma once
// The kernels of cpu/sort.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void sort(const TensorBase& values, const TensorBase& indices, const TensorBase& in, bool descending, bool stable);
void topk(const TensorBase& values, const TensorBase& indices, const TensorBase& in, int64_t k, bool largest,
          bool sorted);
void kthvalue(const TensorBase& values, const TensorBase& indices, const TensorBase& in, int64_t k);
void median(const TensorBase& values, const TensorBase& indices, const TensorBase& in);
void nanmedian(const TensorBase& values, const TensorBase& indices, const TensorBase& in);
void mode(const TensorBase& values, const TensorBase& indices, const TensorBase& in);
int64_t unique(const TensorBase& out, const TensorBase& inverse, const TensorBase& counts, const TensorBase& in,
               bool sorted, bool consecutive);
void searchsorted(const TensorBase& out, const TensorBase& boundaries, const TensorBase& values,
                  const TensorBase& sorter, bool right);
}  // namespace ditto::cpu
