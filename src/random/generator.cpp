// MT19937 with PyTorch's seeding, draw order and 5056-byte state layout
// (spec: docs/spec/pytorch-cpu-rng.md §1 and §6).
#include <cstring>
#include <mutex>

#include "ditto/error.h"
#include "ditto/random.h"

namespace ditto {

namespace {
constexpr int kN = 624;
constexpr int kM = 397;

// Byte offsets of PyTorch's CPUGeneratorImplState (little-endian C struct).
constexpr std::size_t kOffSeed = 0;
constexpr std::size_t kOffLeft = 8;
constexpr std::size_t kOffSeeded = 12;
constexpr std::size_t kOffNext = 16;
constexpr std::size_t kOffMt = 24;
constexpr std::size_t kOffNormalY = 5024;
constexpr std::size_t kOffNormalValid = 5040;
constexpr std::size_t kOffCacheF = 5048;
constexpr std::size_t kOffCacheFValid = 5052;

template <class T>
void put(std::vector<uint8_t>& b, std::size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof(T));
}
template <class T>
T get(const std::vector<uint8_t>& b, std::size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}

inline uint32_t mix_bits(uint32_t u, uint32_t v) {
  uint32_t y = (u & 0x80000000u) | (v & 0x7FFFFFFFu);
  return (y >> 1) ^ ((0u - (y & 1u)) & 0x9908B0DFu);  // branch-free: y & 1 is random
}
}  // namespace

static_assert(Generator::kStateBytes == kOffCacheFValid + 4, "state layout");

Generator::Generator() : Generator(kDefaultSeed) {}
Generator::Generator(uint64_t seed) { manual_seed(seed); }

void Generator::manual_seed(uint64_t seed) {
  seed_ = seed;
  // Only the low 32 bits reach the state, so 5 and 2^32+5 give the same stream.
  mt_[0] = static_cast<uint32_t>(seed & 0xFFFFFFFFu);
  for (int i = 1; i < kN; ++i) mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  left_ = 1;
  next_ = 0;
  normal_cache_d.reset();
  normal_cache_f.reset();
}

void Generator::twist() {
  // In place and sequential, so entries below i are already new; split to avoid the modulo.
  int i = 0;
  for (; i < kN - kM; ++i) mt_[i] = mt_[i + kM] ^ mix_bits(mt_[i], mt_[i + 1]);
  for (; i < kN - 1; ++i) mt_[i] = mt_[i + kM - kN] ^ mix_bits(mt_[i], mt_[i + 1]);
  mt_[kN - 1] = mt_[kM - 1] ^ mix_bits(mt_[kN - 1], mt_[0]);
  left_ = kN;
  next_ = 0;
}

uint32_t Generator::random() {
  if (--left_ == 0) twist();
  uint32_t y = mt_[next_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9D2C5680u;
  y ^= (y << 15) & 0xEFC60000u;
  y ^= y >> 18;
  return y;
}

uint64_t Generator::random64() {
  uint64_t hi = random();  // the first word is the high half
  uint64_t lo = random();
  return (hi << 32) | lo;
}

std::vector<uint8_t> Generator::get_state() const {
  std::vector<uint8_t> b(kStateBytes, 0);
  put<uint64_t>(b, kOffSeed, seed_);
  put<int32_t>(b, kOffLeft, left_);
  put<int32_t>(b, kOffSeeded, 1);
  put<uint64_t>(b, kOffNext, next_);
  for (int i = 0; i < kN; ++i) put<uint64_t>(b, kOffMt + 8 * i, mt_[i]);
  // Legacy normal_x and normal_rho stay 0; normal_y holds the cached sample itself.
  put<double>(b, kOffNormalY, normal_cache_d.value_or(0.0));
  put<int32_t>(b, kOffNormalValid, normal_cache_d.has_value() ? 1 : 0);
  put<float>(b, kOffCacheF, normal_cache_f.value_or(0.0f));
  b[kOffCacheFValid] = normal_cache_f.has_value() ? 1 : 0;
  return b;
}

void Generator::set_state(const std::vector<uint8_t>& state) {
  DITTO_CHECK(state.size() == kStateBytes, "set_state", "expected a state of ", kStateBytes, " bytes, got ",
              state.size());
  const int32_t left = get<int32_t>(state, kOffLeft);
  const int32_t seeded = get<int32_t>(state, kOffSeeded);
  const uint64_t next = get<uint64_t>(state, kOffNext);
  DITTO_CHECK(seeded != 0, "set_state", "invalid mt19937 state: seeded flag is 0");
  DITTO_CHECK(left > 0 && left <= kN, "set_state", "invalid mt19937 state: left = ", left, " is outside [1, ", kN, "]");
  DITTO_CHECK(next <= static_cast<uint64_t>(kN), "set_state", "invalid mt19937 state: next = ", next,
              " is greater than ", kN);
  seed_ = get<uint64_t>(state, kOffSeed);
  left_ = left;
  next_ = static_cast<uint32_t>(next);
  // PyTorch keeps the low 32 bits of each 64-bit word.
  for (int i = 0; i < kN; ++i) mt_[i] = static_cast<uint32_t>(get<uint64_t>(state, kOffMt + 8 * i));
  if (get<int32_t>(state, kOffNormalValid) != 0)
    normal_cache_d = get<double>(state, kOffNormalY);
  else
    normal_cache_d.reset();
  if (state[kOffCacheFValid] != 0)
    normal_cache_f = get<float>(state, kOffCacheF);
  else
    normal_cache_f.reset();
}

Generator& default_generator() {
  // Fixed start-up seed (not the clock): ditto runs are reproducible without manual_seed.
  static Generator gen(Generator::kDefaultSeed);
  return gen;
}

void manual_seed(uint64_t seed) {
  Generator& g = default_generator();
  std::lock_guard<std::mutex> lock(g.mutex());
  g.manual_seed(seed);
}

std::vector<uint8_t> get_rng_state() {
  Generator& g = default_generator();
  std::lock_guard<std::mutex> lock(g.mutex());
  return g.get_state();
}

void set_rng_state(const std::vector<uint8_t>& state) {
  Generator& g = default_generator();
  std::lock_guard<std::mutex> lock(g.mutex());
  g.set_state(state);
}

}  // namespace ditto
