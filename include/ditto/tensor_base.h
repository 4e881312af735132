#pragma once
// The tensor's handle without its ops: the storage, the geometry, the dtype and raw access to the
// data. Kernels (src/cpu) take TensorBase, so that adding an op to ditto::Tensor (tensor.h)
// recompiles the code that calls ops and not every kernel (libtorch's at::TensorBase does the
// same). Copying a TensorBase copies the handle, not the data.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "ditto/dtype.h"
#include "ditto/error.h"
#include "ditto/scalar.h"

namespace ditto {

enum class Device : uint8_t { CPU = 0, CUDA = 1 };
const char* device_name(Device d);

using Shape = std::vector<int64_t>;

namespace autograd {
struct AutogradMeta;
}

// Bytes owned by one allocation; tensors share it through views.
class Storage {
 public:
  explicit Storage(std::size_t nbytes);
  // Memory owned by someone else (a NumPy array, a DLPack producer): release(data) is called once,
  // when the last view is gone or when grow() moves the bytes into ditto's own allocation.
  Storage(void* data, std::size_t nbytes, std::function<void(void*)> release);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  void* data() const { return data_; }
  std::size_t nbytes() const { return nbytes_; }
  // Grows (never shrinks) the allocation, keeping the old bytes.
  void grow(std::size_t nbytes);
  // Bumped by every in-place write, so autograd can tell a saved tensor was modified.
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void* data_;
  std::size_t nbytes_;
  std::function<void(void*)> release_;  // set for external memory
  std::atomic<uint64_t> version_{0};
};

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape sizes;
  Shape strides;       // in elements
  int64_t offset = 0;  // in elements
  ScalarType dtype = kFloat32;
  Device device = Device::CPU;
  std::shared_ptr<autograd::AutogradMeta> autograd;
};

class TensorBase {
 public:
  TensorBase() = default;
  explicit TensorBase(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const TensorBase& o) const { return impl_ == o.impl_; }

  // --- metadata
  const Shape& sizes() const;
  const Shape& strides() const;
  Shape shape() const { return sizes(); }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const;
  int64_t numel() const;
  int64_t storage_offset() const;
  ScalarType dtype() const;
  ScalarType scalar_type() const { return dtype(); }
  Device device() const;
  bool is_contiguous() const;
  std::size_t element_size() const { return ditto::element_size(dtype()); }
  const std::shared_ptr<Storage>& storage() const;

  template <class T>
  T* data_ptr() const;
  void* raw_data() const;  // address of element 0 (storage + offset)
  template <class T>
  T item() const;
  Scalar item() const;

  // Version of the storage, bumped by every in-place write (checked by autograd).
  uint64_t version() const;

 protected:
  std::shared_ptr<TensorImpl> impl_;
};

}  // namespace ditto
