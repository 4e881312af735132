#pragma once
// XXH3-64 of a sequence of pieces, included once per level (src/core/audit_hash*.cpp): XXH3 picks
// its vector code from the compiler's flags (SSE2 on x86-64, AVX2, AVX-512), and every one gives
// the same hash.
#include "core/audit_hash.h"

// GCC 12 reads AVX-512 intrinsics' deliberately undefined registers, inlined into XXH3's
// accumulate, as possibly uninitialised: a false positive in its own header.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace ditto::detail {
namespace {

uint64_t xxh3_pieces(HashSource src) {
  if (!src.next) return XXH3_64bits(src.data, src.size);
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  const void* p = nullptr;
  for (std::size_t n; (n = src.next(src.ctx, &p)) != 0;) XXH3_64bits_update(&st, p, n);
  return XXH3_64bits_digest(&st);
}

}  // namespace
}  // namespace ditto::detail

#pragma GCC diagnostic pop
