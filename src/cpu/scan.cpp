// Scans: cumsum, cumprod and cumprod's gradient.
//
// Note [Scan order]
// Each output element is its line's running sum (product) from the line's first element, one
// element after another in index order (from the last one for a reverse scan), accumulated in
// double for floating dtypes and in 64-bit integers (wrapping) for integer ones, and rounded once
// to the output dtype. That is PyTorch's CPU order (cpu_cum_base_kernel with acc_type), so the
// results are PyTorch's bits. Threads take whole lines (chunks of the inner dim), never a part of
// one, so the bits do not depend on the thread count; there is no vector kernel, so none on the
// level.
#include "cpu/decl/scan.h"

#include <algorithm>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/parallel.h"

namespace ditto::cpu {

namespace {
template <class T>
using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;

template <class T>
T from_acc(Acc<T> a) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(a);
  else
    return static_cast<T>(static_cast<int64_t>(a));  // two's complement wrap (C++20)
}

constexpr int64_t kChunk = 256;  // inner elements per task

// Runs body(o, i0, i1) over every (outer, chunk of inner) of a contiguous (outer, n, inner) tensor.
template <class Body>
void for_lines(const Tensor& in, Body body) {
  const int64_t outer = in.size(0), n = in.size(1), inner = in.size(2);
  const int64_t chunks = (inner + kChunk - 1) / kChunk;
  detail::parallel_for(outer * chunks, n * std::min(inner, kChunk), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / chunks, i0 = (t % chunks) * kChunk;
      body(o, i0, std::min(inner, i0 + kChunk));
    }
  });
}

template <bool Product>
void scan(const Tensor& out, const Tensor& in, bool reverse) {
  core::dispatch_dtype(in.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      const T* x = in.data_ptr<T>();
      T* y = out.data_ptr<T>();
      const int64_t n = in.size(1), inner = in.size(2);
      auto step = [](Acc<T>& a, T v) {
        if constexpr (Product)
          a *= static_cast<Acc<T>>(v);
        else
          a += static_cast<Acc<T>>(v);
      };
      if (inner == 1) {  // each line is a row: one tight loop per row
        detail::parallel_for(in.size(0), n, [&](int64_t b, int64_t e) {
          for (int64_t o = b; o < e; ++o) {
            const T* xr = x + o * n;
            T* yr = y + o * n;
            Acc<T> a(Product ? 1 : 0);
            if (reverse) {
              for (int64_t k = n - 1; k >= 0; --k) {
                step(a, xr[k]);
                yr[k] = from_acc<T>(a);
              }
            } else {
              for (int64_t k = 0; k < n; ++k) {
                step(a, xr[k]);
                yr[k] = from_acc<T>(a);
              }
            }
          }
        });
        return;
      }
      for_lines(in, [&](int64_t o, int64_t i0, int64_t i1) {
        std::vector<Acc<T>> acc(static_cast<std::size_t>(i1 - i0), Acc<T>(Product ? 1 : 0));
        for (int64_t s = 0; s < n; ++s) {
          const int64_t k = reverse ? n - 1 - s : s;
          const T* xr = x + (o * n + k) * inner;
          T* yr = y + (o * n + k) * inner;
          for (int64_t i = i0; i < i1; ++i) {
            Acc<T>& a = acc[static_cast<std::size_t>(i - i0)];
            step(a, xr[i]);
            yr[i] = from_acc<T>(a);
          }
        }
      });
    }
  });
}
}  // namespace

void cumsum(const Tensor& out, const Tensor& in, bool reverse) { scan<false>(out, in, reverse); }
void cumprod(const Tensor& out, const Tensor& in, bool reverse) { scan<true>(out, in, reverse); }

// d/dx_i of sum_j g_j prod_{k<=j} x_k is L_i R_i, with L_i = prod_{k<i} x_k (the exclusive
// running product) and R_i = g_i + x_{i+1} R_{i+1} (from the line's end; R_{n-1} = g_{n-1}): no
// division, so zeros in x need no special case. In double, per line, as Note [Scan order].
void cumprod_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& in) {
  core::dispatch_floating(in.dtype(), [&]<class T>() {
    const T* x = in.data_ptr<T>();
    const T* g = grad_out.data_ptr<T>();
    T* gi = grad_in.data_ptr<T>();
    const int64_t n = in.size(1), inner = in.size(2);
    for_lines(in, [&](int64_t o, int64_t i0, int64_t i1) {
      const std::size_t w = static_cast<std::size_t>(i1 - i0);
      std::vector<double> r(w * static_cast<std::size_t>(n)), acc(w);
      auto at = [&](int64_t k, int64_t i) { return (o * n + k) * inner + i; };
      for (int64_t k = n - 1; k >= 0; --k)
        for (int64_t i = i0; i < i1; ++i) {
          double& ri = r[static_cast<std::size_t>(k) * w + static_cast<std::size_t>(i - i0)];
          ri = static_cast<double>(g[at(k, i)]);
          if (k + 1 < n)
            ri += static_cast<double>(x[at(k + 1, i)]) *
                  r[static_cast<std::size_t>(k + 1) * w + static_cast<std::size_t>(i - i0)];
        }
      std::fill(acc.begin(), acc.end(), 1.0);
      for (int64_t k = 0; k < n; ++k)
        for (int64_t i = i0; i < i1; ++i) {
          double& l = acc[static_cast<std::size_t>(i - i0)];
          gi[at(k, i)] = static_cast<T>(l * r[static_cast<std::size_t>(k) * w + static_cast<std::size_t>(i - i0)]);
          l *= static_cast<double>(x[at(k, i)]);
        }
    });
  });
}

}  // namespace ditto::cpu
