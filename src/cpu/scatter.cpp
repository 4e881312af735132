// Scatter-style kernels (several inputs may land on one output element). The Deterministic ones
// own their outputs: each element is written by one task, in index order (Note [Scatter lines];
// rows_ordered), so the bits depend only on the inputs. The Nondeterministic ones (atomic adds,
// racing writes) exist only for ops whose PyTorch CPU kernel races as well (op_table.def's
// policy); the dispatcher picks between them (ops/dispatch.h). Indices were checked by the public
// ops; racing writes go through relaxed atomics, so a race is never undefined behaviour.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "cpu/loops.h"
#include "ops/kernels.h"

namespace ditto::cpu {
namespace {

template <class T>
inline T plain_add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (std::is_integral_v<T>)  // wraps like the other integer ops, no UB
    return static_cast<T>(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
  else return a + b;
}

template <class T>
inline void atomic_add(T& dst, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    if (v) std::atomic_ref<bool>(dst).store(true, std::memory_order_relaxed);
  } else {
    std::atomic_ref<T>(dst).fetch_add(v, std::memory_order_relaxed);  // integers wrap
  }
}

template <class T>
inline void racing_store(T& dst, T v) {
  std::atomic_ref<T>(dst).store(v, std::memory_order_relaxed);
}

// Runs f on a contiguous tensor holding self's values, then writes them back if it was a copy.
template <class F>
void on_contiguous(const Tensor& self, F f) {
  if (self.is_contiguous()) return f(self);
  const Tensor tmp = self.contiguous();
  f(tmp);
  copy(self, tmp);
}

// self (contiguous) seen as (A, N, B) around dim; source as (A, n, B).
struct Rows {
  int64_t A = 1, N = 1, B = 1;
};
Rows rows_of(const Tensor& self, int64_t dim) {
  Rows r;
  if (self.dim() == 0) return r;
  for (int64_t d = 0; d < dim; ++d) r.A *= self.size(d);
  r.N = self.size(dim);
  for (int64_t d = dim + 1; d < self.dim(); ++d) r.B *= self.size(d);
  return r;
}

enum class RowOp { AtomicAdd, RacingStore, Add, Store };

// The setup both row kernels share: self made contiguous (written back after), source and
// index contiguous; then body<T>(dst, src, ip, r, n) with the row geometry and n = index length.
template <class Body>
void with_rows(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Body body) {
  on_contiguous(self, [&](const Tensor& dst_t) {
    const Rows r = rows_of(dst_t, dim);
    const Tensor src_t = source.contiguous();
    const Tensor idx = index.contiguous();
    with_index(idx, [&]<class I>() {
      dispatch_dtype(dst_t.dtype(), [&]<class T>() {
        body.template operator()<T>(static_cast<T*>(dst_t.raw_data()), static_cast<const T*>(src_t.raw_data()),
                                    idx.data_ptr<I>(), r, idx.numel());
      });
    });
  });
}

// Fast path: every (a, k) pair is an independent task; tasks that hit the same row race.
template <RowOp op>
void rows_parallel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  with_rows(self, dim, index, source, [&]<class T>(T* dst, const T* src, const auto* ip, const Rows& r, int64_t n) {
    detail::parallel_for(r.A * n, r.B, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const int64_t a = t / n, k = t % n;
        T* d = dst + (a * r.N + static_cast<int64_t>(ip[k])) * r.B;
        const T* s = src + (a * n + k) * r.B;
        for (int64_t i = 0; i < r.B; ++i) {
          if constexpr (op == RowOp::AtomicAdd) atomic_add(d[i], s[i]);
          else racing_store(d[i], s[i]);
        }
      }
    });
  });
}

