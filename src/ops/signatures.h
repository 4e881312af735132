#pragma once
// Kernel signatures: the type of every kernel of an op (op_table.def names one per op), with the
// contract each kernel keeps.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/random.h"
#include "ditto/tensor.h"

namespace ditto {

namespace kernel_sig {
// out and in have the same shape; in may be strided; out's dtype is the result dtype.
using Unary = void(const Tensor& out, const Tensor& in);
// a and b are expanded to out's shape and have the compute dtype.
using Binary = void(const Tensor& out, const Tensor& a, const Tensor& b);
// out = a + alpha * b with one rounding (fma), as PyTorch's vectorised add does.
using AddScaled = void(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha);
using PowScalar = void(const Tensor& out, const Tensor& in, const Scalar& exponent);
using Clamp = void(const Tensor& out, const Tensor& in, const std::optional<Scalar>& lo,
                   const std::optional<Scalar>& hi);
using Where = void(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
using MaskedFill = void(const Tensor& self, const Tensor& mask, const Scalar& value);  // in place
using Fill = void(const Tensor& out, const Scalar& value);
using Copy = void(const Tensor& dst, const Tensor& src);  // src expanded to dst's shape, any dtypes
// in is 2-D (M, R): row m holds the R inputs of output m in canonical (logical) order. sum and
// mean also take (M, S, L) with stride(2) == 1: row m is its S segments of L elements in turn.
using Reduce = void(const Tensor& out, const Tensor& in);
// The ord-norm of each row (ord a float; inf, -inf and 0 included); floating out and in.
using VectorNorm = void(const Tensor& out, const Tensor& in, const Scalar& ord);
using Var = void(const Tensor& out, const Tensor& in, int64_t correction, bool take_sqrt);
using ReduceWithIndex = void(const Tensor& values, const Tensor& indices, const Tensor& in);
using ArgReduce = void(const Tensor& indices, const Tensor& in);
// softmax and log_softmax over n of contiguous 3-D (outer, n, inner) tensors of one floating dtype
// (cpu/reduce.cpp, Note [Softmax over any dim]); the backward takes the output's gradient and the
// output itself.
using Softmax = void(const Tensor& out, const Tensor& in);
using SoftmaxBackward = void(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out);
// layer_norm over the rows of x, contiguous (M, N) floating (cpu/layer_norm.cpp, Note [Layer norm
// order]); weight and bias undefined or contiguous (N) of x's dtype; out (M, N), mean and rstd (M)
// contiguous of x's dtype. The backward writes dx (M, N) from dy (M, N) contiguous and the saved
// mean and rstd, and dweight, dbias (N) unless undefined (not needed).
using LayerNorm = void(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& weight,
                       const Tensor& bias, double eps);
using LayerNormBackward = void(const Tensor& dx, const Tensor& dweight, const Tensor& dbias, const Tensor& dy,
                               const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& weight);
// cross_entropy with class targets (cpu/reduce.cpp): in and logp contiguous (N, C, P) floating;
// target contiguous (N, P) int64, each in [0, C) or ignore_index; weights undefined or each
// target's weight, contiguous (N, P) of in's dtype. logp = log_softmax over C (undefined: not
// written, when no gradient needs it); terms (N, P): -logp[t] (times the target's weight), +0
// where ignored.
// The backward writes grad_in (N, C, P) from logp, target (ignored ones replaced by 0) and
// grad_target (N, P), the gradient reaching each target's log-probability: the composed
// log_softmax-and-nll backward's bits (ops/loss_ops.cpp).
using CrossEntropy = void(const Tensor& logp, const Tensor& terms, const Tensor& in, const Tensor& target,
                          const Tensor& weights, int64_t ignore_index);
using CrossEntropyBackward = void(const Tensor& grad_in, const Tensor& logp, const Tensor& target,
                                  const Tensor& grad_target);
// out and in are contiguous 3-D (outer, n, inner) of one dtype: each line out[o, :, i] is the scan
// of in[o, :, i] along n, from index 0 (from n - 1 when reverse), in Note [Scan order]
// (cpu/scan.cpp).
using Scan = void(const Tensor& out, const Tensor& in, bool reverse);
// cummax and cummin: values as out, indices int64 of the same shape (the index along n of each
// running extremum's last occurrence), in as Scan's.
using ScanWithIndex = void(const Tensor& values, const Tensor& indices, const Tensor& in);
// Ordering (cpu/sort.cpp, Note [Ordering ties]): in is contiguous 2-D (M, n), a line per row;
// values and indices (int64) are (M, n) for sort, (M, k) for topk (0 <= k <= n), (M) for
// kthvalue (1 <= k <= n) and the medians (n >= 1).
using Sort = void(const Tensor& values, const Tensor& indices, const Tensor& in, bool descending, bool stable);
using TopK = void(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, bool largest, bool sorted);
using KthValue = void(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k);
using Median = void(const Tensor& values, const Tensor& indices, const Tensor& in);
// out (B, m) int64: for each value of row b of values (B, m), where it would go in row b of
// boundaries (B, n) (row 0 when boundaries has one row), sorted ascending directly or through
// sorter (B, n) int64 in [0, n) when defined; right: after equal boundaries. One dtype, contiguous.
using SearchSorted = void(const Tensor& out, const Tensor& boundaries, const Tensor& values, const Tensor& sorter,
                          bool right);
// unique (cpu/sort.cpp): in contiguous (M, K), M elements of K values each; out (M, K) of in's
// dtype, inverse (M) and counts (M) int64, of which the kernel fills the first U rows (returned):
// the distinct elements, sorted (lexicographically), or in PyTorch's hash-set order (!sorted,
// K == 1), or runs of equal neighbours (consecutive); inverse[e] = the group of element e.
using Unique = int64_t(const Tensor& out, const Tensor& inverse, const Tensor& counts, const Tensor& in, bool sorted,
                       bool consecutive);
// Counting (cpu/count.cpp, Note [Counting order]): in is contiguous 1-D. histc: floating in, hist
// (bins) of in's dtype, lo < hi finite. bincount: integer in with values in [0, out.numel()), out
// int64 without weights, else float32 or float64 with weights (same length, out's dtype).
using Histc = void(const Tensor& hist, const Tensor& in, double lo, double hi);
using Bincount = void(const Tensor& out, const Tensor& in, const Tensor& weights);
// CTC loss (cpu/ctc.cpp, Note [CTC order]): log_probs contiguous (T, N, C) floating; targets
// contiguous 1-D int64 with labels in [0, C); spans contiguous (N, 3) int64: per item its input
// length (<= T), target length and the offset of its labels in targets; blank in [0, C). nll (N)
// and log_alpha (N, T, 2 max_target_length + 1), log_probs' dtype. The backward writes grad
// (T, N, C) from grad_out (N) and the forward's nll and log_alpha.
using CtcLoss = void(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs, const Tensor& targets,
                     const Tensor& spans, int64_t blank);
using CtcLossBackward = void(const Tensor& grad, const Tensor& grad_out, const Tensor& log_probs, const Tensor& targets,
                             const Tensor& spans, const Tensor& nll, const Tensor& log_alpha, int64_t blank,
                             bool zero_infinity);
// cumprod's gradient: grad_in, grad_out and in as Scan's tensors, floating.
using ScanBackward = void(const Tensor& grad_in, const Tensor& grad_out, const Tensor& in);
// out (B, M, N) = a (B, M, K) @ b (B, K, N), or all three 2-D (mm); addmm adds beta * self
// (expanded to (M, N)).
using Bmm = void(const Tensor& out, const Tensor& a, const Tensor& b);
using Addmm = void(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
                   const Scalar& alpha);
// nonzero (cpu/index.cpp): the (count, in.dim()) int64 coordinates of in's nonzero elements in
// row-major order; in contiguous, any dtype. Returns a new tensor (its size depends on the data).
using Nonzero = Tensor(const Tensor& in);
using Cat = void(const Tensor& out, const std::vector<Tensor>& inputs, int64_t dim);
using IndexSelect = void(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
// Gather, ScatterAdd and ScatterReduce check index values themselves: an index outside
// [0, size(dim)) is skipped (gather writes a zero) and the kernel returns false.
using Gather = bool(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
// self is updated in place: self.select(dim, index[k]) += source.select(dim, k), in k order.
using IndexAdd = void(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
// self[... index[p] ...] += src[p] along dim, in row-major order of p.
using ScatterAdd = bool(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// As IndexAdd, but self.select(dim, index[k]) = source.select(dim, k): with duplicate indices the
// last k wins in deterministic kernels. index is 1-D, in range; source has index.numel() slices.
using IndexCopy = void(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
// self[... index[p] ...] = reduce(self[...], src[p]) along dim (PyTorch's scatter_reduce_); without
// include_self the positions that receive values start from the reduction's identity. Mean
// divides by the number of values (plus one with include_self).
using ScatterReduce = bool(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           ScatterReduction reduce, bool include_self);
using Arange = void(const Tensor& out, double start, double step);
using Linspace = void(const Tensor& out, double start, double end);
// Convolution (cpu/conv.cpp): 4-D (N, C, H, W) or 5-D (N, C, D, H, W) contiguous tensors; bias may
// be undefined. Output sizes are those of the tensors passed. ConvTranspose's weight is
// (C_in, C_out / groups, *kernel), the convolution's whose input gradient it computes.
using Conv = void(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const ConvArgs& args);
using ConvBackwardInput = void(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                               const ConvArgs& args);
using ConvBackwardWeight = void(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                                const ConvArgs& args);
// Pooling (cpu/pool.cpp): (N, C, H, W) or (N, C, D, H, W) contiguous tensors, output sizes those
// of the tensors passed; max pooling's indices are flat positions in each input plane, and their
// backward adds grad_out at them in each plane's output order. Fractional pooling's samples are
// (N * C, spatial dims) in the input's dtype.
using MaxPool = void(const Tensor& values, const Tensor& indices, const Tensor& input, const PoolArgs& args);
using MaxPoolBackward = void(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices);
using AvgPool = void(const Tensor& out, const Tensor& input, const PoolArgs& args);
using AvgPoolBackward = void(const Tensor& grad_input, const Tensor& grad_out, const PoolArgs& args);
using AdaptivePool = void(const Tensor& out, const Tensor& input);
using AdaptivePoolBackward = void(const Tensor& grad_input, const Tensor& grad_out);
using AdaptiveMaxPool = void(const Tensor& values, const Tensor& indices, const Tensor& input);
using FractionalMaxPool = void(const Tensor& values, const Tensor& indices, const Tensor& input, const Tensor& samples,
                               const PoolArgs& args);
// grid_sample (cpu/grid_sample.cpp, Note [Grid sampling arithmetic]): input (N, C, *in), grid
// (N, *out, dims), output (N, C, *out), contiguous; grad_input may be undefined (not computed).
using GridSample = void(const Tensor& out, const Tensor& input, const Tensor& grid, const GridSampleArgs& args);
using GridSampleBackward = void(const Tensor& grad_input, const Tensor& grad_grid, const Tensor& grad_out,
                                const Tensor& input, const Tensor& grid, const GridSampleArgs& args);
// Padding and upsampling (cpu/resample.cpp, Note [Resampling order]): in and out contiguous, of one
// floating dtype, the same leading dims, resampled over their last args.dims dims. The backward
// writes grad_in (the input's shape) from grad_out (the output's).
using Pad = void(const Tensor& out, const Tensor& in, const PadArgs& args);
using PadBackward = void(const Tensor& grad_in, const Tensor& grad_out, const PadArgs& args);
using Upsample = void(const Tensor& out, const Tensor& in, const UpsampleArgs& args);
using UpsampleBackward = void(const Tensor& grad_in, const Tensor& grad_out, const UpsampleArgs& args);
// out (P, L_out) = 0, then out[p][indices[p][i]] = input[p][i]; indices are in range.
using MaxUnpool = void(const Tensor& out, const Tensor& input, const Tensor& indices);
// out = a + w (b - a) as fma(w, b - a, a) for |w| < 0.5, else fma(w - 1, b - a, b) (PyTorch's lerp).
using Lerp = void(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& weight);
// addcmul: fma(value * t1, t2, self); addcdiv: self + value * t1 / t2. Operands expanded to out's shape.
using Addc = void(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
using Gelu = void(const Tensor& out, const Tensor& in, bool tanh_approx);
using GeluBackward = void(const Tensor& grad_in, const Tensor& grad_out, const Tensor& in, bool tanh_approx);
// scaled_dot_product_attention (cpu/attention.cpp, Note [Attention order]): q (N..., L, E), k
// (N..., S, E), v (N..., S, Ev) and mask (undefined, or (N..., L, S) bool or of q's dtype) strided,
// expanded to the batch dims N...; out (N..., L, Ev) and lse (N..., L) contiguous, of q's
// floating dtype; the backward's dq, dk, dv contiguous of q's, k's and v's (expanded) shapes.
using Attention = void(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                       const Tensor& mask, const AttentionArgs& args);
using AttentionBackward = void(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                               const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out, const Tensor& lse,
                               const Tensor& mask, const AttentionArgs& args);
// Activations with parameters (silu, hardswish and mish are Unary): out and in of one floating
// dtype and shape; the parameters are converted to it, as PyTorch's kernels do.
using Activation1 = void(const Tensor& out, const Tensor& in, const Scalar& p);  // leaky_relu's slope
using Activation2 = void(const Tensor& out, const Tensor& in, const Scalar& p0, const Scalar& p1);
using Elu = void(const Tensor& out, const Tensor& in, const Scalar& alpha, const Scalar& scale,
                 const Scalar& input_scale);
using ThresholdBackward = void(const Tensor& grad_in, const Tensor& grad_out, const Tensor& self,
                               const Scalar& threshold);
// grad_weight (num, dim), zeroed, += grad (n, dim) rows at indices (n, int64) in index order,
// skipping padding_idx (-1: none).
using EmbeddingBackward = void(const Tensor& grad_weight, const Tensor& grad, const Tensor& indices,
                               int64_t padding_idx);
// embedding_bag (cpu/embedding.cpp, Note [Bag order]): weight contiguous (num, dim) floating;
// indices contiguous 1-D int64 in [0, num); bounds contiguous (B + 1) int64, non-decreasing from 0
// to at most indices' length: bag b holds positions [bounds[b], bounds[b + 1]); per_sample_weights
// undefined or contiguous like indices in weight's dtype (sum only); mode 0 sum, 1 mean, 2 max;
// padding_idx -1 or a row that bags skip. out (B, dim) in weight's dtype; max_indices (B, dim)
// int64 for max (the row each maximum came from, -1 in an empty bag), undefined otherwise. The
// backward adds into grad_weight (num, dim), zeroed, from grad (B, dim) contiguous.
using EmbeddingBag = void(const Tensor& out, const Tensor& max_indices, const Tensor& weight, const Tensor& indices,
                          const Tensor& bounds, const Tensor& per_sample_weights, int64_t mode, int64_t padding_idx);
using EmbeddingBagBackward = void(const Tensor& grad_weight, const Tensor& grad, const Tensor& indices,
                                  const Tensor& bounds, const Tensor& per_sample_weights, const Tensor& max_indices,
                                  int64_t mode, int64_t padding_idx);
// Random draws (cpu/random.cpp): PyTorch 1.13's CPU streams, written in TensorIterator order. The
// caller holds g's mutex and has validated the arguments; t has no two elements at one address.
// Distribution: uniform_ on [a, b) or normal_ of mean a and std b (>= 0); t floating.
using Distribution = void(const Tensor& t, double a, double b, Generator& g);
// random_: integers in [from, to), from < to already rounded to t's dtype (ATen's update_from/to).
using RandomFromTo = void(const Tensor& t, int64_t from, int64_t to, Generator& g);
using BernoulliScalar = void(const Tensor& t, double p, Generator& g);  // p in [0, 1]
// out contiguous, of p's floating dtype and shape; every p in [0, 1].
using BernoulliTensor = void(const Tensor& out, const Tensor& p, Generator& g);
// exponential_: Exp(1) draws into floating t; randperm: t 1-D, a permutation of 0 .. n-1.
using RandomFill = void(const Tensor& t, Generator& g);
// multinomial with replacement: out (rows, samples) int64 from p (rows, C) floating, every entry
// finite and >= 0 and every row with a positive one.
using Multinomial = void(const Tensor& out, const Tensor& p, Generator& g);
// Views: metadata only, no data is touched.
using View = Tensor(const Tensor& self, const Shape& shape);
using Transpose = Tensor(const Tensor& self, int64_t d0, int64_t d1);
using Permute = Tensor(const Tensor& self, const Shape& dims);
using Select = Tensor(const Tensor& self, int64_t dim, int64_t index);
using Slice = Tensor(const Tensor& self, int64_t dim, int64_t start, int64_t end, int64_t step);
using Expand = Tensor(const Tensor& self, const Shape& shape);
using Squeeze = Tensor(const Tensor& self, std::optional<int64_t> dim);
using Unsqueeze = Tensor(const Tensor& self, int64_t dim);
}  // namespace kernel_sig

}  // namespace ditto
