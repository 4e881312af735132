#pragma once
// Shared by the files of the extension ditto._C: how Python values become ditto's (dtypes,
// numbers, shapes, dims) and back, with PyTorch's rules. Only ditto's public headers are used.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "ditto/ditto.h"

namespace py = pybind11;

namespace ditto::python {

// A ditto.dtype object: one per ScalarType, made once at import, so `x.dtype is ditto.float32`.
struct PyDtype {
  ScalarType type;
};
std::array<py::object, 5>& dtype_objects();
// PyTorch also takes Python's own types for a dtype: float -> float64, int -> int64, bool.
bool dtype_from_python(py::handle h, ScalarType& out);

// A Python number (bool, int, float, or anything with __index__ / __float__, as NumPy's scalars)
// as a Scalar. Returns false when h is not a number.
bool scalar_from_python(py::handle h, Scalar& out);
py::object scalar_to_python(const Scalar& s);

// A shape given as PyTorch takes it: f(2, 3), f((2, 3)), f([2, 3]) or f(ditto.Size([2, 3])).
Shape shape_from_args(const py::args& args, const char* op);
Shape shape_from_sequence(py::handle h, const char* op);
// A dim argument that may be an int, a tuple/list of ints or None (every dim).
DimList dims_from_python(py::handle h, const char* op);
// ditto.Size (a tuple subclass, defined in ditto/__init__.py and registered at import).
py::object make_size(const Shape& s);
void set_size_class(py::object cls);

// ditto.tensor(data): nested sequences of numbers (or a number) copied into a new tensor; the
// dtype is PyTorch's inference (bool, int64, or float32 when any element is a float) unless given.
Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype);

// A generator= argument: None (the default generator) or a ditto.Generator; else TypeError.
Generator* generator_from_python(py::handle h);

// Tensor or number as the other operand of a binary op.
inline bool is_tensor(py::handle h) { return py::isinstance<Tensor>(h); }

// The other operand of a binary op (a + b, add(a, b), a += b): runs with_tensor(o) when it is a
// Tensor, with_scalar(s) when it is a number, without the GIL; false (nothing run) when it is
// neither, so the caller returns NotImplemented (operators) or raises TypeError (functions).
template <class FT, class FS>
bool with_other(py::handle other, FT&& with_tensor, FS&& with_scalar) {
  if (is_tensor(other)) {
    const Tensor& o = other.cast<const Tensor&>();
    py::gil_scoped_release nogil;
    with_tensor(o);
    return true;
  }
  Scalar s;
  if (!scalar_from_python(other, s)) return false;
  py::gil_scoped_release nogil;
  with_scalar(s);
  return true;
}

[[noreturn]] void raise_type_error(const std::string& message);
[[noreturn]] void raise_index_error(const std::string& message);

// Parts of the module, one per file.
void bind_mode(py::module_& m);         // module.cpp: mode, warnings, errors, generator
void bind_tensor(py::module_& m);       // tensor.cpp: the Tensor class, operators, indexing
void bind_ops(py::module_& m);          // ops.cpp: factories and ops, as functions and methods
void bind_nn(py::module_& m);           // nn.cpp: nn.functional, nn.init, optimizers
void bind_interop(py::module_& m);      // interop.cpp: NumPy and DLPack
void bind_serialize(py::module_& m);    // serialize.cpp: safetensors files
void bind_distributed(py::module_& m);  // distributed.cpp: process group, DistributedDataParallel, samplers

}  // namespace ditto::python

namespace pybind11::detail {

template <>
struct type_caster<ditto::ScalarType> {
  PYBIND11_TYPE_CASTER(ditto::ScalarType, const_name("ditto.dtype"));
  bool load(handle src, bool) { return ditto::python::dtype_from_python(src, value); }
  static handle cast(ditto::ScalarType t, return_value_policy, handle) {
    return ditto::python::dtype_objects()[static_cast<int>(t)].inc_ref();
  }
};

template <>
struct type_caster<ditto::Scalar> {
  PYBIND11_TYPE_CASTER(ditto::Scalar, const_name("Number"));
  bool load(handle src, bool) { return ditto::python::scalar_from_python(src, value); }
  static handle cast(const ditto::Scalar& s, return_value_policy, handle) {
    return ditto::python::scalar_to_python(s).release();
  }
};

}  // namespace pybind11::detail
