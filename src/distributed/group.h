#pragma once
// The process group as the collectives see it: the transport (null in a world of one), the
// timeout, and a checked exchange whose messages carry the collective's kind and sequence number,
// so ranks whose programs diverged fail with a clear error instead of reading each other's data.
#include <cstring>
#include <string>

#include "distributed/transport.h"
#include "ditto/distributed.h"

namespace ditto::distributed::detail {

enum class Kind : uint32_t { barrier = 1, broadcast, all_gather, reduce_scatter, reduce_gather, wrap_check };

// Null when the world is one process. Calls init().
Transport* group();
double timeout_s();

// Every message starts with a header (kind, this rank's sequence number), which Writer leaves room
// for and exchange() fills in and checks; a received message's payload starts at kHeaderBytes.
constexpr std::size_t kHeaderBytes = 16;

// Sends payloads (each made by a Writer) and receives one from each rank in `from`, headers checked.
std::vector<Bytes> exchange(const char* op, Kind kind, std::vector<std::pair<int, Bytes>> sends,
                            const std::vector<int>& from);

// Appends and reads back plain values and tensors (dtype, shape, bits) in messages.
struct Writer {
  Bytes out = Bytes(kHeaderBytes);
  template <class T>
  void put(const T& v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    out.insert(out.end(), p, p + sizeof(T));
  }
  void put_bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  void put_tensor(const Tensor& t);
  void reserve(std::size_t payload) { out.reserve(kHeaderBytes + payload); }
};
struct Reader {
  const Bytes& in;
  std::size_t pos = kHeaderBytes;
  const char* op;
  int from;
  void need(std::size_t n) const;
  template <class T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, in.data() + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  const uint8_t* get_bytes(std::size_t n) {
    need(n);
    const uint8_t* p = in.data() + pos;
    pos += n;
    return p;
  }
  Tensor get_tensor();
};

}  // namespace ditto::distributed::detail
