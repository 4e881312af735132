#pragma once
// What nn::functional's convolution and pooling and the conv/pool modules share (ops/conv_ops.cpp,
// ops/pool_ops.cpp). `op` is the name errors carry: the functional op's ("conv2d") or the module's
// ("Conv2d"). dims: spatial dims.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/nn/functional.h"

namespace ditto::nn::impl {

// --- argument helpers
// One number for every dim, or dims numbers.
Shape expand(const SizeArg& a, int dims, const char* op, const char* what);
void check_at_least(const Shape& v, int64_t lo, const char* op, const char* what);
void check_floating(const Tensor& t, const char* op, const char* what = "input");
// (N, C, *spatial) from a batched or unbatched input; unbatch undoes it (and 1-D's height 1).
Tensor batched(const Tensor& x, int dims, const char* op, bool& unbatched);
Tensor unbatch(Tensor t, int dims, bool unbatched);
// Channels and spatial sizes must be non-zero (the batch may be empty), as in PyTorch's pooling.
void check_nonempty_planes(const Tensor& x, const char* op);
Tensor dense(const Tensor& t);  // contiguous, detached when copied
// A pooling or convolution argument's dims numbers as the kernels' three, depth first (missing
// dims get fill).
void to_3d(const Shape& v, int64_t fill, int64_t out[3]);
void check_grad_shape(const Tensor& g, const Shape& want, const char* op);
// t is rank-D / s has rank entries, none negative (the backward ops' arguments).
void check_rank(const Tensor& t, int64_t rank, const char* op, const char* what);
void check_size_rank(const Shape& s, std::size_t rank, const char* op, const char* what);
// The kernels' form of a batched (N, C, *spatial) tensor or shape: 1-D gets height 1 at dim 2.
Tensor kernel_form(const Tensor& t, int dims);
Shape kernel_shape(Shape s, int dims);
// (x's N, x's C, *spatial).
Shape with_spatial(const Tensor& x, const Shape& spatial);

// --- the ops

Tensor conv(int dims, const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
            const SizeArg& stride, const SizeArg& padding, const SizeArg& dilation, int64_t groups);
Tensor conv_transpose(int dims, const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const SizeArg& stride, const SizeArg& padding, const SizeArg& output_padding, int64_t groups,
                      const SizeArg& dilation);
// The output_padding that gives a transposed convolution of input the output_size (its spatial
// size, or its full one), by PyTorch's rule: each size from the one without output_padding to
// stride - 1 more.
Shape conv_transpose_padding(int dims, const char* op, const Tensor& input, const Shape& kernel, const Shape& stride,
                             const Shape& padding, const Shape& dilation, const Shape& output_size);
// grid_sample's input (when input_grad) and grid gradients, by the 2-D or 3-D row.
std::pair<Tensor, Tensor> grid_sample_backward(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                               const GridSampleArgs& args, bool input_grad);
// conv_transpose's input and weight gradients (undefined where x or w is: the formula saves each
// only where the other's gradient needs it); 4-D or 5-D tensors in the kernels' form.
std::pair<Tensor, Tensor> conv_transpose_backward(const Tensor& g, const Tensor& x, const Tensor& w,
                                                  const Shape& x_size, const Shape& w_size, const ConvArgs& a);
// The convolution's input and weight gradients (undefined where w or x is: the formula saves each
// only where the other's gradient needs it), run side by side where that pays (Note
// [Convolution gradients side by side]); arguments as the public backward ops take them.
std::pair<Tensor, Tensor> conv_backward(int dims, const Tensor& g, const Tensor& x, const Tensor& w,
                                        const Shape& x_size, const Shape& w_size, const SizeArg& stride,
                                        const SizeArg& padding, const SizeArg& dilation, int64_t groups);
std::pair<Tensor, Tensor> max_pool(int dims, const char* op, const Tensor& input, const SizeArg& kernel_size,
                                   const SizeArg& stride, const SizeArg& padding, const SizeArg& dilation,
                                   bool ceil_mode);
Tensor max_unpool(int dims, const char* op, const Tensor& input, const Tensor& indices, const SizeArg& kernel_size,
                  const SizeArg& stride, const SizeArg& padding, const Shape& output_size);
// Pooling over dims = 1, 2 or 3 spatial dims (fractional: 2 or 3; lp: 1 or 2).
Tensor avg_pool(int dims, const char* op, const Tensor& input, const SizeArg& kernel_size, const SizeArg& stride,
                const SizeArg& padding, bool ceil_mode, bool count_include_pad,
                std::optional<int64_t> divisor_override);
Tensor adaptive_avg_pool(int dims, const char* op, const Tensor& input, const SizeArg& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool(int dims, const char* op, const Tensor& input, const SizeArg& output_size);
// output_size, or else output_ratio (one number or dims, each in (0, 1)); samples undefined: drawn
// as PyTorch draws them, rand(N, C, dims) in the input's dtype.
std::pair<Tensor, Tensor> fractional_max_pool(int dims, const char* op, const Tensor& input, const SizeArg& kernel_size,
                                              const SizeArg& output_size, const std::vector<double>& output_ratio,
                                              const Tensor& samples);
Tensor lp_pool(int dims, const char* op, const Tensor& input, double norm_type, const SizeArg& kernel_size,
               const SizeArg& stride, bool ceil_mode);

// Checks a convolution's arguments (shapes as the user passed them: dims spatial dims, batched)
// and returns its output shape.
Shape conv_output_shape(int dims, const char* op, const Shape& input, const Shape& weight, const Shape& stride,
                        const Shape& padding, const Shape& dilation, int64_t groups);

}  // namespace ditto::nn::impl
