// Matrix products: packing, blocking, threading and the choice of kernel level. Accumulation
// order: Note [GEMM accumulation order] (cpu/gemm.h); the kernels are in cpu/gemm_impl.h.
#include "cpu/gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <type_traits>

#include "core/allocator.h"
#include "core/parallel.h"
#include "cpu/capability.h"
#include "cpu/decl/gemm.h"
#include "cpu/gemm_impl.h"
#include "cpu/gemm_kernels.h"
#include "cpu/loops.h"

DITTO_GEMM_LEVEL(scalar, F32x1, F64x1, kF32Scalar, kF64Scalar)

namespace ditto::cpu {

namespace {
using namespace gemm_detail;

// ------------------------------------------------------------------ integer and bool: simple path

template <class T>
T madd(T a, T b, T acc) {
  if constexpr (std::is_same_v<T, bool>)
    return acc || (a && b);
  else {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(U(acc) + U(a) * U(b));
  }
}

template <class T>
void gemm_simple(T* c, const T* a, int64_t sam, int64_t sak, const T* b, int64_t sbk, int64_t sbn, int64_t M, int64_t N,
                 int64_t K) {
  detail::parallel_for(M, N * K, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      T* ci = c + i * N;
      for (int64_t j = 0; j < N; ++j) ci[j] = T(0);
      for (int64_t k = 0; k < K; ++k) {
        const T aik = a[i * sam + k * sak];
        for (int64_t j = 0; j < N; ++j) ci[j] = madd(aik, b[k * sbk + j * sbn], ci[j]);
      }
    }
  });
}

// ------------------------------------------------------------------ floating point: packed kernels

template <class T>
struct Level {
  Blocking blk;
  MacroKernel<T> macro;
  PackLanes<T> pack_lanes;  // null: the portable loop
  PackLanes<T> pack_steps;  // null: the portable loop
  SmallKernel<T> small;
};

template <class T>
Level<T> level() {
  if constexpr (std::is_same_v<T, float>)
    return by_level(Level<T>{kF32Scalar, gemm_macro_f32_scalar, nullptr, nullptr, gemm_small_f32_scalar},
                    Level<T>{kF32Avx2, gemm_macro_f32_avx2, gemm_pack_lanes_f32_avx2, gemm_pack_steps_f32_avx2,
                             gemm_small_f32_avx2},
                    Level<T>{kF32Avx512, gemm_macro_f32_avx512, gemm_pack_lanes_f32_avx2, gemm_pack_steps_f32_avx2,
                             gemm_small_f32_avx512});
  else
    return by_level(Level<T>{kF64Scalar, gemm_macro_f64_scalar, nullptr, nullptr, gemm_small_f64_scalar},
                    Level<T>{kF64Avx2, gemm_macro_f64_avx2, gemm_pack_lanes_f64_avx2, gemm_pack_steps_f64_avx2,
                             gemm_small_f64_avx2},
                    Level<T>{kF64Avx512, gemm_macro_f64_avx512, gemm_pack_lanes_f64_avx2, gemm_pack_steps_f64_avx2,
                             gemm_small_f64_avx512});
}

