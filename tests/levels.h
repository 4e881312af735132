#pragma once
// Kernel levels in tests: the ones this CPU runs, and a guard that drops a forced level (and
// forces one, if given) for a scope, even when an assertion throws out of it.
#include <vector>

#include "cpu/capability.h"

namespace ditto::testing {

inline std::vector<CpuCapability> supported_levels() {
  std::vector<CpuCapability> v;
  for (CpuCapability c : {CpuCapability::Scalar, CpuCapability::AVX2, CpuCapability::AVX512})
    if (cpu_supports(c)) v.push_back(c);
  return v;
}

struct LevelGuard {
  LevelGuard() = default;
  explicit LevelGuard(CpuCapability c) { set_cpu_capability_for_testing(c); }
  ~LevelGuard() { reset_cpu_capability_for_testing(); }
  LevelGuard(const LevelGuard&) = delete;
  LevelGuard& operator=(const LevelGuard&) = delete;
};

}  // namespace ditto::testing
