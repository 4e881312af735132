#pragma once
// Ops as free functions (the Tensor methods call these). Every op is declared in the op table
// (src/ops/op_table.def) with its kernels and their determinism class.
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "ditto/tensor.h"

namespace ditto {

// --- elementwise (broadcasting, PyTorch's type promotion)
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);  // true division: integers give float32
Tensor add(const Tensor& a, const Scalar& b);
Tensor sub(const Tensor& a, const Scalar& b);
Tensor mul(const Tensor& a, const Scalar& b);
Tensor div(const Tensor& a, const Scalar& b);
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);  // -1, 0 or 1; NaN gives 0
Tensor pow(const Tensor& x, const Scalar& exponent);
Tensor pow(const Tensor& x, const Tensor& exponent);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
// clamp with one bound (PyTorch's clamp_min / clamp_max)
Tensor clamp_min(const Tensor& x, const Scalar& min);
Tensor clamp_max(const Tensor& x, const Scalar& max);
// Elementary functions from ditto's dmath (cpu/dmath.h: within 1 ulp, the same bits at every
// level); integers and bool are computed as float32.
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor erf(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
// Rounding to an integral value in x's dtype (round: half to even); integers are returned as they
// are. The gradient is zero.
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);
Tensor trunc(const Tensor& x);
// The larger (smaller) of a and b, broadcast and promoted as add; a NaN in either gives NaN. Ties
// split the gradient in halves (PyTorch's rule).
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
// a - trunc(a / b) * b (fmod: the sign of a) and a - floor(a / b) * b (remainder: the sign of b),
// computed exactly as C's fmod, as PyTorch's CPU kernels; an integer division by zero raises.
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, const Scalar& b);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, const Scalar& b);
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, const Scalar& b);
Tensor where(const Tensor& condition, const Scalar& a, const Tensor& b);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value);
// The lower (tril) or upper (triu) triangle of the last two dims: element (i, j) kept where
// j - i <= diagonal (tril) or j - i >= diagonal (triu), else 0 (exactly, whatever the element:
// inf and NaN too); any dtype; differentiable (the gradient is masked the same way).
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);
// start + weight * (end - start), with PyTorch's fma (torch.lerp with a scalar weight)
Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight);
// self + value * t1 * t2 (one fma, as PyTorch's kernel) and self + value * t1 / t2
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
// GELU: approximate "none" (x * Phi(x), with erf) or "tanh"; gelu_backward is its vjp
Tensor gelu(const Tensor& x, std::string_view approximate = "none");
Tensor gelu_backward(const Tensor& grad, const Tensor& x, std::string_view approximate = "none");
// Activations, as torch.nn.functional's (one pass each; gradients from PyTorch's formulas):
// silu x * sigmoid(x), computed as x / (1 + exp(-x)); softplus log1p(exp(beta x)) / beta, x where
// beta x > threshold; leaky_relu x or slope * x; elu scale * x for x > 0, else
// scale * alpha * expm1(x * input_scale); hardtanh clamp(x, min_val, max_val); hardswish
// x * relu6(x + 3) / 6; mish x * tanh(softplus(x)).
Tensor silu(const Tensor& x);
Tensor softplus(const Tensor& x, const Scalar& beta = 1, const Scalar& threshold = 20);
Tensor leaky_relu(const Tensor& x, const Scalar& negative_slope = 0.01);
Tensor elu(const Tensor& x, const Scalar& alpha = 1, const Scalar& scale = 1, const Scalar& input_scale = 1);
Tensor hardtanh(const Tensor& x, const Scalar& min_val = -1, const Scalar& max_val = 1);
Tensor hardswish(const Tensor& x);
Tensor mish(const Tensor& x);
// relu's vjp, as PyTorch's: grad where self > threshold, else 0 (a NaN self passes grad through)
Tensor threshold_backward(const Tensor& grad, const Tensor& self, const Scalar& threshold);
// weight's rows at indices (int64/int32): shape indices.shape + (dim,). The backward sums rows in
// index order (deterministic on every path); rows equal to padding_idx (-1: none) get no gradient.
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1);
Tensor embedding_dense_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx = -1);
// The bags of nn::functional::embedding_bag, which checks PyTorch's arguments and calls this:
// indices 1-D (int64/int32) into weight's rows; bounds (B + 1) int64, non-decreasing from 0 to at
// most indices' length (bag b: positions [bounds[b], bounds[b + 1])); mode "sum", "mean" or "max";
// per_sample_weights (sum only) undefined or like indices; rows equal to padding_idx (-1: none)
// are skipped. Returns the (B, dim) bags and, for max, the row each maximum came from (-1 in an
// empty bag). Combined in index order, forward and backward (cpu/embedding.cpp, Note [Bag order]).
std::pair<Tensor, Tensor> embedding_bag_bounds(const Tensor& weight, const Tensor& indices, const Tensor& bounds,
                                               std::string_view mode, const Tensor& per_sample_weights = Tensor(),
                                               int64_t padding_idx = -1);
