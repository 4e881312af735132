// GEMM: every output element is one std::fma chain over k (Note [GEMM accumulation order] in
// src/cpu/gemm.h), bit for bit, at every kernel level this CPU supports, for any thread count,
// any strides, and whether a row is alone or in a batch.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cpu/capability.h"
#include "cpu/gemm.h"
#include "ditto/ditto.h"
#include "guards.h"

namespace {

using ditto::CpuCapability;

using ditto::testing::ConfigGuard;
using ditto::testing::supported_levels;

// A strided operand: rows x cols logical, element (r, c) at data[r * s0 + c * s1].
template <class T>
struct Operand {
  std::vector<T> data;
  int64_t s0 = 0, s1 = 0;
  const T& at(int64_t r, int64_t c) const { return data[static_cast<std::size_t>(r * s0 + c * s1)]; }
};

enum class Layout { RowMajor, ColMajor, Strided, Broadcast };
const char* layout_name(Layout l) {
  switch (l) {
    case Layout::RowMajor: return "row";
    case Layout::ColMajor: return "col";
    case Layout::Strided: return "strided";
    case Layout::Broadcast: return "broadcast";
  }
  return "?";
}

template <class T>
Operand<T> make_operand(int64_t rows, int64_t cols, Layout layout, std::mt19937& g) {
  Operand<T> o;
  switch (layout) {
    case Layout::RowMajor: o.s0 = cols + 3, o.s1 = 1; break;  // padded leading dimension
    case Layout::ColMajor: o.s0 = 1, o.s1 = rows; break;      // transposed
    case Layout::Strided: o.s0 = 2 * cols + 1, o.s1 = 2; break;
    case Layout::Broadcast: o.s0 = 0, o.s1 = 1; break;  // every row the same (expand)
  }
  const int64_t size = (rows - 1) * o.s0 + (cols - 1) * o.s1 + 1;
  std::normal_distribution<double> d;
  o.data.resize(static_cast<std::size_t>(size));
  for (T& x : o.data) x = static_cast<T>(d(g));
  return o;
}

// The rule itself: acc = C or 0; acc = fma(a[i,k], b[k,j], acc) for k = 0..K-1; NaN canonical.
template <class T>
std::vector<T> reference(const Operand<T>& a, const Operand<T>& b, int64_t M, int64_t N, int64_t K,
                         const std::vector<T>* c0 = nullptr) {
  std::vector<T> c(static_cast<std::size_t>(M * N));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      T acc = c0 ? (*c0)[static_cast<std::size_t>(i * N + j)] : T(0);
      for (int64_t k = 0; k < K; ++k) acc = std::fma(a.at(i, k), b.at(k, j), acc);
      if (K > 0 && std::isnan(acc)) acc = std::numeric_limits<T>::quiet_NaN();
      c[static_cast<std::size_t>(i * N + j)] = acc;
    }
  return c;
}

template <class T>
std::vector<T> run_gemm(const Operand<T>& a, const Operand<T>& b, int64_t M, int64_t N, int64_t K,
                        const std::vector<T>* c0 = nullptr) {
  std::vector<T> c = c0 ? *c0 : std::vector<T>(static_cast<std::size_t>(M * N), T(-7));
  ditto::cpu::gemm(c.data(), a.data.data(), a.s0, a.s1, b.data.data(), b.s0, b.s1, M, N, K, c0 != nullptr);
  return c;
}

// Number of elements whose bits differ; prints the first few.
template <class T>
int64_t count_mismatches(const std::vector<T>& got, const std::vector<T>& want, int64_t N, const std::string& what) {
  int64_t bad = 0;
  for (std::size_t x = 0; x < want.size(); ++x)
    if (std::memcmp(&got[x], &want[x], sizeof(T)) != 0 && ++bad <= 3)
      ADD_FAILURE() << what << ": element (" << int64_t(x) / N << ", " << int64_t(x) % N << ") got " << got[x]
                    << " want " << want[x];
  return bad;
}

