#pragma once
// What nn::functional's losses (nn/loss.cpp) call in ops/loss_ops.cpp.
#include "ditto/tensor.h"

namespace ditto::nn::impl {

// cross_entropy's per-target terms for class targets, as nll_loss(log_softmax(input, 1)) composes
// them: -log_softmax(input)[target] (times weights), +0 where target == ignore_index; of target's
// shape. One node whose backward is that composition's gradient, bit for bit, without its dense
// intermediate. The caller checked the arguments: input (N, C, d...) or (C) floating, target
// (N, d...) or () int64 within [0, C) or ignore_index, weights undefined or each target's weight
// (0 where ignored; nn/loss.cpp's target_weights), of target's shape and input's dtype.
Tensor cross_entropy_terms(const Tensor& input, const Tensor& target, const Tensor& weights, int64_t ignore_index);

}  // namespace ditto::nn::impl
