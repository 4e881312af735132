// ditto-fuzz: seeded random calls over every op of the op table, to find what fixed lists of bad
// inputs do not (run under ASan+UBSan in CI). Each call draws an op, then random arguments:
// ranks 0-4, sizes 0-6 and now and then a huge one, every dtype, dims and indices in and out of
// range, negative values, non-contiguous inputs, the mode on or off, and inputs that require
// grad, whose gradients are then checked to have their leaf's shape and dtype. A call may
// succeed or raise ditto::Error; anything else (another exception, a gradient of the wrong
// shape, a sanitizer report, a crash, a call that runs past --timeout) fails with a one-line
// reproducer: `ditto-fuzz --seed S --call K`, which replays exactly that call.
//
//   ditto-fuzz [--seed S] [--calls N] [--call K] [--timeout SECONDS] [--verbose]
//   ditto-fuzz --emit calls.jsonl --calls N && /usr/bin/python3 tools/fuzz_vs_pytorch.py calls.jsonl
//
// Every op of the table must have a generator here (the run fails otherwise), so an op is
// fuzzed the day it lands.
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ditto/ditto.h"
#include "ops/op_info.h"

using namespace ditto;
namespace F = ditto::nn::functional;

namespace {

constexpr int64_t kHuge = int64_t{1} << 62;

class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  int64_t range(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(g_); }  // [lo, hi]
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(g_) < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(range(0, static_cast<int64_t>(v.size()) - 1))];
  }
  uint64_t next() { return g_(); }

 private:
  std::mt19937_64 g_;
};

const std::vector<ScalarType> kDtypes = {kBool, kInt32, kInt64, kFloat32, kFloat64};

// A size: small, sometimes 0, rarely huge or negative.
int64_t size_arg(Rng& r) {
  if (r.chance(0.02)) return r.chance(0.5) ? kHuge : -r.range(1, 3);
  return r.range(0, 6);
}
// A dim for a tensor of rank nd: usually valid (negative too), sometimes out of range.
int64_t dim_arg(Rng& r, int64_t nd) {
  const int64_t n = nd > 0 ? nd : 1;
  if (r.chance(0.1)) return r.chance(0.5) ? n + r.range(0, 2) : -n - 1 - r.range(0, 2);
  return r.range(-n, n - 1);
}
Shape shape_arg(Rng& r, int64_t max_rank = 4) {
  Shape s(static_cast<std::size_t>(r.range(0, max_rank)));
  for (auto& v : s) v = r.chance(0.9) ? r.range(1, 5) : r.range(0, 6);
  return s;
}

struct Ctx {
  Rng& r;
  std::vector<Tensor> leaves;  // inputs that require grad
  std::ostringstream desc;

  // A tensor of shape s and dtype dt with small values (indices stay mostly valid), sometimes
  // non-contiguous, sometimes requiring grad.
  Tensor tensor(Shape s, ScalarType dt, bool allow_grad = true) {
    int64_t n = 1;
    for (int64_t v : s) n *= v;
    Tensor t;
    if (dt == kBool) {
      t = randint(0, 2, s, kInt64).to(kBool);
    } else if (is_floating(dt)) {
      t = randn(s, dt) * 3.0;
      if (n > 0 && r.chance(0.05))
        t = t.masked_fill(randint(0, 2, s, kInt64).to(kBool), r.chance(0.5) ? NAN : INFINITY);
    } else {
      t = randint(-2, 7, s, dt);
    }
    if (s.size() >= 2 && r.chance(0.2)) t = t.transpose(0, 1).contiguous().transpose(0, 1);  // same shape, strided
    if (allow_grad && is_floating(dt) && r.chance(0.3)) {
      t = t.detach().requires_grad_();
      leaves.push_back(t);
    }
    desc << dtype_name(dt) << "(";
    for (std::size_t i = 0; i < s.size(); ++i) desc << (i ? "," : "") << s[i];
    desc << (t.is_contiguous() ? "" : ",strided") << (t.requires_grad() ? ",grad" : "") << ") ";
    return t;
  }
  Tensor any(int64_t max_rank = 4) { return tensor(shape_arg(r, max_rank), r.pick(kDtypes)); }
  Tensor floating(Shape s) { return tensor(std::move(s), r.chance(0.8) ? kFloat32 : kFloat64); }
  Tensor index(Shape s, int64_t bound) {  // int64 indices in [-1, bound], mostly in range
    Tensor t = randint(0, bound > 0 ? bound : 1, s, kInt64);
    if (r.chance(0.05) && t.numel() > 0)
      t = t.masked_fill(randint(0, 2, s, kInt64).to(kBool), r.chance(0.5) ? -1 : bound);
    desc << "index(" << t.numel() << "<" << bound << ") ";
    return t;
  }
  Scalar scalar() {
    switch (r.range(0, 4)) {
      case 0: return Scalar(r.chance(0.5));
      case 1: return Scalar(r.range(-3, 3));
      case 2: return Scalar(r.chance(0.9) ? static_cast<double>(r.range(-6, 6)) / 2 : 1e300);
      case 3: return Scalar(r.chance(0.5) ? kHuge : std::numeric_limits<int64_t>::min());
      default: return Scalar(0.5);
    }
  }
};

using Gen = std::function<std::vector<Tensor>(Ctx&)>;
struct OpFuzzer {
  std::vector<std::string> ops;  // the table ops it calls (names as in the table)
  Gen run;
};

std::vector<Tensor> one(Tensor t) { return {std::move(t)}; }

