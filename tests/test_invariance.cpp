// The invariance suite: the same program on the same inputs gives the same bits whatever the
// thread count, the CPU kernel level or the batch a sample sits in.
//   Invariance.Corpus/<entry>   a corpus of op calls (forward and input gradients) covering the op
//                               table, and short training runs, each hashed under threads 1, 2, 3,
//                               8 times every level this CPU supports: one fingerprint per entry.
//   Invariance.CorpusCovers*    every op in src/ops/op_table.def is run by some corpus entry.
//   Invariance.RandomShapes*    key kernels on random shapes: every level equals scalar bit for bit.
//   BatchInvariance.*           a sample alone equals the same sample first, in the middle or last
//                               of batches of 2, 5, 16 and 64, at every level, on 1 and 2 threads.
// Nothing here holds a hard-coded hash: configurations are compared with each other.
#include <cpuid.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cpu/capability.h"
#include "ditto/ditto.h"
#include "guards.h"
#include "ops/op_info.h"

using namespace ditto;
namespace F = ditto::nn::functional;
using ditto::nn::Reduction;

namespace {

// ---------------------------------------------------------------------------------------------
// Configurations

using ditto::testing::ConfigGuard;
using ditto::testing::supported_levels;

struct Config {
  int threads;
  CpuCapability level;
};

std::string config_name(const Config& c) {
  return "threads=" + std::to_string(c.threads) + " level=" + capability_name(c.level);
}

void apply(const Config& c) {
  set_num_threads(c.threads);
  set_cpu_capability_for_testing(c.level);
}

// Whether the upper halves of ymm0-15 or zmm0-15 are in use (XINUSE bits 2 and 6, read with
// xgetbv(1)): a vector kernel that returns without vzeroupper leaves them so, and the SSE code that
// runs after it on that thread (every scalar loop) then pays for the dirty state; on a Zen 5 a
// scalar cumsum ran 3.7x slower after a randn whose AVX2 block left ymm dirty. false where the CPU
// cannot say (no XSAVE, or no xgetbv(1)).
bool upper_vector_halves_in_use() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return false;  // OSXSAVE
  if (__get_cpuid_max(0, nullptr) < 0xD) return false;
  __cpuid_count(0xD, 1, a, b, c, d);
  if (!(a & (1u << 2))) return false;  // xgetbv with ecx = 1
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1u));
  return (lo & ((1u << 2) | (1u << 6))) != 0;
}
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
void clear_upper_vector_halves() {
  if (__builtin_cpu_supports("avx")) __asm__ volatile("vzeroupper");
}

// Every (level, thread count) pair; the first is (scalar, 1 thread), the reference.
std::vector<Config> configs(std::initializer_list<int> threads) {
  std::vector<Config> v;
  for (CpuCapability level : supported_levels())
    for (int t : threads) v.push_back({t, level});
  return v;
}

std::string hex(uint64_t h) { return "0x" + fingerprint_hex(h); }

std::string shape_str(const Shape& s) {
  std::string r = "(";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + ")";
}

// ---------------------------------------------------------------------------------------------
// A corpus entry's run: it makes inputs through input() and records labelled results.

enum class Layout {
  Contiguous,
  Transposed,  // the last two dims swapped in memory (a transpose view)
  Strided,     // every other element of the last dim, from an odd offset (a slice with step 2)
};
enum class Dist {
  Normal,    // N(0, 1)
  Positive,  // U(0.25, 2.25), for log, sqrt, pow and divisors
  NearOne,   // 1 + 0.01 N(0, 1), for long products
  Ties,      // integers in [-3, 3], so maxima tie
};

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous: return "";
    case Layout::Transposed: return "^T";
    case Layout::Strided: return " step 2";
  }
  return "?";
}

Tensor draw(const Shape& shape, Dist dist, ScalarType dtype) {
  switch (dist) {
    case Dist::Normal: return randn(shape, dtype);
    case Dist::Positive: return rand(shape, dtype) * 2.0 + 0.25;
    case Dist::NearOne: return randn(shape, dtype) * 0.01 + 1.0;
    case Dist::Ties: return randint(-3, 4, shape).to(dtype);
  }
  return Tensor();
}

class Run {
 public:
  // A random leaf (gradients recorded by grad()), seen through layout.
  Tensor input(const Shape& shape, Layout layout = Layout::Contiguous, Dist dist = Dist::Normal,
               ScalarType dtype = kFloat32) {
    const int64_t d = static_cast<int64_t>(shape.size());
    Shape base_shape = shape;
    if (layout == Layout::Transposed && d >= 2) std::swap(base_shape[d - 2], base_shape[d - 1]);
    if (layout == Layout::Strided && d >= 1) base_shape[d - 1] = 2 * shape[d - 1] + 1;
    Tensor base = draw(base_shape, dist, dtype).detach().requires_grad_();
    leaves_.push_back(base);
    if (layout == Layout::Transposed && d >= 2) return base.transpose(d - 2, d - 1);
    if (layout == Layout::Strided && d >= 1) return base.slice(d - 1, 1, 2 * shape[d - 1] + 1, 2);
    return base;
  }
  // Random data that needs no gradient (targets, running statistics).
  Tensor data(const Shape& shape, Dist dist = Dist::Normal, ScalarType dtype = kFloat32) {
    return draw(shape, dist, dtype);
  }
  void out(const std::string& label, const Tensor& t) { results.emplace_back(label, t.detach()); }
  // Records y, backpropagates a random gradient from it and records the gradient of every input
  // it reached (then clears them).
  void grad(const std::string& label, const Tensor& y) {
    out(label, y);
    y.backward(randn(y.sizes(), y.dtype()));
    for (std::size_t i = 0; i < leaves_.size(); ++i) {
      if (!leaves_[i].grad().defined()) continue;
      out(label + " d/d input " + std::to_string(i), leaves_[i].grad());
      leaves_[i].mutable_grad() = Tensor();
    }
  }

  std::vector<std::pair<std::string, Tensor>> results;

 private:
  std::vector<Tensor> leaves_;
};

struct Entry {
  std::string name;              // a C identifier (it names the test)
  std::vector<std::string> ops;  // op-table names the entry runs, forward or backward
  std::function<void(Run&)> run;
  bool deterministic_mode = true;  // off only for kernels that have no deterministic twin
};

// ---------------------------------------------------------------------------------------------
// Sweeps shared by several entries

const int64_t kTailSizes[] = {1, 7, 17, 33, 100003};  // SIMD tails; 100003 spans 4 reduce chunks

// f on 1-D inputs of every tail size, a large transposed matrix (split over threads by the
// elementwise loops), a strided 3-D input, and float64. small: no input over 1003 elements (for
// variants of an op whose large sizes another sweep covers).
void unary_sweep(Run& r, const std::function<Tensor(const Tensor&)>& f, Dist dist = Dist::Normal, bool small = false) {
  for (int64_t n : kTailSizes)
    if (!small || n < 1003) r.grad("n=" + std::to_string(n), f(r.input({n}, Layout::Contiguous, dist)));
  if (small)
    r.grad("(33,17)^T", f(r.input({33, 17}, Layout::Transposed, dist)));
  else
    r.grad("(129,300)^T", f(r.input({129, 300}, Layout::Transposed, dist)));
  r.grad("(5,9,13) step 2", f(r.input({5, 9, 13}, Layout::Strided, dist)));
  r.grad("float64 n=1003", f(r.input({1003}, Layout::Contiguous, dist, kFloat64)));
  r.grad("float64 (7,33) step 2", f(r.input({7, 33}, Layout::Strided, dist, kFloat64)));
}

// f(a, b) contiguous and broadcast, transposed against strided, and large enough to split.
void binary_sweep(Run& r, const std::function<Tensor(const Tensor&, const Tensor&)>& f, Dist da = Dist::Normal,
                  Dist db = Dist::Normal, bool small = false) {
  for (int64_t n : {int64_t(7), int64_t(33), int64_t(100003)})
    if (!small || n < 1003)
      r.grad("n=" + std::to_string(n), f(r.input({n}, Layout::Contiguous, da), r.input({n}, Layout::Contiguous, db)));
  r.grad("(33,17)^T with (17)", f(r.input({33, 17}, Layout::Transposed, da), r.input({17}, Layout::Contiguous, db)));
  r.grad("(129,300) step 2 with (129,300)^T",
         f(r.input({129, 300}, Layout::Strided, da), r.input({129, 300}, Layout::Transposed, db)));
  r.grad("(5,1,13) with (9,1)", f(r.input({5, 1, 13}, Layout::Contiguous, da), r.input({9, 1}, Layout::Strided, db)));
  r.grad("float64 (17,9)",
         f(r.input({17, 9}, Layout::Contiguous, da, kFloat64), r.input({17, 9}, Layout::Transposed, db, kFloat64)));
}

// A reduction over several shapes: 1-D tails, rows and columns of a large matrix (split over
// rows or over chunks), a long row crossing chunk boundaries, and non-contiguous inputs.
// small: only the 1-D sizes of kTailSizes and the matrices (for a variant of an op whose strided
// and chunk-crossing cases another sweep covers).
void reduce_sweep(Run& r, const std::function<Tensor(const Tensor&, const Shape& dims)>& f, Dist dist = Dist::Normal,
                  bool small = false) {
  for (int64_t n : kTailSizes) r.grad("all of n=" + std::to_string(n), f(r.input({n}, Layout::Contiguous, dist), {}));
  if (!small) r.grad("all of n=100003 step 2", f(r.input({100003}, Layout::Strided, dist), {}));
  r.grad("(129,300) dim 1", f(r.input({129, 300}, Layout::Contiguous, dist), {1}));
  r.grad("(129,300)^T dim 0", f(r.input({129, 300}, Layout::Transposed, dist), {0}));
  if (!small) r.grad("(2,70001) dim 1", f(r.input({2, 70001}, Layout::Contiguous, dist), {1}));
  r.grad("(5,9,13) step 2 dims 0,2", f(r.input({5, 9, 13}, Layout::Strided, dist), {0, 2}));
  r.grad("float64 (33,17)^T dim 1", f(r.input({33, 17}, Layout::Transposed, dist, kFloat64), {1}));
}

// ---------------------------------------------------------------------------------------------
// Training runs: losses of each step and the final parameters.

void train(Run& r, nn::UnaryModule& model, optim::Optimizer& opt, const Tensor& x, const Tensor& y,
           const std::function<Tensor(const Tensor&, const Tensor&)>& loss_fn, int steps, int64_t batch) {
  for (int s = 0; s < steps; ++s) {
    const Tensor idx = randperm(x.size(0)).slice(0, 0, batch);
    const Tensor loss = loss_fn(model(x.index_select(0, idx)), y.index_select(0, idx));
    opt.zero_grad();
    loss.backward();
    opt.step();
    r.out("loss at step " + std::to_string(s), loss);
  }
  const std::vector<Tensor> params = model.parameters();
  for (std::size_t i = 0; i < params.size(); ++i) r.out("parameter " + std::to_string(i), params[i]);
}

std::shared_ptr<nn::Sequential> mlp() {
  return std::make_shared<nn::Sequential>(nn::Linear(37, 64), nn::ReLU(), nn::Linear(64, 65), nn::ReLU(),
                                          nn::Linear(65, 5));
}

std::shared_ptr<nn::Sequential> cnn() {
  return std::make_shared<nn::Sequential>(nn::Conv2d(1, 6, 3, 1, 1), nn::ReLU(), nn::MaxPool2d(2), nn::Conv2d(6, 8, 3),
                                          nn::ReLU(), nn::Flatten(), nn::Linear(8 * 4 * 4, 10));
}

// ---------------------------------------------------------------------------------------------
// The corpus

