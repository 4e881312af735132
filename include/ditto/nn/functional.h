#pragma once
// The ops behind the modules, as free functions (torch.nn.functional).
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ditto/ops.h"
#include "ditto/random.h"
#include "ditto/tensor.h"

namespace ditto::nn {

enum class Reduction { None, Mean, Sum };

namespace functional {

// x @ weight^T + bias (bias optional): addmm for 2-D input, matmul otherwise.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
// The activations are ditto's own functions, named here too (one declaration, so that with
// `using namespace ditto; using namespace ditto::nn::functional;` relu(x) is not ambiguous).
using ditto::log_softmax;
using ditto::relu;
using ditto::sigmoid;
using ditto::softmax;
using ditto::tanh;
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);

// GELU: approximate "none" (exact, x * Phi(x) with erf) or "tanh".
using ditto::gelu;
// The other activations (ops.h): silu, softplus, leaky_relu, elu, hardtanh, hardswish, mish;
// relu6 is hardtanh(x, 0, 6).
using ditto::elu;
using ditto::hardswish;
using ditto::hardtanh;
using ditto::leaky_relu;
using ditto::mish;
using ditto::silu;
using ditto::softplus;
Tensor relu6(const Tensor& x);
// x / max(||x||_p over dim, eps), as torch.nn.functional.normalize.
Tensor normalize(const Tensor& x, double p = 2.0, int64_t dim = 1, double eps = 1e-12);
// Zeroes each element with probability p and scales the others by 1/(1-p). The mask is drawn as
// PyTorch draws it (noise.bernoulli_(1-p) on a tensor of x's dtype), so a seed gives its bits.
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true, Generator* gen = nullptr);
// Channel dropout (PyTorch's feature dropout): one draw per (sample, channel), noise of shape
// (N, C, 1, ...) drawn as PyTorch draws it, so a whole channel is zeroed or scaled by 1/(1-p).
// dropout1d takes (N, C, L) or unbatched (C, L); dropout2d takes (N, C, H, W) or, as PyTorch
// 1.13 reads it, (N, C, L).
Tensor dropout1d(const Tensor& x, double p = 0.5, bool training = true, Generator* gen = nullptr);
Tensor dropout2d(const Tensor& x, double p = 0.5, bool training = true, Generator* gen = nullptr);
// softmax(q k^T * scale + mask) v over the last two dims, as PyTorch 2.x's
// scaled_dot_product_attention: q (..., L, E), k (..., S, E), v (..., S, Ev), batch dims
// broadcast; attn_mask bool (true: attend) or of q's dtype (added), broadcast to (..., L, S);
// is_causal masks key j for query i where j > i (the upper-left triangle); scale defaults to 1 / sqrt(E).
// Without dropout it runs a fused kernel (cpu/attention.cpp, Note [Attention order]): no L x S
// matrix, and a query's result depends only on its own query, keys, values and mask (not on the
// batch, the other queries, the thread count or the level). With dropout_p > 0, or a float mask
// that needs a gradient, it is the composition matmul, softmax, dropout (drawn as PyTorch draws
// it, on the (..., L, S) weights), matmul.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = Tensor(), double dropout_p = 0.0, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt, Generator* gen = nullptr);
// Rows of weight picked by indices (int64 or int32): shape indices.shape + (dim,). Rows equal
// to padding_idx get no gradient.
Tensor embedding(const Tensor& indices, const Tensor& weight, std::optional<int64_t> padding_idx = std::nullopt);
// Bags of embeddings (PyTorch's embedding_bag): a 2-D input is one bag per row; a 1-D input with
// offsets has bag b from offsets[b] to the next offset (offsets[0] == 0, non-decreasing; with
// include_last_offset the last offset ends the last bag). mode "sum" (per_sample_weights scale
// the rows), "mean" or "max"; entries equal to padding_idx are left out; empty bags are zeros.
// Rows are combined in index order (deterministic, forward and backward).
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets = Tensor(),
                     std::string_view mode = "mean", const Tensor& per_sample_weights = Tensor(),
                     bool include_last_offset = false, std::optional<int64_t> padding_idx = std::nullopt);
// Normalises over the trailing dims given by normalized_shape (biased variance).
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);
// x * rsqrt(mean(x^2 over the trailing normalized_shape dims) + eps) * weight; eps defaults to
// the dtype's machine epsilon (PyTorch 2.4's rms_norm).
Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = Tensor(),
                std::optional<double> eps = std::nullopt);
// Per-channel (dim 1) normalisation. Training uses batch statistics and, when they are defined,
// updates running_mean/running_var in place (unbiased variance); otherwise uses the running ones.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(), bool training = false,
                  double momentum = 0.1, double eps = 1e-5);
