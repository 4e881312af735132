#include "core/parallel.h"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

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

namespace {

// Note [Thread pool]
// ------------------
// parallel_for runs on ditto's own pool, not an OpenMP team: OpenMP's default waiting spins for
// a long time, and with another process keeping a core busy a spinning thread takes the time
// slices the thread still working needs (a 2-thread step took 15-75x longer under such load).
// The pool's workers, and the caller waiting for them, spin for kSpin pauses (a few
// microseconds: back-to-back regions of one step still find their workers awake, and with 4000
// pauses a busy neighbour made a 2-thread step 1.4-1.9x its 1-thread time) and then sleep on a
// futex (C++20 atomic wait) until the next job or the last chunk. [0, n) is cut into
// kChunksPerThread chunks per thread, which the caller and the workers take in turn from a
// counter: a thread that shares its core with another process takes fewer, instead of making
// the others wait for its fixed share. Which thread runs a chunk changes nothing: parallel_for's
// callers write only what their range owns (core/parallel.h), so the bits depend on neither
// the split nor the pool. One job at a time: a caller that finds the pool busy (another user
// thread's op) runs its whole range itself, and a parallel_for inside a chunk runs inline.
constexpr int kSpin = 100;
constexpr int kChunksPerThread = 4;

inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

thread_local bool t_in_chunk = false;

class Pool {
 public:
  void run(int threads, int64_t n, int64_t per, const std::function<void(int64_t, int64_t)>& fn) {
    std::unique_lock<std::mutex> job(job_mu_, std::try_to_lock);
    if (!job.owns_lock()) {  // another thread's job is running: this range on this thread
      fn(0, n);
      return;
    }
    grow(threads - 1);
    fn_ = &fn, n_ = n, per_ = per, chunks_ = (n + per - 1) / per;
    next_.store(0, std::memory_order_relaxed);
    error_ = nullptr;
    pending_.store(threads - 1, std::memory_order_relaxed);
    // the generation and the job's thread count in one word: a worker that wakes late never
    // reads a count that is not its generation's
    const uint64_t gen = (state_.load(std::memory_order_relaxed) >> 16) + 1;
    state_.store(gen << 16 | static_cast<uint64_t>(threads), std::memory_order_release);
    state_.notify_all();
    drain();
    for (int i = 0; i < kSpin && pending_.load(std::memory_order_acquire) != 0; ++i) pause();
    for (int left; (left = pending_.load(std::memory_order_acquire)) != 0;) pending_.wait(left);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void grow(int workers) {
    // a new worker starts from the generation before this job's, so it takes this job however
    // late it starts
    const uint64_t before = state_.load(std::memory_order_relaxed) >> 16;
    while (static_cast<int>(workers_.size()) < workers) {
      const int id = static_cast<int>(workers_.size());
      workers_.emplace_back([this, id, before] { loop(id + 1, before); });
      workers_.back().detach();  // blocked in a wait when the program ends
    }
  }
  // Takes the job's chunks one at a time until none is left.
  void drain() {
    t_in_chunk = true;
    for (int64_t c; (c = next_.fetch_add(1, std::memory_order_relaxed)) < chunks_;) {
      const int64_t b = c * per_, e = b + per_ < n_ ? b + per_ : n_;
      try {
        (*fn_)(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu_);
        if (!error_) error_ = std::current_exception();
      }
    }
    t_in_chunk = false;
  }
  void loop(int t, uint64_t seen) {
    for (;;) {
      uint64_t s = state_.load(std::memory_order_acquire);
      for (int i = 0; i < kSpin && (s >> 16) == seen; ++i) pause(), s = state_.load(std::memory_order_acquire);
      while ((s >> 16) == seen) {
        state_.wait(s, std::memory_order_acquire);
        s = state_.load(std::memory_order_acquire);
      }
      seen = s >> 16;
      if (t < static_cast<int>(s & 0xffff)) {
        drain();
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
      }
    }
  }

  std::mutex job_mu_, error_mu_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> state_{0};
  std::atomic<int> pending_{0};
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0, per_ = 0, chunks_ = 0;
  std::atomic<int64_t> next_{0};
  std::exception_ptr error_;
};

// Never destroyed: its workers outlive static destruction. A child made by fork() has none of
// them, so it starts a pool of its own.
Pool* g_pool = nullptr;
Pool& pool() {
  static const bool once = [] {
    g_pool = new Pool();
    pthread_atfork(nullptr, nullptr, [] { g_pool = new Pool(); });
    return true;
  }();
  (void)once;
  return *g_pool;
}

}  // namespace

void parallel_for(int64_t n, int64_t cost_per_item, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  constexpr int64_t kMinWork = 32768;  // below this, one thread is faster
  int threads = num_threads();
  int64_t work;  // saturates: a cost estimate past int64 is simply "large"
  if (__builtin_mul_overflow(n, cost_per_item > 0 ? cost_per_item : 1, &work)) work = INT64_MAX;
  if (threads <= 1 || n == 1 || work < kMinWork || t_in_chunk) {
    fn(0, n);
    return;
  }
  if (threads > n) threads = static_cast<int>(n);
  if (threads > 0xffff) threads = 0xffff;
  const int64_t chunks = std::min<int64_t>(n, int64_t{threads} * kChunksPerThread);
  pool().run(threads, n, (n + chunks - 1) / chunks, fn);
}

}  // namespace detail
}  // namespace ditto
