// ditto::audit's XXH3 compiled for AVX2 (src/core/audit_xxh3_impl.h).
#include "core/audit_xxh3_impl.h"

namespace ditto::detail {

uint64_t audit_xxh3_avx2(HashSource src) { return xxh3_pieces(src); }
}  // namespace ditto::detail