std::vector<Entry> corpus() {
  std::vector<Entry> c;
  auto add = [&](std::string name, std::vector<std::string> ops, std::function<void(Run&)> run, bool det = true) {
    c.push_back({std::move(name), std::move(ops), std::move(run), det});
  };

  // --- views and copies
  add("views_and_copies",
      {"view", "transpose", "permute", "select", "slice", "expand", "squeeze", "unsqueeze", "copy_", "fill_", "mul",
       "sum"},
      [](Run& r) {
        const Tensor x = r.input({6, 10, 7});
        Tensor y = x.permute({2, 0, 1}).select(1, 3).slice(1, 1, 9, 3).unsqueeze(0).expand({4, 7, 3});
        y = y.reshape({4, 21}).t().contiguous().view({84, 1}).squeeze(1);
        r.grad("permute select slice expand reshape", y * r.data({84}));
        const Tensor z = r.input({33, 17}, Layout::Strided);
        r.grad("clone of strided", z.clone().unsqueeze(2).squeeze());
        Tensor buf = zeros({17, 33});
        {
          NoGradGuard no_grad;
          buf.copy_(z.t());
        }
        r.out("copy_ transposed", buf);
        r.out("full", full({100003}, 0.1));
        r.out("ones float64", ones({7, 17}, kFloat64));
      });
  add("arange_linspace", {"arange", "linspace"}, [](Run& r) {
    r.out("arange int", arange(100003));
    r.out("arange float", arange(-3.0, 7.0, 0.001));
    r.out("arange float64", arange(0.5, 100.0, 0.37, kFloat64));
    r.out("linspace", linspace(-3, 7, 100003));
    r.out("linspace float64 odd", linspace(-1.1, 2.3, 17, kFloat64));
  });
  add("random",
      {"uniform_", "normal_", "random_", "randperm", "bernoulli", "bernoulli_", "exponential_", "multinomial"},
      [](Run& r) {
        for (int64_t n : kTailSizes) {
          r.out("rand " + std::to_string(n), rand({n}));
          r.out("randn " + std::to_string(n), randn({n}));
          r.out("randn float64 " + std::to_string(n), randn({n}, kFloat64));
        }
        r.out("normal", normal(1.5, 0.3, {17, 33}));
        r.out("randint", randint(-5, 100, {1003}));
        r.out("randperm", randperm(1003));
        r.out("bernoulli", bernoulli(rand({33, 17})));
        Tensor t = zeros({33, 40});
        t.slice(1, 1, 40, 2).normal_(0.0, 2.0);
        t.slice(1, 0, 40, 2).uniform_(-1.0, 1.0);
        r.out("normal_ and uniform_ into a strided view", t);
        Tensor b = zeros({17, 9}, kInt64);
        r.out("bernoulli_ int64", b.bernoulli_(0.3));
        const Tensor p = rand({5, 40}, kFloat64);
        r.out("multinomial with replacement", multinomial(p, 64, true));
        r.out("multinomial without replacement (exponential_)", multinomial(p, 7, false));
      });
  add("dropout", {"mul", "div"}, [](Run& r) {
    r.grad("p=0.3 (129,300)^T", F::dropout(r.input({129, 300}, Layout::Transposed), 0.3, true));
    r.grad("p=0.5 n=17", F::dropout(r.input({17}), 0.5, true));
  });

  // --- elementwise, one operand
  add("neg", {"neg"}, [](Run& r) { unary_sweep(r, [](const Tensor& x) { return ditto::neg(x); }); });
  add("sign", {"sign", "mul"}, [](Run& r) { unary_sweep(r, [](const Tensor& x) { return ditto::sign(x) * x; }); });
  add("abs", {"abs"}, [](Run& r) {
    unary_sweep(
        r, [](const Tensor& x) { return ditto::abs(x); }, Dist::Ties);
  });
  add("exp", {"exp"}, [](Run& r) { unary_sweep(r, [](const Tensor& x) { return ditto::exp(x * 3.0); }); });
  add("log", {"log"}, [](Run& r) {
    unary_sweep(
        r, [](const Tensor& x) { return ditto::log(x); }, Dist::Positive);
  });
  add("sqrt", {"sqrt"}, [](Run& r) {
    unary_sweep(
        r, [](const Tensor& x) { return ditto::sqrt(x); }, Dist::Positive);
  });
  add("rsqrt", {"rsqrt"}, [](Run& r) {
    unary_sweep(
        r, [](const Tensor& x) { return ditto::rsqrt(x); }, Dist::Positive);
  });
  add("sigmoid", {"sigmoid"}, [](Run& r) { unary_sweep(r, [](const Tensor& x) { return ditto::sigmoid(x * 4.0); }); });
  add("tanh", {"tanh"}, [](Run& r) { unary_sweep(r, [](const Tensor& x) { return ditto::tanh(x * 2.0); }); });
  add("relu", {"relu", "threshold_backward"}, [](Run& r) {
    unary_sweep(
        r, [](const Tensor& x) { return ditto::relu(x); }, Dist::Ties);
  });
  add("gelu", {"gelu", "gelu_backward"}, [](Run& r) {
    unary_sweep(r, [](const Tensor& x) { return ditto::gelu(x * 2.0); });
    unary_sweep(
        r, [](const Tensor& x) { return ditto::gelu(x * 2.0, "tanh"); }, Dist::Normal, /*small=*/true);
  });
  // ditto's dmath functions (one algorithm at every level, arrays and scalars)
  add("sin_cos", {"sin", "cos"},
      [](Run& r) { unary_sweep(r, [](const Tensor& x) { return ditto::sin(x * 4.0) + ditto::cos(x * 4.0); }); });
  add("erf", {"erf"}, [](Run& r) { unary_sweep(r, [](const Tensor& x) { return ditto::erf(x * 2.0); }); });
  add("log1p_expm1", {"log1p", "expm1"}, [](Run& r) {
    unary_sweep(
        r, [](const Tensor& x) { return ditto::log1p(x) + ditto::expm1(x); }, Dist::Positive);
  });
  add("rounding", {"floor", "ceil", "round", "trunc"}, [](Run& r) {
    unary_sweep(
        r,
        [](const Tensor& x) {
          const Tensor y = x * 3.0;
          return ditto::floor(y) + ditto::ceil(y) * 2.0 + ditto::round(y) * 4.0 + ditto::trunc(y) * 8.0 + x;
        },
        Dist::Normal, /*small=*/true);
  });
  add("activations", {"silu", "mish", "hardswish", "leaky_relu", "softplus", "hardtanh", "elu"}, [](Run& r) {
    unary_sweep(r, [](const Tensor& x) { return ditto::silu(x * 3.0); });
    unary_sweep(
        r,
        [](const Tensor& x) {
          const Tensor y = x * 3.0;
          return ditto::mish(y) + ditto::hardswish(y) + ditto::leaky_relu(y, 0.1) + ditto::softplus(y, 2, 3) +
                 ditto::hardtanh(y, -1.5, 2) + ditto::elu(y, 1.2);
        },
        Dist::Normal, /*small=*/true);
  });
  add("pow_scalar", {"pow"}, [](Run& r) {
    unary_sweep(
        r, [](const Tensor& x) { return ditto::pow(x, 1.7); }, Dist::Positive);
    // the exponents computed without pow(), and a negative one
    for (double e : {2.0, 3.0, 0.5, -0.5, -1.0, -2.0, -2.5}) {
      r.grad("exponent " + std::to_string(e) + " (33,17)^T",
             ditto::pow(r.input({33, 17}, Layout::Transposed, Dist::Positive), e));
      r.grad("exponent " + std::to_string(e) + " n=17",
             ditto::pow(r.input({17}, Layout::Contiguous, Dist::Positive), e));
    }
  });
  add("clamp", {"clamp"}, [](Run& r) {
    unary_sweep(r, [](const Tensor& x) { return ditto::clamp(x, -0.5, 0.7); });
    unary_sweep(
        r, [](const Tensor& x) { return ditto::clamp(x, std::nullopt, 1.0); }, Dist::Ties, /*small=*/true);
  });

  // --- elementwise, several operands
  add("maximum_minimum", {"maximum", "minimum"}, [](Run& r) {
    binary_sweep(r, [](const Tensor& a, const Tensor& b) { return ditto::maximum(a, b) + ditto::minimum(a, b) * 2.0; });
  });
  add("fmod_remainder", {"fmod", "remainder"}, [](Run& r) {
    binary_sweep(
        r, [](const Tensor& a, const Tensor& b) { return ditto::fmod(a * 5.0, b) + ditto::remainder(a * 5.0, b); },
        Dist::Normal, Dist::Positive, /*small=*/true);
  });
  add("add", {"add", "add.alpha"}, [](Run& r) {
    binary_sweep(r, [](const Tensor& a, const Tensor& b) { return a + b; });
    binary_sweep(
        r, [](const Tensor& a, const Tensor& b) { return ditto::add(a, b, 0.3); }, Dist::Normal, Dist::Normal,
        /*small=*/true);
  });
  add("sub", {"sub", "add.alpha"}, [](Run& r) {
    binary_sweep(r, [](const Tensor& a, const Tensor& b) { return a - b; });
    binary_sweep(
        r, [](const Tensor& a, const Tensor& b) { return ditto::sub(a, b, 1.7); }, Dist::Normal, Dist::Normal,
        /*small=*/true);
  });
  add("mul", {"mul"}, [](Run& r) { binary_sweep(r, [](const Tensor& a, const Tensor& b) { return a * b; }); });
  add("div", {"div"}, [](Run& r) {
    binary_sweep(
        r, [](const Tensor& a, const Tensor& b) { return a / b; }, Dist::Normal, Dist::Positive);
  });
  add("pow_tensor", {"pow.Tensor"}, [](Run& r) {
    binary_sweep(
        r, [](const Tensor& a, const Tensor& b) { return ditto::pow(a, b - 1.0); }, Dist::Positive, Dist::Normal,
        /*small=*/true);
  });
  add("comparisons", {"eq", "ne", "lt", "le", "gt", "ge"}, [](Run& r) {
    const Tensor a = r.data({129, 300}, Dist::Ties), b = r.data({300}, Dist::Ties);
    const Tensor at = r.data({300, 129}, Dist::Ties).t();
    r.out("eq", a == b);
    r.out("ne", at != b);
    r.out("lt", a < at);
    r.out("le", at <= 1.0);
    r.out("gt", a.slice(1, 0, 300, 3) > b.slice(0, 1, 300, 3));
    r.out("ge", a >= at);
  });
  add("where_masked_fill", {"where", "masked_fill", "gt"}, [](Run& r) {
    const Tensor a = r.input({129, 300}, Layout::Transposed), b = r.input({300});
    r.grad("where", ditto::where(a > b, a, b));
    r.grad("where scalar", ditto::where(r.data({33, 17}) > 0.0, r.input({33, 17}, Layout::Strided), 2.5));
    const Tensor x = r.input({129, 300}, Layout::Strided);
    r.grad("masked_fill", x.masked_fill(r.data({300}) > 0.5, -1.0));
  });
  add("lerp_addcmul_addcdiv", {"lerp.Scalar", "addcmul", "addcdiv"}, [](Run& r) {
    for (Layout l : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
      const Shape sh = l == Layout::Transposed ? Shape{129, 300} : Shape{33, 17};  // the large one splits
      const std::string s = shape_str(sh) + layout_name(l);
      r.grad("lerp " + s, ditto::lerp(r.input(sh, l), r.input(sh), 0.3));
      r.grad("addcmul " + s, ditto::addcmul(r.input(sh), r.input(sh, l), r.input({sh[1]}), 0.5));
      r.grad("addcdiv " + s, ditto::addcdiv(r.input(sh, l), r.input(sh), r.input(sh, l, Dist::Positive), -0.7));
    }
    r.grad("lerp n=17", ditto::lerp(r.input({17}), r.input({17}), 0.9));
    r.grad("addcmul float64 n=33", ditto::addcmul(r.input({33}, Layout::Contiguous, Dist::Normal, kFloat64),
                                                  r.input({33}, Layout::Contiguous, Dist::Normal, kFloat64),
                                                  r.input({33}, Layout::Strided, Dist::Normal, kFloat64)));
  });

  // --- reductions
  add("sum", {"sum"}, [](Run& r) {
    reduce_sweep(r, [](const Tensor& x, const Shape& d) { return ditto::sum(x, d); });
    r.grad("keepdim", ditto::sum(r.input({33, 17}, Layout::Transposed), {1}, true));
    r.out("float32 into float64", ditto::sum(r.data({100003}), kFloat64));
    r.out("int64", ditto::sum(r.data({100003}, Dist::Ties, kInt64)));
  });
  add("mean", {"mean"}, [](Run& r) {
    reduce_sweep(r, [](const Tensor& x, const Shape& d) { return d.empty() ? ditto::mean(x) : ditto::mean(x, d); });
  });
  add("prod", {"prod"}, [](Run& r) {
    for (int64_t n : kTailSizes)
      r.grad("all of n=" + std::to_string(n), ditto::prod(r.input({n}, Layout::Contiguous, Dist::NearOne)));
    r.grad("(129,300) dim 1", ditto::prod(r.input({129, 300}, Layout::Contiguous, Dist::NearOne), 1));
    r.grad("(129,300)^T dim 0", ditto::prod(r.input({129, 300}, Layout::Transposed, Dist::NearOne), 0));
    r.grad("with zeros (33,17) dim 1", ditto::prod(ditto::relu(r.input({33, 17})) + ditto::relu(r.input({33, 17})), 1));
  });
  add("amax_amin", {"amax", "amin"}, [](Run& r) {
    reduce_sweep(
        r, [](const Tensor& x, const Shape& dims) { return ditto::amax(x, dims); }, Dist::Normal);
    reduce_sweep(
        r, [](const Tensor& x, const Shape& dims) { return ditto::amin(x, dims); }, Dist::Ties, /*small=*/true);
    r.grad("amax of ties (33,17)^T dim 1", ditto::amax(r.input({33, 17}, Layout::Transposed, Dist::Ties), {1}));
    r.grad("amin (5,9,13) step 2 dims 0,2", ditto::amin(r.input({5, 9, 13}, Layout::Strided), {0, 2}));
    r.grad("max() of ties", ditto::max(r.input({100003}, Layout::Strided, Dist::Ties)));
    r.grad("min() of ties", ditto::min(r.input({129, 300}, Layout::Transposed, Dist::Ties)));
  });
  add("max_min_dim", {"max.dim", "min.dim"}, [](Run& r) {
    for (Dist d : {Dist::Normal, Dist::Ties}) {
      for (int64_t dim : {0, 1}) {
        const std::string s = (d == Dist::Ties ? "ties dim " : "dim ") + std::to_string(dim);
        auto [v, i] = ditto::max(r.input({129, 300}, Layout::Transposed, d), dim);
        r.out("max indices " + s, i);
        r.grad("max values " + s, v);
        auto [v2, i2] = ditto::min(r.input({33, 17}, Layout::Strided, d), dim, true);
        r.out("min indices " + s, i2);
        r.grad("min values " + s, v2);
      }
    }
  });
  add("argmax_argmin", {"argmax", "argmin"}, [](Run& r) {
    for (Dist d : {Dist::Normal, Dist::Ties}) {
      r.out("argmax all", ditto::argmax(r.data({100003}, d)));
      r.out("argmin all", ditto::argmin(r.data({100003}, d)));
      r.out("argmax dim 1", ditto::argmax(r.data({300, 129}, d).t(), 1));
      r.out("argmin dim 0 keepdim", ditto::argmin(r.data({129, 300}, d), 0, true));
    }
  });
  add("logsumexp", {"logsumexp"},
      [](Run& r) { reduce_sweep(r, [](const Tensor& x, const Shape& d) { return ditto::logsumexp(x * 4.0, d); }); });
  add("vector_norm", {"linalg_vector_norm"}, [](Run& r) {
    reduce_sweep(r, [](const Tensor& x, const Shape& d) { return ditto::linalg::vector_norm(x, 2, d); });
    for (double p : {1.0, 3.0, 0.5, std::numeric_limits<double>::infinity()})
      r.grad("ord " + std::to_string(p) + " (33,17)^T dim 1",
             ditto::linalg::vector_norm(r.input({33, 17}, Layout::Transposed), p, {1}));
  });
  add("var_std", {"var"}, [](Run& r) {
    reduce_sweep(r, [](const Tensor& x, const Shape& d) { return x.numel() > 1 ? ditto::var(x, d) : x * 1.0; });
    for (bool unbiased : {true, false}) {
      r.grad("var (33,17)^T dim 0", ditto::var(r.input({33, 17}, Layout::Transposed), {0}, unbiased, true));
      r.grad("std (129,300) dim 1", r.input({129, 300}, Layout::Strided).std({1}, unbiased));
      r.grad("std all n=33", r.input({33}).std({}, unbiased));
    }
  });
  add("softmax", {"softmax", "log_softmax", "_softmax_backward_data", "_log_softmax_backward_data"}, [](Run& r) {
    for (bool log : {false, true}) {
      auto f = [log](const Tensor& x, int64_t dim) {
        return log ? ditto::log_softmax(x, dim) : ditto::softmax(x, dim);
      };
      const std::string s = log ? "log_softmax " : "softmax ";
      for (int64_t n : {1, 7, 17, 33}) r.grad(s + "(5," + std::to_string(n) + ") dim 1", f(r.input({5, n}), 1));
      r.grad(s + "(129,300) dim 1", f(r.input({129, 300}) * 3.0, 1));
      r.grad(s + "(129,300)^T dim 0", f(r.input({129, 300}, Layout::Transposed), 0));
      r.grad(s + "(3,40000) dim 1", f(r.input({3, 40000}), 1));
      r.grad(s + "(40000,3) dim 0", f(r.input({40000, 3}), 0));
      r.grad(s + "(4,21,9,11) dim 1", f(r.input({4, 21, 9, 11}), 1));
      r.grad(s + "(3,300,70) dim 1", f(r.input({3, 300, 70}), 1));
      r.grad(s + "(5,9,13) step 2 dim 1", f(r.input({5, 9, 13}, Layout::Strided), 1));
      r.grad(s + "float64 (33,17)^T dim 1", f(r.input({33, 17}, Layout::Transposed, Dist::Normal, kFloat64), 1));
    }
  });

  add("scans", {"cumsum", "cumprod", "cumprod_backward", "logcumsumexp", "cummax", "cummin"}, [](Run& r) {
    r.grad("cumsum (100003)", ditto::cumsum(r.input({100003}), 0));
    r.grad("cumsum (129,300)^T dim 0", ditto::cumsum(r.input({129, 300}, Layout::Transposed), 0));
    r.grad("cumsum (5,9,13) step 2 dim 1 float64", ditto::cumsum(r.input({5, 9, 13}, Layout::Strided), 1, kFloat64));
    r.grad("cumprod (33,700) dim 1", ditto::cumprod(r.input({33, 700}) * 0.01 + 1.0, 1));
    r.grad("cumprod (700,33) dim 0", ditto::cumprod(r.input({700, 33}, Layout::Transposed, Dist::Normal, kFloat64), 0));
    r.grad("logcumsumexp (33,700) dim 1", ditto::logcumsumexp(r.input({33, 700}) * 5.0, 1));
    r.grad("logcumsumexp (700,33)^T dim 0", ditto::logcumsumexp(r.input({700, 33}, Layout::Transposed), 0));
    r.grad("cummax (129,300) dim 1", ditto::cummax(r.input({129, 300}), 1).first);
    r.grad("cummin (129,300)^T dim 0", ditto::cummin(r.input({129, 300}, Layout::Transposed), 0).first);
  });

  // --- linear algebra
  add("mm", {"mm"}, [](Run& r) {
    r.grad("(17,33)@(33,7)", ditto::mm(r.input({17, 33}), r.input({33, 7})));
    r.grad("(17,33)^T@(33,7)^T",
           ditto::mm(r.input({17, 33}, Layout::Transposed), r.input({33, 7}, Layout::Transposed)));
    r.grad("(257,100)@(100,65) step 2", ditto::mm(r.input({257, 100}), r.input({100, 65}, Layout::Strided)));
    r.grad("(33,600)^T@(600,17): several K blocks",
           ditto::mm(r.input({33, 600}, Layout::Transposed), r.input({600, 17})));
    r.grad("(1,70)@(70,1)", ditto::mm(r.input({1, 70}), r.input({70, 1})));
    r.grad("(64,1)@(1,33)", ditto::mm(r.input({64, 1}), r.input({1, 33})));
    r.grad("float64 (31,65)@(65,17)^T", ditto::mm(r.input({31, 65}, Layout::Contiguous, Dist::Normal, kFloat64),
                                                  r.input({65, 17}, Layout::Transposed, Dist::Normal, kFloat64)));
  });
  add("bmm_matmul", {"bmm", "mm"}, [](Run& r) {
    r.grad("bmm (5,17,33)@(5,33,9)^T", ditto::bmm(r.input({5, 17, 33}), r.input({5, 33, 9}, Layout::Transposed)));
    r.grad("bmm (12,33,40)@(12,40,17): a thread per product",
           ditto::bmm(r.input({12, 33, 40}), r.input({12, 40, 17}, Layout::Strided)));
    r.grad("bmm (3,1,65)@(3,65,17)", ditto::bmm(r.input({3, 1, 65}, Layout::Strided), r.input({3, 65, 17})));
    r.grad("matmul (4,7,33)@(33,19)", ditto::matmul(r.input({4, 7, 33}), r.input({33, 19})));
    r.grad("matmul (33)@(33,19)", ditto::matmul(r.input({33}), r.input({33, 19}, Layout::Transposed)));
    r.grad("matmul (19,33)@(33)", ditto::matmul(r.input({19, 33}), r.input({33}, Layout::Strided)));
    r.grad("matmul (100003)@(100003)", ditto::matmul(r.input({100003}), r.input({100003})));
  });
  add("addmm_linear", {"addmm", "mm", "sum"}, [](Run& r) {
    r.grad("addmm beta 0.5 alpha 2",
           ditto::addmm(r.input({19}), r.input({33, 65}), r.input({65, 19}, Layout::Transposed), 0.5, 2.0));
    r.grad("linear 2-d", F::linear(r.input({129, 70}), r.input({67, 70}), r.input({67})));
    r.grad("linear 3-d", F::linear(r.input({4, 9, 33}, Layout::Transposed), r.input({17, 33}), r.input({17})));
    r.grad("linear without bias", F::linear(r.input({7, 33}), r.input({5, 33}, Layout::Strided)));
  });

  // --- joining and indexing (deterministic mode on: the index-order kernels)
  add("cat_stack", {"cat"}, [](Run& r) {
    r.grad("cat dim 1", ditto::cat({r.input({33, 7}), r.input({33, 17}, Layout::Transposed), r.input({33, 1})}, 1));
    r.grad("cat dim 0", ditto::cat({r.input({100003}), r.input({17}, Layout::Strided)}, 0));
    r.grad("stack", ditto::stack({r.input({9, 13}), r.input({9, 13}, Layout::Strided)}, 1));
  });
  add("index_select_gather", {"index_select", "gather", "index_add_", "scatter_add_"}, [](Run& r) {
    r.grad("index_select dim 0 duplicates", ditto::index_select(r.input({300, 129}), 0, randint(0, 300, {1000})));
    r.grad("index_select dim 1", ditto::index_select(r.input({33, 17}, Layout::Transposed), 1, randint(0, 17, {40})));
    r.grad("gather dim 1", ditto::gather(r.input({129, 300}, Layout::Strided), 1, randint(0, 300, {129, 400})));
    r.grad("gather dim 0", ditto::gather(r.input({33, 17}), 0, randint(0, 33, {50, 17})));
  });
  add("index_add_scatter_add", {"index_add_", "scatter_add_", "index_select", "gather"}, [](Run& r) {
    r.grad("index_add dim 0",
           ditto::index_add(r.input({300, 129}), 0, randint(0, 300, {1000}), r.input({1000, 129}), 0.5));
    r.grad("index_add dim 1",
           ditto::index_add(r.input({33, 17}, Layout::Transposed), 1, randint(0, 17, {40}), r.input({33, 40})));
    r.grad("scatter_add dim 0",
           ditto::scatter_add(r.input({300, 129}), 0, randint(0, 300, {1000, 129}), r.input({1000, 129})));
    r.grad("scatter_add dim 1",
           ditto::scatter_add(r.input({33, 17}, Layout::Strided), 1, randint(0, 17, {33, 40}), r.input({33, 40})));
  });
  add("embedding_bag", {"_embedding_bag", "_embedding_bag_dense_backward"}, [](Run& r) {
    const Tensor idx = randint(0, 3000, {20000}), offs = arange(0, 20000, 37);
    for (const char* mode : {"sum", "mean", "max"})
      r.grad(std::string("embedding_bag ") + mode,
             F::embedding_bag(idx, r.input({3000, 64}), offs, mode, Tensor(), false, 5));
    r.grad("embedding_bag sum weighted", F::embedding_bag(idx, r.input({3000, 64}), offs, "sum", r.input({20000})));
    // 93 columns: a full pass of eight vectors, a shorter one and a partial vector at every level
    r.grad("embedding_bag mean D=93", F::embedding_bag(idx, r.input({3000, 93}), offs, "mean", Tensor(), false, 5));
    r.grad("embedding_bag sum weighted D=93",
           F::embedding_bag(idx, r.input({3000, 93}), offs, "sum", r.input({20000})));
  });
  add("attention", {"_scaled_dot_product_flash_attention", "_scaled_dot_product_flash_attention_backward"}, [](Run& r) {
    // tails of both blocks (70 queries, 130 keys), causal, a bool and a broadcast float mask
    r.grad("(2,3,70,16) x (2,3,130,16)",
           F::scaled_dot_product_attention(r.input({2, 3, 70, 16}), r.input({2, 3, 130, 16}),
                                           r.input({2, 3, 130, 24}, Layout::Transposed)));
    r.grad("causal (6,130,32)", F::scaled_dot_product_attention(r.input({6, 130, 32}), r.input({6, 130, 32}),
                                                                r.input({6, 130, 32}), Tensor(), 0.0, true));
    const Tensor keep = rand({1, 65, 97}) > 0.2;
    r.grad("bool mask (4,65,8)",
           F::scaled_dot_product_attention(r.input({4, 65, 8}), r.input({4, 97, 8}), r.input({4, 97, 8}), keep));
    const Tensor bias = randn({65, 97}, kFloat64);
    r.grad("float64 float mask",
           F::scaled_dot_product_attention(r.input({2, 65, 8}, Layout::Contiguous, Dist::Normal, kFloat64),
                                           r.input({2, 97, 8}, Layout::Strided, Dist::Normal, kFloat64),
                                           r.input({2, 97, 8}, Layout::Contiguous, Dist::Normal, kFloat64), bias));
  });
  add("ctc_loss", {"_ctc_loss", "_ctc_loss_backward"}, [](Run& r) {
    // 7 items (more than the threads), ragged lengths, padded and concatenated targets
    const Tensor targets = randint(1, 20, {7, 30});
    const Shape il{200, 150, 200, 37, 120, 200, 3}, tl{30, 20, 0, 12, 30, 25, 2};
    r.grad("ctc_loss (200,7,20) none",
           F::ctc_loss(r.input({200, 7, 20}).log_softmax(2), targets, il, tl, 0, nn::Reduction::None));
    r.grad("ctc_loss (200,7,20)^T concatenated, mean, zero_infinity, float64",
           F::ctc_loss(r.input({200, 7, 20}, Layout::Transposed, Dist::Normal, kFloat64).log_softmax(2),
                       targets.slice(1, 0, 5).reshape({-1}), il, Shape(7, 5), 3, nn::Reduction::Mean, true));
  });
  add("selection", {"nonzero", "index_select", "gather", "index_copy_"}, [](Run& r) {
    const Tensor mask = r.data({1000, 300}) > 0.3;
    r.out("nonzero (1000,300)", ditto::nonzero(mask));
    r.grad("masked_select", ditto::masked_select(r.input({1000, 300}), mask));
    r.grad("masked_scatter", ditto::masked_scatter(r.input({1000, 300}), mask, r.input({300000})));
    r.grad("take", ditto::take(r.input({1000, 300}), randint(-300000, 300000, {100000})));
    r.grad("repeat_interleave", ditto::repeat_interleave(r.input({1000, 30}), randint(0, 5, {1000}), 0));
    r.grad("index_fill", ditto::index_fill(r.input({1000, 300}), 1, randint(0, 300, {40}), 2.0));
    r.grad("take_along_dim", ditto::take_along_dim(r.input({1000, 300}), randint(0, 300, {1, 50}), 1));
  });
  add("counting", {"histc", "bincount"}, [](Run& r) {
    r.out("histc (1000003)", ditto::histc(r.input({1000003}), 1000, -2.0, 2.0));
    r.out("histc (129,300)^T own range", ditto::histc(r.input({129, 300}, Layout::Transposed), 37));
    const Tensor v = randint(0, 5000, {1000003});
    r.out("bincount (1000003)", ditto::bincount(v));
    r.out("bincount weights float32", ditto::bincount(v, r.input({1000003})));
    r.out("bincount weights float64",
          ditto::bincount(v, r.input({1000003}, Layout::Contiguous, Dist::Normal, kFloat64)));
  });
  add("ordering",
      {"sort", "topk", "kthvalue", "median.dim", "nanmedian.dim", "median", "nanmedian", "searchsorted", "scatter_",
       "mode", "_unique2", "unique_dim", "unique_consecutive"},
      [](Run& r) {
        const Tensor ties = randint(0, 7, {129, 300}).to(kFloat32);  // values with many ties
        r.grad("sort (129,300) dim 1", ditto::sort(r.input({129, 300}), 1).first);
        r.grad("sort (300,129)^T dim 0 descending stable",
               ditto::sort(r.input({300, 129}, Layout::Transposed), 0, true, true).first);
        r.out("sort ties indices", ditto::sort(ties, 1).second);
        r.out("topk ties indices", ditto::topk(ties, 40, 1).second);
        r.out("topk ties k*64<=n indices", ditto::topk(ties, 4, 1, false).second);
        r.out("kthvalue ties indices", ditto::kthvalue(ties, 100, 1).second);
        r.grad("topk (129,300) k 20", ditto::topk(r.input({129, 300}), 20, 1).first);
        r.grad("kthvalue (33,700)^T dim 0", ditto::kthvalue(r.input({700, 33}, Layout::Transposed), 300, 0).first);
        r.grad("median (129,300) dim 1", ditto::median(r.input({129, 300}), 1).first);
        r.grad("nanmedian (129,300) dim 0", ditto::nanmedian(r.input({129, 300}), 0).first);
        r.grad("median all (100003)", ditto::median(r.input({100003})));
        r.grad("nanmedian all (129,300)", ditto::nanmedian(r.input({129, 300})));
        r.out("searchsorted (300000) in (129,3000) rows",
              ditto::searchsorted(ditto::sort(r.input({129, 3000})).first, r.input({129, 2326}), false, true));
        r.grad("scatter (300,129) dim 0",
               ditto::scatter(r.input({300, 129}), 0, randint(0, 300, {1000, 129}), r.input({1000, 129})));
        r.grad("mode (129,300) ties dim 1", ditto::mode(r.input({129, 300}, Layout::Contiguous, Dist::Ties), 1).first);
        r.out("mode ties indices", ditto::mode(ties, 0).second);
        for (const bool sorted : {true, false}) {
          const auto [u, inverse, counts] = ditto::unique(ties.reshape({-1}), sorted, true, true);
          r.out(std::string("unique ties sorted=") + (sorted ? "true" : "false"), u);
          r.out("unique inverse", inverse);
          r.out("unique counts", counts);
        }
        const auto [rows, inverse, counts] = ditto::unique(ties.slice(1, 0, 3), true, true, true, 0);
        r.out("unique rows", rows);
        r.out("unique rows inverse", inverse);
        r.out("unique_consecutive", std::get<0>(ditto::unique_consecutive(ties)));
      });
  add("index_copy_index_put", {"index_copy_", "index_put_", "index_put_.accumulate", "put_.accumulate"}, [](Run& r) {
    r.grad("index_copy duplicates",
           ditto::index_copy(r.input({300, 129}), 0, randint(0, 300, {1000}), r.input({1000, 129})));
    r.grad("index_copy dim 1",
           ditto::index_copy(r.input({33, 17}, Layout::Transposed), 1, randint(0, 17, {9}), r.input({33, 9})));
    r.grad("index_put int", ditto::index_put(r.input({300, 129}), {randint(-300, 300, {1000})}, r.input({1000, 129})));
    r.grad("index_put accumulate",
           ditto::index_put(r.input({300, 129}), {randint(0, 300, {1000})}, r.input({1000, 129}), true));
    r.grad("index_put mask", ditto::index_put(r.input({33, 17}), {r.data({33, 17}) > 0.0}, r.input({1})));
    r.grad("put accumulate", ditto::put(r.input({129, 300}), randint(0, 129 * 300, {3000}), r.input({3000}), true));
  });
  add("scatter_reduce", {"scatter_reduce"}, [](Run& r) {
    for (const char* reduce : {"sum", "mean", "amax", "amin"})
      for (bool include_self : {true, false}) {
        const std::string s = std::string(reduce) + (include_self ? " include_self" : "");
        if (include_self)
          r.grad(s + " (100,65)",
                 ditto::scatter_reduce(r.input({100, 65}), 0, randint(0, 100, {400, 65}),
                                       r.input({400, 65}, Layout::Contiguous, Dist::Ties), reduce, include_self));
        r.grad(s + " (33,17)", ditto::scatter_reduce(r.input({33, 17}, Layout::Transposed), 1, randint(0, 17, {33, 40}),
                                                     r.input({33, 40}), reduce, include_self));
      }
  });
  // The index-put family on unique indices and strided inputs (its duplicate-index order is
  // tested against sequential references in test_determinism.cpp).
  add(
      "scatter_kernels_unique_indices",
      {"index_add_", "index_put_.accumulate", "put_.accumulate", "index_copy_", "index_put_", "put_"},
      [](Run& r) {
        const Tensor rows = randperm(300).slice(0, 0, 200), flat = randperm(129 * 300).slice(0, 0, 3000);
        r.grad("index_add", ditto::index_add(r.input({300, 129}), 0, rows, r.input({200, 129})));
        r.grad("index_put accumulate", ditto::index_put(r.input({300, 129}), {rows}, r.input({200, 129}), true));
        r.grad("put accumulate", ditto::put(r.input({129, 300}), flat, r.input({3000}), true));
        r.grad("index_copy", ditto::index_copy(r.input({300, 129}, Layout::Transposed), 0, rows, r.input({200, 129})));
        r.grad("index_put", ditto::index_put(r.input({300, 129}), {rows}, r.input({129})));
        r.grad("put", ditto::put(r.input({129, 300}, Layout::Strided), flat, r.input({3000})));
      },
      /*det=*/false);

  // --- convolution and pooling
  add("conv2d", {"conv2d", "conv2d_backward_input", "conv2d_backward_weight", "sum"}, [](Run& r) {
    r.grad("3x3 pad 1 bias", F::conv2d(r.input({2, 3, 13, 11}), r.input({5, 3, 3, 3}), r.input({5}), 1, 1));
    r.grad("stride 2 dilation 2 groups 2", F::conv2d(r.input({3, 4, 17, 15}, Layout::Transposed), r.input({6, 2, 3, 2}),
                                                     r.input({6}), {2, 1}, {1, 2}, 2, 2));
    r.grad("1x1 direct", F::conv2d(r.input({2, 7, 9, 5}), r.input({3, 7, 1, 1}), Tensor()));
    r.grad("unbatched 5x3 strided",
           F::conv2d(r.input({2, 9, 13}, Layout::Strided), r.input({4, 2, 5, 3}), r.input({4}), 1, {2, 0}));
    r.grad("large (4,8,24,24) 16 out", F::conv2d(r.input({4, 8, 24, 24}), r.input({16, 8, 3, 3}), r.input({16}), 1, 1));
    r.grad("float64", F::conv2d(r.input({2, 3, 7, 9}, Layout::Contiguous, Dist::Normal, kFloat64),
                                r.input({4, 3, 3, 3}, Layout::Contiguous, Dist::Normal, kFloat64),
                                r.input({4}, Layout::Contiguous, Dist::Normal, kFloat64)));
  });
  add("conv1d", {"conv2d", "conv2d_backward_input", "conv2d_backward_weight"}, [](Run& r) {
    r.grad("stride 2 pad 2", F::conv1d(r.input({3, 4, 29}, Layout::Strided), r.input({6, 4, 5}), r.input({6}), 2, 2));
    r.grad("dilation 3", F::conv1d(r.input({2, 3, 33}), r.input({5, 3, 3}), Tensor(), 1, 0, 3));
  });
  add("conv3d_transpose",
      {"conv3d", "conv3d_backward_input", "conv3d_backward_weight", "conv_transpose2d", "conv_transpose3d", "conv2d",
       "conv2d_backward_weight"},
      [](Run& r) {
        r.grad("conv3d 3x3x3 pad 1", F::conv3d(r.input({2, 4, 6, 9, 8}), r.input({6, 4, 3, 3, 3}), r.input({6}), 1, 1));
        r.grad("conv3d strided groups dilation",
               F::conv3d(r.input({2, 4, 7, 9, 8}, Layout::Transposed), r.input({4, 2, 2, 3, 2}), Tensor(), {1, 2, 1},
                         {1, 0, 1}, {2, 1, 1}, 2));
        r.grad("conv_transpose2d k4 s2 (issue's shape, fewer channels)",
               F::conv_transpose2d(r.input({4, 16, 16, 16}), r.input({16, 8, 4, 4}), r.input({8}), 2, 1));
        r.grad("conv_transpose2d output_padding >= stride",
               F::conv_transpose2d(r.input({2, 4, 7, 6}, Layout::Strided), r.input({4, 3, 3, 3}), Tensor(), 1, 1, 1, 1,
                                   2));
        r.grad("conv_transpose3d groups", F::conv_transpose3d(r.input({2, 4, 3, 5, 4}), r.input({4, 2, 2, 3, 2}),
                                                              r.input({4}), 2, 0, {1, 0, 1}, 2));
        r.grad("conv_transpose1d", F::conv_transpose1d(r.input({3, 4, 17}), r.input({4, 5, 3}), Tensor(), 2, 1, 1));
      });
  add("max_pool", {"max_pool2d_with_indices", "max_pool2d_with_indices_backward"}, [](Run& r) {
    for (Dist d : {Dist::Normal, Dist::Ties}) {
      auto [v, i] = F::max_pool2d_with_indices(r.input({4, 6, 33, 33}, Layout::Contiguous, d), 3, 2, 1);
      r.out("indices 3x3 stride 2 pad 1", i);
      r.grad("values 3x3 stride 2 pad 1", v);
      r.grad("2x2 ceil_mode dilation 2",
             F::max_pool2d(r.input({2, 3, 13, 11}, Layout::Transposed, d), 2, {}, 0, 2, true));
      r.grad("1d", F::max_pool1d(r.input({3, 5, 17}, Layout::Strided, d), 3, 2, 1));
    }
  });
  add("avg_pool", {"avg_pool2d", "avg_pool2d_backward"}, [](Run& r) {
    r.grad("3x3 stride 2 pad 1", F::avg_pool2d(r.input({4, 6, 33, 33}), 3, 2, 1));
    r.grad("no pad count, ceil",
           F::avg_pool2d(r.input({2, 3, 13, 11}, Layout::Transposed), {3, 2}, {2, 2}, {1, 1}, true, false));
    r.grad("divisor override", F::avg_pool2d(r.input({3, 9, 7}, Layout::Strided), 2, 1, 0, false, true, 3));
  });
  add("adaptive_avg_pool", {"adaptive_avg_pool2d", "adaptive_avg_pool2d_backward"}, [](Run& r) {
    r.grad("(13,11) to (5,7)", F::adaptive_avg_pool2d(r.input({2, 3, 13, 11}), {5, 7}));
    r.grad("to (1,1)", F::adaptive_avg_pool2d(r.input({4, 6, 33, 33}, Layout::Transposed), 1));
    r.grad("(9,17) to (4,6) strided", F::adaptive_avg_pool2d(r.input({3, 9, 17}, Layout::Strided), {4, 6}));
  });
  add("grid_sample",
      {"grid_sampler_2d", "grid_sampler_2d_backward", "grid_sampler_3d", "grid_sampler_3d_backward", "bmm"},
      [](Run& r) {
        r.grad("bilinear zeros, upsampling (many hits per pixel)",
               F::grid_sample(r.input({4, 6, 9, 11}), r.data({4, 40, 36, 2}) * 0.9, "bilinear", "zeros", false));
        r.grad("bicubic reflection strided",
               F::grid_sample(r.input({2, 3, 9, 8}, Layout::Strided), r.data({2, 17, 13, 2}) * 1.5, "bicubic",
                              "reflection", true));
        r.grad("nearest border", F::grid_sample(r.input({2, 3, 9, 8}), r.data({2, 9, 7, 2}), "nearest", "border"));
        const Tensor theta = r.input({2, 3, 4});
        r.grad("3-D bilinear through affine_grid",
               F::grid_sample(r.input({2, 3, 5, 7, 6}), F::affine_grid(theta, {2, 3, 6, 5, 7}), "bilinear", "zeros"));
      });
  add("pool3d", {"max_pool3d_with_indices", "max_pool3d_with_indices_backward", "avg_pool3d", "avg_pool3d_backward"},
      [](Run& r) {
        for (Dist d : {Dist::Normal, Dist::Ties}) {
          auto [v, i] = F::max_pool3d_with_indices(r.input({2, 6, 9, 17, 17}, Layout::Contiguous, d), 3, 2, 1);
          r.out("max indices 3x3x3 stride 2 pad 1", i);
          r.grad("max values 3x3x3 stride 2 pad 1", v);
          r.grad("max (2,2,3) ceil dilation 2",
                 F::max_pool3d(r.input({2, 3, 7, 13, 11}, Layout::Transposed, d), {2, 2, 3}, {}, 0, 2, true));
        }
        r.grad("avg 3x3x3 stride 2 pad 1", F::avg_pool3d(r.input({2, 6, 9, 17, 17}), 3, 2, 1));
        r.grad("avg no pad count, ceil, strided",
               F::avg_pool3d(r.input({3, 7, 9, 8}, Layout::Strided), {2, 3, 2}, 2, 1, true, false));
      });
  add("adaptive_pool",
      {"adaptive_avg_pool3d", "adaptive_avg_pool3d_backward", "adaptive_max_pool2d", "adaptive_max_pool2d_backward",
       "adaptive_max_pool3d", "adaptive_max_pool3d_backward"},
      [](Run& r) {
        r.grad("avg 3d (7,13,11) to (3,5,7)", F::adaptive_avg_pool3d(r.input({2, 3, 7, 13, 11}), {3, 5, 7}));
        for (Dist d : {Dist::Normal, Dist::Ties}) {
          auto [v, i] = F::adaptive_max_pool2d_with_indices(r.input({4, 6, 33, 33}, Layout::Transposed, d), {7, 5});
          r.out("max 2d indices", i);
          r.grad("max 2d (33,33) to (7,5)", v);
          r.grad("max 1d", F::adaptive_max_pool1d(r.input({3, 5, 17}, Layout::Strided, d), 6));
          r.grad("max 3d (7,13,11) to (4,3,5)",
                 F::adaptive_max_pool3d(r.input({2, 3, 7, 13, 11}, Layout::Contiguous, d), {4, 3, 5}));
        }
      });
  add("fractional_lp_pool",
      {"fractional_max_pool2d", "fractional_max_pool2d_backward", "fractional_max_pool3d",
       "fractional_max_pool3d_backward", "avg_pool2d"},
      [](Run& r) {
        const Tensor x4 = r.input({4, 6, 33, 33}), x5 = r.input({2, 3, 9, 13, 11}, Layout::Transposed);
        r.grad("fractional 2d to (20,17)",
               F::fractional_max_pool2d(x4, {3, 2}, {20, 17}, {}, r.data({4, 6, 2}, Dist::Positive) / 2.5));
        r.grad("fractional 3d to (5,6,7)",
               F::fractional_max_pool3d(x5, 2, {5, 6, 7}, {}, r.data({2, 3, 3}, Dist::Positive) / 2.5));
        r.grad("lp 2d p=2", F::lp_pool2d(r.input({2, 3, 13, 11}), 2.0, {3, 2}));
        r.grad("lp 1d p=3 strided", F::lp_pool1d(r.input({3, 5, 17}, Layout::Strided), 3.0, 3, 2, true));
      });
  add("pad",
      {"constant_pad_nd", "reflection_pad1d", "reflection_pad2d", "reflection_pad3d", "replication_pad1d",
       "replication_pad2d", "replication_pad3d", "_pad_circular", "reflection_pad1d_backward",
       "reflection_pad2d_backward", "reflection_pad3d_backward", "replication_pad1d_backward",
       "replication_pad2d_backward", "replication_pad3d_backward", "_pad_circular_backward"},
      [](Run& r) {
        r.grad("constant (2,-1,3,1)", F::pad(r.input({4, 6, 33, 33}), {2, -1, 3, 1}, "constant", 0.5));
        r.grad("reflect 2d", F::pad(r.input({4, 6, 33, 33}, Layout::Transposed), {3, 2, 1, 4}, "reflect"));
        r.grad("reflect 1d", F::pad(r.input({5, 257}, Layout::Strided), {7, 5}, "reflect"));
        r.grad("reflect 3d", F::pad(r.input({2, 3, 9, 10, 11}), {1, 2, 3, 1, 2, 2}, "reflect"));
        r.grad("replicate 2d", F::pad(r.input({4, 6, 33, 33}), {5, 0, 2, 7}, "replicate"));
        r.grad("replicate 1d", F::pad(r.input({3, 4, 129}, Layout::Transposed), {9, 9}, "replicate"));
        r.grad("replicate 3d", F::pad(r.input({2, 3, 9, 10, 11}, Layout::Strided), {2, 2, 2, 2, 2, 2}, "replicate"));
        r.grad("circular 2d", F::pad(r.input({4, 6, 33, 33}), {4, 33, -2, 5}, "circular"));
      });
  add("upsample",
      {"upsample_nearest1d",
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
      [](Run& r) {
        const std::vector<double> x2{2.0}, odd{1.7, 0.6};
        r.grad("bilinear x2", F::interpolate(r.input({4, 6, 33, 33}), std::nullopt, x2, "bilinear"));
        r.grad("bilinear (1.7,0.6) ac",
               F::interpolate(r.input({4, 6, 33, 33}, Layout::Transposed), std::nullopt, odd, "bilinear", true));
        r.grad("bicubic to (50,21)", F::interpolate(r.input({4, 6, 33, 33}), nn::SizeArg{50, 21}, {}, "bicubic"));
        r.grad("nearest 2d", F::interpolate(r.input({4, 6, 33, 33}, Layout::Strided), nn::SizeArg{47, 20}));
        r.grad("nearest-exact 2d", F::interpolate(r.input({4, 6, 33, 33}), std::nullopt, odd, "nearest-exact"));
        r.grad("linear 1d", F::interpolate(r.input({5, 7, 101}), nn::SizeArg{333}, {}, "linear"));
        r.grad("nearest 1d", F::interpolate(r.input({5, 7, 101}), nn::SizeArg{70}));
        r.grad("nearest-exact 1d", F::interpolate(r.input({5, 7, 101}), nn::SizeArg{250}, {}, "nearest-exact"));
        r.grad("trilinear", F::interpolate(r.input({2, 3, 9, 10, 11}), nn::SizeArg{13, 7, 20}, {}, "trilinear"));
        r.grad("nearest 3d", F::interpolate(r.input({2, 3, 9, 10, 11}), std::nullopt, x2));
        r.grad("nearest-exact 3d",
               F::interpolate(r.input({2, 3, 9, 10, 11}), nn::SizeArg{5, 12, 8}, {}, "nearest-exact"));
      });
  add(
      "max_unpool", {"max_unpooling2d_forward_out", "max_unpooling3d_forward_out", "max_pool2d_with_indices", "gather"},
      [](Run& r) {
        auto [v, i] = F::max_pool2d_with_indices(r.data({4, 6, 33, 33}), 2);
        r.grad("2d", F::max_unpool2d(r.input(v.sizes()), i, 2, {}, 0, {33, 33}));
        auto [v1, i1] = F::max_pool1d_with_indices(r.data({3, 5, 17}), 3, 3);
        r.grad("1d", F::max_unpool1d(r.input(v1.sizes(), Layout::Strided), i1, 3, 3, 0, {17}));
        // 3-d: unique made-up positions in each output plane of (4, 6, 6)
        std::vector<Tensor> planes;
        for (int p = 0; p < 6; ++p) planes.push_back(randperm(4 * 6 * 6).slice(0, 0, 2 * 3 * 3));
        const Tensor i3 = ditto::stack(planes).view({2, 3, 2, 3, 3});
        r.grad("3d", F::max_unpool3d(r.input({2, 3, 2, 3, 3}), i3, 2));
      },
      /*det=*/false);

  // --- normalisation, embedding, losses
  add("layer_norm", {"native_layer_norm", "native_layer_norm_backward"}, [](Run& r) {
    // rows of 384 and 93 (a SIMD tail), strided inputs, with and without the affine parts
    r.grad("(64,384) affine", F::layer_norm(r.input({64, 384}), {384}, r.input({384}), r.input({384})));
    r.grad("(3,50,93) strided", F::layer_norm(r.input({3, 50, 93}, Layout::Transposed), {93}));
    r.grad("(7,6,31) over (6,31) float64",
           F::layer_norm(r.input({7, 6, 31}, Layout::Contiguous, Dist::Normal, kFloat64), {6, 31},
                         r.input({6, 31}, Layout::Contiguous, Dist::Normal, kFloat64)));
    r.grad("(129,300) affine", F::layer_norm(r.input({129, 300}), {300}, r.input({300}), r.input({300})));
    r.grad("(4,9,33)^T over last two",
           F::layer_norm(r.input({4, 9, 33}, Layout::Transposed), {9, 33}, r.input({9, 33}), r.input({9, 33})));
    r.grad("(17,7) step 2 no affine", F::layer_norm(r.input({17, 7}, Layout::Strided), {7}));
    // the backward's blocks of rows (1 MB of x and dy: 262 rows of 500), three of them
    r.grad("(600,500) affine", F::layer_norm(r.input({600, 500}), {500}, r.input({500}), r.input({500})));
  });
  add("group_norm", {"native_group_norm", "native_group_norm_backward"}, [](Run& r) {
    // groups of 7x5 planes (not whole lanes), of one channel, rows longer than a chunk
    r.grad("(4,6,7,5) in 3", F::group_norm(r.input({4, 6, 7, 5}), 3, r.input({6}), r.input({6})));
    r.grad("(3,4,9) in 4", F::group_norm(r.input({3, 4, 9}, Layout::Transposed), 4, r.input({4}), Tensor()));
    r.grad("(2,4,100,90) in 2", F::group_norm(r.input({2, 4, 100, 90}), 2, r.input({4}), r.input({4})));
  });
  add("batch_norm", {"native_batch_norm", "native_batch_norm_backward"}, [](Run& r) {
    for (const Shape& s : {Shape{64, 33}, Shape{4, 6, 9, 7}, Shape{3, 2, 120, 100}}) {
      const int64_t C = s[1];
      Tensor rm = zeros({C}), rv = ones({C});
      for (int step = 0; step < 2; ++step)
        r.grad("training " + shape_str(s), F::batch_norm(r.input(s), rm, rv, r.input({C}), r.input({C}), true, 0.1));
      r.out("running mean " + shape_str(s), rm);
      r.out("running var " + shape_str(s), rv);
      r.grad("eval " + shape_str(s),
             F::batch_norm(r.input(s, Layout::Transposed), rm, rv, r.input({C}), r.input({C}), false));
    }
  });
  add("embedding", {"embedding", "embedding_dense_backward"}, [](Run& r) {
    r.grad("duplicates", F::embedding(randint(0, 50, {7, 13}), r.input({50, 17})));
    r.grad("padding_idx", F::embedding(randint(0, 500, {9, 40}), r.input({500, 33}), 3));
    r.grad("strided weight", F::embedding(randint(0, 20, {100}), r.input({20, 9}, Layout::Strided)));
  });
  add("losses",
      {"sub", "mul", "mean", "sum", "abs", "log_softmax", "gather", "neg", "exp", "log", "cross_entropy_loss",
       "cross_entropy_loss_backward"},
      [](Run& r) {
        for (Reduction red : {Reduction::Mean, Reduction::Sum, Reduction::None}) {
          const std::string s = red == Reduction::Mean ? " mean" : red == Reduction::Sum ? " sum" : " none";
          r.grad("mse" + s, F::mse_loss(r.input({129, 300}, Layout::Transposed), r.data({129, 300}), red));
          r.grad("l1" + s, F::l1_loss(r.input({33, 17}), r.data({33, 17}), red));
          r.grad("nll" + s, F::nll_loss(ditto::log_softmax(r.input({64, 10}), 1), randint(0, 10, {64}),
                                        r.data({10}, Dist::Positive), 3, red));
          r.grad("cross_entropy" + s,
                 F::cross_entropy(r.input({64, 10}, Layout::Strided), randint(0, 10, {64}), Tensor(), -100, red));
          r.grad("cross_entropy (N,C,d1,d2) weight ignored" + s,
                 F::cross_entropy(r.input({4, 21, 9, 11}), randint(0, 21, {4, 9, 11}), r.data({21}, Dist::Positive), 2,
                                  red));
          r.out("cross_entropy (N,C,d1,d2) data, no log-probabilities kept" + s,
                F::cross_entropy(r.data({4, 21, 9, 11}), randint(0, 21, {4, 9, 11}), Tensor(), 2, red));
          r.out("cross_entropy (N,C) data, no log-probabilities kept" + s,
                F::cross_entropy(r.data({64, 10}), randint(0, 10, {64}), Tensor(), -100, red));
          r.grad("cross_entropy (N,C,d) smoothing weight" + s,
                 F::cross_entropy(r.input({8, 5, 7}), randint(0, 5, {8, 7}), r.data({5}, Dist::Positive), 2, red, 0.1));
          r.grad("bce_with_logits" + s,
                 F::binary_cross_entropy_with_logits(r.input({33, 17}) * 3.0, rand({33, 17}),
                                                     r.data({17}, Dist::Positive), red, r.data({17}, Dist::Positive)));
        }
      });

  // --- training
  add("train_mlp_sgd_momentum", {"addmm", "relu", "sub", "mul", "add"}, [](Run& r) {
    auto model = mlp();
    optim::SGD opt(model->parameters(), 0.05, 0.9);
    const Tensor x = r.data({256, 37}), y = r.data({256, 5});
    train(
        r, *model, opt, x, y, [](const Tensor& p, const Tensor& t) { return F::mse_loss(p, t); }, 5, 128);
  });
  add("train_mlp_adam", {"addmm", "relu", "sub", "mul", "add", "lerp.Scalar", "addcmul", "addcdiv", "sqrt"},
      [](Run& r) {
        auto model = mlp();
        optim::Adam opt(model->parameters(), 0.01);
        const Tensor x = r.data({256, 37}), y = r.data({256, 5});
        train(
            r, *model, opt, x, y, [](const Tensor& p, const Tensor& t) { return F::mse_loss(p, t); }, 5, 128);
      });
  add("train_cnn_sgd_momentum", {"conv2d", "max_pool2d_with_indices", "cross_entropy_loss"}, [](Run& r) {
    auto model = cnn();
    optim::SGD opt(model->parameters(), 0.05, 0.9);
    const Tensor x = r.data({64, 1, 12, 12}), y = randint(0, 10, {64});
    train(
        r, *model, opt, x, y, [](const Tensor& p, const Tensor& t) { return F::cross_entropy(p, t); }, 3, 32);
  });
  add("train_cnn_adamw", {"conv2d", "max_pool2d_with_indices", "cross_entropy_loss"}, [](Run& r) {
    auto model = cnn();
    optim::AdamW opt(model->parameters(), 0.01);
    const Tensor x = r.data({64, 1, 12, 12}), y = randint(0, 10, {64});
    train(
        r, *model, opt, x, y, [](const Tensor& p, const Tensor& t) { return F::cross_entropy(p, t); }, 3, 32);
  });
  add("train_embedding_layernorm_gelu_adam", {"embedding", "embedding_dense_backward", "gelu", "gelu_backward"},
      [](Run& r) {
        auto model = std::make_shared<nn::Sequential>(nn::Embedding(50, 16), nn::Flatten(),
                                                      nn::LayerNorm(Shape{16 * 6}), nn::GELU(), nn::Linear(16 * 6, 4));
        optim::Adam opt(model->parameters(), 0.01);
        const Tensor x = randint(0, 50, {128, 6}), y = randint(0, 4, {128});
        train(
            r, *model, opt, x, y,
            [](const Tensor& p, const Tensor& t) {
              return F::cross_entropy(p, t, Tensor(), -100, Reduction::Mean, 0.05);
            },
            4, 64);
      });

  // Every DITTO_UNARY row no entry above lists, through the function its row makes, on positive
  // inputs (inside every such op's domain): a new row is in the corpus without a line here.
  std::set<std::string> listed;
  for (const Entry& e : c) listed.insert(e.ops.begin(), e.ops.end());
  for (const ops::OpEntry& op : ops::all_ops())
    if (op.unary && !listed.count(op.name))
      add(std::string("unary_row_") + op.id_name, {op.name}, [fn = op.unary](Run& r) {
        unary_sweep(
            r, [fn](const Tensor& x) { return fn(x); }, Dist::Positive);
      });
  return c;
}

const std::vector<Entry>& the_corpus() {
  static const std::vector<Entry> c = corpus();
  return c;
}

uint64_t seed_of(const std::string& name) {  // FNV-1a, so adding an entry leaves the others' seeds
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ULL;
  return h;
}

struct Outcome {
  std::vector<std::string> labels;
  std::vector<uint64_t> hashes;  // one per result
  uint64_t all = 0;              // fingerprint of every result together
};

Outcome run_entry(const Entry& e) {
  DeterministicGuard det(e.deterministic_mode);
  manual_seed(seed_of(e.name));
  Run r;
  e.run(r);
  Outcome o;
  std::vector<Tensor> ts;
  for (auto& [label, t] : r.results) {
    o.labels.push_back(label);
    o.hashes.push_back(fingerprint(t));
    ts.push_back(t);
  }
  o.all = fingerprint(ts);
  return o;
}

// ---------------------------------------------------------------------------------------------
// Invariance.Corpus/<entry>: one fingerprint over every (threads, level) configuration.

// Where two configurations first part, from ditto::audit's logs of the same run under each (for a
// failure's message): the record's op, kernel, direction and module, and whether its inputs matched.
std::string first_divergent_op(const std::function<void()>& run, const Config& a, const Config& b) {
  const std::string path[2] = {::testing::TempDir() + "invariance_a.log", ::testing::TempDir() + "invariance_b.log"};
  const Config cfg[2] = {a, b};
  for (int i = 0; i < 2; ++i) {
    apply(cfg[i]);
    audit::start(path[i], "none");
    try {
      run();
    } catch (const std::exception&) {
    }
    audit::stop();
  }
  const audit::Log la = audit::read_log(path[0]), lb = audit::read_log(path[1]);
  const audit::Divergence d = audit::diff(la, lb);
  if (!d.differ) return "ditto::audit's logs agree: the difference is made outside ditto's ops";
  if (d.index >= la.records.size()) return d.what;
  const audit::Record& r = la.records[d.index];
  return "first divergent op (ditto::audit): record " + std::to_string(r.seq) + ", " + r.op + " [" + r.kernel + "] " +
         (r.backward ? "backward in " + r.node : std::string("forward")) + (r.module.empty() ? "" : " in " + r.module) +
         ": " + d.what;
}

class Corpus : public ::testing::TestWithParam<std::size_t> {};

TEST_P(Corpus, SameBitsForEveryThreadCountAndLevel) {
  const Entry& e = the_corpus()[GetParam()];
  ConfigGuard guard;
  // Under the sanitizers, whose job here is memory safety, every level at 1 and 3 threads (one
  // part, and uneven parts on more threads than cores): the chunks a kernel reads are fixed by
  // the input (Note [Canonical reduction order]), so 2 and 8 threads read the same addresses in
  // other hands; the optimised build compares all four thread counts. Halves the ASan corpus.
  const std::vector<Config> cfgs = kSanitized ? configs({1, 3}) : configs({1, 2, 3, 8});
  ASSERT_FALSE(cfgs.empty());
  std::vector<Outcome> got;
  for (const Config& cfg : cfgs) {
    apply(cfg);
    clear_upper_vector_halves();  // what ran before is not this entry's
    try {
      got.push_back(run_entry(e));
    } catch (const std::exception& ex) {
      FAIL() << "entry '" << e.name << "' threw under " << config_name(cfg) << ": " << ex.what();
    }
    // At 1 thread every kernel ran on this thread: none may leave the vector state dirty. A
    // property of the optimised build: the sanitizer build's -O1 leaves the simd wrappers (which
    // take vectors) out of line, and GCC puts no vzeroupper after those calls.
    if (cfg.threads == 1 && !kSanitized) {
      EXPECT_FALSE(upper_vector_halves_in_use())
          << "entry '" << e.name << "' under " << config_name(cfg)
          << " left the upper halves of the vector registers in use (a vector kernel returned without vzeroupper)";
    }
  }
  const Outcome& ref = got[0];
  ASSERT_FALSE(ref.hashes.empty()) << "entry '" << e.name << "' recorded nothing";
  std::set<uint64_t> distinct;
  for (const Outcome& o : got) distinct.insert(o.all);
  for (std::size_t k = 1; k < got.size(); ++k) {
    const Outcome& o = got[k];
    if (o.all == ref.all) continue;
    std::ostringstream msg;
    msg << "entry '" << e.name << "': " << config_name(cfgs[k]) << " gives " << hex(o.all) << ", "
        << config_name(cfgs[0]) << " gives " << hex(ref.all) << " (" << distinct.size()
        << " distinct fingerprints over " << cfgs.size() << " configurations)";
    if (o.hashes.size() != ref.hashes.size()) msg << "; different numbers of results";
    for (std::size_t i = 0; i < ref.hashes.size() && i < o.hashes.size(); ++i)
      if (o.hashes[i] != ref.hashes[i])
        msg << "\n  result '" << ref.labels[i] << "': " << hex(o.hashes[i]) << " vs " << hex(ref.hashes[i]);
    msg << "\n  " << first_divergent_op([&] { run_entry(e); }, cfgs[0], cfgs[k]);
    ADD_FAILURE() << msg.str();
  }
}

TEST(Invariance, AFailureNamesTheFirstDivergentOp) {
  ConfigGuard guard;
  const std::vector<Config> cfgs = configs({1, 3});
  ASSERT_GE(cfgs.size(), 2u);
  // A computation that (on purpose) depends on the thread count: the scalar it multiplies by (made
  // a 0-dim tensor by fill_).
  const std::string m = first_divergent_op(
      [] {
        const Tensor x = ones({4, 4}).exp();
        const Tensor y = x * Scalar(get_num_threads() == 1 ? 2.0 : 2.5);
        (void)y.sum();
      },
      cfgs[0], cfgs[1]);
  EXPECT_NE(m.find("fill_ [elementwise"), std::string::npos) << m;
  EXPECT_NE(m.find("other arguments (scalars, dims, flags) are not"), std::string::npos) << m;
  EXPECT_NE(m.find("forward"), std::string::npos) << m;
  const std::string same = first_divergent_op([] { (void)ones({4, 4}).exp().sum(); }, cfgs[0], cfgs[1]);
  EXPECT_NE(same.find("logs agree"), std::string::npos) << same;
}

std::vector<std::size_t> corpus_indices() {
  std::vector<std::size_t> v(the_corpus().size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

INSTANTIATE_TEST_SUITE_P(Invariance, Corpus, ::testing::ValuesIn(corpus_indices()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return the_corpus()[info.param].name;
                         });

// Every op of the table is run by some entry, counted by the dispatcher while each entry runs
// (ops::dispatch_count), and every op an entry lists is one it really ran.
TEST(Invariance, CorpusCoversEveryOpInTheTable) {
  ConfigGuard guard;
  std::set<std::string> ran_any;
  for (const Entry& e : the_corpus()) {
    std::vector<uint64_t> before;
    for (const ops::OpEntry& op : ops::all_ops()) before.push_back(ops::dispatch_count(op.id));
    ASSERT_NO_THROW(run_entry(e)) << e.name;
    std::set<std::string> ran;
    std::size_t i = 0;
    for (const ops::OpEntry& op : ops::all_ops())
      if (ops::dispatch_count(op.id) > before[i++]) ran.insert(op.name);
    for (const std::string& op : e.ops)
      EXPECT_TRUE(ran.count(op)) << "entry '" << e.name << "' lists '" << op << "' but did not run it";
    ran_any.insert(ran.begin(), ran.end());
  }
  for (const ops::OpEntry& op : ops::all_ops())
    EXPECT_TRUE(ran_any.count(op.name)) << "no corpus entry runs '" << op.name << "'";
}

// A check that the suite can fail: a program whose bits depend on the thread count (the split
// a naive parallel sum would make) is caught by the same comparison.
TEST(Invariance, CorpusComparisonCatchesAThreadDependentResult) {
  ConfigGuard guard;
  std::set<uint64_t> seen;
  for (const Config& cfg : configs({1, 2, 3, 8})) {
    apply(cfg);
    manual_seed(1);
    const Tensor x = randn({100003});
    const int64_t t = get_num_threads(), per = (x.numel() + t - 1) / t;
    Tensor acc = zeros({});
    for (int64_t b = 0; b < x.numel(); b += per) acc = acc + x.slice(0, b, std::min(b + per, x.numel())).sum();
    seen.insert(fingerprint(acc));
  }
  EXPECT_GT(seen.size(), 1u);
}

// ---------------------------------------------------------------------------------------------
// Invariance.RandomShapes*: each level's bits equal the scalar level's on random shapes.

Tensor random_tensor(const Shape& shape, std::mt19937& g, double scale = 1.0) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::normal_distribution<float> d(0.0f, static_cast<float>(scale));
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = d(g);
  return from_vector(v, shape);
}

// Index of the first element whose bits differ, or -1.
int64_t first_difference(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return 0;
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  const std::size_t es = ca.element_size();
  const auto* pa = static_cast<const unsigned char*>(ca.raw_data());
  const auto* pb = static_cast<const unsigned char*>(cb.raw_data());
  for (int64_t i = 0; i < ca.numel(); ++i)
    if (std::memcmp(pa + i * es, pb + i * es, es) != 0) return i;
  return -1;
}

// Runs f at the scalar level, then at every other level, and compares the bits.
void expect_levels_match_scalar(const std::string& what, const std::function<std::vector<Tensor>()>& f) {
  ConfigGuard guard;
  set_num_threads(2);
  set_cpu_capability_for_testing(CpuCapability::Scalar);
  const std::vector<Tensor> want = f();
  for (CpuCapability level : supported_levels()) {
    if (level == CpuCapability::Scalar) continue;
    set_cpu_capability_for_testing(level);
    const std::vector<Tensor> got = f();
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      const int64_t at = first_difference(got[i], want[i]);
      EXPECT_EQ(at, -1) << what << " result " << i << ": level " << capability_name(level)
                        << " differs from scalar at flat index " << at << " (fingerprints " << hex(fingerprint(got[i]))
                        << " vs " << hex(fingerprint(want[i])) << ")";
    }
  }
}

TEST(Invariance, RandomShapesMm) {
  std::mt19937 g(101);
  std::uniform_int_distribution<int64_t> dim(1, 70);
  std::bernoulli_distribution flip(0.5);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t M = dim(g), N = dim(g), K = dim(g);
    const bool ta = flip(g), tb = flip(g);
    const Tensor a = ta ? random_tensor({K, M}, g).t() : random_tensor({M, K}, g);
    const Tensor b = tb ? random_tensor({N, K}, g).t() : random_tensor({K, N}, g);
    const Tensor a64 = a.to(kFloat64), b64 = b.to(kFloat64);
    const std::string what = "mm " + std::to_string(M) + "x" + std::to_string(K) + (ta ? "^T" : "") + " @ " +
                             std::to_string(K) + "x" + std::to_string(N) + (tb ? "^T" : "");
    expect_levels_match_scalar(what, [&] { return std::vector<Tensor>{ditto::mm(a, b), ditto::mm(a64, b64)}; });
  }
}

