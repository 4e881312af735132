// gather and the scatter-style kernels (several inputs may land on one output element). Every
// kernel owns its outputs: each element is written by one task, in index order (Note [Scatter
// lines]; rows_ordered), so the bits depend only on the inputs, with or without deterministic
// mode. (Racing and atomic kernels for index_copy_, index_put_ and put_, as PyTorch's CPU has,
// were measured slower than these on every workload of bench/README.md and were removed.)
// gather, scatter_add_ and scatter_reduce check their indices as they go (a compare beside the
// load they make anyway, as PyTorch's kernels do): an index outside [0, size) is never used, and
// the kernel returns false so that the public op reports it. The other kernels' indices were
// checked by the public ops.
#include "cpu/decl/scatter.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "cpu/decl/elementwise.h"
#include "cpu/loops.h"
#include "ditto/tensor.h"  // contiguous copies of strided arguments

namespace ditto::cpu {
namespace {

template <class T>
inline T plain_add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a || b;
  else if constexpr (std::is_integral_v<T>)  // wraps like the other integer ops, no UB
    return static_cast<T>(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
  else
    return a + b;
}

// i in [0, size), with one unsigned compare (negatives wrap to huge values).
template <class I>
inline bool in_range(I i, int64_t size) {
  return static_cast<uint64_t>(static_cast<int64_t>(i)) < static_cast<uint64_t>(size);
}

// Runs f on a contiguous tensor holding self's values, then writes them back if it was a copy.
template <class F>
void on_contiguous(const TensorBase& self, F f) {
  if (self.is_contiguous()) return f(self);
  const Tensor tmp = Tensor(self).contiguous();
  f(tmp);
  copy(self, tmp);
}

// self (contiguous) seen as (A, N, B) around dim; source as (A, n, B).
struct Rows {
  int64_t A = 1, N = 1, B = 1;
};
Rows rows_of(const TensorBase& self, int64_t dim) {
  Rows r;
  if (self.dim() == 0) return r;
  for (int64_t d = 0; d < dim; ++d) r.A *= self.size(d);
  r.N = self.size(dim);
  for (int64_t d = dim + 1; d < self.dim(); ++d) r.B *= self.size(d);
  return r;
}

enum class RowOp { Add, Store };

// The setup both row kernels share: self made contiguous (written back after), source and
// index contiguous; then body<T>(dst, src, ip, r, n) with the row geometry and n = index length.
template <class Body>
void with_rows(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source, Body body) {
  on_contiguous(self, [&](const TensorBase& dst_t) {
    const Rows r = rows_of(dst_t, dim);
    const Tensor src_t = Tensor(source).contiguous();
    const Tensor idx = Tensor(index).contiguous();
    with_index(idx, [&]<class I>() {
      dispatch_dtype(dst_t.dtype(), [&]<class T>() {
        body.template operator()<T>(static_cast<T*>(dst_t.raw_data()), static_cast<const T*>(src_t.raw_data()),
                                    idx.data_ptr<I>(), r, idx.numel());
      });
    });
  });
}

// Owner computes: destination rows (a, j) are split among threads and each thread walks k in
// increasing order, applying only the updates to rows it owns. Every row therefore sees its
// updates in index order (adds in that order; the last write wins), whatever the thread count.
template <RowOp op>
void rows_ordered(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source) {
  with_rows(self, dim, index, source, [&]<class T>(T* dst, const T* src, const auto* ip, const Rows& r, int64_t n) {
    // Rows narrower than kMinRow run on one thread: every thread would scan the whole index for
    // a few elements per update, which measured slower on 2 threads than on 1.
    constexpr int64_t kMinRow = 16;
    if (r.A * r.N == 0 || n == 0) return;
    const auto body = [&](int64_t b, int64_t e) {
      for (int64_t a = b / r.N; a <= (e - 1) / r.N; ++a) {
        const int64_t jb = a == b / r.N ? b % r.N : 0;
        const int64_t je = a == (e - 1) / r.N ? (e - 1) % r.N + 1 : r.N;
        T* drow = dst + a * r.N * r.B;
        const T* srow = src + a * n * r.B;
        auto apply = [&](T& d, T s) {
          if constexpr (op == RowOp::Add)
            d = plain_add(d, s);
          else
            d = s;
        };
        if (r.B == 1 && jb == 0 && je == r.N) {  // one element per row (1-D self, put_), all rows
          for (int64_t k = 0; k < n; ++k) apply(drow[ip[k]], srow[k]);
          continue;
        }
        for (int64_t k = 0; k < n; ++k) {
          const int64_t j = static_cast<int64_t>(ip[k]);
          if (j < jb || j >= je) continue;
          T* d = drow + j * r.B;
          const T* s = srow + k * r.B;
          for (int64_t i = 0; i < r.B; ++i) apply(d[i], s[i]);
        }
      }
    };
    if (r.B < kMinRow)
      body(0, r.A * r.N);
    else
      detail::parallel_for(r.A * r.N, n * r.B / (r.N > 0 ? r.N : 1) + 1, body);
  });
}

// Note [Scatter lines]
// ---------------------
// scatter_add_ and scatter_reduce see index as lines: positions that differ only in their
// coordinate k along dim. A line's updates land in self's line with the same other coordinates,
// so two lines never touch one element, and inside a line the positions are taken in increasing
// k, which is the row-major order of the serial definition for every element of self. Tasks own
// blocks of lines side by side along the last dim (when it is not dim) and walk k outside, the
// block inside, so memory is read in runs, as PyTorch's kernel does; each line still sees its k
// in increasing order, whatever the thread count or the blocking: the same bits as PyTorch's CPU
// kernel, which walks each line serially too. A single line (a 1-D index) runs on one thread.
// (Cutting a line's destinations among threads, each scanning the whole line, was measured
// slower on 2 threads than on 1: bench/README.md, "Scatter-style ops".)
struct Lines {
  int64_t n = 1;                         // positions per line (index.size(dim))
  int64_t size = 1;                      // self.size(dim): the destinations of a line
  int64_t width = 1;                     // lines side by side in a block (the last dim's size when it is not dim)
  std::array<int64_t, 3> step{0, 0, 0};  // strides along dim of index, src and self
  std::array<int64_t, 3> side{0, 0, 0};  // strides along the last dim (between lines of a block)
};

// f(L, offsets of the block's first line {index, src, self}, w, kb, ke) for each task: the block
// holds lines [0, w) at L.side apart; f applies their updates for k in [kb, ke), k outside and the
// block's lines inside. Scatters get every k in one task; split_k (gather, whose outputs are all
// distinct) also cuts k into ranges when there are fewer blocks than threads.
template <class F>
void for_each_line_block(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src, F f,
                         bool split_k = false) {
  constexpr int64_t kBlock = 512;  // lines per block at most
  const int64_t nd = index.dim();
  const std::array<const TensorBase*, 3> ts{&index, &src, &self};
  Lines L;
  int64_t outer = 1;  // lines not in the block dim
  const int64_t last = nd - 1;
  if (nd > 0) {
    L.n = index.size(dim);
    L.size = self.size(dim);
    for (int k = 0; k < 3; ++k) L.step[k] = ts[k]->stride(dim);
    for (int64_t d = 0; d < nd; ++d)
      if (d != dim && d != last) outer *= index.size(d);
    if (last != dim) {
      L.width = index.size(last);
      for (int k = 0; k < 3; ++k) L.side[k] = ts[k]->stride(last);
    }
  }
  if (outer == 0 || L.width == 0 || L.n == 0) return;
  // blocks of at most kBlock lines, narrower when that gives every thread a block
  const int threads = detail::num_threads();
  const int64_t bw = std::min(kBlock, std::max<int64_t>(1, (L.width + threads - 1) / threads));
  const int64_t blocks_per_row = (L.width + bw - 1) / bw;
  const int64_t blocks = outer * blocks_per_row;
  const int64_t kparts = split_k && blocks < threads ? std::min<int64_t>(L.n, (threads + blocks - 1) / blocks) : 1;
  detail::parallel_for(blocks * kparts, (L.n + kparts - 1) / kparts * bw + 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t block = t / kparts, kpart = t % kparts;
      const int64_t row = block / blocks_per_row, c0 = (block % blocks_per_row) * bw;
      std::array<int64_t, 3> off{0, 0, 0};
      for (int k = 0; k < 3; ++k) off[k] = c0 * L.side[k];
      for (int64_t d = last - 1, r = row; d >= 0; --d) {
        if (d == dim) continue;
        const int64_t p = r % index.size(d);
        r /= index.size(d);
        for (int k = 0; k < 3; ++k) off[k] += p * ts[k]->stride(d);
      }
      f(L, off, std::min(bw, L.width - c0), kpart * L.n / kparts, (kpart + 1) * L.n / kparts);
    }
  });
}

