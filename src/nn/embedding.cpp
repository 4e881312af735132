// Embedding: the embedding op, whose backward sums rows in index order on every path.
#include "ditto/nn/embedding.h"

#include "ditto/autograd.h"
#include "ditto/factory.h"
#include "ditto/nn/init.h"
#include "ditto/ops.h"

namespace ditto::nn {

namespace {
std::optional<int64_t> wrap_padding(std::optional<int64_t> padding_idx, int64_t num, const char* op) {
  if (!padding_idx) return padding_idx;
  const int64_t p = *padding_idx;
  DITTO_CHECK(p >= -num && p < num, op, "padding_idx must be within num_embeddings (", num, "), got ", p);
  return p < 0 ? p + num : p;
}

Tensor embedding_impl(const Tensor& indices, const Tensor& weight, std::optional<int64_t> padding_idx, const char* op) {
  DITTO_CHECK(indices.defined() && weight.defined(), op, "expected defined indices and weight");
  DITTO_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32, op,
              "expected indices of dtype int64 or int32, got ", dtype_name(indices.dtype()));
  DITTO_CHECK(weight.dim() == 2, op, "weight must be 2-D (num_embeddings, embedding_dim), got ", weight.dim(), "-D");
  const int64_t num = weight.size(0);
  const std::optional<int64_t> pad = wrap_padding(padding_idx, num, op);
  // Checked here too, so the error names the module.
  const Tensor flat = indices.reshape({indices.numel()}).to(kInt64).contiguous();
  const int64_t* p = flat.data_ptr<int64_t>();
  for (int64_t i = 0, n = flat.numel(); i < n; ++i)
    if (p[i] < 0 || p[i] >= num) detail::fail_index(op, "index ", p[i], " is out of range for ", num, " embeddings");
  return ditto::embedding(weight, indices, pad.value_or(-1));
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

void Embedding::reset_parameters() {
  init::normal_(weight());
  if (padding_idx_) {
    NoGradGuard no_grad;
    weight().select(0, *padding_idx_).fill_(0);
  }
}

Tensor Embedding::forward(const Tensor& indices) {
  return embedding_impl(indices, weight(), padding_idx_, "Embedding");
}

namespace functional {
Tensor embedding(const Tensor& indices, const Tensor& weight, std::optional<int64_t> padding_idx) {
  return embedding_impl(indices, weight, padding_idx, "embedding");
}
}  // namespace functional

}  // namespace ditto::nn
