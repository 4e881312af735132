#pragma once
// The canonical leaf tree of Note [Leaf reduction order] written as its definition (a recursion
// over whole leaves, no stack, no chunks): the reference LeafReducer and all_reduce are tested
// against, bit for bit.
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

namespace ditto::testing {

template <class T>
std::optional<std::vector<T>> tree_node(const std::vector<std::vector<T>>& leaves, int64_t lo, int64_t size) {
  const auto n = static_cast<int64_t>(leaves.size());
  if (lo >= n) return std::nullopt;
  if (size == 1) return leaves[static_cast<std::size_t>(lo)];
  auto left = tree_node(leaves, lo, size / 2);
  auto right = tree_node(leaves, lo + size / 2, size / 2);
  if (right)
    for (std::size_t i = 0; i < left->size(); ++i) (*left)[i] += (*right)[i];
  return left;
}

template <class T>
std::vector<T> tree_sum(const std::vector<std::vector<T>>& leaves) {
  return *tree_node(leaves, 0, static_cast<int64_t>(std::bit_ceil(leaves.size())));
}

// Leaf values whose sum depends on the order of addition: magnitudes 2^-20 .. 2^20.
template <class T>
std::vector<T> leaf_values(int64_t leaf, int64_t numel, uint64_t seed) {
  std::vector<T> v(static_cast<std::size_t>(numel));
  uint64_t s = seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(leaf) * 0xBF58476D1CE4E5B9ULL + 1;
  for (auto& x : v) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    const double u = static_cast<double>(s >> 11) / 9007199254740992.0;  // [0, 1)
    const int e = static_cast<int>((s >> 3) % 41) - 20;
    x = static_cast<T>((u - 0.5) * std::ldexp(1.0, e));
  }
  return v;
}

}  // namespace ditto::testing
