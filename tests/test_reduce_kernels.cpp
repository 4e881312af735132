// The vectorised reduction kernels (cpu/reduce_kernels.h) against the literal reading of Note
// [Canonical reduction order] (cpu/reduce.h's reduce_chunk), bit for bit, at every level this CPU
// runs: sizes around the 32 lanes and register widths, special values (NaN, +-0, +-inf), and
// softmax rows across the chunk boundary.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/capability.h"
#include "cpu/dmath.h"
#include "cpu/reduce.h"
#include "cpu/reduce_kernels.h"
#include "ditto/ditto.h"
#include "guards.h"

namespace {
using ditto::CpuCapability;

using ditto::testing::ConfigGuard;
std::vector<CpuCapability> levels() { return ditto::testing::supported_levels(); }

template <class T>
auto bits(T v) {
  if constexpr (sizeof(T) == 4)
    return std::bit_cast<uint32_t>(v);
  else
    return std::bit_cast<uint64_t>(v);
}

template <class T>
std::vector<T> random_values(int64_t n, uint32_t seed, bool specials) {
  std::mt19937 gen(seed);
  std::normal_distribution<T> normal(0, 3);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = normal(gen);
  if (specials && n > 0) {
    const T pool[] = {T(0),
                      -T(0),
                      std::numeric_limits<T>::infinity(),
                      -std::numeric_limits<T>::infinity(),
                      std::numeric_limits<T>::quiet_NaN(),
                      std::numeric_limits<T>::denorm_min()};
    std::uniform_int_distribution<int64_t> at(0, n - 1);
    std::uniform_int_distribution<int> which(0, 5);
    for (int k = 0; k < 3; ++k) v[at(gen)] = pool[which(gen)];
  }
  return v;
}

template <class T>
T nan_max(T a, T b) {
  return a != a ? a : b != b ? b : a < b ? b : a;
}
template <class T>
T nan_min(T a, T b) {
  return a != a ? a : b != b ? b : b < a ? b : a;
}

const int64_t kSizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100, 1000, 1023, 32768};

template <class T>
void check_chunks() {
  for (CpuCapability level : levels()) {
    ConfigGuard guard(level);
    for (int64_t n : kSizes) {
      for (bool specials : {false, true}) {
        const std::vector<T> x = random_values<T>(n, uint32_t(n * 7 + specials), specials);
        const T want_sum = ditto::cpu::reduce_chunk<T>(
            x.data(), n, 1, T(0), [](T a, T b) { return a + b; }, [](T v) { return v; });
        const T want_max = ditto::cpu::reduce_chunk<T>(x.data(), n, 1, std::numeric_limits<T>::lowest(), nan_max<T>,
                                                       [](T v) { return v; });
        const T want_min = ditto::cpu::reduce_chunk<T>(x.data(), n, 1, std::numeric_limits<T>::max(), nan_min<T>,
                                                       [](T v) { return v; });
        const std::string at =
            std::string(ditto::capability_name(level)) + " n=" + std::to_string(n) + (specials ? " specials" : "");
        EXPECT_EQ(bits(ditto::cpu::sum_chunk(x.data(), n)), bits(want_sum)) << at;
        EXPECT_EQ(bits(ditto::cpu::max_chunk(x.data(), n)), bits(want_max)) << at;
        EXPECT_EQ(bits(ditto::cpu::min_chunk(x.data(), n)), bits(want_min)) << at;
      }
    }
  }
}

TEST(ReduceKernels, ChunksMatchTheCanonicalOrderAtEveryLevelFloat) { check_chunks<float>(); }
TEST(ReduceKernels, ChunksMatchTheCanonicalOrderAtEveryLevelDouble) { check_chunks<double>(); }

template <class T>
void check_columns() {
  for (CpuCapability level : levels()) {
    ConfigGuard guard(level);
    for (int64_t M : {1, 2, 7, 16, 17, 40, 100, 256, 300}) {
      for (int64_t len : {0, 1, 5, 31, 32, 33, 100, 1000}) {
        const int64_t sr = M + 3;  // a padded row, so columns are not the only data
        const std::vector<T> x = random_values<T>(std::max<int64_t>(len * sr, 1), uint32_t(M * 1000 + len), true);
        std::vector<T> got(static_cast<std::size_t>(M));
        ditto::cpu::sum_cols_chunk(x.data(), M, len, sr, got.data());
        int64_t bad = 0;
        for (int64_t m = 0; m < M; ++m) {
          const T want = ditto::cpu::reduce_chunk<T>(
              x.data() + m, len, sr, T(0), [](T a, T b) { return a + b; }, [](T v) { return v; });
          bad += bits(got[m]) != bits(want);
        }
        EXPECT_EQ(bad, 0) << ditto::capability_name(level) << " M=" << M << " len=" << len;
      }
    }
  }
}

