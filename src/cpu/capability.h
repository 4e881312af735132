#pragma once
// Run-time choice of the CPU kernel level. Kernels compiled for AVX2 (*_avx2.cpp) or AVX-512
// (*_avx512.cpp) are entered only when cpu_capability() says so; every level gives the same bits.
#include <string_view>

namespace ditto {

enum class CpuCapability { Scalar, AVX2, AVX512 };

// "scalar", "avx2", "avx512".
const char* capability_name(CpuCapability c);

// Whether this CPU (and OS) can run the level: AVX2 needs avx2+fma, AVX512 needs
// avx512f+dq+bw+vl (and avx2+fma).
bool cpu_supports(CpuCapability c);

// Whether the CPU is AMD's. For a kernel whose fastest form differs between cores at one level
// (cpu/conv.cpp's in-place forward); every form gives the same bits.
bool cpu_is_amd();

// The best level this CPU supports.
CpuCapability detected_cpu_capability();

// Parses a DITTO_CPU_CAPABILITY value ("scalar", "avx2" or "avx512", lower case); anything else
// throws ditto::Error "[cpu_capability] ...".
CpuCapability parse_cpu_capability(std::string_view value);

// The level a DITTO_CPU_CAPABILITY value asks for: detected_cpu_capability() when value is null or
// empty; throws ditto::Error "[cpu_capability] ..." for an unknown level or one this CPU lacks.
CpuCapability capability_from_env(const char* value);

// The level in use: DITTO_CPU_CAPABILITY if set and not empty, else detected_cpu_capability().
// Decided once (thread-safe). Throws ditto::Error "[cpu_capability] ..." if the variable names an
// unknown level or one this CPU lacks.
CpuCapability cpu_capability();

// The variant of a kernel for the level in use (each is built in its own *_avx2.cpp /
// *_avx512.cpp file and gives the same bits as the others).
template <class Fn>
Fn by_level(Fn scalar, Fn avx2, Fn avx512) {
  switch (cpu_capability()) {
    case CpuCapability::AVX512: return avx512;
    case CpuCapability::AVX2: return avx2;
    case CpuCapability::Scalar: break;
  }
  return scalar;
}

// Tests: force a level (throws ditto::Error if the CPU lacks it), and drop the forcing again.
void set_cpu_capability_for_testing(CpuCapability c);
void reset_cpu_capability_for_testing();

}  // namespace ditto
