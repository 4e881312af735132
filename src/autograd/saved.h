#pragma once
// What a backward formula receives (see graph.h).
#include <cstdint>
#include <vector>

#include "ditto/tensor.h"

namespace ditto::autograd {

// What a backward formula needs: tensors (data only, no history) and the op's arguments.
struct Saved {
  std::vector<Tensor> tensors;
  std::vector<uint64_t> versions;  // of tensors, when saved: an in-place write since is an error
  std::vector<Shape> shapes;       // e.g. the input shapes, for broadcasting back
  Shape ints;                      // dims, sizes, flags
  std::vector<Scalar> scalars;
  std::vector<ScalarType> dtypes;
};

// Backward formula of a table op, written with public ops: the gradients of its differentiable
// inputs (undefined where none) from those of its outputs (undefined where none arrived).
using BackwardFn = std::vector<Tensor> (*)(const Saved& saved, const std::vector<Tensor>& grads);

}  // namespace ditto::autograd
