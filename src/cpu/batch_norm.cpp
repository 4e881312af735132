// batch_norm and group_norm fused, forward and backward (native_batch_norm, native_group_norm),
// over a contiguous (N, C, S) input (S the product of the spatial dims, 1 for an (N, C) input).
//
// Note [Batch norm order]
// -----------------------
// A channel's values are the sequence x[n, c, s] in (n, s) order, R = N * S of them: the logical
// order of a reduction over dims (0, 2, ...). Every sum over a channel below is that sequence's
// canonical sum (Note [Canonical reduction order]), whatever the runs it is read in.
// Training:
//   mean = sum(x) / R;  m2 = sum((x - mean) * (x - mean));  var = m2 / R;
//   rstd = 1 / sqrt(var + eps);  unbiased = m2 / (R - 1) (the running variance's update)
// Evaluation: mean = running_mean, rstd = 1 / sqrt(running_var + eps). Then
//   out = (x - mean) * rstd * weight + bias,
// one rounding per operation in that order (eps, as a scalar operand, rounded to x's dtype; an
// absent weight is 1 and an absent bias -0, which change no bit): the bits of the composition
// mean, var, sub, add, rsqrt, mul, mul, add that ditto's batch_norm was before, from three passes
// over each channel instead of a copy and a dozen. The backward, with xhat = (x - mean) * rstd
// (the forward's bits) and scale = weight * rstd:
//   dbias = sum(dy);  dweight = sum(dy * xhat);
//   training:   dx = scale * ((dy - dbias / R) - xhat * (dweight / R))
//   evaluation: dx = dy * scale.
// GroupNorm (native_group_norm): row (n, g), the D = C / groups channels of sample n's group g in
// order, is a channel of the above over (1, N * groups, D * HW): the same mean, rstd and
// out = (x - mean) * rstd * weight[c] + bias[c]. Its backward, with gw = dy * weight[c]:
//   dx = rstd * ((gw - sum(gw) / L) - xhat * (sum(gw * xhat) / L)), sums over the row (L values);
//   dbias[c] = sum(dy), dweight[c] = sum(dy * xhat), over channel c's (n, hw) as batch_norm's.
// batch_norm: one thread computes a channel (or a block of columns), so nothing depends on the
// thread count or the other channels. A channel's planes are fed run by run to the level's run
// kernels, which add them to the lanes of their chunk (ChannelSums; cpu/reduce_impl.h); the
// columns of an (N, C) input (S = 1) are copied out kColumns at a time and summed side by side
// (sum_cols_chunk). Every level folds as reduce_chunk does. group_norm: one thread computes a row,
// with the level's row kernels (layer_norm's); its backward's channel sums take the samples a
// block at a time, each channel adding its planes of the block to its ChannelSums in (n, hw)
// order, one thread a channel.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <type_traits>
#include <vector>

#include "cpu/decl/norm.h"
#include "cpu/loops.h"
#include "cpu/reduce.h"
#include "cpu/reduce_kernels.h"