TEST(Invariance, RandomShapesSumSoftmax) {
  std::mt19937 g(202);
  std::uniform_int_distribution<int64_t> rows(1, 5), len(1, 3000);
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t M = rows(g), R = trial == 0 ? 70001 : len(g);
    const Tensor x = random_tensor({M, R}, g, 3.0);
    const Tensor xs = random_tensor({M, 2 * R}, g, 3.0).slice(1, 0, 2 * R, 2);
    const std::string what = "sum/softmax rows of " + std::to_string(R) + " x " + std::to_string(M);
    expect_levels_match_scalar(what, [&] {
      return std::vector<Tensor>{x.sum({1}),
                                 xs.sum(),
                                 ditto::softmax(x, 1),
                                 ditto::log_softmax(xs, 1),
                                 ditto::softmax(x.to(kFloat64), 1),
                                 x.var({1}, false)};
    });
  }
}

TEST(Invariance, RandomShapesExpTanh) {
  std::mt19937 g(303);
  std::uniform_int_distribution<int64_t> len(1, 300);
  for (int trial = 0; trial < 30; ++trial) {
    const int64_t n = trial == 0 ? 100003 : len(g);
    const Tensor x = random_tensor({n}, g, 4.0);
    const Tensor x64 = x.to(kFloat64);
    expect_levels_match_scalar("exp/tanh/log/gelu over " + std::to_string(n), [&] {
      return std::vector<Tensor>{
          ditto::exp(x),  ditto::tanh(x),  ditto::log(ditto::abs(x)), ditto::sigmoid(x),
          ditto::gelu(x), ditto::exp(x64), ditto::tanh(x64),          ditto::pow(ditto::abs(x), x)};
    });
  }
}

