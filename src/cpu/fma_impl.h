#pragma once
// Elementwise kernels with a fused multiply-add (the optimizers' updates), written once over the
// SIMD abstraction in cpu/simd.h and instantiated per level (cpu/fma_kernels.cpp, *_avx2.cpp,
// *_avx512.cpp). fma is rounded once at every level (std::fma at the scalar level), so each
// element has the same bits at every level; the formulas are those of cpu/elementwise.cpp and
// cpu/pointwise.cpp, which use these for contiguous operands.
#include <cstdint>

#include "cpu/simd.h"

namespace ditto::cpu::fma_impl {
inline namespace DITTO_SIMD_ISA {

using namespace ::ditto::simd;
template <class V>
using S = typename V::Scalar;

template <class V, class F>
inline void map2(const S<V>* x, const S<V>* y, S<V>* out, int64_t n, F f) {
  int64_t i = 0;
  for (; i + V::N <= n; i += V::N) store(out + i, f(V::load(x + i), V::load(y + i)));
  if (i < n)
    store_partial(out + i, f(V::load_partial(x + i, int(n - i)), V::load_partial(y + i, int(n - i))), int(n - i));
}
template <class V, class F>
inline void map3(const S<V>* x, const S<V>* y, const S<V>* z, S<V>* out, int64_t n, F f) {
  int64_t i = 0;
  for (; i + V::N <= n; i += V::N) store(out + i, f(V::load(x + i), V::load(y + i), V::load(z + i)));
  if (i < n) {
    const int r = int(n - i);
    store_partial(out + i, f(V::load_partial(x + i, r), V::load_partial(y + i, r), V::load_partial(z + i, r)), r);
  }
}

// out = x + alpha * y, as fma(y, alpha, x).
template <class V>
inline void add_scaled(const S<V>* x, const S<V>* y, S<V> alpha, S<V>* out, int64_t n) {
  const V a(alpha);
  map2<V>(x, y, out, n, [a](V u, V v) { return fma(v, a, u); });
}
// out = lerp(x, y, w): fma(w, y - x, x) for |w| < 0.5, else fma(w - 1, y - x, y).
template <class V>
inline void lerp(const S<V>* x, const S<V>* y, S<V> w, S<V>* out, int64_t n) {
  if (w < S<V>(0.5) && w > S<V>(-0.5)) {
    const V vw(w);
    map2<V>(x, y, out, n, [vw](V u, V v) { return fma(vw, v - u, u); });
  } else {
    const V vw(w - S<V>(1));
    map2<V>(x, y, out, n, [vw](V u, V v) { return fma(vw, v - u, v); });
  }
}
// out = s + value * x * y, as fma(value * x, y, s).
template <class V>
inline void addcmul(const S<V>* s, const S<V>* x, const S<V>* y, S<V> value, S<V>* out, int64_t n) {
  const V v(value);
  map3<V>(s, x, y, out, n, [v](V a, V b, V c) { return fma(v * b, c, a); });
}

}  // namespace DITTO_SIMD_ISA
}  // namespace ditto::cpu::fma_impl

// The entry points of one level (see cpu/fma_kernels.h).
#define DITTO_FMA_LEVEL_T(level, V, T, sfx)                                                  \
  void add_scaled_##sfx##_##level(const T* x, const T* y, T a, T* out, int64_t n) {          \
    fma_impl::add_scaled<simd::V>(x, y, a, out, n);                                          \
  }                                                                                          \
  void lerp_##sfx##_##level(const T* x, const T* y, T w, T* out, int64_t n) {                \
    fma_impl::lerp<simd::V>(x, y, w, out, n);                                                \
  }                                                                                          \
  void addcmul_##sfx##_##level(const T* s, const T* x, const T* y, T v, T* out, int64_t n) { \
    fma_impl::addcmul<simd::V>(s, x, y, v, out, n);                                          \
  }
#define DITTO_FMA_LEVEL(level, VF, VD)      \
  namespace ditto::cpu::fma_kernels {       \
  DITTO_FMA_LEVEL_T(level, VF, float, f32)  \
  DITTO_FMA_LEVEL_T(level, VD, double, f64) \
  }
