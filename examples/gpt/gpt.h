#pragma once
// A character-level GPT (nanoGPT's architecture): token and position embeddings, pre-LayerNorm
// blocks of causal self-attention (ditto's fused attention) and a GELU MLP, a final LayerNorm and
// a language-model head tied to the token embedding. The same model as examples/gpt/gpt.py,
// module for module and draw for draw, so the two print the same bits.
//
// forward() takes an optional KV cache: decoding one token at a time with it gives the bits of
// recomputing the whole prefix (docs/determinism.md, "Batch and cache invariance").
#include <ditto/ditto.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace gpt {

namespace nn = ditto::nn;
using ditto::Tensor;

struct Config {
  int64_t vocab = 65;
  int64_t block = 128;  // context length
  int64_t layers = 4;
  int64_t heads = 4;
  int64_t embd = 128;
  double dropout = 0.0;
};

// The keys and values of the positions seen so far, per layer: (B, heads, length, head dim).
struct KVCache {
  std::vector<Tensor> k, v;
  int64_t length() const { return k.empty() || !k[0].defined() ? 0 : k[0].size(2); }
};

class CausalSelfAttention : public nn::Module {
 public:
  explicit CausalSelfAttention(const Config& c)
      : heads_(c.heads),
        dropout_(c.dropout),
        c_attn(register_module("c_attn", std::make_shared<nn::Linear>(c.embd, 3 * c.embd))),
        c_proj(register_module("c_proj", std::make_shared<nn::Linear>(c.embd, c.embd))),
        resid_dropout(register_module("resid_dropout", std::make_shared<nn::Dropout>(c.dropout))) {}

  // x (B, T, C); with a cache, x holds the positions after the cached ones.
  Tensor forward(const Tensor& x, Tensor* cache_k = nullptr, Tensor* cache_v = nullptr) {
    const int64_t B = x.size(0), T = x.size(1), C = x.size(2), D = C / heads_;
    const std::vector<Tensor> qkv = c_attn->forward(x).split(C, 2);
    auto heads = [&](const Tensor& t) { return t.view({B, T, heads_, D}).transpose(1, 2); };
    Tensor q = heads(qkv[0]), k = heads(qkv[1]), v = heads(qkv[2]);
    int64_t past = 0;
    if (cache_k != nullptr) {
      if (cache_k->defined()) {
        past = cache_k->size(2);
        k = ditto::cat({*cache_k, k}, 2);
        v = ditto::cat({*cache_v, v}, 2);
      }
      *cache_k = k;
      *cache_v = v;
    }
    const double p = is_training() ? dropout_ : 0.0;
    Tensor y;
    if (past == 0) {
      y = nn::functional::scaled_dot_product_attention(q, k, v, Tensor(), p, /*is_causal=*/true);
    } else {
      // query i (position past + i) sees keys 0 .. past + i
      const Tensor mask = ditto::arange(past + T).unsqueeze(0) <= (ditto::arange(T) + past).unsqueeze(1);
      y = nn::functional::scaled_dot_product_attention(q, k, v, T == 1 ? Tensor() : mask, p);
    }
    return resid_dropout->forward(c_proj->forward(y.transpose(1, 2).contiguous().view({B, T, C})));
  }

 private:
  int64_t heads_;
  double dropout_;

 public:
  std::shared_ptr<nn::Linear> c_attn, c_proj;
  std::shared_ptr<nn::Dropout> resid_dropout;
};

class MLP : public nn::UnaryModule {
 public:
  explicit MLP(const Config& c)
      : c_fc(register_module("c_fc", std::make_shared<nn::Linear>(c.embd, 4 * c.embd))),
        c_proj(register_module("c_proj", std::make_shared<nn::Linear>(4 * c.embd, c.embd))),
        dropout(register_module("dropout", std::make_shared<nn::Dropout>(c.dropout))) {}
  Tensor forward(const Tensor& x) override { return dropout->forward(c_proj->forward(ditto::gelu(c_fc->forward(x)))); }
  std::shared_ptr<nn::Linear> c_fc, c_proj;
  std::shared_ptr<nn::Dropout> dropout;
};

class Block : public nn::Module {
 public:
  explicit Block(const Config& c)
      : ln_1(register_module("ln_1", std::make_shared<nn::LayerNorm>(ditto::Shape{c.embd}))),
        attn(register_module("attn", std::make_shared<CausalSelfAttention>(c))),
        ln_2(register_module("ln_2", std::make_shared<nn::LayerNorm>(ditto::Shape{c.embd}))),
        mlp(register_module("mlp", std::make_shared<MLP>(c))) {}
  Tensor forward(const Tensor& x, Tensor* cache_k = nullptr, Tensor* cache_v = nullptr) {
    const Tensor h = x + attn->forward(ln_1->forward(x), cache_k, cache_v);
    return h + mlp->forward(ln_2->forward(h));
  }
  std::shared_ptr<nn::LayerNorm> ln_1;
  std::shared_ptr<CausalSelfAttention> attn;
  std::shared_ptr<nn::LayerNorm> ln_2;
  std::shared_ptr<MLP> mlp;
};