template <class T>
inline T reduce_identity(ScatterReduction r) {
  if constexpr (std::is_same_v<T, bool>) {
    return r == ScatterReduction::Amin || r == ScatterReduction::Prod;
  } else {
    if (r == ScatterReduction::Prod) return T(1);
    using Lim = std::numeric_limits<T>;
    if (r == ScatterReduction::Amax) return Lim::has_infinity ? -Lim::infinity() : Lim::lowest();
    if (r == ScatterReduction::Amin) return Lim::has_infinity ? Lim::infinity() : Lim::max();
    return T(0);
  }
}

// PyTorch's CPU rule: a NaN from src wins, and a NaN already there stays.
template <class T>
inline T combine(ScatterReduction r, T cur, T v) {
  if (r == ScatterReduction::Replace) return v;
  if constexpr (std::is_same_v<T, bool>) {
    return r == ScatterReduction::Amin || r == ScatterReduction::Prod ? (cur && v) : (cur || v);
  } else {
    if (r == ScatterReduction::Sum || r == ScatterReduction::Mean) return plain_add(cur, v);
    if (r == ScatterReduction::Prod) {
      if constexpr (std::is_integral_v<T>)  // wraps, no UB
        return static_cast<T>(std::make_unsigned_t<T>(cur) * std::make_unsigned_t<T>(v));
      else
        return cur * v;
    }
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

// Owner computes, adds in increasing k (index_add_, index_put_ and put_ with accumulate).
void index_add_ordered(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source) {
  rows_ordered<RowOp::Add>(self, dim, index, source);
}
// Owner computes in increasing k, so the last duplicate wins (PyTorch's serial path).
void index_copy_ordered(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source) {
  rows_ordered<RowOp::Store>(self, dim, index, source);
}

// out[... k ...] = in[... index[... k ...] ...] along dim: the lines of Note [Scatter lines],
// read in runs; every output element is written once, so k is cut among threads too.
bool gather(const TensorBase& out, const TensorBase& in, int64_t dim, const TensorBase& index) {
  std::atomic<bool> bad{false};
  with_index(index, [&]<class I>() {
    dispatch_dtype(in.dtype(), [&]<class T>() {
      const T* src = static_cast<const T*>(in.raw_data());
      T* dst = static_cast<T*>(out.raw_data());
      const I* ip = static_cast<const I*>(index.raw_data());
      for_each_line_block(
          in, dim, index, out,
          [&](const Lines& L, const std::array<int64_t, 3>& off, int64_t w, int64_t kb, int64_t ke) {
            const I* il = ip + off[0];
            T* ol = dst + off[1];
            const T* sl = src + off[2];
            const int64_t is = L.step[0], ic = L.side[0], os = L.step[1], oc = L.side[1], ss = L.step[2],
                          sc = L.side[2];
            bool out_of_range = false;
            auto read = [&](I i, int64_t c) {  // an index outside [0, size) reads nothing and is reported
              if (in_range(i, L.size)) return sl[static_cast<int64_t>(i) * ss + c * sc];
              out_of_range = true;
              return T{};
            };
            if (w == 1) {  // dim is the last dim: one line
              for (int64_t k = kb; k < ke; ++k) ol[k * os] = read(il[k * is], 0);
            } else {
              for (int64_t k = kb; k < ke; ++k)
                for (int64_t c = 0; c < w; ++c) ol[k * os + c * oc] = read(il[k * is + c * ic], c);
            }
            if (out_of_range) bad.store(true, std::memory_order_relaxed);
          },
          /*split_k=*/true);
    });
  });
  return !bad.load();
}

// Deterministic: owner computes over lines, in index order (Note [Scatter lines]).
bool scatter_add(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src) {
  return scatter_reduce(self, dim, index, src, ScatterReduction::Sum, true);
}

// Deterministic: owner computes over lines, in index order (Note [Scatter lines]). self is
// written in place; mean counts per element of a contiguous self.
bool scatter_reduce(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src,
                    ScatterReduction reduce, bool include_self) {
  std::atomic<bool> bad{false};
  on_contiguous(self, [&](const TensorBase& out) {
    dispatch_dtype(out.dtype(), [&]<class T>() {
      T* dst = static_cast<T*>(out.raw_data());
      const T* sp = static_cast<const T*>(src.raw_data());
      const int64_t* ip = static_cast<const int64_t*>(index.raw_data());
      std::vector<int64_t> count;
      if (reduce == ScatterReduction::Mean) count.assign(static_cast<std::size_t>(out.numel()), include_self ? 1 : 0);
      auto run = [&]<ScatterReduction R>() {  // the reduction fixed at compile time
        int64_t* cnt = R == ScatterReduction::Mean ? count.data() : nullptr;
        for_each_line_block(out, dim, index, src,
                            [&](const Lines& L, const std::array<int64_t, 3>& off, int64_t w, int64_t, int64_t) {
                              const int64_t* il = ip + off[0];
                              const int64_t is = L.step[0], ic = L.side[0];
                              const T* sl = sp + off[1];
                              const int64_t ss = L.step[1], sc = L.side[1];
                              T* dl = dst + off[2];
                              const int64_t ds = L.step[2], dc = L.side[2];
                              bool out_of_range = false;  // such an index is skipped and reported
                              if (!include_self) {        // positions that receive a value start from the identity
                                const T init = reduce_identity<T>(R);
                                for (int64_t k = 0; k < L.n; ++k)
                                  for (int64_t c = 0; c < w; ++c) {
                                    const int64_t j = il[k * is + c * ic];
                                    if (in_range(j, L.size)) dl[j * ds + c * dc] = init;
                                  }
                              }
                              auto update = [&](int64_t j, int64_t c, T v) {
                                if (!in_range(j, L.size)) {
                                  out_of_range = true;
                                  return;
                                }
                                const int64_t o = j * ds + c * dc;
                                dl[o] = combine(R, dl[o], v);
                                if constexpr (R == ScatterReduction::Mean) ++cnt[off[2] + o];
                              };
                              if (w == 1) {  // dim is the last dim: one line, walked along k
                                for (int64_t k = 0; k < L.n; ++k) update(il[k * is], 0, sl[k * ss]);
                              } else {
                                for (int64_t k = 0; k < L.n; ++k)
                                  for (int64_t c = 0; c < w; ++c) update(il[k * is + c * ic], c, sl[k * ss + c * sc]);
                              }
                              if (out_of_range) bad.store(true, std::memory_order_relaxed);
                            });
      };
      switch (reduce) {
        case ScatterReduction::Sum: run.template operator()<ScatterReduction::Sum>(); break;
        case ScatterReduction::Prod: run.template operator()<ScatterReduction::Prod>(); break;
        case ScatterReduction::Mean: run.template operator()<ScatterReduction::Mean>(); break;
        case ScatterReduction::Amax: run.template operator()<ScatterReduction::Amax>(); break;
        case ScatterReduction::Amin: run.template operator()<ScatterReduction::Amin>(); break;
        case ScatterReduction::Replace: run.template operator()<ScatterReduction::Replace>(); break;
      }
      if (!count.empty()) divide_by_count(dst, count);
    });
  });
  return !bad.load();
}

}  // namespace ditto::cpu