namespace ditto::cpu {

namespace {

// Channels per task where S = 1.
constexpr int64_t kColumns = 64;

// x (N, C, S) seen as blocks of channels: one channel (Cols false) or up to kColumns neighbouring
// ones of an (N, C) input (Cols true, S = 1). A segment is a run of contiguous elements of a
// block: element t of it belongs to the block's channel Cols ? t : 0.
template <bool Cols>
struct Blocks {
  int64_t N, C, S;
  static constexpr int64_t width = Cols ? kColumns : 1;
  int64_t count() const { return N * S; }
  int64_t blocks() const { return (C + width - 1) / width; }
  // fn(offset in x, position in the chunk's buffer, length) for the segments of the values
  // [start, start + len) of the channels [c0, c0 + nb); the buffer holds value r of channel c0 + i
  // at r * nb + i.
  template <class Fn>
  void segments(int64_t c0, int64_t nb, int64_t start, int64_t len, Fn fn) const {
    if constexpr (Cols) {
      for (int64_t r = 0; r < len; ++r) fn((start + r) * C + c0, r * nb, nb);
    } else {
      for (int64_t i = start, end = start + len; i < end;) {
        const int64_t n = i / S, s = i - n * S, run = std::min(S - s, end - i);
        fn((n * C + c0) * S + s, i - start, run);
        i += run;
      }
    }
  }
};

// The canonical sums of k sequences derived from a block of columns of an (N, C) input, chunk by
// chunk: fill(off, to, n) writes the segment's element t of sequence j to to[j][t]; sum(j, i) is
// then sequence j's sum over channel c0 + i.
template <class T, int k>
struct ColumnSums {
  explicit ColumnSums(const Blocks<true>& b) : blocks(b), K(num_chunks(b.count())) {
    const int64_t rows = std::min(b.count(), detail::kReduceChunk);  // of the largest chunk
    for (auto& v : bufs) v.resize(static_cast<std::size_t>(rows * b.width));
    partial.resize(static_cast<std::size_t>(k * K * b.width));
    tree.resize(static_cast<std::size_t>(K));
  }
  template <class Fill>
  void run(int64_t c0, int64_t nb, Fill fill) {
    for (int64_t q = 0; q < K; ++q) {
      const int64_t start = q * detail::kReduceChunk, len = std::min(detail::kReduceChunk, blocks.count() - start);
      blocks.segments(c0, nb, start, len, [&](int64_t off, int64_t pos, int64_t n) {
        std::array<T*, k> to;
        for (int j = 0; j < k; ++j) to[j] = bufs[j].data() + pos;
        fill(off, to, n);
      });
      for (int j = 0; j < k; ++j) sum_cols_chunk(bufs[j].data(), nb, len, nb, partial.data() + (j * K + q) * nb);
    }
    nb_ = nb;
  }
  T sum(int j, int64_t i) {
    for (int64_t q = 0; q < K; ++q) tree[q] = partial[(j * K + q) * nb_ + i];
    return fold_pairwise(tree.data(), K, [](T a, T b) { return a + b; });
  }
  const Blocks<true>& blocks;
  int64_t K, nb_ = 1;
  std::array<std::vector<T>, k> bufs;
  std::vector<T> partial, tree;
};

// The canonical sums of K sequences over one channel's values (R of them), fed a run of
// contiguous values at a time, in order: the level's run kernels add them to the lanes of their
// chunk (cpu/reduce_kernels.h), which fold at the chunk's end; sum(k) folds the chunks' sums by
// the pairwise tree. A run may cross a chunk's end.
template <class T, int K>
class ChannelSums {
 public:
  explicit ChannelSums(int64_t R) : R_(R), Q_(num_chunks(R)), partial_(static_cast<std::size_t>(K * Q_), T(0)) {}
  // kernel(t, n, lane, lanes): adds the run's values [t, t + n) to lanes, the first to lane `lane`
  template <class Kernel>
  void add(int64_t len, Kernel kernel) {
    for (int64_t t = 0; t < len;) {
      const int64_t q = pos_ / detail::kReduceChunk, end = std::min(R_, (q + 1) * detail::kReduceChunk);
      const int64_t n = std::min(len - t, end - pos_);
      kernel(t, n, pos_ % kL, lanes_.data());
      t += n;
      pos_ += n;
      if (pos_ == end) {
        for (int k = 0; k < K; ++k) {
          fold_lanes(lanes_.data() + k * kL, 1, 1);
          partial_[static_cast<std::size_t>(k * Q_ + q)] = lanes_[static_cast<std::size_t>(k * kL)];
        }
        lanes_.fill(T(0));
      }
    }
  }
  T sum(int k) const {
    std::vector<T> tree(partial_.begin() + k * Q_, partial_.begin() + (k + 1) * Q_);
    return fold_pairwise(tree.data(), Q_, [](T a, T b) { return a + b; });
  }

