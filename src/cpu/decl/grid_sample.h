#pragma once
// The kernels of cpu/grid_sample.cpp (Note [Grid sampling arithmetic]), declared beside them.
#include "cpu/kernel_args.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {
// input (N, C, H, W) or (N, C, D, H, W), grid (N, oH, oW, 2) or (N, oD, oH, oW, 3), out (N, C, *o),
// all contiguous; grad_input may be undefined (not computed).
void grid_sample(const TensorBase& out, const TensorBase& input, const TensorBase& grid, const GridSampleArgs& args);
void grid_sample_backward(const TensorBase& grad_input, const TensorBase& grad_grid, const TensorBase& grad_out,
                          const TensorBase& input, const TensorBase& grid, const GridSampleArgs& args);
}  // namespace ditto::cpu
