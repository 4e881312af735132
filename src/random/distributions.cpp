// Random tensor ops with PyTorch 1.13's CPU streams (AVX2 flavour). The cores are in
// kernels.h; this file validates input, picks the generator, locks it and walks elements in
// TensorIterator order (ascending address for any non-overlapping tensor).
//
// Note [glibc dependence]: the double Box-Muller paths (path S for every dtype, and the float64
// 16-block fill) call the platform's log and sincos, as PyTorch does. PyTorch on AVX2 machines
// gets glibc's FMA builds of them (picked by ifunc). glibc's SSE2 builds, used on CPUs without
// FMA, differ in about 0.07% of float64 normals; float32 normals were unchanged in 2M draws.
// exponential draws (multinomial's) call log in double the same way. Everything else here is
// exact IEEE arithmetic and identical on every CPU.
#include <cmath>
#include <limits>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <vector>

#include "autograd/graph.h"
#include "core/audit_hooks.h"
#include "cpu/capability.h"
#include "ditto/factory.h"
#include "ditto/ops.h"
#include "ditto/random.h"
#include "random/kernels.h"

namespace ditto {
namespace {

Generator& pick(Generator* gen) { return gen ? *gen : default_generator(); }

// The AVX2 builds of the fills only inline std::fma; every level gives the same bits.
bool use_avx2() { return cpu_capability() != CpuCapability::Scalar; }

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
  detail::AuditWrite audit(op, t, {from, to});
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
  const bool contiguous = detail::is_contiguous_geometry(t.sizes(), t.strides());
  const int64_t n = t.numel();
  if (f32) {
    const float a = static_cast<float>(from);
    const float d = static_cast<float>(to) - a;
    float* p = static_cast<float*>(t.raw_data());
    if (!contiguous)
      for_each_offset(t, [&](int64_t o) { p[o] = detail::uniform_f32(g, a, d); });
    else if (use_avx2())
      detail::uniform_fill_f32_avx2(p, n, a, d, g);
    else
      detail::uniform_fill_f32(p, n, a, d, g);
  } else {
    const double d = to - from;
    double* p = static_cast<double*>(t.raw_data());
    if (!contiguous)
      for_each_offset(t, [&](int64_t o) { p[o] = detail::uniform_f64(g, from, d); });
    else if (use_avx2())
      detail::uniform_fill_f64_avx2(p, n, from, d, g);
    else
      detail::uniform_fill_f64(p, n, from, d, g);
  }
}

// --- normal

template <class T>
void normal_scalar_path(const Tensor& t, double mean, double std, Generator& g) {
  T* p = static_cast<T*>(t.raw_data());
  for_each_offset(t, [&](int64_t o) { p[o] = static_cast<T>(detail::normal_scalar(g, mean, std)); });
}

void normal_impl(const Tensor& t, double mean, double std, Generator* gen, const char* op) {
  check_target(t, op);
  check_floating(t.dtype(), op);
  DITTO_CHECK(std >= 0.0, op, "expected std >= 0.0, got std=", std);
  const int64_t n = t.numel();
  detail::AuditWrite audit(op, t, {mean, std});
  if (n == 0) return;
  Generator& g = pick(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  // Path choice as in ATen's normal_kernel: the 16-block fill only for contiguous n >= 16.
  const bool fill = n >= 16 && detail::is_contiguous_geometry(t.sizes(), t.strides());
  if (t.dtype() == kFloat32) {
    float* p = static_cast<float*>(t.raw_data());
    const float m = static_cast<float>(mean), s = static_cast<float>(std);
    if (!fill)
      normal_scalar_path<float>(t, mean, std, g);
    else if (use_avx2())
      detail::normal_fill_f32_avx2(p, n, m, s, g);
    else
      detail::normal_fill_f32(p, n, m, s, g);
  } else {
    double* p = static_cast<double*>(t.raw_data());
    if (!fill)
      normal_scalar_path<double>(t, mean, std, g);
    else if (use_avx2())
      detail::normal_fill_f64_avx2(p, n, mean, std, g);
    else
      detail::normal_fill_f64(p, n, mean, std, g);
  }
}

// --- integers

template <class T>
void random_from_to_typed(const Tensor& t, uint64_t range, int64_t base, bool wide, Generator& g) {
  T* p = static_cast<T*>(t.raw_data());
  for_each_offset(t, [&](int64_t o) { p[o] = static_cast<T>(detail::uniform_int_from_to(g, range, base, wide)); });
}

void random_impl(const Tensor& t, int64_t from, int64_t to, Generator* gen, const char* op) {
  check_target(t, op);
  detail::AuditWrite audit(op, t, {static_cast<double>(from), static_cast<double>(to)});
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
  const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  // 64-bit draws only exist for int64, float32 and float64 outputs (spec §4).
  const bool wide = dt == kInt64 || dt == kFloat32 || dt == kFloat64;
  Generator& g = pick(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  switch (dt) {
    case kBool: random_from_to_typed<bool>(t, range, from, wide, g); break;
    case kInt32: random_from_to_typed<int32_t>(t, range, from, wide, g); break;
    case kInt64: random_from_to_typed<int64_t>(t, range, from, wide, g); break;
    case kFloat32: random_from_to_typed<float>(t, range, from, wide, g); break;
    case kFloat64: random_from_to_typed<double>(t, range, from, wide, g); break;
  }
}

// --- bernoulli

template <class T>
void bernoulli_scalar_typed(const Tensor& t, double p, Generator& g) {
  T* out = static_cast<T*>(t.raw_data());
  for_each_offset(t, [&](int64_t o) { out[o] = static_cast<T>(detail::u53(g.random64()) < p); });
}

template <class P>
void bernoulli_tensor_typed(const Tensor& out, const Tensor& p, Generator& g) {
  P* o = static_cast<P*>(out.raw_data());
  const P* pp = static_cast<const P*>(p.raw_data());
  const std::array<const Shape*, 2> st{&out.strides(), &p.strides()};
  detail::for_each_element<2>(out.sizes(), st, [&](const std::array<int64_t, 2>& off) {
    // float p: one word, compared in float; double p: two words, compared in double.
    bool v;
    if constexpr (std::is_same_v<P, float>)
      v = detail::u24(g.random()) < pp[off[1]];
    else
      v = detail::u53(g.random64()) < pp[off[1]];
    o[off[0]] = static_cast<P>(v);
  });
}

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
  detail::AuditWrite audit("randperm", t);
  auto run = [&](auto* r) {
    using T = std::remove_pointer_t<decltype(r)>;
    for (int64_t i = 0; i < n; ++i) r[i] = static_cast<T>(i);
    if (n <= 1) return;
    Generator& g = pick(gen);
    std::lock_guard<std::mutex> lock(g.mutex());
    // PyTorch 1.13's swap shuffle for every n (2.x switches to inside-out for huge n).
    for (int64_t i = 0; i < n - 1; ++i) {
      const int64_t z = static_cast<int64_t>(g.random() % static_cast<uint64_t>(n - i));
      std::swap(r[i], r[i + z]);
    }
  };
  switch (dtype) {
    case kInt32: run(t.data_ptr<int32_t>()); break;
    case kInt64: run(t.data_ptr<int64_t>()); break;
    case kFloat32: run(t.data_ptr<float>()); break;
    case kFloat64: run(t.data_ptr<double>()); break;
    case kBool: break;
  }
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
  if (out.numel() == 0) return out;
  detail::AuditWrite audit("bernoulli", out);
  Generator& g = pick(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  if (p.dtype() == kFloat32)
    bernoulli_tensor_typed<float>(out, p, g);
  else
    bernoulli_tensor_typed<double>(out, p, g);
  return out;
}

namespace {
// PyTorch's exponential_(1) of one element: -log(1 - U53) in double (two words), then the dtype.
double exponential1(Generator& g) { return -1.0 * std::log(1.0 - detail::u53(g.random64())); }

// PyTorch's with-replacement kernel for each row: the running sum of the row in its dtype,
// divided by the total, the last entry set to 1; each sample a U53 draw placed by binary search
// (the first entry >= it).
template <class T>
void multinomial_with_replacement(const Tensor& out, const Tensor& p, int64_t n_sample, Generator& g) {
  const int64_t rows = p.size(0), C = p.size(1);
  std::vector<T> cum(static_cast<std::size_t>(C));
  int64_t* o = out.data_ptr<int64_t>();
  const T* base = static_cast<const T*>(p.raw_data());
  for (int64_t i = 0; i < rows; ++i) {
    T sum = 0;
    for (int64_t j = 0; j < C; ++j) {
      const T v = base[i * p.stride(0) + j * p.stride(1)];
      DITTO_CHECK(v >= 0, "multinomial", "invalid multinomial distribution (encountering probability entry < 0)");
      DITTO_CHECK(std::isfinite(v), "multinomial",
                  "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
      sum += v;
      cum[j] = sum;
    }
    DITTO_CHECK(sum > 0, "multinomial", "invalid multinomial distribution (sum of probabilities <= 0)");
    for (T& c : cum) c /= sum;
    cum[C - 1] = 1;
    for (int64_t s = 0; s < n_sample; ++s) {
      const double u = detail::u53(g.random64());
      int64_t lo = 0, hi = C;
      while (hi - lo > 0) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (cum[mid] < u)
          lo = mid + 1;
        else
          hi = mid;
      }
      o[i * n_sample + s] = lo;
    }
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
      detail::AuditWrite audit_q("exponential_", q);
      std::lock_guard<std::mutex> lock(g.mutex());
      if (q.dtype() == kFloat32) {
        float* d = q.data_ptr<float>();
        for_each_offset(q, [&](int64_t o) { d[o] = static_cast<float>(exponential1(g)); });
      } else {
        double* d = q.data_ptr<double>();
        for_each_offset(q, [&](int64_t o) { d[o] = exponential1(g); });
      }
    }
    NoGradGuard no_grad;
    const Tensor ratio = x / q;
    out = num_samples == 1 ? ratio.argmax(-1, true) : std::get<1>(topk(ratio, num_samples));
  } else {
    detail::AuditWrite audit("multinomial", out);
    std::lock_guard<std::mutex> lock(g.mutex());
    if (p.dtype() == kFloat32)
      multinomial_with_replacement<float>(out, p, num_samples, g);
    else
      multinomial_with_replacement<double>(out, p, num_samples, g);
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
  detail::AuditWrite audit("bernoulli_", *this, {p});
  Generator& g = pick(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  switch (dtype()) {
    case kBool: bernoulli_scalar_typed<bool>(*this, p, g); break;
    case kInt32: bernoulli_scalar_typed<int32_t>(*this, p, g); break;
    case kInt64: bernoulli_scalar_typed<int64_t>(*this, p, g); break;
    case kFloat32: bernoulli_scalar_typed<float>(*this, p, g); break;
    case kFloat64: bernoulli_scalar_typed<double>(*this, p, g); break;
  }
  return *this;
}

Tensor& Tensor::random_(int64_t from, int64_t to, Generator* gen) {
  DITTO_CHECK(from < to, "random_", "from (", from, ") must be less than to (", to, ")");
  random_impl(*this, from, to, gen, "random_");
  return *this;
}

}  // namespace ditto