const int64_t kSizes[] = {1, 2, 3, 7, 15, 16, 17, 31, 33, 64, 65, 100, 257};

template <class T>
void random_shapes_at_every_level() {
  ConfigGuard lg;
  std::mt19937 g(sizeof(T) * 1000 + 7);
  std::uniform_int_distribution<int> pick(0, 12), lay(0, 3);
  for (int trial = 0; trial < 48; ++trial) {
    const int64_t M = kSizes[pick(g)], N = kSizes[pick(g)], K = kSizes[pick(g)];
    const Layout la = Layout(lay(g)), lb = Layout(lay(g));
    const Operand<T> a = make_operand<T>(M, K, la, g);
    const Operand<T> b = make_operand<T>(K, N, lb, g);
    const std::vector<T> want = reference(a, b, M, N, K);
    for (CpuCapability level : supported_levels()) {
      ditto::set_cpu_capability_for_testing(level);
      const std::string what = std::string(ditto::capability_name(level)) + " " + std::to_string(M) + "x" +
                               std::to_string(N) + "x" + std::to_string(K) + " A " + layout_name(la) + " B " +
                               layout_name(lb);
      EXPECT_EQ(count_mismatches(run_gemm(a, b, M, N, K), want, N, what), 0) << what;
    }
  }
}

TEST(GemmLevels, RandomShapesFloat32) { random_shapes_at_every_level<float>(); }
TEST(GemmLevels, RandomShapesFloat64) { random_shapes_at_every_level<double>(); }

// B given by a packer (cpu/gemm.h's PackB, as the small-plane convolutions gather theirs): the
// same chains as the strided call, for tails in every dimension, K across K blocks, with and
// without accumulate, at every level and at one and two threads.
template <class T>
void packer_at_every_level() {
  ConfigGuard lg;
  std::mt19937 g(sizeof(T) * 100 + 5);
  for (int64_t M : {1, 15, 29}) {
    for (int64_t N : {1, 17, 47, 200}) {
      for (int64_t K : {3, 257, 600}) {
        const Operand<T> a = make_operand<T>(M, K, Layout::RowMajor, g);
        const Operand<T> b = make_operand<T>(K, N, Layout::Strided, g);
        std::vector<T> c0(static_cast<std::size_t>(M * N));
        for (std::size_t i = 0; i < c0.size(); ++i) c0[i] = T(0.25) * T(int(i % 9) - 4);
        const ditto::cpu::PackB<T> pack = [&](T* dst, int64_t k0, int64_t kc, int64_t j0, int64_t nc, int w) {
          for (int64_t q = 0; q < nc; q += w)
            for (int64_t k = 0; k < kc; ++k)
              for (int64_t l = 0; l < w; ++l) dst[q * kc + k * w + l] = q + l < nc ? b.at(k0 + k, j0 + q + l) : T(0);
        };
        for (bool acc : {false, true}) {
          const std::vector<T> want = reference(a, b, M, N, K, acc ? &c0 : nullptr);
          for (int threads : {1, 2}) {
            ditto::set_num_threads(threads);
            for (CpuCapability level : supported_levels()) {
              ditto::set_cpu_capability_for_testing(level);
              std::vector<T> c = acc ? c0 : std::vector<T>(static_cast<std::size_t>(M * N), T(-7));
              ditto::cpu::gemm(c.data(), a.data.data(), a.s0, a.s1, pack, M, N, K, acc);
              const std::string what = std::string(ditto::capability_name(level)) + " " + std::to_string(M) + "x" +
                                       std::to_string(N) + "x" + std::to_string(K) + (acc ? " accumulate" : "") +
                                       " threads " + std::to_string(threads);
              EXPECT_EQ(count_mismatches(c, want, N, what), 0) << what;
            }
          }
        }
      }
    }
  }
}

TEST(GemmLevels, PackerForBFloat32) { packer_at_every_level<float>(); }
TEST(GemmLevels, PackerForBFloat64) { packer_at_every_level<double>(); }