// Packs n lanes x kc steps of a strided operand into panels of w lanes (layouts in
// cpu/gemm_kernels.h): A blocks (lanes = rows, w = mr) and B blocks (lanes = columns, w = nr).
// s points at (lane 0, step 0); lane l, step k is s[l * ls + k * ks]. Source rows are often a
// page apart, which the hardware prefetcher follows too late, so they are prefetched ahead.
template <class T>
void pack_panels(T* dst, const T* s, int64_t ls, int64_t ks, int64_t n, int64_t kc, int w, const Level<T>& lv) {
  constexpr int64_t kLine = 64 / sizeof(T), kAhead = 8;
  if (ks == 1 && ls != 1 && lv.pack_lanes) {
    lv.pack_lanes(dst, s, ls, n, kc, w);
  } else if (ls == 1 && lv.pack_steps && w >= 32 / int(sizeof(T))) {  // an AVX2 vector
    lv.pack_steps(dst, s, ks, n, kc, w);
    return;                         // its own zeros past n
  } else if (ks == 1 && ls != 1) {  // each lane contiguous over k (row-major A, column-major B)
    // A cache line of each lane of a panel at a time, so the lines written stay in L1.
    for (int64_t q = 0; q < n; q += w) {
      const int64_t lanes = std::min<int64_t>(w, n - q);
      for (int64_t k0 = 0; k0 < kc; k0 += kLine) {
        const int64_t steps = std::min(kLine, kc - k0);
        for (int64_t l = 0; l < lanes; ++l) {
          const T* sl = s + (q + l) * ls + k0;
          if (k0 + 4 * kLine < kc) __builtin_prefetch(sl + 4 * kLine);
          T* d = dst + q * kc + k0 * w + l;
          for (int64_t k = 0; k < steps; ++k) d[k * w] = sl[k];
        }
      }
    }
  } else {  // each step contiguous over lanes (row-major B, column-major A), or general
    for (int64_t k = 0; k < kc; ++k) {
      const T* sk = s + k * ks;
      if (ls == 1 && k + kAhead < kc)
        for (int64_t l = 0; l < n; l += kLine) __builtin_prefetch(sk + kAhead * ks + l);
      for (int64_t q = 0; q < n; q += w) {
        const int64_t cols = std::min<int64_t>(w, n - q);
        T* d = dst + q * kc + k * w;
        if (ls == 1)
          for (int64_t j = 0; j < cols; ++j) d[j] = sk[q + j];
        else
          for (int64_t j = 0; j < cols; ++j) d[j] = sk[(q + j) * ls];
      }
    }
  }
  if (const int64_t tail = n % w; tail != 0) {  // lanes past the edge are zero
    T* d = dst + (n - tail) * kc;
    for (int64_t k = 0; k < kc; ++k)
      for (int64_t j = tail; j < w; ++j) d[k * w + j] = T(0);
  }
}

// Products of at most this many fmas skip packing (gemm_impl::small).
constexpr double kSmallFmas = 32.0 * 32.0 * 32.0;

// Below this many fmas per thread, waking another thread costs more than it saves.
constexpr double kMinFmasPerThread = double(1 << 20);

// Threads own a gm x gn grid of blocks of C (in whole micro-tiles): the grid with the fewest
// micro-tiles in the largest block, then the fewest threads, then the squarest blocks. Any grid
// gives the same bits; this only balances the work.
struct Grid {
  int64_t m = 1, n = 1;
};
Grid choose_grid(int64_t pm, int64_t pn, double fmas, int threads) {
  const int64_t tmax = std::max<int64_t>(1, std::min<int64_t>(threads, static_cast<int64_t>(fmas / kMinFmasPerThread)));
  Grid best;
  int64_t best_tiles = pm * pn, best_edge = pm + pn;
  for (int64_t gm = 1; gm <= std::min(tmax, pm); ++gm)
    for (int64_t gn = 1; gm * gn <= tmax && gn <= pn; ++gn) {
      const int64_t bm = (pm + gm - 1) / gm, bn = (pn + gn - 1) / gn;
      const int64_t tiles = bm * bn, edge = bm + bn;
      if (tiles < best_tiles || (tiles == best_tiles && gm * gn < best.m * best.n) ||
          (tiles == best_tiles && gm * gn == best.m * best.n && edge < best_edge)) {
        best = {gm, gn};
        best_tiles = tiles;
        best_edge = edge;
      }
    }
  return best;
}

// The step that cuts n into the fewest blocks of at most (about) max, of nearly equal sizes that
// are multiples of unit: no thin last block paying a whole pass for little work.
int64_t even_step(int64_t n, int64_t max, int64_t unit) {
  const int64_t blocks = (n + max - 1) / max;
  const int64_t step = (n + blocks - 1) / blocks;
  return (step + unit - 1) / unit * unit;
}

