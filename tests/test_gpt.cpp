// Batch and cache invariance of the GPT example's model (examples/gpt/gpt.h; issue 17, item 5):
//   (a) a sequence's logits are the same bits alone and in a batch with sequences of other
//       lengths (right-padded; causal attention never looks at the padding);
//   (b) decoding with a KV cache, one position or a chunk at a time, gives the bits of
//       recomputing the whole prefix;
//   (c) both at every thread count and kernel level, which also give one another's bits.
// docs/determinism.md, "Batch and cache invariance", says why and where it stops.
#include <gtest/gtest.h>

#include <functional>

#include "../examples/gpt/gpt.h"
#include "cpu/capability.h"
#include "ditto/ditto.h"
#include "guards.h"

using namespace ditto;

namespace {

gpt::Config small() { return {.vocab = 50, .block = 256, .layers = 2, .heads = 2, .embd = 32, .dropout = 0.0}; }

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && fingerprint(a) == fingerprint(b);
}

// fn at 1, 2 and 3 threads, at every level this CPU has.
void everywhere(const std::function<void(const std::string&)>& fn) {
  ditto::testing::ConfigGuard reset;
  for (CpuCapability c : {CpuCapability::Scalar, CpuCapability::AVX2, CpuCapability::AVX512}) {
    if (!cpu_supports(c)) continue;
    set_cpu_capability_for_testing(c);
    for (int t : {1, 2, 3}) {
      set_num_threads(t);
      fn(std::string(capability_name(c)) + ", " + std::to_string(t) + " threads");
    }
  }
}

}  // namespace

TEST(GPTInference, ASequencesLogitsDoNotDependOnTheBatch) {
  manual_seed(3);
  gpt::GPT model(small());
  model.eval();
  NoGradGuard no_grad;
  const int64_t lens[] = {1, 7, 64, 255};
  const Tensor tokens = randint(0, 50, {4, 255});
  uint64_t first = 0;
  everywhere([&](const std::string& where) {
    const Tensor batch = model.forward(tokens);
    for (int b = 0; b < 4; ++b) {
      const Tensor own = model.forward(tokens.narrow(0, b, 1).narrow(1, 0, lens[b]));
      EXPECT_TRUE(same_bits(own, batch.narrow(0, b, 1).narrow(1, 0, lens[b]).contiguous()))
          << "length " << lens[b] << ", " << where;
    }
    // the sequences of length 7 and 64 in a batch of two, and the padding changed: the same bits
    Tensor other = tokens.narrow(0, 1, 2).clone();
    other.narrow(1, 64, 255 - 64).fill_(0);
    const Tensor pair = model.forward(other.narrow(1, 0, 100));
    EXPECT_TRUE(same_bits(pair.narrow(1, 0, 7).narrow(0, 0, 1).contiguous(),
                          batch.narrow(0, 1, 1).narrow(1, 0, 7).contiguous()))
        << where;
    const uint64_t f = fingerprint(batch);
    if (first == 0) first = f;
    EXPECT_EQ(f, first) << where;
  });
}

TEST(GPTInference, DecodingWithAKVCacheGivesTheLogitsOfTheWholePrefix) {
  manual_seed(4);
  gpt::GPT model(small());
  model.eval();
  NoGradGuard no_grad;
  const Tensor tokens = randint(0, 50, {3, 90});
  uint64_t first = 0;
  everywhere([&](const std::string& where) {
    const Tensor full = model.forward(tokens);
    // one position at a time after a prefill of 5
    gpt::KVCache cache;
    Tensor got = model.forward(tokens.narrow(1, 0, 5), &cache);
    EXPECT_TRUE(same_bits(got, full.narrow(1, 0, 5).contiguous())) << "prefill, " << where;
    for (int64_t t = 5; t < 90; ++t) {
      got = model.forward(tokens.narrow(1, t, 1), &cache);
      ASSERT_TRUE(same_bits(got, full.narrow(1, t, 1).contiguous())) << "position " << t << ", " << where;
    }
    EXPECT_EQ(cache.length(), 90);
    // chunks of 7 after a prefill of 20 (a chunk's queries see the cache and each other, masked)
    gpt::KVCache chunked;
    model.forward(tokens.narrow(1, 0, 20), &chunked);
    for (int64_t t = 20; t + 7 <= 90; t += 7) {
      got = model.forward(tokens.narrow(1, t, 7), &chunked);
      ASSERT_TRUE(same_bits(got, full.narrow(1, t, 7).contiguous())) << "chunk at " << t << ", " << where;
    }
    const uint64_t f = fingerprint(full);
    if (first == 0) first = f;
    EXPECT_EQ(f, first) << where;
  });
  gpt::KVCache cache;
  model.forward(randint(0, 50, {3, 160}), &cache);
  EXPECT_THROW(model.forward(randint(0, 50, {3, 97}), &cache), Error);  // past the block
}

// Training the example's model: the same loss bits at every thread count and level.
TEST(GPTTraining, StepsGiveTheSameBitsEverywhere) {
  const Tensor x = (manual_seed(8), randint(0, 50, {4, 32})), y = randint(0, 50, {4, 32});
  std::vector<float> first;
  everywhere([&](const std::string& where) {
    manual_seed(9);
    gpt::GPT model({.vocab = 50, .block = 32, .layers = 2, .heads = 2, .embd = 32, .dropout = 0.1});
    optim::AdamW opt(model.param_groups(0.1), {.lr = 3e-3});
    std::vector<float> losses;
    for (int s = 0; s < 4; ++s) {
      opt.zero_grad();
      Tensor loss = nn::functional::cross_entropy(model.forward(x).view({-1, 50}), y.view({-1}));
      loss.backward();
      nn::utils::clip_grad_norm_(model.parameters(), 1.0);
      opt.step();
      losses.push_back(loss.item<float>());
    }
    if (first.empty()) first = losses;
    EXPECT_EQ(losses, first) << where;
    EXPECT_LT(losses.back(), losses.front()) << where;
  });
}