// Every tail size at once in each dimension, and K across several K blocks.
template <class T>
void tails_at_every_level() {
  ConfigGuard lg;
  std::mt19937 g(11);
  for (int64_t M : {1, 13, 15, 29}) {
    for (int64_t N : {1, 15, 17, 33, 47, 65}) {
      for (int64_t K : {1, 3, 255, 256, 257, 600}) {
        const Operand<T> a = make_operand<T>(M, K, Layout::RowMajor, g);
        const Operand<T> b = make_operand<T>(K, N, Layout::RowMajor, g);
        const std::vector<T> want = reference(a, b, M, N, K);
        for (CpuCapability level : supported_levels()) {
          ditto::set_cpu_capability_for_testing(level);
          const std::string what = std::string(ditto::capability_name(level)) + " " + std::to_string(M) + "x" +
                                   std::to_string(N) + "x" + std::to_string(K);
          EXPECT_EQ(count_mismatches(run_gemm(a, b, M, N, K), want, N, what), 0) << what;
        }
      }
    }
  }
}

TEST(GemmLevels, TailsFloat32) { tails_at_every_level<float>(); }
TEST(GemmLevels, TailsFloat64) { tails_at_every_level<double>(); }

// accumulate: the chain continues from C's value (one chain split over calls).
template <class T>
void accumulate_continues_the_chain(int64_t M, int64_t N) {
  ConfigGuard lg;
  std::mt19937 g(5);
  const int64_t K = 300, K1 = 123;
  const Operand<T> a = make_operand<T>(M, K, Layout::RowMajor, g);
  const Operand<T> b = make_operand<T>(K, N, Layout::ColMajor, g);
  const std::vector<T> want = reference(a, b, M, N, K);
  // The second call sees the operands from column / row K1 on.
  Operand<T> a2 = a, b2 = b;
  a2.data.erase(a2.data.begin(), a2.data.begin() + K1 * a.s1);
  b2.data.erase(b2.data.begin(), b2.data.begin() + K1 * b.s0);
  for (CpuCapability level : supported_levels()) {
    ditto::set_cpu_capability_for_testing(level);
    const std::vector<T> part = run_gemm(a, b, M, N, K1);
    const std::vector<T> got = run_gemm(a2, b2, M, N, K - K1, &part);
    EXPECT_EQ(count_mismatches(got, want, N, ditto::capability_name(level)), 0);
    // K == 0 leaves C as it is with accumulate, and zeroes it without.
    EXPECT_EQ(count_mismatches(run_gemm(a, b, M, N, 0, &part), part, N, "K=0 accumulate"), 0);
    EXPECT_EQ(count_mismatches(run_gemm(a, b, M, N, 0), std::vector<T>(M * N, T(0)), N, "K=0"), 0);
  }
}

TEST(GemmLevels, AccumulateFloat32) {
  accumulate_continues_the_chain<float>(33, 40);
  accumulate_continues_the_chain<float>(300, 2);  // run transposed
}
TEST(GemmLevels, AccumulateFloat64) {
  accumulate_continues_the_chain<double>(33, 40);
  accumulate_continues_the_chain<double>(300, 1);
}

// Shapes large enough to be split over threads, each thread count giving the reference bits.
template <class T>
void any_thread_count() {
  ConfigGuard tg;
  ConfigGuard lg;
  std::mt19937 g(3);
  struct Shape {
    int64_t M, N, K;
    Layout la, lb;
  };
  for (Shape s : {Shape{257, 257, 100, Layout::RowMajor, Layout::RowMajor},
                  Shape{100, 520, 257, Layout::ColMajor, Layout::RowMajor},
                  Shape{1000, 33, 300, Layout::RowMajor, Layout::ColMajor},
                  Shape{3, 2000, 400, Layout::Strided, Layout::RowMajor},
                  Shape{1200, 7, 257, Layout::RowMajor, Layout::Strided}}) {
    const Operand<T> a = make_operand<T>(s.M, s.K, s.la, g);
    const Operand<T> b = make_operand<T>(s.K, s.N, s.lb, g);
    const std::vector<T> want = reference(a, b, s.M, s.N, s.K);
    for (CpuCapability level : supported_levels()) {
      ditto::set_cpu_capability_for_testing(level);
      for (int t : {1, 2, 3, 8}) {
        ditto::set_num_threads(t);
        const std::string what = std::string(ditto::capability_name(level)) + " threads " + std::to_string(t) + " " +
                                 std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
        EXPECT_EQ(count_mismatches(run_gemm(a, b, s.M, s.N, s.K), want, s.N, what), 0) << what;
      }
    }
  }
}

