// Random tensor ops with PyTorch 1.13's CPU streams: this file validates input, picks the
// generator, locks it and runs the op table's draw kernels (cpu/random.cpp, which has Note [glibc
// dependence]).
#include <cmath>
#include <limits>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <vector>

#include "autograd/graph.h"
#include "cpu/random_impl.h"
#include "ditto/factory.h"
#include "ditto/ops.h"
#include "ditto/random.h"
#include "ops/common.h"
#include "ops/dispatch.h"

namespace ditto {
namespace {

Generator& pick(Generator* gen) { return gen ? *gen : default_generator(); }

void check_size(const Shape& size, const char* op) {
  for (int64_t s : size) DITTO_CHECK(s >= 0, op, "sizes must be non-negative, got ", s);
}

// The in-place ops write through a TensorIterator in PyTorch, which rejects outputs where
// several elements share one address.
void check_target(const Tensor& t, const char* op) {
  DITTO_CHECK(t.defined(), op, "the tensor is undefined");
  autograd::check_inplace(t, op);  // not on a leaf (or a view of one) that requires grad
  DITTO_CHECK(t.device() == Device::CPU, op, "only CPU tensors are supported, got ", device_name(t.device()));
  if (t.numel() == 0) return;
  const Shape& sz = t.sizes();
  const Shape& st = t.strides();
  for (std::size_t d = 0; d < sz.size(); ++d)
    DITTO_CHECK(!(st[d] == 0 && sz[d] > 1), op,
                "more than one element of the written-to tensor refers to a single memory "
                "location; clone() the tensor first");
}

void check_floating(ScalarType t, const char* op) {
  DITTO_CHECK(is_floating(t), op, "expected a float32 or float64 tensor, got ", dtype_name(t));
}

// Calls f(offset) for each element of t, offsets in elements from t.raw_data().
template <class F>
void for_each_offset(const Tensor& t, F&& f) {
  const std::array<const Shape*, 1> st{&t.strides()};
  detail::for_each_element<1>(t.sizes(), st, [&](const std::array<int64_t, 1>& o) { f(o[0]); });
}

// --- uniform

void uniform_impl(const Tensor& t, double from, double to, Generator* gen, const char* op) {
  check_target(t, op);
  check_floating(t.dtype(), op);
  const bool f32 = t.dtype() == kFloat32;
  const double lo = f32 ? -static_cast<double>(std::numeric_limits<float>::max()) : -std::numeric_limits<double>::max();
  const double hi = -lo;
  DITTO_CHECK(from >= lo && from <= hi, op, "from (", from, ") is out of bounds for ", dtype_name(t.dtype()));
  DITTO_CHECK(to >= lo && to <= hi, op, "to (", to, ") is out of bounds for ", dtype_name(t.dtype()));
  DITTO_CHECK(from <= to, op, "expected from <= to for the range [from, to), got from=", from, " > to=", to);
  DITTO_CHECK(to - from <= hi, op, "to - from exceeds the largest ", dtype_name(t.dtype()), " (from=", from,
              ", to=", to, ")");
  if (t.numel() == 0) return;
  Generator& g = pick(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  ops::call<ops::OpId::uniform_>(Device::CPU, t, from, to, g);
}

// --- normal

void normal_impl(const Tensor& t, double mean, double std, Generator* gen, const char* op) {
  check_target(t, op);
  check_floating(t.dtype(), op);
  DITTO_CHECK(std >= 0.0, op, "expected std >= 0.0, got std=", std);
  if (t.numel() == 0) return;
  Generator& g = pick(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  ops::call<ops::OpId::normal_>(Device::CPU, t, mean, std, g);
}

// --- integers

void random_impl(const Tensor& t, int64_t from, int64_t to, Generator* gen, const char* op) {
  check_target(t, op);
  const ScalarType dt = t.dtype();
  if (dt == kFloat32) {
    from = detail::float_update_from<float>(from);
    to = detail::float_update_to<float>(to);
  } else if (dt == kFloat64) {
    from = detail::float_update_from<double>(from);
    to = detail::float_update_to<double>(to);
  }
  DITTO_CHECK(from < to, op, "the range is empty once from and to are rounded to ", dtype_name(dt), " (from=", from,
              ", to=", to, ")");
  if (dt == kInt32 || dt == kBool) {
    const int64_t lo = dt == kBool ? 0 : std::numeric_limits<int32_t>::min();
    const int64_t hi = dt == kBool ? 1 : std::numeric_limits<int32_t>::max();
    DITTO_CHECK(from >= lo && from <= hi, op, "from (", from, ") is out of bounds for ", dtype_name(dt));
    DITTO_CHECK(to - 1 >= lo && to - 1 <= hi, op, "to - 1 (", to - 1, ") is out of bounds for ", dtype_name(dt));
  }
  if (t.numel() == 0) return;
  Generator& g = pick(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  ops::call<ops::OpId::random_>(Device::CPU, t, from, to, g);
}

// --- bernoulli

template <class P>
void check_probabilities(const Tensor& p) {
  const P* pp = static_cast<const P*>(p.raw_data());
  for_each_offset(p, [&](int64_t o) {
    const P v = pp[o];
    DITTO_CHECK(v >= 0 && v <= 1, "bernoulli", "expected every probability in [0, 1], got ", v);
  });
}

}  // namespace

// --- public API

Tensor rand(const Shape& size, ScalarType dtype, Generator* gen) {
  check_size(size, "rand");
  check_floating(dtype, "rand");
  Tensor t = empty(size, dtype);
  uniform_impl(t, 0.0, 1.0, gen, "rand");
  return t;
}

Tensor randn(const Shape& size, ScalarType dtype, Generator* gen) {
  check_size(size, "randn");
  check_floating(dtype, "randn");
  Tensor t = empty(size, dtype);
  normal_impl(t, 0.0, 1.0, gen, "randn");
  return t;
}

Tensor rand(const Shape& size, Generator* gen) { return rand(size, kFloat32, gen); }
Tensor randn(const Shape& size, Generator* gen) { return randn(size, kFloat32, gen); }

Tensor rand_like(const Tensor& t, Generator* gen) {
  DITTO_CHECK(t.defined(), "rand_like", "the tensor is undefined");
  check_floating(t.dtype(), "rand_like");
  Tensor r = empty_like(t);
  uniform_impl(r, 0.0, 1.0, gen, "rand_like");
  return r;
}

Tensor randn_like(const Tensor& t, Generator* gen) {
  DITTO_CHECK(t.defined(), "randn_like", "the tensor is undefined");
  check_floating(t.dtype(), "randn_like");
  Tensor r = empty_like(t);
  normal_impl(r, 0.0, 1.0, gen, "randn_like");
  return r;
}

Tensor randint(int64_t low, int64_t high, const Shape& size, ScalarType dtype, Generator* gen) {
  check_size(size, "randint");
  DITTO_CHECK(low < high, "randint", "low (", low, ") must be less than high (", high, ")");
  Tensor t = empty(size, dtype);
  random_impl(t, low, high, gen, "randint");
  return t;
}

Tensor randint(int64_t high, const Shape& size, ScalarType dtype, Generator* gen) {
  return randint(0, high, size, dtype, gen);
}

Tensor randperm(int64_t n, ScalarType dtype, Generator* gen) {
  DITTO_CHECK(n >= 0, "randperm", "n must be non-negative, got ", n);
  DITTO_CHECK(dtype != kBool, "randperm", "bool is not supported");
  // Every value 0..n-1 must be exactly representable.
  const int64_t max_n = dtype == kInt32     ? int64_t{1} << 31
                        : dtype == kFloat32 ? (int64_t{1} << 24) + 1
                        : dtype == kFloat64 ? (int64_t{1} << 53) + 1
                                            : std::numeric_limits<int64_t>::max();
  DITTO_CHECK(n <= max_n, "randperm", "n (", n, ") is too large for ", dtype_name(dtype));
  Tensor t = empty({n}, dtype);
  Generator& g = pick(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  ops::call<ops::OpId::randperm>(Device::CPU, t, g);
  return t;
}

Tensor bernoulli(const Tensor& p, Generator* gen) {
  DITTO_CHECK(p.defined(), "bernoulli", "the tensor is undefined");
  DITTO_CHECK(p.device() == Device::CPU, "bernoulli", "only CPU tensors are supported, got ", device_name(p.device()));
  check_floating(p.dtype(), "bernoulli");
  // Validate first so that a bad p leaves the generator untouched.
  if (p.dtype() == kFloat32)
    check_probabilities<float>(p);
  else
    check_probabilities<double>(p);
  // PyTorch makes this output contiguous (LEGACY_CONTIGUOUS_MEMORY_FORMAT), unlike rand_like.
  Tensor out = empty(p.sizes(), p.dtype());
  if (out.numel() > 0) {
    Generator& g = pick(gen);
    std::lock_guard<std::mutex> lock(g.mutex());
    ops::call<ops::OpId::bernoulli>(Device::CPU, out, p, g);
  }
  if (autograd::any_needs_grad(p)) ops::record<ops::OpId::bernoulli>({p}, {out}, autograd::formulas::NoSaved{});
  return out;
}

namespace {
// PyTorch's with-replacement kernel checks each row's entries in order as it sums them: the same
// messages for the first bad entry, before anything is drawn.
template <class T>
void check_distribution(const Tensor& p) {
  const char* op = "multinomial";
  const T* base = static_cast<const T*>(p.raw_data());
  for (int64_t i = 0; i < p.size(0); ++i) {
    bool positive = false;
    for (int64_t j = 0; j < p.size(1); ++j) {
      const T v = base[i * p.stride(0) + j * p.stride(1)];
      DITTO_CHECK(v >= 0, op, "invalid multinomial distribution (encountering probability entry < 0)");
      DITTO_CHECK(std::isfinite(v), op,
                  "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
      positive |= v > 0;
    }
    DITTO_CHECK(positive, op, "invalid multinomial distribution (sum of probabilities <= 0)");
  }
}
}  // namespace

Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement, Generator* gen) {
  const char* op = "multinomial";
  DITTO_CHECK(input.defined(), op, "the tensor is undefined");
  DITTO_CHECK(is_floating(input.dtype()), op, "multinomial only supports floating-point dtypes for input, got: ",
              input.dtype() == kInt64   ? "Long"
              : input.dtype() == kInt32 ? "Int"
                                        : "Bool");
  DITTO_CHECK(input.dim() > 0 && input.dim() <= 2, op, "prob_dist must be 1 or 2 dim");
  DITTO_CHECK(num_samples > 0, op, "cannot sample n_sample <= 0 samples");
  const int64_t C = input.size(-1);
  DITTO_CHECK(replacement || num_samples <= C, op,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  DITTO_CHECK(C <= (int64_t{1} << 24), op, "number of categories cannot exceed 2^24");
  const Tensor p = input.dim() == 1 ? input.unsqueeze(0) : input;
  const int64_t rows = p.size(0);
  Tensor out = empty({rows, num_samples}, kInt64);
  if (out.numel() == 0) return input.dim() == 1 ? out.view({num_samples}) : out;
  Generator& g = pick(gen);
  if (!replacement) {
    // PyTorch's fast path (the Gumbel trick): argmax / topk of p / q, q ~ Exp(1) drawn in the
    // input's memory order; the input is checked before anything is drawn. (PyTorch 2.x takes
    // this path for one sample with replacement too; 1.13, the reference here, does not.)
    const Tensor x = p.detach();
    DITTO_CHECK(x.max().item<double>() < std::numeric_limits<double>::infinity() && x.min().item<double>() >= 0, op,
                "probability tensor contains either `inf`, `nan` or element < 0");
    DITTO_CHECK(x.sum({1}).eq(Scalar(0)).sum().item<int64_t>() == 0, op,
                "invalid multinomial distribution (sum of probabilities <= 0)");
    Tensor q = empty_like(x);
    {
      std::lock_guard<std::mutex> lock(g.mutex());
      ops::call<ops::OpId::exponential_>(Device::CPU, q, g);
    }
    NoGradGuard no_grad;
    const Tensor ratio = x / q;
    out = num_samples == 1 ? ratio.argmax(-1, true) : std::get<1>(topk(ratio, num_samples));
  } else {
    if (p.dtype() == kFloat32)
      check_distribution<float>(p);
    else
      check_distribution<double>(p);
    std::lock_guard<std::mutex> lock(g.mutex());
    ops::call<ops::OpId::multinomial>(Device::CPU, out, p, g);
  }
  return input.dim() == 1 ? out.view({num_samples}) : out;
}

Tensor normal(double mean, double std, const Shape& size, ScalarType dtype, Generator* gen) {
  check_size(size, "normal");
  check_floating(dtype, "normal");
  DITTO_CHECK(std >= 0.0, "normal", "expected std >= 0.0, got std=", std);
  Tensor t = empty(size, dtype);
  normal_impl(t, mean, std, gen, "normal");
  return t;
}

Tensor& Tensor::uniform_(double from, double to, Generator* gen) {
  uniform_impl(*this, from, to, gen, "uniform_");
  return *this;
}

Tensor& Tensor::normal_(double mean, double std, Generator* gen) {
  normal_impl(*this, mean, std, gen, "normal_");
  return *this;
}

Tensor& Tensor::bernoulli_(double p, Generator* gen) {
  check_target(*this, "bernoulli_");
  DITTO_CHECK(p >= 0.0 && p <= 1.0, "bernoulli_", "expected p in [0, 1], got p=", p);
  if (numel() == 0) return *this;
  Generator& g = pick(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  ops::call<ops::OpId::bernoulli_>(Device::CPU, *this, p, g);
  return *this;
}

Tensor& Tensor::random_(int64_t from, int64_t to, Generator* gen) {
  DITTO_CHECK(from < to, "random_", "from (", from, ") must be less than to (", to, ")");
  random_impl(*this, from, to, gen, "random_");
  return *this;
}

}  // namespace ditto
