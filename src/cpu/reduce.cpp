// Reduction kernels. Every float reduction follows Note [Canonical reduction order].
#include "cpu/reduce.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "core/allocator.h"
#include "cpu/decl/reduce.h"
#include "cpu/dmath.h"
#include "cpu/loops.h"
#include "cpu/reduce_kernels.h"

namespace ditto::cpu {
namespace {

template <class T>
T nan_max(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? b : a;
}
template <class T>
T nan_min(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return b < a ? b : a;
}

// Function objects (not function pointers) so the lane loops inline and vectorise.
template <class A>
struct WrappingAdd {
  A operator()(A a, A b) const {
    if constexpr (std::is_same_v<A, bool>)
      return a || b;  // a bool sum is "any", as PyTorch
    else if constexpr (std::is_integral_v<A>)
      return static_cast<A>(static_cast<std::make_unsigned_t<A>>(a) + static_cast<std::make_unsigned_t<A>>(b));
    else
      return a + b;
  }
};
template <class A>
struct WrappingMul {
  A operator()(A a, A b) const {
    if constexpr (std::is_same_v<A, bool>)
      return a && b;
    else if constexpr (std::is_integral_v<A>)
      return static_cast<A>(static_cast<std::make_unsigned_t<A>>(a) * static_cast<std::make_unsigned_t<A>>(b));
    else
      return a * b;
  }
};
template <class T>
struct NanMax {
  T operator()(T a, T b) const { return nan_max(a, b); }
};
template <class T>
struct NanMin {
  T operator()(T a, T b) const { return nan_min(a, b); }
};

// in: (M, R) strided; out: M contiguous elements of dtype A.
template <class Fn>
void rows(const TensorBase& out, const TensorBase& in, Fn fn) {
  dispatch_dtype(in.dtype(), [&]<class T>() {
    dispatch_dtype(out.dtype(), [&]<class A>() {
      A* o = out.data_ptr<A>();
      fn.template operator()<T, A>(in.data_ptr<T>(), in.size(0), in.size(1), in.stride(0), in.stride(1), o);
    });
  });
}

// in: (M, S, L), row m the S segments of L contiguous elements at m * stride(0) + s * stride(1)
// (ops/reduce_ops.cpp makes it where an (M, R) view would need a copy). Each row is gathered
// into a buffer and reduced as a contiguous (1, S * L) row by fn, storing at m: the same inputs
// in the same order as the copied rows, so the same bits. A sum (given total(sum, R), which
// stores o[m]: sum and mean) of floating rows whose segments are whole numbers of reduction lanes
// (L a multiple of kReduceLanes, as a 32x32 or 56x56 plane is) needs no buffer: each chunk's
// lanes run across the segments in place (sum_segments_chunk), the copied row's bits again.
template <class Fn, class Total = std::nullptr_t>
void segmented_rows(const TensorBase& out, const TensorBase& in, Fn fn, Total total = nullptr) {
  dispatch_dtype(in.dtype(), [&]<class T>() {
    dispatch_dtype(out.dtype(), [&]<class A>() {
      A* o = out.data_ptr<A>();
      const T* x = in.data_ptr<T>();
      const int64_t M = in.size(0), S = in.size(1), L = in.size(2), sm = in.stride(0), ss = in.stride(1), R = S * L;
      if constexpr (!std::is_same_v<Total, std::nullptr_t> && std::is_same_v<T, A> && std::is_floating_point_v<A>) {
        if (L > 0 && L % detail::kReduceLanes == 0) {
          const int64_t C = num_chunks(R);
          detail::parallel_for(M, R, [&](int64_t m0, int64_t m1) {
            std::vector<A> part(static_cast<std::size_t>(C));
            for (int64_t m = m0; m < m1; ++m) {
              for (int64_t c = 0; c < C; ++c) {
                const int64_t start = c * detail::kReduceChunk;
                part[c] = sum_segments_chunk(x + m * sm, start, std::min(detail::kReduceChunk, R - start), L, ss);
              }
              total(o + m, fold_pairwise(part.data(), C, [](A a, A b) { return a + b; }), R);
            }
          });
          return;
        }
      }
      detail::parallel_for(M, R, [&](int64_t m0, int64_t m1) {
        detail::Scratch<T> buf(static_cast<std::size_t>(R));
        for (int64_t m = m0; m < m1; ++m) {
          for (int64_t s = 0; s < S; ++s) std::copy(x + m * sm + s * ss, x + m * sm + s * ss + L, buf.data() + s * L);
          fn.template operator()<T, A>(buf.data(), 1, R, R, 1, o + m);
        }
      });
    });
  });
}

// Contiguous float (and, for max and min, int64) chunks go to the vectorised kernels of cpu/reduce_kernels.h, which
// fold in the same order as reduce_chunk; anything else (strided, integer, converting) to reduce_chunk.
template <class T, class Simd, class Op>
auto chunk_fold(T identity, Simd simd, Op op) {
  return [=](const T* p, int64_t len, int64_t stride) {
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, int64_t>) {
      if (stride == 1) return simd(p, len);
    }
    return reduce_chunk<T>(p, len, stride, identity, op, [](T v) { return v; });
  };
}

}  // namespace

