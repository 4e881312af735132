// Tensor factories.
#include <cmath>
#include <limits>

#include "core/determinism_state.h"
#include "core/dtype_dispatch.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using ops::OpId;

namespace detail {
// With deterministic mode and fill on, uninitialised memory is made recognisable (PyTorch 2.1+).
void fill_uninitialized(const Tensor& t) {
  core::dispatch_dtype(t.dtype(), [&]<class T>() {
    T v;
    if constexpr (std::is_floating_point_v<T>)
      v = std::numeric_limits<T>::quiet_NaN();
    else
      v = std::numeric_limits<T>::max();
    T* p = static_cast<T*>(t.storage()->data());
    const int64_t n = static_cast<int64_t>(t.storage()->nbytes() / sizeof(T));
    for (int64_t i = 0; i < n; ++i) p[i] = v;
  });
}
}  // namespace detail

Tensor empty(const Shape& size, ScalarType dtype) {
  Tensor t = detail::new_tensor(size, dtype, "empty");
  if (detail::deterministic_fill()) detail::fill_uninitialized(t);
  return t;
}

Tensor empty_strided(const Shape& size, const Shape& strides, ScalarType dtype) {
  DITTO_CHECK(size.size() == strides.size(), "empty_strided", "mismatch in length of strides and shape");
  detail::checked_numel(size, "empty_strided");
  int64_t extent = 1;  // 1 + largest offset
  bool empty_tensor = false;
  for (std::size_t i = 0; i < size.size(); ++i) {
    DITTO_CHECK(strides[i] >= 0, "empty_strided", "negative strides are not supported, got ", strides[i]);
    if (size[i] == 0) empty_tensor = true;
    int64_t step = 0;
    if (size[i] > 0 &&
        (__builtin_mul_overflow(size[i] - 1, strides[i], &step) || __builtin_add_overflow(extent, step, &extent)))
      fail("empty_strided", "the storage size overflows");
  }
  Tensor base = detail::new_tensor({empty_tensor ? 0 : extent}, dtype, "empty_strided");
  Tensor t = detail::make_view(base, size, strides, 0);
  if (detail::deterministic_fill()) detail::fill_uninitialized(t);
  return t;
}

Tensor full(const Shape& size, const Scalar& value, std::optional<ScalarType> dtype) {
  detail::check_fits(value, dtype.value_or(value.default_dtype()), "full");
  Tensor t = detail::new_tensor(size, dtype.value_or(value.default_dtype()), "full");
  ops::call<OpId::fill_>(Device::CPU, t, value);
  return t;
}
Tensor zeros(const Shape& size, ScalarType dtype) { return full(size, 0, dtype); }
Tensor ones(const Shape& size, ScalarType dtype) { return full(size, 1, dtype); }
Tensor empty_permuted(const Shape& size, const Shape& physical_layout, ScalarType dtype) {
  const char* op = "empty_permuted";
  const int64_t nd = static_cast<int64_t>(size.size());
  if (static_cast<int64_t>(physical_layout.size()) != nd)
    fail(op, "Number of dimensions in size does not match the length of the physical_layout; i.e. len(size) = ", nd,
         " is not equal to len(physical_layout) = ", physical_layout.size());
  std::vector<bool> seen(size.size(), false);
  Shape phys(size.size());
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t d = detail::wrap_dim(physical_layout[static_cast<std::size_t>(i)], nd, op);
    if (seen[static_cast<std::size_t>(d)]) fail(op, "physical_layout repeats dimension ", d);
    seen[static_cast<std::size_t>(d)] = true;
    phys[static_cast<std::size_t>(i)] = size[static_cast<std::size_t>(d)];
  }
  // a contiguous tensor of the permuted sizes, viewed back in logical order
  Tensor base = empty(phys, dtype);
  Shape strides(size.size());
  for (int64_t i = 0; i < nd; ++i)
    strides[static_cast<std::size_t>(detail::wrap_dim(physical_layout[static_cast<std::size_t>(i)], nd, op))] =
        base.stride(i);
  return detail::make_view(base, size, strides, 0);
}

Tensor empty_like(const Tensor& t, std::optional<ScalarType> dtype, MemoryFormat memory_format) {
  detail::check_defined(t, "empty_like");
  const ScalarType dt = dtype.value_or(t.dtype());
  switch (memory_format) {
    case MemoryFormat::Contiguous: return empty(t.sizes(), dt);
    case MemoryFormat::ChannelsLast:
      DITTO_CHECK(t.dim() == 4, "empty_like", "required rank 4 tensor to use channels_last format, got ", t.dim());
      return empty_permuted(t.sizes(), {0, 2, 3, 1}, dt);
    case MemoryFormat::ChannelsLast3d:
      DITTO_CHECK(t.dim() == 5, "empty_like", "required rank 5 tensor to use channels_last_3d format, got ", t.dim());
      return empty_permuted(t.sizes(), {0, 2, 3, 4, 1}, dt);
    case MemoryFormat::Preserve: break;
  }
  // PyTorch's preserve format: the strides of a dense layout are kept, anything else is contiguous
  if (detail::torch_is_non_overlapping_and_dense(t.sizes(), t.strides()))
    return empty_strided(t.sizes(), t.strides(), dt);
  return empty(t.sizes(), dt);
}
Tensor empty_like(const Tensor& t, MemoryFormat memory_format) { return empty_like(t, std::nullopt, memory_format); }