std::vector<OpFuzzer> generators() {
  std::vector<OpFuzzer> g;
  auto reg = [&](std::vector<std::string> ops, Gen f) { g.push_back({std::move(ops), std::move(f)}); };
  // views and copies
  reg({"view", "transpose", "permute", "select", "slice", "expand", "squeeze", "unsqueeze", "copy_", "fill_"},
      [](Ctx& c) {
        Tensor x = c.any();
        const int64_t nd = x.dim();
        switch (c.r.range(0, 10)) {
          case 0: return one(x.view(shape_arg(c.r)));
          case 1: return one(x.reshape({-1, c.r.range(1, 3)}));
          case 2: return one(x.transpose(dim_arg(c.r, nd), dim_arg(c.r, nd)));
          case 3: {
            Shape p(static_cast<std::size_t>(nd));
            for (auto& v : p) v = dim_arg(c.r, nd);
            return one(x.permute(p));
          }
          case 4: return one(x.select(dim_arg(c.r, nd), c.r.range(-3, 5)));
          case 5:
            return one(x.slice(dim_arg(c.r, nd), c.r.range(-6, 6), c.r.range(-6, 8),
                               c.r.chance(0.05) ? kHuge : c.r.range(1, 3)));
          case 6: return one(x.expand(shape_arg(c.r)));
          case 7: return one(c.r.chance(0.5) ? x.squeeze() : x.squeeze(dim_arg(c.r, nd)));
          case 8: return one(x.unsqueeze(dim_arg(c.r, nd + 1)));
          case 9: {
            Tensor y = c.any().detach();
            return one(y.copy_(x));
          }
          default: {
            Tensor y = x.detach().clone();
            return one(y.fill_(c.scalar()));
          }
        }
      });
  reg({"arange", "linspace"}, [](Ctx& c) {
    if (c.r.chance(0.5)) return one(arange(c.scalar(), c.scalar(), c.scalar()));
    return one(linspace(static_cast<double>(c.r.range(-5, 5)), static_cast<double>(c.r.range(-5, 5)), size_arg(c.r)));
  });
  // elementwise
  // every op with a DITTO_UNARY row, through the function its row makes
  for (const ops::OpEntry& e : ops::all_ops())
    if (e.unary) reg({e.name}, [fn = e.unary](Ctx& c) { return one(fn(c.any())); });
  reg({"neg", "pow", "clamp", "gelu"}, [](Ctx& c) {
    Tensor x = c.any();
    switch (c.r.range(0, 3)) {
      case 0: return one(neg(x));
      case 1: return one(pow(x, c.scalar()));
      case 2: return one(clamp(x, c.scalar(), c.r.chance(0.5) ? std::optional<Scalar>(c.scalar()) : std::nullopt));
      default: return one(gelu(x, c.r.chance(0.5) ? "none" : c.r.chance(0.9) ? "tanh" : "bad"));
    }
  });
  reg({"silu", "mish", "hardswish", "leaky_relu", "softplus", "hardtanh", "elu"}, [](Ctx& c) {
    Tensor x = c.any();
    switch (c.r.range(0, 6)) {
      case 0: return one(silu(x));
      case 1: return one(mish(x));
      case 2: return one(hardswish(x));
      case 3: return one(leaky_relu(x, c.scalar()));
      case 4: return one(softplus(x, c.scalar(), c.scalar()));
      case 5: return one(hardtanh(x, c.scalar(), c.scalar()));
      default: return one(elu(x, c.scalar(), c.scalar(), c.scalar()));
    }
  });
  reg({"maximum", "minimum", "fmod", "remainder"}, [](Ctx& c) {
    Tensor a = c.any(3), b = c.r.chance(0.7) ? c.tensor(a.sizes(), c.r.pick(kDtypes)) : c.any(3);
    switch (c.r.range(0, 6)) {
      case 0: return one(maximum(a, b));
      case 1: return one(minimum(a, b));
      case 2: return one(fmod(a, b));
      case 3: return one(remainder(a, b));
      case 4: return one(fmod(a, c.scalar()));
      case 5: return one(clamp_min(a, c.scalar()));
      default: return one(remainder(a, c.scalar()));
    }
  });
  reg({"_scaled_dot_product_flash_attention", "_scaled_dot_product_flash_attention_backward"}, [](Ctx& c) {
    Tensor q = c.any(4), k = c.r.chance(0.8) ? c.tensor(q.sizes(), q.dtype()) : c.any(4);
    Tensor v = c.r.chance(0.8) ? c.tensor(k.sizes(), q.dtype()) : c.any(4);
    Tensor mask;
    if (c.r.chance(0.3)) {
      const int64_t L = q.dim() >= 2 ? q.size(-2) : 1, S = k.dim() >= 2 ? k.size(-2) : 1;
      mask = c.r.chance(0.5) ? c.tensor({L, S}, kBool) : c.any(3);
    }
    const double p = c.r.chance(0.1) ? 0.5 : c.r.chance(0.02) ? 1.5 : 0.0;
    return one(nn::functional::scaled_dot_product_attention(
        q, k, v, mask, p, c.r.chance(0.3), c.r.chance(0.2) ? std::optional<double>(0.3) : std::nullopt));
  });
  // the random draws: every distribution on any tensor (strided, expanded, empty, wrong dtype)
  reg({"uniform_", "normal_", "random_", "bernoulli_", "bernoulli", "exponential_", "randperm", "multinomial"},
      [](Ctx& c) {
        Tensor x = c.any();
        const double a = c.r.chance(0.1) ? -1e300 : static_cast<double>(c.r.range(-3, 3));
        const double b = c.r.chance(0.1) ? 1e300 : static_cast<double>(c.r.range(-3, 3));
        switch (c.r.range(0, 6)) {
          case 0: return one(x.detach().uniform_(a, b));
          case 1: return one(x.detach().normal_(a, b));
          case 2: return one(x.detach().random_(c.r.range(-5, 5), c.r.range(-5, 5)));
          case 3: return one(x.detach().bernoulli_(b / 3));
          case 4: return one(bernoulli(x));
          case 5: return one(randperm(c.r.chance(0.02) ? kHuge : c.r.range(-1, 40), c.r.pick(kDtypes)));
          default: return one(multinomial(x, c.r.chance(0.05) ? kHuge : c.r.range(-1, 6), c.r.chance(0.5)));
        }
      });
  // logsumexp, vector_norm, and the shape ops and products made of table ops (split ... einsum)
  reg({"logsumexp", "linalg_vector_norm"}, [](Ctx& c) {
    Tensor x = c.any();
    const int64_t nd = x.dim();
    auto ints = [&](int64_t lo, int64_t hi) {
      Shape v(static_cast<std::size_t>(c.r.range(0, 4)));
      for (auto& e : v) e = c.r.chance(0.03) ? (c.r.chance(0.5) ? kHuge : -kHuge) : c.r.range(lo, hi);
      return v;
    };
    switch (c.r.range(0, 13)) {
      case 13: return one(multinomial(x, c.r.chance(0.05) ? kHuge : c.r.range(-1, 6), c.r.chance(0.5)));
      case 0: return split(x, c.r.chance(0.05) ? kHuge : c.r.range(-1, 4), dim_arg(c.r, nd));
      case 1: return split_with_sizes(x, ints(-1, 4), dim_arg(c.r, nd));
      case 2: return chunk(x, c.r.range(-1, 5), dim_arg(c.r, nd));
      case 3: return unbind(x, dim_arg(c.r, nd));
      case 4: return one(repeat(x, ints(0, 3)));
      case 5: return one(tile(x, ints(0, 3)));
      case 6: return one(flip(x, DimList(ints(-4, 4))));
      case 7: return one(roll(x, DimList(ints(-5, 5)), DimList(ints(-4, 4))));
      case 8: return one(movedim(x, DimList(ints(-4, 4)), DimList(ints(-4, 4))));
      case 9: return one(logsumexp(x, DimList(ints(-4, 4)), c.r.chance(0.5)));
      case 10: {
        const double ords[] = {0, 1, 2, 3, 0.5, INFINITY, -INFINITY};
        return one(linalg::vector_norm(x, ords[c.r.range(0, 6)], DimList(ints(-4, 4)), c.r.chance(0.5)));
      }
      case 11: {
        Tensor y = c.any(3);
        if (c.r.chance(0.5)) return one(outer(x, y));
        return one(baddbmm(c.any(3), x, y, c.scalar(), c.scalar()));
      }
      default: {
        const char* eqs[] = {"ij,jk->ik", "...ij,...jk", "bij,bjk->bik", "ii->i",  "i,i->",          "ij->", "a",
                             "ab,ba->",   "i.j",         "ij,jk->iz",    "ij->jj", "...i,...i->...", "ij,j", "",
                             "->",        "ij,,j"};
        std::vector<Tensor> ops{x};
        if (c.r.chance(0.6)) ops.push_back(c.any(3));
        if (c.r.chance(0.2)) ops.push_back(c.any(2));
        return one(einsum(eqs[c.r.range(0, 15)], ops));
      }
    }
  });
  reg({"pow.Tensor", "add", "add.alpha", "sub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge", "where",
       "masked_fill"},
      [](Ctx& c) {
        Tensor a = c.any(3), b = c.r.chance(0.7) ? c.tensor(a.sizes(), c.r.pick(kDtypes)) : c.any(3);
        switch (c.r.range(0, 14)) {
          case 0: return one(pow(a, b));
          case 1: return one(add(a, b));
          case 2: return one(add(a, b, c.scalar()));
          case 3: return one(sub(a, b, c.r.chance(0.5) ? Scalar(1) : c.scalar()));
          case 4: return one(mul(a, b));
          case 5: return one(div(a, b));
          case 6: return one(eq(a, b));
          case 7: return one(ne(a, b));
          case 8: return one(lt(a, b));
          case 9: return one(le(a, b));
          case 10: return one(gt(a, b));
          case 11: return one(ge(a, b));
          case 12: return one(where(b.to(kBool), a, c.r.chance(0.5) ? a : b));
          case 13: {  // tril / triu: where over a triangle mask
            const int64_t k = c.r.chance(0.05) ? (c.r.chance(0.5) ? kHuge : -kHuge) : c.r.range(-3, 3);
            return one(c.r.chance(0.5) ? tril(a, k) : triu(a, k));
          }
          default: return one(masked_fill(a, b.to(kBool), c.scalar()));
        }
      });
  reg({"lerp.Scalar", "addcmul", "addcdiv", "gelu_backward", "threshold_backward"}, [](Ctx& c) {
    const Shape s = shape_arg(c.r, 3);
    Tensor a = c.floating(s), b = c.floating(c.r.chance(0.8) ? s : shape_arg(c.r, 3)), d = c.floating(s);
    switch (c.r.range(0, 4)) {
      case 0: return one(lerp(a, b, c.scalar()));
      case 1: return one(addcmul(a, b, d, c.scalar()));
      case 2: return one(addcdiv(a, b, d, c.scalar()));
      case 3: return one(gelu_backward(a, b));
      default: return one(threshold_backward(a, b, c.scalar()));
    }
  });
  // reductions
  reg({"sum", "mean", "prod", "amax", "amin", "max.dim", "min.dim", "argmax", "argmin", "var", "softmax", "log_softmax",
       "_softmax_backward_data", "_log_softmax_backward_data"},
      [](Ctx& c) {
        Tensor x = c.any();
        const int64_t nd = x.dim();
        const bool keep = c.r.chance(0.5);
        const Shape dims = c.r.chance(0.3) ? Shape{} : Shape{dim_arg(c.r, nd)};
        switch (c.r.range(0, 14)) {
          // the normalisations and channel dropouts composed of these reductions
          case 12: {
            const Tensor w = c.r.chance(0.5) ? c.any() : Tensor();
            return one(F::group_norm(x, c.r.range(0, 3), w, Tensor(), 1e-5));
          }
          case 13: {
            const Tensor rm = c.r.chance(0.3) ? c.any() : Tensor(), rv = c.r.chance(0.3) ? c.any() : Tensor();
            return one(F::instance_norm(x, rm, rv, Tensor(), Tensor(), c.r.chance(0.7), 0.1, 1e-5));
          }
          case 14: return one(c.r.chance(0.5) ? F::dropout1d(x, 0.5) : F::dropout2d(x, 0.5));
          case 0:
            return one(
                sum(x, dims, keep, c.r.chance(0.2) ? std::optional<ScalarType>(c.r.pick(kDtypes)) : std::nullopt));
          case 1: return one(mean(x, dims, keep));
          case 2: return one(c.r.chance(0.5) ? prod(x) : prod(x, dim_arg(c.r, nd), keep));
          case 3: return one(amax(x, dims, keep));
          case 4: return one(amin(x, dims, keep));
          case 5: {
            auto [v, i] = max(x, dim_arg(c.r, nd), keep);
            return std::vector<Tensor>{v, i};
          }
          case 6: {
            auto [v, i] = min(x, dim_arg(c.r, nd), keep);
            return std::vector<Tensor>{v, i};
          }
          case 7:
            return one(argmax(x, c.r.chance(0.5) ? std::optional<int64_t>(dim_arg(c.r, nd)) : std::nullopt, keep));
          case 8:
            return one(argmin(x, c.r.chance(0.5) ? std::optional<int64_t>(dim_arg(c.r, nd)) : std::nullopt, keep));
          case 9: return one(var(x, dims, c.r.chance(0.5), keep));
          case 10: return one(softmax(x, dim_arg(c.r, nd)));
          default: return one(log_softmax(x, dim_arg(c.r, nd)));
        }
      });
  // layer_norm (the backward runs when the input requires grad): trailing shapes right and wrong,
  // weights of other shapes and dtypes
  reg({"native_layer_norm", "native_layer_norm_backward"}, [](Ctx& c) {
    Tensor x = c.any();
    Shape ns;
    for (int64_t d = std::max<int64_t>(0, x.dim() - c.r.range(0, 2)); d < x.dim(); ++d) ns.push_back(x.size(d));
    if (c.r.chance(0.1)) ns = shape_arg(c.r, 2);
    const Tensor w = c.r.chance(0.5) ? (c.r.chance(0.8) ? c.tensor(ns, x.dtype()) : c.any()) : Tensor();
    const Tensor b = c.r.chance(0.5) ? c.tensor(ns, x.dtype()) : Tensor();
    auto [out, mean, rstd] = native_layer_norm(x, ns, w, b, c.r.chance(0.9) ? 1e-5 : 0.0);
    return std::vector<Tensor>{out, mean, rstd};
  });
  // batch_norm (the backward runs when the input requires grad): per-channel tensors of the right
  // and wrong sizes and dtypes, running statistics given or not, both modes
  reg({"native_batch_norm", "native_batch_norm_backward"}, [](Ctx& c) {
    Tensor x = c.any();
    const int64_t C = x.dim() >= 2 ? x.size(1) : c.r.range(0, 3);
    auto per_channel = [&](double p) {
      if (!c.r.chance(p)) return Tensor();
      return c.r.chance(0.9) ? c.tensor({C}, x.dtype()) : c.any();
    };
    const Tensor w = per_channel(0.5), b = per_channel(0.5);
    Tensor rm = per_channel(0.6), rv = per_channel(0.6);
    if (rv.defined() && c.r.chance(0.8)) rv = rv.abs();
    auto [out, mean, rstd] = native_batch_norm(x, w, b, rm, rv, c.r.chance(0.6), 0.1, c.r.chance(0.9) ? 1e-5 : 0.0);
    return std::vector<Tensor>{out, mean, rstd};
  });
  // group_norm: sizes that do and do not match the input's, groups that do not divide C
  reg({"native_group_norm", "native_group_norm_backward"}, [](Ctx& c) {
    Tensor x = c.any();
    const int64_t N = x.dim() >= 1 ? x.size(0) : 1, C = x.dim() >= 2 ? x.size(1) : c.r.range(0, 3);
    int64_t HxW = N * C > 0 ? x.numel() / (N * C) : c.r.range(0, 3);
    if (c.r.chance(0.1)) HxW += 1;
    const int64_t groups = c.r.chance(0.9) ? std::max<int64_t>(1, C / std::max<int64_t>(1, c.r.range(1, 3))) : 0;
    const Tensor w = c.r.chance(0.5) ? (c.r.chance(0.9) ? c.tensor({C}, x.dtype()) : c.any()) : Tensor();
    const Tensor b = c.r.chance(0.5) ? c.tensor({C}, x.dtype()) : Tensor();
    auto [out, mean, rstd] = native_group_norm(x, w, b, N, C, HxW, groups, c.r.chance(0.9) ? 1e-5 : 0.0);
    return std::vector<Tensor>{out, mean, rstd};
  });
  // scans (cumprod_backward runs when the input requires grad)
  reg({"cumsum", "cumprod", "cumprod_backward"}, [](Ctx& c) {
    Tensor x = c.any();
    const int64_t d = dim_arg(c.r, x.dim());
    const auto dt = c.r.chance(0.2) ? std::optional<ScalarType>(c.r.pick(kDtypes)) : std::nullopt;
    return one(c.r.chance(0.5) ? cumsum(x, d, dt) : cumprod(x, d, dt));
  });
  reg({"logcumsumexp", "cummax", "cummin"}, [](Ctx& c) {
    Tensor x = c.any();
    const int64_t d = dim_arg(c.r, x.dim());
    if (c.r.chance(0.34)) return one(logcumsumexp(x, d));
    auto [v, i] = c.r.chance(0.5) ? cummax(x, d) : cummin(x, d);
    return std::vector<Tensor>{v, i};
  });
  // embedding_bag, through nn::functional's checks or straight to the bounds form
  reg({"_embedding_bag", "_embedding_bag_dense_backward"}, [](Ctx& c) {
    const Tensor w = c.any(2);
    const int64_t rows = w.dim() >= 1 ? w.size(0) : 1;
    const Tensor idx = c.index(shape_arg(c.r, 2), rows);
    Tensor offs;
    if (idx.dim() != 2 || c.r.chance(0.1)) offs = c.index({c.r.range(0, 4)}, idx.numel() + 1);
    const std::string mode = c.r.pick(std::vector<std::string>{"sum", "mean", "max", "avg"});
    const Tensor psw = c.r.chance(0.3) ? c.tensor(idx.sizes(), w.dtype()) : Tensor();
    const std::optional<int64_t> pad = c.r.chance(0.3) ? std::optional<int64_t>(c.r.range(-3, 3)) : std::nullopt;
    if (c.r.chance(0.3)) {  // the bounds form, with bounds that are sometimes not bounds
      const Tensor flat = c.r.chance(0.9) ? idx.reshape({-1}) : idx;
      Tensor bounds = c.index({c.r.range(0, 5)}, flat.numel() + 2);
      if (c.r.chance(0.7)) bounds = std::get<0>(ditto::sort(bounds));
      if (c.r.chance(0.7) && bounds.numel() > 0) bounds = bounds - bounds.min();
      return std::vector<Tensor>{
          embedding_bag_bounds(w, flat, bounds, mode, psw.defined() ? psw.reshape({-1}) : psw, pad.value_or(-1)).first};
    }
    return one(F::embedding_bag(idx, w, offs, mode, psw, c.r.chance(0.3), pad));
  });
  // cross_entropy with class targets (one node), nll_loss beside it; targets sometimes out of range
  reg({"cross_entropy_loss", "cross_entropy_loss_backward"}, [](Ctx& c) {
    const Tensor x = c.r.chance(0.85) ? c.floating(shape_arg(c.r, c.r.range(1, 4))) : c.any();
    const int64_t C = x.dim() >= 2 ? x.size(1) : x.dim() == 1 ? x.size(0) : 1;
    Shape ts = x.sizes();
    if (!ts.empty()) ts.erase(ts.begin() + (x.dim() == 1 ? 0 : 1));
    if (c.r.chance(0.05)) ts.push_back(2);
    Tensor t = c.index(ts, C + (c.r.chance(0.05) ? 2 : 0));
    if (c.r.chance(0.3)) t = where(c.tensor(ts, kBool), full(ts, int64_t(-100)), t);
    const Tensor w = c.r.chance(0.3) ? c.tensor({c.r.chance(0.9) ? C : C + 1}, x.dtype()) : Tensor();
    const auto red = c.r.pick(std::vector<nn::Reduction>{nn::Reduction::None, nn::Reduction::Mean, nn::Reduction::Sum});
    if (c.r.chance(0.2)) return one(F::nll_loss(x, t, w, -100, red));
    return one(F::cross_entropy(x, t, w, -100, red, c.r.chance(0.2) ? 0.1 : 0.0));
  });
  // ctc_loss: shapes, lengths and labels mostly consistent, sometimes not
  reg({"_ctc_loss", "_ctc_loss_backward"}, [](Ctx& c) {
    const Tensor lp = c.r.chance(0.9) ? c.floating({c.r.range(0, 6), c.r.range(0, 4), c.r.range(0, 5)}) : c.any();
    const int64_t T = lp.dim() >= 1 ? lp.size(0) : 1, N = lp.dim() == 3 ? lp.size(1) : 1,
                  C = lp.dim() >= 2 ? lp.size(-1) : 1;
    Shape il, tl;
    for (int64_t b = 0; b < N + (c.r.chance(0.05) ? 1 : 0); ++b) {
      il.push_back(c.r.chance(0.95) ? c.r.range(0, T) : c.r.range(-1, T + 1));
      tl.push_back(c.r.range(c.r.chance(0.05) ? -1 : 0, 3));
    }
    const Tensor targets = c.r.chance(0.5) ? c.index({N, c.r.range(0, 4)}, C) : c.index({c.r.range(0, 8)}, C);
    const auto red = c.r.pick(std::vector<nn::Reduction>{nn::Reduction::None, nn::Reduction::Mean, nn::Reduction::Sum});
    return one(F::ctc_loss(lp, targets, il, tl, c.r.range(-1, 3), red, c.r.chance(0.5)));
  });
  // selection by data
  reg({"nonzero", "index_select", "gather", "index_copy_"}, [](Ctx& c) {
    const Tensor x = c.any();
    const Tensor mask = c.r.chance(0.8) ? c.tensor(x.sizes(), kBool) : c.any();
    const int64_t d = dim_arg(c.r, x.dim());
    switch (c.r.range(0, 6)) {
      case 0: return one(nonzero(x));
      case 1: return one(masked_select(x, mask));
      case 2: return one(masked_scatter(x, mask, c.tensor({c.r.range(0, 40)}, x.dtype())));
      case 3: return one(take(x, c.index(shape_arg(c.r, 2), x.numel())));
      case 4: return one(take_along_dim(x, c.index(x.sizes(), x.dim() > 0 ? x.size(d) : 1), d));
      case 5: return one(repeat_interleave(x, c.index({x.dim() > 0 ? x.size(d) : 1}, 3), d));
      default: return one(index_fill(x, d, c.index({c.r.range(0, 3)}, x.dim() > 0 ? x.size(d) : 1), c.scalar()));
    }
  });
  // counting
  reg({"histc", "bincount"}, [](Ctx& c) {
    Tensor x = c.any();
    if (c.r.chance(0.5)) return one(histc(x, c.r.range(-1, 40), c.scalar(), c.scalar()));
    std::optional<Tensor> w;
    if (c.r.chance(0.5)) w = c.any();
    return one(bincount(x, w, c.r.range(-1, 5)));
  });
  // ordering (the backward formulas run scatter_ when the input requires grad)
  reg({"searchsorted"}, [](Ctx& c) {
    const Tensor seq = c.any(3), v = c.r.chance(0.7) ? c.any(3) : c.tensor(seq.sizes(), seq.dtype());
    Tensor sorter;
    if (c.r.chance(0.2)) sorter = c.index(seq.sizes(), seq.dim() > 0 ? seq.size(-1) : 1);
    const bool right = c.r.chance(0.5);
    if (c.r.chance(0.2)) return one(bucketize(v, seq, c.r.chance(0.5), right));
    if (c.r.chance(0.2)) return one(searchsorted(seq, c.scalar(), false, right));
    return one(searchsorted(seq, v, c.r.chance(0.5), right, std::nullopt, sorter));
  });
  reg({"mode", "_unique2", "unique_dim", "unique_consecutive"}, [](Ctx& c) {
    Tensor x = c.any();
    const bool flag = c.r.chance(0.5), flag2 = c.r.chance(0.5);
    const std::optional<int64_t> d = c.r.chance(0.5) ? std::optional<int64_t>(dim_arg(c.r, x.dim())) : std::nullopt;
    std::tuple<Tensor, Tensor, Tensor> r;
    switch (c.r.range(0, 2)) {
      case 0: {
        const auto [v, i] = mode(x, d.value_or(-1), flag);
        return std::vector<Tensor>{v, i};
      }
      case 1: r = unique(x, c.r.chance(0.5), flag, flag2, d); break;
      default: r = unique_consecutive(x, flag, flag2, d); break;
    }
    return std::vector<Tensor>{std::get<0>(r), std::get<1>(r), std::get<2>(r)};
  });
  reg({"sort", "topk", "kthvalue", "median.dim", "nanmedian.dim", "median", "nanmedian"}, [](Ctx& c) {
    Tensor x = c.any();
    const int64_t d = dim_arg(c.r, x.dim());
    const int64_t k = c.r.range(-1, 6);
    const bool flag = c.r.chance(0.5), flag2 = c.r.chance(0.5);
    std::pair<Tensor, Tensor> r;
    switch (c.r.range(0, 4)) {
      case 0: r = sort(x, d, flag, flag2); break;
      case 1: r = topk(x, k, d, flag, flag2); break;
      case 2: r = kthvalue(x, k, d, flag); break;
      case 3: r = flag2 ? median(x, d, flag) : nanmedian(x, d, flag); break;
      default: return one(flag2 ? median(x) : nanmedian(x));
    }
    return std::vector<Tensor>{r.first, r.second};
  });
  // linear algebra
  reg({"bmm", "mm", "addmm"}, [](Ctx& c) {
    const int64_t n = size_arg(c.r), k = size_arg(c.r), m = size_arg(c.r);
    const bool ok = c.r.chance(0.8);
    const ScalarType dt = c.r.chance(0.8) ? kFloat32 : c.r.pick(kDtypes);
    auto sz = [&](int64_t v) { return v < 0 || v > 8 ? int64_t{2} : v; };
    switch (c.r.range(0, 3)) {
      case 0: return one(mm(c.tensor({sz(n), sz(k)}, dt), c.tensor({ok ? sz(k) : sz(m), sz(m)}, dt)));
      case 1: return one(bmm(c.tensor({2, sz(n), sz(k)}, dt), c.tensor({ok ? 2 : 3, sz(k), sz(m)}, dt)));
      case 2: return one(matmul(c.tensor(shape_arg(c.r, 3), dt), c.tensor(shape_arg(c.r, 3), dt)));
      default:
        return one(addmm(c.tensor({sz(m)}, dt), c.tensor({sz(n), sz(k)}, dt), c.tensor({sz(k), sz(m)}, dt), c.scalar(),
                         c.scalar()));
    }
  });
  // joining and indexing
  reg({"cat", "index_select", "gather", "index_add_", "scatter_", "scatter_add_", "scatter_reduce", "index_copy_",
       "index_put_", "index_put_.accumulate", "put_", "put_.accumulate", "embedding", "embedding_dense_backward"},
      [](Ctx& c) {
        Tensor x = c.any(3);
        const int64_t nd = x.dim(), d = dim_arg(c.r, nd);
        const int64_t size = nd == 0 ? 1 : x.size(d >= -nd && d < nd ? d : 0);
        const int64_t n = c.r.range(0, 6);
        Shape along = x.sizes();  // x's shape with n along d
        if (nd > 0 && d >= -nd && d < nd) along[static_cast<std::size_t>(d < 0 ? d + nd : d)] = n;
        switch (c.r.range(0, 12)) {
          case 0: return one(cat({x, c.r.chance(0.7) ? c.tensor(along, x.dtype()) : c.any(3)}, d));
          case 1: return one(index_select(x, d, c.index({n}, size)));
          case 2: return one(gather(x, d, c.index(c.r.chance(0.8) ? along : shape_arg(c.r, 3), size)));
          case 3: return one(index_add(x, d, c.index({n}, size), c.tensor(along, x.dtype()), c.scalar()));
          case 4:
            if (c.r.chance(0.3)) return one(scatter(x, d, c.index(along, size), c.scalar()));
            if (c.r.chance(0.5)) return one(scatter(x, d, c.index(along, size), c.tensor(along, x.dtype())));
            return one(scatter_add(x, d, c.index(along, size), c.tensor(along, x.dtype())));
          case 5:
            return one(scatter_reduce(x, d, c.index(along, size), c.tensor(along, x.dtype()),
                                      c.r.pick(std::vector<std::string>{"sum", "mean", "amax", "amin", "prod", "max"}),
                                      c.r.chance(0.5)));
          case 6: return one(index_copy(x, d, c.index({n}, size), c.tensor(along, x.dtype())));
          case 7: {
            const int64_t rows = nd == 0 ? 1 : x.size(0);
            Shape vs = x.sizes();
            if (!vs.empty()) vs[0] = n;
            return one(index_put(x, {c.index({n}, rows)}, c.tensor(vs, x.dtype()), c.r.chance(0.5)));
          }
          case 8: return one(put(x, c.index({n}, x.numel()), c.tensor({n}, x.dtype()), c.r.chance(0.5)));
          case 9:
            if (c.r.chance(0.5)) {  // several index tensors, full slices and masks: PyTorch's placement
              std::vector<Tensor> list;
              for (int64_t j = 0, m = c.r.range(1, 3); j < m; ++j) {
                const int64_t dj = std::min<int64_t>(j, std::max<int64_t>(nd - 1, 0));
                const int64_t bound = nd > 0 ? x.size(dj) : 1;
                switch (c.r.range(0, 2)) {
                  case 0: list.emplace_back(); break;
                  case 1: list.push_back(c.index(shape_arg(c.r, 2), bound)); break;
                  default: list.push_back(c.tensor({bound}, kBool)); break;
                }
              }
              if (c.r.chance(0.5)) return one(index(x, list));
              return one(index_put(x, list, c.tensor({c.r.range(0, 2)}, x.dtype()), c.r.chance(0.5)));
            }
            return one(index_put(x, {c.tensor(Shape(x.sizes().begin(), x.sizes().begin() + (nd > 0 ? 1 : 0)), kBool)},
                                 c.tensor({1}, x.dtype()), false));
          case 10:
            return one(embedding(c.floating({c.r.range(0, 6), 3}), c.index(shape_arg(c.r, 2), 4), c.r.range(-2, 4)));
          case 11:
            return one(
                embedding_dense_backward(c.floating({n, 3}), c.index({n}, 4), c.r.range(-1, 5), c.r.range(-2, 4)));
          default: return one(F::embedding(c.index(shape_arg(c.r, 2), 5), c.floating({5, 2})));
        }
      });
  // convolution and pooling
  reg({"conv2d", "conv2d_backward_input", "conv2d_backward_weight", "max_pool2d_with_indices",
       "max_pool2d_with_indices_backward", "avg_pool2d", "avg_pool2d_backward", "adaptive_avg_pool2d",
       "adaptive_avg_pool2d_backward", "max_unpooling2d_forward_out", "max_unpooling3d_forward_out"},
      [](Ctx& c) {
        auto arg = [&](int64_t lo) {
          return c.r.chance(0.05) ? (c.r.chance(0.5) ? kHuge : int64_t{-1}) : c.r.range(lo, 3);
        };
        const int64_t N = c.r.range(0, 2), C = c.r.range(1, 3), H = c.r.range(1, 6), W = c.r.range(1, 6);
        const Tensor x = c.floating(c.r.chance(0.9) ? Shape{N, C, H, W} : shape_arg(c.r));
        switch (c.r.range(0, 9)) {
          case 0: {
            const int64_t g = c.r.chance(0.8) ? 1 : C;
            const Tensor w = c.floating({c.r.range(1, 3) * g, C / g, c.r.range(1, 3), c.r.range(1, 3)});
            return one(F::conv2d(x, w, c.r.chance(0.5) ? c.floating({w.size(0)}) : Tensor(), {arg(1), arg(1)},
                                 {arg(0), arg(0)}, {arg(1), arg(1)}, g));
          }
          case 1:
            return one(F::conv1d(c.floating({N, C, W}), c.floating({2, C, c.r.range(1, 3)}), Tensor(), arg(1), arg(0),
                                 arg(1), 1));
          case 2:
            return one(F::conv2d_backward_input(c.floating({N, 2, c.r.range(1, 4), c.r.range(1, 4)}),
                                                c.floating({2, C, 2, 2}), {N, C, H, W}, arg(1), arg(0), arg(1), 1));
          case 3:
            return one(F::conv2d_backward_weight(c.floating({N, 2, c.r.range(1, 4), c.r.range(1, 4)}), x, {2, C, 2, 2},
                                                 arg(1), arg(0), arg(1), 1));
          case 4: {
            auto vi =
                F::max_pool2d_with_indices(x, {arg(1), arg(1)}, c.r.chance(0.3) ? nn::SizeArg() : nn::SizeArg(arg(1)),
                                           arg(0), arg(1), c.r.chance(0.5));
            return std::vector<Tensor>{vi.first, vi.second};
          }
          case 5: return one(F::max_pool1d(c.floating({N, C, W}), arg(1), arg(1), arg(0), arg(1), c.r.chance(0.5)));
          case 6:
            return one(F::avg_pool2d(x, {arg(1), arg(1)}, {}, arg(0), c.r.chance(0.5), c.r.chance(0.5),
                                     c.r.chance(0.2) ? std::optional<int64_t>(c.r.range(-1, 3)) : std::nullopt));
          case 7: return one(F::adaptive_avg_pool2d(x, {arg(1), arg(1)}));
          case 8: {
            const int64_t k = arg(1);
            return one(F::max_unpool2d(x, c.index(x.sizes(), 16), k,
                                       c.r.chance(0.5) ? nn::SizeArg() : nn::SizeArg(arg(1)), arg(0)));
          }
          default: {
            const Tensor x5 = c.floating({1, 1, c.r.range(1, 3), c.r.range(1, 3), c.r.range(1, 3)});
            return one(F::max_unpool3d(x5, c.index(x5.sizes(), 8), arg(1), arg(1), arg(0)));
          }
        }
      });
  // grid sampling
  reg({"grid_sampler_2d", "grid_sampler_2d_backward", "grid_sampler_3d", "grid_sampler_3d_backward"}, [](Ctx& c) {
    const char* modes[] = {"bilinear", "nearest", "bicubic", "area"};
    const char* pads[] = {"zeros", "border", "reflection", "wrap"};
    const std::string mode = modes[c.r.chance(0.03) ? 3 : c.r.range(0, 2)];
    const std::string pad = pads[c.r.chance(0.03) ? 3 : c.r.range(0, 2)];
    const int64_t N = c.r.range(0, 2), C = c.r.range(0, 3);
    const bool d3 = c.r.chance(0.3);
    if (c.r.chance(0.2)) {  // affine_grid (public ops), alone or feeding grid_sample
      Shape size{c.r.chance(0.05) ? N + 1 : N, C};
      for (int d = 0; d < (d3 ? 3 : 2); ++d) size.push_back(c.r.chance(0.03) ? kHuge : c.r.range(0, 4));
      const int64_t k = d3 ? 3 : 2;
      const Tensor theta = c.floating(c.r.chance(0.9) ? Shape{N, k, k + 1} : shape_arg(c.r));
      const Tensor grid = F::affine_grid(theta, size, c.r.chance(0.5));
      if (c.r.chance(0.5)) return one(grid);
      return one(F::grid_sample(c.floating(size), grid, mode, pad, false));
    }
    Shape in{N, C}, g{c.r.chance(0.05) ? N + 1 : N};
    for (int d = 0; d < (d3 ? 3 : 2); ++d) in.push_back(c.r.range(c.r.chance(0.05) ? 0 : 1, 5));
    for (int d = 0; d < (d3 ? 3 : 2); ++d) g.push_back(c.r.range(0, 4));
    g.push_back(c.r.chance(0.05) ? 1 : (d3 ? 3 : 2));
    // grid values mostly in range, some far out, some non-finite
    Tensor grid = c.floating(g) * (c.r.chance(0.2) ? 1e9 : 1.5);
    if (c.r.chance(0.05) && grid.numel() > 0) grid = grid / zeros(g);
    return one(F::grid_sample(c.floating(in), grid, mode, pad,
                              c.r.chance(0.5) ? std::optional<bool>(c.r.chance(0.5)) : std::nullopt));
  });
  // 3-D and transposed convolution
  reg({"conv3d", "conv3d_backward_input", "conv3d_backward_weight", "conv_transpose2d", "conv_transpose3d"},
      [](Ctx& c) {
        auto arg = [&](int64_t lo) {
          return c.r.chance(0.05) ? (c.r.chance(0.5) ? kHuge : int64_t{-1}) : c.r.range(lo, 3);
        };
        const int64_t N = c.r.range(0, 2), C = c.r.range(1, 3), g = c.r.chance(0.8) ? 1 : C;
        const Shape s5{N, C, c.r.range(1, 4), c.r.range(1, 4), c.r.range(1, 4)};
        const Tensor x5 = c.floating(c.r.chance(0.9) ? s5 : shape_arg(c.r));
        const Tensor x4 = c.floating({N, C, c.r.range(1, 5), c.r.range(1, 5)});
        const Shape k3{c.r.range(1, 3), c.r.range(1, 3), c.r.range(1, 3)};
        switch (c.r.range(0, 4)) {
          case 0: {
            const Tensor w = c.floating({c.r.range(1, 3) * g, C / g, k3[0], k3[1], k3[2]});
            return one(
                F::conv3d(x5, w, c.r.chance(0.5) ? c.floating({w.size(0)}) : Tensor(), arg(1), arg(0), arg(1), g));
          }
          case 1: {
            const Tensor w = c.floating({C, c.r.range(1, 3), c.r.range(1, 4), c.r.range(1, 4)});
            return one(F::conv_transpose2d(x4, w, c.r.chance(0.5) ? c.floating({w.size(1) * g}) : Tensor(), arg(1),
                                           arg(0), arg(0), g, arg(1)));
          }
          case 2: {
            const Tensor w = c.floating({C, c.r.range(1, 3), k3[0], k3[1], k3[2]});
            return one(F::conv_transpose3d(x5, w, Tensor(), arg(1), arg(0), arg(0), g, arg(1)));
          }
          case 3:
            return one(F::conv3d_backward_input(c.floating({N, 2, c.r.range(1, 3), c.r.range(1, 3), c.r.range(1, 3)}),
                                                c.floating({2, C, 2, 2, 2}), s5, arg(1), arg(0), arg(1), 1));
          default:
            return one(F::conv3d_backward_weight(c.floating({N, 2, c.r.range(1, 3), c.r.range(1, 3), c.r.range(1, 3)}),
                                                 x5, {2, C, 2, 2, 2}, arg(1), arg(0), arg(1), 1));
        }
      });
  // 3-D, adaptive, fractional and power-average pooling
  reg({"max_pool3d_with_indices", "max_pool3d_with_indices_backward", "avg_pool3d", "avg_pool3d_backward",
       "adaptive_avg_pool3d", "adaptive_avg_pool3d_backward", "adaptive_max_pool2d", "adaptive_max_pool2d_backward",
       "adaptive_max_pool3d", "adaptive_max_pool3d_backward", "fractional_max_pool2d", "fractional_max_pool2d_backward",
       "fractional_max_pool3d", "fractional_max_pool3d_backward"},
      [](Ctx& c) {
        auto arg = [&](int64_t lo) {
          return c.r.chance(0.05) ? (c.r.chance(0.5) ? kHuge : int64_t{-1}) : c.r.range(lo, 3);
        };
        auto pair = [](std::pair<Tensor, Tensor> p) { return std::vector<Tensor>{p.first, p.second}; };
        const int64_t N = c.r.range(0, 2), C = c.r.range(1, 3);
        const Shape s5{N, C, c.r.range(1, 5), c.r.range(1, 5), c.r.range(1, 5)};
        const Tensor x5 = c.floating(c.r.chance(0.9) ? s5 : shape_arg(c.r));
        const Tensor x4 = c.floating(c.r.chance(0.9) ? Shape{N, C, c.r.range(1, 6), c.r.range(1, 6)} : shape_arg(c.r));
        const nn::SizeArg k3{arg(1), arg(1), arg(1)};
        switch (c.r.range(0, 10)) {
          case 0:
            return pair(F::max_pool3d_with_indices(x5, k3, c.r.chance(0.3) ? nn::SizeArg() : nn::SizeArg(arg(1)),
                                                   arg(0), arg(1), c.r.chance(0.5)));
          case 1:
            return one(F::avg_pool3d(x5, k3, {}, arg(0), c.r.chance(0.5), c.r.chance(0.5),
                                     c.r.chance(0.2) ? std::optional<int64_t>(c.r.range(-1, 3)) : std::nullopt));
          case 2: return one(F::adaptive_avg_pool3d(x5, {arg(1), arg(1), arg(1)}));
          case 3: return pair(F::adaptive_max_pool3d_with_indices(x5, {arg(1), arg(1), arg(1)}));
          case 4: return pair(F::adaptive_max_pool2d_with_indices(x4, {arg(1), arg(1)}));
          case 5: return one(F::adaptive_max_pool1d(c.floating({N, C, c.r.range(1, 6)}), arg(1)));
          case 6: {
            const Tensor u = c.r.chance(0.7) ? Tensor() : c.floating({N, C, c.r.range(1, 3)});
            return pair(F::fractional_max_pool2d_with_indices(
                x4, {arg(1), arg(1)}, c.r.chance(0.8) ? nn::SizeArg{arg(1), arg(1)} : nn::SizeArg(),
                c.r.chance(0.5) ? std::vector<double>{} : std::vector<double>{0.5 * double(c.r.range(0, 2))}, u));
          }
          case 7: return pair(F::fractional_max_pool3d_with_indices(x5, arg(1), {arg(1), arg(1), arg(1)}));
          case 8: return one(F::lp_pool2d(x4, double(c.r.range(1, 3)), {arg(1), arg(1)}, {}, c.r.chance(0.5)));
          case 9: {
            const Tensor g = c.floating({N, C, c.r.range(1, 3), c.r.range(1, 3), c.r.range(1, 3)});
            return one(F::max_pool3d_with_indices_backward(g, c.index(g.sizes(), 8), s5));
          }
          default: {
            const Tensor g = c.floating({N, C, c.r.range(1, 3), c.r.range(1, 3)});
            return one(c.r.chance(0.5) ? F::adaptive_max_pool2d_backward(g, c.index(g.sizes(), 8), x4.sizes())
                                       : F::fractional_max_pool2d_backward(g, c.index(g.sizes(), 8), x4.sizes()));
          }
        }
      });
  // padding and upsampling
  reg({"constant_pad_nd", "reflection_pad1d", "reflection_pad2d", "reflection_pad3d", "replication_pad1d",
       "replication_pad2d", "replication_pad3d", "_pad_circular", "reflection_pad1d_backward",
       "reflection_pad2d_backward", "reflection_pad3d_backward", "replication_pad1d_backward",
       "replication_pad2d_backward", "replication_pad3d_backward", "_pad_circular_backward"},
      [](Ctx& c) {
        const char* modes[] = {"constant", "reflect", "replicate", "circular", "wrap"};
        const std::string mode = c.r.chance(0.02) ? modes[4] : modes[c.r.range(0, 3)];
        const int64_t dims = c.r.range(1, 3);
        Shape s = c.r.chance(0.1) ? shape_arg(c.r, 5) : Shape{};
        if (s.empty()) {
          if (c.r.chance(0.8)) s = {c.r.range(0, 2), c.r.range(0, 3)};
          for (int64_t d = 0; d < dims; ++d) s.push_back(c.r.range(0, 5));
        }
        const bool any_dtype = (mode == "constant" || mode == "circular") && c.r.chance(0.2);
        const Tensor x = any_dtype ? c.tensor(s, c.r.pick(kDtypes)) : c.floating(s);
        Shape pad;
        const int64_t n = c.r.chance(0.05) ? c.r.range(0, 9) : 2 * dims;
        for (int64_t k = 0; k < n; ++k)
          pad.push_back(c.r.chance(0.03) ? (c.r.chance(0.5) ? kHuge : -kHuge) : c.r.range(-3, 5));
        c.desc << mode << " pad(";
        for (int64_t p : pad) c.desc << p << ",";
        c.desc << ") ";
        std::optional<double> value;
        if (c.r.chance(0.3)) value = static_cast<double>(c.r.range(-2, 2)) / 2;
        return one(F::pad(x, pad, mode, value));
      });
  reg({"upsample_nearest1d",
       "upsample_nearest2d",
       "upsample_nearest3d",
       "_upsample_nearest_exact1d",
       "_upsample_nearest_exact2d",
       "_upsample_nearest_exact3d",
       "upsample_linear1d",
       "upsample_bilinear2d",
       "upsample_trilinear3d",
       "upsample_bicubic2d",
       "upsample_nearest1d_backward",
       "upsample_nearest2d_backward",
       "upsample_nearest3d_backward",
       "_upsample_nearest_exact1d_backward",
       "_upsample_nearest_exact2d_backward",
       "_upsample_nearest_exact3d_backward",
       "upsample_linear1d_backward",
       "upsample_bilinear2d_backward",
       "upsample_trilinear3d_backward",
       "upsample_bicubic2d_backward"},
      [](Ctx& c) {
        const char* modes[] = {"nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area"};
        const int64_t dims = c.r.range(1, 3);
        const char* mode = c.r.chance(0.1) ? modes[c.r.range(0, 6)]
                           : dims == 1     ? modes[c.r.pick(std::vector<int64_t>{0, 1, 2})]
                           : dims == 2     ? modes[c.r.pick(std::vector<int64_t>{0, 1, 3, 4})]
                                           : modes[c.r.pick(std::vector<int64_t>{0, 1, 5})];
        Shape s{c.r.range(0, 2), c.r.range(1, 3)};
        for (int64_t d = 0; d < dims; ++d) s.push_back(c.r.range(c.r.chance(0.05) ? 0 : 1, 5));
        const Tensor x = c.floating(c.r.chance(0.05) ? shape_arg(c.r, 5) : s);
        std::optional<nn::SizeArg> size;
        std::optional<std::vector<double>> scale;
        if (c.r.chance(0.5) || c.r.chance(0.05)) {
          Shape o;
          for (int64_t d = 0; d < (c.r.chance(0.1) ? 1 : dims); ++d)
            o.push_back(c.r.chance(0.03) ? kHuge : c.r.range(0, 7));
          size = nn::SizeArg(o);
        }
        if (!size || c.r.chance(0.05)) {
          std::vector<double> v;
          for (int64_t d = 0; d < (c.r.chance(0.3) ? 1 : dims); ++d)
            v.push_back(c.r.chance(0.03) ? 1e300 : static_cast<double>(c.r.range(-1, 12)) / 4);
          scale = v;
        }
        std::optional<bool> ac, recompute;
        if (c.r.chance(0.5)) ac = c.r.chance(0.5);
        if (c.r.chance(0.2)) recompute = c.r.chance(0.5);
        return one(F::interpolate(x, size, scale, mode, ac, recompute));
      });
  return g;
}

