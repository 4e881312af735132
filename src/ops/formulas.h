#pragma once
// Backward formulas of the table's ops, written with public ops (docs/design.md: backward as data
// in terms of public ops), each with the typed state its op saves for it. Each is named in
// op_table.def beside its op; ops::record<id> (ops/common.h) fails to compile when an op saves a
// state its formula does not take. SavedTensors are data only, checked for in-place writes when
// read.
#include <optional>

#include "autograd/saved.h"
#include "cpu/kernel_args.h"

namespace ditto::autograd::formulas {

// --- states shared by several formulas
struct NoSaved {};  // the gradient needs nothing: neg, add, sub, copies, expand
struct InputShape {
  Shape input;
};  // view, squeeze, unsqueeze, adaptive_avg_pool
struct SavedInput {
  SavedTensor x;
};
struct SavedOutput {
  SavedTensor out;
};

// --- states of one formula (or of one family)
struct TransposeSaved {
  int64_t d0, d1;
};  // wrapped dims
struct PermuteSaved {
  Shape dims;
};  // wrapped
struct SelectSaved {
  Shape input;
  int64_t dim, index;
};
struct SliceSaved {
  Shape input;
  int64_t dim, start, end, step;
};
struct PowScalarSaved {
  SavedTensor x;
  Scalar exponent;
};
struct PowTensorSaved {
  SavedTensor a, b, out;
};
struct ClampSaved {
  SavedTensor x;
  std::optional<Scalar> lo, hi;
};
struct AddScaledSaved {
  Scalar alpha;
};
// mul and div: each operand only when the other's gradient needs it (undefined otherwise); div
// always keeps b.
struct BinarySaved {
  SavedTensor a, b;
};
struct WhereSaved {
  SavedTensor cond;
};  // expanded to the output's shape
struct MaskSaved {
  SavedTensor mask;
};  // expanded to the output's shape
// sum, mean (x and out undefined), prod, amax and amin (both saved). dims: sorted, unique.
struct ReduceSaved {
  Shape input, dims;
  bool keepdim;
  SavedTensor x, out;
};
struct VarSaved {  // var and std (take_sqrt)
  Shape input, dims;
  bool keepdim, take_sqrt;
  int64_t correction;
  SavedTensor x, out;
};
struct MaxDimSaved {  // the value-selecting ops: max and min along dim, sort, topk, kthvalue, median
  Shape input;
  int64_t dim;
  bool keepdim;
  SavedTensor indices;
};
struct SoftmaxSaved {
  SavedTensor out;
  int64_t dim;
};                    // softmax and log_softmax
struct MatmulSaved {  // mm and bmm: operands, and which grads are wanted
  SavedTensor a, b;
  bool grad_a, grad_b;
};
struct AddmmSaved {
  SavedTensor a, b;
  Scalar beta, alpha;
  bool grad_self, grad_a, grad_b;
};
struct CatSaved {
  int64_t dim;
  Shape lengths;
};  // each input's size along dim
struct IndexSaved {
  Shape input;
  int64_t dim;
  SavedTensor index;
};  // index_select, gather
struct IndexAddSaved {
  Shape source;
  int64_t dim;
  SavedTensor index;  // 1-D
  Scalar alpha;
};
struct DimIndexSaved {
  int64_t dim;
  SavedTensor index;
};                      // scatter_add_, index_copy_
struct IndexPutSaved {  // index_put_ on self seen as (M, rest...)
  Shape self_rows;
  SavedTensor index;  // linear, into the M rows
  bool accumulate;
};
struct PutSaved {
  SavedTensor index;
  bool accumulate;
};  // linear index into the flattened self
struct ScatterReduceSaved {
  int64_t dim;
  ScatterReduction reduce;
  bool include_self;
  SavedTensor index, self, src, out;  // self, src and out only for prod, amax and amin
};
struct ConvSaved {  // convolution and transposed convolution
  Shape input, weight;
  ConvArgs args;
  bool grad_bias;
  SavedTensor x, w;  // x only when weight needs grad, w only when input does
};
struct MaxPoolSaved {
  Shape input;
  SavedTensor indices;
};
struct AvgPoolSaved {
  Shape input;
  PoolArgs args;
  bool has_divisor;  // divisor_override given (args.divisor)
};
struct PadSaved {
  Shape input;
  PadArgs args;
};
struct UpsampleSaved {
  Shape input;
  UpsampleArgs args;
};
struct GridSampleSaved {
  GridSampleArgs args;
  SavedTensor input, grid;
  bool input_grad;  // the input needs its gradient
};
struct MaxUnpoolSaved {
  Shape input;
  int64_t planes, out_len;
  SavedTensor indices;  // (planes, L_in)
};
struct LerpSaved {
  Scalar weight;
};
struct AddcSaved {
  SavedTensor t1, t2;
  Scalar value;
};  // addcmul, addcdiv
struct GeluSaved {
  SavedTensor x;
  bool tanh_approx;
};
struct LeakyReluSaved {
  SavedTensor x;
  Scalar negative_slope;
};
struct SoftplusSaved {
  SavedTensor x;
  Scalar beta, threshold;
};
struct HardtanhSaved {
  SavedTensor x;
  Scalar min_val, max_val;
};
struct EluSaved {
  SavedTensor x;
  Scalar alpha, scale, input_scale;
};
struct AttentionSaved {                 // ops/attention_ops.cpp
  SavedTensor q, k, v, out, lse, mask;  // q, k, v expanded to the batch dims; mask undefined or expanded
  AttentionArgs args;
};
struct LayerNormSaved {  // ops/norm_ops.cpp: x (M, N) contiguous, mean and rstd (M); weight undefined or (N)
  SavedTensor x, mean, rstd, weight;
  Shape input;  // x's shape as given
  int64_t normalized_dims;
  bool has_weight, has_bias;
};
struct NormSaved {  // linalg_vector_norm
  Shape input, dims;
  bool keepdim;
  Scalar ord;
  SavedTensor x, out;
};
struct EmbeddingSaved {
  SavedTensor indices;
  int64_t num_weights, padding_idx;
};
struct EmbeddingBagSaved {  // ops/embedding_ops.cpp; weight set when per_sample_weights needs a gradient
  SavedTensor indices, bounds, per_sample_weights, max_indices, weight;
  Shape psw_shape;
  int64_t num_weights, mode, padding_idx;
};

struct ScanSaved {  // cumsum (x unset) and cumprod
  SavedTensor x;    // the input, in the output's dtype
  int64_t dim;
};
struct EvenlySaved {  // median() and nanmedian() of every element
  SavedTensor x, out;
};
struct CtcSaved {  // ctc_loss: the kernel's inputs and both of its outputs (ops/loss_ops.cpp)
  SavedTensor log_probs, targets, spans, nll, log_alpha;
  int64_t blank;
  bool zero_infinity;
};
struct CrossEntropySaved {            // ops/loss_ops.cpp
  SavedTensor logp, target, weights;  // weights: each target's weight (0 where ignored), when weighted
  Shape input;
  int64_t ignore_index;
};
struct LogcumsumexpSaved {
  SavedTensor x, out;
  int64_t dim;
};
struct CummaxSaved {  // cummax and cummin
  SavedTensor indices;
  int64_t dim;  // wrapped; 0 for a 0-dim input
};

#define DITTO_FORMULA(name, State) Grads name(const State& s, const Grads& g)
DITTO_FORMULA(cumsum, ScanSaved);  // ops/scan_ops.cpp
DITTO_FORMULA(cumprod, ScanSaved);
DITTO_FORMULA(logcumsumexp, LogcumsumexpSaved);
DITTO_FORMULA(select_values, MaxDimSaved);  // ops/sort_ops.cpp
DITTO_FORMULA(evenly, EvenlySaved);
DITTO_FORMULA(cummax, CummaxSaved);
DITTO_FORMULA(ctc_loss, CtcSaved);                // ops/loss_ops.cpp
DITTO_FORMULA(cross_entropy, CrossEntropySaved);  // ops/loss_ops.cpp
DITTO_FORMULA(embedding_bag, EmbeddingBagSaved);  // ops/embedding_ops.cpp
DITTO_FORMULA(view, InputShape);
DITTO_FORMULA(transpose, TransposeSaved);
DITTO_FORMULA(permute, PermuteSaved);
DITTO_FORMULA(select, SelectSaved);
DITTO_FORMULA(slice, SliceSaved);
DITTO_FORMULA(identity, NoSaved);  // expand (the engine sums back), copies, casts
DITTO_FORMULA(neg, NoSaved);
DITTO_FORMULA(abs, SavedInput);
DITTO_FORMULA(flat, NoSaved);  // a zero gradient: sign, floor, ceil, round, trunc
DITTO_FORMULA(sin, SavedInput);
DITTO_FORMULA(cos, SavedInput);
DITTO_FORMULA(erf, SavedInput);
DITTO_FORMULA(log1p, SavedInput);
DITTO_FORMULA(expm1, SavedOutput);
DITTO_FORMULA(maximum, BinarySaved);
DITTO_FORMULA(minimum, BinarySaved);
DITTO_FORMULA(fmod, BinarySaved);
DITTO_FORMULA(remainder, BinarySaved);
DITTO_FORMULA(exp, SavedOutput);
DITTO_FORMULA(log, SavedInput);
DITTO_FORMULA(sqrt, SavedOutput);
DITTO_FORMULA(rsqrt, SavedOutput);
DITTO_FORMULA(sigmoid, SavedOutput);
DITTO_FORMULA(tanh, SavedOutput);
DITTO_FORMULA(relu, SavedOutput);
DITTO_FORMULA(pow_scalar, PowScalarSaved);
DITTO_FORMULA(pow_tensor, PowTensorSaved);
DITTO_FORMULA(clamp, ClampSaved);
DITTO_FORMULA(add, NoSaved);
DITTO_FORMULA(add_scaled, AddScaledSaved);
DITTO_FORMULA(sub, NoSaved);
DITTO_FORMULA(mul, BinarySaved);
DITTO_FORMULA(div, BinarySaved);
DITTO_FORMULA(where, WhereSaved);
DITTO_FORMULA(masked_fill, MaskSaved);
DITTO_FORMULA(sum, ReduceSaved);
DITTO_FORMULA(mean, ReduceSaved);
DITTO_FORMULA(prod, ReduceSaved);
DITTO_FORMULA(amax, ReduceSaved);  // amax and amin
DITTO_FORMULA(max_dim, MaxDimSaved);
DITTO_FORMULA(var, VarSaved);
DITTO_FORMULA(vector_norm, NormSaved);
DITTO_FORMULA(logsumexp, ReduceSaved);
DITTO_FORMULA(softmax, SoftmaxSaved);
DITTO_FORMULA(log_softmax, SoftmaxSaved);
DITTO_FORMULA(mm, MatmulSaved);
DITTO_FORMULA(bmm, MatmulSaved);
DITTO_FORMULA(addmm, AddmmSaved);
DITTO_FORMULA(cat, CatSaved);
DITTO_FORMULA(index_select, IndexSaved);
DITTO_FORMULA(gather, IndexSaved);
DITTO_FORMULA(index_add, IndexAddSaved);
DITTO_FORMULA(scatter_add, DimIndexSaved);
DITTO_FORMULA(scatter, DimIndexSaved);
// formulas_scatter.cpp: index_copy, index_put, put, scatter_reduce
DITTO_FORMULA(index_copy, DimIndexSaved);
DITTO_FORMULA(index_put, IndexPutSaved);
DITTO_FORMULA(put, PutSaved);
DITTO_FORMULA(scatter_reduce, ScatterReduceSaved);
// formulas_conv.cpp: convolution and pooling
// the convolution formulas pick the 2-D or 3-D ops by the input's rank (4 or 5)
DITTO_FORMULA(conv, ConvSaved);
DITTO_FORMULA(conv_transpose, ConvSaved);
// the pooling formulas pick the 2-D or 3-D backward op by the input's rank (4 or 5)
DITTO_FORMULA(max_pool, MaxPoolSaved);
DITTO_FORMULA(adaptive_max_pool, MaxPoolSaved);
DITTO_FORMULA(fractional_max_pool, MaxPoolSaved);
DITTO_FORMULA(avg_pool, AvgPoolSaved);
DITTO_FORMULA(adaptive_avg_pool, InputShape);
DITTO_FORMULA(max_unpool, MaxUnpoolSaved);
DITTO_FORMULA(grid_sample, GridSampleSaved);
DITTO_FORMULA(constant_pad_nd, PadSaved);  // ops/resample_ops.cpp
DITTO_FORMULA(pad, PadSaved);
DITTO_FORMULA(upsample, UpsampleSaved);
// formulas_nn.cpp: pointwise ops with several operands, GELU, embedding
DITTO_FORMULA(lerp, LerpSaved);
DITTO_FORMULA(addcmul, AddcSaved);
DITTO_FORMULA(addcdiv, AddcSaved);
DITTO_FORMULA(gelu, GeluSaved);
DITTO_FORMULA(attention, AttentionSaved);   // ops/attention_ops.cpp
DITTO_FORMULA(layer_norm, LayerNormSaved);  // ops/norm_ops.cpp
DITTO_FORMULA(silu, SavedInput);
DITTO_FORMULA(hardswish, SavedInput);
DITTO_FORMULA(mish, SavedInput);
DITTO_FORMULA(leaky_relu, LeakyReluSaved);
DITTO_FORMULA(softplus, SoftplusSaved);
DITTO_FORMULA(hardtanh, HardtanhSaved);
DITTO_FORMULA(elu, EluSaved);
DITTO_FORMULA(embedding, EmbeddingSaved);
}  // namespace ditto::autograd::formulas
