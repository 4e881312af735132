#pragma once
// Random numbers identical to PyTorch's CPU generator (MT19937 with PyTorch's seeding, draw
// order and distribution algorithms, its AVX2 flavour: see docs/spec/pytorch-cpu-rng.md).
// The same seed gives the same bits as PyTorch on x86-64, on every CPU ditto runs on.
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "ditto/tensor.h"

namespace ditto {

// A PyTorch-compatible CPU generator. Not thread-safe on its own; the default generator is
// guarded by its mutex (default_generator().mutex()).
class Generator {
 public:
  // PyTorch's seed for a fresh torch.Generator(): 67280421310721.
  static constexpr uint64_t kDefaultSeed = 67280421310721ULL;
  static constexpr std::size_t kStateBytes = 5056;

  Generator();
  explicit Generator(uint64_t seed);

  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const { return seed_; }
  // PyTorch's 5056-byte state layout (torch.get_rng_state()).
  std::vector<uint8_t> get_state() const;
  void set_state(const std::vector<uint8_t>& state);

  uint32_t random();    // one 32-bit draw
  uint64_t random64();  // two draws, first is the high half

  // Box-Muller cache of the scalar double normal path (PyTorch's next_double_normal_sample).
  std::optional<double> normal_cache_d;
  std::optional<float> normal_cache_f;  // saved/restored only, as in PyTorch 1.13

  std::mutex& mutex() { return mutex_; }

 private:
  void twist();
  uint64_t seed_ = 0;
  std::array<uint32_t, 624> mt_{};
  int left_ = 1;
  uint32_t next_ = 0;
  std::mutex mutex_;
};

Generator& default_generator();
// Seeds the default generator (as torch.manual_seed): only the low 32 bits reach the stream.
void manual_seed(uint64_t seed);
std::vector<uint8_t> get_rng_state();
void set_rng_state(const std::vector<uint8_t>& state);

Tensor rand(const Shape& size, ScalarType dtype = kFloat32, Generator* gen = nullptr);
Tensor randn(const Shape& size, ScalarType dtype = kFloat32, Generator* gen = nullptr);
Tensor rand(const Shape& size, Generator* gen);
Tensor randn(const Shape& size, Generator* gen);
Tensor rand_like(const Tensor& t, Generator* gen = nullptr);
Tensor randn_like(const Tensor& t, Generator* gen = nullptr);
// Integers uniform in [low, high), int64 by default.
Tensor randint(int64_t low, int64_t high, const Shape& size, ScalarType dtype = kInt64, Generator* gen = nullptr);
Tensor randint(int64_t high, const Shape& size, ScalarType dtype = kInt64, Generator* gen = nullptr);
Tensor randperm(int64_t n, ScalarType dtype = kInt64, Generator* gen = nullptr);
// Samples 0/1 with probabilities from p (float32: compared in float, float64: in double).
Tensor bernoulli(const Tensor& p, Generator* gen = nullptr);
Tensor normal(double mean, double std, const Shape& size, ScalarType dtype = kFloat32, Generator* gen = nullptr);
// num_samples category indices per row of probs (1-D or 2-D, non-negative weights), as
// torch.multinomial with PyTorch 1.13's bits for a seed: without replacement the Gumbel trick
// argmax/topk(p / q), q ~ Exp(1) drawn per element; with replacement PyTorch's cumulative sum and
// binary search, one U53 draw per sample (2.x also samples one with replacement by the trick).
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false, Generator* gen = nullptr);

}  // namespace ditto
