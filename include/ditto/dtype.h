#pragma once
// Element types. The set and promotion rules follow PyTorch's (bool < integral < floating).
#include <cstddef>
#include <cstdint>
#include <string>

namespace ditto {

enum class ScalarType : int8_t { Bool = 0, Int32 = 1, Int64 = 2, Float32 = 3, Float64 = 4 };
using Dtype = ScalarType;

inline constexpr ScalarType kBool = ScalarType::Bool;
inline constexpr ScalarType kInt32 = ScalarType::Int32;
inline constexpr ScalarType kInt64 = ScalarType::Int64;
inline constexpr ScalarType kFloat32 = ScalarType::Float32;
inline constexpr ScalarType kFloat64 = ScalarType::Float64;
inline constexpr ScalarType kFloat = ScalarType::Float32;
inline constexpr ScalarType kDouble = ScalarType::Float64;
inline constexpr ScalarType kLong = ScalarType::Int64;
inline constexpr ScalarType kInt = ScalarType::Int32;

constexpr std::size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return 1;
    case ScalarType::Int32: return 4;
    case ScalarType::Int64: return 8;
    case ScalarType::Float32: return 4;
    case ScalarType::Float64: return 8;
  }
  return 0;
}
constexpr bool is_floating(ScalarType t) { return t == kFloat32 || t == kFloat64; }
constexpr bool is_integral(ScalarType t, bool include_bool = false) {
  return t == kInt32 || t == kInt64 || (include_bool && t == kBool);
}
// "float32", "int64", ...
const char* dtype_name(ScalarType t);
// PyTorch's spelling: "torch.float32", ...
std::string torch_dtype_name(ScalarType t);
// Type promotion of two tensor dtypes (PyTorch's promote_types for this set).
ScalarType promote_types(ScalarType a, ScalarType b);

template <class T>
struct dtype_of;
template <>
struct dtype_of<bool> {
  static constexpr ScalarType value = kBool;
};
template <>
struct dtype_of<int32_t> {
  static constexpr ScalarType value = kInt32;
};
template <>
struct dtype_of<int64_t> {
  static constexpr ScalarType value = kInt64;
};
template <>
struct dtype_of<float> {
  static constexpr ScalarType value = kFloat32;
};
template <>
struct dtype_of<double> {
  static constexpr ScalarType value = kFloat64;
};

}  // namespace ditto
