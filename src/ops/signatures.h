#pragma once
// Kernel signatures: the type of every kernel of an op (op_table.def names one per op), with the
// contract each kernel keeps.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/generator.h"
#include "ditto/tensor_base.h"

namespace ditto {

// Kernels that make a tensor (views, nonzero) return a Tensor, and cat takes a list of them;
// declared here, defined in tensor.h.
class Tensor;

namespace kernel_sig {
// out and in have the same shape; in may be strided; out's dtype is the result dtype.
using Unary = void(const TensorBase& out, const TensorBase& in);
// a and b are expanded to out's shape and have the compute dtype.
using Binary = void(const TensorBase& out, const TensorBase& a, const TensorBase& b);
// out = a + alpha * b with one rounding (fma), as PyTorch's vectorised add does.
using AddScaled = void(const TensorBase& out, const TensorBase& a, const TensorBase& b, const Scalar& alpha);
using PowScalar = void(const TensorBase& out, const TensorBase& in, const Scalar& exponent);
using Clamp = void(const TensorBase& out, const TensorBase& in, const std::optional<Scalar>& lo,
                   const std::optional<Scalar>& hi);
using Where = void(const TensorBase& out, const TensorBase& cond, const TensorBase& a, const TensorBase& b);
using MaskedFill = void(const TensorBase& self, const TensorBase& mask, const Scalar& value);  // in place
using Fill = void(const TensorBase& out, const Scalar& value);
using Copy = void(const TensorBase& dst, const TensorBase& src);  // src expanded to dst's shape, any dtypes
// in is 2-D (M, R): row m holds the R inputs of output m in canonical (logical) order. sum and
// mean also take (M, S, L) with stride(2) == 1: row m is its S segments of L elements in turn.
using Reduce = void(const TensorBase& out, const TensorBase& in);
// The ord-norm of each row (ord a float; inf, -inf and 0 included); floating out and in.
using VectorNorm = void(const TensorBase& out, const TensorBase& in, const Scalar& ord);
using Var = void(const TensorBase& out, const TensorBase& in, int64_t correction, bool take_sqrt);
using ReduceWithIndex = void(const TensorBase& values, const TensorBase& indices, const TensorBase& in);
using ArgReduce = void(const TensorBase& indices, const TensorBase& in);
// softmax and log_softmax over n of contiguous 3-D (outer, n, inner) tensors of one floating dtype
// (cpu/reduce.cpp, Note [Softmax over any dim]); the backward takes the output's gradient and the
// output itself.
using Softmax = void(const TensorBase& out, const TensorBase& in);
using SoftmaxBackward = void(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& out);
// layer_norm over the rows of x, contiguous (M, N) floating (cpu/layer_norm.cpp, Note [Layer norm
// order]); weight and bias undefined or contiguous (N) of x's dtype; out (M, N), mean and rstd (M)
// contiguous of x's dtype. The backward writes dx (M, N) from dy (M, N) contiguous and the saved
// mean and rstd, and dweight, dbias (N) unless undefined (not needed).
using LayerNorm = void(const TensorBase& out, const TensorBase& mean, const TensorBase& rstd, const TensorBase& x,
                       const TensorBase& weight, const TensorBase& bias, double eps);
using LayerNormBackward = void(const TensorBase& dx, const TensorBase& dweight, const TensorBase& dbias,
                               const TensorBase& dy, const TensorBase& x, const TensorBase& mean,
                               const TensorBase& rstd, const TensorBase& weight);
// batch_norm over the channels of x, contiguous (N, C, S) floating (cpu/batch_norm.cpp, Note
// [Batch norm order]); weight and bias undefined or contiguous (C) of x's dtype; out (N, C, S),
// mean and rstd (C) contiguous of x's dtype. training: mean and rstd from the batch, and unbiased
// (C), unless undefined, the unbiased variance; else mean a copy of running_mean and rstd from
// running_var (contiguous (C) of x's dtype). The backward writes dx (N, C, S) from dy (N, C, S)
// contiguous and the saved mean and rstd (training: through the batch's statistics; else dy
// scaled), and dweight, dbias (C) unless undefined.
using BatchNorm = void(const TensorBase& out, const TensorBase& mean, const TensorBase& rstd,
                       const TensorBase& unbiased, const TensorBase& x, const TensorBase& weight,
                       const TensorBase& bias, const TensorBase& running_mean, const TensorBase& running_var,
                       bool training, double eps);
using BatchNormBackward = void(const TensorBase& dx, const TensorBase& dweight, const TensorBase& dbias,
                               const TensorBase& dy, const TensorBase& x, const TensorBase& mean,
                               const TensorBase& rstd, const TensorBase& weight, bool training);
// group_norm of x, contiguous (N, C, HW) floating, in groups (C divisible by it) (cpu/batch_norm.cpp,
// Note [Batch norm order]); weight and bias undefined or contiguous (C) of x's dtype; out
// (N, C, HW), mean and rstd (N, groups) contiguous of x's dtype. The backward writes dx from dy
// (N, C, HW) contiguous and the saved mean and rstd, and dweight, dbias (C) unless undefined.
using GroupNorm = void(const TensorBase& out, const TensorBase& mean, const TensorBase& rstd, const TensorBase& x,
                       const TensorBase& weight, const TensorBase& bias, int64_t groups, double eps);
using GroupNormBackward = void(const TensorBase& dx, const TensorBase& dweight, const TensorBase& dbias,
                               const TensorBase& dy, const TensorBase& x, const TensorBase& mean,
                               const TensorBase& rstd, const TensorBase& weight, int64_t groups);
// cross_entropy with class targets (cpu/reduce.cpp): in and logp contiguous (N, C, P) floating;
// target contiguous (N, P) int64, each in [0, C) or ignore_index; weights undefined or each
// target's weight, contiguous (N, P) of in's dtype. logp = log_softmax over C (undefined: not
// written, when no gradient needs it); terms (N, P): -logp[t] (times the target's weight), +0
// where ignored.
// The backward writes grad_in (N, C, P) from logp, target (ignored ones replaced by 0) and
// grad_target (N, P), the gradient reaching each target's log-probability: the composed
// log_softmax-and-nll backward's bits (ops/loss_ops.cpp).
using CrossEntropy = void(const TensorBase& logp, const TensorBase& terms, const TensorBase& in,
                          const TensorBase& target, const TensorBase& weights, int64_t ignore_index);
using CrossEntropyBackward = void(const TensorBase& grad_in, const TensorBase& logp, const TensorBase& target,
                                  const TensorBase& grad_target);
// out and in are contiguous 3-D (outer, n, inner) of one dtype: each line out[o, :, i] is the scan
// of in[o, :, i] along n, from index 0 (from n - 1 when reverse), in Note [Scan order]
// (cpu/scan.cpp).
using Scan = void(const TensorBase& out, const TensorBase& in, bool reverse);
// cummax and cummin: values as out, indices int64 of the same shape (the index along n of each
// running extremum's last occurrence), in as Scan's.
using ScanWithIndex = void(const TensorBase& values, const TensorBase& indices, const TensorBase& in);
// Ordering (cpu/sort.cpp, Note [Ordering ties]): in is contiguous 2-D (M, n), a line per row;
// values and indices (int64) are (M, n) for sort, (M, k) for topk (0 <= k <= n), (M) for
// kthvalue (1 <= k <= n) and the medians (n >= 1).
using Sort = void(const TensorBase& values, const TensorBase& indices, const TensorBase& in, bool descending,
                  bool stable);
using TopK = void(const TensorBase& values, const TensorBase& indices, const TensorBase& in, int64_t k, bool largest,
                  bool sorted);
using KthValue = void(const TensorBase& values, const TensorBase& indices, const TensorBase& in, int64_t k);
using Median = void(const TensorBase& values, const TensorBase& indices, const TensorBase& in);
// out (B, m) int64: for each value of row b of values (B, m), where it would go in row b of
// boundaries (B, n) (row 0 when boundaries has one row), sorted ascending directly or through
// sorter (B, n) int64 in [0, n) when defined; right: after equal boundaries. One dtype, contiguous.
using SearchSorted = void(const TensorBase& out, const TensorBase& boundaries, const TensorBase& values,
                          const TensorBase& sorter, bool right);
// unique (cpu/sort.cpp): in contiguous (M, K), M elements of K values each; out (M, K) of in's
// dtype, inverse (M) and counts (M) int64, of which the kernel fills the first U rows (returned):
// the distinct elements, sorted (lexicographically), or in PyTorch's hash-set order (!sorted,
// K == 1), or runs of equal neighbours (consecutive); inverse[e] = the group of element e.
using Unique = int64_t(const TensorBase& out, const TensorBase& inverse, const TensorBase& counts, const TensorBase& in,
                       bool sorted, bool consecutive);
// Counting (cpu/count.cpp, Note [Counting order]): in is contiguous 1-D. histc: floating in, hist
// (bins) of in's dtype, lo < hi finite. bincount: integer in with values in [0, out.numel()), out
// int64 without weights, else float32 or float64 with weights (same length, out's dtype).
using Histc = void(const TensorBase& hist, const TensorBase& in, double lo, double hi);
using Bincount = void(const TensorBase& out, const TensorBase& in, const TensorBase& weights);
// CTC loss (cpu/ctc.cpp, Note [CTC order]): log_probs contiguous (T, N, C) floating; targets
// contiguous 1-D int64 with labels in [0, C); spans contiguous (N, 3) int64: per item its input
// length (<= T), target length and the offset of its labels in targets; blank in [0, C). nll (N)
// and log_alpha (N, T, 2 max_target_length + 1), log_probs' dtype. The backward writes grad
// (T, N, C) from grad_out (N) and the forward's nll and log_alpha.
using CtcLoss = void(const TensorBase& nll, const TensorBase& log_alpha, const TensorBase& log_probs,
                     const TensorBase& targets, const TensorBase& spans, int64_t blank);
using CtcLossBackward = void(const TensorBase& grad, const TensorBase& grad_out, const TensorBase& log_probs,
                             const TensorBase& targets, const TensorBase& spans, const TensorBase& nll,
                             const TensorBase& log_alpha, int64_t blank, bool zero_infinity);
// cumprod's gradient: grad_in, grad_out and in as Scan's tensors, floating.
using ScanBackward = void(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& in);
// out (B, M, N) = a (B, M, K) @ b (B, K, N), or all three 2-D (mm); addmm adds beta * self
// (expanded to (M, N)).
using Bmm = void(const TensorBase& out, const TensorBase& a, const TensorBase& b);
using Addmm = void(const TensorBase& out, const TensorBase& self, const TensorBase& a, const TensorBase& b,
                   const Scalar& beta, const Scalar& alpha);
// nonzero (cpu/index.cpp): the (count, in.dim()) int64 coordinates of in's nonzero elements in
// row-major order; in contiguous, any dtype. Returns a new tensor (its size depends on the data).
using Nonzero = Tensor(const TensorBase& in);
// cat takes the inputs as the public op holds them (a list of Tensor, declared above), not a copy.
using Cat = void(const TensorBase& out, const std::vector<Tensor>& inputs, int64_t dim);
using IndexSelect = void(const TensorBase& out, const TensorBase& in, int64_t dim, const TensorBase& index);
// Gather, ScatterAdd and ScatterReduce check index values themselves: an index outside
// [0, size(dim)) is skipped (gather writes a zero) and the kernel returns false.
using Gather = bool(const TensorBase& out, const TensorBase& in, int64_t dim, const TensorBase& index);
// self is updated in place: self.select(dim, index[k]) += source.select(dim, k), in k order.
using IndexAdd = void(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source);
// self[... index[p] ...] += src[p] along dim, in row-major order of p.
using ScatterAdd = bool(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src);
// As IndexAdd, but self.select(dim, index[k]) = source.select(dim, k): with duplicate indices the
// last k wins in deterministic kernels. index is 1-D, in range; source has index.numel() slices.
using IndexCopy = void(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source);
// self[... index[p] ...] = reduce(self[...], src[p]) along dim (PyTorch's scatter_reduce_); without
// include_self the positions that receive values start from the reduction's identity. Mean
// divides by the number of values (plus one with include_self).
using ScatterReduce = bool(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src,
                           ScatterReduction reduce, bool include_self);
using Arange = void(const TensorBase& out, double start, double step);
using Linspace = void(const TensorBase& out, double start, double end);
// Convolution (cpu/conv.cpp): 4-D (N, C, H, W) or 5-D (N, C, D, H, W) contiguous tensors; bias may
// be undefined. Output sizes are those of the tensors passed. ConvTranspose's weight is
// (C_in, C_out / groups, *kernel), the convolution's whose input gradient it computes.
using Conv = void(const TensorBase& out, const TensorBase& input, const TensorBase& weight, const TensorBase& bias,
                  const ConvArgs& args);
using ConvBackwardInput = void(const TensorBase& grad_input, const TensorBase& grad_out, const TensorBase& weight,
                               const ConvArgs& args);
using ConvBackwardWeight = void(const TensorBase& grad_weight, const TensorBase& grad_out, const TensorBase& input,
                                const ConvArgs& args);
// Pooling (cpu/pool.cpp): (N, C, H, W) or (N, C, D, H, W) contiguous tensors, output sizes those
// of the tensors passed; max pooling's indices are flat positions in each input plane, and their
// backward adds grad_out at them in each plane's output order. Fractional pooling's samples are
// (N * C, spatial dims) in the input's dtype.
using MaxPool = void(const TensorBase& values, const TensorBase& indices, const TensorBase& input,
                     const PoolArgs& args);
using MaxPoolBackward = void(const TensorBase& grad_input, const TensorBase& grad_out, const TensorBase& indices);
using AvgPool = void(const TensorBase& out, const TensorBase& input, const PoolArgs& args);
using AvgPoolBackward = void(const TensorBase& grad_input, const TensorBase& grad_out, const PoolArgs& args);
using AdaptivePool = void(const TensorBase& out, const TensorBase& input);
using AdaptivePoolBackward = void(const TensorBase& grad_input, const TensorBase& grad_out);
using AdaptiveMaxPool = void(const TensorBase& values, const TensorBase& indices, const TensorBase& input);
using FractionalMaxPool = void(const TensorBase& values, const TensorBase& indices, const TensorBase& input,
                               const TensorBase& samples, const PoolArgs& args);
// grid_sample (cpu/grid_sample.cpp, Note [Grid sampling arithmetic]): input (N, C, *in), grid
// (N, *out, dims), output (N, C, *out), contiguous; grad_input may be undefined (not computed).
using GridSample = void(const TensorBase& out, const TensorBase& input, const TensorBase& grid,
                        const GridSampleArgs& args);
using GridSampleBackward = void(const TensorBase& grad_input, const TensorBase& grad_grid, const TensorBase& grad_out,
                                const TensorBase& input, const TensorBase& grid, const GridSampleArgs& args);
// Padding and upsampling (cpu/resample.cpp, Note [Resampling order]): in and out contiguous, of one
// floating dtype, the same leading dims, resampled over their last args.dims dims. The backward
// writes grad_in (the input's shape) from grad_out (the output's).
using Pad = void(const TensorBase& out, const TensorBase& in, const PadArgs& args);
using PadBackward = void(const TensorBase& grad_in, const TensorBase& grad_out, const PadArgs& args);
using Upsample = void(const TensorBase& out, const TensorBase& in, const UpsampleArgs& args);
using UpsampleBackward = void(const TensorBase& grad_in, const TensorBase& grad_out, const UpsampleArgs& args);
// out (P, L_out) = 0, then out[p][indices[p][i]] = input[p][i]; indices are in range.
using MaxUnpool = void(const TensorBase& out, const TensorBase& input, const TensorBase& indices);
// out = a + w (b - a) as fma(w, b - a, a) for |w| < 0.5, else fma(w - 1, b - a, b) (PyTorch's lerp).
using Lerp = void(const TensorBase& out, const TensorBase& a, const TensorBase& b, const Scalar& weight);
// addcmul: fma(value * t1, t2, self); addcdiv: self + value * t1 / t2. Operands expanded to out's shape.
using Addc = void(const TensorBase& out, const TensorBase& self, const TensorBase& t1, const TensorBase& t2,
                  const Scalar& value);
using Gelu = void(const TensorBase& out, const TensorBase& in, bool tanh_approx);
using GeluBackward = void(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& in,
                          bool tanh_approx);
// scaled_dot_product_attention (cpu/attention.cpp, Note [Attention order]): q (N..., L, E), k
// (N..., S, E), v (N..., S, Ev) and mask (undefined, or (N..., L, S) bool or of q's dtype) strided,
// expanded to the batch dims N...; out (N..., L, Ev) and lse (N..., L) contiguous, of q's
// floating dtype; the backward's dq, dk, dv contiguous of q's, k's and v's (expanded) shapes.
using Attention = void(const TensorBase& out, const TensorBase& lse, const TensorBase& q, const TensorBase& k,
                       const TensorBase& v, const TensorBase& mask, const AttentionArgs& args);
using AttentionBackward = void(const TensorBase& dq, const TensorBase& dk, const TensorBase& dv, const TensorBase& dout,
                               const TensorBase& q, const TensorBase& k, const TensorBase& v, const TensorBase& out,
                               const TensorBase& lse, const TensorBase& mask, const AttentionArgs& args);
// Activations with parameters (silu, hardswish and mish are Unary): out and in of one floating
// dtype and shape; the parameters are converted to it, as PyTorch's kernels do.
using Activation1 = void(const TensorBase& out, const TensorBase& in, const Scalar& p);  // leaky_relu's slope
using Activation2 = void(const TensorBase& out, const TensorBase& in, const Scalar& p0, const Scalar& p1);
using Elu = void(const TensorBase& out, const TensorBase& in, const Scalar& alpha, const Scalar& scale,
                 const Scalar& input_scale);
using ThresholdBackward = void(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& self,
                               const Scalar& threshold);
// grad_weight (num, dim), zeroed, += grad (n, dim) rows at indices (n, int64) in index order,
// skipping padding_idx (-1: none).
using EmbeddingBackward = void(const TensorBase& grad_weight, const TensorBase& grad, const TensorBase& indices,
                               int64_t padding_idx);
// embedding_bag (cpu/embedding.cpp, Note [Bag order]): weight contiguous (num, dim) floating;
// indices contiguous 1-D int64 in [0, num); bounds contiguous (B + 1) int64, non-decreasing from 0
// to at most indices' length: bag b holds positions [bounds[b], bounds[b + 1]); per_sample_weights
// undefined or contiguous like indices in weight's dtype (sum only); mode 0 sum, 1 mean, 2 max;
// padding_idx -1 or a row that bags skip. out (B, dim) in weight's dtype; max_indices (B, dim)
// int64 for max (the row each maximum came from, -1 in an empty bag), undefined otherwise. The
// backward adds into grad_weight (num, dim), zeroed, from grad (B, dim) contiguous.
using EmbeddingBag = void(const TensorBase& out, const TensorBase& max_indices, const TensorBase& weight,
                          const TensorBase& indices, const TensorBase& bounds, const TensorBase& per_sample_weights,
                          int64_t mode, int64_t padding_idx);
using EmbeddingBagBackward = void(const TensorBase& grad_weight, const TensorBase& grad, const TensorBase& indices,
                                  const TensorBase& bounds, const TensorBase& per_sample_weights,
                                  const TensorBase& max_indices, int64_t mode, int64_t padding_idx);
// Random draws (cpu/random.cpp): PyTorch 1.13's CPU streams, written in TensorIterator order. The
// caller holds g's mutex and has validated the arguments; t has no two elements at one address.
// Distribution: uniform_ on [a, b) or normal_ of mean a and std b (>= 0); t floating.
using Distribution = void(const TensorBase& t, double a, double b, Generator& g);
// random_: integers in [from, to), from < to already rounded to t's dtype (ATen's update_from/to).
using RandomFromTo = void(const TensorBase& t, int64_t from, int64_t to, Generator& g);
using BernoulliScalar = void(const TensorBase& t, double p, Generator& g);  // p in [0, 1]
// out contiguous, of p's floating dtype and shape; every p in [0, 1].
using BernoulliTensor = void(const TensorBase& out, const TensorBase& p, Generator& g);
// exponential_: Exp(1) draws into floating t; randperm: t 1-D, a permutation of 0 .. n-1.
using RandomFill = void(const TensorBase& t, Generator& g);
// multinomial with replacement: out (rows, samples) int64 from p (rows, C) floating, every entry
// finite and >= 0 and every row with a positive one.
using Multinomial = void(const TensorBase& out, const TensorBase& p, Generator& g);
// Views: metadata only, no data is touched.
using View = Tensor(const TensorBase& self, const Shape& shape);
using Transpose = Tensor(const TensorBase& self, int64_t d0, int64_t d1);
using Permute = Tensor(const TensorBase& self, const Shape& dims);
using Select = Tensor(const TensorBase& self, int64_t dim, int64_t index);
using Slice = Tensor(const TensorBase& self, int64_t dim, int64_t start, int64_t end, int64_t step);
using Expand = Tensor(const TensorBase& self, const Shape& shape);
using Squeeze = Tensor(const TensorBase& self, std::optional<int64_t> dim);
using Unsqueeze = Tensor(const TensorBase& self, int64_t dim);
}  // namespace kernel_sig

}  // namespace ditto