// x (N, C, *) normalised over each of num_groups groups of C / num_groups channels (and all of
// *), biased variance, then per channel weight and bias (C).
Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                  double eps = 1e-5);
// x (N, C, *) normalised per sample and channel over * (use_input_stats), updating the
// running stats (C) when defined, with the mean over the batch of each sample's update; or, if
// not use_input_stats, with the running stats, as batch_norm in eval mode.
Tensor instance_norm(const Tensor& x, const Tensor& running_mean = Tensor(), const Tensor& running_var = Tensor(),
                     const Tensor& weight = Tensor(), const Tensor& bias = Tensor(), bool use_input_stats = true,
                     double momentum = 0.1, double eps = 1e-5);

// Losses. Class targets are int64 class indices; input is (N, C), (N, C, d1, ...) or (C).
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(), int64_t ignore_index = -100,
                Reduction reduction = Reduction::Mean);
// log_softmax over dim 1, then nll_loss; label_smoothing mixes in the uniform distribution.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                     int64_t ignore_index = -100, Reduction reduction = Reduction::Mean, double label_smoothing = 0.0);
// cross_entropy also takes class probabilities: a floating target of input's shape (PyTorch's
// second form), -sum_c weight_c target_c log_softmax(input)_c; the mean divides by the number of
// samples (input.numel() / C); ignore_index must then be negative.
// Elementwise losses of input against a target of the same shape (PyTorch's CPU formulas):
// smooth_l1_loss: |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta (beta 0: l1_loss);
// huber_loss: |d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta);
// binary_cross_entropy: -w (t max(log x, -100) + (1 - t) max(log(1 - x), -100)), x in [0, 1];
// kl_div: t (log t - x), or exp(t) (t - x) with log_target; reduction "none", "sum", "mean" (over
// every element) or "batchmean" (the sum over input.size(0)).
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean,
                      double beta = 1.0);
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean, double delta = 1.0);
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                            Reduction reduction = Reduction::Mean);
Tensor kl_div(const Tensor& input, const Tensor& target, std::string_view reduction = "mean", bool log_target = false);
// max(0, -y (x1 - x2) + margin), broadcast; y is 1 or -1.
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                           Reduction reduction = Reduction::Mean);
// 1 - cos(x1, x2) where y == 1, max(0, cos(x1, x2) - margin) where y == -1; rows of (N, D) or one (D).
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                             Reduction reduction = Reduction::Mean);
// Connectionist Temporal Classification (src/ops/loss_ops.cpp): log_probs (T, N, C) log-softmaxed
// over C, or (T, C) unbatched; targets (N, S) padded or 1-D concatenated (sum(target_lengths)),
// int32 or int64 labels in [0, C); one input and one target length per batch item. The loss is
// -log p(target | input) per item; "mean" divides each by its target length (at least 1), then
// averages; zero_infinity turns the infinite losses of impossible alignments, and their
// gradients, into zeros. Deterministic forward and backward (Note [CTC order] in src/cpu/ctc.cpp).
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank = 0, Reduction reduction = Reduction::Mean,
                bool zero_infinity = false);
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Shape& input_lengths, const Shape& target_lengths,
                int64_t blank = 0, Reduction reduction = Reduction::Mean, bool zero_infinity = false);
// The numerically stable form; pos_weight weighs the positive term, broadcast over the last dim.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                                        Reduction reduction = Reduction::Mean, const Tensor& pos_weight = Tensor());

}  // namespace functional

// ===== Convolution and pooling (src/ops/conv_ops.cpp) =====================================
// Inputs are batched (N, C, *spatial) or unbatched (C, *spatial), as in PyTorch.

// A size per spatial dim, or one for all of them (PyTorch's int-or-tuple): 2, {2} or {2, 3}.
// Empty ({}) where PyTorch takes None: a pooling stride then defaults to the kernel size.
class SizeArg {
 public:
  SizeArg() = default;
  SizeArg(int64_t v) : v_{v} {}
  SizeArg(std::initializer_list<int64_t> v) : v_(v) {}
  SizeArg(Shape v) : v_(std::move(v)) {}
  const Shape& values() const { return v_; }
  bool empty() const { return v_.empty(); }

 private:
  Shape v_;
};

namespace functional {

// Each output element is one sequential fma chain over (channel, kh, kw) ascending, on the
// zero-padded input, then + bias: see Note [Convolution accumulation order] (src/cpu/conv.cpp).
// weight: (out_channels, in_channels / groups, *kernel); bias: (out_channels) or undefined.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), SizeArg stride = 1,
              SizeArg padding = 0, SizeArg dilation = 1, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), SizeArg stride = 1,
              SizeArg padding = 0, SizeArg dilation = 1, int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), SizeArg stride = 1,
              SizeArg padding = 0, SizeArg dilation = 1, int64_t groups = 1);
