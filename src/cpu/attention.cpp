// scaled_dot_product_attention's fused CPU kernels: one pass over key blocks with an online
// softmax (no L x S matrix), and the backward recomputing each block's probabilities from the
// saved logsumexp (FlashAttention-2's scheme).
//
// Note [Attention order]
// ----------------------
// Keys are taken in blocks of kKeyBlock (64) from key 0, in order. For one query row i:
//  * its scores are scale * (q_i . k_j), each dot product one GEMM chain over E in increasing e
//    (Note [GEMM accumulation order]); masked keys (causal j > i, a false bool mask) score -inf,
//    a float mask is added;
//  * per block, m' = max(m, the block's largest score); the row's sum l and output accumulator
//    o are scaled by exp(m - m') and the block is added: l += the block's p_j summed by the
//    canonical tree of one chunk (Note [Canonical reduction order]), o += p_j v_j as GEMM chains
//    over j continuing from o, with p_j = exp(s_j - m') (0 for masked keys);
//  * a block whose keys are all masked for every query of the tile is skipped: it would add
//    exactly nothing;
//  * out_i = o / l, and lse_i = m + log(l) is kept for the backward.
// So a query's result depends only on its own query, the keys and values it sees and the mask:
// not on the other queries, the batch, the heads computed together, the thread count or the level
// (the GEMM and dmath give every level the same bits). A row whose keys are all masked gives NaN
// (0 / 0), as PyTorch's softmax of all -inf does.
// The backward takes, per batch element and in fixed order, query tiles of kQueryBlock and key
// blocks of kBackwardKeyBlock (their sizes change no bit): p = exp(s - lse), dv += p^T do,
// dp = do v^T, ds = p (dp - D) scale with D_i = do_i . o_i (a chain over e), dq += ds k,
// dk += ds^T q, each a GEMM chain continuing over the blocks in order. Batch elements are
// independent tasks, so the sums never depend on threads.
#include "cpu/decl/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/parallel.h"
#include "core/transpose.h"
#include "cpu/capability.h"
#include "cpu/dmath.h"
#include "cpu/fma_kernels.h"
#include "cpu/gemm.h"
#include "cpu/loops.h"
#include "cpu/reduce_kernels.h"