TEST(Invariance, RandomShapesConv2d) {
  std::mt19937 g(404);
  std::uniform_int_distribution<int64_t> small(1, 4), side(3, 17), k(1, 3), s(1, 2);
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t N = small(g), C = small(g), O = small(g), H = side(g), W = side(g), kh = k(g), kw = k(g);
    const int64_t sh = s(g), sw = s(g), ph = k(g) - 1, pw = k(g) - 1;
    const Tensor x = random_tensor({N, C, H, W}, g), w = random_tensor({O, C, kh, kw}, g), b = random_tensor({O}, g);
    std::ostringstream what;
    what << "conv2d x" << shape_str({N, C, H, W}) << " w" << shape_str({O, C, kh, kw}) << " stride " << sh << "," << sw
         << " pad " << ph << "," << pw;
    expect_levels_match_scalar(what.str(), [&] {
      const Tensor xl = x.detach().requires_grad_(), wl = w.detach().requires_grad_();
      const Tensor y = F::conv2d(xl, wl, b, {sh, sw}, {ph, pw});
      y.backward(ones(y.sizes()) * 0.5);
      return std::vector<Tensor>{y, xl.grad(), wl.grad()};
    });
  }
}

// ---------------------------------------------------------------------------------------------
// BatchInvariance: a sample alone and in a batch give the same bits.
//
// f maps a batch (B, *sample) to results whose dim 0 is the batch (forward outputs, input
// gradients). The sample is placed first, in the middle or last of batches of 2, 5, 16 and 64
// filled with other samples; its slice of every result must equal its result alone, at every
// level and on 1 and 2 threads (against the sample alone at scalar on one thread).

