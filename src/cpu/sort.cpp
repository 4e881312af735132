// Ordering kernels: sort, topk, kthvalue, median, nanmedian and mode, one line (a row of a contiguous
// (M, n) tensor) at a time; threads take whole rows, so nothing depends on the thread count, and
// there is no vector kernel, so nothing on the level.
//
// Note [Ordering ties]
// Where values tie, which index an op reports is part of its result. Each op here makes PyTorch
// 1.13's CPU choice, by running the same algorithm with the same comparison:
// - sort with stable: ties keep index order. Without stable: std::sort of (value, index) pairs
//   compared by value alone, as PyTorch's kernel does; NaN sorts above every number.
// - topk: PyTorch's selection, std::partial_sort when k * 64 <= n, else std::nth_element at k - 1
//   then (sorted) std::sort of the k - 1 before it, NaN counting as the largest. Sorted, when the k
//   values found by partial_sort are distinct and strictly ahead of the rest, they are the only
//   answer and are kept (checked per line; PyTorch's selection otherwise).
// - kthvalue: PyTorch's quickselect (Sedgewick's, median of three), NaN the largest.
// - median / nanmedian along a dim: the element of rank (n - 1) / 2 (of the non-NaN ones) with ties
//   broken by index, so any selection algorithm gives it; median reports the first NaN of a line
//   with one; nanmedian of a line of NaNs takes std::nth_element's pick, as PyTorch's.
// - mode: PyTorch's std::sort of (value, index) pairs, then the end of the first longest run.
// The std:: algorithms are libstdc++'s templates, compiled into ditto: one build gives one answer
// on every machine, and it is the answer of PyTorch built with the same library (Debian's 1.13).
#include "cpu/decl/sort.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/parallel.h"

namespace ditto::cpu {
namespace {

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}
// a before b in ascending order (NaN last) / descending order (NaN first); values only.
template <class T>
bool less_nan_last(T a, T b) {
  return (!is_nan(a) && is_nan(b)) || a < b;
}
template <class T>
bool greater_nan_first(T a, T b) {
  return (is_nan(a) && !is_nan(b)) || a > b;
}

// f(row, scratch) for each row of the (M, n) input, whole rows per task; a task's rows share one
// Scratch (a buffer resized per row, so allocated once per task).
template <class Scratch, class F>
void for_rows(int64_t M, int64_t n, F f) {
  detail::parallel_for(M, std::max<int64_t>(n, 1) * 8, [&](int64_t b, int64_t e) {
    Scratch scratch;
    for (int64_t r = b; r < e; ++r) f(r, scratch);
  });
}
// A line as (value, index) pairs; the index is int32 when the line is short enough, which halves
// the memory a float line moves and changes no comparison, so no result.
template <class T, class I = int64_t>
using Pairs = std::vector<std::pair<T, I>>;
template <class F>
void with_index_type(int64_t n, F f) {
  if (n <= std::numeric_limits<int32_t>::max())
    f.template operator()<int32_t>();
  else
    f.template operator()<int64_t>();
}

// run(before) with the (value, index) comparison "a before b": NaN first when Descending (the
// largest), last otherwise. A line without NaN gets the plain > or <, which answers every
// comparison the same way, so the algorithm takes the same steps: the same result, faster.
template <bool Descending, class T, class I, class Run>
void with_order(const Pairs<T, I>& line, Run run) {
  const bool nan = std::any_of(line.begin(), line.end(), [](const auto& p) { return is_nan(p.first); });
  if (nan) {
    if constexpr (Descending)
      run([](const auto& a, const auto& b) { return greater_nan_first(a.first, b.first); });
    else
      run([](const auto& a, const auto& b) { return less_nan_last(a.first, b.first); });
  } else {
    if constexpr (Descending)
      run([](const auto& a, const auto& b) { return a.first > b.first; });
    else
      run([](const auto& a, const auto& b) { return a.first < b.first; });
  }
}

// Sedgewick's quickselect (as PyTorch's kthvalue): afterwards v[k] is the element of rank k
// under gt's order, ix moved with v.
template <class T, class Gt>
void quick_select(T* v, int64_t* ix, int64_t n, int64_t k, Gt gt) {
  auto swap = [&](int64_t a, int64_t b) {
    std::swap(v[a], v[b]);
    std::swap(ix[a], ix[b]);
  };
  int64_t lo = 0, hi = n - 1;
  while (hi > lo) {
    if (hi == lo + 1) {
      if (gt(v[lo], v[hi])) swap(lo, hi);
      return;
    }
    swap((lo + hi) >> 1, lo + 1);  // median of three: v[lo + 1] <= v[lo] <= v[hi]
    if (gt(v[lo + 1], v[hi])) swap(lo + 1, hi);
    if (gt(v[lo], v[hi])) swap(lo, hi);
    if (gt(v[lo + 1], v[lo])) swap(lo + 1, lo);
    const T pivot = v[lo];
    int64_t i = lo + 1, j = hi;
    while (true) {  // the sentinels v[lo + 1] and v[hi] stop both scans
      do ++i;
      while (gt(pivot, v[i]));
      do --j;
      while (gt(v[j], pivot));
      if (j < i) break;
      swap(i, j);
    }
    swap(lo, j);
    if (j <= k) lo = i;
    if (j >= k) hi = j - 1;
  }
}
}  // namespace

