#pragma once
// The kernels of cpu/sort.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "ditto/tensor.h"

namespace ditto::cpu {
void sort(const Tensor& values, const Tensor& indices, const Tensor& in, bool descending, bool stable);
void topk(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, bool largest, bool sorted);
void kthvalue(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k);
void median(const Tensor& values, const Tensor& indices, const Tensor& in);
void nanmedian(const Tensor& values, const Tensor& indices, const Tensor& in);
void mode(const Tensor& values, const Tensor& indices, const Tensor& in);
int64_t unique(const Tensor& out, const Tensor& inverse, const Tensor& counts, const Tensor& in, bool sorted,
               bool consecutive);
void searchsorted(const Tensor& out, const Tensor& boundaries, const Tensor& values, const Tensor& sorter, bool right);
}  // namespace ditto::cpu