using BatchFn = std::function<std::vector<Tensor>(const Tensor& batch, const Tensor& upstream)>;

void expect_batch_invariant(const std::string& what, const Shape& sample_shape, const BatchFn& f,
                            Dist dist = Dist::Normal) {
  ConfigGuard guard;
  Shape pool_shape = sample_shape;
  pool_shape.insert(pool_shape.begin(), 64);
  std::mt19937 g(seed_of(what));
  auto make = [&](const Shape& s) {
    Tensor t = random_tensor(s, g);
    if (dist == Dist::Positive) t = ditto::abs(t) + 0.25;
    return t;
  };
  Shape one = pool_shape;
  one[0] = 1;
  const Tensor sample = make(one), pool = make(pool_shape);
  // upstream gradients: 4096 values a sample, of which a result uses its first (its size)
  const Tensor up_sample = random_tensor({1, 4096}, g), up_pool = random_tensor({64, 4096}, g);
  auto place = [](const Tensor& s, const Tensor& others, int64_t B, int64_t p) {
    return ditto::cat({others.slice(0, 0, p), s, others.slice(0, p + 1, B)}, 0);
  };

  std::vector<uint64_t> want;
  bool have_reference = false;
  for (const Config& cfg : configs({1, 2})) {
    apply(cfg);
    const std::vector<Tensor> alone = f(sample, up_sample);
    if (!have_reference) {
      for (const Tensor& t : alone) want.push_back(fingerprint(t));
      have_reference = true;
    }
    for (std::size_t i = 0; i < alone.size(); ++i)
      EXPECT_EQ(fingerprint(alone[i]), want[i]) << what << " result " << i << ": the sample alone under "
                                                << config_name(cfg) << " differs from threads=1 level=scalar";
    for (int64_t B : {2, 5, 16, 64})
      for (int64_t p : {int64_t(0), B / 2, B - 1}) {
        const std::vector<Tensor> got = f(place(sample, pool, B, p), place(up_sample, up_pool, B, p));
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
          const uint64_t h = fingerprint(got[i].slice(0, p, p + 1));
          EXPECT_EQ(h, want[i]) << what << " result " << i << ": the sample at position " << p << " of a batch of " << B
                                << " under " << config_name(cfg) << " gives " << hex(h) << ", alone " << hex(want[i]);
        }
      }
  }
}

