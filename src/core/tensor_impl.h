#pragma once
// Internal helpers shared by the core and the kernels.
#include <string>

#include "ditto/tensor.h"

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
Tensor make_view(const Tensor& t, Shape sizes, Shape strides, int64_t offset);
// Broadcast shape of a and b (PyTorch's rules).
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
bool is_contiguous_geometry(const Shape& sizes, const Shape& strides);

}  // namespace ditto::detail
