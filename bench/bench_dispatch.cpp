// What ditto::audit costs when it is off: the dispatcher's path with its one relaxed atomic load
// (ops::call) against the same kernel called straight (ops::kernel), on a one-element neg, the
// smallest kernel there is, so that the difference is the whole of the check (docs/audit.md).
//   build/bench/bench_dispatch --benchmark_repetitions=9 --benchmark_enable_random_interleaving=true
#include <benchmark/benchmark.h>

#include "ditto/audit.h"
#include "ditto/ditto.h"
#include "ops/dispatch.h"

namespace {

void dispatched(benchmark::State& state) {
  const ditto::Tensor in = ditto::randn({1}), out = ditto::empty({1});
  for (auto _ : state) {
    ditto::ops::call<ditto::ops::OpId::neg>(in.device(), out, in);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(dispatched);

void straight(benchmark::State& state) {
  const ditto::Tensor in = ditto::randn({1}), out = ditto::empty({1});
  for (auto _ : state) {
    ditto::ops::kernel<ditto::ops::OpId::neg>(in.device())(out, in);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(straight);

}  // namespace