 private:
  static constexpr int64_t kL = detail::kReduceLanes;
  int64_t R_, Q_, pos_ = 0;
  std::array<T, K * kL> lanes_{};
  std::vector<T> partial_;
};

// Per-channel values of a block, indexed by the channel's place in it.
template <class T>
using Lanes = std::array<T, kColumns>;

// The batch statistics of a block of columns: m = mean, r = rstd, m2 the sum of squared deviations
// (Note [Batch norm order]).
template <class T>
void column_stats(ColumnSums<T, 1>& sums, const T* xp, int64_t c0, int64_t nb, T e, Lanes<T>& m, Lanes<T>& r,
                  Lanes<T>& m2) {
  const T R = static_cast<T>(sums.blocks.count());
  sums.run(c0, nb, [&](int64_t off, std::array<T*, 1> to, int64_t n) { std::copy(xp + off, xp + off + n, to[0]); });
  for (int64_t i = 0; i < nb; ++i) m[i] = sums.sum(0, i) / R;
  sums.run(c0, nb, [&](int64_t off, std::array<T*, 1> to, int64_t n) {
    const T* p = xp + off;
    for (int64_t t = 0; t < n; ++t) {
      const T d = p[t] - m[t];
      to[0][t] = d * d;
    }
  });
  for (int64_t i = 0; i < nb; ++i) {
    m2[i] = sums.sum(0, i);
    r[i] = T(1) / std::sqrt(m2[i] / R + e);
  }
}

// The batch statistics of channel c of an (N, C, S) input, S > 1 (as column_stats).
template <class T>
void plane_stats(const Blocks<false>& bl, const T* xp, int64_t c, T e, T& m, T& r, T& m2) {
  const int64_t R = bl.count();
  ChannelSums<T, 1> s1(R), s2(R);
  bl.segments(c, 1, 0, R, [&](int64_t off, int64_t, int64_t len) {
    s1.add(len, [&](int64_t t, int64_t n, int64_t lane, T* lanes) { channel_sum_run(xp + off + t, n, lane, lanes); });
  });
  m = s1.sum(0) / static_cast<T>(R);
  bl.segments(c, 1, 0, R, [&](int64_t off, int64_t, int64_t len) {
    s2.add(len,
           [&](int64_t t, int64_t n, int64_t lane, T* lanes) { channel_sqdev_run(xp + off + t, n, lane, m, lanes); });
  });
  m2 = s2.sum(0);
  r = T(1) / std::sqrt(m2 / static_cast<T>(R) + e);
}

template <class T, bool Cols>
void forward(const Blocks<Cols>& bl, T* o, T* mu, T* rs, T* ub, const T* xp, const T* w, const T* b, const T* rm,
             const T* rv, bool training, T e) {
  detail::parallel_for(bl.blocks(), 4 * bl.count() * bl.width, [&](int64_t b0, int64_t b1) {
    std::optional<ColumnSums<T, 1>> sums;
    if constexpr (Cols)
      if (training) sums.emplace(bl);
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t c0 = blk * bl.width, nb = std::min(bl.width, bl.C - c0);
      Lanes<T> m{}, r{}, wc{}, bc{};
      if (training) {
        Lanes<T> m2{};
        if constexpr (Cols)
          column_stats(*sums, xp, c0, nb, e, m, r, m2);
        else
          plane_stats(bl, xp, c0, e, m[0], r[0], m2[0]);
        if (ub)
          for (int64_t i = 0; i < nb; ++i) ub[c0 + i] = m2[i] / static_cast<T>(bl.count() - 1);
      } else {
        for (int64_t i = 0; i < nb; ++i) {
          m[i] = rm[c0 + i];
          r[i] = T(1) / std::sqrt(rv[c0 + i] + e);
        }
      }
      for (int64_t i = 0; i < nb; ++i) {
        mu[c0 + i] = m[i];
        rs[c0 + i] = r[i];
        wc[i] = w ? w[c0 + i] : T(1);
        bc[i] = b ? b[c0 + i] : T(-0.0);
      }
      bl.segments(c0, nb, 0, bl.count(), [&](int64_t off, int64_t, int64_t n) {
        const T* p = xp + off;
        T* y = o + off;
        for (int64_t t = 0; t < n; ++t) {
          const int64_t i = Cols ? t : 0;
          y[t] = (p[t] - m[i]) * r[i] * wc[i] + bc[i];
        }
      });
    }
  });
}

template <class T, bool Cols>
void backward(const Blocks<Cols>& bl, T* d, T* dw, T* db, const T* g, const T* xp, const T* mu, const T* rs, const T* w,
              bool training) {
  const T R = static_cast<T>(bl.count());
  detail::parallel_for(bl.blocks(), 6 * bl.count() * bl.width, [&](int64_t b0, int64_t b1) {
    std::optional<ColumnSums<T, 2>> sums;
    if constexpr (Cols) sums.emplace(bl);
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t c0 = blk * bl.width, nb = std::min(bl.width, bl.C - c0);
      Lanes<T> m{}, r{}, scale{}, a{}, k{};
      for (int64_t i = 0; i < nb; ++i) {
        m[i] = mu[c0 + i];
        r[i] = rs[c0 + i];
        scale[i] = (w ? w[c0 + i] : T(1)) * r[i];
      }
      // sum(dy), sum(dy * xhat): dbias and dweight, which training's dx needs too
      if (training || dw || db) {
        std::optional<ChannelSums<T, 2>> planar;  // both: the sums of dy * xhat (0) and dy (1)
        if constexpr (Cols) {
          sums->run(c0, nb, [&](int64_t off, std::array<T*, 2> to, int64_t n) {
            const T *p = xp + off, *q = g + off;
            for (int64_t t = 0; t < n; ++t) {
              to[0][t] = q[t] * ((p[t] - m[t]) * r[t]);
              to[1][t] = q[t];
            }
          });
        } else {
          planar.emplace(bl.count());
          bl.segments(c0, 1, 0, bl.count(), [&](int64_t off, int64_t, int64_t len) {
            planar->add(len, [&](int64_t t, int64_t n, int64_t lane, T* lanes) {
              norm_param_run(xp + off + t, g + off + t, n, lane, m[0], r[0], lanes);
            });
          });
        }
        for (int64_t i = 0; i < nb; ++i) {
          const T sw = Cols ? sums->sum(0, i) : planar->sum(0), sb = Cols ? sums->sum(1, i) : planar->sum(1);
          if (dw) dw[c0 + i] = sw;
          if (db) db[c0 + i] = sb;
          a[i] = sb / R;
          k[i] = sw / R;
        }
      }
      bl.segments(c0, nb, 0, bl.count(), [&](int64_t off, int64_t, int64_t n) {
        const T *p = xp + off, *q = g + off;
        T* out = d + off;
        if (training) {
          for (int64_t t = 0; t < n; ++t) {
            const int64_t i = Cols ? t : 0;
            out[t] = scale[i] * ((q[t] - a[i]) - ((p[t] - m[i]) * r[i]) * k[i]);
          }
        } else {
          for (int64_t t = 0; t < n; ++t) out[t] = q[t] * scale[Cols ? t : 0];
        }
      });
    }
  });
}

