#pragma once
// Caching allocator. A page fault costs ~12 us on our machines, so freed blocks are kept in
// per-size free lists and reused instead of returned to the OS (tensor sizes repeat in training).
#include <cstddef>

namespace ditto::detail {
void* allocate(std::size_t nbytes);        // 64-byte aligned; nbytes may be 0
void deallocate(void* p, std::size_t nbytes);
// Returns every cached block to the OS (tests, and users short of memory).
void empty_cache();
std::size_t cached_bytes();
}  // namespace ditto::detail
