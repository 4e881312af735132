#pragma once
// grid_sample's loops (cpu/grid_sample.cpp: Note [Grid sampling arithmetic]), written once and
// instantiated per level (grid_sample.cpp for the scalar level and the dispatch,
// grid_sample_avx2.cpp, grid_sample_avx512.cpp), where std::fma is one instruction. Every level
// does the same operations in the same order, each fma rounded once, so every level has the same
// bits. Include only from those files.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/parallel.h"
#include "cpu/kernel_args.h"
#include "cpu/loops.h"
#include "cpu/simd.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu::grid_impl {

#define DITTO_GRID_DECLARE(level)                                                                              \
  void forward_##level(const TensorBase& out, const TensorBase& input, const TensorBase& grid,                 \
                       const GridSampleArgs& a);                                                               \
  void backward_##level(const TensorBase& grad_input, const TensorBase& grad_grid, const TensorBase& grad_out, \
                        const TensorBase& input, const TensorBase& grid, const GridSampleArgs& a);
DITTO_GRID_DECLARE(scalar)
DITTO_GRID_DECLARE(avx2)
DITTO_GRID_DECLARE(avx512)
#undef DITTO_GRID_DECLARE

inline namespace DITTO_SIMD_ISA {

// An index from a floored or rounded coordinate; coordinates outside int32 (where PyTorch's
// int conversion gives INT_MIN) are far out of bounds.
template <class T>
int64_t to_index(T v) {
  return v > T(-2147483648.0) && v < T(2147483647.0) ? static_cast<int64_t>(v) : std::numeric_limits<int32_t>::min();
}

// One spatial dim's coordinate rule, 2-D (vectorised kernel) semantics.
template <class T>
struct Axis2 {
  int64_t size;
  bool align;
  GridPadding pad;
  T max_val, scale, low, twice_span;
  bool empty;
  Axis2(int64_t n, bool a, GridPadding p)
      : size(n),
        align(a),
        pad(p),
        max_val(static_cast<T>(n - 1)),
        scale(a ? static_cast<T>(n - 1) / 2 : static_cast<T>(n) / 2),
        low(a ? T(0) : T(-0.5)),
        twice_span(a ? static_cast<T>(n - 1) * 2 : static_cast<T>(n) * 2),
        empty(a ? n <= 1 : n <= 0) {}
  T unnormalize(T g) const { return align ? (g + T(1)) * scale : std::fma(g + T(1), scale, T(-0.5)); }
  // min(max_val, max(0, in)), NaN to 0
  T clip(T in) const {
    const T lo = in > T(0) ? in : T(0);
    return lo < max_val ? lo : max_val;
  }
  // The reflected coordinate (empty span: 0); sign: the derivative's sign (+1 or -1).
  T reflect(T in, T& sign) const {
    if (empty) {
      sign = T(0);
      return T(0);
    }
    const T m = in - low;
    const T a = std::fabs(m);
    const T flips = std::trunc(a / twice_span);
    const T extra = std::fma(-flips, twice_span, a);
    const T reflected = twice_span - extra;
    const bool more = extra > reflected;
    sign = more != (m < T(0)) ? T(-1) : T(1);
    return (more ? reflected : extra) + low;
  }
  T compute(T in) const {
    T sign;
    if (pad == GridPadding::Border) return clip(in);
    if (pad == GridPadding::Reflection) return clip(reflect(in, sign));
    return in;
  }
  T apply(T g) const { return compute(unnormalize(g)); }
  // apply, and the derivative of the source coordinate by g (0 at and beyond a clipped border)
  T apply_grad(T g, T& mult) const {
    T x = unnormalize(g);
    mult = scale;
    if (pad == GridPadding::Reflection) {
      T sign;
      x = reflect(x, sign);
      mult = sign * scale;
      if (empty) return T(0);
    }
    if (pad != GridPadding::Zeros) {
      const T r = clip(x);
      if (!(x > T(0)) || r == max_val) mult = T(0);
      x = r;
    }
    return x;
  }
};

// Whether floor(q) flips (q >= 0) are even, as PyTorch's int(floor(q)) % 2 == 0, without its
// undefined conversion of a huge or non-finite q (x86 makes those INT_MIN: even).
template <class T>
bool even_flips(T q) {
  const T f = std::floor(q);
  return !(f < T(2147483648.0)) || std::fmod(f, T(2)) == T(0);
}

// The 3-D rule (scalar kernel semantics).
template <class T>
struct Axis3 {
  int64_t size;
  bool align;
  GridPadding pad;
  T unnormalize(T g) const {
    return align ? ((g + T(1)) / T(2)) * static_cast<T>(size - 1) : ((g + T(1)) * static_cast<T>(size) - T(1)) / T(2);
  }
  // std::min(size - 1, std::max(in, 0)): NaN stays NaN through max, then min gives size - 1
  T clip(T in) const { return std::min(static_cast<T>(size - 1), std::max(in, T(0))); }
  // PyTorch's reflect_coordinates for this axis's align_corners (an empty span gives 0); sign: the
  // derivative's sign (+1, -1; 0 for the empty span), as reflect_coordinates_set_grad.
  T reflect(T in, T& sign) const {
    const int64_t tl = align ? 0 : -1, th = align ? 2 * (size - 1) : 2 * size - 1;
    if (tl == th) {
      sign = T(0);
      return T(0);
    }
    const T mn = static_cast<T>(tl) / 2, span = static_cast<T>(th - tl) / 2;
    T m = in - mn;
    sign = T(1);
    if (m < T(0)) {
      sign = T(-1);
      m = -m;
    }
    const T extra = std::fmod(m, span);
    if (even_flips(m / span)) return extra + mn;
    sign = -sign;
    return span - extra + mn;
  }
  T apply(T g) const {
    T x = unnormalize(g), sign;
    if (pad == GridPadding::Border) x = clip(x);
    if (pad == GridPadding::Reflection) x = clip(reflect(x, sign));
    return x;
  }
  // apply, and the derivative of the source coordinate by g: PyTorch's _set_grad rules, whose clip
  // differs from clip's for NaN (it passes through, gradient 1)
  T apply_grad(T g, T& mult) const {
    mult = align ? static_cast<T>(size - 1) / 2 : static_cast<T>(size) / 2;
    T x = unnormalize(g);
    auto clip_grad = [&](T in, T& gc) {
      if (in <= T(0)) {
        gc = T(0);
        return T(0);
      }
      const T mx = static_cast<T>(size - 1);
      if (in >= mx) {
        gc = T(0);
        return mx;
      }
      gc = T(1);
      return in;
    };
    T gc;
    if (pad == GridPadding::Border) {
      x = clip_grad(x, gc);
      mult = mult * gc;
    } else if (pad == GridPadding::Reflection) {
      T gr;
      x = clip_grad(reflect(x, gr), gc);
      mult = mult * gr * gc;
    }
    return x;
  }
};

// PyTorch's cubic convolution coefficients (A = -0.75) and their derivatives, as its AVX2 kernel
// computes them (a product and a constant fused, a sum of two products left as it is: its
// constant products are exact).
template <class T>
void cubic_coeffs(T t, T c[4]) {
  const T A = T(-0.75);
  T x = t + T(1);
  c[0] = ((A * x - T(5) * A) * x + T(8) * A) * x - T(4) * A;
  x = t;
  c[1] = std::fma(std::fma(A + T(2), x, -(A + T(3))) * x, x, T(1));
  x = T(1) - t;
  c[2] = std::fma(std::fma(A + T(2), x, -(A + T(3))) * x, x, T(1));
  x = T(2) - t;
  c[3] = ((A * x - T(5) * A) * x + T(8) * A) * x - T(4) * A;
}
template <class T>
void cubic_coeffs_grad(T t, T c[4]) {
  const T A = T(-0.75);
  T x = T(-1) - t;
  c[0] = (T(-3) * A * x - T(10) * A) * x - T(8) * A;
  x = T(0) - t;
  c[1] = (T(-3) * (A + T(2)) * x - T(2) * (A + T(3))) * x;
  x = T(1) - t;
  c[2] = (T(3) * (A + T(2)) * x - T(2) * (A + T(3))) * x;
  x = T(2) - t;
  c[3] = (T(3) * A * x - T(10) * A) * x + T(8) * A;
}

// One 2-D output position's taps (flat input offsets, -1 out of bounds) and what its gradients
// need: bilinear the distances and corners nw, ne, sw, se; nearest one tap; bicubic 16 taps,
// x-major (k = 4 * i + j for x offset i - 1, y offset j - 1), and the coefficients.
template <class T>
struct Taps2 {
  int n = 0;
  int64_t off[16];
  T w[4];            // bilinear weights nw, ne, sw, se
  T dn, ds, dw, de;  // bilinear distances n, s, w, e
  T tx, ty, cx[4], cy[4], cxg[4], cyg[4];
  T gx_mult, gy_mult;
};

template <class T>
struct Sampler2 {
  using Taps = Taps2<T>;
  static constexpr int dims = 2;  // coordinates per grid position (x, y)
  int64_t H, W;
  Axis2<T> ax, ay;
  GridSampleArgs a;
  int64_t at(int64_t iy, int64_t ix) const { return iy >= 0 && iy < H && ix >= 0 && ix < W ? iy * W + ix : -1; }

  void taps(const T* g, Taps2<T>& t, bool grad) const { taps(g[0], g[1], t, grad); }
  void taps(T gx, T gy, Taps2<T>& t, bool grad) const {
    t.gx_mult = t.gy_mult = T(0);
    if (a.mode == GridMode::Nearest) {
      const T x = std::nearbyint(ax.apply(gx)), y = std::nearbyint(ay.apply(gy));
      t.n = 1;
      t.off[0] = at(to_index(y), to_index(x));
      return;
    }
    if (a.mode == GridMode::Bilinear) {
      const T x = grad ? ax.apply_grad(gx, t.gx_mult) : ax.apply(gx);
      const T y = grad ? ay.apply_grad(gy, t.gy_mult) : ay.apply(gy);
      const T xw = std::floor(x), yn = std::floor(y);
      t.dw = x - xw, t.de = T(1) - t.dw, t.dn = y - yn, t.ds = T(1) - t.dn;
      t.w[0] = t.ds * t.de, t.w[1] = t.ds * t.dw, t.w[2] = t.dn * t.de, t.w[3] = t.dn * t.dw;
      const int64_t ix = to_index(xw), iy = to_index(yn);
      t.n = 4;
      t.off[0] = at(iy, ix), t.off[1] = at(iy, ix + 1), t.off[2] = at(iy + 1, ix), t.off[3] = at(iy + 1, ix + 1);
      return;
    }
    // bicubic: each tap's coordinate goes through the padding rule (then truncated to an int)
    const T x = ax.unnormalize(gx), y = ay.unnormalize(gy);
    t.gx_mult = ax.scale, t.gy_mult = ay.scale;
    const T ix = std::floor(x), iy = std::floor(y);
    t.tx = x - ix, t.ty = y - iy;
    cubic_coeffs(t.tx, t.cx);
    cubic_coeffs(t.ty, t.cy);
    if (grad) {
      cubic_coeffs_grad(t.tx, t.cxg);
      cubic_coeffs_grad(t.ty, t.cyg);
    }
    t.n = 16;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        t.off[4 * i + j] = at(to_index(ay.compute(iy + T(-1 + j))), to_index(ax.compute(ix + T(-1 + i))));
  }

  // One channel's output at a position, from its plane x.
  T sample(const T* x, const Taps2<T>& t) const {
    auto v = [&](int k) { return t.off[k] >= 0 ? x[t.off[k]] : T(0); };
    if (t.n == 1) return v(0);
    if (t.n == 4) return std::fma(v(3), t.w[3], std::fma(v(2), t.w[2], std::fma(v(1), t.w[1], v(0) * t.w[0])));
    // each row: (c0 * v0 fused onto c1 * v1) + c2 * v2 + c3 * v3; the rows: the fused chain
    T r[4];
    for (int j = 0; j < 4; ++j)
      r[j] = std::fma(t.cx[0], v(j), t.cx[1] * v(4 + j)) + t.cx[2] * v(8 + j) + t.cx[3] * v(12 + j);
    return std::fma(t.cy[3], r[3], std::fma(t.cy[2], r[2], std::fma(t.cy[1], r[1], t.cy[0] * r[0])));
  }

  // Tap k's share of the output gradient g (its term of the input gradient), (g * a) * b:
  // bilinear weight * g (a = weight, b = 1), bicubic g * cx * cy, nearest g (a = b = 1).
  void share_factors(const Taps2<T>& t, int k, T& fa, T& fb) const {
    fa = t.n == 4 ? t.w[k] : t.n == 16 ? t.cx[k / 4] : T(1);
    fb = t.n == 16 ? t.cy[k % 4] : T(1);
  }
  static T share(T g, T fa, T fb) { return g * fa * fb; }

  // The position's grid gradient from its channel sums acc (x, y).
  void grid_grad(const Taps2<T>& t, const T* acc, T* out) const {
    out[0] = acc[0] * t.gx_mult, out[1] = acc[1] * t.gy_mult;
  }
  // One channel's terms of the position's grid gradient, added to acc (x, y).
  void grid_terms(const T* x, const Taps2<T>& t, T g, T* acc) const {
    T &gx = acc[0], &gy = acc[1];
    auto v = [&](int k) { return t.off[k] >= 0 ? x[t.off[k]] : T(0); };
    if (t.n == 4) {
      const T nw = v(0), ne = v(1), sw = v(2), se = v(3);
      // a * b + c * d as PyTorch's AVX2 build computes it: a * b rounded, c * d fused onto it
      gx = std::fma(std::fma(se - sw, t.dn, (ne - nw) * t.ds), g, gx);
      gy = std::fma(std::fma(se - ne, t.dw, (sw - nw) * t.de), g, gy);
    } else if (t.n == 16) {
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          const T val = v(4 * i + j);
          gx = std::fma(-(val * g * t.cxg[i]), t.cy[j], gx);
          gy = std::fma(-(val * g * t.cyg[j]), t.cx[i], gy);
        }
    }
  }
};

