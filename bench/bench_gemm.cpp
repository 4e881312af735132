// sgemm / dgemm throughput through the public API (ditto::mm): C (M, N) = A (M, K) @ B (K, N),
// at the run-time kernel level (DITTO_CPU_CAPABILITY to force one) and a given thread count.
//   bench_gemm --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Reports GFLOP/s (2*M*N*K per product) as the counter "GFLOPS".
#include <benchmark/benchmark.h>

#include "ditto/capability.h"
#include "ditto/ditto.h"

namespace {

void run(benchmark::State& state, ditto::ScalarType dtype) {
  const int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  const int saved = ditto::get_num_threads();
  ditto::set_num_threads(threads);
  ditto::manual_seed(0);
  const ditto::Tensor a = ditto::randn({M, K}, dtype), b = ditto::randn({K, N}, dtype);
  for (auto _ : state) {
    ditto::Tensor c = ditto::mm(a, b);
    benchmark::DoNotOptimize(c);
  }
  ditto::set_num_threads(saved);
  state.counters["GFLOPS"] =
      benchmark::Counter(2e-9 * double(M) * double(N) * double(K), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(ditto::cpu_capability_name());
}

void BM_sgemm(benchmark::State& state) { run(state, ditto::kFloat32); }
void BM_dgemm(benchmark::State& state) { run(state, ditto::kFloat64); }

// Args: M, N, K, threads.
BENCHMARK(BM_sgemm)
    ->ArgNames({"M", "N", "K", "threads"})
    ->Args({1024, 1024, 1024, 1})
    ->Args({1024, 1024, 1024, 2})
    ->Args({256, 1024, 512, 1})
    ->Args({256, 1024, 512, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_dgemm)
    ->ArgNames({"M", "N", "K", "threads"})
    ->Args({1024, 1024, 1024, 1})
    ->Args({1024, 1024, 1024, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