int64_t g_current = -1;
uint64_t g_seed = 0;
const Ctx* g_ctx = nullptr;  // the call in progress, for the hang report
void report(const char* what) {
  std::fprintf(stderr, "ditto-fuzz: %s (%s): reproduce with ditto-fuzz --seed %llu --call %lld\n", what,
               g_ctx ? g_ctx->desc.str().c_str() : "", static_cast<unsigned long long>(g_seed),
               static_cast<long long>(g_current));
}
void on_timeout(int) {
  report("hang");
  std::_Exit(3);
}
void on_crash(int sig) {
  report(sig == SIGFPE ? "crash (SIGFPE)" : sig == SIGSEGV ? "crash (SIGSEGV)" : "crash (SIGABRT)");
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// --- Calls PyTorch can replay (--emit FILE): a subset of the ops, whose arguments are all written
// out (tensors with their values), with ditto's outcome; tools/fuzz_vs_pytorch.py runs each in
// PyTorch and reports where one library accepts what the other refuses.
nlohmann::json encode(const Tensor& t) {
  nlohmann::json j;
  j["dtype"] = dtype_name(t.dtype());
  j["sizes"] = t.sizes();
  const Tensor c = t.contiguous();
  nlohmann::json data = nlohmann::json::array();
  switch (c.dtype()) {
    case kBool:
      for (bool v : to_vector<bool>(c)) data.push_back(v);
      break;
    case kInt32:
      for (int32_t v : to_vector<int32_t>(c)) data.push_back(v);
      break;
    case kInt64:
      for (int64_t v : to_vector<int64_t>(c)) data.push_back(v);
      break;
    case kFloat32:
      for (float v : to_vector<float>(c)) data.push_back(std::isfinite(v) ? v : 0.0f);
      break;
    case kFloat64:
      for (double v : to_vector<double>(c)) data.push_back(std::isfinite(v) ? v : 0.0);
      break;
  }
  j["data"] = data;
  return j;
}

nlohmann::json replayable_call(Rng& r) {
  static const std::vector<std::string> unary = {"neg",   "abs",     "exp",  "log",  "sqrt",
                                                 "rsqrt", "sigmoid", "tanh", "relu", "sign"};
  static const std::vector<std::string> binary = {"add", "sub", "mul", "div", "eq", "ne",
                                                  "lt",  "le",  "gt",  "ge",  "pow"};
  static const std::vector<std::string> dimmed = {
      "sum",       "mean",   "amax",      "amin",    "prod",    "argmax", "softmax",      "log_softmax", "var",
      "transpose", "select", "unsqueeze", "squeeze", "flatten", "gather", "index_select", "cat"};
  static const std::vector<std::string> mixed = {"mm",    "bmm",       "matmul",      "where",          "masked_fill",
                                                 "clamp", "index_add", "scatter_add", "scatter_reduce", "embedding",
                                                 "max",   "argmin",    "std"};
  const int family = static_cast<int>(r.range(0, 3));
  const std::string op = family == 0   ? r.pick(unary)
                         : family == 1 ? r.pick(binary)
                         : family == 2 ? r.pick(dimmed)
                                       : r.pick(mixed);
  auto make = [&](Shape sz) {
    const ScalarType dt = r.pick(kDtypes);
    if (dt == kBool) return randint(0, 2, sz, kInt64).to(kBool);
    if (is_floating(dt)) return (randn(sz, dt) * 3.0);
    return randint(-2, 7, sz, dt);
  };
  nlohmann::json j;
  j["op"] = op;
  const Tensor x = make(shape_arg(r, 3));
  const int64_t nd = x.dim(), d = dim_arg(r, nd), d2 = dim_arg(r, nd);
  const int64_t size = nd == 0 ? 1 : x.size(d >= -nd && d < nd ? d : 0);  // of the indexed dim
  const bool keep = r.chance(0.5);
  j["dim"] = d;
  j["dim2"] = d2;
  j["keepdim"] = keep;
  Tensor y, z;
  std::function<Tensor()> run;
  if (family == 3) {
    // operands that fit x most of the time, so the calls get past the first check
    auto index_for = [&](Shape sz) { return randint(r.chance(0.9) ? 0 : -2, size > 0 ? size : 1, sz, kInt64); };
    if (op == "mm" || op == "bmm" || op == "matmul") {
      Shape ys = shape_arg(r, 3);
      if (!ys.empty() && nd > 0 && r.chance(0.7)) ys[ys.size() >= 2 ? ys.size() - 2 : 0] = x.size(-1);
      if (op == "bmm" && nd == 3 && ys.size() == 3 && r.chance(0.7)) ys[0] = x.size(0);
      y = make(ys);
      if (r.chance(0.7)) y = y.to(x.dtype());
    } else if (op == "where" || op == "masked_fill") {
      z = randint(0, 2, r.chance(0.7) ? x.sizes() : shape_arg(r, 3), kInt64).to(kBool);
      if (op == "where") y = make(r.chance(0.7) ? x.sizes() : shape_arg(r, 3));
    } else if (op == "index_add") {
      y = index_for({r.range(0, 4)});
      Shape zs = x.sizes();
      if (nd > 0 && d >= -nd && d < nd) zs[d < 0 ? d + nd : d] = y.numel();
      z = make(r.chance(0.8) ? zs : shape_arg(r, 3));
      if (r.chance(0.7)) z = z.to(x.dtype());
    } else if (op == "scatter_add" || op == "scatter_reduce") {
      Shape is = x.sizes();
      for (int64_t& v : is) v = r.range(0, v);
      y = index_for(r.chance(0.8) ? is : shape_arg(r, 3));
      z = make(r.chance(0.8) ? y.sizes() : shape_arg(r, 3));
      if (r.chance(0.7)) z = z.to(x.dtype());
    } else if (op == "embedding") {
      y = randint(r.chance(0.9) ? 0 : -1, nd > 0 && x.size(0) > 0 ? x.size(0) : 1, shape_arg(r, 2), kInt64);
    }
    run = [&] {
      if (op == "mm") return mm(x, y);
      if (op == "bmm") return bmm(x, y);
      if (op == "matmul") return matmul(x, y);
      if (op == "where") return where(z, x, y);
      if (op == "masked_fill") return masked_fill(x, z, d2);
      if (op == "clamp") return clamp(x, d, d2);
      if (op == "index_add") return index_add(x, d, y, z);
      if (op == "scatter_add") return scatter_add(x, d, y, z);
      if (op == "scatter_reduce") return scatter_reduce(x, d, y, z, "amax");
      if (op == "embedding") return embedding(x, y);
      if (op == "max") return max(x, d, keep).first;
      if (op == "argmin") return argmin(x, d, keep);
      return ditto::std(x, {d}, true, keep);
    };
  } else if (family == 0) {
    run = [&] {
      if (op == "neg") return neg(x);
      if (op == "abs") return abs(x);
      if (op == "sign") return sign(x);
      if (op == "exp") return exp(x);
      if (op == "log") return log(x);
      if (op == "sqrt") return sqrt(x);
      if (op == "rsqrt") return rsqrt(x);
      if (op == "sigmoid") return sigmoid(x);
      if (op == "tanh") return tanh(x);
      return relu(x);
    };
  } else if (family == 1) {
    y = r.chance(0.7) ? make(x.sizes()) : make(shape_arg(r, 3));
    run = [&] {
      if (op == "add") return add(x, y);
      if (op == "sub") return sub(x, y);
      if (op == "mul") return mul(x, y);
      if (op == "div") return div(x, y);
      if (op == "eq") return eq(x, y);
      if (op == "ne") return ne(x, y);
      if (op == "lt") return lt(x, y);
      if (op == "le") return le(x, y);
      if (op == "gt") return gt(x, y);
      if (op == "ge") return ge(x, y);
      return pow(x, y);
    };
  } else {
    if (op == "gather" || op == "index_select") {
      y = randint(0, size > 0 ? size : 1, op == "gather" ? shape_arg(r, 3) : Shape{r.range(0, 4)}, kInt64);
    } else if (op == "cat") {
      y = make(r.chance(0.6) ? x.sizes() : shape_arg(r, 3));
    }
    run = [&] {
      if (op == "sum") return sum(x, {d}, keep);
      if (op == "mean") return mean(x, {d}, keep);
      if (op == "amax") return amax(x, {d}, keep);
      if (op == "amin") return amin(x, {d}, keep);
      if (op == "prod") return prod(x, d, keep);
      if (op == "argmax") return argmax(x, d, keep);
      if (op == "softmax") return softmax(x, d);
      if (op == "log_softmax") return log_softmax(x, d);
      if (op == "var") return var(x, {d}, true, keep);
      if (op == "transpose") return x.transpose(d, d2);
      if (op == "select") return x.select(d, d2);
      if (op == "unsqueeze") return x.unsqueeze(d);
      if (op == "squeeze") return x.squeeze(d);
      if (op == "flatten") return x.flatten(d, d2);
      if (op == "gather") return gather(x, d, y);
      if (op == "index_select") return index_select(x, d, y);
      return cat({x, y}, d);
    };
  }
  j["x"] = encode(x);
  if (y.defined()) j["y"] = encode(y);
  if (z.defined()) j["z"] = encode(z);
  try {
    const Tensor out = run();
    j["ditto"] = "ok";
    j["dtype"] = dtype_name(out.dtype());
    j["sizes"] = out.sizes();
  } catch (const Error& e) {
    j["ditto"] = "error";
    j["error"] = std::string(e.what()).substr(0, 200);
  }
  return j;
}

// Runs call k of seed s: returns "" (succeeded), "rejected", or the failure's text.
std::string run_call(const std::vector<OpFuzzer>& gens, uint64_t seed, int64_t k, std::string& desc, bool& rejected) {
  Rng r(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(k));
  manual_seed(r.next());
  const OpFuzzer& g = gens[static_cast<std::size_t>(r.range(0, static_cast<int64_t>(gens.size()) - 1))];
  const bool mode = r.chance(0.3);
  DeterministicGuard guard(mode, r.chance(0.3));
  set_warning_handler([](const Warning&) {});
  Ctx c{r, {}, {}};
  g_ctx = &c;
  c.desc << g.ops[0] << "... mode=" << mode << " ";
  rejected = false;
  try {
    const std::vector<Tensor> out = g.run(c);
    for (const Tensor& o : out) {
      if (!o.defined()) return "returned an undefined tensor";
      (void)o.to_string();  // reads every element
      if (o.requires_grad() && is_floating(o.dtype())) {
        o.sum().backward();
        for (const Tensor& leaf : c.leaves) {
          const Tensor& gr = leaf.grad();
          if (!gr.defined()) continue;
          if (gr.sizes() != leaf.sizes() || gr.dtype() != leaf.dtype()) {
            desc = c.desc.str();
            return std::string("a gradient's shape or dtype differs from its leaf's (") + dtype_name(gr.dtype()) +
                   " vs " + dtype_name(leaf.dtype()) + ")";
          }
        }
        break;
      }
    }
  } catch (const NondeterministicError&) {
    rejected = true;
  } catch (const Error&) {
    rejected = true;
  } catch (const std::exception& e) {
    desc = c.desc.str();
    return std::string("non-ditto exception: ") + e.what();
  }
  desc = c.desc.str();
  g_ctx = nullptr;
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 1;
  int64_t calls = 2000, only = -1;
  unsigned timeout = 30;
  bool verbose = false;
  std::string emit;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--seed")
      seed = std::stoull(value());
    else if (a == "--calls")
      calls = std::stoll(value());
    else if (a == "--call")
      only = std::stoll(value());
    else if (a == "--timeout")
      timeout = static_cast<unsigned>(std::stoul(value()));
    else if (a == "--verbose")
      verbose = true;
    else if (a == "--emit")
      emit = value();
    else {
      std::fprintf(
          stderr,
          "usage: ditto-fuzz [--seed S] [--calls N] [--call K] [--timeout SECONDS] [--verbose] [--emit FILE]\n");
      return 2;
    }
  }
  if (!emit.empty()) {  // calls for PyTorch to replay, one JSON object a line
    std::ofstream out(emit);
    Rng r(seed);
    manual_seed(seed);
    for (int64_t k = 0; k < calls; ++k) out << replayable_call(r).dump() << "\n";
    std::printf("ditto-fuzz: wrote %lld replayable calls to %s\n", static_cast<long long>(calls), emit.c_str());
    return 0;
  }
  const std::vector<OpFuzzer> gens = generators();
  // every op of the table is fuzzed
  std::set<std::string> covered;
  for (const OpFuzzer& g : gens) covered.insert(g.ops.begin(), g.ops.end());
  int missing = 0;
  for (const ops::OpEntry& op : ops::all_ops())
    if (!covered.count(op.name)) {
      std::fprintf(stderr, "ditto-fuzz: op %s has no generator in tests/fuzz/ditto_fuzz.cpp\n", op.name);
      ++missing;
    }
  if (missing) return 1;
  set_num_threads(2);
  g_seed = seed;
  std::signal(SIGALRM, on_timeout);
  for (int sig : {SIGFPE, SIGSEGV, SIGABRT}) std::signal(sig, on_crash);  // (sanitizers install their own)
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int64_t ok = 0, rejected_n = 0, failed = 0;
  const int64_t first = only >= 0 ? only : 0, last = only >= 0 ? only + 1 : calls;
  for (int64_t k = first; k < last; ++k) {
    g_current = k;
    alarm(timeout);
    std::string desc;
    bool rejected = false;
    const std::string why = run_call(gens, seed, k, desc, rejected);
    alarm(0);
    if (verbose)
      std::printf("%lld %s %s\n", static_cast<long long>(k),
                  rejected      ? "rejected"
                  : why.empty() ? "ok"
                                : "FAIL",
                  desc.c_str());
    if (!why.empty()) {
      ++failed;
      std::printf("FAIL: %s | %s | reproduce with: ditto-fuzz --seed %llu --call %lld\n", why.c_str(), desc.c_str(),
                  static_cast<unsigned long long>(seed), static_cast<long long>(k));
    } else if (rejected) {
      ++rejected_n;
    } else {
      ++ok;
    }
  }
  std::printf("ditto-fuzz: seed %llu, %lld calls: %lld succeeded, %lld rejected with ditto::Error, %lld failed\n",
              static_cast<unsigned long long>(seed), static_cast<long long>(last - first), static_cast<long long>(ok),
              static_cast<long long>(rejected_n), static_cast<long long>(failed));
  return failed ? 1 : 0;
}
