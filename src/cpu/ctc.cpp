// CTC loss: the forward (alpha) and backward (beta) recursions of Graves et al. (2006), in log
// space, as PyTorch's CPU kernel (aten/src/ATen/native/LossCTC.cpp) computes them.
//
// Note [CTC order]
// Each batch item is computed by one task from start to end, so no sum ever spans tasks and the
// bits do not depend on the thread count. Inside an item every value is PyTorch's expression in
// PyTorch's order, in the input's dtype:
//   alpha[t][s] = log(exp(a1 - m) + exp(a2 - m) + exp(a3 - m)) + m + lp[t][l'(s)], m the first
//     largest of a1, a2, a3 (0 when all are -inf); beta mirrors it from the last step;
//   the gradient's log-sum over the states s of one label at step t is accumulated in decreasing s
//     (PyTorch's loop), one log-add-exp at a time, and then grad = (exp(lp) - exp(sum + nll - lp))
//     * grad_out.
// What differs from PyTorch is only the rounding of exp and log (ditto's dmath, within 1 ulp,
// PyTorch's the platform libm's), and the loop nest: values of one step that do not depend on each
// other (all s of alpha[t], all t of one state's collection) go through dmath's array functions
// together, which give the bits of the scalar ones at every kernel level.
#include <algorithm>
#include <limits>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/parallel.h"
#include "cpu/decl/loss.h"
#include "cpu/dmath.h"