// Transposed convolution (PyTorch's argument order): the input gradient of the convolution with
// these arguments, so each output element is that gradient's chains (Note [Convolution
// accumulation order]), then + bias. weight: (in_channels, out_channels / groups, *kernel);
// output size (in - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), SizeArg stride = 1,
                        SizeArg padding = 0, SizeArg output_padding = 0, int64_t groups = 1, SizeArg dilation = 1);
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), SizeArg stride = 1,
                        SizeArg padding = 0, SizeArg output_padding = 0, int64_t groups = 1, SizeArg dilation = 1);
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), SizeArg stride = 1,
                        SizeArg padding = 0, SizeArg output_padding = 0, int64_t groups = 1, SizeArg dilation = 1);

// Max pooling. Indices (int64) are flat positions within each input plane ((d * H + h) * W + w),
// as PyTorch's; NaN wins a window (the last NaN), ties go to the first position.
Tensor max_pool1d(const Tensor& input, SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0,
                  SizeArg dilation = 1, bool ceil_mode = false);
Tensor max_pool2d(const Tensor& input, SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0,
                  SizeArg dilation = 1, bool ceil_mode = false);
Tensor max_pool3d(const Tensor& input, SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0,
                  SizeArg dilation = 1, bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, SizeArg kernel_size, SizeArg stride = {},
                                                  SizeArg padding = 0, SizeArg dilation = 1, bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, SizeArg kernel_size, SizeArg stride = {},
                                                  SizeArg padding = 0, SizeArg dilation = 1, bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, SizeArg kernel_size, SizeArg stride = {},
                                                  SizeArg padding = 0, SizeArg dilation = 1, bool ceil_mode = false);

// Inverse of max pooling: zeros with input written at indices. output_size is the spatial size
// or the full one (PyTorch's rule); empty means (in - 1) * stride + kernel - 2 * padding. The
// kernel writes racing in parallel (duplicate indices: any one wins), so deterministic mode
// refuses it, as PyTorch does ("max_unpooling2d_forward_out" / "max_unpooling3d_forward_out").
Tensor max_unpool1d(const Tensor& input, const Tensor& indices, SizeArg kernel_size, SizeArg stride = {},
                    SizeArg padding = 0, const Shape& output_size = {});
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, SizeArg kernel_size, SizeArg stride = {},
                    SizeArg padding = 0, const Shape& output_size = {});
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, SizeArg kernel_size, SizeArg stride = {},
                    SizeArg padding = 0, const Shape& output_size = {});

// Average pooling: each window summed in row-major order, then divided (as PyTorch's CPU kernels,
// so the bits match it). The 1-D form is the 2-D one over (N, C, 1, L), as PyTorch's.
Tensor avg_pool1d(const Tensor& input, SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& input, SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool3d(const Tensor& input, SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);

// Adaptive pooling: window i of n over size L is [floor(i * L / n), ceil((i + 1) * L / n)). An
// average to output size 1 everywhere is a mean over the planes, as in PyTorch.
Tensor adaptive_avg_pool1d(const Tensor& input, SizeArg output_size);
Tensor adaptive_avg_pool2d(const Tensor& input, SizeArg output_size);
Tensor adaptive_avg_pool3d(const Tensor& input, SizeArg output_size);
Tensor adaptive_max_pool1d(const Tensor& input, SizeArg output_size);
Tensor adaptive_max_pool2d(const Tensor& input, SizeArg output_size);
Tensor adaptive_max_pool3d(const Tensor& input, SizeArg output_size);
std::pair<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input, SizeArg output_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input, SizeArg output_size);
std::pair<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input, SizeArg output_size);

// Fractional max pooling (Graham, 2014), as PyTorch's: output_size, or else output_ratio (one
// number or one per dim, in (0, 1)); the windows start at pseudo-random offsets from one sample
// in [0, 1) per (sample, channel, dim). random_samples (N, C, 2 or 3) in the input's dtype, or
// undefined: drawn as PyTorch's F.fractional_max_pool*d draws them, rand({N, C, dims}), so a seed
// gives PyTorch's windows.
Tensor fractional_max_pool2d(const Tensor& input, SizeArg kernel_size, SizeArg output_size = {},
                             std::vector<double> output_ratio = {}, const Tensor& random_samples = Tensor());
Tensor fractional_max_pool3d(const Tensor& input, SizeArg kernel_size, SizeArg output_size = {},
                             std::vector<double> output_ratio = {}, const Tensor& random_samples = Tensor());
std::pair<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input, SizeArg kernel_size,
                                                             SizeArg output_size = {},
                                                             std::vector<double> output_ratio = {},
                                                             const Tensor& random_samples = Tensor());