TEST(ReduceKernels, ColumnChunksMatchTheCanonicalOrderAtEveryLevelFloat) { check_columns<float>(); }
TEST(ReduceKernels, ColumnChunksMatchTheCanonicalOrderAtEveryLevelDouble) { check_columns<double>(); }

// The canonical order follows the logical order of the reduced elements, not memory: a sum over
// dim 0 (the column kernel), over dim 1 of the transposed copy (the row kernel) and over a
// strided view all give the same bits, including across several chunks.
TEST(ReduceKernels, SumOverAnyLayoutGivesTheSameBits) {
  ditto::manual_seed(3);
  for (int64_t R : {5, 33, 70001}) {
    const ditto::Tensor x = ditto::randn({R, 37});
    const ditto::Tensor by_cols = x.sum({0});
    const ditto::Tensor by_rows = x.t().contiguous().sum({1});
    const ditto::Tensor by_view = x.t().sum({1});
    EXPECT_TRUE(ditto::equal(by_cols, by_rows)) << "R=" << R;
    EXPECT_TRUE(ditto::equal(by_cols, by_view)) << "R=" << R;
    EXPECT_EQ(ditto::fingerprint(by_cols), ditto::fingerprint(by_rows)) << "R=" << R;
    const ditto::Tensor m_cols = x.mean({0}), m_rows = x.t().contiguous().mean({1});
    EXPECT_EQ(ditto::fingerprint(m_cols), ditto::fingerprint(m_rows)) << "R=" << R;
  }
}

// sum and mean over dims that are not one block (a bias gradient's 0, 2, 3) reduce rows made of
// segments, gathered per row (ops/reduce_ops.cpp) instead of a copy of the permuted input: the
// bits of the copied rows, across several chunks, at 1 to 3 threads, float and double, and where
// the layout does not allow segments (a transposed input) or a row is too long for the buffer.
// Segments of a multiple of 32 elements are summed in place (cpu/reduce.cpp): see the next test.
TEST(ReduceKernels, SumOverSplitDimsGivesTheBitsOfTheCopiedRows) {
  ditto::manual_seed(5);
  struct Case {
    ditto::Shape shape, dims, perm;  // perm: kept dims, then reduced ones
  };
  const Case cases[] = {
      {{8, 3, 33, 40}, {0, 2, 3}, {1, 0, 2, 3}},      // rows of 8 segments of 1320: one chunk
      {{40, 2, 50, 33}, {0, 2, 3}, {1, 0, 2, 3}},     // 40 segments of 1650: three chunks
      {{2, 4, 3, 5, 7}, {0, 3, 4}, {1, 2, 0, 3, 4}},  // two kept dims, merged
      {{6, 5, 9}, {0, 2}, {1, 0, 2}},                 // 3-D
      {{2, 3, 700, 800}, {0, 2, 3}, {1, 0, 2, 3}},    // rows of 1.12M: past the buffer, copied
  };
  for (int threads : {1, 2, 3}) {
    ConfigGuard guard;
    ditto::set_num_threads(threads);
    for (const Case& c : cases)
      for (ditto::ScalarType dt : {ditto::kFloat32, ditto::kFloat64}) {
        const ditto::Tensor x = ditto::randn(c.shape, dt);
        int64_t M = 1;
        for (int64_t d = 0; d < int64_t(c.shape.size()); ++d)
          if (std::find(c.dims.begin(), c.dims.end(), d) == c.dims.end()) M *= c.shape[d];
        const ditto::Tensor rows = x.permute(c.perm).contiguous().reshape({M, -1});
        const std::string what = "threads " + std::to_string(threads) + " dims of " + std::to_string(x.dim());
        EXPECT_EQ(ditto::fingerprint(x.sum(c.dims).reshape({M})), ditto::fingerprint(rows.sum({1}))) << what;
        EXPECT_EQ(ditto::fingerprint(x.mean(c.dims).reshape({M})), ditto::fingerprint(rows.mean({1}))) << what;
        // a transposed input: the segments are not contiguous, the rows are copied
        const ditto::Tensor xt = x.transpose(0, x.dim() - 1).contiguous().transpose(0, x.dim() - 1);
        EXPECT_EQ(ditto::fingerprint(xt.sum(c.dims).reshape({M})), ditto::fingerprint(rows.sum({1}))) << what;
      }
  }
}