TEST(GemmThreads, AnyThreadCountFloat32) { any_thread_count<float>(); }
TEST(GemmThreads, AnyThreadCountFloat64) { any_thread_count<double>(); }

// Row i of A @ B is the same whether A has one row or 1000 (no order chosen by shape). With few
// columns (A @ vector) the full product runs transposed, lanes over rows: the same chains.
template <class T>
void batch_invariance(int64_t N) {
  ConfigGuard tg;
  ConfigGuard lg;
  std::mt19937 g(9);
  const int64_t M = 1000, K = 257;
  const Operand<T> a = make_operand<T>(M, K, Layout::RowMajor, g);
  const Operand<T> b = make_operand<T>(K, N, Layout::RowMajor, g);
  for (CpuCapability level : supported_levels()) {
    ditto::set_cpu_capability_for_testing(level);
    for (int t : {1, 3}) {
      ditto::set_num_threads(t);
      const std::vector<T> full = run_gemm(a, b, M, N, K);
      for (int64_t i : {0, 1, 13, 14, 15, 500, 998, 999}) {
        Operand<T> row;
        row.s0 = a.s0, row.s1 = a.s1;
        row.data.assign(a.data.begin() + i * a.s0, a.data.begin() + i * a.s0 + K);
        const std::vector<T> one = run_gemm(row, b, 1, N, K);
        const std::vector<T> want(full.begin() + i * N, full.begin() + (i + 1) * N);
        const std::string what = std::string(ditto::capability_name(level)) + " row " + std::to_string(i);
        EXPECT_EQ(count_mismatches(one, want, N, what), 0);
      }
      // And a block of rows from the middle.
      Operand<T> mid;
      mid.s0 = a.s0, mid.s1 = a.s1;
      mid.data.assign(a.data.begin() + 101 * a.s0, a.data.begin() + 101 * a.s0 + 37 * a.s0);
      const std::vector<T> got = run_gemm(mid, b, 37, N, K);
      const std::vector<T> want(full.begin() + 101 * N, full.begin() + 138 * N);
      EXPECT_EQ(count_mismatches(got, want, N, "rows 101..137"), 0);
    }
  }
}

TEST(GemmBatchInvariance, SingleRowFloat32) { batch_invariance<float>(65); }
TEST(GemmBatchInvariance, SingleRowFloat64) { batch_invariance<double>(65); }
TEST(GemmBatchInvariance, MatrixVectorFloat32) {
  batch_invariance<float>(1);
  batch_invariance<float>(3);
}
TEST(GemmBatchInvariance, MatrixVectorFloat64) { batch_invariance<double>(2); }

