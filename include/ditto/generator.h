#pragma once
// PyTorch's CPU generator (MT19937 with PyTorch's seeding) and the default generator, apart from
// the tensor functions of ditto/random.h so that kernels can take a generator without the Tensor
// class.
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

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

}  // namespace ditto
