// Tensor metadata, storage and the geometry of views.
#include "ditto/tensor.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>

#include "core/allocator.h"
#include "core/tensor_impl.h"

namespace ditto {

Storage::Storage(std::size_t nbytes) : data_(detail::allocate(nbytes)), nbytes_(nbytes) {}
Storage::Storage(void* data, std::size_t nbytes, std::function<void(void*)> release)
    : data_(data), nbytes_(nbytes), release_(std::move(release)) {}
Storage::~Storage() {
  if (release_)
    release_(data_);
  else
    detail::deallocate(data_, nbytes_);
}

void Storage::grow(std::size_t nbytes) {
  if (nbytes <= nbytes_) return;
  void* p = detail::allocate(nbytes);
  if (nbytes_) std::memcpy(p, data_, nbytes_);
  if (release_) {
    release_(data_);
    release_ = nullptr;
  } else {
    detail::deallocate(data_, nbytes_);
  }
  data_ = p;
  nbytes_ = nbytes;
}

namespace detail {

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t n = ndim > 0 ? ndim : 1;  // a 0-dim tensor accepts dim 0 and -1, as in PyTorch
  if (dim < -n || dim >= n)
    fail_index(op, "dimension out of range (expected to be in range of [", -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

int64_t checked_numel(const Shape& sizes, const char* op) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s < 0) fail(op, "negative dimension ", s, " in shape ", shape_str(sizes));
    if (__builtin_mul_overflow(n, s, &n))
      fail(op, "the number of elements of shape ", shape_str(sizes), " overflows int64");
  }
  return n;
}

Shape contiguous_strides(const Shape& sizes) {
  Shape st(sizes.size());
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    st[i] = s;
    // Past an empty dim the product can exceed int64 (zeros({1 << 62, 0, 3})): such strides
    // never address an element, so they saturate instead of overflowing.
    if (__builtin_mul_overflow(s, std::max<int64_t>(sizes[i], 1), &s)) s = std::numeric_limits<int64_t>::max();
  }
  return st;
}

std::string shape_str(const Shape& s) {
  std::ostringstream o;
  o << '(';
  for (std::size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  if (s.size() == 1) o << ',';
  o << ')';
  return o.str();
}

std::string shape_x(const Shape& s) {
  std::ostringstream o;
  for (std::size_t i = 0; i < s.size(); ++i) o << (i ? "x" : "") << s[i];
  return o.str();
}

Tensor new_tensor(const Shape& sizes, ScalarType dtype, const char* op) {
  const int64_t n = checked_numel(sizes, op);
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(n), element_size(dtype), &bytes) ||
      bytes > (std::size_t(1) << 46))
    fail(op, "shape ", shape_str(sizes), " needs more memory than can be allocated");
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>(bytes);
  impl->sizes = sizes;
  impl->strides = contiguous_strides(sizes);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor make_view(const TensorBase& t, Shape sizes, Shape strides, int64_t offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = t.storage();
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->offset = offset;
  impl->dtype = t.dtype();
  impl->device = t.device();
  return Tensor(std::move(impl));
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      fail(op, "shapes ", shape_str(a), " and ", shape_str(b), " cannot be broadcast (size ", da, " vs ", db,
           " at dimension ", i, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool is_contiguous_geometry(const Shape& sizes, const Shape& strides) {
  for (int64_t s : sizes)
    if (s == 0) return true;  // a tensor with no elements is contiguous (PyTorch)
  int64_t expected = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (sizes[i] != 1 && strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

}  // namespace detail

namespace {
const TensorImpl& need(const TensorBase& t, const char* what) {
  if (!t.defined()) throw Error(std::string("[") + what + "] called on an undefined tensor");
  return *t.impl();
}
}  // namespace

const Shape& TensorBase::sizes() const { return need(*this, "sizes").sizes; }
const Shape& TensorBase::strides() const { return need(*this, "strides").strides; }
int64_t TensorBase::dim() const { return static_cast<int64_t>(need(*this, "dim").sizes.size()); }
// A 0-dim tensor has no size or stride to give (wrap_dim would accept 0 and -1 for it).
int64_t TensorBase::size(int64_t d) const {
  if (dim() == 0) detail::fail_index("size", "dimension specified as ", d, " but tensor has no dimensions");
  return sizes()[detail::wrap_dim(d, dim(), "size")];
}
int64_t TensorBase::stride(int64_t d) const {
  if (dim() == 0) detail::fail_index("stride", "dimension specified as ", d, " but tensor has no dimensions");
  return strides()[detail::wrap_dim(d, dim(), "stride")];
}
int64_t TensorBase::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes()) n *= s;
  return n;
}
int64_t TensorBase::storage_offset() const { return need(*this, "storage_offset").offset; }
ScalarType TensorBase::dtype() const { return need(*this, "dtype").dtype; }
Device TensorBase::device() const { return need(*this, "device").device; }
const std::shared_ptr<Storage>& TensorBase::storage() const { return need(*this, "storage").storage; }
bool TensorBase::is_contiguous() const { return detail::is_contiguous_geometry(sizes(), strides()); }
uint64_t TensorBase::version() const { return storage()->version(); }

void* TensorBase::raw_data() const {
  const TensorImpl& i = need(*this, "data_ptr");
  return static_cast<char*>(i.storage->data()) + i.offset * static_cast<int64_t>(ditto::element_size(i.dtype));
}

template <class T>
T* TensorBase::data_ptr() const {
  DITTO_CHECK(dtype() == dtype_of<T>::value, "data_ptr", "expected dtype ", dtype_name(dtype_of<T>::value),
              " but the tensor has dtype ", dtype_name(dtype()));
  return static_cast<T*>(raw_data());
}
template bool* TensorBase::data_ptr<bool>() const;
template int32_t* TensorBase::data_ptr<int32_t>() const;
template int64_t* TensorBase::data_ptr<int64_t>() const;
template float* TensorBase::data_ptr<float>() const;
template double* TensorBase::data_ptr<double>() const;

Scalar TensorBase::item() const {
  DITTO_CHECK(numel() == 1, "item", "a Tensor with ", numel(), " elements cannot be converted to Scalar");
  const void* p = raw_data();
  switch (dtype()) {
    case kBool: return Scalar(*static_cast<const bool*>(p));
    case kInt32: return Scalar(*static_cast<const int32_t*>(p));
    case kInt64: return Scalar(*static_cast<const int64_t*>(p));
    case kFloat32: return Scalar(*static_cast<const float*>(p));
    case kFloat64: return Scalar(*static_cast<const double*>(p));
  }
  return Scalar();
}

template <class T>
T TensorBase::item() const {
  return item().to<T>();
}
template bool TensorBase::item<bool>() const;
template int32_t TensorBase::item<int32_t>() const;
template int64_t TensorBase::item<int64_t>() const;
template float TensorBase::item<float>() const;
template double TensorBase::item<double>() const;

}  // namespace ditto
