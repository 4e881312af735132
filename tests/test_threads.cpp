// The same bits for any thread count: a reduction-heavy sequence run under 1, 2, 3 and 8 threads.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>

#include "core/parallel.h"
#include "ditto/ditto.h"
#include "ditto/fingerprint.h"
#include "guards.h"

using namespace ditto;

namespace {

std::vector<Tensor> workload() {
  std::mt19937 g(123);
  std::normal_distribution<float> d;
  std::vector<float> big(4000003), mat(700 * 900);
  for (auto& x : big) x = d(g);
  for (auto& x : mat) x = d(g);
  Tensor x = from_vector(big, {4000003});
  Tensor m = from_vector(mat, {700, 900});
  Tensor w = m.slice(0, 0, 300).t().contiguous();  // (900, 300)
  std::vector<Tensor> out;
  out.push_back(x.sum());
  out.push_back(x.mean());
  out.push_back(x.to(kFloat64).sum());
  out.push_back(x.var());
  out.push_back(m.sum({0}));
  out.push_back(m.sum({1}));
  out.push_back(m.t().sum({1}, true));
  out.push_back(m.std({0}));
  out.push_back(m.softmax(1));
  out.push_back(m.log_softmax(0));
  out.push_back(m.mm(w));
  out.push_back((m.mm(w).tanh() * 2).sum({0}));
  out.push_back(amax(m, {1}));
  out.push_back(std::get<1>(m.max(0)));
  out.push_back(m.abs().prod(1));
  return out;
}

}  // namespace

TEST(Threads, SetAndGet) {
  ditto::testing::ConfigGuard g;
  set_num_threads(3);
  EXPECT_EQ(get_num_threads(), 3);
  EXPECT_THROW(set_num_threads(0), Error);
}

TEST(Threads, ReductionsGiveTheSameBitsForAnyThreadCount) {
  ditto::testing::ConfigGuard g;
  set_num_threads(1);
  const std::vector<Tensor> ref = workload();
  for (int t : {2, 3, 8}) {
    set_num_threads(t);
    const std::vector<Tensor> got = workload();
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) EXPECT_TRUE(equal(got[i], ref[i])) << "entry " << i << " threads " << t;
  }
}

// ditto's pool (Note [Thread pool] in src/core/parallel.cpp): every index of the range runs once,
// a chunk's exception reaches the caller (and the pool still works after it), ops from several
// user threads at once, and a child made by fork() runs parallel ops with a pool of its own.
TEST(Threads, ThePoolRunsEveryIndexOnceAndPassesExceptionsOn) {
  ditto::testing::ConfigGuard g;
  for (int threads : {2, 3, 8}) {
    set_num_threads(threads);
    std::vector<std::atomic<int>> seen(100003);
    ditto::detail::parallel_for(static_cast<int64_t>(seen.size()), 1000, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) seen[static_cast<std::size_t>(i)].fetch_add(1);
    });
    for (const auto& s : seen) ASSERT_EQ(s.load(), 1) << threads << " threads";
    // Many short jobs back to back, of changing lengths: a worker that wakes after its job ended
    // must not run a chunk of the next one with the old job's range (the caller waits for the
    // chunks, not for the workers; the counter carries the job's generation).
    std::vector<int> count(64);
    for (int job = 0; job < 4000; ++job) {
      const int64_t n = 2 + job % 63;
      ditto::detail::parallel_for(n, 1 << 20, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) ++count[static_cast<std::size_t>(i)];  // each index owned by one chunk
      });
      for (int64_t i = 0; i < 64; ++i) {
        ASSERT_EQ(count[static_cast<std::size_t>(i)], i < n ? 1 : 0) << "job " << job << ", index " << i;
        count[static_cast<std::size_t>(i)] = 0;
      }
    }
    EXPECT_THROW(ditto::detail::parallel_for(1000, 1000,
                                             [&](int64_t b, int64_t) {
                                               if (b > 0) throw Error("[test] a chunk failed");
                                             }),
                 Error);
  }
  set_num_threads(3);
  const Tensor x = ditto::randn({1 << 20});
  const std::string want = fingerprint_hex(fingerprint(x.exp().sum()));
  std::vector<std::thread> users;
  std::vector<std::string> got(4);
  for (int t = 0; t < 4; ++t) users.emplace_back([&, t] { got[t] = fingerprint_hex(fingerprint(x.exp().sum())); });
  for (auto& u : users) u.join();
  for (const std::string& h : got) EXPECT_EQ(h, want);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);  // a pool waiting for the parent's workers would hang: fail instead
    const bool same = fingerprint_hex(fingerprint(x.exp().sum())) == want;
    std::_Exit(same ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}
