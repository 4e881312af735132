// ditto._C: the compiled half of the Python package. This file holds the module, the conversions
// of common.h, deterministic mode, warnings, errors and the generator; the other files bind the
// tensor, the ops, nn and interop.
#include <Python.h>

#include <cstring>

#include "common.h"
#include "ops/op_info.h"  // the op table as data, for ditto._C._op_table()

namespace ditto::python {

std::array<py::object, 5>& dtype_objects() {
  static auto* objects = new std::array<py::object, 5>();  // never destroyed: outlives the interpreter
  return *objects;
}

bool dtype_from_python(py::handle h, ScalarType& out) {
  if (py::isinstance<PyDtype>(h)) {
    out = h.cast<const PyDtype&>().type;
    return true;
  }
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return out = kFloat64, true;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return out = kInt64, true;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return out = kBool, true;
  return false;
}

bool scalar_from_python(py::handle h, Scalar& out) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return out = Scalar(o == Py_True), true;
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw py::value_error("value cannot be converted to type int64 without overflow");
    return out = Scalar(static_cast<int64_t>(v)), true;
  }
  if (PyFloat_Check(o)) return out = Scalar(PyFloat_AS_DOUBLE(o)), true;
  if (is_tensor(h)) return false;
  // NumPy's scalars and other number types: integers through __index__, others through __float__.
  if (PyIndex_Check(o)) {
    py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(o));
    if (!i) throw py::error_already_set();
    return scalar_from_python(i, out);
  }
  if (PyObject_HasAttrString(o, "__float__") && !PySequence_Check(o)) {
    const double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    return out = Scalar(d), true;
  }
  return false;
}

py::object scalar_to_python(const Scalar& s) {
  if (s.is_bool()) return py::bool_(s.to_bool());
  if (s.is_integral()) return py::int_(s.to_int());
  return py::float_(s.to_double());
}

Shape shape_from_sequence(py::handle h, const char* op) {
  if (!PySequence_Check(h.ptr()) || py::isinstance<py::str>(h))
    raise_type_error(std::string(op) + "(): size must be a tuple of ints, not " +
                     std::string(py::str(h.get_type().attr("__name__"))));
  Shape s;
  for (py::handle item : py::reinterpret_borrow<py::sequence>(h)) {
    if (!PyIndex_Check(item.ptr()) || PyBool_Check(item.ptr()) || is_tensor(item))
      raise_type_error(std::string(op) + "(): size must be a tuple of ints, but got an element of type " +
                       std::string(py::str(item.get_type().attr("__name__"))));
    s.push_back(py::cast<int64_t>(py::reinterpret_steal<py::object>(PyNumber_Index(item.ptr()))));
  }
  return s;
}

Shape shape_from_args(const py::args& args, const char* op) {
  if (args.size() == 1 && PySequence_Check(args[0].ptr())) return shape_from_sequence(args[0], op);
  return shape_from_sequence(args, op);
}

DimList dims_from_python(py::handle h, const char* op) {
  if (h.is_none()) return DimList();
  if (PyIndex_Check(h.ptr()) && !PyBool_Check(h.ptr())) return DimList(py::cast<int64_t>(h));
  return DimList(shape_from_sequence(h, op));
}

namespace {
py::object& size_class() {
  static auto* cls = new py::object();
  return *cls;
}
}  // namespace

void set_size_class(py::object cls) { size_class() = std::move(cls); }

py::object make_size(const Shape& s) {
  py::tuple t(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) t[i] = py::int_(s[i]);
  if (!size_class()) return py::object(t);
  return size_class()(t);
}

Generator* generator_from_python(py::handle h) {
  if (h.is_none()) return nullptr;
  if (!py::isinstance<Generator>(h))
    raise_type_error("generator must be a ditto.Generator, not " + std::string(py::str(h.get_type().attr("__name__"))));
  return h.cast<Generator*>();
}

void raise_type_error(const std::string& message) { throw py::type_error(message); }
void raise_index_error(const std::string& message) { throw py::index_error(message); }

namespace {

// PyTorch's sentences (docs/spec/pytorch-determinism.md section 2.1), naming ditto's switch.
std::string refusal_message(const std::string& op) {
  return op +
         " does not have a deterministic implementation, but you set "
         "'ditto.use_deterministic_algorithms(True)'. You can turn off determinism just for this "
         "operation, or you can use the 'warn_only=True' option, if that's acceptable for your "
         "application.";
}
std::string alert_warning_message(const std::string& op) {
  return op +
         " does not have a deterministic implementation, but you set "
         "'ditto.use_deterministic_algorithms(True, warn_only=True)'.";
}

// Every C++ warning becomes a Python UserWarning through warnings.warn, so Python's filters and
// its once-per-location default apply, as to PyTorch's. Warnings can come from any thread that
// runs an op, with the GIL released: take it first.
void python_warning_handler(const Warning& w) {
  py::gil_scoped_acquire gil;
  const std::string text = w.nondeterministic_alert ? alert_warning_message(w.op) : w.message;
  if (PyErr_WarnEx(PyExc_UserWarning, text.c_str(), 1) != 0) throw py::error_already_set();
}

}  // namespace

