#pragma once
// Embedding (torch.nn.Embedding): a lookup table of num_embeddings rows of embedding_dim.
#include <memory>
#include <optional>
#include <string>

#include "ditto/nn/functional.h"
#include "ditto/nn/module.h"

namespace ditto::nn {

// weight ~ N(0, 1) drawn as PyTorch's init.normal_, then the padding row (if any) is zeroed.
// The backward is index_add in index order (deterministic); the padding row gets no gradient.
class Embedding : public UnaryModule {
 public:
  // padding_idx may be negative (counted from the end), as in PyTorch.
  Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx = std::nullopt,
            ScalarType dtype = kFloat32);
  Tensor forward(const Tensor& indices) override;
  // An Embedding whose weight is embeddings (2-D; shared, not copied, and nothing drawn from the
  // generator), frozen (no gradient) unless freeze is false, as torch.nn.Embedding.from_pretrained.
  static std::shared_ptr<Embedding> from_pretrained(const Tensor& embeddings, bool freeze = true,
                                                    std::optional<int64_t> padding_idx = std::nullopt);
  void reset_parameters();
  Tensor& weight() { return param(0); }
  int64_t num_embeddings() const { return num_; }
  int64_t embedding_dim() const { return dim_; }
  std::optional<int64_t> padding_idx() const { return padding_idx_; }
  std::string name() const override { return "Embedding"; }

 private:
  Embedding(const Tensor& weight, std::optional<int64_t> padding_idx, bool freeze);
  int64_t num_, dim_;
  std::optional<int64_t> padding_idx_;
};

// PyTorch's EmbeddingBag: forward(input, offsets, per_sample_weights) sums, averages or takes
// the maximum of each bag's rows (functional::embedding_bag). padding_idx's row starts at zero
// and its entries are left out of their bags.
class EmbeddingBag : public Module {
 public:
  EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim, std::string mode = "mean",
               bool include_last_offset = false, std::optional<int64_t> padding_idx = std::nullopt,
               ScalarType dtype = kFloat32);
  Tensor operator()(const Tensor& input, const Tensor& offsets = Tensor(), const Tensor& per_sample_weights = Tensor());
  void reset_parameters();
  Tensor& weight() { return param(0); }
  const std::string& mode() const { return mode_; }
  std::string name() const override { return "EmbeddingBag"; }

 private:
  int64_t num_, dim_;
  std::string mode_;
  bool include_last_offset_;
  std::optional<int64_t> padding_idx_;
};

}  // namespace ditto::nn
