// Embedding and EmbeddingBag: the embedding op, whose backward sums rows in index order on every
// path, and bags made of it with index_add (sum, mean) or a gather of each bag's first maximum
// (max), so the weight's gradient is summed in index order too, with or without the mode.
#include "ditto/nn/embedding.h"

#include <string>
#include <vector>

#include "core/tensor_impl.h"
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

void Embedding::reset_parameters() { reset_embedding(weight(), padding_idx_); }

Tensor Embedding::forward(const Tensor& indices) {
  return embedding_impl(indices, weight(), padding_idx_, "Embedding");
}

namespace {
// PyTorch's embedding_bag. Each bag's rows are taken by embedding (its kept positions: inside a
// bag, not padding_idx) and combined in index order: sum and mean by index_add into zeros (mean
// then scaled by 1 / count, PyTorch's float arithmetic, or divided for float64), max per column by
// the first row that reaches the maximum (PyTorch's strict > keeps the first), gathered from the
// weight so that its gradient goes there alone. Empty bags give zeros.
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
  const int64_t num = weight.size(0), D = weight.size(1);
  const std::optional<int64_t> pad = wrap_padding(padding_idx, num, op);
  const Tensor idx = input.reshape({input.numel()}).to(kInt64).contiguous();
  const int64_t L = idx.numel();
  const int64_t* ip = idx.data_ptr<int64_t>();
  std::vector<int64_t> bag_of(static_cast<std::size_t>(L), -1);  // -1: in no bag
  int64_t B = 0;
  if (input.dim() == 2) {
    DITTO_CHECK(!offsets.defined(), op,
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
                "sequences.");
    B = input.size(0);
    for (int64_t p = 0; p < L; ++p) bag_of[static_cast<std::size_t>(p)] = p / input.size(1);
  } else {
    DITTO_CHECK(input.dim() == 1, op, "input has to be 1D or 2D Tensor, but got Tensor of dimension ", input.dim());
    DITTO_CHECK(offsets.defined() && offsets.dim() == 1, op, "offsets has to be a 1D Tensor");
    DITTO_CHECK(offsets.dtype() == kInt64 || offsets.dtype() == kInt32, op,
                "expected offsets of dtype int64 or int32, got ", dtype_name(offsets.dtype()));
    const Tensor offs = offsets.to(kInt64).contiguous();
    const int64_t n = offs.numel();
    const int64_t* o = offs.data_ptr<int64_t>();
    DITTO_CHECK(!include_last_offset || n >= 1, op, "include_last_offset needs at least one offset");
    B = include_last_offset ? n - 1 : n;
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
    for (int64_t b = 0; b < B; ++b) {
      const int64_t begin = o[b], end = b + 1 < n ? o[b + 1] : L;
      for (int64_t p = begin; p < end; ++p) bag_of[static_cast<std::size_t>(p)] = b;
    }
  }
  std::vector<int64_t> kept, kept_bag, count(static_cast<std::size_t>(B), 0);
  for (int64_t p = 0; p < L; ++p) {
    if (ip[p] < 0 || ip[p] >= num) detail::fail_index(op, "index ", ip[p], " is out of range for ", num, " embeddings");
    const int64_t b = bag_of[static_cast<std::size_t>(p)];
    if (b < 0 || (pad && ip[p] == *pad)) continue;
    kept.push_back(p);
    kept_bag.push_back(b);
    ++count[static_cast<std::size_t>(b)];
  }
  const int64_t K = static_cast<int64_t>(kept.size());
  Tensor out = zeros({B, D}, weight.dtype());
  const Tensor pos = tensor(kept, kInt64), bag = tensor(kept_bag, kInt64);
  const Tensor words = idx.index_select(0, pos);
  if (mode == "max") {
    if (K == 0)  // zeros, still in weight's graph (a sum over no rows), as PyTorch's output is
      return ditto::embedding(weight, words, -1).sum({0}, true).expand({B, D}).contiguous();
    Tensor max_idx;
    {
      NoGradGuard no_grad;  // which word gives each (bag, column) its maximum: the first to reach it
      const Tensor vals = weight.detach().index_select(0, words);
      const Tensor bag2 = bag.unsqueeze(1).expand({K, D});
      const Tensor maxv = scatter_reduce(out, 0, bag2, vals, "amax", false);
      const Tensor at = where(vals.eq(maxv.index_select(0, bag)), arange(K).unsqueeze(1).expand({K, D}), K);
      const Tensor first = scatter_reduce(full({B, D}, K, kInt64), 0, bag2, at, "amin", true);
      max_idx =
          where(first.lt(K), words.index_select(0, first.clamp(std::nullopt, K - 1).reshape({-1})).view({B, D}), 0);
    }
    const Tensor nonempty = tensor(count, kInt64).gt(0).unsqueeze(1);
    return where(nonempty, weight.gather(0, max_idx), 0.0);
  }
  Tensor rows = ditto::embedding(weight, words, -1);
  if (weighted) rows = rows * per_sample_weights.reshape({L}).index_select(0, pos).unsqueeze(1);
  out = index_add(out, 0, bag, rows);
  if (mode == "sum") return out;
  std::vector<double> scale(static_cast<std::size_t>(B));
  for (int64_t b = 0; b < B; ++b) {
    const int64_t c = std::max<int64_t>(count[static_cast<std::size_t>(b)], 1);
    scale[static_cast<std::size_t>(b)] = c;
  }
  const Tensor cnt = tensor(scale).to(weight.dtype()).unsqueeze(1);
  if (weight.dtype() == kFloat32) return out * (1.0 / cnt);  // 1 / count in float, then one multiply
  return out / cnt;
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