class GPT : public nn::Module {
 public:
  explicit GPT(const Config& c)
      : config(c),
        wte(register_module("wte", std::make_shared<nn::Embedding>(c.vocab, c.embd))),
        wpe(register_module("wpe", std::make_shared<nn::Embedding>(c.block, c.embd))),
        drop(register_module("drop", std::make_shared<nn::Dropout>(c.dropout))),
        h(register_module("h", blocks(c))),
        ln_f(register_module("ln_f", std::make_shared<nn::LayerNorm>(ditto::Shape{c.embd}))),
        lm_head(register_module("lm_head", std::make_shared<nn::Linear>(c.embd, c.vocab, false))) {
    lm_head->weight() = wte->weight();  // weight tying: one parameter
    // nanoGPT's initialisation, in named_parameters order (the Python twin's order too):
    // N(0, 0.02) for matrices, N(0, 0.02 / sqrt(2 layers)) for the residual projections, zero biases.
    ditto::NoGradGuard no_grad;
    for (auto& [name, p] : named_parameters()) {
      if (name.ends_with("c_proj.weight"))
        nn::init::normal_(p, 0.0, 0.02 / std::sqrt(2.0 * static_cast<double>(c.layers)));
      else if (p.dim() == 2)
        nn::init::normal_(p, 0.0, 0.02);
      else if (name.ends_with("bias"))
        nn::init::zeros_(p);
    }
  }

  // idx (B, T) int64 token ids -> logits (B, T, vocab). With a cache, idx holds the positions after
  // the cached ones, and the cache grows by T.
  Tensor forward(const Tensor& idx, KVCache* cache = nullptr) {
    const int64_t T = idx.size(1), past = cache != nullptr ? cache->length() : 0;
    DITTO_CHECK(past + T <= config.block, "GPT", "sequence of length ", past + T, " exceeds the block size ",
                config.block);
    if (cache != nullptr && cache->k.empty()) {
      cache->k.resize(static_cast<std::size_t>(config.layers));
      cache->v.resize(static_cast<std::size_t>(config.layers));
    }
    Tensor x = drop->forward(wte->forward(idx) + wpe->forward(ditto::arange(past, past + T)));
    for (std::size_t i = 0; i < h->size(); ++i) {
      Block& b = h->as<Block>(i);
      x = cache != nullptr ? b.forward(x, &cache->k[i], &cache->v[i]) : b.forward(x);
    }
    return lm_head->forward(ln_f->forward(x));
  }

  // Weights decay; biases and LayerNorm weights do not (the usual split).
  std::vector<ditto::optim::ParamGroup> param_groups(double weight_decay) const {
    std::vector<Tensor> decay, no_decay;
    for (const auto& [name, p] : named_parameters()) (p.dim() >= 2 ? decay : no_decay).push_back(p);
    return {{decay, std::nullopt, weight_decay}, {no_decay, std::nullopt, 0.0}};
  }

  // The blocks, made before ln_f and lm_head: each module's initial draws in the Python twin's order.
  static std::shared_ptr<nn::ModuleList> blocks(const Config& c) {
    auto list = std::make_shared<nn::ModuleList>();
    for (int64_t i = 0; i < c.layers; ++i) list->push_back(std::make_shared<Block>(c));
    return list;
  }

  Config config;
  std::shared_ptr<nn::Embedding> wte, wpe;
  std::shared_ptr<nn::Dropout> drop;
  std::shared_ptr<nn::ModuleList> h;
  std::shared_ptr<nn::LayerNorm> ln_f;
  std::shared_ptr<nn::Linear> lm_head;
};

// The text's characters, sorted: token i is chars[i].
struct Vocabulary {
  std::string chars;
  explicit Vocabulary(const std::string& text) {
    bool seen[256] = {};
    for (unsigned char ch : text) seen[ch] = true;
    for (int ch = 0; ch < 256; ++ch)
      if (seen[ch]) chars += static_cast<char>(ch);
  }
  Tensor encode(const std::string& s) const {
    Tensor t = ditto::empty({static_cast<int64_t>(s.size())}, ditto::kInt64);
    int64_t* d = t.data_ptr<int64_t>();
    for (std::size_t i = 0; i < s.size(); ++i) {
      const std::size_t pos = chars.find(s[i]);
      DITTO_CHECK(pos != std::string::npos, "GPT", "character '", s[i], "' is not in the vocabulary");
      d[i] = static_cast<int64_t>(pos);
    }
    return t;
  }
};

}  // namespace gpt