// dtype of a op b under PyTorch's promotion (0-dim tensors and scalars count less)
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);

// --- reductions; dims is a DimList ({0, 2}, a Shape, or one int); an empty list means every dim
Tensor sum(const Tensor& x, std::optional<ScalarType> dtype = std::nullopt);
Tensor sum(const Tensor& x, const DimList& dims, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& x);
Tensor mean(const Tensor& x, const DimList& dims, bool keepdim = false);
Tensor prod(const Tensor& x);
Tensor prod(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor max(const Tensor& x);
Tensor min(const Tensor& x);
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor amax(const Tensor& x, const DimList& dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, const DimList& dims = {}, bool keepdim = false);
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor var(const Tensor& x, const DimList& dims = {}, bool unbiased = true, bool keepdim = false);
Tensor std(const Tensor& x, const DimList& dims = {}, bool unbiased = true, bool keepdim = false);
// torch.native_layer_norm: x normalised over its trailing normalized_shape dims (biased
// variance), times weight plus bias where given (each of normalized_shape, x's dtype); returns
// (out, mean, rstd), mean and rstd of x's leading dims and ones. Fused (cpu/layer_norm.cpp):
// the bits of mean, var, sub, rsqrt, mul, add in that order; nn::functional::layer_norm runs it.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& x, const Shape& normalized_shape,
                                                     const Tensor& weight, const Tensor& bias, double eps);
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
// log(sum(exp(x), dims)) without overflow: the maximum over dims (0 where it is infinite) is
// taken out before exp and added back (PyTorch's algorithm); integers are computed as float32.
Tensor logsumexp(const Tensor& x, const DimList& dims, bool keepdim = false);
// The ord-norm of x over dims (all when empty): (sum |x|^ord)^(1/ord); ord inf / -inf the largest
// / smallest |x|, 0 the number of nonzeros; floating x only. The sum is sum's canonical tree. The
// gradient is PyTorch's (0 where the norm is 0). norm is torch.norm with a numeric p.
namespace linalg {
Tensor vector_norm(const Tensor& x, const Scalar& ord = 2, const DimList& dims = {}, bool keepdim = false);
}  // namespace linalg
Tensor norm(const Tensor& x, const Scalar& p = 2, const DimList& dims = {}, bool keepdim = false);
// Running sums and products along dim, in PyTorch's CPU order (the same bits): integers and bool
// give int64 unless dtype says otherwise; the input is converted to dtype first.
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
// log(cumsum(exp(x))) along dim without overflow, accumulated in double as PyTorch's CPU kernel;
// floating x only.
Tensor logcumsumexp(const Tensor& x, int64_t dim);
// The running maximum (minimum) along dim and the index of its last occurrence (PyTorch's tie
// rule); once a NaN is seen it is the running extremum, with the index of the latest NaN.
std::pair<Tensor, Tensor> cummax(const Tensor& x, int64_t dim);
std::pair<Tensor, Tensor> cummin(const Tensor& x, int64_t dim);

