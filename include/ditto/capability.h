#pragma once
// Which CPU kernel level ditto runs: "scalar", "avx2" or "avx512". Detected once from the CPU;
// the environment variable DITTO_CPU_CAPABILITY=scalar|avx2|avx512 picks a lower (or equal)
// level. Every level computes the same bits; only the speed differs.

namespace ditto {

// Name of the level in use. Throws ditto::Error "[cpu_capability] ..." if DITTO_CPU_CAPABILITY
// names an unknown level or one this CPU lacks.
const char* cpu_capability_name();

}  // namespace ditto
