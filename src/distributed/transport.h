#pragma once
// The one primitive every collective is built on: an exchange of byte messages with a deadline.
// transport_mpi.cpp implements it over MPI; transport_none.cpp (a ditto built without MPI) links
// a stub that refuses a world of more than one process, so no other file has an #ifdef.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/allocator.h"

namespace ditto::distributed::detail {

// Message buffers come from ditto's caching allocator: a step's megabytes of gradients then reuse
// the same blocks instead of fresh pages from the kernel (page faults were most of an exchange).
template <class T>
struct CachedAllocator {
  using value_type = T;
  CachedAllocator() = default;
  template <class U>
  CachedAllocator(const CachedAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::ditto::detail::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) { ::ditto::detail::deallocate(p, n * sizeof(T)); }
  friend bool operator==(const CachedAllocator&, const CachedAllocator&) { return true; }
};
using Bytes = std::vector<uint8_t, CachedAllocator<uint8_t>>;

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int world() const = 0;
  // Sends each (peer, bytes) and receives one message with `tag` from each rank of `from`
  // (returned in that order). Raises, naming the rank, when a peer reports a failure or when a
  // message has not come (or a send has not gone) within timeout_s. `op` names the collective.
  virtual std::vector<Bytes> exchange(const char* op, int tag, std::vector<std::pair<int, Bytes>> sends,
                                      const std::vector<int>& from, double timeout_s) = 0;
  virtual void notify_failure(const std::string& what) = 0;
  virtual bool broken() const = 0;
  virtual void finalize() = 0;
  uint64_t bytes_sent = 0, messages = 0;
};

// True when the environment says mpirun (or another MPI launcher) started this process.
bool launched_by_mpi(int* world_from_env);
// The MPI transport (MPI_Init); throws where ditto was built without MPI.
std::unique_ptr<Transport> make_mpi_transport();
bool mpi_built();

}  // namespace ditto::distributed::detail
