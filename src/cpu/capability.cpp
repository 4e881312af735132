#include "cpu/capability.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "ditto/capability.h"
#include "ditto/error.h"

namespace ditto {

const char* capability_name(CpuCapability c) {
  switch (c) {
    case CpuCapability::Scalar: return "scalar";
    case CpuCapability::AVX2: return "avx2";
    case CpuCapability::AVX512: return "avx512";
  }
  return "unknown";
}

bool cpu_supports(CpuCapability c) {
  __builtin_cpu_init();
  // libgcc also checks that the OS saves the YMM/ZMM state (XGETBV).
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  switch (c) {
    case CpuCapability::Scalar: return true;
    case CpuCapability::AVX2: return avx2;
    case CpuCapability::AVX512:
      return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  }
  return false;
}

bool cpu_is_amd() {
  __builtin_cpu_init();
  return __builtin_cpu_is("amd");
}

CpuCapability detected_cpu_capability() {
  if (cpu_supports(CpuCapability::AVX512)) return CpuCapability::AVX512;
  if (cpu_supports(CpuCapability::AVX2)) return CpuCapability::AVX2;
  return CpuCapability::Scalar;
}

CpuCapability parse_cpu_capability(std::string_view value) {
  for (CpuCapability c : {CpuCapability::Scalar, CpuCapability::AVX2, CpuCapability::AVX512})
    if (value == capability_name(c)) return c;
  detail::fail("cpu_capability", "DITTO_CPU_CAPABILITY='", value,
               "' is not a kernel level; expected scalar, avx2 or avx512");
}

CpuCapability capability_from_env(const char* value) {
  if (value == nullptr || *value == '\0') return detected_cpu_capability();
  CpuCapability c = parse_cpu_capability(value);
  DITTO_CHECK(cpu_supports(c), "cpu_capability", "DITTO_CPU_CAPABILITY=", value, " but this CPU supports only ",
              capability_name(detected_cpu_capability()));
  return c;
}

namespace {
std::atomic<int> forced_capability{-1};
}  // namespace

CpuCapability cpu_capability() {
  int forced = forced_capability.load(std::memory_order_acquire);
  if (forced >= 0) return CpuCapability(forced);
  // A throwing initialiser leaves it uninitialised, so a bad variable throws on every call.
  static const CpuCapability decided = capability_from_env(std::getenv("DITTO_CPU_CAPABILITY"));
  return decided;
}

void set_cpu_capability_for_testing(CpuCapability c) {
  DITTO_CHECK(cpu_supports(c), "cpu_capability", "cannot force ", capability_name(c), ": this CPU supports only ",
              capability_name(detected_cpu_capability()));
  forced_capability.store(int(c), std::memory_order_release);
}

void reset_cpu_capability_for_testing() { forced_capability.store(-1, std::memory_order_release); }

const char* cpu_capability_name() { return capability_name(cpu_capability()); }

}  // namespace ditto
