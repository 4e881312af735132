// dmath array entry points at the AVX2+FMA level (built with -mavx2 -mfma; called only after the
// run-time check in cpu/capability.h).
#include "cpu/dmath.h"
#include "cpu/dmath_impl.h"

namespace ditto::dmath {
using simd::F32x8;
using simd::F64x4;

#define DITTO_DMATH_DEFINE(fn)                                            \
  void fn##_f32_avx2(const float* x, float* y, int64_t n) {               \
    impl::map_unary<F32x8>(x, y, n, [](F32x8 v) { return impl::fn(v); }); \
  }                                                                       \
  void fn##_f64_avx2(const double* x, double* y, int64_t n) {             \
    impl::map_unary<F64x4>(x, y, n, [](F64x4 v) { return impl::fn(v); }); \
  }
DITTO_DMATH_UNARY_FUNCTIONS(DITTO_DMATH_DEFINE)
#undef DITTO_DMATH_DEFINE

void pow_f32_avx2(const float* x, const float* y, float* out, int64_t n) {
  impl::map_binary_f32_via_f64<F64x4>(x, y, out, n, [](F64x4 a, F64x4 b) { return impl::pow<F64x4, true>(a, b); });
}
void pow_f64_avx2(const double* x, const double* y, double* out, int64_t n) {
  impl::map_binary<F64x4>(x, y, out, n, [](F64x4 a, F64x4 b) { return impl::pow(a, b); });
}

}  // namespace ditto::dmath