// y = fn(x) and dL/dx for L = sum(y * upstream).
BatchFn with_input_grad(std::function<Tensor(const Tensor&)> fn) {
  return [fn](const Tensor& batch, const Tensor& upstream) {
    const Tensor x = batch.detach().requires_grad_();
    const Tensor y = fn(x);
    y.backward(upstream.slice(1, 0, y.numel() / y.size(0)).reshape(y.sizes()));
    return std::vector<Tensor>{y, x.grad()};
  };
}

// Fixed parameters, from their own stream.
Tensor param(const Shape& s, unsigned seed) {
  std::mt19937 g(seed);
  return random_tensor(s, g, 0.3);
}

TEST(BatchInvariance, Linear) {
  const Tensor w = param({67, 129}, 1), b = param({67}, 2);
  // the upstream gradient has the output's shape: (B, 67) fits inside (B, 129)
  expect_batch_invariant("linear", {129}, [&](const Tensor& x, const Tensor& up) {
    const Tensor xl = x.detach().requires_grad_();
    const Tensor y = F::linear(xl, w, b);
    y.backward(up.slice(1, 0, 67).contiguous());
    return std::vector<Tensor>{y, xl.grad()};
  });
  expect_batch_invariant("linear without bias, odd sizes", {33}, [&](const Tensor& x, const Tensor&) {
    return std::vector<Tensor>{F::linear(x, param({7, 33}, 3))};
  });
}

