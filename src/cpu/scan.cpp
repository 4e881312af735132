// Scans: cumsum, cumprod, logcumsumexp, cummax, cummin and cumprod's gradient.
//
// Note [Scan order]
// Each output element is its line's running sum (product, log-sum-exp, extremum) from the line's
// first element, one element after another in index order (from the last one for a reverse scan),
// accumulated in double for floating dtypes and in 64-bit integers (wrapping) for integer ones,
// and rounded once to the output dtype. That is PyTorch's CPU order (cpu_cum_base_kernel with
// acc_type), so cumsum's, cumprod's, cummax's and cummin's results are PyTorch's bits, and
// logcumsumexp's are within the rounding of its exp and log1p (ditto's own, dmath; PyTorch's are
// the platform libm's). Threads take whole lines (chunks of the inner dim), never a part of one,
// so the bits do not depend on the thread count; there is no vector kernel, so none on the level.
#include "cpu/decl/scan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/parallel.h"
#include "cpu/dmath.h"

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

// The one loop of every scan. For each line (o, :, i) of a contiguous (outer, n, inner) shape:
// s = init, then visit(s, p, k) for k = 0 .. n - 1 (n - 1 .. 0 when reverse), p = (o n + k) inner
// + i the element's flat offset. Threads take whole rows (inner == 1) or chunks of kChunk lines.
template <class State, class Visit>
void for_each_line(const TensorBase& in, bool reverse, State init, Visit visit) {
  const int64_t outer = in.size(0), n = in.size(1), inner = in.size(2);
  if (inner == 1) {  // each line is a row: one tight loop per row
    detail::parallel_for(outer, n, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        State s = init;
        if (reverse)
          for (int64_t k = n - 1; k >= 0; --k) visit(s, o * n + k, k);
        else
          for (int64_t k = 0; k < n; ++k) visit(s, o * n + k, k);
      }
    });
    return;
  }
  const int64_t chunks = (inner + kChunk - 1) / kChunk;
  detail::parallel_for(outer * chunks, n * std::min(inner, kChunk), [&](int64_t b, int64_t e) {
    std::vector<State> st;
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / chunks, i0 = (t % chunks) * kChunk, i1 = std::min(inner, i0 + kChunk);
      st.assign(static_cast<std::size_t>(i1 - i0), init);
      for (int64_t s = 0; s < n; ++s) {
        const int64_t k = reverse ? n - 1 - s : s;
        const int64_t row = (o * n + k) * inner;
        for (int64_t i = i0; i < i1; ++i) visit(st[static_cast<std::size_t>(i - i0)], row + i, k);
      }
    }
  });
}

template <bool Product>
void scan(const TensorBase& out, const TensorBase& in, bool reverse) {
  core::dispatch_dtype(in.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      const T* x = in.data_ptr<T>();
      T* y = out.data_ptr<T>();
      for_each_line(in, reverse, Acc<T>(Product ? 1 : 0), [&](Acc<T>& a, int64_t p, int64_t) {
        if constexpr (Product)
          a *= static_cast<Acc<T>>(x[p]);
        else
          a += static_cast<Acc<T>>(x[p]);
        y[p] = from_acc<T>(a);
      });
    }
  });
}

// log(exp(x) + exp(y)) as PyTorch's _log_add_exp_helper: NaN propagates; two equal infinities
// give x (so -inf stays -inf and +inf + +inf is +inf, not NaN).
double log_add_exp(double x, double y) {
  const double lo = std::isnan(y) ? y : std::min(x, y);  // std::min/max return x when x is NaN
  const double hi = std::isnan(y) ? y : std::max(x, y);
  if (lo != hi || std::isfinite(lo)) return dmath::log1p(dmath::exp(lo - hi)) + hi;
  return x;
}

// cummax (Max) and cummin: the extremum so far and the index of its last occurrence; a NaN
// is the extremum from where it is (the last NaN's index), as PyTorch's cummax_cummin_helper.
template <bool Max>
void scan_extremum(const TensorBase& values, const TensorBase& indices, const TensorBase& in) {
  core::dispatch_dtype(in.dtype(), [&]<class T>() {
    const T* x = in.data_ptr<T>();
    T* v = values.data_ptr<T>();
    int64_t* ix = indices.data_ptr<int64_t>();
    struct Best {
      T value;
      int64_t index;
      bool any;
    };
    for_each_line(in, false, Best{T(), 0, false}, [&](Best& b, int64_t p, int64_t k) {
      const T xv = x[p];
      bool take = !b.any;
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(xv))
          take = true;
        else if (!take && !std::isnan(b.value))
          take = Max ? xv >= b.value : xv <= b.value;
      } else if (!take) {
        take = Max ? xv >= b.value : xv <= b.value;
      }
      if (take) b = Best{xv, k, true};
      v[p] = b.value;
      ix[p] = b.index;
    });
  });
}
}  // namespace

void cumsum(const TensorBase& out, const TensorBase& in, bool reverse) { scan<false>(out, in, reverse); }
void cumprod(const TensorBase& out, const TensorBase& in, bool reverse) { scan<true>(out, in, reverse); }

void logcumsumexp(const TensorBase& out, const TensorBase& in, bool reverse) {
  core::dispatch_floating(in.dtype(), [&]<class T>() {
    const T* x = in.data_ptr<T>();
    T* y = out.data_ptr<T>();
    for_each_line(in, reverse, -std::numeric_limits<double>::infinity(), [&](double& a, int64_t p, int64_t) {
      a = log_add_exp(static_cast<double>(x[p]), a);
      y[p] = static_cast<T>(a);
    });
  });
}

void cummax(const TensorBase& values, const TensorBase& indices, const TensorBase& in) {
  scan_extremum<true>(values, indices, in);
}
void cummin(const TensorBase& values, const TensorBase& indices, const TensorBase& in) {
  scan_extremum<false>(values, indices, in);
}

// d/dx_i of sum_j g_j prod_{k<=j} x_k is L_i R_i, with L_i = prod_{k<i} x_k (the exclusive
// running product) and R_i = g_i + x_{i+1} R_{i+1} (from the line's end; R_{n-1} = g_{n-1}): no
// division, so zeros in x need no special case. In double, per line, as Note [Scan order]: a
// reverse pass keeps R in a double buffer, then a forward pass multiplies it by L.
void cumprod_backward(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& in) {
  core::dispatch_floating(in.dtype(), [&]<class T>() {
    const T* x = in.data_ptr<T>();
    const T* g = grad_out.data_ptr<T>();
    T* gi = grad_in.data_ptr<T>();
    std::vector<double> r(static_cast<std::size_t>(in.numel()));  // R_i, each line's own slots
    struct Carry {
      double r;       // R_{k+1} (reverse pass) / L_k (forward pass)
      double x_next;  // x_{k+1} (reverse pass)
    };
    // R_{n-1} = g_{n-1} + 0 * -0, which is g_{n-1} bit for bit (a -0 gradient stays -0).
    for_each_line(in, true, Carry{-0.0, 0.0}, [&](Carry& c, int64_t p, int64_t) {
      const double rk = static_cast<double>(g[p]) + c.x_next * c.r;
      r[static_cast<std::size_t>(p)] = rk;
      c = Carry{rk, static_cast<double>(x[p])};
    });
    for_each_line(in, false, 1.0, [&](double& l, int64_t p, int64_t) {
      gi[p] = static_cast<T>(l * r[static_cast<std::size_t>(p)]);
      l *= static_cast<double>(x[p]);
    });
  });
}

}  // namespace ditto::cpu
