#pragma once
// Geometry of views (views.cpp), shared by every device: metadata only, no data is touched.
#include <optional>

#include "ditto/tensor.h"

namespace ditto {

namespace views {
// views.cpp: geometry of views, shared by every device.
Tensor view(const TensorBase& self, const Shape& shape);
Tensor transpose(const TensorBase& self, int64_t d0, int64_t d1);
Tensor permute(const TensorBase& self, const Shape& dims);
Tensor select(const TensorBase& self, int64_t dim, int64_t index);
Tensor slice(const TensorBase& self, int64_t dim, int64_t start, int64_t end, int64_t step);
Tensor expand(const TensorBase& self, const Shape& shape);
Tensor squeeze(const TensorBase& self, std::optional<int64_t> dim);
Tensor unsqueeze(const TensorBase& self, int64_t dim);
}  // namespace views

}  // namespace ditto