namespace {
// The canonical sum of every row of an (M, R) block, handed to store(m, sum). Floating rows of
// the output's dtype take the vectorised kernels (columns when the outputs are neighbours in
// memory, contiguous chunks otherwise); anything else reduce_chunk, loading each element as A.
template <class A, class T, class Load, class Store>
void sum_rows(const T* x, int64_t M, int64_t R, int64_t sm, int64_t sr, Load load, Store store) {
  if constexpr (std::is_same_v<T, A> && std::is_floating_point_v<A>) {
    if (sm == 1 && sr != 1 && M > 1) return sum_cols<A>(x, M, R, sr, store);
    reduce_rows_by<A>(x, M, R, sm, sr,
                      chunk_fold<A>(
                          A(0), [](const auto* p, int64_t n) { return sum_chunk(p, n); }, WrappingAdd<A>{}),
                      WrappingAdd<A>{}, store);
  } else {
    reduce_rows<A>(x, M, R, sm, sr, A(0), WrappingAdd<A>{}, load, store);
  }
}
}  // namespace

void sum(const TensorBase& out, const TensorBase& in) {
  auto fn = []<class T, class A>(const T* x, int64_t M, int64_t R, int64_t sm, int64_t sr, A* o) {
    sum_rows<A>(
        x, M, R, sm, sr, [](T v) { return convert<A>(v); }, [o](int64_t m, A v) { o[m] = v; });
  };
  if (in.dim() != 3) return rows(out, in, fn);
  segmented_rows(out, in, fn, []<class A>(A* o, A sum, int64_t) { *o = sum; });
}

void mean(const TensorBase& out, const TensorBase& in) {
  auto fn = []<class T, class A>(const T* x, int64_t M, int64_t R, int64_t sm, int64_t sr, A* o) {
    if constexpr (std::is_floating_point_v<A>) {  // the public op allows floating mean only
      const A n = static_cast<A>(R);
      sum_rows<A>(
          x, M, R, sm, sr, [](T v) { return static_cast<A>(v); }, [o, n](int64_t m, A v) { o[m] = v / n; });
    }
  };
  if (in.dim() != 3) return rows(out, in, fn);
  segmented_rows(out, in, fn, []<class A>(A* o, A sum, int64_t n) { *o = sum / static_cast<A>(n); });
}

void prod(const TensorBase& out, const TensorBase& in) {
  rows(out, in, []<class T, class A>(const T* x, int64_t M, int64_t R, int64_t sm, int64_t sr, A* o) {
    reduce_rows<A>(
        x, M, R, sm, sr, A(1), WrappingMul<A>{}, [](T v) { return convert<A>(v); }, [o](int64_t m, A v) { o[m] = v; });
  });
}

void amax(const TensorBase& out, const TensorBase& in) {
  dispatch_dtype(in.dtype(), [&]<class T>() {
    T* o = out.data_ptr<T>();
    reduce_rows_by<T>(
        in.data_ptr<T>(), in.size(0), in.size(1), in.stride(0), in.stride(1),
        chunk_fold<T>(
            std::numeric_limits<T>::lowest(), [](const auto* p, int64_t n) { return max_chunk(p, n); }, NanMax<T>{}),
        NanMax<T>{}, [o](int64_t m, T v) { o[m] = v; });
  });
}

