#pragma once
// Tensor printing that reproduces PyTorch's str(t) (torch/_tensor_str.py) under the default
// print options: precision 4, threshold 1000, edgeitems 3, linewidth 80, sci_mode None.
#include <cstdint>
#include <string>
#include <vector>

#include "ditto/dtype.h"

namespace ditto::detail {

struct PrintData {
  ScalarType dtype;
  std::vector<int64_t> sizes;  // shape
  std::vector<double> floats;  // row-major values when dtype is floating (float32 widened exactly)
  std::vector<int64_t> ints;   // row-major values when dtype is integral or bool (0/1)
  bool requires_grad = false;
  std::string grad_fn;  // e.g. "AddBackward0"; empty if none
};

// Exactly what PyTorch's str(t) gives for a dense CPU tensor with these contents.
std::string format_tensor(const PrintData& d);

}  // namespace ditto::detail