// GroupNorm: x (N, C, HW) in G groups of D = C / G channels; row (n, g), its L = D * HW values,
// is a channel of batch_norm over (1, N * G, D * HW), and channel c's affine applies to its HW
// values: the level's row kernels with one weight per run of HW values.
struct Groups {
  int64_t N, C, HW, G;
  int64_t D() const { return C / G; }
  int64_t L() const { return D() * HW; }
};

template <class T>
void group_forward(const Groups& gr, T* o, T* mu, T* rs, const T* xp, const T* w, const T* b, T e) {
  const int64_t L = gr.L();
  detail::parallel_for(gr.N * gr.G, 4 * L, [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      const int64_t c0 = (row % gr.G) * gr.D();
      group_norm_row(xp + row * L, o + row * L, L, gr.HW, w ? w + c0 : nullptr, b ? b + c0 : nullptr, e, mu + row,
                     rs + row);
    }
  });
}

template <class T>
void group_backward(const Groups& gr, T* d, T* dw, T* db, const T* g, const T* xp, const T* mu, const T* rs,
                    const T* w) {
  const int64_t L = gr.L(), G = gr.G, C = gr.C, HW = gr.HW;
  // dx, the rows (n, g) of samples [n0, n1)
  auto rows = [&](int64_t n0, int64_t n1) {
    detail::parallel_for((n1 - n0) * G, 8 * L, [&](int64_t lo, int64_t hi) {
      for (int64_t row = n0 * G + lo; row < n0 * G + hi; ++row)
        group_norm_backward_row(xp + row * L, g + row * L, w ? w + (row % G) * gr.D() : nullptr, HW, mu[row], rs[row],
                                d + row * L, L);
    });
  };
  if (!dw && !db) return rows(0, gr.N);
  // dweight, dbias: channel c's sequence is its planes in n order (as batch_norm's). The samples a
  // block at a time: first dx, then each channel adds its planes of the block to its sums while
  // they are in cache.
  std::vector<ChannelSums<T, 2>> sums(static_cast<std::size_t>(C), ChannelSums<T, 2>(gr.N * HW));
  const int64_t block = std::max<int64_t>(1, kNormBlockBytes / std::max<int64_t>(1, 2 * C * HW * int64_t(sizeof(T))));
  for (int64_t n0 = 0; n0 < gr.N; n0 += block) {
    const int64_t n1 = std::min(gr.N, n0 + block);
    rows(n0, n1);
    detail::parallel_for(C, 4 * (n1 - n0) * HW, [&](int64_t lo, int64_t hi) {
      for (int64_t c = lo; c < hi; ++c)
        for (int64_t n = n0; n < n1; ++n) {
          const int64_t row = n * G + c / gr.D(), plane = (n * C + c) * HW;
          sums[static_cast<std::size_t>(c)].add(HW, [&](int64_t t, int64_t len, int64_t lane, T* lanes) {
            norm_param_run(xp + plane + t, g + plane + t, len, lane, mu[row], rs[row], lanes);
          });
        }
    });
  }
  for (int64_t c = 0; c < C; ++c) {
    if (dw) dw[c] = sums[static_cast<std::size_t>(c)].sum(0);
    if (db) db[c] = sums[static_cast<std::size_t>(c)].sum(1);
  }
}

