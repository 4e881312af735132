// MultiheadAttention and the Transformer layers, as PyTorch's (torch/nn/modules/activation.py,
// transformer.py, functional.py's multi_head_attention_forward).
#include "ditto/nn/transformer.h"

#include <cmath>

#include "core/tensor_impl.h"
#include "ditto/autograd.h"
#include "ditto/factory.h"
#include "ditto/nn/init.h"
#include "ditto/ops.h"

namespace ditto::nn {

namespace functional {

std::pair<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                       int64_t num_heads, const Tensor& in_proj_weight,
                                                       const Tensor& in_proj_bias, const Tensor& out_proj_weight,
                                                       const Tensor& out_proj_bias, const Tensor& key_padding_mask,
                                                       bool need_weights, const Tensor& attn_mask_in,
                                                       bool average_attn_weights, double dropout_p, bool training,
                                                       bool is_causal) {
  const char* op = "multi_head_attention_forward";
  DITTO_CHECK(query.defined() && key.defined() && value.defined(), op, "expected defined query, key and value");
  DITTO_CHECK(query.dim() == 3 && key.dim() == 3 && value.dim() == 3, op,
              "expected 3-D query, key and value (L, N, E), got ", query.dim(), "-D, ", key.dim(), "-D and ",
              value.dim(), "-D");
  const int64_t L = query.size(0), N = query.size(1), E = query.size(2), S = key.size(0);
  DITTO_CHECK(num_heads > 0 && E % num_heads == 0, op, "embed_dim ", E, " not divisible by num_heads ", num_heads);
  DITTO_CHECK(key.size(1) == N && value.size(1) == N && value.size(0) == S && key.size(2) == E && value.size(2) == E,
              op, "key and value must be (S, N, E) with the query's N and E");
  const int64_t hd = E / num_heads;
  Tensor q, k, v;
  if (query.is_same(key) && key.is_same(value)) {  // the packed in-projection: one product
    const auto qkv = linear(query, in_proj_weight, in_proj_bias).chunk(3, -1);
    q = qkv[0], k = qkv[1], v = qkv[2];
  } else {
    const auto w = in_proj_weight.chunk(3);
    const std::vector<Tensor> b = in_proj_bias.defined() ? in_proj_bias.chunk(3) : std::vector<Tensor>(3);
    q = linear(query, w[0], b[0]), k = linear(key, w[1], b[1]), v = linear(value, w[2], b[2]);
  }
  Tensor attn_mask = attn_mask_in;
  if (is_causal && !attn_mask.defined()) attn_mask = triu(ones({L, S}, kBool), 1);
  if (attn_mask.defined()) {
    if (attn_mask.dim() == 2) {
      DITTO_CHECK(attn_mask.size(0) == L && attn_mask.size(1) == S, op, "The shape of the 2D attn_mask is ",
                  detail::shape_str(attn_mask.sizes()), ", but should be (", L, ", ", S, ").");
      attn_mask = attn_mask.unsqueeze(0);
    } else {
      DITTO_CHECK(attn_mask.dim() == 3 && attn_mask.size(0) == N * num_heads && attn_mask.size(1) == L &&
                      attn_mask.size(2) == S,
                  op, "The shape of the 3D attn_mask is ", detail::shape_str(attn_mask.sizes()), ", but should be (",
                  N * num_heads, ", ", L, ", ", S, ").");
    }
  }
  q = q.contiguous().view({L, N * num_heads, hd}).transpose(0, 1);
  k = k.contiguous().view({S, N * num_heads, hd}).transpose(0, 1);
  v = v.contiguous().view({S, N * num_heads, hd}).transpose(0, 1);
  if (key_padding_mask.defined()) {
    DITTO_CHECK(key_padding_mask.dim() == 2 && key_padding_mask.size(0) == N && key_padding_mask.size(1) == S, op,
                "expecting key_padding_mask shape of (", N, ", ", S, "), but got ",
                detail::shape_str(key_padding_mask.sizes()));
    Tensor kpm = key_padding_mask.view({N, 1, 1, S}).expand({N, num_heads, 1, S}).reshape({N * num_heads, 1, S});
    if (kpm.dtype() != kBool) kpm = kpm.ne(Scalar(0));
    if (!attn_mask.defined())
      attn_mask = kpm;
    else if (attn_mask.dtype() == kBool)
      attn_mask = attn_mask + kpm;  // logical or
    else
      attn_mask = attn_mask.masked_fill(kpm, -INFINITY);
  }
  if (attn_mask.defined() && attn_mask.dtype() == kBool)  // true: may not attend
    attn_mask = zeros(attn_mask.sizes(), q.dtype()).masked_fill(attn_mask, -INFINITY);
  const double p = training ? dropout_p : 0.0;
  if (need_weights) {  // PyTorch 1.13's composition, which returns the weights
    const Tensor q_scaled = q / std::sqrt(static_cast<double>(hd));
    Tensor w =
        attn_mask.defined() ? baddbmm(attn_mask, q_scaled, k.transpose(-2, -1)) : bmm(q_scaled, k.transpose(-2, -1));
    w = softmax(w, -1);
    if (p > 0) w = dropout(w, p);
    Tensor out = bmm(w, v).transpose(0, 1).contiguous().view({L * N, E});
    out = linear(out, out_proj_weight, out_proj_bias).view({L, N, E});
    w = w.view({N, num_heads, L, S});
    if (average_attn_weights) w = w.sum({1}) / static_cast<double>(num_heads);
    return {out, w};
  }
  if (attn_mask.defined() && attn_mask.size(0) != 1) attn_mask = attn_mask.view({N, num_heads, -1, S});
  Tensor out = scaled_dot_product_attention(q.view({N, num_heads, L, hd}), k.view({N, num_heads, S, hd}),
                                            v.view({N, num_heads, S, hd}), attn_mask, p);
  out = out.permute({2, 0, 1, 3}).contiguous().view({N * L, E});
  return {linear(out, out_proj_weight, out_proj_bias).view({L, N, E}), Tensor()};
}

}  // namespace functional