// Owner computes: destination rows (a, j) are split among threads and each thread walks k in
// increasing order, applying only the updates to rows it owns. Every row therefore sees its
// updates in index order (adds in that order; the last write wins), whatever the thread count.
template <RowOp op>
void rows_ordered(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  with_rows(self, dim, index, source, [&]<class T>(T* dst, const T* src, const auto* ip, const Rows& r, int64_t n) {
    const int64_t cost = n * r.B / (r.N > 0 ? r.N : 1) + 1;
    detail::parallel_for(r.A * r.N, cost, [&](int64_t b, int64_t e) {
      for (int64_t a = b / r.N; a <= (e - 1) / r.N; ++a) {
        const int64_t jb = a == b / r.N ? b % r.N : 0;
        const int64_t je = a == (e - 1) / r.N ? (e - 1) % r.N + 1 : r.N;
        for (int64_t k = 0; k < n; ++k) {
          const int64_t j = static_cast<int64_t>(ip[k]);
          if (j < jb || j >= je) continue;
          T* d = dst + (a * r.N + j) * r.B;
          const T* s = src + (a * n + k) * r.B;
          for (int64_t i = 0; i < r.B; ++i) {
            if constexpr (op == RowOp::Add) d[i] = plain_add(d[i], s[i]);
            else d[i] = s[i];
          }
        }
      }
    });
  });
}

// Note [Scatter lines]
// ---------------------
// scatter_add_ and scatter_reduce see index as lines: positions that differ only in their
// coordinate along dim. A line's updates land in self's line with the same other coordinates, so
// two lines never touch one element, and inside a line the positions are taken in increasing k,
// which is the row-major order of the serial definition for every element of self. Lines are
// owned by tasks; when there are fewer lines than threads, a line is also cut by destination
// (parts of self's dim), and the task owning a part scans the whole line and applies only the
// updates that land in its part. Every element therefore sees its updates in the serial order,
// whatever the thread count or the cut: the same bits as PyTorch's CPU kernel, which walks each
// line serially too.
struct Lines {
  int64_t count = 1;  // number of lines
  int64_t n = 1;      // positions per line (index.size(dim))
  int64_t size = 1;   // self.size(dim): the destinations of a line
  int64_t istep = 0, sstep = 0, dstep = 0;  // strides along dim of index, src and self
};

// f(line_offsets{index, src, self}, jb, je) for each task; f applies the updates whose
// destination j along dim lies in [jb, je).
template <class F>
void for_each_line(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, F f) {
  const int64_t nd = index.dim();
  Lines L;
  if (nd > 0) {
    L.n = index.size(dim);
    L.size = self.size(dim);
    L.istep = index.stride(dim);
    L.sstep = src.stride(dim);
    L.dstep = self.stride(dim);
    for (int64_t d = 0; d < nd; ++d)
      if (d != dim) L.count *= index.size(d);
  }
  if (L.count == 0 || L.n == 0) return;
  const int threads = detail::num_threads();
  const int64_t parts =
      L.count >= threads ? 1 : std::max<int64_t>(1, std::min<int64_t>(L.size, (threads + L.count - 1) / L.count));
  detail::parallel_for(L.count * parts, L.n + 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t line = t / parts, part = t % parts;
      std::array<int64_t, 3> off{0, 0, 0};
      for (int64_t d = nd - 1, r = line; d >= 0; --d) {
        if (d == dim) continue;
        const int64_t p = r % index.size(d);
        r /= index.size(d);
        off[0] += p * index.stride(d);
        off[1] += p * src.stride(d);
        off[2] += p * self.stride(d);
      }
      f(L, off, part * L.size / parts, (part + 1) * L.size / parts);
    }
  });
}

template <class T>
inline T reduce_identity(ScatterReduction r) {
  if constexpr (std::is_same_v<T, bool>) {
    return r == ScatterReduction::Amin;
  } else {
    using Lim = std::numeric_limits<T>;
    if (r == ScatterReduction::Amax) return Lim::has_infinity ? -Lim::infinity() : Lim::lowest();
    if (r == ScatterReduction::Amin) return Lim::has_infinity ? Lim::infinity() : Lim::max();
    return T(0);
  }
}