// C (M, N) with row stride ldc = A @ B (+ C with accumulate). Loops, outer to inner: the thread's
// block of C; M by blk.mc (pack A); K by blk.kc, each element's chain carried through C from one
// kc block to the next; N by blk.nc (pack B); then the macro kernel over micro-tiles.
template <class T>
void gemm_packed(T* c, int64_t ldc, const T* a, int64_t sam, int64_t sak, const T* b, int64_t sbk, int64_t sbn,
                 int64_t M, int64_t N, int64_t K, bool accumulate, bool allow_threads, bool may_transpose = true,
                 const PackB<T>* pack_b = nullptr) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate)
      for (int64_t i = 0; i < M; ++i) std::fill(c + i * ldc, c + i * ldc + N, T(0));
    return;
  }
  const Level<T> lv = level<T>();
  // Small products (a seed-sized layer, 16 x 16 x 16): packing would cost as much as the product.
  if (!pack_b && !accumulate && sbn == 1 && double(M) * double(N) * double(K) <= kSmallFmas) {
    lv.small(M, N, K, a, sam, sak, b, sbk, c, ldc);
    return;
  }
  const Blocking& blk = lv.blk;
  // Few columns and many rows (A @ vector): vector lanes would be mostly idle, so compute
  // C^T = B^T @ A^T into a buffer instead, lanes running over rows. Each element's chain is the
  // same sequence of fmas (fma(a, b, c) == fma(b, a, c) exactly), so the bits are too.
  const int64_t w = blk.lanes;
  if (may_transpose && !pack_b && 2 * N * ((M + w - 1) / w) < M * ((N + w - 1) / w)) {
    detail::Scratch<T> buf(static_cast<std::size_t>(M * N));
    T* ct = buf.data();  // (N, M)
    if (accumulate)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) ct[j * M + i] = c[i * ldc + j];
    gemm_packed<T>(ct, M, b, sbn, sbk, a, sak, sam, N, M, K, accumulate, allow_threads, false);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) c[i * ldc + j] = ct[j * M + i];
    return;
  }
  const int mr = blk.mr, nr = blk.nr;
  const int64_t pm = (M + mr - 1) / mr, pn = (N + nr - 1) / nr;
  const double fmas = double(M) * double(N) * double(K);
  const Grid g = choose_grid(pm, pn, fmas, allow_threads ? detail::num_threads() : 1);

  auto block = [&](int64_t t) {
    const int64_t bm = t / g.n, bn = t % g.n;
    const int64_t i0 = bm * pm / g.m * mr, i1 = std::min(M, (bm + 1) * pm / g.m * mr);
    const int64_t j0 = bn * pn / g.n * nr, j1 = std::min(N, (bn + 1) * pn / g.n * nr);
    if (i0 >= i1 || j0 >= j1) return;
    const int64_t mc_step = even_step(i1 - i0, blk.mc, mr), nc_step = even_step(j1 - j0, blk.nc, nr),
                  kc_step = even_step(K, blk.kc, 1);
    detail::Scratch<T> abuf(static_cast<std::size_t>((mc_step + mr - 1) / mr * mr * kc_step));
    detail::Scratch<T> bbuf(static_cast<std::size_t>((nc_step + nr - 1) / nr * nr * kc_step));
    T* ap = abuf.data();
    T* bp = bbuf.data();
    for (int64_t ic = i0; ic < i1; ic += mc_step) {
      const int64_t mc = std::min(mc_step, i1 - ic);
      for (int64_t pc = 0; pc < K; pc += kc_step) {
        const int64_t kc = std::min(kc_step, K - pc);
        pack_panels(ap, a + ic * sam + pc * sak, sam, sak, mc, kc, mr, lv);
        for (int64_t jc = j0; jc < j1; jc += nc_step) {
          const int64_t nc = std::min(nc_step, j1 - jc);
          if (pack_b)
            (*pack_b)(bp, pc, kc, jc, nc, nr);
          else
            pack_panels(bp, b + pc * sbk + jc * sbn, sbn, sbk, nc, kc, nr, lv);
          lv.macro(mc, nc, kc, ap, bp, c + ic * ldc + jc, ldc, accumulate || pc > 0, pc + kc == K);
        }
      }
    }
  };
  const int64_t blocks = g.m * g.n;
  if (blocks == 1) return block(0);
  detail::parallel_for(blocks, static_cast<int64_t>(fmas / double(blocks)), [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) block(t);
  });
}

template <class T>
void gemm_any(T* c, const T* a, int64_t sam, int64_t sak, const T* b, int64_t sbk, int64_t sbn, int64_t M, int64_t N,
              int64_t K, bool allow_threads = true) {
  if constexpr (std::is_floating_point_v<T>)
    gemm_packed<T>(c, N, a, sam, sak, b, sbk, sbn, M, N, K, false, allow_threads);
  else
    gemm_simple<T>(c, a, sam, sak, b, sbk, sbn, M, N, K);
}

}  // namespace

void gemm(float* c, const float* a, int64_t sam, int64_t sak, const float* b, int64_t sbk, int64_t sbn, int64_t M,
          int64_t N, int64_t K, bool accumulate) {
  gemm_packed<float>(c, N, a, sam, sak, b, sbk, sbn, M, N, K, accumulate, true);
}
void gemm(double* c, const double* a, int64_t sam, int64_t sak, const double* b, int64_t sbk, int64_t sbn, int64_t M,
          int64_t N, int64_t K, bool accumulate) {
  gemm_packed<double>(c, N, a, sam, sak, b, sbk, sbn, M, N, K, accumulate, true);
}