// A 3-D output position's taps: the corners tnw, tne, tsw, tse, bnw, bne, bsw, bse (nearest:
// one), with their weights and the distances the grid gradient needs.
template <class T>
struct Taps3 {
  int n = 0;
  int64_t off[8];
  T w[8];
  T x, y, z;     // source coordinates
  T x0, y0, z0;  // the tnw corner, as T
  T gx_mult, gy_mult, gz_mult;
};

template <class T>
struct Sampler3 {
  using Taps = Taps3<T>;
  static constexpr int dims = 3;  // (x, y, z)
  int64_t D, H, W;
  Axis3<T> ax, ay, az;
  GridSampleArgs a;
  int64_t at(int64_t iz, int64_t iy, int64_t ix) const {
    return iz >= 0 && iz < D && iy >= 0 && iy < H && ix >= 0 && ix < W ? (iz * H + iy) * W + ix : -1;
  }
  void taps(const T* g, Taps3<T>& t, bool grad) const { taps(g[0], g[1], g[2], t, grad); }
  void taps(T gx, T gy, T gz, Taps3<T>& t, bool grad) const {
    t.gx_mult = t.gy_mult = t.gz_mult = T(0);
    const T x = grad ? ax.apply_grad(gx, t.gx_mult) : ax.apply(gx);
    const T y = grad ? ay.apply_grad(gy, t.gy_mult) : ay.apply(gy);
    const T z = grad ? az.apply_grad(gz, t.gz_mult) : az.apply(gz);
    if (a.mode == GridMode::Nearest) {
      t.n = 1;
      t.off[0] = at(to_index(std::round(z)), to_index(std::round(y)), to_index(std::round(x)));
      t.w[0] = T(1);
      return;
    }
    const int64_t ix = to_index(std::floor(x)), iy = to_index(std::floor(y)), iz = to_index(std::floor(z));
    t.x = x, t.y = y, t.z = z;
    t.x0 = static_cast<T>(ix), t.y0 = static_cast<T>(iy), t.z0 = static_cast<T>(iz);
    const T x1 = static_cast<T>(ix + 1), y1 = static_cast<T>(iy + 1), z1 = static_cast<T>(iz + 1);
    t.n = 8;
    t.w[0] = (x1 - x) * (y1 - y) * (z1 - z);
    t.w[1] = (x - t.x0) * (y1 - y) * (z1 - z);
    t.w[2] = (x1 - x) * (y - t.y0) * (z1 - z);
    t.w[3] = (x - t.x0) * (y - t.y0) * (z1 - z);
    t.w[4] = (x1 - x) * (y1 - y) * (z - t.z0);
    t.w[5] = (x - t.x0) * (y1 - y) * (z - t.z0);
    t.w[6] = (x1 - x) * (y - t.y0) * (z - t.z0);
    t.w[7] = (x - t.x0) * (y - t.y0) * (z - t.z0);
    for (int k = 0; k < 8; ++k) t.off[k] = at(iz + (k >> 2), iy + ((k >> 1) & 1), ix + (k & 1));
  }
  // out = 0, then += each in-bounds corner's value * weight, in corner order
  T sample(const T* x, const Taps3<T>& t) const {
    if (t.n == 1) return t.off[0] >= 0 ? x[t.off[0]] : T(0);
    T s = T(0);
    for (int k = 0; k < 8; ++k)
      if (t.off[k] >= 0) s = s + x[t.off[k]] * t.w[k];
    return s;
  }
  void share_factors(const Taps3<T>& t, int k, T& fa, T& fb) const {
    fa = t.n == 1 ? T(1) : t.w[k];
    fb = T(1);
  }
  static T share(T g, T fa, T fb) { return g * fa * fb; }
  // gix, giy, giz: per in-bounds corner, -= or += value * (the other two distances) * g
  void grid_grad(const Taps3<T>& t, const T* acc, T* out) const {
    if (t.n == 1) {  // nearest: no grid gradient (PyTorch's zeros, never -0)
      out[0] = out[1] = out[2] = T(0);
      return;
    }
    out[0] = t.gx_mult * acc[0], out[1] = t.gy_mult * acc[1], out[2] = t.gz_mult * acc[2];
  }
  void grid_terms(const T* x, const Taps3<T>& t, T g, T* acc) const {
    T &gx = acc[0], &gy = acc[1], &gz = acc[2];
    if (t.n != 8) return;
    const T x1 = t.x0 + T(1), y1 = t.y0 + T(1), z1 = t.z0 + T(1);
    for (int k = 0; k < 8; ++k) {
      if (t.off[k] < 0) continue;
      const T v = x[t.off[k]];
      const bool bx = k & 1, by = (k >> 1) & 1, bz = (k >> 2) & 1;
      const T dx = bx ? t.x - t.x0 : x1 - t.x, dy = by ? t.y - t.y0 : y1 - t.y, dz = bz ? t.z - t.z0 : z1 - t.z;
      const T tx = v * dy * dz * g, ty = v * dx * dz * g, tz = v * dx * dy * g;
      gx = bx ? gx + tx : gx - tx;
      gy = by ? gy + ty : gy - ty;
      gz = bz ? gz + tz : gz - tz;
    }
  }
};