// --- ordering: ties are broken as PyTorch's CPU kernels break them (Note [Ordering ties])
// NaN sorts above every number; stable keeps equal values in index order.
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor argsort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
// The k largest (smallest) values along dim and their indices, sorted when sorted is set.
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);
// The k-th smallest value along dim (k from 1) and its index.
std::pair<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim = -1, bool keepdim = false);
// Where each value would go in sorted_sequence's last dim (1-D, or one row per row of values):
// the first index whose boundary is >= the value (> with right, or side "right"); sorter, when
// given, sorts an unsorted sequence. int64 indices (int32 with out_int32). bucketize(values,
// boundaries) is searchsorted(boundaries, values) with 1-D boundaries. No gradient.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = std::nullopt, const Tensor& sorter = Tensor());
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = std::nullopt, const Tensor& sorter = Tensor());
Tensor bucketize(const Tensor& values, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor bucketize(const Scalar& value, const Tensor& boundaries, bool out_int32 = false, bool right = false);
// The lower median along dim and its index (ties: the index a stable sort puts there); median
// returns a line's first NaN, nanmedian leaves NaNs out. Without dim: over every element.
std::pair<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor median(const Tensor& x);
Tensor nanmedian(const Tensor& x);
// The most frequent value along dim (the smallest of equally frequent ones) and the index of one
// of its occurrences, PyTorch's: the last in the order its sort leaves the ties. NaNs never repeat.
std::pair<Tensor, Tensor> mode(const Tensor& x, int64_t dim = -1, bool keepdim = false);
// The distinct elements (sorted, NaNs last and each distinct; sorted = false gives PyTorch 1.13's
// CPU order, its hash set's, except for bool), with inverse (where each element of x went, x's shape) and counts
// when asked (else empty). With dim: the distinct slices along dim, always sorted.
// unique_consecutive: only runs of equal neighbours collapse, in order. No gradients.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool sorted = true, bool return_inverse = false,
                                          bool return_counts = false, std::optional<int64_t> dim = std::nullopt);
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);

// --- counting (Note [Counting order]): no gradients, as PyTorch's
// A histogram of x's elements in bins equal bins over [min, max] (x's own range when min == max);
// elements outside it (and NaNs) are not counted. Floating x; the counts in x's dtype.
Tensor histc(const Tensor& x, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);
// out[v] = the number of times v occurs in x (1-D, non-negative integers), or the sum of the
// weights at those places in input order (float32 for float32 weights, float64 for others);
// at least minlength bins.
Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights = std::nullopt, int64_t minlength = 0);

// --- linear algebra (Note [GEMM accumulation order])
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta = 1, const Scalar& alpha = 1);
// beta * self + alpha * bmm(b1, b2), self broadcast to (B, N, M); beta 0 ignores self (NaNs too).
Tensor baddbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1, const Scalar& alpha = 1);
// a (1-D) times b (1-D): the (n, m) matrix a[i] * b[j].
Tensor outer(const Tensor& a, const Tensor& b);
// Einstein summation, as torch.einsum: "ij,jk->ik", "bhqd,bhkd->bhqk", "...ij,...jk", implicit
// output (the labels used once, alphabetically), "..." for broadcast dims, size-1 dims broadcast.
// Operands are contracted left to right, each pair as one bmm (Note [GEMM accumulation order]); a
// label repeated within one operand takes the diagonal.
Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands);