namespace {
// The line kernels of sort, topk and mode: each row r of in as (value, index) pairs,
// select(line, before) reorders it with before, the order with_order gives (Descending: largest
// first), then write(r, line, values, indices) stores the row's result (typed pointers).
template <class Select, class Write>
void pair_rows(const TensorBase& values, const TensorBase& indices, const TensorBase& in, bool descending,
               Select select, Write write) {
  core::dispatch_dtype(in.dtype(), [&]<class T>() {
    const int64_t M = in.size(0), n = in.size(1);
    const T* x = in.data_ptr<T>();
    T* v = values.data_ptr<T>();
    int64_t* ix = indices.data_ptr<int64_t>();
    with_index_type(n, [&]<class I>() {
      for_rows<Pairs<T, I>>(M, n, [&](int64_t r, Pairs<T, I>& line) {
        line.resize(static_cast<std::size_t>(n));
        for (int64_t k = 0; k < n; ++k) line[static_cast<std::size_t>(k)] = {x[r * n + k], static_cast<I>(k)};
        auto run = [&](auto before) { select(line, before); };
        descending ? with_order<true>(line, run) : with_order<false>(line, run);
        write(r, line, v, ix);
      });
    });
  });
}
// sort and topk: the first m pairs to row r of values and indices (M, m).
template <class Select>
void select_rows(const TensorBase& values, const TensorBase& indices, const TensorBase& in, int64_t m, bool descending,
                 Select select) {
  pair_rows(values, indices, in, descending, select, [m](int64_t r, const auto& line, auto* v, int64_t* ix) {
    for (int64_t k = 0; k < m; ++k) {
      v[r * m + k] = line[static_cast<std::size_t>(k)].first;
      ix[r * m + k] = line[static_cast<std::size_t>(k)].second;
    }
  });
}
}  // namespace

void sort(const TensorBase& values, const TensorBase& indices, const TensorBase& in, bool descending, bool stable) {
  select_rows(values, indices, in, in.size(1), descending, [&](auto& line, auto before) {
    if (stable)
      std::stable_sort(line.begin(), line.end(), before);
    else
      std::sort(line.begin(), line.end(), before);
  });
}

void topk(const TensorBase& values, const TensorBase& indices, const TensorBase& in, int64_t k, bool largest,
          bool sorted) {
  if (k == 0) return;
  const int64_t n = in.size(1);
  select_rows(values, indices, in, k, largest, [&](auto& q, auto before) {
    if (k * 64 <= n) {
      std::partial_sort(q.begin(), q.begin() + k, q.end(), before);
    } else if (sorted && k < n) {
      // Sorted output of k values that are distinct and strictly ahead of every other value is
      // the same whatever the algorithm: find it with partial_sort (a k-heap, most elements
      // rejected by one comparison) and keep it when that holds; else put the line back in index
      // order and run PyTorch's selection on it.
      std::partial_sort(q.begin(), q.begin() + k, q.end(), before);
      bool unique = true;
      for (int64_t i = 0; i + 1 < k && unique; ++i) unique = before(q[i], q[i + 1]);
      for (int64_t j = k; j < n && unique; ++j) unique = before(q[k - 1], q[j]);
      if (unique) return;
      std::sort(q.begin(), q.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
      std::nth_element(q.begin(), q.begin() + (k - 1), q.end(), before);
      std::sort(q.begin(), q.begin() + (k - 1), before);
    } else {
      std::nth_element(q.begin(), q.begin() + (k - 1), q.end(), before);
      if (sorted) std::sort(q.begin(), q.begin() + (k - 1), before);
    }
  });
}

void kthvalue(const TensorBase& values, const TensorBase& indices, const TensorBase& in, int64_t k) {
  core::dispatch_dtype(in.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {  // the op refuses bool
      const int64_t M = in.size(0), n = in.size(1);
      const T* x = in.data_ptr<T>();
      T* v = values.data_ptr<T>();
      int64_t* ix = indices.data_ptr<int64_t>();
      struct Line {
        std::vector<T> v;
        std::vector<int64_t> pos;
      };
      for_rows<Line>(M, n, [&](int64_t r, Line& l) {
        std::vector<T>& line = l.v;
        std::vector<int64_t>& pos = l.pos;
        line.assign(x + r * n, x + (r + 1) * n);
        pos.resize(static_cast<std::size_t>(n));
        std::iota(pos.begin(), pos.end(), int64_t{0});
        quick_select(line.data(), pos.data(), n, k - 1, [](T a, T b) { return greater_nan_first(a, b); });
        v[r] = line[static_cast<std::size_t>(k - 1)];
        ix[r] = pos[static_cast<std::size_t>(k - 1)];
      });
    }
  });
}