// Shapes of a call: N samples, C channels, P output positions, S input positions per plane.
struct GridShape {
  int64_t N, C, P, S;
};
inline GridShape grid_shape(const TensorBase& input, const TensorBase& grid) {
  int64_t P = 1, S = 1;
  for (int64_t d = 1; d + 1 < grid.dim(); ++d) P *= grid.size(d);
  for (int64_t d = 2; d < input.dim(); ++d) S *= input.size(d);
  return {input.size(0), input.size(1), P, S};
}

// Positions are taken in blocks (their taps computed once), each block channel by channel, so
// that the output is written row by row; the block changes no bit (each output is its own).
inline constexpr int64_t kBlock = 64;

template <class T, class Sampler>
void forward(const Sampler& sm, const GridShape& s, const T* px, const T* pg, T* py) {
  constexpr int Dims = Sampler::dims;
  const int64_t blocks = (s.P + kBlock - 1) / kBlock;
  detail::parallel_for(s.N * blocks, s.C * kBlock * 16, [&](int64_t b, int64_t e) {
    typename Sampler::Taps t[kBlock];
    for (int64_t q = b; q < e; ++q) {
      const int64_t n = q / blocks, p0 = (q % blocks) * kBlock, m = std::min(kBlock, s.P - p0);
      const T* g = pg + Dims * (n * s.P + p0);
      for (int64_t i = 0; i < m; ++i) sm.taps(g + Dims * i, t[i], false);
      const T* x = px + n * s.C * s.S;
      T* y = py + n * s.C * s.P + p0;
      for (int64_t c = 0; c < s.C; ++c, x += s.S, y += s.P)
        for (int64_t i = 0; i < m; ++i) y[i] = sm.sample(x, t[i]);
    }
  });
}

