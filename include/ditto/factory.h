#pragma once
// Tensor factories, libtorch-style: shape as a braced list or std::vector<int64_t>, then dtype.
#include <initializer_list>
#include <vector>

#include "ditto/tensor.h"

namespace ditto {

// How a new tensor's dims are laid out in memory (PyTorch's memory formats).
enum class MemoryFormat : uint8_t {
  Contiguous,     // row-major
  Preserve,       // *_like: the source's strides where they are dense, else contiguous
  ChannelsLast,   // 4-D, laid out as (N, H, W, C)
  ChannelsLast3d  // 5-D, laid out as (N, D, H, W, C)
};

// Uninitialised tensors. Under deterministic mode with fill_uninitialized_memory (the default)
// they are filled with NaN (floating) or the dtype's maximum (integers; true for bool).
Tensor empty(const Shape& size, ScalarType dtype = kFloat32);
Tensor empty_strided(const Shape& size, const Shape& strides, ScalarType dtype = kFloat32);
// size's dims laid out in memory in the order physical_layout gives, outermost first:
// empty_permuted({2, 3, 5}, {1, 0, 2}) has strides (5, 10, 1).
Tensor empty_permuted(const Shape& size, const Shape& physical_layout, ScalarType dtype = kFloat32);
// libtorch's at::empty_out: out resized to size (keeping its dtype), then filled as empty().
Tensor& empty_out(Tensor& out, const Shape& size);
Tensor zeros(const Shape& size, ScalarType dtype = kFloat32);
Tensor ones(const Shape& size, ScalarType dtype = kFloat32);
Tensor full(const Shape& size, const Scalar& value, std::optional<ScalarType> dtype = std::nullopt);
Tensor empty_like(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt,
                  MemoryFormat memory_format = MemoryFormat::Preserve);
Tensor empty_like(const Tensor& t, MemoryFormat memory_format);
Tensor zeros_like(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
Tensor ones_like(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
Tensor full_like(const Tensor& t, const Scalar& value, std::optional<ScalarType> dtype = std::nullopt);
// arange(end), arange(start, end, step): int64 when every argument is integral, else float32.
Tensor arange(const Scalar& end, std::optional<ScalarType> dtype = std::nullopt);
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1,
              std::optional<ScalarType> dtype = std::nullopt);
Tensor linspace(double start, double end, int64_t steps, ScalarType dtype = kFloat32);
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, ScalarType dtype = kFloat32);
// A 0-dim tensor holding one number (dtype: the number's default unless given).
Tensor scalar_tensor(const Scalar& value, std::optional<ScalarType> dtype = std::nullopt);

// ditto::tensor({{1.0, 2.0}, {3.0, 4.0}}): nested lists; floating literals give float32,
// integer literals int64 and bool literals bool, as in PyTorch.
class NestedList {
 public:
  NestedList(double v) : scalar_(v), kind_(Scalar::Kind::Float), leaf_(true) {}
  NestedList(float v) : scalar_(static_cast<double>(v)), kind_(Scalar::Kind::Float), leaf_(true) {}
  NestedList(int v) : scalar_(static_cast<int64_t>(v)), kind_(Scalar::Kind::Int), leaf_(true) {}
  NestedList(long v) : scalar_(static_cast<int64_t>(v)), kind_(Scalar::Kind::Int), leaf_(true) {}
  NestedList(long long v) : scalar_(static_cast<int64_t>(v)), kind_(Scalar::Kind::Int), leaf_(true) {}
  NestedList(bool v) : scalar_(v), kind_(Scalar::Kind::Bool), leaf_(true) {}
  NestedList(std::initializer_list<NestedList> children) : children_(children) {}
  bool leaf() const { return leaf_; }
  const Scalar& scalar() const { return scalar_; }
  Scalar::Kind kind() const { return kind_; }
  const std::vector<NestedList>& children() const { return children_; }

 private:
  Scalar scalar_;
  Scalar::Kind kind_ = Scalar::Kind::Bool;
  bool leaf_ = false;
  std::vector<NestedList> children_;
};

Tensor tensor(const NestedList& data, std::optional<ScalarType> dtype = std::nullopt);
Tensor tensor(std::initializer_list<NestedList> data, std::optional<ScalarType> dtype = std::nullopt);
template <class T>
Tensor tensor(const std::vector<T>& data, std::optional<ScalarType> dtype = std::nullopt);
// Copies raw values (row-major) into a new tensor of the given shape.
Tensor from_vector(const std::vector<float>& data, const Shape& size);
Tensor from_vector(const std::vector<double>& data, const Shape& size);
Tensor from_vector(const std::vector<int64_t>& data, const Shape& size);
Tensor from_vector(const std::vector<bool>& data, const Shape& size);

template <class T>
std::vector<T> to_vector(const Tensor& t);  // row-major copy; T must match t.dtype()

}  // namespace ditto