// Rows of segments whose length is a multiple of the 32 reduction lanes are summed in place, each
// chunk's lanes running across the segments (sum_segments_chunk): the bits of the copied rows at
// every level, float and double, for one chunk of many segments (a 32x32 plane's bias gradient),
// chunks that start inside a segment, a last chunk shorter than a vector group, and 1 to 3 threads.
TEST(ReduceKernels, SumOverLaneAlignedSegmentsInPlaceGivesTheBitsOfTheCopiedRows) {
  ditto::manual_seed(6);
  const ditto::Shape shapes[] = {
      {32, 4, 32, 32},  // rows of 32 segments of 1024: exactly one chunk
      {5, 3, 96, 96},   // 5 segments of 9216: the second chunk starts 5120 into the fourth segment
      {9, 2, 61, 64},   // 9 segments of 3904: 35136 elements, a last chunk of 2368
      {3, 2, 1, 32},    // segments of one lane group
  };
  for (CpuCapability level : ditto::testing::supported_levels())
    for (int threads : {1, 2, 3}) {
      ConfigGuard guard(level);
      ditto::set_num_threads(threads);
      for (const ditto::Shape& shape : shapes)
        for (ditto::ScalarType dt : {ditto::kFloat32, ditto::kFloat64}) {
          const ditto::Tensor x = ditto::randn(shape, dt) * 100.0;
          const ditto::Tensor rows = x.permute({1, 0, 2, 3}).contiguous().reshape({shape[1], -1});
          const std::string what = std::string(ditto::capability_name(level)) + " threads " + std::to_string(threads) +
                                   " shape " + std::to_string(shape[2] * shape[3]);
          EXPECT_EQ(ditto::fingerprint(x.sum({0, 2, 3})), ditto::fingerprint(rows.sum({1}))) << what;
          EXPECT_EQ(ditto::fingerprint(x.mean({0, 2, 3})), ditto::fingerprint(rows.mean({1}))) << what;
        }
    }
}

// The literal softmax: max by the lanes, exp(x - max), the canonical sum, then divide (or
// subtract the log), with dmath's scalar functions.
template <class T>
std::vector<T> reference_softmax(const std::vector<T>& x, bool log) {
  const int64_t n = int64_t(x.size());
  const int64_t C = ditto::cpu::num_chunks(n);
  std::vector<T> part(static_cast<std::size_t>(C));
  auto fold = [&](auto op, T identity, auto load) {
    for (int64_t c = 0; c < C; ++c) {
      const int64_t start = c * ditto::detail::kReduceChunk;
      const int64_t len = std::min<int64_t>(ditto::detail::kReduceChunk, n - start);
      part[c] = ditto::cpu::reduce_chunk<T>(x.data() + start, len, 1, identity, op, load);
    }
    return ditto::cpu::fold_pairwise(part.data(), C, op);
  };
  T m = fold(nan_max<T>, -std::numeric_limits<T>::infinity(), [](T v) { return v; });
  if (std::isinf(m)) m = m > 0 ? m : T(0);
  const T s = fold([](T a, T b) { return a + b; }, T(0), [m](T v) { return ditto::dmath::exp(v - m); });
  std::vector<T> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    y[i] = log ? (x[i] - m) - ditto::dmath::log(s) : ditto::dmath::exp(x[i] - m) / s;
  return y;
}

template <class T>
void check_softmax() {
  for (CpuCapability level : levels()) {
    ConfigGuard guard(level);
    for (int64_t n : {1, 2, 7, 16, 17, 33, 100, 1024, 32768 + 45, 3 * 32768 + 1}) {
      for (bool specials : {false, true}) {
        const std::vector<T> x = random_values<T>(n, uint32_t(n + 11 * specials), specials);
        for (bool log : {false, true}) {
          const std::vector<T> want = reference_softmax(x, log);
          std::vector<T> got(x.size());
          ditto::cpu::softmax_row(x.data(), got.data(), n, log);
          int64_t bad = 0;
          for (int64_t i = 0; i < n; ++i) bad += bits(got[i]) != bits(want[i]);
          EXPECT_EQ(bad, 0) << ditto::capability_name(level) << " n=" << n << (log ? " log_softmax" : " softmax")
                            << (specials ? " specials" : "");
        }
      }
    }
  }
}

TEST(ReduceKernels, SoftmaxRowsMatchTheLiteralAlgorithmAtEveryLevelFloat) { check_softmax<float>(); }
TEST(ReduceKernels, SoftmaxRowsMatchTheLiteralAlgorithmAtEveryLevelDouble) { check_softmax<double>(); }

}  // namespace
