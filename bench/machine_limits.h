#pragma once
// This machine's limits, measured where the benchmarks run, so that bench/compare.py can print
// every GFLOP/s and GB/s as a fraction of what the machine can do: the FMA peak of one core per
// kernel level (12 independent chains of vector FMAs: enough to cover the FMA latency on every
// x86 core ditto meets) and the streaming read bandwidth (a sum over 512 MiB), each with 1 and 2
// threads running at once. About a second in all.
#include <immintrin.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

namespace bench_limits {

using Clock = std::chrono::steady_clock;

// GFLOP/s of one thread's FMA loop: 12 chains of `lanes`-wide FMAs, 2 flops each.
template <class Loop>
double per_thread_gflops(Loop loop, int lanes) {
  constexpr int64_t kIters = int64_t{1} << 25;
  loop(kIters / 16);  // warm up the clock
  const auto t0 = Clock::now();
  const float sink = loop(kIters);
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (sink == 42.0f) std::abort();  // keep the result live
  return double(kIters) * 12 * lanes * 2 / s * 1e-9;
}

__attribute__((target("avx2,fma"))) inline float fma_loop_avx2(int64_t iters) {
  __m256 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm256_set1_ps(1.0f + float(i) * 1e-7f);
  const __m256 b = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
  for (int64_t k = 0; k < iters; ++k)
    for (int i = 0; i < 12; ++i) a[i] = _mm256_fmadd_ps(a[i], b, c);
  float s = 0;
  for (int i = 0; i < 12; ++i) s += _mm256_cvtss_f32(a[i]);
  return s;
}

__attribute__((target("avx512f"))) inline float fma_loop_avx512(int64_t iters) {
  __m512 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm512_set1_ps(1.0f + float(i) * 1e-7f);
  const __m512 b = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
  for (int64_t k = 0; k < iters; ++k)
    for (int i = 0; i < 12; ++i) a[i] = _mm512_fmadd_ps(a[i], b, c);
  float s = 0;
  for (int i = 0; i < 12; ++i) s += _mm512_cvtss_f32(a[i]);
  return s;
}

inline float fma_loop_scalar(int64_t iters) {
  volatile float keep = 0;
  float a[12];
  for (int i = 0; i < 12; ++i) a[i] = 1.0f + float(i) * 1e-7f;
  for (int64_t k = 0; k < iters / 4; ++k)  // scalar fma is a libm call or one instruction: fewer
    for (int i = 0; i < 12; ++i) a[i] = __builtin_fmaf(a[i], 0.9999999f, 1e-7f);
  for (int i = 0; i < 12; ++i) keep = keep + a[i];
  return keep;
}

// The summed GFLOP/s of `threads` threads each running the loop at once.
template <class Loop>
double peak_gflops(Loop loop, int lanes, int threads) {
  std::vector<double> each(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { each[static_cast<std::size_t>(t)] = per_thread_gflops(loop, lanes); });
  for (std::thread& th : pool) th.join();
  double sum = 0;
  for (double g : each) sum += g;
  return sum;
}

__attribute__((target("avx2"))) inline float sum_avx2(const float* p, std::size_t n) {
  __m256 s[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  for (std::size_t i = 0; i + 32 <= n; i += 32)
    for (int j = 0; j < 4; ++j) s[j] = _mm256_add_ps(s[j], _mm256_loadu_ps(p + i + 8 * j));
  return _mm256_cvtss_f32(_mm256_add_ps(_mm256_add_ps(s[0], s[1]), _mm256_add_ps(s[2], s[3])));
}

// GB/s reading a 64 MiB array (the size of the bandwidth-bound workloads' inputs: 16M floats),
// touched first, with `threads` threads started once, each reading its own part of every pass
// between two barriers; the best of 8 passes.
inline double stream_gbps(int threads) {
  const std::size_t n = (std::size_t(64) << 20) / sizeof(float);
  std::vector<float> data(n, 1.0f);
  std::vector<float> sums(static_cast<std::size_t>(threads));
  const bool avx2 = __builtin_cpu_supports("avx2");
  constexpr int kPasses = 9;
  std::barrier sync(threads);
  double best = 0;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const std::size_t lo = n / threads * t, hi = t + 1 == threads ? n : n / threads * (t + 1);
      for (int pass = 0; pass < kPasses; ++pass) {
        sync.arrive_and_wait();
        const auto t0 = Clock::now();
        float s = 0;
        if (avx2) {
          s = sum_avx2(data.data() + lo, hi - lo);
        } else {
          for (std::size_t i = lo; i < hi; i += 16) s += data[i];  // one float a cache line
        }
        sums[static_cast<std::size_t>(t)] += s;
        sync.arrive_and_wait();
        if (t == 0 && pass > 0)  // pass 0 warms up
          best = std::max(best,
                          double(n * sizeof(float)) / std::chrono::duration<double>(Clock::now() - t0).count() * 1e-9);
      }
    });
  for (std::thread& th : pool) th.join();
  if (sums[0] == 42.0f) std::abort();
  return best;
}

}  // namespace bench_limits