// The backward of one sample n: its positions' taps (once), each channel's input gradient in
// the Note's order (channels over threads), each position's grid gradient over channels.
template <class T, class Sampler>
void backward(const Sampler& sm, const GridShape& s, const T* px, const T* pg, const T* pgo, T* pgx, T* pgg) {
  constexpr int Dims = Sampler::dims;
  using Taps = typename Sampler::Taps;
  std::vector<Taps> taps(static_cast<std::size_t>(s.P));
  const std::size_t kmax = Dims == 2 ? 16 : 8;
  std::vector<int64_t> off(pgx ? static_cast<std::size_t>(s.P) * kmax : 0);
  std::vector<T> wa(off.size()), wb(off.size());
  // PyTorch's 2-D kernel scatters a vector of positions at a time: 8 floats or 4 doubles
  const int64_t block = Dims == 2 ? int64_t(32 / sizeof(T)) : 1;
  for (int64_t n = 0; n < s.N; ++n) {
    const T* g = pg + n * s.P * Dims;
    detail::parallel_for(s.P, 64, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) sm.taps(g + Dims * p, taps[static_cast<std::size_t>(p)], true);
    });
    const T* go = pgo + n * s.C * s.P;
    if (pgx) {
      // the taps' offsets and weights side by side, for the channels' scatters: (position, tap)
      const int K = taps.empty() ? 0 : taps[0].n;
      detail::parallel_for(s.P, 64, [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p)
          for (int k = 0; k < K; ++k) {
            const Taps& t = taps[static_cast<std::size_t>(p)];
            const auto j = static_cast<std::size_t>(p * K + k);
            off[j] = t.off[k];
            sm.share_factors(t, k, wa[j], wb[j]);
          }
      });
      detail::parallel_for(s.C, s.P * K, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
          T* gx = pgx + (n * s.C + c) * s.S;
          std::fill(gx, gx + s.S, T(0));
          const T* gc = go + c * s.P;
          for (int64_t p0 = 0; p0 < s.P; p0 += block) {
            const int64_t p1 = std::min(s.P, p0 + block);
            for (int k = 0; k < K; ++k)
              for (int64_t p = p0; p < p1; ++p) {
                const auto j = static_cast<std::size_t>(p * K + k);
                if (off[j] >= 0) gx[off[j]] = gx[off[j]] + Sampler::share(gc[p], wa[j], wb[j]);
              }
          }
        }
      });
    }
    T* gg = pgg + n * s.P * Dims;
    const int64_t blocks = (s.P + kBlock - 1) / kBlock;
    detail::parallel_for(blocks, s.C * kBlock * 8, [&](int64_t b, int64_t e) {
      for (int64_t q = b; q < e; ++q) {
        const int64_t p0 = q * kBlock, m = std::min(kBlock, s.P - p0);
        T acc[kBlock][Dims] = {};
        const T* x = px + n * s.C * s.S;
        // channels ascending for every position (a block's positions side by side)
        for (int64_t c = 0; c < s.C; ++c, x += s.S)
          for (int64_t i = 0; i < m; ++i)
            sm.grid_terms(x, taps[static_cast<std::size_t>(p0 + i)], go[c * s.P + p0 + i], acc[i]);
        for (int64_t i = 0; i < m; ++i)
          sm.grid_grad(taps[static_cast<std::size_t>(p0 + i)], acc[i], gg + Dims * (p0 + i));
      }
    });
  }
}

