#include "ditto/dtype.h"

#include <ostream>

#include "ditto/tensor.h"

namespace ditto {

const char* dtype_name(ScalarType t) {
  switch (t) {
    case kBool: return "bool";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case kFloat32: return "float32";
    case kFloat64: return "float64";
  }
  return "?";
}

std::string torch_dtype_name(ScalarType t) { return std::string("torch.") + dtype_name(t); }

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << dtype_name(t); }

const char* device_name(Device d) { return d == Device::CPU ? "cpu" : "cuda"; }

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  // bool < int32 < int64 < float32 < float64 holds for this set of dtypes.
  return static_cast<int>(a) > static_cast<int>(b) ? a : b;
}

}  // namespace ditto