namespace ditto::cpu {

namespace {
void vexp(const float* x, float* y, int64_t n) { dmath::exp_f32(x, y, n); }
void vexp(const double* x, double* y, int64_t n) { dmath::exp_f64(x, y, n); }
void vlog(const float* x, float* y, int64_t n) { dmath::log_f32(x, y, n); }
void vlog(const double* x, double* y, int64_t n) { dmath::log_f64(x, y, n); }

// One batch item's targets: the extended label l'(s) of each state (blanks at even s) and whether
// state s may be reached from s - 2 (skip[s]; for beta, s + 2 reaches s when skip[s + 2]).
struct Item {
  int64_t input_length, target_length, states;
  std::vector<int64_t> label;
  std::vector<char> skip;
  Item(const int64_t* span, const int64_t* targets, int64_t blank)
      : input_length(span[0]), target_length(span[1]), states(2 * span[1] + 1) {
    label.assign(static_cast<std::size_t>(states), blank);
    skip.assign(static_cast<std::size_t>(states), 0);
    for (int64_t s = 1; s < states; s += 2) label[s] = targets[span[2] + s / 2];
    for (int64_t s = 2; s < states; ++s) skip[s] = label[s - 2] != label[s];
  }
};

// log(exp(x1 - m) + exp(x2 - m) + exp(x3 - m)) + m for n triples at once; x3 may be null (two
// terms). m is the first largest (PyTorch's `if (x > m) m = x` chain), 0 when all are -inf. The
// result is written to out (which may alias an input only if it is read before: out is written
// last).
template <class T>
struct LogSumExp3 {
  std::vector<T> m, e1, e2, e3;
  void run(const T* x1, const T* x2, const T* x3, T* out, int64_t n) {
    constexpr T neginf = -std::numeric_limits<T>::infinity();
    const auto un = static_cast<std::size_t>(n);
    m.resize(un), e1.resize(un), e2.resize(un), e3.resize(un);
    for (int64_t i = 0; i < n; ++i) {
      T mx = x1[i];
      if (x2[i] > mx) mx = x2[i];
      if (x3 && x3[i] > mx) mx = x3[i];
      if (mx == neginf) mx = 0;
      m[i] = mx;
      e1[i] = x1[i] - mx;
      e2[i] = x2[i] - mx;
      if (x3) e3[i] = x3[i] - mx;
    }
    vexp(e1.data(), e1.data(), n);
    vexp(e2.data(), e2.data(), n);
    if (x3) vexp(e3.data(), e3.data(), n);
    for (int64_t i = 0; i < n; ++i) e1[i] = x3 ? e1[i] + e2[i] + e3[i] : e1[i] + e2[i];
    vlog(e1.data(), e1.data(), n);
    for (int64_t i = 0; i < n; ++i) out[i] = e1[i] + m[i];
  }
};

// lp(t, c) of batch item b in a contiguous (T, N, C) tensor.
template <class T>
struct LogProbs {
  const T* p;
  int64_t n, c;
  const T* row(int64_t t, int64_t b) const { return p + (t * n + b) * c; }
};

// One step of the alpha (dir = +1) or beta (dir = -1) recursion: next[s] from prev's states s,
// s - dir and s - 2 dir, plus lp at l'(s).
template <class T>
void step(const Item& it, const T* prev, T* next, const T* lp, int dir, LogSumExp3<T>& lse, std::vector<T>& x2,
          std::vector<T>& x3) {
  constexpr T neginf = -std::numeric_limits<T>::infinity();
  const int64_t S = it.states;
  x2.resize(static_cast<std::size_t>(S)), x3.resize(static_cast<std::size_t>(S));
  for (int64_t s = 0; s < S; ++s) {
    const int64_t s1 = s - dir, s2 = s - 2 * dir;
    x2[s] = s1 >= 0 && s1 < S ? prev[s1] : neginf;
    const bool skip = dir > 0 ? it.skip[s] : s2 < S && it.skip[s2];
    x3[s] = s2 >= 0 && s2 < S && skip ? prev[s2] : neginf;
  }
  lse.run(prev, x2.data(), x3.data(), next, S);
  for (int64_t s = 0; s < S; ++s) next[s] += lp[it.label[s]];
}

template <class T>
void ctc_forward(const TensorBase& nll_t, const TensorBase& alpha_t, const TensorBase& lp_t, const TensorBase& targets,
                 const TensorBase& spans, int64_t blank) {
  constexpr T neginf = -std::numeric_limits<T>::infinity();
  const int64_t N = lp_t.size(1), C = lp_t.size(2), Tmax = alpha_t.size(1), Smax = alpha_t.size(2);
  const LogProbs<T> lp{lp_t.data_ptr<T>(), N, C};
  T* nll = nll_t.data_ptr<T>();
  T* alpha_all = alpha_t.data_ptr<T>();
  const int64_t* tg = targets.data_ptr<int64_t>();
  const int64_t* sp = spans.data_ptr<int64_t>();
  detail::parallel_for(N, Tmax * Smax * 8 + 1, [&](int64_t b0, int64_t b1) {
    LogSumExp3<T> lse;
    std::vector<T> x2, x3;
    for (int64_t b = b0; b < b1; ++b) {
      const Item it(sp + 3 * b, tg, blank);
      T* alpha = alpha_all + b * Tmax * Smax;
      std::fill(alpha, alpha + Smax, neginf);
      const int64_t len = it.input_length, L = it.target_length;
      if (len == 0) {  // no step: only the empty target has a path
        nll[b] = L == 0 ? T(0) : std::numeric_limits<T>::infinity();
        continue;
      }
      alpha[0] = lp.row(0, b)[blank];
      if (L > 0) alpha[1] = lp.row(0, b)[it.label[1]];
      for (int64_t t = 1; t < len; ++t)
        step<T>(it, alpha + (t - 1) * Smax, alpha + t * Smax, lp.row(t, b), +1, lse, x2, x3);
      const T* last = alpha + (len - 1) * Smax;
      if (L == 0) {
        nll[b] = -last[0];
      } else {
        // the likelihood sums the paths ending in the last label and in the blank after it
        T out;
        lse.run(last + 2 * L, last + 2 * L - 1, nullptr, &out, 1);
        nll[b] = -out;
      }
    }
  });
}

template <class T>
void ctc_backward(const TensorBase& grad_t, const TensorBase& grad_out_t, const TensorBase& lp_t,
                  const TensorBase& targets, const TensorBase& spans, const TensorBase& nll_t,
                  const TensorBase& alpha_t, int64_t blank, bool zero_infinity) {
  constexpr T neginf = -std::numeric_limits<T>::infinity();
  const int64_t N = lp_t.size(1), C = lp_t.size(2), Tin = lp_t.size(0), Tmax = alpha_t.size(1), Smax = alpha_t.size(2);
  const LogProbs<T> lp{lp_t.data_ptr<T>(), N, C};
  T* grad = grad_t.data_ptr<T>();
  const T* go = grad_out_t.data_ptr<T>();
  const T* nll_all = nll_t.data_ptr<T>();
  const T* alpha_all = alpha_t.data_ptr<T>();
  const int64_t* tg = targets.data_ptr<int64_t>();
  const int64_t* sp = spans.data_ptr<int64_t>();
  detail::parallel_for(N, Tmax * (Smax + C) * 8 + 1, [&](int64_t b0, int64_t b1) {
    LogSumExp3<T> lse;
    std::vector<T> beta, x2, x3, lab, acc, row, e;
    std::vector<int64_t> slot_of(static_cast<std::size_t>(C), -1), chars;
    for (int64_t b = b0; b < b1; ++b) {
      const Item it(sp + 3 * b, tg, blank);
      const int64_t len = it.input_length, L = it.target_length, S = it.states;
      const T nll = nll_all[b];
      auto grad_row = [&](int64_t t) { return grad + (t * N + b) * C; };
      const bool zero_all = zero_infinity && nll == std::numeric_limits<T>::infinity();
      for (int64_t t = zero_all ? 0 : len; t < Tin; ++t) std::fill(grad_row(t), grad_row(t) + C, T(0));
      if (zero_all || len == 0) continue;
      const T* alpha = alpha_all + b * Tmax * Smax;
      // beta, one row per step, from the last step back
      beta.assign(static_cast<std::size_t>(len * S), neginf);
      T* last = beta.data() + (len - 1) * S;
      last[2 * L] = lp.row(len - 1, b)[blank];
      if (L > 0) last[2 * L - 1] = lp.row(len - 1, b)[it.label[2 * L - 1]];
      for (int64_t t = len - 2; t >= 0; --t)
        step<T>(it, beta.data() + (t + 1) * S, beta.data() + t * S, lp.row(t, b), -1, lse, x2, x3);
      // the labels present, each with its row of log-summed alpha * beta over the steps
      chars.clear();
      for (int64_t s = 0; s < S; ++s) {
        const int64_t c = it.label[s];
        if (slot_of[c] < 0) {
          slot_of[c] = static_cast<int64_t>(chars.size());
          chars.push_back(c);
        }
      }
      acc.assign(chars.size() * static_cast<std::size_t>(len), neginf);
      auto acc_row = [&](int64_t c) { return acc.data() + slot_of[c] * len; };
      acc_row(blank)[len - 1] = alpha[(len - 1) * Smax + 2 * L] + last[2 * L];
      if (L > 0) acc_row(it.label[2 * L - 1])[len - 1] = alpha[(len - 1) * Smax + 2 * L - 1] + last[2 * L - 1];
      // steps 0 .. len - 2, states in decreasing s as PyTorch: acc = acc == -inf ? ab : acc (+) ab
      const int64_t steps = len - 1;
      lab.resize(static_cast<std::size_t>(std::max<int64_t>(steps, 1)));
      for (int64_t s = S - 1; s >= 0 && steps > 0; --s) {
        T* a = acc_row(it.label[s]);
        for (int64_t t = 0; t < steps; ++t) lab[t] = alpha[t * Smax + s] + beta[t * S + s];
        row.assign(a, a + steps);
        lse.run(row.data(), lab.data(), nullptr, row.data(), steps);
        for (int64_t t = 0; t < steps; ++t) a[t] = a[t] == neginf ? lab[t] : row[t];
      }
      // grad = (exp(lp) - exp(acc + nll - lp)) * grad_out
      const T gr = go[b];
      row.resize(static_cast<std::size_t>(C)), e.resize(static_cast<std::size_t>(C));
      for (int64_t t = 0; t < len; ++t) {
        const T* l = lp.row(t, b);
        T* out = grad_row(t);
        std::fill(row.begin(), row.end(), neginf);
        for (const int64_t c : chars) row[c] = acc_row(c)[t];
        for (int64_t c = 0; c < C; ++c) row[c] = row[c] + nll - l[c];
        vexp(row.data(), row.data(), C);
        vexp(l, e.data(), C);
        for (int64_t c = 0; c < C; ++c) out[c] = (e[c] - row[c]) * gr;
      }
      for (const int64_t c : chars) slot_of[c] = -1;
    }
  });
}
}  // namespace

void ctc_loss(const TensorBase& nll, const TensorBase& log_alpha, const TensorBase& log_probs,
              const TensorBase& targets, const TensorBase& spans, int64_t blank) {
  core::dispatch_floating(log_probs.dtype(),
                          [&]<class T>() { ctc_forward<T>(nll, log_alpha, log_probs, targets, spans, blank); });
}

void ctc_loss_backward(const TensorBase& grad, const TensorBase& grad_out, const TensorBase& log_probs,
                       const TensorBase& targets, const TensorBase& spans, const TensorBase& nll,
                       const TensorBase& log_alpha, int64_t blank, bool zero_infinity) {
  core::dispatch_floating(log_probs.dtype(), [&]<class T>() {
    ctc_backward<T>(grad, grad_out, log_probs, targets, spans, nll, log_alpha, blank, zero_infinity);
  });
}

}  // namespace ditto::cpu
