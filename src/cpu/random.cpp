// The random draws: PyTorch 1.13's CPU streams (docs/spec/pytorch-cpu-rng.md), element by element
// in TensorIterator order (ascending address for any non-overlapping tensor). The distribution
// cores are in cpu/random_impl.h; the contiguous fills are built per level (the scalar line
// below, cpu/random_avx2.cpp), every level gives the same bits and the AVX-512 level runs the
// AVX2 build. The caller (src/random/distributions.cpp) validates the arguments and holds g's mutex.
//
// Note [glibc dependence]: the double Box-Muller paths (path S for every dtype, and the float64
// 16-block fill) call the platform's log and sincos, as PyTorch does. PyTorch on AVX2 machines
// gets glibc's FMA builds of them (picked by ifunc). glibc's SSE2 builds, used on CPUs without
// FMA, differ in about 0.07% of float64 normals; float32 normals were unchanged in 2M draws.
// exponential draws (multinomial's) call log in double the same way. Everything else here is
// exact IEEE arithmetic and identical on every CPU.
#include "cpu/decl/random.h"

#include <cmath>
#include <type_traits>
#include <vector>

#include "core/dtype_dispatch.h"
#include "cpu/capability.h"
#include "cpu/random_impl.h"

DITTO_RANDOM_LEVEL(scalar, F32x1)

