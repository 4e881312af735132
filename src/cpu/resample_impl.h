#pragma once
// Padding and upsampling's loops (cpu/resample.cpp: the taps, Note [Resampling order]), written
// once and instantiated per level (resample.cpp for the scalar level and the dispatch,
// resample_avx2.cpp, resample_avx512.cpp), where std::fma is one instruction. Every level does
// the same operations in the same order, each fma rounded once, so every level has the same bits.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/parallel.h"
#include "cpu/simd.h"

namespace ditto::cpu::resample {

// One axis of a resampling: taps[o * ntaps + j] for output position o; index -1 reads the pad value.
template <class T>
struct Axis {
  int64_t in = 1, out = 1, ntaps = 1;
  bool constant = false;  // some tap is -1
  std::vector<int64_t> idx{0};
  std::vector<T> w{T(1)};
};

enum class Combine { Sum, Linear, Cubic };

// A resampling of contiguous (planes, ax[0].in, ax[1].in, ax[2].in) to (planes, ax[0].out, ...):
// spatial dims fewer than three get leading axes of size 1 with one tap.
template <class T>
struct Resampling {
  int64_t planes = 1;
  Axis<T> ax[3];
  Combine combine = Combine::Sum;
  T value = T(0);
};

// The level's loops (float and double; resample.cpp runs other dtypes' padding at the scalar level).
#define DITTO_RESAMPLE_DECLARE_T(level, T, sfx)                              \
  void forward_##sfx##_##level(const Resampling<T>& r, const T* in, T* out); \
  void backward_##sfx##_##level(const Resampling<T>& r, const T* gout, T* gin);
#define DITTO_RESAMPLE_DECLARE(level) \
  DITTO_RESAMPLE_DECLARE_T(level, float, f32) DITTO_RESAMPLE_DECLARE_T(level, double, f64)
DITTO_RESAMPLE_DECLARE(scalar)
DITTO_RESAMPLE_DECLARE(avx2)
DITTO_RESAMPLE_DECLARE(avx512)
#undef DITTO_RESAMPLE_DECLARE
#undef DITTO_RESAMPLE_DECLARE_T

inline namespace DITTO_SIMD_ISA {

// The inverse of an axis, for the backward: for input position i, the groups [gstart[i],
// gstart[i + 1]) in increasing o, each the taps of one output o that read i, in tap order.
template <class T>
struct Inverse {
  struct Group {
    int64_t o, e0, e1;  // entries [e0, e1) of ew
  };
  std::vector<int64_t> gstart;
  std::vector<Group> groups;
  std::vector<T> ew;  // each entry's weight
};

template <class T>
Inverse<T> invert(const Axis<T>& a) {
  Inverse<T> r;
  std::vector<int64_t> count(static_cast<std::size_t>(a.in) + 1, 0);
  // groups: an output o and input i with at least one tap; entries in (o, tap) order
  std::vector<std::vector<typename Inverse<T>::Group>> by_in(static_cast<std::size_t>(a.in));
  std::vector<std::vector<T>> w_in(static_cast<std::size_t>(a.in));
  for (int64_t o = 0; o < a.out; ++o)
    for (int64_t j = 0; j < a.ntaps; ++j) {
      const int64_t i = a.idx[static_cast<std::size_t>(o * a.ntaps + j)];
      if (i < 0) continue;
      auto& gs = by_in[static_cast<std::size_t>(i)];
      auto& ws = w_in[static_cast<std::size_t>(i)];
      if (gs.empty() || gs.back().o != o) gs.push_back({o, int64_t(ws.size()), int64_t(ws.size())});
      ws.push_back(a.w[static_cast<std::size_t>(o * a.ntaps + j)]);
      gs.back().e1 = int64_t(ws.size());
    }
  r.gstart.assign(static_cast<std::size_t>(a.in) + 1, 0);
  for (int64_t i = 0; i < a.in; ++i) {
    const int64_t base = int64_t(r.ew.size());
    for (auto g : by_in[static_cast<std::size_t>(i)]) r.groups.push_back({g.o, g.e0 + base, g.e1 + base});
    r.ew.insert(r.ew.end(), w_in[static_cast<std::size_t>(i)].begin(), w_in[static_cast<std::size_t>(i)].end());
    r.gstart[static_cast<std::size_t>(i) + 1] = int64_t(r.groups.size());
  }
  return r;
}

// The one-tap forward (padding, nearest): row (p, o0, o1) of the output, ax[2].out elements,
// each a copy of the element its taps name (or the pad value).
template <class T>
struct Forward {
  const Resampling<T>& r;
  int64_t o1 = 0;

  // The last axis over one input line (nullptr: the constant).
  void line(const T* x, T* dst) const {
    const Axis<T>& a = r.ax[2];
    const int64_t n = a.out;
    if (!x) {
      std::fill(dst, dst + n, r.value);
      return;
    }
    const int64_t* ix = a.idx.data();
    if (a.constant) {
      for (int64_t q = 0; q < n; ++q) dst[q] = ix[q] < 0 ? r.value : x[ix[q]];
    } else {
      for (int64_t q = 0; q < n; ++q) dst[q] = x[ix[q]];
    }
  }
  // Axis d (0 or 1) at output position o over a slab of the input (nullptr: the constant).
  void axis(int d, const T* slab, int64_t o, T* dst) const {
    const int64_t stride = d == 0 ? r.ax[1].in * r.ax[2].in : r.ax[2].in;
    const int64_t i = r.ax[d].idx[static_cast<std::size_t>(o)];
    const T* s = slab && i >= 0 ? slab + i * stride : nullptr;
    if (d == 0)
      axis(1, s, o1, dst);
    else
      line(s, dst);
  }
};

// The interpolating forward, a plane at a time: each axis's taps are combined once per distinct
// row they read and kept (the last axis over every input row a tap reads, then axis 1, then axis
// 0), so no row is interpolated twice. Each output is still the expression of Note [Resampling
// order]: a row's interpolation does not depend on which output row uses it.
template <class T>
void combine_rows(const Axis<T>& a, int64_t o, const T* rows, int64_t stride, int64_t n, T* dst) {
  const int64_t k = a.ntaps;
  const int64_t* ix = a.idx.data() + o * k;
  const T* w = a.w.data() + o * k;
  if (k == 1) {
    std::copy(rows + ix[0] * stride, rows + ix[0] * stride + n, dst);
    return;
  }
  const T* r0 = rows + ix[0] * stride;
  const T* r1 = rows + ix[1] * stride;
  for (int64_t q = 0; q < n; ++q) dst[q] = std::fma(r0[q], w[0], r1[q] * w[1]);
  for (int64_t j = 2; j < k; ++j) {
    const T* rj = rows + ix[j] * stride;
    for (int64_t q = 0; q < n; ++q) dst[q] = std::fma(rj[q], w[j], dst[q]);
  }
}

template <class T>
void cached_forward(const Resampling<T>& r, const T* in, T* out) {
  const Axis<T>&a0 = r.ax[0], &a1 = r.ax[1], &a2 = r.ax[2];
  const int64_t in_plane = a0.in * a1.in * a2.in, out_plane = a0.out * a1.out * a2.out;
  const int64_t W = a2.out;
  const int64_t cost = a0.in * a1.in * W * a2.ntaps + a0.in * a1.out * W * a1.ntaps + out_plane * a0.ntaps;
  // the rows of each axis that some tap reads
  auto used = [](const Axis<T>& a) {
    std::vector<char> u(static_cast<std::size_t>(a.in), 0);
    for (int64_t i : a.idx) u[static_cast<std::size_t>(i)] = 1;
    return u;
  };
  const std::vector<char> u0 = used(a0), u1 = used(a1);
  detail::parallel_for(r.planes, cost, [&](int64_t p0, int64_t p1) {
    std::vector<T> inner(static_cast<std::size_t>(a0.in * a1.in * W));  // (d_in, h_in, W_out)
    std::vector<T> mid(static_cast<std::size_t>(a0.in * a1.out * W));   // (d_in, H_out, W_out)
    for (int64_t p = p0; p < p1; ++p) {
      const T* x = in + p * in_plane;
      const int64_t k = a2.ntaps;
      for (int64_t d = 0; d < a0.in; ++d) {
        if (!u0[static_cast<std::size_t>(d)]) continue;
        for (int64_t h = 0; h < a1.in; ++h) {
          if (!u1[static_cast<std::size_t>(h)]) continue;
          const T* line = x + (d * a1.in + h) * a2.in;
          T* dst = inner.data() + (d * a1.in + h) * W;
          const int64_t* ix = a2.idx.data();
          const T* w = a2.w.data();
          if (k == 1) {
            for (int64_t q = 0; q < W; ++q) dst[q] = line[ix[q]];
          } else {
            for (int64_t q = 0; q < W; ++q) {
              T acc = std::fma(line[ix[k * q]], w[k * q], line[ix[k * q + 1]] * w[k * q + 1]);
              for (int64_t j = 2; j < k; ++j) acc = std::fma(line[ix[k * q + j]], w[k * q + j], acc);
              dst[q] = acc;
            }
          }
        }
        for (int64_t oh = 0; oh < a1.out; ++oh)
          combine_rows(a1, oh, inner.data() + d * a1.in * W, W, W, mid.data() + (d * a1.out + oh) * W);
      }
      T* y = out + p * out_plane;
      for (int64_t od = 0; od < a0.out; ++od)
        combine_rows(a0, od, mid.data(), a1.out * W, a1.out * W, y + od * a1.out * W);
    }
  });
}

template <class T>
void run_forward(const Resampling<T>& r, const T* in, T* out) {
  if constexpr (std::is_floating_point_v<T>) {
    if (r.ax[0].ntaps > 1 || r.ax[1].ntaps > 1 || r.ax[2].ntaps > 1) return cached_forward(r, in, out);
  }
  const int64_t rows = r.ax[0].out * r.ax[1].out, n = r.ax[2].out;
  const int64_t in_plane = r.ax[0].in * r.ax[1].in * r.ax[2].in;
  detail::parallel_for(r.planes * rows, n, [&](int64_t b, int64_t e) {
    Forward<T> f{r};
    for (int64_t t = b; t < e; ++t) {
      const int64_t p = t / rows, o0 = (t % rows) / r.ax[1].out;
      f.o1 = t % r.ax[1].out;
      f.axis(0, in + p * in_plane, o0, out + t * n);
    }
  });
}

// The backward a plane at a time, in PyTorch's own form: the plane's outputs in row-major order,
// each adding its taps' contributions to the elements they read (Note [Resampling order]). For
// one output row (od, oh), the taps of axes 0 and 1 name input rows; when those rows are distinct,
// every element gets all its contributions from this output row through one tap pair, so walking
// the tap pairs outside the output columns keeps each element's order (and its bits).
template <class T, Combine C>
void scatter_planes(const Resampling<T>& r, const T* gout, T* gin) {
  const Axis<T>&a0 = r.ax[0], &a1 = r.ax[1], &a2 = r.ax[2];
  const int64_t in_plane = a0.in * a1.in * a2.in, out_plane = a0.out * a1.out * a2.out;
  const int64_t cost = out_plane * a0.ntaps * a1.ntaps * a2.ntaps + in_plane;
  const int64_t k0 = a0.ntaps, k1 = a1.ntaps, k2 = a2.ntaps, W = a2.out;
  const int64_t *ix0 = a0.idx.data(), *ix1 = a1.idx.data(), *ix2 = a2.idx.data();
  const T *w0s = a0.w.data(), *w1s = a1.w.data(), *w2s = a2.w.data();
  // Adds output row g (W columns) into input row `row` through the last axis, with tap weight w
  // (the outer taps' product; for bicubic, the y tap's weight, applied to g first): each input
  // column takes its entries of the last axis's inverse, in (output column, tap) order, so the
  // column's sum stays in a register.
  const Inverse<T> inv2 = invert(a2);
  std::vector<int64_t> eo(inv2.ew.size());  // each entry's output column
  for (const auto& gr : inv2.groups)
    for (int64_t e = gr.e0; e < gr.e1; ++e) eo[static_cast<std::size_t>(e)] = gr.o;
  std::vector<int64_t> estart(static_cast<std::size_t>(a2.in) + 1, 0);
  for (int64_t i = 0; i < a2.in; ++i) {
    const int64_t g1 = inv2.gstart[static_cast<std::size_t>(i) + 1];
    estart[static_cast<std::size_t>(i) + 1] =
        g1 > 0 ? inv2.groups[static_cast<std::size_t>(g1) - 1].e1 : estart[static_cast<std::size_t>(i)];
  }
  const int64_t* eop = eo.data();
  const int64_t* esp = estart.data();
  const T* ewp = inv2.ew.data();
  auto add_row = [&](T* row, const T* g, T w) {
    for (int64_t iw = 0; iw < a2.in; ++iw) {
      T acc = row[iw];
      for (int64_t e = esp[iw]; e < esp[iw + 1]; ++e) {
        if constexpr (C == Combine::Linear)
          acc = std::fma(w * ewp[e], g[eop[e]], acc);
        else if constexpr (C == Combine::Cubic)
          acc = acc + g[eop[e]] * w * ewp[e];
        else
          acc = acc + g[eop[e]];
      }
      row[iw] = acc;
    }
  };
  detail::parallel_for(r.planes, cost, [&](int64_t p0, int64_t p1) {
    std::vector<T*> rows;
    std::vector<T> ws;
    for (int64_t p = p0; p < p1; ++p) {
      T* gx = gin + p * in_plane;
      std::fill(gx, gx + in_plane, T(0));
      const T* g = gout + p * out_plane;
      for (int64_t od = 0; od < a0.out; ++od)
        for (int64_t oh = 0; oh < a1.out; ++oh) {
          const T* grow = g + (od * a1.out + oh) * W;
          // the input rows of this output row's outer tap pairs, in tap order
          rows.clear(), ws.clear();
          for (int64_t j0 = 0; j0 < k0; ++j0) {
            const int64_t id = ix0[od * k0 + j0];
            if (id < 0) continue;
            for (int64_t j1 = 0; j1 < k1; ++j1) {
              const int64_t ih = ix1[oh * k1 + j1];
              if (ih < 0) continue;
              rows.push_back(gx + (id * a1.in + ih) * a2.in);
              ws.push_back(C == Combine::Cubic ? w1s[oh * k1 + j1] : w0s[od * k0 + j0] * w1s[oh * k1 + j1]);
            }
          }
          bool distinct = true;
          for (std::size_t a = 0; a < rows.size() && distinct; ++a)
            for (std::size_t b = a + 1; b < rows.size(); ++b) distinct = distinct && rows[a] != rows[b];
          if (distinct) {
            for (std::size_t a = 0; a < rows.size(); ++a) add_row(rows[a], grow, ws[a]);
            continue;
          }
          // rows repeat (an edge): each output column adds all its tap pairs before the next
          for (int64_t ow = 0; ow < W; ++ow) {
            const T gv = grow[ow];
            if constexpr (C == Combine::Cubic) {  // x taps outer, y taps inner: (g w_y) w_x
              for (int64_t j2 = 0; j2 < k2; ++j2)
                for (std::size_t a = 0; a < rows.size(); ++a) {
                  T& e = rows[a][ix2[ow * k2 + j2]];
                  e = e + gv * ws[a] * w2s[ow * k2 + j2];
                }
            } else {
              for (std::size_t a = 0; a < rows.size(); ++a)
                for (int64_t j2 = 0; j2 < k2; ++j2) {
                  const int64_t iw = ix2[ow * k2 + j2];
                  if constexpr (C == Combine::Linear) {
                    rows[a][iw] = std::fma(ws[a] * w2s[ow * k2 + j2], gv, rows[a][iw]);
                  } else {
                    if (iw >= 0) rows[a][iw] = rows[a][iw] + gv;
                  }
                }
            }
          }
        }
    }
  });
}

template <class T>
void scatter_backward(const Resampling<T>& r, const T* gout, T* gin) {
  switch (r.combine) {
    case Combine::Linear: return scatter_planes<T, Combine::Linear>(r, gout, gin);
    case Combine::Cubic: return scatter_planes<T, Combine::Cubic>(r, gout, gin);
    case Combine::Sum: return scatter_planes<T, Combine::Sum>(r, gout, gin);
  }
}

template <class T>
void gather_backward(const Resampling<T>& r, const T* gout, T* gin) {
  const Inverse<T> inv[3] = {invert(r.ax[0]), invert(r.ax[1]), invert(r.ax[2])};
  const int64_t rows = r.ax[0].in * r.ax[1].in, n = r.ax[2].in;
  const int64_t out_plane = r.ax[0].out * r.ax[1].out * r.ax[2].out;
  const int64_t per_in = std::max<int64_t>(1, out_plane / std::max<int64_t>(1, rows * n));
  const int64_t cost = n * per_in * r.ax[0].ntaps * r.ax[1].ntaps * r.ax[2].ntaps;
  const Combine c = r.combine;
  detail::parallel_for(r.planes * rows, cost, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t p = t / rows, i0 = (t % rows) / r.ax[1].in, i1 = t % r.ax[1].in;
      const T* gp = gout + p * out_plane;
      T* dst = gin + t * n;
      const auto& I0 = inv[0];
      const auto& I1 = inv[1];
      const auto& I2 = inv[2];
      for (int64_t i2 = 0; i2 < n; ++i2) {
        T acc = T(0);
        for (int64_t a = I0.gstart[i0]; a < I0.gstart[i0 + 1]; ++a) {
          const auto& g0 = I0.groups[static_cast<std::size_t>(a)];
          for (int64_t bb = I1.gstart[i1]; bb < I1.gstart[i1 + 1]; ++bb) {
            const auto& g1 = I1.groups[static_cast<std::size_t>(bb)];
            const T* grow = gp + (g0.o * r.ax[1].out + g1.o) * r.ax[2].out;
            for (int64_t cc = I2.gstart[i2]; cc < I2.gstart[i2 + 1]; ++cc) {
              const auto& g2 = I2.groups[static_cast<std::size_t>(cc)];
              const T gv = grow[g2.o];
              if (c == Combine::Sum) {
                const int64_t k = (g0.e1 - g0.e0) * (g1.e1 - g1.e0) * (g2.e1 - g2.e0);
                for (int64_t q = 0; q < k; ++q) acc = acc + gv;
              } else if (c == Combine::Linear) {
                for (int64_t e0 = g0.e0; e0 < g0.e1; ++e0)
                  for (int64_t e1 = g1.e0; e1 < g1.e1; ++e1)
                    for (int64_t e2 = g2.e0; e2 < g2.e1; ++e2) {
                      const T w = I0.ew[static_cast<std::size_t>(e0)] * I1.ew[static_cast<std::size_t>(e1)] *
                                  I2.ew[static_cast<std::size_t>(e2)];
                      acc = std::fma(w, gv, acc);
                    }
              } else {  // bicubic: axes 1 (y) and 2 (x), x taps outer
                for (int64_t e2 = g2.e0; e2 < g2.e1; ++e2)
                  for (int64_t e1 = g1.e0; e1 < g1.e1; ++e1)
                    acc = acc + gv * I1.ew[static_cast<std::size_t>(e1)] * I2.ew[static_cast<std::size_t>(e2)];
              }
            }
          }
        }
        dst[i2] = acc;
      }
    }
  });
}

template <class T>
void run_backward(const Resampling<T>& r, const T* gout, T* gin) {
  // Both forms add each element's contributions in the same order (the same bits): whole planes
  // when there are enough of them to share out, else elements of a plane.
  if (r.planes >= 8) return scatter_backward(r, gout, gin);
  gather_backward(r, gout, gin);
}

}  // namespace DITTO_SIMD_ISA

#define DITTO_RESAMPLE_LEVEL_T(level, T, sfx)                                                            \
  void forward_##sfx##_##level(const Resampling<T>& r, const T* in, T* out) { run_forward(r, in, out); } \
  void backward_##sfx##_##level(const Resampling<T>& r, const T* gout, T* gin) { run_backward(r, gout, gin); }
#define DITTO_RESAMPLE_LEVEL(level)          \
  namespace ditto::cpu::resample {           \
  DITTO_RESAMPLE_LEVEL_T(level, float, f32)  \
  DITTO_RESAMPLE_LEVEL_T(level, double, f64) \
  }

}  // namespace ditto::cpu::resample
