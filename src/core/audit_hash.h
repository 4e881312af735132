#pragma once
// ditto::audit's hash of one tensor: XXH3-64 of its bits in logical (row-major) order. Its dtype
// and shape are not hashed, the records hold them; so the same values under another shape (a
// PyTorch scalar and ditto's one-element kernel argument) hash the same. Strided tensors are read
// in blocks through a small buffer, without a contiguous copy; each level hashes with XXH3's own
// vector code for it (src/core/audit_hash_{avx2,avx512}.cpp). XXH3 gives the same hash on every
// level, so a log does not depend on the CPU.
#include <cstddef>
#include <cstdint>

#include "ditto/tensor_base.h"

namespace ditto::detail {

uint64_t audit_hash(const TensorBase& t);

// A tensor's bits: one piece (data, size) when next is null, or pieces in order: next() points p
// at the next piece (valid until the following call) and returns its length, 0 at the end.
struct HashSource {
  const void* data;
  std::size_t size;
  void* ctx;
  std::size_t (*next)(void* ctx, const void** p);
};
// XXH3-64 of the concatenated pieces, one per level.
uint64_t audit_xxh3_scalar(HashSource src);
uint64_t audit_xxh3_avx2(HashSource src);
uint64_t audit_xxh3_avx512(HashSource src);

}  // namespace ditto::detail
