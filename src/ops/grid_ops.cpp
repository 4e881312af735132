// grid_sample and affine_grid: argument checks, shapes, dispatch and autograd recording. The
// kernels are in cpu/grid_sample.cpp (Note [Grid sampling arithmetic]); affine_grid is PyTorch's
// composition (a base grid of linspaces times theta^T), so its gradient is the matmul's.
#include <string>

#include "autograd/graph.h"
#include "core/checked.h"
#include "ditto/ops.h"
#include "ops/common.h"
#include "ops/conv_ops.h"

namespace ditto::nn {
using ditto::detail::fail;
using ditto::detail::shape_str;
using ops::OpId;
using namespace impl;

namespace {

GridSampleArgs grid_args(const std::string& mode, const std::string& padding, std::optional<bool> align,
                         const char* op) {
  GridSampleArgs a{};
  if (mode == "bilinear")
    a.mode = GridMode::Bilinear;
  else if (mode == "nearest")
    a.mode = GridMode::Nearest;
  else if (mode == "bicubic")
    a.mode = GridMode::Bicubic;
  else
    fail(op, "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '", mode,
         "'");
  if (padding == "zeros")
    a.padding = GridPadding::Zeros;
  else if (padding == "border")
    a.padding = GridPadding::Border;
  else if (padding == "reflection")
    a.padding = GridPadding::Reflection;
  else
    fail(op, "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: '",
         padding, "'");
  a.align_corners = align.value_or(false);
  return a;
}

// (N, C, *the grid's spatial sizes).
Shape out_size(const Tensor& input, const Tensor& grid) {
  return with_spatial(input, Shape(grid.sizes().begin() + 1, grid.sizes().end() - 1));
}

// PyTorch's grid_sampler checks.
void check_grid(const Tensor& input, const Tensor& grid, const GridSampleArgs& a, const char* op) {
  ditto::detail::check_defined(input, op);
  ditto::detail::check_defined(grid, op, "grid");
  if (!is_floating(input.dtype())) fail(op, "expected a floating-point input, got ", dtype_name(input.dtype()));
  if (input.dtype() != grid.dtype())
    fail(op, "grid_sampler(): expected input and grid to have same dtype, but input has ", dtype_name(input.dtype()),
         " and grid has ", dtype_name(grid.dtype()));
  if (input.dim() != 4 && input.dim() != 5)
    fail(op,
         "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input with sizes ",
         shape_str(input.sizes()), " and grid with sizes ", shape_str(grid.sizes()));
  if (grid.dim() != input.dim())
    fail(op, "grid_sampler(): expected grid to have the input's number of dimensions (", input.dim(),
         "), got grid with sizes ", shape_str(grid.sizes()));
  if (input.size(0) != grid.size(0))
    fail(op, "grid_sampler(): expected grid and input to have same batch size, but got input with sizes ",
         shape_str(input.sizes()), " and grid with sizes ", shape_str(grid.sizes()));
  if (grid.size(-1) != input.dim() - 2)
    fail(op, "grid_sampler(): expected grid to have size ", input.dim() - 2,
         " in last dimension, but got grid with sizes ", shape_str(grid.sizes()));
  for (int64_t d = 2; d < input.dim(); ++d)
    if (input.size(d) == 0)
      fail(op, "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes ",
           shape_str(input.sizes()), " with dimension ", d, " being empty");
  if (a.mode == GridMode::Bicubic && input.dim() != 4)
    fail(op, "grid_sampler(): bicubic interpolation only supports 4D input");
}

}  // namespace

namespace impl {

std::pair<Tensor, Tensor> grid_sample_backward(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                               const GridSampleArgs& a, bool input_grad) {
  const char* op =
      input.dim() == 5 ? ops::op_name(OpId::grid_sampler_3d_backward) : ops::op_name(OpId::grid_sampler_2d_backward);
  check_grid(input, grid, a, op);
  const Shape out_shape = out_size(input, grid);
  ditto::detail::check_defined(grad_output, op, "grad_output");
  if (grad_output.sizes() != out_shape || grad_output.dtype() != input.dtype())
    fail(op, "expected grad_output of shape ", shape_str(out_shape), ", got ", shape_str(grad_output.sizes()));
  Tensor gx = input_grad ? ditto::detail::new_tensor(input.sizes(), input.dtype(), op) : Tensor();
  Tensor gg = ditto::detail::new_tensor(grid.sizes(), grid.dtype(), op);
  if (gg.numel() == 0 && (!gx.defined() || gx.numel() == 0)) return {gx, gg};
  if (grad_output.numel() == 0) {  // nothing flows back: zeros
    if (gx.defined()) gx.fill_(0);
    gg.fill_(0);
    return {gx, gg};
  }
  ops::call_by_dims<OpId::grid_sampler_2d_backward, OpId::grid_sampler_3d_backward>(
      static_cast<int>(input.dim() - 2), input.device(), gx, gg, dense(grad_output), dense(input), dense(grid), a);
  return {gx, gg};
}

}  // namespace impl

namespace functional {

Tensor grid_sample(const Tensor& input, const Tensor& grid, const std::string& mode, const std::string& padding_mode,
                   std::optional<bool> align_corners) {
  const char* op = "grid_sample";
  const GridSampleArgs a = grid_args(mode, padding_mode, align_corners, op);
  check_grid(input, grid, a, op);
  const Shape out_shape = out_size(input, grid);
  Tensor out = ditto::detail::new_tensor(out_shape, input.dtype(), op);
  const Tensor xc = dense(input), gc = dense(grid);
  const int dims = static_cast<int>(input.dim() - 2);
  if (out.numel() > 0)
    ops::call_by_dims<OpId::grid_sampler_2d, OpId::grid_sampler_3d>(dims, input.device(), out, xc, gc, a);
  if (autograd::needs_grad(input) || autograd::needs_grad(grid)) {
    ops::record_by_dims<OpId::grid_sampler_2d, OpId::grid_sampler_3d>(
        dims, {input, grid}, {out}, autograd::formulas::GridSampleSaved{a, xc, gc, autograd::needs_grad(input)});
  }
  return out;
}

// PyTorch's affine_grid_generator: base[..., i] = linspace(-1, 1, size) (times (size - 1) / size
// without align_corners; 0 for a size of 1), the last coordinate 1; grid = base @ theta^T.
Tensor affine_grid(const Tensor& theta, const Shape& size, std::optional<bool> align_corners) {
  const char* op = "affine_grid";
  ditto::detail::check_defined(theta, op, "theta");
  if (!is_floating(theta.dtype()))
    fail(op, "Expected theta to have floating point type, but got ", dtype_name(theta.dtype()));
  if (size.size() != 4 && size.size() != 5)
    fail(op, "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size ",
         shape_str(size), ".");
  const int dims = static_cast<int>(size.size()) - 2;
  if (theta.dim() != 3 || theta.size(1) != dims || theta.size(2) != dims + 1)
    fail(op, "Expected a batch of ", dims, "D affine matrices of shape Nx", dims, "x", dims + 1, " for size ",
         shape_str(size), ". Got ", shape_str(theta.sizes()), ".");
  for (int64_t v : size)
    if (v <= 0) fail(op, "Expected non-zero, positive output size. Got ", shape_str(size));
  if (theta.size(0) != size[0])
    fail(op, "Expected a batch of ", size[0], " affine matrices (size ", shape_str(size), "), got ",
         shape_str(theta.sizes()));
  const bool align = align_corners.value_or(false);
  const ScalarType t = theta.dtype();
  auto steps = [&](int64_t n) {
    if (n <= 1) return zeros({1}, t);
    Tensor r = linspace(-1, 1, n, t);
    return align ? r : r * Scalar(n - 1) / Scalar(n);
  };
  Shape spatial(size.begin() + 2, size.end());
  int64_t P = 1;
  for (int64_t v : spatial) P = ditto::detail::checked_mul(P, v, op, "the grid size");
  std::vector<Tensor> coords;
  for (int i = 0; i < dims; ++i) {  // x runs along the last dim, y the one before, z before that
    const int64_t d = dims - 1 - i;
    Shape view(static_cast<std::size_t>(dims), 1);
    view[static_cast<std::size_t>(d)] = spatial[static_cast<std::size_t>(d)];
    coords.push_back(steps(spatial[static_cast<std::size_t>(d)]).reshape(view).expand(spatial));
  }
  coords.push_back(ones(spatial, t));
  const Tensor base = stack(coords, -1).reshape({1, P, dims + 1}).expand({size[0], P, dims + 1});
  Shape out{size[0]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(dims);
  return bmm(base, theta.transpose(1, 2)).reshape(out);
}

}  // namespace functional
}  // namespace ditto::nn
