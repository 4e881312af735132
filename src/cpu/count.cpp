// Counting kernels: histc and bincount.
//
// Note [Counting order]
// Counts are integers: each task counts its own part of the input into an int64 histogram of its
// own, and the parts are added, which is exact, so the result depends neither on the thread
// count nor on how the input is split (PyTorch's CPU histc adds per-thread float histograms, the
// same numbers wherever a bin holds fewer than 2^24). histc rounds each exact count once to the
// input's dtype. Weighted bincount sums floating weights: one pass in input order, as PyTorch's
// CPU kernel (so its bits), in float for float32 weights and in double otherwise.
#include "cpu/decl/count.h"

#include <algorithm>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/parallel.h"

namespace ditto::cpu {
namespace {
// counts[b] = the number of i in [0, n) with bin_of(i) == b (bin_of returns -1 to skip), in
// int64, by parts counted side by side and then added.
template <class BinOf>
std::vector<int64_t> count(int64_t n, int64_t bins, BinOf bin_of) {
  const int64_t parts = std::clamp<int64_t>(n / std::max<int64_t>(bins, 4096), 1, detail::num_threads());
  std::vector<int64_t> local(static_cast<std::size_t>(parts * bins), 0);
  detail::parallel_for(parts, (n + parts - 1) / parts, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      int64_t* h = local.data() + p * bins;
      for (int64_t i = p * n / parts, end = (p + 1) * n / parts; i < end; ++i) {
        const int64_t bin = bin_of(i);
        if (bin >= 0) ++h[bin];
      }
    }
  });
  std::vector<int64_t> total(local.begin(), local.begin() + bins);
  for (int64_t p = 1; p < parts; ++p)
    for (int64_t k = 0; k < bins; ++k)
      total[static_cast<std::size_t>(k)] += local[static_cast<std::size_t>(p * bins + k)];
  return total;
}
}  // namespace

void histc(const TensorBase& hist, const TensorBase& in, double lo, double hi) {
  core::dispatch_floating(in.dtype(), [&]<class T>() {
    const T* x = in.data_ptr<T>();
    const int64_t bins = hist.numel();
    // PyTorch 1.13's edges are linspace(lo, hi, bins + 1) in T: its ends are lo and hi rounded to
    // T, and the bin is (x - lo) / (hi - lo) * bins in T, truncated (in that order: dividing last,
    // as later PyTorch versions do, moves some elements next to an edge); x == hi goes to the last
    // bin.
    const T left = static_cast<T>(lo), right = static_cast<T>(hi), width = right - left, nb = static_cast<T>(bins);
    const std::vector<int64_t> c = count(in.numel(), bins, [&](int64_t i) -> int64_t {
      const T v = x[i];
      if (!(v >= left && v <= right)) return -1;  // outside, or NaN
      const int64_t pos = static_cast<int64_t>((v - left) / width * nb);
      return std::min(pos, bins - 1);
    });
    T* h = hist.data_ptr<T>();
    for (int64_t k = 0; k < bins; ++k) h[k] = static_cast<T>(c[static_cast<std::size_t>(k)]);
  });
}

void bincount(const TensorBase& out, const TensorBase& in, const TensorBase& weights) {
  core::dispatch_dtype(in.dtype(), [&]<class I>() {
    if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool>) {
      const I* x = in.data_ptr<I>();
      const int64_t n = in.numel(), bins = out.numel();
      if (!weights.defined()) {
        const std::vector<int64_t> c = count(n, bins, [&](int64_t i) { return static_cast<int64_t>(x[i]); });
        std::copy(c.begin(), c.end(), out.data_ptr<int64_t>());
        return;
      }
      core::dispatch_floating(out.dtype(), [&]<class W>() {
        const W* w = weights.data_ptr<W>();
        W* o = out.data_ptr<W>();
        std::fill(o, o + bins, W(0));
        for (int64_t i = 0; i < n; ++i) o[x[i]] += w[i];
      });
    }
  });
}

}  // namespace ditto::cpu