Tensor& empty_out(Tensor& out, const Shape& size) {
  detail::check_defined(out, "empty");
  out.resize_(size);
  if (detail::deterministic_fill()) detail::fill_uninitialized(out);
  return out;
}
Tensor zeros_like(const Tensor& t, std::optional<ScalarType> dtype) {
  return zeros(t.sizes(), dtype.value_or(t.dtype()));
}
Tensor ones_like(const Tensor& t, std::optional<ScalarType> dtype) {
  return ones(t.sizes(), dtype.value_or(t.dtype()));
}
Tensor full_like(const Tensor& t, const Scalar& value, std::optional<ScalarType> dtype) {
  return full(t.sizes(), value, dtype.value_or(t.dtype()));
}
Tensor scalar_tensor(const Scalar& value, std::optional<ScalarType> dtype) { return full({}, value, dtype); }

Tensor arange(const Scalar& end, std::optional<ScalarType> dtype) { return arange(0, end, 1, dtype); }

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype) {
  const char* op = ops::op_name(OpId::arange);
  const bool integral = !start.is_floating() && !end.is_floating() && !step.is_floating();
  const ScalarType dt = dtype.value_or(integral ? kInt64 : kFloat32);
  DITTO_CHECK(dt != kBool, op, "not implemented for 'Bool'");
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  DITTO_CHECK(st != 0, op, "step must be nonzero");
  DITTO_CHECK(std::isfinite(s) && std::isfinite(e), op, "unsupported range: ", s, " -> ", e);
  DITTO_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), op, "upper bound and larger bound inconsistent with step sign");
  double n = 0;
  double s0 = s, st0 = st;
  if (dt == kInt64) {
    // PyTorch sizes an int64 range in int64: the bounds and step are truncated first.
    const int64_t a = start.to_int(), b = end.to_int(), c = step.to_int();
    DITTO_CHECK(c != 0, op, "step must be nonzero");
    int64_t span;  // end - start must fit int64 (PyTorch: "invalid size, possible overflow?")
    DITTO_CHECK(!__builtin_sub_overflow(b, a, &span), op, "invalid size, possible overflow? (start ", a, ", end ", b,
                ")");
    const __int128 q = static_cast<__int128>(span) / c, rem = static_cast<__int128>(span) % c;  // INT64_MIN / -1 fits
    n = static_cast<double>(q + (rem != 0 && (span > 0) == (c > 0) ? 1 : 0));
    s0 = static_cast<double>(a);
    st0 = static_cast<double>(c);
  } else {
    n = std::ceil((e - s) / st);
    if (!is_floating(dt)) {  // other integer dtypes: sized in double, stepped in the dtype
      s0 = static_cast<double>(static_cast<int64_t>(s));
      st0 = static_cast<double>(static_cast<int64_t>(st));
    }
  }
  DITTO_CHECK(n >= 0 && n < 9.2e18, op, "invalid number of elements ", n);
  Tensor t = detail::new_tensor({static_cast<int64_t>(n)}, dt, op);
  ops::call<OpId::arange>(Device::CPU, t, s0, st0);
  return t;
}

Tensor linspace(double start, double end, int64_t steps, ScalarType dtype) {
  const char* op = ops::op_name(OpId::linspace);
  DITTO_CHECK(steps >= 0, op, "number of steps must be non-negative, got ", steps);
  Tensor t = detail::new_tensor({steps}, dtype, op);
  if (steps > 0) ops::call<OpId::linspace>(Device::CPU, t, start, end);
  return t;
}

Tensor eye(int64_t n, std::optional<int64_t> m, ScalarType dtype) {
  const int64_t cols = m.value_or(n);
  DITTO_CHECK(n >= 0 && cols >= 0, "eye", "n and m must be non-negative, got ", n, " and ", cols);
  Tensor t = zeros({n, cols}, dtype);
  const int64_t k = n < cols ? n : cols;
  if (k > 0) {
    // the diagonal is a strided view of stride cols + 1
    Tensor diag = detail::make_view(t, {k}, {cols + 1}, 0);
    ops::call<OpId::fill_>(Device::CPU, diag, Scalar(1));
  }
  return t;
}

