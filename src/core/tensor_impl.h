#pragma once
// Internal helpers shared by the core and the kernels.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "ditto/tensor_base.h"

namespace ditto {
class Tensor;  // ditto/tensor.h
}

namespace ditto::detail {

// Wraps a negative dim and checks range; op names the caller in the error.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);
// numel of a shape; throws "[op] ..." on negative sizes or when the count overflows int64.
int64_t checked_numel(const Shape& sizes, const char* op);
Shape contiguous_strides(const Shape& sizes);
std::string shape_str(const Shape& s);  // "(4, 2)" as PyTorch writes torch.Size
std::string shape_x(const Shape& s);    // "4x2" as in mm's messages
// A new contiguous tensor with uninitialised data (no fill, no checks beyond overflow).
Tensor new_tensor(const Shape& sizes, ScalarType dtype, const char* op = "empty");
// A view of t's storage with the given geometry.
Tensor make_view(const TensorBase& t, Shape sizes, Shape strides, int64_t offset);
// Broadcast shape of a and b (PyTorch's rules).
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
// PyTorch's is_contiguous: row-major strides, ignoring size-1 dims; empty tensors are contiguous.
bool is_contiguous_geometry(const Shape& sizes, const Shape& strides);

// PyTorch's is_non_overlapping_and_dense (a permutation of a contiguous layout).
inline bool torch_is_non_overlapping_and_dense(const Shape& sizes, const Shape& strides) {
  const std::size_t nd = sizes.size();
  if (nd == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<std::size_t> perm(nd);
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  std::sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t require = 1;
  for (std::size_t i = 0; i < nd; ++i) {
    const int64_t sz = sizes[perm[i]];
    if (sz < 2) return true;
    if (strides[perm[i]] != require) return false;
    require *= sz;
  }
  return true;
}

}  // namespace ditto::detail