TEST(BatchInvariance, Matmul) {
  const Tensor w = param({33, 17}, 4), w64 = w.to(kFloat64);
  expect_batch_invariant("mm rows", {33}, [&](const Tensor& x, const Tensor&) {
    return std::vector<Tensor>{ditto::mm(x, w), ditto::mm(x.to(kFloat64), w64), ditto::mm(x, w.t().contiguous().t())};
  });
  expect_batch_invariant("matmul 3-d", {5, 33}, [&](const Tensor& x, const Tensor&) {
    return std::vector<Tensor>{ditto::matmul(x, w), ditto::bmm(x, w.unsqueeze(0).expand({x.size(0), 33, 17}))};
  });
}

TEST(BatchInvariance, Conv2d) {
  const Tensor w = param({5, 3, 3, 3}, 5), b = param({5}, 6), w2 = param({6, 2, 3, 2}, 7);
  expect_batch_invariant("conv2d 3x3 pad 1", {3, 11, 9},
                         with_input_grad([&](const Tensor& x) { return F::conv2d(x, w, b, 1, 1); }));
  expect_batch_invariant("conv2d stride 2 dilation 2 groups 2", {4, 13, 10}, [&](const Tensor& x, const Tensor&) {
    return std::vector<Tensor>{F::conv2d(x, w2, Tensor(), 2, {1, 2}, 2, 2)};
  });
}

