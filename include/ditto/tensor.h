#pragma once
// The tensor: a strided view of shared storage, with its dtype. Copying a Tensor copies the
// handle, not the data (as in libtorch).
#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ditto/dtype.h"
#include "ditto/error.h"
#include "ditto/scalar.h"

namespace ditto {

enum class Device : uint8_t { CPU = 0, CUDA = 1 };
const char* device_name(Device d);

using Shape = std::vector<int64_t>;
class Generator;

// The dims a reduction runs over, as libtorch's IntArrayRef takes them: a braced list {0, 2}, a
// Shape, or one int (x.sum(1) is x.sum({1})). An empty list means every dim.
class DimList {
 public:
  DimList() = default;
  DimList(std::initializer_list<int64_t> dims) : dims_(dims) {}
  DimList(const Shape& dims) : dims_(dims) {}
  DimList(int64_t dim) : dims_{dim} {}
  operator const Shape&() const { return dims_; }

 private:
  Shape dims_;
};
class Tensor;

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

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

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

  // --- views (share storage)
  Tensor view(const Shape& shape) const;
  Tensor reshape(const Shape& shape) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor t() const;
  Tensor permute(const Shape& dims) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start = std::nullopt, std::optional<int64_t> end = std::nullopt,
               int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor expand(const Shape& shape) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(const std::vector<int64_t>& split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(const std::vector<int64_t>& split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor movedim(const DimList& source, const DimList& destination) const;
  Tensor swapaxes(int64_t axis0, int64_t axis1) const;
  Tensor operator[](int64_t index) const { return select(0, index); }

  // --- copies
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor repeat(const Shape& repeats) const;
  Tensor tile(const Shape& reps) const;
  Tensor flip(const DimList& dims) const;
  Tensor roll(const DimList& shifts, const DimList& dims = {}) const;
  Tensor to(ScalarType dtype) const;
  Tensor& copy_(const Tensor& src);
  Tensor& fill_(const Scalar& value);
  Tensor& zero_();
  Tensor& resize_(const Shape& shape);

  // --- elementwise
  Tensor add(const Tensor& o, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& o, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& o) const;
  Tensor div(const Tensor& o) const;
  Tensor& add_(const Tensor& o, const Scalar& alpha = 1);
  Tensor& sub_(const Tensor& o, const Scalar& alpha = 1);
  Tensor& mul_(const Tensor& o);
  Tensor& div_(const Tensor& o);
  Tensor& add_(const Scalar& o);
  Tensor& sub_(const Scalar& o);
  Tensor& mul_(const Scalar& o);
  Tensor& div_(const Scalar& o);
  Tensor neg() const;
  // The ops with a DITTO_UNARY row (ditto/ops.h)
  // BEGIN GENERATED BY tools/gen_op_headers.py from the DITTO_UNARY rows: do not edit by hand
  Tensor abs() const;
  Tensor sign() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor sigmoid() const;
  Tensor tanh() const;
  Tensor relu() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor erf() const;
  Tensor log1p() const;
  Tensor expm1() const;
  Tensor reciprocal() const;
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round() const;
  Tensor trunc() const;
  // END GENERATED BY tools/gen_op_headers.py
  Tensor pow(const Scalar& exponent) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp_min(const Scalar& min) const;
  Tensor clamp_max(const Scalar& max) const;
  Tensor maximum(const Tensor& o) const;
  Tensor minimum(const Tensor& o) const;
  Tensor fmod(const Tensor& o) const;
  Tensor fmod(const Scalar& o) const;
  Tensor remainder(const Tensor& o) const;
  Tensor remainder(const Scalar& o) const;
  Tensor eq(const Tensor& o) const;
  Tensor ne(const Tensor& o) const;
  Tensor lt(const Tensor& o) const;
  Tensor le(const Tensor& o) const;
  Tensor gt(const Tensor& o) const;
  Tensor ge(const Tensor& o) const;
  Tensor eq(const Scalar& o) const;
  Tensor ne(const Scalar& o) const;
  Tensor lt(const Scalar& o) const;
  Tensor le(const Scalar& o) const;
  Tensor gt(const Scalar& o) const;
  Tensor ge(const Scalar& o) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;

  // --- reductions (dims: see DimList; an empty list reduces over every dim)
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(const DimList& dims, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean() const;
  Tensor mean(const DimList& dims, bool keepdim = false) const;
  Tensor amax(const DimList& dims = {}, bool keepdim = false) const;
  Tensor amin(const DimList& dims = {}, bool keepdim = false) const;
  Tensor prod() const;
  Tensor prod(int64_t dim, bool keepdim = false) const;
  Tensor max() const;
  Tensor min() const;
  // values and indices along one dim, as torch.max(x, dim)
  std::pair<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  std::pair<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  // var/std over dims (all when empty); unbiased divides by n - 1
  Tensor var(const DimList& dims = {}, bool unbiased = true, bool keepdim = false) const;
  Tensor std(const DimList& dims = {}, bool unbiased = true, bool keepdim = false) const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;
  Tensor logsumexp(const DimList& dims, bool keepdim = false) const;
  Tensor norm(const Scalar& p = 2, const DimList& dims = {}, bool keepdim = false) const;

  // --- linear algebra and indexing
  Tensor matmul(const Tensor& o) const;
  Tensor mm(const Tensor& o) const;
  Tensor bmm(const Tensor& o) const;
  Tensor outer(const Tensor& o) const;
  Tensor baddbmm(const Tensor& b1, const Tensor& b2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src);
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value);
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src);
  // Scatter-style ops (see ops.h): deterministic mode switches them to their deterministic
  // kernels; put_ without accumulate has none and is refused.
  // Selection by data (ops.h)
  Tensor nonzero() const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  Tensor& masked_scatter_(const Tensor& mask, const Tensor& source);
  Tensor take(const Tensor& index) const;
  Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value);
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source);
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor& index_put_(const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false);
  Tensor index_put(const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false) const;
  Tensor index(const std::vector<Tensor>& indices) const;  // x[i0, i1, ...] (ops.h)
  Tensor& put_(const Tensor& index, const Tensor& source, bool accumulate = false);
  Tensor put(const Tensor& index, const Tensor& source, bool accumulate = false) const;
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                        bool include_self = true) const;

  // --- random, in place (PyTorch's CPU streams; see random.h)
  Tensor& uniform_(double from = 0.0, double to = 1.0, Generator* gen = nullptr);
  Tensor& normal_(double mean = 0.0, double std = 1.0, Generator* gen = nullptr);
  Tensor& bernoulli_(double p = 0.5, Generator* gen = nullptr);
  Tensor& random_(int64_t from, int64_t to, Generator* gen = nullptr);

  // --- autograd (see autograd.h)
  bool requires_grad() const;
  // Marks a leaf as needing gradients. Throws for non-leaf tensors and non-floating dtypes.
  Tensor& requires_grad_(bool requires_grad = true);
  // Accumulated gradient of a leaf (undefined until a backward pass reaches it).
  const Tensor& grad() const;
  Tensor& mutable_grad();
  bool is_leaf() const;
  // PyTorch's name of the node that made this tensor, e.g. "AddBackward0"; empty for leaves.
  std::string grad_fn_name() const;
  // Backpropagates from this tensor: a scalar by default, or with the given gradient.
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false) const;
  // Keeps .grad() for this non-leaf after backward.
  Tensor& retain_grad();
  // Same data, no history.
  Tensor detach() const;
  // Version of the storage, bumped by every in-place write (checked by autograd).
  uint64_t version() const;

  std::string to_string() const;

 private:
  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);
std::ostream& operator<<(std::ostream& os, ScalarType t);

// --- operators (as in libtorch)
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Scalar& b);

}  // namespace ditto