namespace ditto::cpu {
namespace {

using namespace ::ditto::detail;

// Calls f(offset) for each element of t, offsets in elements from t.raw_data().
template <class F>
void for_each_offset(const TensorBase& t, F&& f) {
  const std::array<const Shape*, 1> st{&t.strides()};
  for_each_element<1>(t.sizes(), st, [&](const std::array<int64_t, 1>& o) { f(o[0]); });
}

bool contiguous(const TensorBase& t) { return is_contiguous_geometry(t.sizes(), t.strides()); }

template <class T>
using Fill = void (*)(T*, int64_t, T, T, Generator&);

}  // namespace

void uniform(const TensorBase& t, double from, double to, Generator& g) {
  const int64_t n = t.numel();
  if (t.dtype() == kFloat32) {
    const float a = static_cast<float>(from), d = static_cast<float>(to) - a;
    float* p = static_cast<float*>(t.raw_data());
    if (!contiguous(t))
      for_each_offset(t, [&](int64_t o) { p[o] = uniform_f32(g, a, d); });
    else
      by_level<Fill<float>>(&uniform_fill_f32_scalar, &uniform_fill_f32_avx2, &uniform_fill_f32_avx2)(p, n, a, d, g);
  } else {
    const double d = to - from;
    double* p = static_cast<double*>(t.raw_data());
    if (!contiguous(t))
      for_each_offset(t, [&](int64_t o) { p[o] = uniform_f64(g, from, d); });
    else
      by_level<Fill<double>>(&uniform_fill_f64_scalar, &uniform_fill_f64_avx2, &uniform_fill_f64_avx2)(p, n, from, d,
                                                                                                       g);
  }
}

void normal(const TensorBase& t, double mean, double std, Generator& g) {
  const int64_t n = t.numel();
  // Path choice as in ATen's normal_kernel: the 16-block fill only for contiguous n >= 16.
  const bool fill = n >= 16 && contiguous(t);
  core::dispatch_floating(t.dtype(), [&]<class T>() {
    T* p = static_cast<T*>(t.raw_data());
    if (!fill) {
      for_each_offset(t, [&](int64_t o) { p[o] = static_cast<T>(normal_scalar(g, mean, std)); });
    } else if constexpr (std::is_same_v<T, float>) {
      by_level<Fill<float>>(&normal_fill_f32_scalar, &normal_fill_f32_avx2, &normal_fill_f32_avx2)(
          p, n, static_cast<float>(mean), static_cast<float>(std), g);
    } else {
      by_level<Fill<double>>(&normal_fill_f64_scalar, &normal_fill_f64_avx2, &normal_fill_f64_avx2)(p, n, mean, std, g);
    }
  });
}

void random_from_to(const TensorBase& t, int64_t from, int64_t to, Generator& g) {
  const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  // 64-bit draws only exist for int64, float32 and float64 outputs (spec §4).
  const ScalarType dt = t.dtype();
  const bool wide = dt == kInt64 || dt == kFloat32 || dt == kFloat64;
  core::dispatch_dtype(dt, [&]<class T>() {
    T* p = static_cast<T*>(t.raw_data());
    for_each_offset(t, [&](int64_t o) { p[o] = static_cast<T>(uniform_int_from_to(g, range, from, wide)); });
  });
}

void bernoulli_scalar(const TensorBase& t, double p, Generator& g) {
  core::dispatch_dtype(t.dtype(), [&]<class T>() {
    T* out = static_cast<T*>(t.raw_data());
    for_each_offset(t, [&](int64_t o) { out[o] = static_cast<T>(u53(g.random64()) < p); });
  });
}

void bernoulli_tensor(const TensorBase& out, const TensorBase& p, Generator& g) {
  core::dispatch_floating(p.dtype(), [&]<class P>() {
    P* o = static_cast<P*>(out.raw_data());
    const P* pp = static_cast<const P*>(p.raw_data());
    const std::array<const Shape*, 2> st{&out.strides(), &p.strides()};
    for_each_element<2>(out.sizes(), st, [&](const std::array<int64_t, 2>& off) {
      // float p: one word, compared in float; double p: two words, compared in double.
      bool v;
      if constexpr (std::is_same_v<P, float>)
        v = u24(g.random()) < pp[off[1]];
      else
        v = u53(g.random64()) < pp[off[1]];
      o[off[0]] = static_cast<P>(v);
    });
  });
}

void exponential(const TensorBase& t, Generator& g) {
  // PyTorch's exponential_(1) of one element: -log(1 - U53) in double (two words), then the dtype.
  core::dispatch_floating(t.dtype(), [&]<class T>() {
    T* d = static_cast<T*>(t.raw_data());
    for_each_offset(t, [&](int64_t o) { d[o] = static_cast<T>(-1.0 * std::log(1.0 - u53(g.random64()))); });
  });
}

void randperm(const TensorBase& t, Generator& g) {
  const int64_t n = t.numel();
  core::dispatch_dtype(t.dtype(), [&]<class T>() {
    T* r = static_cast<T*>(t.raw_data());
    const int64_t s = t.dim() == 1 ? t.stride(0) : 1;
    for (int64_t i = 0; i < n; ++i) r[i * s] = static_cast<T>(i);
    // PyTorch 1.13's swap shuffle for every n (2.x switches to inside-out for huge n).
    for (int64_t i = 0; i + 1 < n; ++i) {
      const int64_t z = static_cast<int64_t>(g.random() % static_cast<uint64_t>(n - i));
      std::swap(r[i * s], r[(i + z) * s]);
    }
  });
}

void multinomial_with_replacement(const TensorBase& out, const TensorBase& p, Generator& g) {
  // PyTorch's with-replacement kernel for each row: the running sum of the row in its dtype,
  // divided by the total, the last entry set to 1; each sample a U53 draw placed by binary search
  // (the first entry >= it).
  const int64_t rows = p.size(0), C = p.size(1), n_sample = out.size(1);
  core::dispatch_floating(p.dtype(), [&]<class T>() {
    std::vector<T> cum(static_cast<std::size_t>(C));
    int64_t* o = static_cast<int64_t*>(out.raw_data());
    const T* base = static_cast<const T*>(p.raw_data());
    for (int64_t i = 0; i < rows; ++i) {
      T sum = 0;
      for (int64_t j = 0; j < C; ++j) cum[j] = sum += base[i * p.stride(0) + j * p.stride(1)];
      for (T& c : cum) c /= sum;
      cum[C - 1] = 1;
      for (int64_t s = 0; s < n_sample; ++s) {
        const double u = u53(g.random64());
        int64_t lo = 0, hi = C;
        while (hi - lo > 0) {
          const int64_t mid = lo + (hi - lo) / 2;
          if (cum[mid] < u)
            lo = mid + 1;
          else
            hi = mid;
        }
        o[i * out.stride(0) + s * out.stride(1)] = lo;
      }
    }
  });
}

}  // namespace ditto::cpu
