// Embedding and EmbeddingBag: the embedding op, whose backward sums rows in index order on every
// path, and bags (embedding_bag_bounds, Note [Bag order]), whose rows are combined and whose
// gradients are summed in index order too, with or without the mode.
#include "ditto/nn/embedding.h"

#include <string>
#include <vector>

#include "core/tensor_impl.h"
#include "ditto/autograd.h"
#include "ditto/factory.h"
#include "ditto/nn/init.h"
#include "ditto/ops.h"
#include "ops/embedding_ops.h"

namespace ditto::nn {

namespace {
std::optional<int64_t> wrap_padding(std::optional<int64_t> padding_idx, int64_t num, const char* op) {
  if (!padding_idx) return padding_idx;
  const int64_t p = *padding_idx;
  DITTO_CHECK(p >= -num && p < num, op, "padding_idx must be within num_embeddings (", num, "), got ", p);
  return p < 0 ? p + num : p;
}

// PyTorch's init for Embedding and EmbeddingBag: normal weights, the padding row zero.
void reset_embedding(Tensor& weight, std::optional<int64_t> padding_idx) {
  init::normal_(weight);
  if (padding_idx) {
    NoGradGuard no_grad;
    weight.select(0, *padding_idx).fill_(0);
  }
}

Tensor embedding_impl(const Tensor& indices, const Tensor& weight, std::optional<int64_t> padding_idx, const char* op) {
  DITTO_CHECK(indices.defined() && weight.defined(), op, "expected defined indices and weight");
  DITTO_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32, op,
              "expected indices of dtype int64 or int32, got ", dtype_name(indices.dtype()));
  DITTO_CHECK(weight.dim() == 2, op, "weight must be 2-D (num_embeddings, embedding_dim), got ", weight.dim(), "-D");
  const int64_t num = weight.size(0);
  const std::optional<int64_t> pad = wrap_padding(padding_idx, num, op);
  return impl::embedding(weight, indices, pad.value_or(-1), op);  // the indices' range, named op
}
}  // namespace

Embedding::Embedding(int64_t num, int64_t dim, std::optional<int64_t> padding_idx, ScalarType dtype)
    : num_(num), dim_(dim) {
  DITTO_CHECK(num >= 0 && dim >= 0, "Embedding", "num_embeddings and embedding_dim must be non-negative, got ", num,
              " and ", dim);
  DITTO_CHECK(is_floating(dtype), "Embedding", "weight must be floating point, got ", dtype_name(dtype));
  padding_idx_ = wrap_padding(padding_idx, num, "Embedding");
  register_parameter("weight", empty({num, dim}, dtype));
  reset_parameters();
}

void Embedding::reset_parameters() { reset_embedding(weight(), padding_idx_); }

std::shared_ptr<Embedding> Embedding::from_pretrained(const Tensor& embeddings, bool freeze,
                                                      std::optional<int64_t> padding_idx) {
  DITTO_CHECK(embeddings.defined() && embeddings.dim() == 2, "Embedding.from_pretrained",
              "Embeddings parameter is expected to be 2-dimensional");
  DITTO_CHECK(is_floating(embeddings.dtype()), "Embedding.from_pretrained", "weight must be floating point, got ",
              dtype_name(embeddings.dtype()));
  return std::shared_ptr<Embedding>(new Embedding(embeddings, padding_idx, freeze));
}

// from_pretrained's: the weight is the given tensor (shared, as PyTorch's Parameter(_weight)), no
// initialisation drawn from the generator.
Embedding::Embedding(const Tensor& weight, std::optional<int64_t> padding_idx, bool freeze)
    : num_(weight.size(0)), dim_(weight.size(1)) {
  padding_idx_ = wrap_padding(padding_idx, num_, "Embedding");
  register_parameter("weight", weight.detach(), !freeze);
}

Tensor Embedding::forward(const Tensor& indices) {
  return embedding_impl(indices, weight(), padding_idx_, "Embedding");
}