namespace ditto::cpu {
namespace {

constexpr int64_t kKeyBlock = 64;
constexpr int64_t kQueryBlock = 64;
// The backward's key blocks: every gradient is a GEMM chain continuing over the blocks, so their
// size never changes a bit; 128 halves the calls (and their packing) against 64.
constexpr int64_t kBackwardKeyBlock = 128;

// A 3-D-per-batch-element operand: element n of the flattened batch dims starts at at(n); rows
// and columns have the strides of the last two dims.
template <class T>
struct Operand {
  const T* base = nullptr;
  Shape sizes, strides;  // the batch dims
  int64_t row = 0, col = 0;
  Operand() = default;
  explicit Operand(const TensorBase& t) : base(static_cast<const T*>(t.raw_data())) {
    const int64_t nd = t.dim();
    for (int64_t d = 0; d < nd - 2; ++d) {
      sizes.push_back(t.size(d));
      strides.push_back(t.stride(d));
    }
    row = t.stride(nd - 2);
    col = t.stride(nd - 1);
  }
  const T* at(int64_t n) const {
    int64_t off = 0;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      off += (n % sizes[d]) * strides[d];
      n /= sizes[d];
    }
    return base + off;
  }
};

void exp_inplace(float* x, int64_t n) { dmath::exp_f32(x, x, n); }
void exp_inplace(double* x, int64_t n) { dmath::exp_f64(x, x, n); }

// The optional mask: bool (false masks the score) or float (added to the score).
template <class T>
struct Mask {
  Operand<bool> b;
  Operand<T> f;
  bool has_b = false, has_f = false;
  explicit Mask(const TensorBase& m)
      : has_b(m.defined() && m.dtype() == kBool), has_f(m.defined() && m.dtype() != kBool) {
    if (has_b) b = Operand<bool>(m);
    if (has_f) f = Operand<T>(m);
  }
};

// The scores of queries [i0, i0 + bq) against keys [j0, j0 + bk), scaled and masked, into s (bq x
// bk, row-major). Masked scores are -inf.
// kt: the keys transposed, (E, ld) contiguous (key j in column j), so that the product's B
// operand is packed from contiguous rows; the chains over e are the same either way.
template <class T>
void scores(T* s, const Operand<T>& Q, const T* kt, int64_t ld, const Mask<T>& mask, int64_t n, int64_t i0, int64_t bq,
            int64_t j0, int64_t bk, int64_t E, const AttentionArgs& a) {
  const T* q = Q.at(n) + i0 * Q.row;
  gemm(s, q, Q.row, Q.col, kt + j0, ld, 1, bq, bk, E);
  const T scale = static_cast<T>(a.scale), ninf = -std::numeric_limits<T>::infinity();
  const bool* bm = mask.has_b ? mask.b.at(n) : nullptr;
  const T* fm = mask.has_f ? mask.f.at(n) : nullptr;
  for (int64_t x = 0; x < bq * bk; ++x) s[x] *= scale;
  for (int64_t r = 0; r < bq; ++r) {
    T* row = s + r * bk;
    const int64_t i = i0 + r;
    if (fm) {
      const T* f = fm + i * mask.f.row + j0 * mask.f.col;
      for (int64_t c = 0; c < bk; ++c) row[c] += f[c * mask.f.col];
    }
    if (bm) {
      const bool* b = bm + i * mask.b.row + j0 * mask.b.col;
      for (int64_t c = 0; c < bk; ++c)
        if (!b[c * mask.b.col]) row[c] = ninf;
    }
    if (a.causal)  // keys j > i: columns from i - j0 + 1
      for (int64_t c = std::max<int64_t>(i - j0 + 1, 0); c < bk; ++c) row[c] = ninf;
  }
}

// out[e * ld + j] = src[j * row + e * col] for j < count, e < E: a (count, E) block transposed. With
// unit columns and float32, AVX2's 8x8 shuffles (core/transpose.h); else 16 x 16 tiles, each
// tile's source rows read in runs and its destination lines filled while they are in L1.
template <class T>
void transpose_into(T* out, int64_t ld, const T* src, int64_t row, int64_t col, int64_t count, int64_t E) {
  if constexpr (sizeof(T) == 4) {
    if (col == 1 && cpu_capability() != CpuCapability::Scalar) {
      detail::transpose4_avx2(reinterpret_cast<const char*>(src), row * 4, reinterpret_cast<char*>(out), ld * 4, E,
                              count);
      return;
    }
  }
  constexpr int64_t kTile = 16;
  for (int64_t j0 = 0; j0 < count; j0 += kTile) {
    const int64_t jn = std::min(kTile, count - j0);
    for (int64_t e0 = 0; e0 < E; e0 += kTile) {
      const int64_t en = std::min(kTile, E - e0);
      for (int64_t j = 0; j < jn; ++j) {
        const T* from = src + (j0 + j) * row + e0 * col;
        T* to = out + e0 * ld + j0 + j;
        for (int64_t e = 0; e < en; ++e) to[e * ld] = from[e * col];
      }
    }
  }
}

// The first `count` keys of batch element n transposed into kt (E, count).
template <class T>
void transpose_keys(std::vector<T>& kt, const Operand<T>& K, int64_t n, int64_t count, int64_t E) {
  kt.resize(static_cast<std::size_t>(E * count));
  transpose_into(kt.data(), count, K.at(n), K.row, K.col, count, E);
}

// The last key block a query tile [i0, i0 + bq) needs: under the causal mask keys past the tile's
// last query are masked for every row.
int64_t key_end(int64_t S, int64_t i0, int64_t bq, bool causal) { return causal ? std::min(S, i0 + bq) : S; }

template <class T>
void forward(const TensorBase& out, const TensorBase& lse, const TensorBase& q, const TensorBase& k,
             const TensorBase& v, const TensorBase& mask, const AttentionArgs& a) {
  const Operand<T> Q(q), K(k), V(v);
  const Mask<T> M(mask);
  const int64_t L = q.size(-2), E = q.size(-1), S = k.size(-2), Ev = v.size(-1);
  const int64_t N = L > 0 ? lse.numel() / L : 0;
  const int64_t tiles = (L + kQueryBlock - 1) / kQueryBlock;
  T* o = out.data_ptr<T>();
  T* ls = lse.data_ptr<T>();
  const T ninf = -std::numeric_limits<T>::infinity();
  // one task per batch element: its keys are transposed once for all its query tiles
  detail::parallel_for(N, std::max<int64_t>(L, 1) * std::max<int64_t>(S, 1) * (E + Ev), [&](int64_t n0, int64_t n1) {
    std::vector<T> s(static_cast<std::size_t>(kQueryBlock * kKeyBlock));
    std::vector<T> m(kQueryBlock), l(kQueryBlock), kt;
    for (int64_t t = n0 * tiles; t < n1 * tiles; ++t) {
      const int64_t n = t / tiles, i0 = (t % tiles) * kQueryBlock, bq = std::min(kQueryBlock, L - i0);
      if (i0 == 0) transpose_keys(kt, K, n, key_end(S, L - 1, 1, a.causal), E);  // the keys any tile needs
      T* acc = o + (n * L + i0) * Ev;  // the tile's output rows accumulate in place
      std::fill(acc, acc + bq * Ev, T(0));
      std::fill(m.begin(), m.end(), ninf);
      std::fill(l.begin(), l.end(), T(0));
      const int64_t end = key_end(S, i0, bq, a.causal), ld = key_end(S, L - 1, 1, a.causal);
      for (int64_t j0 = 0; j0 < end; j0 += kKeyBlock) {
        const int64_t bk = std::min(kKeyBlock, S - j0);
        scores(s.data(), Q, kt.data(), ld, M, n, i0, bq, j0, bk, E, a);
        for (int64_t r = 0; r < bq; ++r) {
          T* row = s.data() + r * bk;
          const T top = max_chunk(row, bk);  // a NaN score wins, and makes the row NaN
          const T m_new = (m[r] != m[r] || top != top) ? top + m[r] : std::max(m[r], top);
          if (m_new == ninf) {  // nothing seen yet: this block adds exact zeros
            std::fill(row, row + bk, T(0));
            continue;
          }
          const T corr = m[r] == ninf ? T(0) : dmath::exp(m[r] - m_new);
          for (int64_t c = 0; c < bk; ++c) row[c] = row[c] - m_new;
          exp_inplace(row, bk);
          l[r] = l[r] * corr + sum_chunk(row, bk);
          if (corr != T(1))
            for (int64_t e = 0; e < Ev; ++e) acc[r * Ev + e] *= corr;
          m[r] = m_new;
        }
        const T* vb = V.at(n) + j0 * V.row;
        gemm(acc, s.data(), bk, 1, vb, V.row, V.col, bq, Ev, bk, /*accumulate=*/true);
      }
      for (int64_t r = 0; r < bq; ++r) {
        for (int64_t e = 0; e < Ev; ++e) acc[r * Ev + e] /= l[r];
        ls[n * L + i0 + r] = m[r] + dmath::log(l[r]);
      }
    }
  });
}

template <class T>
void backward(const TensorBase& dq, const TensorBase& dk, const TensorBase& dv, const TensorBase& dout,
              const TensorBase& q, const TensorBase& k, const TensorBase& v, const TensorBase& out,
              const TensorBase& lse, const TensorBase& mask, const AttentionArgs& a) {
  const Operand<T> Q(q), K(k), V(v), dO(dout), O(out);
  const Mask<T> M(mask);
  const int64_t L = q.size(-2), E = q.size(-1), S = k.size(-2), Ev = v.size(-1);
  const int64_t N = L > 0 ? lse.numel() / L : 0;  // no queries: every gradient is zero
  T *gq = dq.data_ptr<T>(), *gk = dk.data_ptr<T>(), *gv = dv.data_ptr<T>();
  const T* ls = lse.data_ptr<T>();
  const T scale = static_cast<T>(a.scale);
  if (S == 0) std::fill(gq, gq + dq.numel(), T(0));  // else each dq chain starts at key block 0
  std::fill(gk, gk + dk.numel(), T(0));
  std::fill(gv, gv + dv.numel(), T(0));
  detail::parallel_for(
      N, std::max<int64_t>(L, 1) * std::max<int64_t>(S, 1) * (2 * E + 2 * Ev), [&](int64_t n0, int64_t n1) {
        std::vector<T> p(static_cast<std::size_t>(kQueryBlock * kBackwardKeyBlock)), dp(p.size()), D(kQueryBlock), kt,
            vt, dot, ot;
        for (int64_t n = n0; n < n1; ++n) {
          const T *qn = Q.at(n), *kn = K.at(n), *don = dO.at(n), *on = O.at(n);
          T *gqn = gq + n * L * E, *gkn = gk + n * S * E, *gvn = gv + n * S * Ev;
          transpose_keys(kt, K, n, S, E);
          transpose_keys(vt, V, n, S, Ev);
          for (int64_t i0 = 0; i0 < L; i0 += kQueryBlock) {
            const int64_t bq = std::min(kQueryBlock, L - i0);
            // D_i = do_i . o_i, one chain over e per row, the tile's rows side by side: both tiles
            // transposed (e-major), then D = fma(do_e, o_e, D) for e in order (addcmul with 1)
            dot.resize(static_cast<std::size_t>(Ev * bq)), ot.resize(dot.size());
            transpose_into(dot.data(), bq, don + i0 * dO.row, dO.row, dO.col, bq, Ev);
            transpose_into(ot.data(), bq, on + i0 * O.row, O.row, O.col, bq, Ev);
            std::fill(D.begin(), D.begin() + bq, T(0));
            for (int64_t e = 0; e < Ev; ++e)
              addcmul_contiguous(D.data(), dot.data() + e * bq, ot.data() + e * bq, T(1), D.data(), bq);
            const int64_t end = key_end(S, i0, bq, a.causal);
            for (int64_t j0 = 0; j0 < end; j0 += kBackwardKeyBlock) {
              const int64_t bk = std::min(kBackwardKeyBlock, end - j0);  // the keys [0, end) of the tile
              scores(p.data(), Q, kt.data(), S, M, n, i0, bq, j0, bk, E, a);
              for (int64_t r = 0; r < bq; ++r) {
                T* row = p.data() + r * bk;
                const T lr = ls[n * L + i0 + r];
                for (int64_t c = 0; c < bk; ++c) row[c] = row[c] - lr;  // -inf for masked keys: p = 0
                exp_inplace(row, bk);
              }
              // dv += p^T do
              gemm(gvn + j0 * Ev, p.data(), 1, bk, don + i0 * dO.row, dO.row, dO.col, bk, Ev, bq, true);
              // dp = do v^T
              gemm(dp.data(), don + i0 * dO.row, dO.row, dO.col, vt.data() + j0, S, 1, bq, bk, Ev);
              for (int64_t r = 0; r < bq; ++r)
                for (int64_t c = 0; c < bk; ++c) {
                  const int64_t x = r * bk + c;
                  dp[x] = p[x] * (dp[x] - D[r]) * scale;  // ds, scaled for the q.k product
                }
              // dq += ds k, dk += ds^T q
              gemm(gqn + i0 * E, dp.data(), bk, 1, kn + j0 * K.row, K.row, K.col, bq, E, bk, j0 > 0);
              gemm(gkn + j0 * E, dp.data(), 1, bk, qn + i0 * Q.row, Q.row, Q.col, bk, E, bq, true);
            }
          }
        }
      });
}

}  // namespace

void attention(const TensorBase& out, const TensorBase& lse, const TensorBase& q, const TensorBase& k,
               const TensorBase& v, const TensorBase& mask, const AttentionArgs& args) {
  dispatch_floating(q.dtype(), [&]<class T>() { forward<T>(out, lse, q, k, v, mask, args); });
}

void attention_backward(const TensorBase& dq, const TensorBase& dk, const TensorBase& dv, const TensorBase& dout,
                        const TensorBase& q, const TensorBase& k, const TensorBase& v, const TensorBase& out,
                        const TensorBase& lse, const TensorBase& mask, const AttentionArgs& args) {
  dispatch_floating(q.dtype(), [&]<class T>() { backward<T>(dq, dk, dv, dout, q, k, v, out, lse, mask, args); });
}

}  // namespace ditto::cpu