void bind_mode(py::module_& m) {
  static py::exception<NondeterministicError> nondeterministic(m, "NondeterministicError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const NondeterministicError& e) {
      PyErr_SetString(nondeterministic.ptr(), refusal_message(e.op()).c_str());
    } catch (const ditto::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  set_warning_handler(python_warning_handler);
  // The handler must not outlive the interpreter.
  py::module_::import("atexit").attr("register")(py::cpp_function([] { set_warning_handler(nullptr); }));

  m.def("_set_deterministic_algorithms", &use_deterministic_algorithms, py::arg("mode"), py::kw_only(),
        py::arg("warn_only") = false);
  m.def("_get_deterministic_algorithms", &are_deterministic_algorithms_enabled);
  m.def("_get_deterministic_algorithms_warn_only", &is_deterministic_algorithms_warn_only_enabled);
  m.def("_set_deterministic_fill_uninitialized_memory", &set_fill_uninitialized_memory);
  m.def("_get_deterministic_fill_uninitialized_memory", &get_fill_uninitialized_memory);
  m.def("_requested_nondeterministic_exemptions", &requested_nondeterministic_exemptions);
  m.def("set_grad_enabled", &set_grad_enabled);
  m.def("is_grad_enabled", &is_grad_enabled);
  m.def("get_num_threads", &get_num_threads);
  m.def("set_num_threads", &set_num_threads, py::arg("num_threads"));

  // An exemption for a scope, as ditto::AllowNondeterministic (ditto.allow_nondeterministic).
  struct Exemption {
    std::vector<std::string> ops;
    std::unique_ptr<AllowNondeterministic> guard;
  };
  py::class_<Exemption>(m, "_AllowNondeterministic")
      .def(py::init([](std::vector<std::string> ops) {
        return Exemption{std::move(ops), nullptr};
      }))
      .def("__enter__", [](Exemption& e) { e.guard = std::make_unique<AllowNondeterministic>(e.ops); })
      .def("__exit__", [](Exemption& e, py::args) { e.guard.reset(); });

  py::class_<Generator>(m, "Generator")
      .def(py::init([](const std::string& device) {
             if (device != "cpu") throw py::value_error("ditto.Generator: only the 'cpu' device is supported");
             return new Generator();
           }),
           py::arg("device") = "cpu")
      .def(
          "manual_seed",
          [](Generator& g, py::int_ seed) -> Generator& {
            // PyTorch takes any int in [-2**63, 2**64); a negative one is read as its two's complement.
            unsigned long long v = PyLong_AsUnsignedLongLong(seed.ptr());
            if (PyErr_Occurred()) {
              PyErr_Clear();
              const long long s = PyLong_AsLongLong(seed.ptr());
              if (PyErr_Occurred()) {
                PyErr_Clear();
                throw py::value_error("Overflow when unpacking long");
              }
              v = static_cast<unsigned long long>(s);
            }
            std::lock_guard<std::mutex> lock(g.mutex());
            g.manual_seed(v);
            return g;
          },
          py::arg("seed"), py::return_value_policy::reference)
      .def("initial_seed", &Generator::initial_seed)
      .def("get_state",
           [](Generator& g) {
             std::lock_guard<std::mutex> lock(g.mutex());
             const std::vector<uint8_t> s = g.get_state();
             return py::bytes(reinterpret_cast<const char*>(s.data()), s.size());
           })
      .def(
          "set_state",
          [](Generator& g, py::buffer state) {
            // bytes, a NumPy uint8 array or anything else with the buffer protocol
            py::buffer_info info = state.request();
            const auto* p = static_cast<const uint8_t*>(info.ptr);
            const std::size_t n = static_cast<std::size_t>(info.size * info.itemsize);
            std::lock_guard<std::mutex> lock(g.mutex());
            g.set_state(std::vector<uint8_t>(p, p + n));
            return &g;
          },
          py::arg("new_state"), py::return_value_policy::reference)
      .def_property_readonly("device", [](const Generator&) { return py::str("cpu"); });
  m.attr("default_generator") = py::cast(&default_generator(), py::return_value_policy::reference);
}

}  // namespace ditto::python

PYBIND11_MODULE(_C, m) {
  using namespace ditto::python;
  m.doc() = "ditto's compiled core (the Python package is ditto)";
  py::class_<PyDtype>(m, "dtype")
      .def_property_readonly("is_floating_point", [](const PyDtype& d) { return ditto::is_floating(d.type); })
      .def_property_readonly("itemsize", [](const PyDtype& d) { return ditto::element_size(d.type); })
      .def("__repr__", [](const PyDtype& d) { return std::string("ditto.") + ditto::dtype_name(d.type); })
      .def("__reduce__", [](const PyDtype& d) { return std::string(ditto::dtype_name(d.type)); });
  const ditto::ScalarType all[] = {ditto::kBool, ditto::kInt32, ditto::kInt64, ditto::kFloat32, ditto::kFloat64};
  for (ditto::ScalarType t : all) {
    py::object o = py::cast(PyDtype{t});
    dtype_objects()[static_cast<int>(t)] = o;
    m.attr(ditto::dtype_name(t)) = o;
  }
  m.def("_set_size_class", &set_size_class);
  // The op table's rows, with how often each was dispatched in this process (tests check that
  // every row is reachable from Python).
  m.def("_op_table", [] {
    py::list rows;
    for (const ditto::ops::OpEntry& e : ditto::ops::all_ops()) {
      py::dict d;
      d["id"] = e.id_name;
      d["name"] = e.name;
      d["kind"] = ditto::ops::op_kind_name(e.kind);
      d["differentiable"] = e.differentiable;
      d["node_name"] = e.node_name ? py::object(py::str(e.node_name)) : py::object(py::none());
      d["dispatch_count"] = ditto::ops::dispatch_count(e.id);
      d["unary"] = e.unary != nullptr;  // a DITTO_UNARY row: ditto.<id>(x) and x.<id>()
      rows.append(d);
    }
    return rows;
  });
  bind_mode(m);
  bind_tensor(m);
  bind_ops(m);
  bind_nn(m);
  bind_interop(m);
  bind_serialize(m);
  bind_distributed(m);
}
