#pragma once
// Strided loops over tensors of one shape, for CPU kernels (dtype dispatch: core/dtype_dispatch.h).
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "core/parallel.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {

using core::convert;
using core::dispatch_dtype;
using core::dispatch_floating;
using core::with_index;

// Runs inner(ptrs, byte_strides, n) over every innermost run of N same-shaped strided operands,
// after merging dims that are contiguous with each other. Rows may be processed in parallel:
// each element is written by one call only, so the result never depends on the split.
template <int N, class F>
void for_each_run(const Shape& sizes, const std::array<char*, N>& base, const std::array<Shape, N>& strides,
                  const std::array<int64_t, N>& elem_size, F&& inner, bool allow_parallel = true) {
  // Nothing to visit when any dim is empty; the other dims of an empty tensor may be huge
  // (repeat(empty, {1LL << 62})), so no stride arithmetic happens before this check.
  for (const int64_t s : sizes)
    if (s == 0) return;
  // collapse: drop size-1 dims, merge contiguous neighbours
  Shape sz;
  std::array<Shape, N> st;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    if (!sz.empty()) {
      bool merge = true;
      for (int k = 0; k < N; ++k)
        if (st[k].back() != strides[k][d] * elem_size[k] * sizes[d]) merge = false;
      if (merge) {
        sz.back() *= sizes[d];
        for (int k = 0; k < N; ++k) st[k].back() = strides[k][d] * elem_size[k];
        continue;
      }
    }
    sz.push_back(sizes[d]);
    for (int k = 0; k < N; ++k) st[k].push_back(strides[k][d] * elem_size[k]);
  }
  if (sz.empty()) {
    sz.push_back(1);
    for (int k = 0; k < N; ++k) st[k].push_back(0);
  }
  const int64_t nd = static_cast<int64_t>(sz.size());
  const int64_t inner_n = sz.back();
  int64_t outer = 1;
  for (int64_t d = 0; d + 1 < nd; ++d) outer *= sz[d];
  std::array<int64_t, N> inner_st;
  for (int k = 0; k < N; ++k) inner_st[k] = st[k].back();

  auto run = [&](int64_t begin, int64_t end) {
    // multi-index of row `begin` over the outer dims
    Shape idx(nd > 1 ? nd - 1 : 0, 0);
    int64_t r = begin;
    for (int64_t d = nd - 2; d >= 0; --d) {
      idx[d] = r % sz[d];
      r /= sz[d];
    }
    std::array<char*, N> p;
    for (int k = 0; k < N; ++k) {
      p[k] = base[k];
      for (int64_t d = 0; d + 1 < nd; ++d) p[k] += idx[d] * st[k][d];
    }
    for (int64_t row = begin; row < end; ++row) {
      inner(p, inner_st, inner_n);
      for (int64_t d = nd - 2; d >= 0; --d) {  // advance to the next row
        for (int k = 0; k < N; ++k) p[k] += st[k][d];
        if (++idx[d] < sz[d]) break;
        for (int k = 0; k < N; ++k) p[k] -= st[k][d] * sz[d];
        idx[d] = 0;
      }
    }
  };
  if (allow_parallel)
    detail::parallel_for(outer, inner_n, run);
  else
    run(0, outer);
}

// take ? a : b, computed with bit operations so that the compiler emits no branch (and can
// vectorise the loop around it): for data-dependent choices, which a branch mispredicts.
template <class T>
T select_bits(bool take, T a, T b) {
  using U = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(T) == sizeof(U));
  const U mask = static_cast<U>(U(0) - U(take));
  return std::bit_cast<T>(static_cast<U>((std::bit_cast<U>(a) & mask) | (std::bit_cast<U>(b) & static_cast<U>(~mask))));
}

// True when out and every input are contiguous and of out's shape, so one flat index walks them
// all (the vectorised array kernels take this path).
template <class... Ts>
bool flat(const TensorBase& out, const Ts&... in) {
  return out.is_contiguous() && ((in.is_contiguous() && in.sizes() == out.sizes()) && ...);
}

// fn(lo, hi) over [0, n) in fixed blocks, possibly in parallel; each element is written by one
// call, so the split never changes a result.
template <class F>
void flat_blocks(int64_t n, int64_t cost_per_item, F fn) {
  constexpr int64_t kBlock = 16384;
  detail::parallel_for((n + kBlock - 1) / kBlock, kBlock * cost_per_item,
                       [&](int64_t b, int64_t e) { fn(b * kBlock, e * kBlock < n ? e * kBlock : n); });
}

// Applies f elementwise: out[i] = f(in[i]...) with out of type O and inputs of types In.
template <class O, class... In, class F>
void map(const TensorBase& out, F&& f, const std::conditional_t<true, TensorBase, In>&... in) {
  constexpr int N = 1 + sizeof...(In);
  std::array<char*, N> base{static_cast<char*>(out.raw_data()), static_cast<char*>(in.raw_data())...};
  std::array<Shape, N> strides{out.strides(), in.strides()...};
  std::array<int64_t, N> es{int64_t(sizeof(O)), int64_t(sizeof(In))...};
  for_each_run<N>(
      out.sizes(), base, strides, es, [&](const std::array<char*, N>& p, const std::array<int64_t, N>& s, int64_t n) {
        bool contiguous = s[0] == int64_t(sizeof(O));
        if constexpr (N >= 2)
          contiguous = contiguous && s[1] == int64_t(sizeof(std::tuple_element_t<0, std::tuple<In...>>));
        if constexpr (N >= 3)
          contiguous = contiguous && s[2] == int64_t(sizeof(std::tuple_element_t<1, std::tuple<In...>>));
        if constexpr (N >= 4)
          contiguous = contiguous && s[3] == int64_t(sizeof(std::tuple_element_t<2, std::tuple<In...>>));
        O* o = reinterpret_cast<O*>(p[0]);
        if (contiguous) {
          // same loop with unit strides, so the compiler can vectorise it
          [&]<std::size_t... I>(std::index_sequence<I...>) {
            std::tuple<In*...> ins{reinterpret_cast<In*>(p[I + 1])...};
            for (int64_t i = 0; i < n; ++i) o[i] = f(std::get<I>(ins)[i]...);
          }
          (std::index_sequence_for<In...>{});
        } else {
          [&]<std::size_t... I>(std::index_sequence<I...>) {
            for (int64_t i = 0; i < n; ++i)
              *reinterpret_cast<O*>(p[0] + i * s[0]) = f(*reinterpret_cast<const In*>(p[I + 1] + i * s[I + 1])...);
          }
          (std::index_sequence_for<In...>{});
        }
      });
}

}  // namespace ditto::cpu