void gemm(float* c, const float* a, int64_t sam, int64_t sak, const PackB<float>& b, int64_t M, int64_t N, int64_t K,
          bool accumulate) {
  gemm_packed<float>(c, N, a, sam, sak, nullptr, 0, 0, M, N, K, accumulate, true, false, &b);
}
void gemm(double* c, const double* a, int64_t sam, int64_t sak, const PackB<double>& b, int64_t M, int64_t N, int64_t K,
          bool accumulate) {
  gemm_packed<double>(c, N, a, sam, sak, nullptr, 0, 0, M, N, K, accumulate, true, false, &b);
}

// 3-D operands (bmm), or 2-D ones as one product (mm, without views to make).
void bmm(const TensorBase& out, const TensorBase& a, const TensorBase& b) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    const bool batched = a.dim() == 3;
    const int64_t B = batched ? a.size(0) : 1, M = a.size(-2), K = a.size(-1), N = b.size(-1);
    const int64_t sa0 = batched ? a.stride(0) : 0, sb0 = batched ? b.stride(0) : 0;
    T* c = out.data_ptr<T>();
    const T* pa = a.data_ptr<T>();
    const T* pb = b.data_ptr<T>();
    auto one = [&](int64_t bi, bool allow_threads) {
      gemm_any<T>(c + bi * M * N, pa + bi * sa0, a.stride(-2), a.stride(-1), pb + bi * sb0, b.stride(-2), b.stride(-1),
                  M, N, K, allow_threads);
    };
    // Many small products: a thread per product; otherwise threads inside each product.
    const double fmas = double(M) * double(N) * double(K);
    if (B > 1 && fmas < kMinFmasPerThread * detail::num_threads()) {
      detail::parallel_for(B, static_cast<int64_t>(fmas) + 1, [&](int64_t b0, int64_t b1) {
        for (int64_t bi = b0; bi < b1; ++bi) one(bi, false);
      });
    } else {
      for (int64_t bi = 0; bi < B; ++bi) one(bi, true);
    }
  });
}

void addmm(const TensorBase& out, const TensorBase& self, const TensorBase& a, const TensorBase& b, const Scalar& beta,
           const Scalar& alpha) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
    T* c = out.data_ptr<T>();
    gemm_any<T>(c, a.data_ptr<T>(), a.stride(0), a.stride(1), b.data_ptr<T>(), b.stride(0), b.stride(1), M, N, K);
    const T be = beta.to<T>(), al = alpha.to<T>();
    const bool beta_one = beta.to_double() == 1.0, alpha_one = alpha.to_double() == 1.0,
               beta_zero = beta.to_double() == 0.0;
    const T* s = self.data_ptr<T>();
    const int64_t ss0 = self.stride(0), ss1 = self.stride(1);
    // integers wrap, as the GEMM's own integer path does (signed overflow is undefined)
    auto mul = [](T x, T y) -> T {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
        return static_cast<T>(static_cast<std::make_unsigned_t<T>>(x) * static_cast<std::make_unsigned_t<T>>(y));
      else
        return static_cast<T>(x * y);
    };
    auto add = [](T x, T y) -> T {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
        return static_cast<T>(static_cast<std::make_unsigned_t<T>>(x) + static_cast<std::make_unsigned_t<T>>(y));
      else
        return static_cast<T>(x + y);
    };
    if constexpr (std::is_floating_point_v<T>) {
      if (alpha_one && beta_one && ss1 == 1) {
        // a Linear layer's bias: rows of self + acc, a loop the compiler vectorises (the same adds)
        detail::parallel_for(M, N, [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i) {
            T* ci = c + i * N;
            const T* si = s + i * ss0;
            for (int64_t j = 0; j < N; ++j) ci[j] = si[j] + ci[j];
          }
        });
        return;
      }
    }
    detail::parallel_for(M, N, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = 0; j < N; ++j) {
          T acc = c[i * N + j];
          if (!alpha_one) acc = mul(al, acc);
          if (beta_zero) {  // beta == 0 ignores self, even NaN in it (as PyTorch)
            c[i * N + j] = acc;
            continue;
          }
          const T sv = beta_one ? s[i * ss0 + j * ss1] : mul(be, s[i * ss0 + j * ss1]);
          c[i * N + j] = add(sv, acc);
        }
    });
  });
}

}  // namespace ditto::cpu