void amin(const TensorBase& out, const TensorBase& in) {
  dispatch_dtype(in.dtype(), [&]<class T>() {
    T* o = out.data_ptr<T>();
    reduce_rows_by<T>(
        in.data_ptr<T>(), in.size(0), in.size(1), in.stride(0), in.stride(1),
        chunk_fold<T>(
            std::numeric_limits<T>::max(), [](const auto* p, int64_t n) { return min_chunk(p, n); }, NanMin<T>{}),
        NanMin<T>{}, [o](int64_t m, T v) { o[m] = v; });
  });
}

namespace {
// First index of the extreme value; NaN beats everything (PyTorch's rule). better(a, b): a
// strictly better than b.
template <class Better>
void arg_rows(const TensorBase* values, const TensorBase& indices, const TensorBase& in, Better better) {
  dispatch_dtype(in.dtype(), [&]<class T>() {
    const T* x = in.data_ptr<T>();
    const int64_t M = in.size(0), R = in.size(1), sm = in.stride(0), sr = in.stride(1);
    int64_t* oi = indices.data_ptr<int64_t>();
    T* ov = values ? values->data_ptr<T>() : nullptr;
    detail::parallel_for(M, R, [&](int64_t b, int64_t e) {
      for (int64_t m = b; m < e; ++m) {
        const T* row = x + m * sm;
        T best = row[0];
        int64_t bi = 0;
        for (int64_t r = 1; r < R; ++r) {
          const T v = row[r * sr];
          if (better(v, best)) {
            best = v;
            bi = r;
          }
        }
        oi[m] = bi;
        if (ov) ov[m] = best;
      }
    });
  });
}
template <class T>
bool greater_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b != b) return false;
    if (a != a) return true;
  }
  return a > b;
}
template <class T>
bool less_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b != b) return false;
    if (a != a) return true;
  }
  return a < b;
}
struct Greater {
  template <class T>
  bool operator()(T a, T b) const {
    return greater_nan(a, b);
  }
};
struct Less {
  template <class T>
  bool operator()(T a, T b) const {
    return less_nan(a, b);
  }
};
}  // namespace

void max_dim(const TensorBase& values, const TensorBase& indices, const TensorBase& in) {
  arg_rows(&values, indices, in, Greater{});
}
void min_dim(const TensorBase& values, const TensorBase& indices, const TensorBase& in) {
  arg_rows(&values, indices, in, Less{});
}
void argmax(const TensorBase& indices, const TensorBase& in) { arg_rows(nullptr, indices, in, Greater{}); }
void argmin(const TensorBase& indices, const TensorBase& in) { arg_rows(nullptr, indices, in, Less{}); }

// log(sum(exp(x - m))) + m per row, m the row's maximum (0 where it is infinite), as PyTorch's
// logsumexp: the maximum and the sum are canonical folds (Note [Canonical reduction order]).
void logsumexp(const TensorBase& out, const TensorBase& in) {
  dispatch_floating(in.dtype(), [&]<class T>() {
    const T* x = in.data_ptr<T>();
    const int64_t M = in.size(0), R = in.size(1), sm = in.stride(0), sr = in.stride(1);
    T* o = out.data_ptr<T>();
    std::vector<T> top(static_cast<std::size_t>(M));
    reduce_rows<T>(
        x, M, R, sm, sr, -std::numeric_limits<T>::infinity(), NanMax<T>{}, [](T v) { return v; },
        [&](int64_t m, T v) { top[m] = std::isinf(v) ? T(0) : v; });
    for (int64_t m = 0; m < M; ++m) {
      const T mm = top[m];
      reduce_rows<T>(
          x + m * sm, 1, R, 0, sr, T(0), WrappingAdd<T>{}, [mm](T v) { return dmath::exp(v - mm); },
          [&](int64_t, T v) { o[m] = dmath::log(v) + mm; });
    }
  });
}