namespace {
// PyTorch's embedding_bag: its arguments checked as PyTorch checks them, then the bags' bounds for
// embedding_bag_bounds (ops/embedding_ops.cpp, Note [Bag order]; it checks the indices' range,
// with errors named op), which combines each bag's kept
// positions (inside a bag, not padding_idx) in index order. Empty bags give zeros.
Tensor embedding_bag_impl(const Tensor& input, const Tensor& weight, const Tensor& offsets, std::string_view mode,
                          const Tensor& per_sample_weights, bool include_last_offset,
                          std::optional<int64_t> padding_idx, const char* op) {
  DITTO_CHECK(input.defined() && weight.defined(), op, "expected defined input and weight");
  DITTO_CHECK(input.dtype() == kInt64 || input.dtype() == kInt32, op, "expected indices of dtype int64 or int32, got ",
              dtype_name(input.dtype()));
  DITTO_CHECK(weight.dim() == 2 && is_floating(weight.dtype()), op,
              "weight must be a floating 2-D tensor (num_embeddings, embedding_dim), got ", weight.dim(), "-D ",
              dtype_name(weight.dtype()));
  DITTO_CHECK(mode == "sum" || mode == "mean" || mode == "max", op, "mode has to be one of sum, mean or max, got '",
              mode, "'");
  const bool weighted = per_sample_weights.defined();
  DITTO_CHECK(!weighted || mode == "sum", op, "per_sample_weights is only supported for mode='sum' (got mode='", mode,
              "')");
  DITTO_CHECK(!weighted || per_sample_weights.sizes() == input.sizes(), op, "embedding_bag: If per_sample_weights (",
              detail::shape_str(per_sample_weights.sizes()),
              ") is not None, then it must have the same shape as the input (", detail::shape_str(input.sizes()), ")");
  DITTO_CHECK(!weighted || per_sample_weights.dtype() == weight.dtype(), op,
              "expected per_sample_weights of the weight's dtype ", dtype_name(weight.dtype()), ", got ",
              dtype_name(per_sample_weights.dtype()));
  const int64_t num = weight.size(0);
  const std::optional<int64_t> pad = wrap_padding(padding_idx, num, op);
  const Tensor idx = input.reshape({input.numel()}).to(kInt64).contiguous();
  const int64_t L = idx.numel();
  std::vector<int64_t> bounds;
  if (input.dim() == 2) {
    DITTO_CHECK(!offsets.defined(), op,
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
                "sequences.");
    for (int64_t b = 0; b <= input.size(0); ++b) bounds.push_back(b * input.size(1));
  } else {
    DITTO_CHECK(input.dim() == 1, op, "input has to be 1D or 2D Tensor, but got Tensor of dimension ", input.dim());
    DITTO_CHECK(offsets.defined() && offsets.dim() == 1, op, "offsets has to be a 1D Tensor");
    DITTO_CHECK(offsets.dtype() == kInt64 || offsets.dtype() == kInt32, op,
                "expected offsets of dtype int64 or int32, got ", dtype_name(offsets.dtype()));
    const Tensor offs = offsets.to(kInt64).contiguous();
    const int64_t n = offs.numel();
    const int64_t* o = offs.data_ptr<int64_t>();
    DITTO_CHECK(!include_last_offset || n >= 1, op, "include_last_offset needs at least one offset");
    if (n > 0) {
      DITTO_CHECK(o[0] == 0, op,
                  "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
                  "However, got ",
                  o[0]);
      DITTO_CHECK(o[n - 1] <= L, op, "offsets[-1] can not be greater than input's length ", L,
                  " but got offsets[-1] of ", o[n - 1]);
    }
    // all of them checked before any is used: with offsets[0] == 0 and offsets[-1] <= L, a
    // non-decreasing sequence keeps every bag inside the input
    for (int64_t b = 1; b < n; ++b)
      DITTO_CHECK(o[b - 1] <= o[b], op, "offsets must be non-decreasing, got offsets[", b, "] = ", o[b], " after ",
                  o[b - 1]);
    bounds.assign(o, o + n);
    if (n == 0)
      bounds.push_back(0);
    else if (!include_last_offset)
      bounds.push_back(L);
  }
  return impl::embedding_bag_bounds(weight, idx, tensor(bounds, kInt64), mode, per_sample_weights, pad.value_or(-1), op)
      .first;
}
}  // namespace

EmbeddingBag::EmbeddingBag(int64_t num, int64_t dim, std::string mode, bool include_last_offset,
                           std::optional<int64_t> padding_idx, ScalarType dtype)
    : num_(num), dim_(dim), mode_(std::move(mode)), include_last_offset_(include_last_offset) {
  DITTO_CHECK(num >= 0 && dim >= 0, "EmbeddingBag", "num_embeddings and embedding_dim must be non-negative, got ", num,
              " and ", dim);
  DITTO_CHECK(is_floating(dtype), "EmbeddingBag", "weight must be floating point, got ", dtype_name(dtype));
  DITTO_CHECK(mode_ == "sum" || mode_ == "mean" || mode_ == "max", "EmbeddingBag",
              "mode has to be one of sum, mean or max, got '", mode_, "'");
  padding_idx_ = wrap_padding(padding_idx, num, "EmbeddingBag");
  register_parameter("weight", empty({num, dim}, dtype));
  reset_parameters();
}

void EmbeddingBag::reset_parameters() { reset_embedding(weight(), padding_idx_); }

Tensor EmbeddingBag::operator()(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  return embedding_bag_impl(input, weight(), offsets, mode_, per_sample_weights, include_last_offset_, padding_idx_,
                            "EmbeddingBag");
}

namespace functional {
Tensor embedding(const Tensor& indices, const Tensor& weight, std::optional<int64_t> padding_idx) {
  return embedding_impl(indices, weight, padding_idx, "embedding");
}
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets, std::string_view mode,
                     const Tensor& per_sample_weights, bool include_last_offset, std::optional<int64_t> padding_idx) {
  return embedding_bag_impl(input, weight, offsets, mode, per_sample_weights, include_last_offset, padding_idx,
                            "embedding_bag");
}
}  // namespace functional

}  // namespace ditto::nn
