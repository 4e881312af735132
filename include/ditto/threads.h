#pragma once
// Thread count for ditto's kernels. Results never depend on it: see Note [Canonical reduction
// order] in src/core/parallel.h. Default: DITTO_NUM_THREADS if set, else the number of cores.
namespace ditto {
void set_num_threads(int n);
int get_num_threads();
}  // namespace ditto
