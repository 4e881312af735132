// safetensors files <-> tensors: the atomic writer and the memory-mapped reader over the format
// layer (safetensors_format.cpp), which validates every byte range before a tensor is made.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "core/determinism_state.h"
#include "core/tensor_impl.h"
#include "ditto/factory.h"
#include "ditto/serialize.h"
#include "io/file.h"
#include "io/safetensors_format.h"

static_assert(std::endian::native == std::endian::little, "safetensors is little-endian; ditto assumes the host is");

namespace ditto {

namespace {
io::FileDtype file_dtype(ScalarType t) {
  switch (t) {
    case kFloat32: return io::FileDtype::F32;
    case kFloat64: return io::FileDtype::F64;
    case kInt64: return io::FileDtype::I64;
    case kInt32: return io::FileDtype::I32;
    case kBool: return io::FileDtype::BOOL;
  }
  return io::FileDtype::F32;
}

ScalarType ditto_dtype(io::FileDtype d) {
  switch (d) {
    case io::FileDtype::F64: return kFloat64;
    case io::FileDtype::I64: return kInt64;
    case io::FileDtype::I32: return kInt32;
    case io::FileDtype::BOOL: return kBool;
    default: return kFloat32;  // F32, and F16/BF16 widened
  }
}

// IEEE half -> float, exactly (subnormals, infinities and NaN payloads included).
float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    int e = -1;
    uint32_t m = man;
    do {
      ++e;
      m <<= 1;
    } while ((m & 0x400u) == 0);
    bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((m & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

float bf16_to_float(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

struct Mapping {
  void* addr = nullptr;
  std::size_t size = 0;
  ~Mapping() {
    if (addr != nullptr) munmap(addr, size);
  }
};
}  // namespace

void save_safetensors(const std::string& path, const StateDict& tensors, const Metadata& metadata) {
  std::vector<Tensor> data;
  std::vector<io::FileTensor> entries;
  for (const auto& [name, t] : tensors) {
    DITTO_CHECK(t.defined(), "save_safetensors", path, ": tensor \"", name, "\" is undefined");
    DITTO_CHECK(name != "__metadata__", "save_safetensors", path, ": \"__metadata__\" is not a tensor name");
    io::FileTensor e;
    e.name = name;
    e.dtype = file_dtype(t.dtype());
    e.shape = t.sizes();
    entries.push_back(std::move(e));
    data.push_back(t.detach().contiguous());
  }
  // 8-byte dtypes first, then 4, then 1: every tensor starts aligned to its element size.
  std::vector<std::size_t> order(entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return io::file_dtype_size(entries[a].dtype) > io::file_dtype_size(entries[b].dtype);
  });
  std::vector<io::FileTensor> laid;
  uint64_t at = 0;
  for (std::size_t i : order) {
    io::FileTensor e = entries[i];
    e.begin = at;
    at += static_cast<uint64_t>(data[i].numel()) * data[i].element_size();
    e.end = at;
    laid.push_back(std::move(e));
  }
  const std::string header = io::safetensors_header(laid, {metadata.begin(), metadata.end()});
  io::AtomicFile out(path, "save_safetensors");
  out.write(header.data(), header.size());
  for (std::size_t i : order)
    out.write(data[i].raw_data(), static_cast<std::size_t>(data[i].numel()) * data[i].element_size());
  out.commit();
}

SafetensorsFile load_safetensors(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) detail::fail(path, "cannot open: ", std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    detail::fail(path, "not a regular file");
  }
  auto map = std::make_shared<Mapping>();
  const unsigned char* bytes = nullptr;
  static const unsigned char kNothing[1] = {0};
  map->size = static_cast<std::size_t>(st.st_size);
  if (map->size == 0) {
    bytes = kNothing;
  } else {
    // Private and writable: a loaded tensor written in place gets its own pages, never the file's.
    void* a = ::mmap(nullptr, map->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (a == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      detail::fail(path, "cannot map: ", std::strerror(err));
    }
    map->addr = a;
    bytes = static_cast<const unsigned char*>(a);
  }
  ::close(fd);
  const io::FileHeader h = io::parse_safetensors(bytes, map->size, path);
  SafetensorsFile out;
  for (const auto& [k, v] : h.metadata) out.metadata.emplace(k, v);
  for (const io::FileTensor& e : h.tensors) {
    const unsigned char* src = bytes + h.data_start + e.begin;
    const std::size_t nbytes = static_cast<std::size_t>(e.end - e.begin);
    const ScalarType dt = ditto_dtype(e.dtype);
    Tensor t;
    if (e.dtype == io::FileDtype::F16 || e.dtype == io::FileDtype::BF16) {
      t = empty(e.shape, kFloat32);
      float* dst = t.data_ptr<float>();
      const bool half = e.dtype == io::FileDtype::F16;
      for (std::size_t i = 0; i < nbytes / 2; ++i) {
        const uint16_t v = static_cast<uint16_t>(src[2 * i] | (src[2 * i + 1] << 8));
        dst[i] = half ? half_to_float(v) : bf16_to_float(v);
      }
      out.notes.push_back("tensor \"" + e.name + "\": " + io::file_dtype_name(e.dtype) +
                          " read into float32 (exactly: ditto has no 16-bit floats)");
    } else if (nbytes != 0 && reinterpret_cast<uintptr_t>(src) % element_size(dt) == 0) {
      auto impl = std::make_shared<TensorImpl>();
      impl->storage =
          std::make_shared<Storage>(const_cast<unsigned char*>(src), nbytes, [map](void*) mutable { map.reset(); });
      impl->sizes = e.shape;
      impl->strides = detail::contiguous_strides(e.shape);
      impl->dtype = dt;
      t = Tensor(std::move(impl));
    } else {
      t = empty(e.shape, dt);
      if (nbytes != 0) std::memcpy(t.raw_data(), src, nbytes);
    }
    out.tensors.insert(e.name, std::move(t));
  }
  for (const std::string& n : out.notes) detail::warn("load_safetensors", path + ": " + n);
  return out;
}

}  // namespace ditto
