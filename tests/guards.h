#pragma once
// What tests change of the global state, restored when a scope ends, however it ends (an
// assertion that throws included), so a failure cannot leak into other tests: the thread count,
// the kernel level, deterministic mode (with warn_only and fill_uninitialized_memory) and the
// warning handler. The one guard for all of them; kernel levels this CPU runs: supported_levels().
#include <vector>

#include "cpu/capability.h"
#include "ditto/determinism.h"
#include "ditto/threads.h"

namespace ditto::testing {

inline std::vector<CpuCapability> supported_levels() {
  std::vector<CpuCapability> v;
  for (CpuCapability c : {CpuCapability::Scalar, CpuCapability::AVX2, CpuCapability::AVX512})
    if (cpu_supports(c)) v.push_back(c);
  return v;
}

class ConfigGuard {
 public:
  ConfigGuard() = default;
  // Also forces a kernel level for the scope.
  explicit ConfigGuard(CpuCapability level) { set_cpu_capability_for_testing(level); }
  ~ConfigGuard() {
    set_num_threads(threads_);
    reset_cpu_capability_for_testing();
    set_warning_handler(nullptr);
  }
  ConfigGuard(const ConfigGuard&) = delete;
  ConfigGuard& operator=(const ConfigGuard&) = delete;

 private:
  int threads_ = get_num_threads();
  DeterministicGuard det_{are_deterministic_algorithms_enabled(), is_deterministic_algorithms_warn_only_enabled(),
                          get_fill_uninitialized_memory()};
};

}  // namespace ditto::testing