namespace {
void collect(const NestedList& l, std::size_t depth, Shape& shape, std::vector<const NestedList*>& leaves,
             Scalar::Kind& kind) {
  if (l.leaf()) {
    if (depth != shape.size()) fail("tensor", "expected a sequence at depth ", depth, " but got a number");
    leaves.push_back(&l);
    if (static_cast<int>(l.kind()) > static_cast<int>(kind)) kind = l.kind();
    return;
  }
  const int64_t n = static_cast<int64_t>(l.children().size());
  if (depth == shape.size()) {
    if (!leaves.empty()) fail("tensor", "expected a number at depth ", depth, " but got a sequence");
    shape.push_back(n);
  } else if (shape[depth] != n) {
    fail("tensor", "expected sequence of length ", shape[depth], " at dim ", depth, " (got ", n, ")");
  }
  for (const NestedList& c : l.children()) collect(c, depth + 1, shape, leaves, kind);
  if (n == 0 && depth + 1 < shape.size()) fail("tensor", "ragged nested list at dim ", depth);
}
}  // namespace

Tensor tensor(const NestedList& data, std::optional<ScalarType> dtype) {
  Shape shape;
  std::vector<const NestedList*> leaves;
  Scalar::Kind kind = Scalar::Kind::Bool;
  collect(data, 0, shape, leaves, kind);
  if (leaves.empty() && data.leaf() == false && shape.size() == 1 && shape[0] == 0) kind = Scalar::Kind::Float;
  const ScalarType dt = dtype.value_or(kind == Scalar::Kind::Float ? kFloat32
                                       : kind == Scalar::Kind::Int ? kInt64
                                                                   : kBool);
  Tensor t = detail::new_tensor(shape, dt, "tensor");
  core::dispatch_dtype(dt, [&]<class T>() {
    T* p = t.data_ptr<T>();
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      const Scalar& s = leaves[i]->scalar();
      if constexpr (std::is_floating_point_v<T>)
        p[i] = static_cast<T>(s.to_double());
      else
        p[i] = s.is_floating() ? core::convert<T>(s.to_double()) : s.to<T>();
    }
  });
  return t;
}

Tensor tensor(std::initializer_list<NestedList> data, std::optional<ScalarType> dtype) {
  return tensor(NestedList(data), dtype);
}

namespace {
template <class T>
Tensor from_vec(const std::vector<T>& data, const Shape& size) {
  const int64_t n = detail::checked_numel(size, "from_vector");
  DITTO_CHECK(n == static_cast<int64_t>(data.size()), "from_vector", "shape ", detail::shape_str(size), " needs ", n,
              " values, got ", data.size());
  Tensor t = detail::new_tensor(size, dtype_of<T>::value, "from_vector");
  T* p = t.data_ptr<T>();
  for (int64_t i = 0; i < n; ++i) p[i] = data[i];
  return t;
}
}  // namespace

Tensor from_vector(const std::vector<float>& d, const Shape& s) { return from_vec(d, s); }
Tensor from_vector(const std::vector<double>& d, const Shape& s) { return from_vec(d, s); }
Tensor from_vector(const std::vector<int64_t>& d, const Shape& s) { return from_vec(d, s); }
Tensor from_vector(const std::vector<bool>& d, const Shape& s) { return from_vec(d, s); }

template <class T>
Tensor tensor(const std::vector<T>& data, std::optional<ScalarType> dtype) {
  Tensor t = from_vec(data, {static_cast<int64_t>(data.size())});
  return dtype ? t.to(*dtype) : t;
}
template Tensor tensor<float>(const std::vector<float>&, std::optional<ScalarType>);
template Tensor tensor<double>(const std::vector<double>&, std::optional<ScalarType>);
template Tensor tensor<int64_t>(const std::vector<int64_t>&, std::optional<ScalarType>);
template Tensor tensor<int32_t>(const std::vector<int32_t>&, std::optional<ScalarType>);
template Tensor tensor<bool>(const std::vector<bool>&, std::optional<ScalarType>);

template <class T>
std::vector<T> to_vector(const Tensor& t) {
  DITTO_CHECK(t.dtype() == dtype_of<T>::value, "to_vector", "expected dtype ", dtype_name(dtype_of<T>::value),
              " but the tensor has dtype ", dtype_name(t.dtype()));
  const Tensor c = t.contiguous();
  const T* p = static_cast<const T*>(c.raw_data());
  return std::vector<T>(p, p + c.numel());
}
template std::vector<float> to_vector<float>(const Tensor&);
template std::vector<double> to_vector<double>(const Tensor&);
template std::vector<int64_t> to_vector<int64_t>(const Tensor&);
template std::vector<int32_t> to_vector<int32_t>(const Tensor&);
template std::vector<bool> to_vector<bool>(const Tensor&);

}  // namespace ditto