// inf, NaN, signed zeros, overflow and subnormals go through the chain as in the reference.
template <class T>
void special_values() {
  ConfigGuard lg;
  using L = std::numeric_limits<T>;
  const T specials[] = {L::infinity(), -L::infinity(), L::quiet_NaN(),  -L::quiet_NaN(), T(0), -T(0),
                        L::max(),      -L::max(),      L::denorm_min(), L::min(),        T(1), T(-1)};
  std::mt19937 g(21);
  std::uniform_int_distribution<int> which(0, 11), coin(0, 9);
  for (int64_t M : {1, 7, 31}) {
    for (int64_t N : {1, 17, 40}) {
      const int64_t K = 64;
      Operand<T> a = make_operand<T>(M, K, Layout::RowMajor, g);
      Operand<T> b = make_operand<T>(K, N, Layout::ColMajor, g);
      for (T& x : a.data)
        if (coin(g) == 0) x = specials[which(g)];
      for (T& x : b.data)
        if (coin(g) == 0) x = specials[which(g)];
      // A signalling NaN with a payload, and an all -0 row.
      if constexpr (sizeof(T) == 4)
        a.data[0] = std::bit_cast<T>(uint32_t(0x7fa12345u));
      else
        a.data[0] = std::bit_cast<T>(uint64_t(0x7ff4000000012345ull));
      if (M > 3)
        for (int64_t k = 0; k < K; ++k) a.data[static_cast<std::size_t>(3 * a.s0 + k)] = -T(0);
      const std::vector<T> want = reference(a, b, M, N, K);
      for (CpuCapability level : supported_levels()) {
        ditto::set_cpu_capability_for_testing(level);
        EXPECT_EQ(count_mismatches(run_gemm(a, b, M, N, K), want, N, ditto::capability_name(level)), 0);
      }
    }
  }
}

TEST(GemmSpecialValues, Float32) { special_values<float>(); }
TEST(GemmSpecialValues, Float64) { special_values<double>(); }

// The public ops use the same kernel: mm on transposed views, bmm (many small products are
// spread over threads per product), addmm's epilogue after the chain.
TEST(GemmApi, MmBmmAddmmFollowTheRule) {
  ConfigGuard tg;
  ConfigGuard lg;
  ditto::manual_seed(4);
  const ditto::Tensor a = ditto::randn({70, 33}), b = ditto::randn({40, 70}), bias = ditto::randn({40});
  const ditto::Tensor batch_a = ditto::randn({9, 17, 31}), batch_b = ditto::randn({9, 31, 5});
  auto operand = [](const ditto::Tensor& t) {  // a contiguous 2-D tensor's values, as an Operand
    Operand<float> o;
    const ditto::Tensor c = t.contiguous();
    o.data.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    o.s0 = t.size(1), o.s1 = 1;
    return o;
  };
  // a.t() (33 x 70) @ b.t() (70 x 40): both operands transposed views.
  Operand<float> at = operand(a), bt = operand(b);
  std::swap(at.s0, at.s1);
  std::swap(bt.s0, bt.s1);
  const std::vector<float> want_mm = reference(at, bt, 33, 40, 70);
  std::vector<float> want_addmm = want_mm;
  const ditto::Tensor bias_c = bias.contiguous();
  for (int64_t i = 0; i < 33; ++i)
    for (int64_t j = 0; j < 40; ++j) {
      float& x = want_addmm[static_cast<std::size_t>(i * 40 + j)];
      x = 0.5f * bias_c.data_ptr<float>()[j] + 2.0f * x;
    }
  for (CpuCapability level : supported_levels()) {
    ditto::set_cpu_capability_for_testing(level);
    for (int t : {1, 2, 8}) {
      ditto::set_num_threads(t);
      const ditto::Tensor mm = ditto::mm(a.t(), b.t()).contiguous();
      EXPECT_EQ(std::memcmp(mm.data_ptr<float>(), want_mm.data(), want_mm.size() * sizeof(float)), 0)
          << ditto::capability_name(level) << " threads " << t;
      const ditto::Tensor am = ditto::addmm(bias, a.t(), b.t(), 0.5, 2.0).contiguous();
      EXPECT_EQ(std::memcmp(am.data_ptr<float>(), want_addmm.data(), want_addmm.size() * sizeof(float)), 0)
          << ditto::capability_name(level) << " threads " << t;
      const ditto::Tensor bm = ditto::bmm(batch_a, batch_b).contiguous();
      for (int64_t p = 0; p < 9; ++p) {
        const std::vector<float> want =
            reference(operand(batch_a.select(0, p)), operand(batch_b.select(0, p)), 17, 5, 31);
        EXPECT_EQ(std::memcmp(bm.data_ptr<float>() + p * 17 * 5, want.data(), want.size() * sizeof(float)), 0)
            << ditto::capability_name(level) << " threads " << t << " product " << p;
      }
    }
  }
}

}  // namespace
