#pragma once
// torch.nn.utils: gradient clipping.
#include <vector>

#include "ditto/tensor.h"

namespace ditto::nn::utils {

// Scales the gradients of `parameters` (those that have one) so that their total norm_type-norm
// is at most max_norm, PyTorch 2.x's formula: total = vector_norm(stack(vector_norm(g) for each
// g)), g *= min(max_norm / (total + 1e-6), 1). Returns the total norm (before clipping). With
// error_if_nonfinite a NaN or infinite total raises instead. PyTorch's foreach and single-tensor
// forms give the same bits, and so does this one.
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
// Clamps every gradient into [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);

}  // namespace ditto::nn::utils
