// NumPy and DLPack, both ways, without copies where the layout allows: ditto.from_numpy,
// Tensor.numpy(), ditto.from_dlpack, Tensor.__dlpack__ / __dlpack_device__ (so that
// torch.from_dlpack(ditto_tensor) and ditto.from_dlpack(torch_tensor) share memory).
#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>

#include "common.h"

namespace ditto::python {
namespace {

// DLPack 0.8's code for bool (Debian's dlpack 0.6 header predates it).
constexpr uint8_t kDLBoolCode = 6;

// Runs release with the GIL held, unless the interpreter is already gone.
void with_gil(const std::function<void()>& f) {
  if (!Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  f();
}

// A tensor over memory someone else owns; strides in elements.
Tensor external_tensor(void* data, Shape sizes, Shape strides, ScalarType dtype, std::function<void(void*)> release,
                       const char* op) {
  std::size_t extent = 0;  // elements spanned
  bool empty = false;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) empty = true;
    if (strides[i] < 0)
      throw py::value_error(std::string(op) +
                            ": at least one stride in the given array is negative; negative strides are not supported "
                            "(copy the array first)");
  }
  if (!empty) {
    extent = 1;
    for (std::size_t i = 0; i < sizes.size(); ++i) extent += static_cast<std::size_t>((sizes[i] - 1) * strides[i]);
  }
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>(data, extent * element_size(dtype), std::move(release));
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->offset = 0;
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor from_numpy(py::array a) {
  const py::dtype dt = a.dtype();
  ScalarType t;
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'f' && size == 4)
    t = kFloat32;
  else if (kind == 'f' && size == 8)
    t = kFloat64;
  else if (kind == 'i' && size == 8)
    t = kInt64;
  else if (kind == 'i' && size == 4)
    t = kInt32;
  else if (kind == 'b')
    t = kBool;
  else
    raise_type_error("can't convert np.ndarray of type " + std::string(py::str(py::handle(dt))) +
                     ". The only supported types are: float64, float32, int64, int32, and bool.");
  if (!a.attr("flags").attr("aligned").cast<bool>())
    throw py::value_error("from_numpy: the array is not aligned; copy it first");
  const char byteorder = dt.attr("byteorder").cast<std::string>()[0];
  if (byteorder == '>') throw py::value_error("from_numpy: given numpy array has byte order different from the native");
  if (!a.writeable())
    PyErr_WarnEx(PyExc_UserWarning,
                 "The given NumPy array is not writable, and ditto does not support non-writable tensors. Writing to "
                 "the tensor writes to the array's memory.",
                 1);
  Shape sizes, strides;
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    sizes.push_back(a.shape(i));
    if (a.strides(i) % static_cast<py::ssize_t>(size) != 0)
      throw py::value_error("from_numpy: given numpy array strides not a multiple of the element byte size");
    strides.push_back(a.strides(i) / static_cast<py::ssize_t>(size));
  }
  PyObject* owner = a.ptr();
  Py_INCREF(owner);
  return external_tensor(
      const_cast<void*>(a.data()), std::move(sizes), std::move(strides), t,
      [owner](void*) { with_gil([owner] { Py_DECREF(owner); }); }, "from_numpy");
}

// A NumPy array over the tensor's memory; the array keeps the storage alive.
py::array to_numpy(const Tensor& t) {
  if (t.requires_grad())
    throw Error("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
  auto* keep = new std::shared_ptr<Storage>(t.storage());
  py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<Storage>*>(p); });
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end()), strides;
  for (int64_t s : t.strides()) strides.push_back(static_cast<py::ssize_t>(s * static_cast<int64_t>(t.element_size())));
  // ditto's dtype names are NumPy's
  return py::array(py::dtype(dtype_name(t.dtype())), shape, strides, t.raw_data(), base);
}

// --- DLPack
struct Exported {
  Tensor tensor;  // keeps the storage alive
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed{};
};

