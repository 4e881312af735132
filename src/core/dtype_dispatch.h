#pragma once
// dtype dispatch and element conversion, for kernels and ops alike.
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ditto/tensor_base.h"

namespace ditto::core {

// Calls f.template operator()<T>() with T the C++ type of dtype.
template <class F>
decltype(auto) dispatch_dtype(ScalarType dtype, F&& f) {
  switch (dtype) {
    case kBool: return f.template operator()<bool>();
    case kInt32: return f.template operator()<int32_t>();
    case kInt64: return f.template operator()<int64_t>();
    case kFloat32: return f.template operator()<float>();
    case kFloat64: break;
  }
  return f.template operator()<double>();
}

template <class F>
decltype(auto) dispatch_floating(ScalarType dtype, F&& f) {
  if (dtype == kFloat32) return f.template operator()<float>();
  return f.template operator()<double>();
}

// Calls f.template operator()<I>() with I the C++ type of an int32 or int64 index tensor.
template <class F>
void with_index(const TensorBase& index, F f) {
  if (index.dtype() == kInt32)
    f.template operator()<int32_t>();
  else
    f.template operator()<int64_t>();
}

// Conversion between element types without undefined behaviour: floating values that do not fit
// an integer type (and NaN) become its minimum, as x86's conversion instructions give.
template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
    constexpr double hi = -lo;  // 2^(bits-1), exactly representable
    const double d = static_cast<double>(v);
    if (!(d >= lo && d < hi)) return std::numeric_limits<To>::min();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ditto::core
