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
// the others wait for its fixed share. The caller waits for the last chunk to finish, not for
// every worker to check in: a worker still descheduled when the chunks ran out has nothing to
// do with this job (the chunk counter carries the job's generation, so it cannot take a later
// job's chunk for this one). Which thread runs a chunk changes nothing: parallel_for's
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
    const int64_t chunks = (n + per - 1) / per;
    fn_ = &fn, n_ = n, per_ = per;
    error_ = nullptr;
    done_.store(0, std::memory_order_relaxed);
    const uint64_t gen = ((state_.load(std::memory_order_relaxed) >> 16) + 1) & kGenMask;
    // the job's chunks, published with its fields: a worker that claims one sees them whole
    next_.store(gen << 40 | static_cast<uint64_t>(chunks) << 20, std::memory_order_release);
    // the generation and the job's thread count in one word, for the sleeping workers
    state_.store(gen << 16 | static_cast<uint64_t>(threads), std::memory_order_release);
    state_.notify_all();
    drain(gen);
    // wait for the chunks, not the workers: one that was descheduled before it took a chunk
    // does not hold the caller up
    const int total = static_cast<int>(chunks);
    for (int i = 0; i < kSpin && done_.load(std::memory_order_acquire) != total; ++i) pause();
    for (int d; (d = done_.load(std::memory_order_acquire)) != total;) done_.wait(d);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  static constexpr uint64_t kGenMask = (uint64_t{1} << 24) - 1;
  static constexpr uint64_t kField = (uint64_t{1} << 20) - 1;

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
  // Takes job gen's chunks one at a time until none is left. next_ holds the generation, the
  // job's chunk count and the next chunk in one word, so a claim succeeds only for a chunk of
  // gen's job that nobody took; while it runs, the job cannot end, so its fields stay put.
  void drain(uint64_t gen) {
    t_in_chunk = true;
    uint64_t v = next_.load(std::memory_order_acquire);
    for (;;) {
      if ((v >> 40) != gen || (v & kField) >= ((v >> 20) & kField)) break;
      if (!next_.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
      const int64_t c = static_cast<int64_t>(v & kField), b = c * per_, e = b + per_ < n_ ? b + per_ : n_;
      const int total = static_cast<int>((v >> 20) & kField);
      try {
        (*fn_)(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu_);
        if (!error_) error_ = std::current_exception();
      }
      if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == total) done_.notify_one();
      v = next_.load(std::memory_order_acquire);
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
      if (t < static_cast<int>(s & 0xffff)) drain(seen);
    }
  }

  std::mutex job_mu_, error_mu_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> state_{0};
  std::atomic<uint64_t> next_{0};
  std::atomic<int> done_{0};
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0, per_ = 0;
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

namespace {
std::atomic<uint64_t> g_side_by_side{0};
}  // namespace

uint64_t side_by_side_count() { return g_side_by_side.load(std::memory_order_relaxed); }

void run_side_by_side(const std::function<void()>& a, const std::function<void()>& b) {
  if (num_threads() < 2 || t_in_chunk) {
    a();
    b();
    return;
  }
  g_side_by_side.fetch_add(1, std::memory_order_relaxed);
  // two items of a cost that always splits: the caller takes one, a worker the other (or the
  // caller both, if the worker is slow to wake)
  parallel_for(2, INT64_MAX / 2, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) (i == 0 ? a : b)();
  });
}

}  // namespace detail
}  // namespace ditto
