// nn::MultiheadAttention and the Transformer layers: PyTorch's parameter names and order of
// initial draws (PyTorch's own bits after a seed: python/tests/test_transformer.py), the two
// attention paths agreeing, masks, and a sequence's bits independent of the batch it is in.
#include <gtest/gtest.h>

#include "ditto/ditto.h"
#include "expect_error.h"

using namespace ditto;
using ditto::testing::expect_error;

namespace {
double max_abs_diff(const Tensor& a, const Tensor& b) { return (a - b).abs().max().item<float>(); }
std::vector<std::string> keys(const nn::Module& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m.state_dict()) out.push_back(k);
  return out;
}
}  // namespace

TEST(MultiheadAttention, ParametersAreDrawnInPyTorchsOrder) {
  manual_seed(3);
  nn::MultiheadAttention m(16, 4);
  manual_seed(3);
  nn::Linear out_proj(16, 16);  // out_proj's Linear draws first ...
  Tensor w = empty({48, 16});
  nn::init::xavier_uniform_(w);  // ... then in_proj_weight
  EXPECT_TRUE(equal(m.in_proj_weight().detach(), w));
  EXPECT_TRUE(equal(m.out_proj()->weight().detach(), out_proj.weight().detach()));
  EXPECT_TRUE(equal(m.in_proj_bias().detach(), zeros({48})));
  EXPECT_TRUE(equal(m.out_proj()->bias().detach(), zeros({16})));
  EXPECT_EQ(keys(m), (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}));
  nn::TransformerEncoderLayer enc(16, 4, {.dim_feedforward = 32});
  EXPECT_EQ(keys(enc),
            (std::vector<std::string>{"self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
                                      "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
                                      "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"}));
  nn::TransformerDecoderLayer dec(16, 4, {.dim_feedforward = 32});
  EXPECT_EQ(keys(dec).size(), 2u * 4u + 2u * 2u + 3u * 2u);  // two attentions, two linears, three norms
}

TEST(MultiheadAttention, WeightsAndFusedPathsAgreeAndMasksHide) {
  manual_seed(4);
  nn::MultiheadAttention m(16, 4, 0.0, true, /*batch_first=*/true);
  const Tensor x = randn({3, 7, 16});
  Tensor pad = zeros({3, 7}, kBool);
  pad[0].narrow(0, 5, 2).fill_(true);
  const Tensor causal = triu(ones({7, 7}, kBool), 1);
  auto [a, w] = m.forward(x, x, x, pad, true, causal);
  auto [b, none] = m.forward(x, x, x, pad, false, causal);
  EXPECT_FALSE(none.defined());
  EXPECT_LT(max_abs_diff(a, b), 2e-6);
  EXPECT_EQ(w.sizes(), (Shape{3, 7, 7}));
  EXPECT_EQ(w[0].narrow(1, 5, 2).abs().max().item<float>(), 0.0f);     // padded keys get no weight
  EXPECT_EQ(w[1][0].narrow(0, 1, 6).abs().max().item<float>(), 0.0f);  // the first query sees itself
  EXPECT_LT((w.sum({2}) - 1.0).abs().max().item<float>(), 1e-6);
  auto [c, wc] = m.forward(x, x, x, pad, false, Tensor(), true, /*is_causal=*/true);
  EXPECT_TRUE(equal(c, b));
  const Tensor y = randn({7, 16});  // one unbatched sequence
  EXPECT_EQ(m.forward(y, y, y).first.sizes(), (Shape{7, 16}));
  expect_error(
      [&] {
        m.forward(x, x, x, Tensor(), true, ones({4, 7}, kBool));
      },
      "[multi_head_attention_forward]", "2D attn_mask");
  expect_error([&] { m.forward(x, x, x, zeros({3, 6}, kBool)); }, "[multi_head_attention_forward]", "key_padding_mask");
  expect_error([&] { nn::MultiheadAttention(10, 4); }, "[MultiheadAttention]", "divisible");
}

TEST(TransformerEncoderLayer, ASequencesBitsDoNotDependOnTheBatch) {
  manual_seed(5);
  for (bool norm_first : {false, true}) {
    nn::TransformerEncoderLayer layer(
        16, 4,
        {.dim_feedforward = 32, .dropout = 0.0, .activation = "gelu", .batch_first = true, .norm_first = norm_first});
    layer.eval();
    const int64_t T = 70;
    const Tensor x = randn({4, T, 16});
    const int64_t lens[] = {1, 7, 64, 70};
    Tensor pad = zeros({4, T}, kBool);
    for (int b = 0; b < 4; ++b)
      if (lens[b] < T) pad[b].narrow(0, lens[b], T - lens[b]).fill_(true);
    const Tensor batch = layer.forward(x, Tensor(), pad, /*is_causal=*/true);
    for (int b = 0; b < 4; ++b) {
      const Tensor own = layer.forward(x.narrow(0, b, 1).narrow(1, 0, lens[b]), Tensor(), Tensor(), true);
      EXPECT_TRUE(equal(own, batch.narrow(0, b, 1).narrow(1, 0, lens[b]))) << "length " << lens[b];
    }
  }
  expect_error([] { nn::TransformerEncoderLayer(16, 4, {.activation = "tanh"}); }, "[TransformerEncoderLayer]",
               "relu/gelu");
}

TEST(TransformerDecoderLayer, RunsAndTrains) {
  manual_seed(6);
  nn::TransformerDecoderLayer layer(16, 4, {.dim_feedforward = 32, .dropout = 0.0, .batch_first = true});
  Tensor tgt = randn({2, 5, 16}).requires_grad_();
  const Tensor memory = randn({2, 9, 16});
  const Tensor y = layer.forward(tgt, memory, triu(ones({5, 5}, kBool), 1));
  EXPECT_EQ(y.sizes(), (Shape{2, 5, 16}));
  y.sum().backward();
  EXPECT_TRUE(tgt.grad().defined());
  EXPECT_TRUE(layer.multihead_attn->in_proj_weight().grad().defined());
}