py::capsule to_dlpack(const Tensor& t) {
  if (t.requires_grad()) throw Error("Can't export a Tensor that requires grad to DLPack. Use tensor.detach() first.");
  auto* e = new Exported{t, t.sizes(), t.strides(), {}};
  DLTensor& d = e->managed.dl_tensor;
  d.data = t.raw_data();
  d.device = DLDevice{kDLCPU, 0};
  d.ndim = static_cast<int32_t>(t.dim());
  switch (t.dtype()) {
    case kBool: d.dtype = DLDataType{kDLBoolCode, 8, 1}; break;
    case kInt32: d.dtype = DLDataType{kDLInt, 32, 1}; break;
    case kInt64: d.dtype = DLDataType{kDLInt, 64, 1}; break;
    case kFloat32: d.dtype = DLDataType{kDLFloat, 32, 1}; break;
    case kFloat64: d.dtype = DLDataType{kDLFloat, 64, 1}; break;
  }
  d.shape = e->shape.data();
  d.strides = e->strides.data();
  d.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = [](DLManagedTensor* m) { delete static_cast<Exported*>(m->manager_ctx); };
  // A capsule nobody consumed (still named "dltensor") frees the tensor itself.
  PyObject* cap = PyCapsule_New(&e->managed, "dltensor", [](PyObject* c) {
    if (PyCapsule_IsValid(c, "dltensor")) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
      if (m && m->deleter) m->deleter(m);
    }
  });
  if (!cap) throw py::error_already_set();
  return py::reinterpret_steal<py::capsule>(cap);
}

Tensor from_dlpack(py::object obj) {
  py::object cap = obj;
  if (py::hasattr(obj, "__dlpack__")) cap = obj.attr("__dlpack__")();
  if (!PyCapsule_IsValid(cap.ptr(), "dltensor"))
    raise_type_error("from_dlpack: expected an object with __dlpack__ or an unconsumed DLPack capsule");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
  const DLTensor& d = m->dl_tensor;
  auto fail = [&](const std::string& why) {
    // not consumed: the capsule's destructor frees it
    throw Error("[from_dlpack] " + why);
  };
  if (d.device.device_type != kDLCPU)
    fail("only CPU tensors can be imported (device type " + std::to_string(d.device.device_type) + ")");
  if (d.dtype.lanes != 1) fail("vector dtypes (lanes > 1) are not supported");
  ScalarType t;
  if (d.dtype.code == kDLFloat && d.dtype.bits == 32)
    t = kFloat32;
  else if (d.dtype.code == kDLFloat && d.dtype.bits == 64)
    t = kFloat64;
  else if (d.dtype.code == kDLInt && d.dtype.bits == 64)
    t = kInt64;
  else if (d.dtype.code == kDLInt && d.dtype.bits == 32)
    t = kInt32;
  else if (d.dtype.code == kDLBoolCode && d.dtype.bits == 8)
    t = kBool;
  else
    fail("unsupported dtype (code " + std::to_string(d.dtype.code) + ", " + std::to_string(d.dtype.bits) +
         " bits); ditto has float32, float64, int64, int32 and bool");
  Shape sizes(d.shape, d.shape + d.ndim), strides;
  if (d.strides) {
    strides.assign(d.strides, d.strides + d.ndim);
  } else {
    strides.assign(static_cast<std::size_t>(d.ndim), 1);
    for (int32_t i = d.ndim - 2; i >= 0; --i) strides[i] = strides[i + 1] * sizes[i + 1];
  }
  void* data = static_cast<char*>(d.data) + d.byte_offset;
  PyCapsule_SetName(cap.ptr(), "used_dltensor");
  try {
    return external_tensor(
        data, std::move(sizes), std::move(strides), t,
        [m](void*) {
          if (m->deleter) with_gil([m] { m->deleter(m); });
        },
        "from_dlpack");
  } catch (...) {
    if (m->deleter) m->deleter(m);
    throw;
  }
}

}  // namespace

void bind_interop(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));
  m.def("from_numpy", &from_numpy, py::arg("ndarray"));
  cls.def("numpy", &to_numpy);
  cls.def(
      "__array__",
      [](const Tensor& t, py::object dtype) {
        py::array a = to_numpy(t.requires_grad() ? t.detach() : t);
        if (!dtype.is_none()) return py::array(a.attr("astype")(dtype));
        return a;
      },
      py::arg("dtype") = py::none());
  m.def("from_dlpack", &from_dlpack, py::arg("ext_tensor"));
  cls.def(
      "__dlpack__", [](const Tensor& t, py::object stream) { return to_dlpack(t); }, py::arg("stream") = py::none());
  cls.def("__dlpack_device__", [](const Tensor&) { return py::make_tuple(static_cast<int>(kDLCPU), 0); });
  m.def("_to_dlpack", &to_dlpack);
}

}  // namespace ditto::python
