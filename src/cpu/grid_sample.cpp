// grid_sample kernels (Note [Grid sampling arithmetic] below): 2-D with bilinear, nearest and
// bicubic interpolation, 3-D with bilinear and nearest; zeros, border and reflection padding;
// align_corners. Inputs contiguous: input (N, C, [D,] H, W), grid (N, [oD,] oH, oW, dims).
//
// Note [Grid sampling arithmetic]
// -------------------------------
// Each output's source coordinates, weights and sums are PyTorch 1.13's CPU kernels', operation
// for operation: the 2-D ones those of its vectorised kernel (GridSamplerKernel.cpp: unnormalize
// as (g + 1) * (size / 2) - 0.5, clip with NaN to 0, reflection by trunc, round half to even,
// weights s * e ...), the 3-D ones those of its scalar kernel (GridSampler.h: unnormalize as
// ((g + 1) * size - 1) / 2, std::round, weights as products of distances). Where PyTorch's AVX2
// build fuses a multiply and an add, so does ditto (std::fma), and nowhere else.
//
// The backward adds into each input element in PyTorch's order, which is its own per (sample,
// channel) plane: 2-D, the output positions in blocks of 8 (float) or 4 (double), each block
// corner by corner (nw, ne, sw, se; bicubic: taps x-major), positions ascending within a corner,
// as PyTorch's AVX2 kernel scatters a vector; 3-D, positions ascending, corners in order. ditto
// computes each plane in that order on one thread (planes are split over threads), never
// atomically. The grid's gradient of a position sums over channels ascending, as PyTorch.
#include "cpu/decl/grid_sample.h"

#include "cpu/capability.h"
#include "cpu/grid_sample_impl.h"

DITTO_GRID_LEVEL(scalar)

namespace ditto::cpu {

void grid_sample(const TensorBase& out, const TensorBase& input, const TensorBase& grid, const GridSampleArgs& a) {
  using namespace grid_impl;
  by_level(&forward_scalar, &forward_avx2, &forward_avx512)(out, input, grid, a);
}

void grid_sample_backward(const TensorBase& grad_input, const TensorBase& grad_grid, const TensorBase& grad_out,
                          const TensorBase& input, const TensorBase& grid, const GridSampleArgs& a) {
  using namespace grid_impl;
  by_level(&backward_scalar, &backward_avx2, &backward_avx512)(grad_input, grad_grid, grad_out, input, grid, a);
}

}  // namespace ditto::cpu