// PyTorch's CPU rule: a NaN from src wins, and a NaN already there stays.
template <class T>
inline T combine(ScatterReduction r, T cur, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return r == ScatterReduction::Amin ? (cur && v) : (cur || v);
  } else {
    if (r == ScatterReduction::Sum || r == ScatterReduction::Mean) return plain_add(cur, v);
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(v)) return v;
    if (r == ScatterReduction::Amax) return cur < v ? v : cur;
    return v < cur ? v : cur;
  }
}

// mean: self[i] / count[i] (floor division for integers, as PyTorch's), elementwise.
template <class T>
void divide_by_count(T* dst, const std::vector<int64_t>& count) {
  detail::parallel_for(static_cast<int64_t>(count.size()), 4, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t c = count[static_cast<std::size_t>(i)];
      if (c <= 1) continue;
      if constexpr (std::is_floating_point_v<T>) {
        dst[i] = dst[i] / static_cast<T>(c);
      } else if constexpr (!std::is_same_v<T, bool>) {
        const int64_t v = static_cast<int64_t>(dst[i]);
        int64_t q = v / c;
        if (v % c != 0 && v < 0) --q;
        dst[i] = static_cast<T>(q);
      }
    }
  });
}

}  // namespace

// Nondeterministic: parallel over (slice, k) with atomic adds.
void index_add_atomic(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  rows_parallel<RowOp::AtomicAdd>(self, dim, index, source);
}
// Deterministic: owner computes, adds in increasing k.
void index_add_ordered(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  rows_ordered<RowOp::Add>(self, dim, index, source);
}
// Nondeterministic: parallel writes; with duplicate indices the winner depends on timing.
void index_copy_racing(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  rows_parallel<RowOp::RacingStore>(self, dim, index, source);
}
// Deterministic: owner computes in increasing k, so the last duplicate wins (PyTorch's serial path).
void index_copy_ordered(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  rows_ordered<RowOp::Store>(self, dim, index, source);
}

// Deterministic: owner computes over lines, in index order (Note [Scatter lines]).
void scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  scatter_reduce(self, dim, index, src, ScatterReduction::Sum, true);
}

// Deterministic: owner computes over lines, in index order (Note [Scatter lines]). self is
// written in place; mean counts per element of a contiguous self.
void scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduction reduce,
                    bool include_self) {
  on_contiguous(self, [&](const Tensor& out) {
    dispatch_dtype(out.dtype(), [&]<class T>() {
      T* dst = static_cast<T*>(out.raw_data());
      const T* sp = static_cast<const T*>(src.raw_data());
      const int64_t* ip = static_cast<const int64_t*>(index.raw_data());
      std::vector<int64_t> count;
      if (reduce == ScatterReduction::Mean) count.assign(static_cast<std::size_t>(out.numel()), include_self ? 1 : 0);
      for_each_line(out, dim, index, src, [&](const Lines& L, const std::array<int64_t, 3>& off, int64_t jb, int64_t je) {
        const int64_t* il = ip + off[0];
        const T* sl = sp + off[1];
        T* dl = dst + off[2];
        if (!include_self) {  // positions that receive a value start from the identity
          const T init = reduce_identity<T>(reduce);
          for (int64_t k = 0; k < L.n; ++k) {
            const int64_t j = il[k * L.istep];
            if (j >= jb && j < je) dl[j * L.dstep] = init;
          }
        }
        for (int64_t k = 0; k < L.n; ++k) {
          const int64_t j = il[k * L.istep];
          if (j < jb || j >= je) continue;
          T& d = dl[j * L.dstep];
          d = combine(reduce, d, sl[k * L.sstep]);
          if (!count.empty()) ++count[static_cast<std::size_t>(off[2] + j * L.dstep)];
        }
      });
      if (!count.empty()) divide_by_count(dst, count);
    });
  });
}

}  // namespace ditto::cpu