namespace {
template <bool IgnoreNan>
void median_rows(const TensorBase& values, const TensorBase& indices, const TensorBase& in) {
  core::dispatch_dtype(in.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {  // the op refuses bool
      const int64_t M = in.size(0), n = in.size(1);
      const T* x = in.data_ptr<T>();
      T* v = values.data_ptr<T>();
      int64_t* ix = indices.data_ptr<int64_t>();
      for_rows<std::vector<int64_t>>(M, n, [&](int64_t r, std::vector<int64_t>& idx) {
        const T* p = x + r * n;
        if constexpr (!IgnoreNan) {
          const T* nan = std::find_if(p, p + n, [](T a) { return is_nan(a); });
          if (nan != p + n) {
            v[r] = *nan;
            ix[r] = nan - p;
            return;
          }
        }
        idx.resize(static_cast<std::size_t>(n));
        std::iota(idx.begin(), idx.end(), int64_t{0});
        int64_t rank = (n - 1) / 2;
        if constexpr (IgnoreNan) {
          const int64_t nans = std::count_if(p, p + n, [](T a) { return is_nan(a); });
          rank = (n - nans - 1) / 2;  // 0 for a line of NaNs (C++ division truncates -1 / 2 to 0)
        }
        std::nth_element(idx.begin(), idx.begin() + rank, idx.end(), [p](int64_t i, int64_t j) {
          return p[i] < p[j] || (p[i] == p[j] && i < j) || (IgnoreNan && is_nan(p[j]) && !is_nan(p[i]));
        });
        v[r] = p[idx[static_cast<std::size_t>(rank)]];
        ix[r] = idx[static_cast<std::size_t>(rank)];
      });
    }
  });
}
}  // namespace

void median(const TensorBase& values, const TensorBase& indices, const TensorBase& in) {
  median_rows<false>(values, indices, in);
}
// PyTorch's mode: std::sort of the line's (value, index) pairs by value, then the first of the
// longest runs of equal values (the smallest value among equally frequent ones) and the index at
// the end of that run. NaNs sort last and never equal each other, so each is a run of one (PyTorch
// sorts NaNs with a plain <, which is no ordering: libstdc++'s introsort may then read outside
// the line; a line without NaN takes the same steps under both comparisons).
void mode(const TensorBase& values, const TensorBase& indices, const TensorBase& in) {
  pair_rows(
      values, indices, in, false, [](auto& line, auto before) { std::sort(line.begin(), line.end(), before); },
      [](int64_t r, const auto& line, auto* v, int64_t* ix) {
        const auto n = line.size();
        std::size_t best = 0, run = 0;
        for (std::size_t i = 0; i < n; ++i) {
          ++run;
          if (i == n - 1 || line[i].first != line[i + 1].first) {
            if (run > best) {
              v[r] = line[i].first;
              ix[r] = line[i].second;
              best = run;
            }
            run = 0;
          }
        }
      });
}

namespace {
// Elements of unique: rows of K values, compared lexicographically (NaN last) and equal only when
// every value is equal (so never with a NaN).
template <class T>
struct RowsOf {
  const T* p;
  int64_t K;
  bool less(int64_t a, int64_t b) const {
    for (int64_t i = 0; i < K; ++i) {
      const T l = p[a * K + i], r = p[b * K + i];
      if (less_nan_last(l, r)) return true;
      if (less_nan_last(r, l)) return false;
    }
    return false;
  }
  bool equal(int64_t a, int64_t b) const {
    for (int64_t i = 0; i < K; ++i)
      if (!(p[a * K + i] == p[b * K + i])) return false;
    return true;
  }
};

// Writes group g's row (element first of in) and the groups of order[0 .. M) (equal neighbours
// share one) to out, inverse and counts; returns the number of groups.
template <class T>
int64_t write_groups(const RowsOf<T>& rows, const std::vector<int64_t>& order, T* out, int64_t* inverse,
                     int64_t* counts) {
  int64_t groups = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int64_t e = order[i];
    if (i == 0 || !rows.equal(order[i - 1], e)) {
      std::copy(rows.p + e * rows.K, rows.p + (e + 1) * rows.K, out + groups * rows.K);
      counts[groups++] = 0;
    }
    inverse[e] = groups - 1;
    ++counts[groups - 1];
  }
  return groups;
}