TEST(BatchInvariance, SoftmaxLogSoftmaxLayerNorm) {
  const Tensor lw = param({300}, 8), lb = param({300}, 9);
  expect_batch_invariant("softmax", {300}, with_input_grad([](const Tensor& x) { return ditto::softmax(x * 3.0, 1); }));
  expect_batch_invariant("log_softmax", {300},
                         with_input_grad([](const Tensor& x) { return ditto::log_softmax(x, 1); }));
  expect_batch_invariant("softmax rows of 17", {3, 17},
                         with_input_grad([](const Tensor& x) { return ditto::softmax(x, 2); }));
  expect_batch_invariant("layer_norm", {300},
                         with_input_grad([&](const Tensor& x) { return F::layer_norm(x, {300}, lw, lb); }));
  expect_batch_invariant("layer_norm over (3,17)", {3, 17}, with_input_grad([](const Tensor& x) {
                           return F::layer_norm(x, {3, 17});
                         }));
}

TEST(BatchInvariance, RowReductions) {
  expect_batch_invariant("sum/mean/var/amax/argmax over rows", {300}, [](const Tensor& x, const Tensor&) {
    return std::vector<Tensor>{x.sum({1}), x.mean({1}), x.var({1}), ditto::amax(x, {1}), ditto::argmax(x, 1)};
  });
}

TEST(BatchInvariance, Elementwise) {
  // 100 floats a sample: a sample's start is never aligned to a SIMD width inside the batch.
  expect_batch_invariant("exp/tanh/sigmoid/gelu/relu", {100}, [](const Tensor& x, const Tensor&) {
    return std::vector<Tensor>{ditto::exp(x),          ditto::tanh(x), ditto::sigmoid(x), ditto::gelu(x),
                               ditto::gelu(x, "tanh"), ditto::relu(x), x * 1.5 + 0.25,    ditto::exp(x.to(kFloat64))};
  });
  expect_batch_invariant(
      "log/sqrt/pow", {37},
      [](const Tensor& x, const Tensor&) {
        return std::vector<Tensor>{ditto::log(x), ditto::sqrt(x), ditto::pow(x, 1.7), ditto::rsqrt(x)};
      },
      Dist::Positive);
  expect_batch_invariant("gelu backward", {100}, with_input_grad([](const Tensor& x) { return ditto::gelu(x); }));
}

TEST(BatchInvariance, Pooling) {
  expect_batch_invariant("max_pool2d", {3, 13, 11},
                         with_input_grad([](const Tensor& x) { return F::max_pool2d(x, 3, 2, 1); }));
  expect_batch_invariant("avg_pool2d", {3, 13, 11},
                         with_input_grad([](const Tensor& x) { return F::avg_pool2d(x, 3, 2, 1); }));
  expect_batch_invariant("adaptive_avg_pool2d", {3, 13, 11}, with_input_grad([](const Tensor& x) {
                           return F::adaptive_avg_pool2d(x, {5, 7});
                         }));
}

TEST(BatchInvariance, Resampling) {
  expect_batch_invariant("reflect pad", {3, 13, 11}, with_input_grad([](const Tensor& x) {
                           return F::pad(x, {3, 2, 1, 4}, "reflect");
                         }));
  expect_batch_invariant("bilinear", {3, 13, 11}, with_input_grad([](const Tensor& x) {
                           return F::interpolate(x, std::nullopt, std::vector<double>{2.0}, "bilinear");
                         }));
  expect_batch_invariant("bicubic", {3, 13, 11}, with_input_grad([](const Tensor& x) {
                           return F::interpolate(x, nn::SizeArg{20, 7}, {}, "bicubic", true);
                         }));
}

TEST(BatchInvariance, EmbeddingBag) {
  const Tensor weight = param({50, 16}, 11);
  for (const char* mode : {"sum", "mean", "max"})
    expect_batch_invariant(std::string("embedding_bag ") + mode, {7}, [&](const Tensor& x, const Tensor&) {
      const Tensor idx = (ditto::abs(x) * 10.0).to(kInt64).clamp(0, 49);  // (batch, 7): a bag per sample
      return std::vector<Tensor>{F::embedding_bag(idx, weight, Tensor(), mode)};
    });
}

// Issue 14's per-sample ops: a sample's losses, scans and orderings do not depend on the batch.
TEST(BatchInvariance, LossesScansAndOrderings) {
  expect_batch_invariant("ctc_loss reduction none", {30, 5}, [](const Tensor& batch, const Tensor& up) {
    const int64_t B = batch.size(0);
    const Tensor x = batch.detach().requires_grad_();
    const Tensor lp = x.transpose(0, 1).log_softmax(2);  // (T, B, C)
    const Tensor targets = (ditto::abs(batch.detach().select(2, 0).slice(1, 0, 3)) * 10.0).to(kInt64).clamp(0, 3) + 1;
    const Tensor loss = F::ctc_loss(lp, targets, Shape(size_t(B), 30), Shape(size_t(B), 3), 0, nn::Reduction::None);
    loss.backward(up.select(1, 0));
    return std::vector<Tensor>{loss, x.grad()};
  });
  expect_batch_invariant("cross_entropy reduction none over (C, H, W)", {7, 5, 6}, with_input_grad([](const Tensor& x) {
                           const Tensor t = (ditto::abs(x.detach().select(1, 0)) * 10.0).to(kInt64).clamp(0, 6);
                           return F::cross_entropy(x, t, Tensor(), -100, nn::Reduction::None, 0.1);
                         }));
  expect_batch_invariant("scans over rows", {300}, [](const Tensor& x, const Tensor&) {
    auto [cmv, cmi] = ditto::cummax(x, 1);
    return std::vector<Tensor>{ditto::cumsum(x, 1), ditto::cumprod(x * 0.1 + 1.0, 1), ditto::logcumsumexp(x, 1), cmv,
                               cmi};
  });
  expect_batch_invariant("cumsum backward", {300},
                         with_input_grad([](const Tensor& x) { return ditto::cumsum(x, 1); }));
  expect_batch_invariant("orderings over rows", {301}, [](const Tensor& x, const Tensor&) {
    auto [sv, si] = ditto::sort(x, 1, true, true);
    auto [tv, ti] = ditto::topk(x, 9, 1);
    auto [kv, ki] = ditto::kthvalue(x, 17, 1);
    auto [mv, mi] = ditto::median(x, 1);
    auto [ov, oi] = ditto::mode((x * 2.0).to(kInt64), 1);
    return std::vector<Tensor>{sv, si, tv, ti, kv, ki, mv, mi, ov, oi};
  });
}

TEST(BatchInvariance, Embedding) {
  const Tensor weight = param({50, 16}, 10);
  expect_batch_invariant("embedding", {7}, [&](const Tensor& x, const Tensor&) {
    // indices from the sample's values, in [0, 50)
    const Tensor idx = (ditto::abs(x) * 10.0).to(kInt64).clamp(0, 49);
    return std::vector<Tensor>{F::embedding(idx, weight)};
  });
}

}  // namespace
