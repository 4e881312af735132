#pragma once
// What nn::functional's embedding and embedding_bag (nn/embedding.cpp) call in
// ops/embedding_ops.cpp: the public ops with their errors named `op`. nn::functional checks
// PyTorch's arguments first and leaves the indices' range, checked once, to these.
#include <string_view>
#include <utility>

#include "ditto/tensor.h"

namespace ditto::nn::impl {

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, const char* op);
std::pair<Tensor, Tensor> embedding_bag_bounds(const Tensor& weight, const Tensor& indices, const Tensor& bounds,
                                               std::string_view mode, const Tensor& per_sample_weights,
                                               int64_t padding_idx, const char* op);

}  // namespace ditto::nn::impl
