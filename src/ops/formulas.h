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
struct BatchNormSaved {  // ops/norm_ops.cpp: x (N, C, S) contiguous, mean and rstd (C); weight undefined or (C)
  SavedTensor x, mean, rstd, weight;
  Shape input;  // x's shape as given
  bool training, has_weight, has_bias;
};
struct GroupNormSaved {  // ops/norm_ops.cpp: x (N, C, HW) contiguous, mean and rstd (N, groups); weight undefined or
                         // (C)
  SavedTensor x, mean, rstd, weight;
  Shape input;  // x's shape as given
  int64_t groups;
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

// DITTO_FORMULA(name, State) { ... } defines a formula (ops/formulas*.cpp); each is declared here
// from the DITTO_BACKWARD rows that name it, with the state the row gives.
#define DITTO_FORMULA(name, State) Grads name(const State& s, const Grads& g)
#define DITTO_BACKWARD(id, node, fn, State, uses) DITTO_FORMULA(fn, State);
#include "ops/op_table.def"
}  // namespace ditto::autograd::formulas
