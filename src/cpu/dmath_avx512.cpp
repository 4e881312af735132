// dmath array entry points at the AVX-512 level (built with -mavx512f/dq/bw/vl -mavx2 -mfma;
// called only after the run-time check in cpu/capability.h).
#include "cpu/dmath.h"
#include "cpu/dmath_impl.h"

namespace ditto::dmath {
using simd::F32x16;
using simd::F64x8;

#define DITTO_DMATH_DEFINE(fn)                                              \
  void fn##_f32_avx512(const float* x, float* y, int64_t n) {               \
    impl::map_unary<F32x16>(x, y, n, [](F32x16 v) { return impl::fn(v); }); \
  }                                                                         \
  void fn##_f64_avx512(const double* x, double* y, int64_t n) {             \
    impl::map_unary<F64x8>(x, y, n, [](F64x8 v) { return impl::fn(v); });   \
  }
DITTO_DMATH_UNARY_FUNCTIONS(DITTO_DMATH_DEFINE)
#undef DITTO_DMATH_DEFINE

void pow_f32_avx512(const float* x, const float* y, float* out, int64_t n) {
  impl::map_binary_f32_via_f64<F64x8>(x, y, out, n, [](F64x8 a, F64x8 b) { return impl::pow<F64x8, true>(a, b); });
}
void pow_f64_avx512(const double* x, const double* y, double* out, int64_t n) {
  impl::map_binary<F64x8>(x, y, out, n, [](F64x8 a, F64x8 b) { return impl::pow(a, b); });
}

}  // namespace ditto::dmath