// Runs f(sampler) with the 2-D or 3-D sampler of input's rank.
template <class T, class F>
void with_sampler(const TensorBase& input, const GridSampleArgs& a, F&& f) {
  const bool ac = a.align_corners;
  if (input.dim() == 4) {
    const int64_t H = input.size(2), W = input.size(3);
    f(Sampler2<T>{H, W, Axis2<T>(W, ac, a.padding), Axis2<T>(H, ac, a.padding), a});
  } else {
    const int64_t D = input.size(2), H = input.size(3), W = input.size(4);
    f(Sampler3<T>{D, H, W, {W, ac, a.padding}, {H, ac, a.padding}, {D, ac, a.padding}, a});
  }
}

inline void run_forward(const TensorBase& out, const TensorBase& input, const TensorBase& grid,
                        const GridSampleArgs& a) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const GridShape s = grid_shape(input, grid);
    with_sampler<T>(input, a, [&](const auto& sm) {
      forward<T>(sm, s, input.data_ptr<T>(), grid.data_ptr<T>(), out.data_ptr<T>());
    });
  });
}

inline void run_backward(const TensorBase& grad_input, const TensorBase& grad_grid, const TensorBase& grad_out,
                         const TensorBase& input, const TensorBase& grid, const GridSampleArgs& a) {
  dispatch_floating(input.dtype(), [&]<class T>() {
    const GridShape s = grid_shape(input, grid);
    T* pgx = grad_input.defined() ? grad_input.data_ptr<T>() : nullptr;
    with_sampler<T>(input, a, [&](const auto& sm) {
      backward<T>(sm, s, input.data_ptr<T>(), grid.data_ptr<T>(), grad_out.data_ptr<T>(), pgx, grad_grid.data_ptr<T>());
    });
  });
}

}  // namespace DITTO_SIMD_ISA
}  // namespace ditto::cpu::grid_impl

#define DITTO_GRID_LEVEL(level)                                                                                \
  namespace ditto::cpu::grid_impl {                                                                            \
  void forward_##level(const TensorBase& out, const TensorBase& input, const TensorBase& grid,                 \
                       const GridSampleArgs& a) {                                                              \
    run_forward(out, input, grid, a);                                                                          \
  }                                                                                                            \
  void backward_##level(const TensorBase& grad_input, const TensorBase& grad_grid, const TensorBase& grad_out, \
                        const TensorBase& input, const TensorBase& grid, const GridSampleArgs& a) {            \
    run_backward(grad_input, grad_grid, grad_out, input, grid, a);                                             \
  }                                                                                                            \
  }
