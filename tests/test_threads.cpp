// The same bits for any thread count: a reduction-heavy sequence run under 1, 2, 3 and 8 threads.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ditto/ditto.h"
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