// --- joining and indexing
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
// self with source's slices added at index along dim (alpha * source); deterministic order.
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
// self with src written at index along dim (PyTorch's scatter): self[... index[p] ...] = src[p]
// (or value); with repeated indices the last along dim wins, as PyTorch's CPU kernel.
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
// With reduce "add" or "multiply" the values are combined with self's in index order; PyTorch
// has no gradient for this form, so neither does ditto (it raises when a gradient is needed).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce);
// self with src added at index along dim (PyTorch's scatter_add).
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// self with source's slices copied to index along dim (index int64, 1-D). With duplicate indices
// the last one wins in deterministic mode; otherwise the winner is unspecified.
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
// Advanced indexing, as PyTorch's (x[i0, i1, ...]): indices[j] indexes the j-th dim not yet used:
// an int32/int64 tensor (negatives count from the end) one dim, a bool mask as many dims as it has
// (its true elements' coordinates, in row-major order), an undefined Tensor() a full slice (':').
// The index tensors broadcast together to b, and the result has b in place of the indexed dims
// (first, when they are not next to each other). index_put: self with values (broadcast to that
// shape) written there, or added with accumulate. Duplicates: the last write wins, adds go in
// index order. Gradients through index_select / index_add, summed in index order.
Tensor index(const Tensor& self, const std::vector<Tensor>& indices);
Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false);
// --- selection by data (src/ops/select_ops.cpp): gradients through index_select, gather and
// index_copy, summed in index order
// The (count, x.dim()) int64 coordinates of x's nonzero elements (NaN is nonzero, -0.0 is not), in
// row-major order; nonzero_as_tuple and where(condition) give one coordinate tensor per dim.
Tensor nonzero(const Tensor& x);
std::vector<Tensor> nonzero_as_tuple(const Tensor& x);
Tensor argwhere(const Tensor& x);
std::vector<Tensor> where(const Tensor& condition);
// x's elements where mask (bool, broadcast with x) is true, in row-major order, as a 1-D tensor.
Tensor masked_select(const Tensor& x, const Tensor& mask);
// x with the places where mask is true filled, in row-major order, by source's first elements.
Tensor masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& source);
// x seen as 1-D, at index (int64, any shape, negatives from the end): a tensor of index's shape.
Tensor take(const Tensor& x, const Tensor& index);
// gather along dim with x and indices broadcast in the other dims; without dim, take on the
// flattened x (indices in range, no negatives).
Tensor take_along_dim(const Tensor& x, const Tensor& indices, std::optional<int64_t> dim = std::nullopt);
// Each slice of x along dim (of the flattened x without dim) repeated repeats[i] times (one
// repeats value for all of them as an int or a one-element tensor). repeat_interleave(repeats)
// alone: each i repeated repeats[i] times.
Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& x, int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);
// x with the slices at index (int64, 0-D or 1-D, negatives from the end) along dim set to value.
Tensor index_fill(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value);
Tensor index_fill(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& value);  // value 0-D
// self seen as 1-D: self[index[i]] = source[i] (or += with accumulate); index int64, any shape.
// With duplicate indices the last one wins (adds in index order with accumulate).
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);
// self with src reduced into it along dim at index ("sum", "mean", "amax" or "amin"), as
// torch.scatter_reduce (sum, prod, mean, amax, amin); include_self=false leaves self's values out
// where something lands.
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self = true);

// --- views and copies (also Tensor methods)
Tensor reshape(const Tensor& x, const Shape& shape);
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor transpose(const Tensor& x, int64_t d0, int64_t d1);
Tensor permute(const Tensor& x, const Shape& dims);
Tensor squeeze(const Tensor& x);
Tensor squeeze(const Tensor& x, int64_t dim);
Tensor unsqueeze(const Tensor& x, int64_t dim);
Tensor clone(const Tensor& x);
// Pieces of x along dim, as views: split_size elements each (the last may be smaller), the given
// sizes (split_with_sizes; they must sum to the dim's size), chunks pieces of ceil(size / chunks)
// (chunk; fewer when that covers the dim sooner), or every index (unbind, one dim fewer).
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& x, const std::vector<int64_t>& split_sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& x, int64_t dim = 0);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
// x repeated along each dim (repeats has at least x.dim() entries; leading ones add dims); tile
// pads reps with leading ones instead. A copy; the gradient sums the copies.
Tensor repeat(const Tensor& x, const Shape& repeats);
Tensor tile(const Tensor& x, const Shape& reps);
// x reversed along dims; x shifted by shifts[i] along dims[i] (elements leaving one end enter at
// the other; no dims: over the flattened x). Copies; exact gradients.
Tensor flip(const Tensor& x, const DimList& dims);
Tensor roll(const Tensor& x, const DimList& shifts, const DimList& dims = {});
// x's dims source moved to destination, the others kept in order (a view); swapaxes is transpose.
Tensor movedim(const Tensor& x, const DimList& source, const DimList& destination);
Tensor swapaxes(const Tensor& x, int64_t axis0, int64_t axis1);

// True when a and b have the same shape, dtype and bits (NaNs equal when their bits are).
bool equal(const Tensor& a, const Tensor& b);

}  // namespace ditto
