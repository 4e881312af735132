// Matrix products. Accumulation order: Note [GEMM accumulation order] (cpu/gemm.h).
#include "cpu/gemm.h"

#include <cmath>
#include <memory>

#include "cpu/loops.h"
#include "ops/kernels.h"

namespace ditto::cpu {
namespace {

template <class T>
T madd(T a, T b, T acc) {
  if constexpr (std::is_floating_point_v<T>) return std::fma(a, b, acc);
  else if constexpr (std::is_same_v<T, bool>) return acc || (a && b);
  else {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(U(acc) + U(a) * U(b));
  }
}

// C (M, N) row-major contiguous = A (M, K) strided @ B (K, N) strided, each element a sequential
// k chain. Rows of C are independent, so they may be computed by any thread.
template <class T>
void gemm(T* c, const T* a, int64_t sam, int64_t sak, const T* b, int64_t sbk, int64_t sbn, int64_t M, int64_t N,
          int64_t K) {
  // Pack B row-major so the inner loop over j is unit-stride.
  std::unique_ptr<T[]> bp;
  const T* bb = b;
  int64_t ldb = sbk;
  if (sbn != 1) {
    bp.reset(new T[static_cast<std::size_t>(K * N)]);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) bp[k * N + j] = b[k * sbk + j * sbn];
    bb = bp.get();
    ldb = N;
  }
  detail::parallel_for(M, N * K, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      T* ci = c + i * N;
      for (int64_t j = 0; j < N; ++j) ci[j] = T(0);
      for (int64_t k = 0; k < K; ++k) {
        const T aik = a[i * sam + k * sak];
        const T* bk = bb + k * ldb;
        for (int64_t j = 0; j < N; ++j) ci[j] = madd(aik, bk[j], ci[j]);
      }
    }
  });
}

}  // namespace

void bmm(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    const int64_t B = a.size(0), M = a.size(1), K = a.size(2), N = b.size(2);
    T* c = out.data_ptr<T>();
    const T* pa = a.data_ptr<T>();
    const T* pb = b.data_ptr<T>();
    for (int64_t bi = 0; bi < B; ++bi)
      gemm<T>(c + bi * M * N, pa + bi * a.stride(0), a.stride(1), a.stride(2), pb + bi * b.stride(0), b.stride(1),
              b.stride(2), M, N, K);
  });
}

void addmm(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
           const Scalar& alpha) {
  dispatch_dtype(out.dtype(), [&]<class T>() {
    const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
    T* c = out.data_ptr<T>();
    gemm<T>(c, a.data_ptr<T>(), a.stride(0), a.stride(1), b.data_ptr<T>(), b.stride(0), b.stride(1), M, N, K);
    const T be = beta.to<T>(), al = alpha.to<T>();
    const bool beta_one = beta.to_double() == 1.0, alpha_one = alpha.to_double() == 1.0,
               beta_zero = beta.to_double() == 0.0;
    const T* s = self.data_ptr<T>();
    const int64_t ss0 = self.stride(0), ss1 = self.stride(1);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        T acc = c[i * N + j];
        if (!alpha_one) acc = static_cast<T>(al * acc);
        if (beta_zero) {  // beta == 0 ignores self, even NaN in it (as PyTorch)
          c[i * N + j] = acc;
          continue;
        }
        const T sv = beta_one ? s[i * ss0 + j * ss1] : static_cast<T>(be * s[i * ss0 + j * ss1]);
        c[i * N + j] = static_cast<T>(sv + acc);
      }
  });
}

}  // namespace ditto::cpu