// Each row's ord-norm: a canonical fold (Note [Canonical reduction order]) of |x|^ord (x * x for
// 2, |x| for 1, x != 0 for 0) by sum, or of |x| by max (inf) or min (-inf), then the root.
void vector_norm(const TensorBase& out, const TensorBase& in, const Scalar& ord) {
  dispatch_floating(in.dtype(), [&]<class T>() {
    const double p = ord.to_double();
    const T* x = in.data_ptr<T>();
    const int64_t M = in.size(0), R = in.size(1), sm = in.stride(0), sr = in.stride(1);
    T* o = out.data_ptr<T>();
    auto keep = [o](int64_t m, T v) { o[m] = v; };
    auto magnitude = [](T v) { return std::fabs(v); };
    if (std::isinf(p) && p > 0) {
      reduce_rows<T>(x, M, R, sm, sr, T(0), NanMax<T>{}, magnitude, keep);
    } else if (std::isinf(p)) {
      reduce_rows<T>(x, M, R, sm, sr, std::numeric_limits<T>::infinity(), NanMin<T>{}, magnitude, keep);
    } else if (p == 0) {
      reduce_rows<T>(
          x, M, R, sm, sr, T(0), WrappingAdd<T>{}, [](T v) { return v != T(0) ? T(1) : T(0); }, keep);
    } else if (p == 1) {
      reduce_rows<T>(x, M, R, sm, sr, T(0), WrappingAdd<T>{}, magnitude, keep);
    } else if (p == 2) {
      reduce_rows<T>(
          x, M, R, sm, sr, T(0), WrappingAdd<T>{}, [](T v) { return v * v; },
          [o](int64_t m, T v) { o[m] = std::sqrt(v); });
    } else {
      const T pt = static_cast<T>(p), inv = static_cast<T>(1.0 / p);
      reduce_rows<T>(
          x, M, R, sm, sr, T(0), WrappingAdd<T>{}, [pt](T v) { return dmath::pow(std::fabs(v), pt); },
          [o, inv](int64_t m, T v) { o[m] = dmath::pow(v, inv); });
    }
  });
}

void var(const TensorBase& out, const TensorBase& in, int64_t correction, bool take_sqrt) {
  dispatch_floating(in.dtype(), [&]<class T>() {
    const T* x = in.data_ptr<T>();
    const int64_t M = in.size(0), R = in.size(1), sm = in.stride(0), sr = in.stride(1);
    T* o = out.data_ptr<T>();
    std::vector<T> mu(static_cast<std::size_t>(M));
    sum_rows<T>(
        x, M, R, sm, sr, [](T v) { return v; }, [&](int64_t m, T v) { mu[m] = v / static_cast<T>(R); });
    const T denom = static_cast<T>(R - correction);
    // Second pass: squared deviations, one row at a time so each row knows its mean.
    for (int64_t m = 0; m < M; ++m) {
      const T mm = mu[m];
      reduce_rows<T>(
          x + m * sm, 1, R, 0, sr, T(0), WrappingAdd<T>{}, [mm](T v) { return (v - mm) * (v - mm); },
          [&](int64_t, T v) {
            const T r = R - correction > 0 ? v / denom : std::numeric_limits<T>::quiet_NaN();
            o[m] = take_sqrt ? std::sqrt(r) : r;
          });
    }
  });
}

