#pragma once
// Threads and the canonical order of reductions.
//
// Note [Canonical reduction order]
// ---------------------------------
// Every floating-point reduction in ditto (sum, mean, prod, var, softmax's sums, ...) combines
// its n inputs x[0..n) (in the logical order of the reduced dims, row-major, whatever the
// memory layout) in one order that depends on n alone:
//   1. The inputs are cut into chunks of kReduceChunk consecutive elements (the last may be
//      shorter).
//   2. Inside a chunk, element i goes to lane (i mod kReduceLanes); each lane accumulates its
//      elements in increasing i, starting from the identity. The lanes are then folded by a
//      fixed halving tree: lane[l] = lane[l] (op) lane[l + h] for h = 16, 8, 4, 2, 1.
//   3. The chunk results are folded by a fixed pairwise tree: pairs (0,1), (2,3), ... then
//      pairs of those, and so on; an odd one out is carried up unchanged.
// Threads only decide who computes which chunk (owner computes; no atomics, no shared
// accumulators), so the bits never depend on the thread count. A SIMD level implements step 2
// with vector registers holding consecutive lanes, which is the same arithmetic.
// Matrix products follow their own rule: see Note [GEMM accumulation order] in cpu/gemm.h.
#include <cstdint>
#include <functional>

namespace ditto::detail {

inline constexpr int64_t kReduceLanes = 32;
inline constexpr int64_t kReduceChunk = 32768;

int num_threads();

// Calls fn(begin, end) on disjoint sub-ranges covering [0, n), possibly in parallel. Work is
// split only when n * cost_per_item is large enough to pay for the threads. fn must write only
// outputs owned by its range, so results never depend on the split.
void parallel_for(int64_t n, int64_t cost_per_item, const std::function<void(int64_t, int64_t)>& fn);

// Runs a and b, two independent jobs that write disjoint outputs: side by side, one pool thread
// each, when there are threads to spare (then every parallel_for inside them runs on its own
// thread); else a, then b. Like parallel_for's split, this changes no bit: each job computes what
// it would alone. Pays where the two jobs cost about the same and each alone scales poorly.
void run_side_by_side(const std::function<void()>& a, const std::function<void()>& b);
// How many run_side_by_side calls gave their jobs to two threads (always on: one relaxed
// increment a call), for tests that check a caller takes that path.
uint64_t side_by_side_count();

}  // namespace ditto::detail
