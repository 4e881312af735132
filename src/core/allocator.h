#pragma once
// Caching allocator. A page fault costs ~12 us on our machines, so freed blocks are kept in
// per-size free lists and reused instead of returned to the OS (tensor sizes repeat in training).
#include <cstddef>

namespace ditto::detail {
void* allocate(std::size_t nbytes);  // 64-byte aligned; nbytes may be 0
void deallocate(void* p, std::size_t nbytes);
// Returns every cached block to the OS (tests, and users short of memory).
void empty_cache();
std::size_t cached_bytes();

// A scratch array of n elements from the caching allocator, returned at scope exit (kernels'
// temporary buffers repeat their sizes too).
template <class T>
class Scratch {
 public:
  explicit Scratch(std::size_t n) : n_(n), p_(static_cast<T*>(allocate(n * sizeof(T)))) {}
  ~Scratch() { deallocate(p_, n_ * sizeof(T)); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  T* data() const { return p_; }

 private:
  std::size_t n_;
  T* p_;
};
}  // namespace ditto::detail