namespace {
// Note [Softmax over any dim]: the tensors are contiguous (O, R, I) and softmax runs over R, one
// line per (o, i). With I == 1 each line is a contiguous row (softmax_row). Otherwise, when R is
// one chunk (R <= kReduceChunk), neighbouring lines are computed side by side, one per SIMD lane
// (softmax_cols), with each line's lanes and tree those of softmax_row; longer lines are copied
// into a scratch buffer as contiguous rows and back. So every line gets the bits of a softmax over
// a contiguous row of the same values: they do not depend on the dim, the path, how the lines are
// cut among tasks, the thread count or the level; the tensor is read and written once (no
// transposed copies). rows(ins, out, n) computes one row from `nin` input rows, cols(ins, out, n,
// stride, ncols) ncols lines; done(line, count, res, rstride, jstride), when given, sees each
// group of count computed lines from line o * I + i: element r of line j at res[r * rstride +
// j * jstride], while it is still in cache. An undefined out is not written (done alone sees the
// lines); the shape is then in[0]'s.
struct NoDone {
  template <class T>
  void operator()(int64_t, int64_t, const T*, int64_t, int64_t) const {}
};
template <class T, int nin, class Rows, class Cols, class Done = NoDone>
void softmax_lines(const TensorBase& out, const std::array<const TensorBase*, nin>& in, Rows rows, Cols cols,
                   Done done = {}) {
  const int64_t O = in[0]->size(0), R = in[0]->size(1), I = in[0]->size(2);
  std::array<const T*, nin> x;
  for (int k = 0; k < nin; ++k) x[k] = in[k]->template data_ptr<T>();
  T* y = out.defined() ? out.template data_ptr<T>() : nullptr;
  auto at = [&](int64_t offset) {
    std::array<const T*, nin> p;
    for (int k = 0; k < nin; ++k) p[k] = x[k] + offset;
    return p;
  };
  if (I == 1) {
    detail::parallel_for(O, 4 * R, [&](int64_t b, int64_t e) {
      std::vector<T> scratch(y ? 0 : static_cast<std::size_t>(R));
      for (int64_t m = b; m < e; ++m) {
        T* res = y ? y + m * R : scratch.data();
        rows(at(m * R), res, R);
        done(m, 1, res, 1, 0);
      }
    });
  } else if (R <= detail::kReduceChunk) {
    // Tiles of R x span lines, copied in and out in contiguous runs: the lines of a tensor whose
    // inner size is a power of two lie a power of two apart, and walking them in place (R rows at
    // once) thrashes the cache sets. The copy's row stride, span + 8, is not.
    const int64_t span = std::clamp<int64_t>((16384 / R + 7) / 8 * 8, 16, 256);
    const int64_t ld = span + 8, spans = (I + span - 1) / span;
    detail::parallel_for(O * spans, 4 * R * std::min(I, span), [&](int64_t b, int64_t e) {
      std::vector<T> buf(static_cast<std::size_t>((nin + 1) * R * ld));
      for (int64_t t = b; t < e; ++t) {
        const int64_t base = (t / spans) * R * I + (t % spans) * span, w = std::min(span, I - (t % spans) * span);
        std::array<const T*, nin> p;
        for (int k = 0; k < nin; ++k) {
          T* dst = buf.data() + k * R * ld;
          for (int64_t r = 0; r < R; ++r) std::copy_n(x[k] + base + r * I, w, dst + r * ld);
          p[k] = dst;
        }
        T* res = buf.data() + nin * R * ld;
        cols(p, res, R, ld, w);
        done((t / spans) * I + (t % spans) * span, w, res, ld, 1);
        if (y)
          for (int64_t r = 0; r < R; ++r) std::copy_n(res + r * ld, w, y + base + r * I);
      }
    });
  } else {
    detail::parallel_for(O * I, 4 * R, [&](int64_t b, int64_t e) {
      std::vector<T> buf(static_cast<std::size_t>((nin + 1) * R));
      for (int64_t t = b; t < e; ++t) {
        const int64_t base = (t / I) * R * I + t % I;
        for (int k = 0; k < nin; ++k)
          for (int64_t r = 0; r < R; ++r) buf[k * R + r] = x[k][base + r * I];
        std::array<const T*, nin> p;
        for (int k = 0; k < nin; ++k) p[k] = buf.data() + k * R;
        T* res = buf.data() + nin * R;
        rows(p, res, R);
        done(t, 1, res, 1, 0);
        if (y)
          for (int64_t r = 0; r < R; ++r) y[base + r * I] = res[r];
      }
    });
  }
}

template <bool Log>
void softmax_kernel(const TensorBase& out, const TensorBase& in) {
  dispatch_floating(in.dtype(), [&]<class T>() {
    softmax_lines<T, 1>(
        out, {&in}, [](const std::array<const T*, 1>& x, T* y, int64_t n) { softmax_row(x[0], y, n, Log); },
        [](const std::array<const T*, 1>& x, T* y, int64_t n, int64_t stride, int64_t ncols) {
          softmax_cols(x[0], y, n, stride, ncols, Log);
        });
  });
}
template <bool Log>
void softmax_backward_kernel(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& out) {
  dispatch_floating(out.dtype(), [&]<class T>() {
    softmax_lines<T, 2>(
        grad_in, {&grad_out, &out},
        [](const std::array<const T*, 2>& x, T* gi, int64_t n) { softmax_backward_row(x[0], x[1], gi, n, Log); },
        [](const std::array<const T*, 2>& x, T* gi, int64_t n, int64_t stride, int64_t ncols) {
          softmax_backward_cols(x[0], x[1], gi, n, stride, ncols, Log);
        });
  });
}
}  // namespace

void softmax(const TensorBase& out, const TensorBase& in) { softmax_kernel<false>(out, in); }
void log_softmax(const TensorBase& out, const TensorBase& in) { softmax_kernel<true>(out, in); }
void softmax_backward(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& out) {
  softmax_backward_kernel<false>(grad_in, grad_out, out);
}
void log_softmax_backward(const TensorBase& grad_in, const TensorBase& grad_out, const TensorBase& out) {
  softmax_backward_kernel<true>(grad_in, grad_out, out);
}