MultiheadAttention::MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout, bool bias,
                                       bool batch_first, ScalarType dtype)
    : embed_(embed_dim), heads_(num_heads), dropout_(dropout), bias_(bias), batch_first_(batch_first) {
  DITTO_CHECK(embed_dim > 0 && num_heads > 0 && embed_dim % num_heads == 0, "MultiheadAttention",
              "embed_dim must be divisible by num_heads, got ", embed_dim, " and ", num_heads);
  DITTO_CHECK(dropout >= 0 && dropout <= 1, "MultiheadAttention", "dropout probability has to be between 0 and 1");
  register_parameter("in_proj_weight", empty({3 * embed_dim, embed_dim}, dtype));
  if (bias) register_parameter("in_proj_bias", empty({3 * embed_dim}, dtype));
  out_proj_ = register_module("out_proj", std::make_shared<Linear>(embed_dim, embed_dim, bias, dtype));
  NoGradGuard no_grad;
  init::xavier_uniform_(in_proj_weight());
  if (bias) {
    init::zeros_(in_proj_bias());
    init::zeros_(out_proj_->bias());
  }
}

Tensor& MultiheadAttention::in_proj_bias() { return bias_ ? param(1) : absent(); }

std::pair<Tensor, Tensor> MultiheadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                      const Tensor& key_padding_mask, bool need_weights,
                                                      const Tensor& attn_mask, bool average_attn_weights,
                                                      bool is_causal) {
  DITTO_CHECK(query.defined() && key.defined() && value.defined(), "MultiheadAttention",
              "expected defined query, key and value");
  const bool unbatched = query.dim() == 2;
  Tensor q = query, k = key, v = value, kpm = key_padding_mask;
  if (unbatched) {
    q = query.unsqueeze(1), k = key.unsqueeze(1), v = value.unsqueeze(1);
    if (kpm.defined()) kpm = kpm.unsqueeze(0);
  } else if (batch_first_) {  // keep q is k is v, so the packed projection is used
    const bool same_kv = key.is_same(value), same = query.is_same(key) && same_kv;
    q = query.transpose(1, 0);
    k = same ? q : key.transpose(1, 0);
    v = same_kv ? k : value.transpose(1, 0);
  }
  auto [out, w] = functional::multi_head_attention_forward(
      q, k, v, heads_, in_proj_weight(), in_proj_bias(), out_proj_->weight(), out_proj_->bias(), kpm, need_weights,
      attn_mask, average_attn_weights, dropout_, is_training(), is_causal);
  if (unbatched) return {out.squeeze(1), w.defined() ? w.squeeze(0) : w};
  if (batch_first_) out = out.transpose(1, 0);
  return {out, w};
}

namespace {
Tensor activate(const Tensor& x, const std::string& activation) {
  return activation == "gelu" ? functional::gelu(x) : functional::relu(x);
}
// linear2(dropout(activation(linear1(x)))), then the block's output dropout.
Tensor feed_forward(Linear& linear1, Dropout& dropout, Linear& linear2, Dropout& out, const std::string& activation,
                    const Tensor& x) {
  return out(linear2(dropout(activate(linear1(x), activation))));
}
void check_activation(const std::string& a, const char* op) {
  DITTO_CHECK(a == "relu" || a == "gelu", op, "activation should be relu/gelu, not ", a);
}
}  // namespace

