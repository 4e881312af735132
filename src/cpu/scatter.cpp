// Scatter-style kernels (several inputs may land on one output element), in pairs: a fast
// parallel kernel whose result depends on timing (atomic adds, racing writes), declared
// Nondeterministic in the op table, and a Deterministic one whose result depends only on the
// inputs. The dispatcher picks between them (ops/dispatch.h). Indices were checked by the public
// ops; racing writes go through relaxed atomics, so a race is never undefined behaviour.
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

// Positions p in [b, e) of index, in row-major order: f(offset in self, offset in src).
template <class F>
void walk_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t b, int64_t e,
                  F f) {
  const int64_t nd = index.dim();
  const Shape& sz = index.sizes();
  const int64_t* ip = static_cast<const int64_t*>(index.raw_data());
  Shape pos(nd, 0);
  for (int64_t d = nd - 1, r = b; d >= 0; --d) {
    pos[d] = r % sz[d];
    r /= sz[d];
  }
  for (int64_t flat = b; flat < e; ++flat) {
    int64_t io = 0, so = 0, doff = 0;
    for (int64_t d = 0; d < nd; ++d) {
      io += pos[d] * index.stride(d);
      so += pos[d] * src.stride(d);
    }
    const int64_t j = ip[io];
    for (int64_t d = 0; d < nd; ++d) doff += (d == dim ? j : pos[d]) * self.stride(d);
    f(doff, so);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++pos[d] < sz[d]) break;
      pos[d] = 0;
    }
  }
}

template <class T>
inline T reduce_identity(ScatterReduction r) {
  if constexpr (std::is_same_v<T, bool>) {
    return r == ScatterReduction::Amin;
  } else {
    using L = std::numeric_limits<T>;
    if (r == ScatterReduction::Amax) return L::has_infinity ? -L::infinity() : L::lowest();
    if (r == ScatterReduction::Amin) return L::has_infinity ? L::infinity() : L::max();
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

template <class T>
inline void atomic_combine(ScatterReduction r, T& dst, T v) {
  if (r == ScatterReduction::Sum || r == ScatterReduction::Mean) return atomic_add(dst, v);
  std::atomic_ref<T> ref(dst);
  T cur = ref.load(std::memory_order_relaxed);
  for (;;) {
    const T next = combine(r, cur, v);
    if (std::memcmp(&next, &cur, sizeof(T)) == 0) return;
    if (ref.compare_exchange_weak(cur, next, std::memory_order_relaxed)) return;
  }
}

template <bool Parallel>
void scatter_reduce_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                         ScatterReduction reduce, bool include_self) {
  on_contiguous(self, [&](const Tensor& out) {
    const int64_t n = index.numel();
    auto run = [&](auto&& body) {
      if constexpr (Parallel) detail::parallel_for(n, 2 * index.dim() + 2, body);
      else body(0, n);
    };
    dispatch_dtype(out.dtype(), [&]<class T>() {
      T* dst = static_cast<T*>(out.raw_data());
      const T* sp = static_cast<const T*>(src.raw_data());
      if (!include_self) {  // scattered-to positions start from the identity (all writers agree)
        const T init = reduce_identity<T>(reduce);
        run([&](int64_t b, int64_t e) {
          walk_scatter(out, dim, index, src, b, e, [&](int64_t d, int64_t) { racing_store(dst[d], init); });
        });
      }
      std::vector<int64_t> count;
      if (reduce == ScatterReduction::Mean) count.assign(static_cast<std::size_t>(out.numel()), include_self ? 1 : 0);
      run([&](int64_t b, int64_t e) {
        walk_scatter(out, dim, index, src, b, e, [&](int64_t d, int64_t s) {
          if constexpr (Parallel) atomic_combine(reduce, dst[d], sp[s]);
          else dst[d] = combine(reduce, dst[d], sp[s]);
          if (!count.empty()) {
            if constexpr (Parallel) atomic_add(count[static_cast<std::size_t>(d)], int64_t{1});
            else ++count[static_cast<std::size_t>(d)];
          }
        });
      });
      if (count.empty()) return;
      // mean: divide by the count (elementwise, each element owned by one thread)
      detail::parallel_for(out.numel(), 4, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          const int64_t c = count[static_cast<std::size_t>(i)];
          if (c <= 1) continue;
          if constexpr (std::is_floating_point_v<T>) {
            dst[i] = dst[i] / static_cast<T>(c);
          } else if constexpr (!std::is_same_v<T, bool>) {  // floor division, as PyTorch's
            const int64_t v = static_cast<int64_t>(dst[i]);
            int64_t q = v / c;
            if (v % c != 0 && v < 0) --q;
            dst[i] = static_cast<T>(q);
          }
        }
      });
    });
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

// Deterministic: one thread walks the index in row-major order.
void scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  dispatch_dtype(self.dtype(), [&]<class T>() {
    T* dst = static_cast<T*>(self.raw_data());
    const T* sp = static_cast<const T*>(src.raw_data());
    walk_scatter(self, dim, index, src, 0, index.numel(),
                 [&](int64_t d, int64_t s) { dst[d] = plain_add(dst[d], sp[s]); });
  });
}

// Nondeterministic: parallel over index positions with atomic adds.
void scatter_add_atomic(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  on_contiguous(self, [&](const Tensor& out) {
    dispatch_dtype(out.dtype(), [&]<class T>() {
      T* dst = static_cast<T*>(out.raw_data());
      const T* sp = static_cast<const T*>(src.raw_data());
      detail::parallel_for(index.numel(), 2 * index.dim() + 2, [&](int64_t b, int64_t e) {
        walk_scatter(out, dim, index, src, b, e, [&](int64_t d, int64_t s) { atomic_add(dst[d], sp[s]); });
      });
    });
  });
}

void scatter_reduce_atomic(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           ScatterReduction reduce, bool include_self) {
  scatter_reduce_impl<true>(self, dim, index, src, reduce, include_self);
}
void scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduction reduce,
                    bool include_self) {
  scatter_reduce_impl<false>(self, dim, index, src, reduce, include_self);
}

}  // namespace ditto::cpu