std::pair<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input, SizeArg kernel_size,
                                                             SizeArg output_size = {},
                                                             std::vector<double> output_ratio = {},
                                                             const Tensor& random_samples = Tensor());

// Power-average pooling, PyTorch's composition: (sum over the window of x^p)^(1/p), computed as
// (sign(a) * relu(|a|) * kernel area)^(1/p) of a = avg_pool(x^p) (no padding).
Tensor lp_pool1d(const Tensor& input, double norm_type, SizeArg kernel_size, SizeArg stride = {},
                 bool ceil_mode = false);
Tensor lp_pool2d(const Tensor& input, double norm_type, SizeArg kernel_size, SizeArg stride = {},
                 bool ceil_mode = false);

// Gradients of the ops above, on 4-D (2-D pooling) or 5-D (3-D) tensors (PyTorch's *_backward
// ops); used by the backward formulas and not themselves differentiable.
Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight, const Shape& input_size, SizeArg stride,
                             SizeArg padding, SizeArg dilation, int64_t groups);
Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input, const Shape& weight_size, SizeArg stride,
                              SizeArg padding, SizeArg dilation, int64_t groups);
Tensor conv3d_backward_input(const Tensor& grad_output, const Tensor& weight, const Shape& input_size, SizeArg stride,
                             SizeArg padding, SizeArg dilation, int64_t groups);
Tensor conv3d_backward_weight(const Tensor& grad_output, const Tensor& input, const Shape& weight_size, SizeArg stride,
                              SizeArg padding, SizeArg dilation, int64_t groups);
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size);
Tensor max_pool3d_with_indices_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size);
Tensor adaptive_max_pool2d_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size);
Tensor adaptive_max_pool3d_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size);
Tensor fractional_max_pool2d_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size);
Tensor fractional_max_pool3d_backward(const Tensor& grad_output, const Tensor& indices, const Shape& input_size);
Tensor avg_pool2d_backward(const Tensor& grad_output, const Shape& input_size, SizeArg kernel_size, SizeArg stride,
                           SizeArg padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override);
Tensor avg_pool3d_backward(const Tensor& grad_output, const Shape& input_size, SizeArg kernel_size, SizeArg stride,
                           SizeArg padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override);
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, const Shape& input_size);
Tensor adaptive_avg_pool3d_backward(const Tensor& grad_output, const Shape& input_size);

// Sampling, as PyTorch's F.grid_sample: input (N, C, H, W) with grid (N, oH, oW, 2), or (N, C, D, H,
// W) with (N, oD, oH, oW, 3), grid values in [-1, 1] (x first); mode "bilinear", "nearest" or
// "bicubic" (4-D only), padding_mode "zeros", "border" or "reflection"; align_corners unset is
// false. Its bits are PyTorch's CPU kernels' (Note [Grid sampling arithmetic], cpu/grid_sample.cpp);
// the backward adds each input-gradient plane on one thread in PyTorch's order, without atomics.
Tensor grid_sample(const Tensor& input, const Tensor& grid, const std::string& mode = "bilinear",
                   const std::string& padding_mode = "zeros", std::optional<bool> align_corners = std::nullopt);
// theta (N, 2, 3) with size (N, C, H, W), or (N, 3, 4) with (N, C, D, H, W): the sampling grid
// base @ theta^T of PyTorch's affine_grid_generator (differentiable in theta).
Tensor affine_grid(const Tensor& theta, const Shape& size, std::optional<bool> align_corners = std::nullopt);

// Padding, as PyTorch's F.pad: pad holds (before, after) pairs from the last dim backwards; mode
// "constant" (value, default 0; any rank and dtype; negative widths crop), "reflect", "replicate"
// or "circular" (floating, the last 1 to 3 dims of an unbatched or batched input).
Tensor pad(const Tensor& input, const Shape& pad, const std::string& mode = "constant",
           std::optional<double> value = std::nullopt);
// Upsampling, as PyTorch's F.interpolate: size or scale_factor (exactly one; one value or one per
// spatial dim); mode "nearest", "nearest-exact", "linear" (3-D input), "bilinear", "bicubic"
// (4-D), "trilinear" (5-D); align_corners only for the interpolating modes. Index and weight
// arithmetic as PyTorch's CPU kernels, so the results and gradients have their bits (Note
// [Upsampling arithmetic], src/cpu/resample.cpp).
Tensor interpolate(const Tensor& input, const std::optional<SizeArg>& size = std::nullopt,
                   const std::optional<std::vector<double>>& scale_factor = std::nullopt,
                   const std::string& mode = "nearest", std::optional<bool> align_corners = std::nullopt,
                   std::optional<bool> recompute_scale_factor = std::nullopt);

}  // namespace functional
// ===== end of convolution and pooling ===========================================================
}  // namespace ditto::nn