// PyTorch 1.13's unsorted unique: the order of a std::unordered_set built from the elements, and
// each element's place looked up in a map of it. NaNs are each their own element (NaN != NaN, as
// in the set); the k-th NaN of the input goes to the k-th NaN of the output.
template <class T>
int64_t hash_order(const T* p, int64_t M, T* out, int64_t* inverse, int64_t* counts) {
  const std::unordered_set<T> set(p, p + M);
  std::copy(set.begin(), set.end(), out);
  const auto U = static_cast<int64_t>(set.size());
  std::unordered_map<T, int64_t> place;
  place.reserve(set.size());
  std::vector<int64_t> nan_places;
  for (int64_t g = 0; g < U; ++g) {
    counts[g] = 0;
    if (is_nan(out[g]))
      nan_places.push_back(g);
    else
      place[out[g]] = g;
  }
  std::size_t nans = 0;
  for (int64_t i = 0; i < M; ++i) {
    const int64_t g = is_nan(p[i]) ? nan_places[nans++] : place[p[i]];
    inverse[i] = g;
    ++counts[g];
  }
  return U;
}
}  // namespace

// unique, unique along a dim and unique_consecutive. Sorted: a std::sort of the element indices,
// by value and then by index (so the first of equal elements represents them, as PyTorch's set
// keeps the first it meets; for rows, PyTorch's lexicographic std::sort by value alone, which keeps
// the first of its run). NaNs sort last, each distinct.
int64_t unique(const TensorBase& out, const TensorBase& inverse, const TensorBase& counts, const TensorBase& in,
               bool sorted, bool consecutive) {
  return core::dispatch_dtype(in.dtype(), [&]<class T>() -> int64_t {
    const int64_t M = in.size(0), K = in.size(1);
    const RowsOf<T> rows{in.data_ptr<T>(), K};
    T* o = out.data_ptr<T>();
    int64_t *inv = inverse.data_ptr<int64_t>(), *cnt = counts.data_ptr<int64_t>();
    if (M == 0) return 0;
    // bool has no hash-set path in PyTorch: its unique is always sorted
    if (!sorted && !consecutive && K == 1 && !std::is_same_v<T, bool>) return hash_order(rows.p, M, o, inv, cnt);
    std::vector<int64_t> order(static_cast<std::size_t>(M));
    std::iota(order.begin(), order.end(), int64_t{0});
    if (!consecutive) {
      if (K == 1)
        std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          return less_nan_last(rows.p[a], rows.p[b]) || (!less_nan_last(rows.p[b], rows.p[a]) && a < b);
        });
      else
        std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return rows.less(a, b); });
    }
    return write_groups(rows, order, o, inv, cnt);
  });
}

// PyTorch's cus_lower_bound / cus_upper_bound: a binary search whose comparisons are
// !(b >= v) (left) and !(b > v) (right), so a NaN value lands after every boundary.
void searchsorted(const TensorBase& out, const TensorBase& boundaries, const TensorBase& values,
                  const TensorBase& sorter, bool right) {
  core::dispatch_dtype(values.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {  // the op refuses bool
      const int64_t B = values.size(0), m = values.size(1), n = boundaries.size(1);
      const T* bd = boundaries.data_ptr<T>();
      const T* v = values.data_ptr<T>();
      const int64_t* so = sorter.defined() ? sorter.data_ptr<int64_t>() : nullptr;
      int64_t* o = out.data_ptr<int64_t>();
      detail::parallel_for(B * m, 32, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          const int64_t row = boundaries.size(0) == 1 ? 0 : t / m;
          const T* r = bd + row * n;
          const int64_t* sr = so ? so + row * n : nullptr;
          const T val = v[t];
          int64_t lo = 0, hi = n;
          while (lo < hi) {
            const int64_t mid = lo + ((hi - lo) >> 1);
            const T x = sr ? r[sr[mid]] : r[mid];
            if (right ? !(x > val) : !(x >= val))
              lo = mid + 1;
            else
              hi = mid;
          }
          o[t] = lo;
        }
      });
    }
  });
}
void nanmedian(const TensorBase& values, const TensorBase& indices, const TensorBase& in) {
  median_rows<true>(values, indices, in);
}

}  // namespace ditto::cpu