namespace {
void exp_array(const float* x, float* y, int64_t n) { dmath::exp_f32(x, y, n); }
void exp_array(const double* x, double* y, int64_t n) { dmath::exp_f64(x, y, n); }
}  // namespace

// logp by log_softmax's lines (not written when logp is undefined: no gradient), and each
// target's term as nll_loss composes it, where(keep, -logp[t] (* the target's weight), 0), taken
// from a line while it is in cache.
void cross_entropy(const TensorBase& logp, const TensorBase& terms, const TensorBase& in, const TensorBase& target,
                   const TensorBase& weights, int64_t ignore_index) {
  dispatch_floating(in.dtype(), [&]<class T>() {
    const int64_t* t = target.data_ptr<int64_t>();
    const T* w = weights.defined() ? weights.data_ptr<T>() : nullptr;
    T* o = terms.data_ptr<T>();
    softmax_lines<T, 1>(
        logp, {&in}, [](const std::array<const T*, 1>& x, T* y, int64_t n) { softmax_row(x[0], y, n, true); },
        [](const std::array<const T*, 1>& x, T* y, int64_t n, int64_t stride, int64_t ncols) {
          softmax_cols(x[0], y, n, stride, ncols, true);
        },
        [&](int64_t line, int64_t count, const T* res, int64_t rstride, int64_t jstride) {
          for (int64_t j = 0; j < count; ++j) {
            const int64_t c = t[line + j];
            if (c == ignore_index) {
              o[line + j] = T(0);
              continue;
            }
            const T neg = -res[c * rstride + j * jstride];
            o[line + j] = w ? neg * w[line + j] : neg;
          }
        });
  });
}

// The composed backward, element by element: nll's gradient scattered into zeros puts
// v = 0 + grad_target at each target (+0 elsewhere), whose canonical sum over C is v itself (every
// other term is +0, and v is never -0); log_softmax's gradient g - exp(logp) * v is then
// 0 - exp(logp) * v off the target and v - exp(logp) * v on it. The second is computed as
// v + (0 - exp(logp) * v), the same bits: 0 - x is -x but for x = +-0 (then +0, and v + 0 = v =
// v - +-0 as v is never -0), and a - b is a + (-b).
void cross_entropy_backward(const TensorBase& grad_in, const TensorBase& logp, const TensorBase& target,
                            const TensorBase& grad_target) {
  dispatch_floating(logp.dtype(), [&]<class T>() {
    const T* lp = logp.data_ptr<T>();
    const int64_t* t = target.data_ptr<int64_t>();
    const T* gt = grad_target.data_ptr<T>();
    T* gi = grad_in.data_ptr<T>();
    const int64_t N = logp.size(0), C = logp.size(1), P = logp.size(2);
    // tasks: a sample's pixels [p0, p0 + span), every class of them
    const int64_t span = std::min<int64_t>(P, std::max<int64_t>(1, 16384 / C));
    const int64_t spans = (P + span - 1) / span;
    detail::parallel_for(N * spans, 8 * C * span, [&](int64_t b0, int64_t b1) {
      std::vector<T> v(static_cast<std::size_t>(span));
      for (int64_t task = b0; task < b1; ++task) {
        const int64_t n = task / spans, p0 = (task % spans) * span, len = std::min(span, P - p0);
        for (int64_t p = 0; p < len; ++p) v[p] = T(0) + gt[n * P + p0 + p];
        if (P == 1) {  // the sample's classes are contiguous: one run
          T* out = gi + n * C;
          exp_array(lp + n * C, out, C);
          for (int64_t c = 0; c < C; ++c) out[c] = T(0) - out[c] * v[0];
        } else {
          for (int64_t c = 0; c < C; ++c) {
            T* out = gi + (n * C + c) * P + p0;
            exp_array(lp + (n * C + c) * P + p0, out, len);
            for (int64_t p = 0; p < len; ++p) out[p] = T(0) - out[p] * v[p];
          }
        }
        for (int64_t p = 0; p < len; ++p) {
          T& at = gi[(n * C + t[n * P + p0 + p]) * P + p0 + p];
          at = v[p] + at;
        }
      }
    });
  });
}

}  // namespace ditto::cpu
