#pragma once
// MultiheadAttention, TransformerEncoderLayer and TransformerDecoderLayer (torch.nn), with
// PyTorch's parameter names, order of initial draws and math. Without attention weights the heads
// run the fused scaled_dot_product_attention (Note [Attention order]), so a sequence's rows do not
// depend on the batch it is in.
#include <memory>
#include <string>
#include <utility>

#include "ditto/nn/activation.h"
#include "ditto/nn/layers.h"
#include "ditto/nn/normalization.h"

namespace ditto::nn {

namespace functional {
// PyTorch's multi_head_attention_forward on (L, N, E) query and (S, N, E) key and value (the
// packed in-projection, no bias_kv or zero_attn). key_padding_mask (N, S): true (or nonzero)
// keys are ignored; attn_mask (L, S) or (N * heads, L, S): bool true = may not attend, or float
// added; is_causal without attn_mask masks the future. Returns the (L, N, E) output and, with
// need_weights, the (N, L, S) weights averaged over heads (or (N, heads, L, S)).
std::pair<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value, int64_t num_heads, const Tensor& in_proj_weight,
    const Tensor& in_proj_bias, const Tensor& out_proj_weight, const Tensor& out_proj_bias,
    const Tensor& key_padding_mask = Tensor(), bool need_weights = true, const Tensor& attn_mask = Tensor(),
    bool average_attn_weights = true, double dropout_p = 0.0, bool training = true, bool is_causal = false);
}  // namespace functional

// Parameters in_proj_weight (3E, E), in_proj_bias (3E) and out_proj (Linear E -> E), initialised
// as PyTorch's: out_proj's Linear draws first, then xavier_uniform_(in_proj_weight); both biases 0.
class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout = 0.0, bool bias = true,
                     bool batch_first = false, ScalarType dtype = kFloat32);
  // (N, L, E) with batch_first, else (L, N, E); 2-D inputs are one unbatched sequence.
  std::pair<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& key_padding_mask = Tensor(), bool need_weights = true,
                                    const Tensor& attn_mask = Tensor(), bool average_attn_weights = true,
                                    bool is_causal = false);
  Tensor& in_proj_weight() { return param(0); }
  Tensor& in_proj_bias();  // undefined without bias
  const std::shared_ptr<Linear>& out_proj() const { return out_proj_; }
  int64_t num_heads() const { return heads_; }
  std::string name() const override { return "MultiheadAttention"; }

 private:
  int64_t embed_, heads_;
  double dropout_;
  bool bias_, batch_first_;
  std::shared_ptr<Linear> out_proj_;
};

struct TransformerLayerOptions {
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";  // or "gelu"
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;
};

// self_attn, linear1, dropout, linear2, norm1, norm2, dropout1, dropout2 (PyTorch's names).
class TransformerEncoderLayer : public UnaryModule {
 public:
  TransformerEncoderLayer(int64_t d_model, int64_t nhead, const TransformerLayerOptions& options = {},
                          ScalarType dtype = kFloat32);
  Tensor forward(const Tensor& src) override { return forward(src, Tensor(), Tensor()); }
  Tensor forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask, bool is_causal = false);
  std::string name() const override { return "TransformerEncoderLayer"; }
  std::shared_ptr<MultiheadAttention> self_attn;
  std::shared_ptr<Linear> linear1, linear2;
  std::shared_ptr<LayerNorm> norm1, norm2;

 private:
  TransformerLayerOptions o_;
  std::shared_ptr<Dropout> dropout_, dropout1_, dropout2_;
};

// self_attn, multihead_attn, linear1, dropout, linear2, norm1..3, dropout1..3.
class TransformerDecoderLayer : public Module {
 public:
  TransformerDecoderLayer(int64_t d_model, int64_t nhead, const TransformerLayerOptions& options = {},
                          ScalarType dtype = kFloat32);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = Tensor(),
                 const Tensor& memory_mask = Tensor(), const Tensor& tgt_key_padding_mask = Tensor(),
                 const Tensor& memory_key_padding_mask = Tensor(), bool tgt_is_causal = false);
  std::string name() const override { return "TransformerDecoderLayer"; }
  std::shared_ptr<MultiheadAttention> self_attn, multihead_attn;
  std::shared_ptr<Linear> linear1, linear2;
  std::shared_ptr<LayerNorm> norm1, norm2, norm3;

 private:
  TransformerLayerOptions o_;
  std::shared_ptr<Dropout> dropout_, dropout1_, dropout2_, dropout3_;
};

}  // namespace ditto::nn
