#pragma once
// Embedding (torch.nn.Embedding): a lookup table of num_embeddings rows of embedding_dim.
#include <optional>

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
  void reset_parameters();
  Tensor& weight() { return param(0); }
  int64_t num_embeddings() const { return num_; }
  int64_t embedding_dim() const { return dim_; }
  std::optional<int64_t> padding_idx() const { return padding_idx_; }
  std::string name() const override { return "Embedding"; }

 private:
  int64_t num_, dim_;
  std::optional<int64_t> padding_idx_;
};

}  // namespace ditto::nn
