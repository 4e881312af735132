#include "core/parallel.h"

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ditto/error.h"
#include "ditto/threads.h"

namespace ditto {
namespace {

int initial_threads() {
  if (const char* env = std::getenv("DITTO_NUM_THREADS")) {
    try {
      int n = std::stoi(env);
      if (n >= 1) return n;
    } catch (...) {
    }
    throw Error(std::string("[set_num_threads] DITTO_NUM_THREADS must be a positive integer, got '") + env + "'");
  }
  int n = omp_get_num_procs();
  return n >= 1 ? n : 1;
}

std::atomic<int>& thread_count() {
  static std::atomic<int> n{initial_threads()};
  return n;
}

}  // namespace

void set_num_threads(int n) {
  DITTO_CHECK(n >= 1, "set_num_threads", "expected a positive thread count, got ", n);
  thread_count().store(n);
}

int get_num_threads() { return thread_count().load(); }

namespace detail {

int num_threads() { return get_num_threads(); }

void parallel_for(int64_t n, int64_t cost_per_item, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  constexpr int64_t kMinWork = 32768;  // below this, one thread is faster
  int threads = num_threads();
  int64_t work;  // saturates: a cost estimate past int64 is simply "large"
  if (__builtin_mul_overflow(n, cost_per_item > 0 ? cost_per_item : 1, &work)) work = INT64_MAX;
  if (threads <= 1 || n == 1 || work < kMinWork || omp_in_parallel()) {
    fn(0, n);
    return;
  }
  if (threads > n) threads = static_cast<int>(n);
  const int64_t per = (n + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    const int64_t b = t * per;
    const int64_t e = b + per < n ? b + per : n;
    if (b < e) fn(b, e);
  }
}

}  // namespace detail
}  // namespace ditto