TransformerEncoderLayer::TransformerEncoderLayer(int64_t d_model, int64_t nhead, const TransformerLayerOptions& o,
                                                 ScalarType dtype)
    : o_(o) {
  check_activation(o.activation, "TransformerEncoderLayer");
  self_attn = register_module(
      "self_attn", std::make_shared<MultiheadAttention>(d_model, nhead, o.dropout, true, o.batch_first, dtype));
  linear1 = register_module("linear1", std::make_shared<Linear>(d_model, o.dim_feedforward, true, dtype));
  dropout_ = register_module("dropout", std::make_shared<Dropout>(o.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(o.dim_feedforward, d_model, true, dtype));
  norm1 = register_module("norm1", std::make_shared<LayerNorm>(Shape{d_model}, o.layer_norm_eps, true, dtype));
  norm2 = register_module("norm2", std::make_shared<LayerNorm>(Shape{d_model}, o.layer_norm_eps, true, dtype));
  dropout1_ = register_module("dropout1", std::make_shared<Dropout>(o.dropout));
  dropout2_ = register_module("dropout2", std::make_shared<Dropout>(o.dropout));
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask,
                                        bool is_causal) {
  auto sa = [&](const Tensor& x) {
    return (*dropout1_)(self_attn->forward(x, x, x, src_key_padding_mask, false, src_mask, true, is_causal).first);
  };
  auto ff = [&](const Tensor& x) { return feed_forward(*linear1, *dropout_, *linear2, *dropout2_, o_.activation, x); };
  Tensor x = src;
  if (o_.norm_first) {
    x = x + sa((*norm1)(x));
    return x + ff((*norm2)(x));
  }
  x = (*norm1)(x + sa(x));
  return (*norm2)(x + ff(x));
}

TransformerDecoderLayer::TransformerDecoderLayer(int64_t d_model, int64_t nhead, const TransformerLayerOptions& o,
                                                 ScalarType dtype)
    : o_(o) {
  check_activation(o.activation, "TransformerDecoderLayer");
  self_attn = register_module(
      "self_attn", std::make_shared<MultiheadAttention>(d_model, nhead, o.dropout, true, o.batch_first, dtype));
  multihead_attn = register_module(
      "multihead_attn", std::make_shared<MultiheadAttention>(d_model, nhead, o.dropout, true, o.batch_first, dtype));
  linear1 = register_module("linear1", std::make_shared<Linear>(d_model, o.dim_feedforward, true, dtype));
  dropout_ = register_module("dropout", std::make_shared<Dropout>(o.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(o.dim_feedforward, d_model, true, dtype));
  norm1 = register_module("norm1", std::make_shared<LayerNorm>(Shape{d_model}, o.layer_norm_eps, true, dtype));
  norm2 = register_module("norm2", std::make_shared<LayerNorm>(Shape{d_model}, o.layer_norm_eps, true, dtype));
  norm3 = register_module("norm3", std::make_shared<LayerNorm>(Shape{d_model}, o.layer_norm_eps, true, dtype));
  dropout1_ = register_module("dropout1", std::make_shared<Dropout>(o.dropout));
  dropout2_ = register_module("dropout2", std::make_shared<Dropout>(o.dropout));
  dropout3_ = register_module("dropout3", std::make_shared<Dropout>(o.dropout));
}

Tensor TransformerDecoderLayer::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                        const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                        const Tensor& memory_key_padding_mask, bool tgt_is_causal) {
  auto sa = [&](const Tensor& x) {
    return (*dropout1_)(self_attn->forward(x, x, x, tgt_key_padding_mask, false, tgt_mask, true, tgt_is_causal).first);
  };
  auto mha = [&](const Tensor& x) {
    return (*dropout2_)(multihead_attn->forward(x, memory, memory, memory_key_padding_mask, false, memory_mask).first);
  };
  auto ff = [&](const Tensor& x) { return feed_forward(*linear1, *dropout_, *linear2, *dropout3_, o_.activation, x); };
  Tensor x = tgt;
  if (o_.norm_first) {
    x = x + sa((*norm1)(x));
    x = x + mha((*norm2)(x));
    return x + ff((*norm3)(x));
  }
  x = (*norm1)(x + sa(x));
  x = (*norm2)(x + mha(x));
  return (*norm3)(x + ff(x));
}

}  // namespace ditto::nn