template <class T>
T* data_or_null(const TensorBase& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

// fn(std::true_type) for an (N, C) input (S = 1, its columns side by side), else fn(std::false_type).
template <class Fn>
void by_layout(int64_t S, Fn fn) {
  if (S == 1)
    fn(std::true_type{});
  else
    fn(std::false_type{});
}

}  // namespace

void batch_norm(const TensorBase& out, const TensorBase& mean, const TensorBase& rstd, const TensorBase& unbiased,
                const TensorBase& x, const TensorBase& weight, const TensorBase& bias, const TensorBase& running_mean,
                const TensorBase& running_var, bool training, double eps) {
  dispatch_floating(x.dtype(), [&]<class T>() {
    by_layout(x.size(2), [&](auto cols) {
      forward<T, cols.value>(Blocks<cols.value>{x.size(0), x.size(1), x.size(2)}, out.data_ptr<T>(), mean.data_ptr<T>(),
                             rstd.data_ptr<T>(), data_or_null<T>(unbiased), x.data_ptr<T>(), data_or_null<T>(weight),
                             data_or_null<T>(bias), data_or_null<T>(running_mean), data_or_null<T>(running_var),
                             training, static_cast<T>(eps));
    });
  });
}

void batch_norm_backward(const TensorBase& dx, const TensorBase& dweight, const TensorBase& dbias, const TensorBase& dy,
                         const TensorBase& x, const TensorBase& mean, const TensorBase& rstd, const TensorBase& weight,
                         bool training) {
  dispatch_floating(x.dtype(), [&]<class T>() {
    by_layout(x.size(2), [&](auto cols) {
      backward<T, cols.value>(Blocks<cols.value>{x.size(0), x.size(1), x.size(2)}, dx.data_ptr<T>(),
                              data_or_null<T>(dweight), data_or_null<T>(dbias), dy.data_ptr<T>(), x.data_ptr<T>(),
                              mean.data_ptr<T>(), rstd.data_ptr<T>(), data_or_null<T>(weight), training);
    });
  });
}

void group_norm(const TensorBase& out, const TensorBase& mean, const TensorBase& rstd, const TensorBase& x,
                const TensorBase& weight, const TensorBase& bias, int64_t groups, double eps) {
  dispatch_floating(x.dtype(), [&]<class T>() {
    group_forward<T>(Groups{x.size(0), x.size(1), x.size(2), groups}, out.data_ptr<T>(), mean.data_ptr<T>(),
                     rstd.data_ptr<T>(), x.data_ptr<T>(), data_or_null<T>(weight), data_or_null<T>(bias),
                     static_cast<T>(eps));
  });
}

void group_norm_backward(const TensorBase& dx, const TensorBase& dweight, const TensorBase& dbias, const TensorBase& dy,
                         const TensorBase& x, const TensorBase& mean, const TensorBase& rstd, const TensorBase& weight,
                         int64_t groups) {
  dispatch_floating(x.dtype(), [&]<class T>() {
    group_backward<T>(Groups{x.size(0), x.size(1), x.size(2), groups}, dx.data_ptr<T>(), data_or_null<T>(dweight),
                      data_or_null<T>(dbias), dy.data_ptr<T>(), x.data_ptr<T>(), mean.data_ptr<T>(), rstd.data_ptr<T>(),
                      data_or_null<T>(weight));
  });
}

}  // namespace ditto::cpu
