// The Tensor class as Python sees it: metadata, autograd, printing, Python's operators and
// indexing (t[0], t[:, 1:3], t[..., None], t[mask], t[index], t[i] = v), built on ditto's view,
// index_select and index_put_ ops so that they are differentiable.
#include <Python.h>

#include <cstdio>

#include "common.h"

namespace ditto::python {
namespace {

// ---------------------------------------------------------------------------------------------
// Python's binary operators: the other operand is a Tensor or a number; anything else gives
// NotImplemented, so Python tries the reflected operator and then raises its own TypeError.

template <class FT, class FS>
py::object binary(const Tensor& self, py::handle other, FT with_tensor, FS with_scalar) {
  Tensor r;
  if (!with_other(
          other, [&](const Tensor& o) { r = with_tensor(self, o); },
          [&](const Scalar& s) { r = with_scalar(self, s); }))
    return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  return py::cast(std::move(r));
}

// In place (a += b): returns the very object a, so a Parameter stays the same Parameter.
template <class FT, class FS>
py::object inplace(py::object self, py::handle other, FT with_tensor, FS with_scalar) {
  Tensor& t = self.cast<Tensor&>();
  if (!with_other(
          other, [&](const Tensor& o) { with_tensor(t, o); }, [&](const Scalar& s) { with_scalar(t, s); }))
    return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  return self;
}

// A number as a 0-dim tensor for the ops that only take tensors (2 ** t).
Tensor number_tensor(const Scalar& s) { return scalar_tensor(s); }

// ---------------------------------------------------------------------------------------------
// Indexing.

struct AdvancedIndex {
  int64_t dim;   // the first dim of the indexed tensor it applies to
  Tensor index;  // int64 indices, or a bool mask over mask.dim() dims
};

Tensor index_tensor_from(py::handle h) {
  if (is_tensor(h)) return h.cast<Tensor>();
  return tensor_from_data(h, std::nullopt);  // a list of ints or bools
}

// Inside an index tuple, a tensor or any sequence (list, tuple) of ints or bools is an index tensor.
bool is_index_item_advanced(py::handle h) {
  return is_tensor(h) || (PySequence_Check(h.ptr()) && !py::isinstance<py::str>(h));
}

// PyTorch's (and NumPy's) treatSequenceAsTuple: a list index that holds a slice, None, Ellipsis,
// a sequence or a tensor is read as a tuple of indices (x[[0, slice(1, 3)]] is x[0, 1:3]); any
// other list is one index tensor (x[[0, 2]]).
bool list_as_tuple(py::handle index) {
  if (!PyList_Check(index.ptr())) return false;
  const Py_ssize_t n = PyList_GET_SIZE(index.ptr());
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = PyList_GET_ITEM(index.ptr(), i);
    if (o == Py_None || o == Py_Ellipsis || PySlice_Check(o) || is_tensor(o) ||
        (PySequence_Check(o) && !PyUnicode_Check(o)))
      return true;
  }
  return false;
}

// Applies ints, slices, None and Ellipsis as views; collects the tensor indices.
Tensor apply_basic(const Tensor& self, py::handle index, std::vector<AdvancedIndex>& advanced) {
  py::tuple items;
  if (PyTuple_Check(index.ptr()))
    items = py::reinterpret_borrow<py::tuple>(index);
  else if (list_as_tuple(index))
    items = py::tuple(py::reinterpret_borrow<py::list>(index));
  else
    items = py::make_tuple(index);
  // dims the items consume, to place the Ellipsis
  int64_t consumed = 0;
  bool ellipsis = false;
  for (py::handle it : items) {
    if (it.is_none()) continue;
    if (it.ptr() == Py_Ellipsis) {
      if (ellipsis) raise_index_error("an index can only have a single ellipsis ('...')");
      ellipsis = true;
      continue;
    }
    if (is_tensor(it) && it.cast<const Tensor&>().dtype() == kBool)
      consumed += it.cast<const Tensor&>().dim();
    else
      consumed += 1;
  }
  Tensor r = self;
  if (consumed > self.dim())
    raise_index_error("too many indices for tensor of dimension " + std::to_string(self.dim()));
  int64_t d = 0;
  for (py::handle it : items) {
    if (it.is_none()) {
      r = r.unsqueeze(d);
      ++d;
    } else if (it.ptr() == Py_Ellipsis) {
      d += self.dim() - consumed;
    } else if (PySlice_Check(it.ptr())) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(it.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
      if (step <= 0) throw py::value_error("step must be greater than zero");
      const int64_t n = r.size(d);
      PySlice_AdjustIndices(static_cast<Py_ssize_t>(n), &start, &stop, step);
      if (stop < start) stop = start;
      r = r.slice(d, start, stop, step);
      ++d;
    } else if (PyIndex_Check(it.ptr()) && !PyBool_Check(it.ptr()) && !is_tensor(it)) {
      const int64_t n = r.size(d);
      int64_t i = py::cast<int64_t>(py::reinterpret_steal<py::object>(PyNumber_Index(it.ptr())));
      if (i < -n || i >= n)
        raise_index_error("index " + std::to_string(i) + " is out of bounds for dimension " + std::to_string(d) +
                          " with size " + std::to_string(n));
      r = r.select(d, i < 0 ? i + n : i);
    } else if (is_index_item_advanced(it)) {
      Tensor t = index_tensor_from(it);
      if (t.dtype() == kBool) {
        advanced.push_back({d, t});
        d += t.dim();
      } else if (is_integral(t.dtype())) {
        advanced.push_back({d, t});
        ++d;
      } else {
        raise_index_error("tensors used as indices must be long, int or bool tensors");
      }
    } else {
      raise_index_error(
          "only integers, slices (`:`), ellipsis (`...`), None and long or bool tensors are valid indices (got " +
          std::string(py::str(it.get_type().attr("__name__"))) + ")");
    }
  }
  return r;
}

// The advanced indices as ditto::index's list: one entry per dim from dim 0, an undefined tensor
// for each dim between them (a full slice), a bool mask covering as many dims as it has.
std::vector<Tensor> index_list(const std::vector<AdvancedIndex>& advanced) {
  std::vector<Tensor> list;
  int64_t cur = 0;
  for (const AdvancedIndex& a : advanced) {
    for (; cur < a.dim; ++cur) list.emplace_back();
    list.push_back(a.index);
    cur += a.index.dtype() == kBool ? std::max<int64_t>(a.index.dim(), 1) : 1;
  }
  return list;
}

Tensor getitem(const Tensor& self, py::handle index) {
  std::vector<AdvancedIndex> advanced;
  Tensor r = apply_basic(self, index, advanced);
  if (advanced.empty()) return r;
  const std::vector<Tensor> list = index_list(advanced);
  py::gil_scoped_release nogil;
  return ditto::index(r, list);
}

Tensor value_tensor(py::handle value, const Tensor& like) {
  if (is_tensor(value)) return value.cast<Tensor>();
  Scalar s;
  if (scalar_from_python(value, s)) return scalar_tensor(s, like.dtype());
  return tensor_from_data(value, like.dtype());
}

void setitem(Tensor& self, py::handle index, py::handle value) {
  std::vector<AdvancedIndex> advanced;
  Tensor r = apply_basic(self, index, advanced);
  if (advanced.empty()) {
    Scalar s;
    if (!is_tensor(value) && scalar_from_python(value, s)) {
      py::gil_scoped_release nogil;
      r.fill_(s);
      return;
    }
    const Tensor v = value_tensor(value, r);
    py::gil_scoped_release nogil;
    r.copy_(v);
    return;
  }
  const std::vector<Tensor> list = index_list(advanced);
  const Tensor v = value_tensor(value, r);
  py::gil_scoped_release nogil;
  r.index_put_(list, v.dtype() == r.dtype() ? v : v.to(r.dtype()));
}

// Reads a tensor into nested Python lists (a number for 0-dim).
py::object to_list(const Tensor& t) {
  const Tensor c = t.contiguous();
  const int64_t n = c.numel();
  std::vector<py::object> flat;
  flat.reserve(static_cast<std::size_t>(n));
  switch (c.dtype()) {
    case kBool:
      for (bool b : to_vector<bool>(c)) flat.push_back(py::bool_(b));
      break;
    case kInt32: {
      const int32_t* p = c.data_ptr<int32_t>();
      for (int64_t i = 0; i < n; ++i) flat.push_back(py::int_(p[i]));
      break;
    }
    case kInt64:
      for (int64_t v : to_vector<int64_t>(c)) flat.push_back(py::int_(v));
      break;
    case kFloat32:
      for (float v : to_vector<float>(c)) flat.push_back(py::float_(static_cast<double>(v)));
      break;
    case kFloat64:
      for (double v : to_vector<double>(c)) flat.push_back(py::float_(v));
      break;
  }
  if (c.dim() == 0) return flat[0];
  // build nested lists from the innermost dim outwards
  std::vector<py::object> level = std::move(flat);
  for (int64_t d = c.dim() - 1; d >= 0; --d) {
    const int64_t sz = c.size(d);
    std::vector<py::object> up;
    const std::size_t groups = sz == 0 ? (d == 0 ? 1 : 0) : level.size() / static_cast<std::size_t>(sz);
    for (std::size_t g = 0; g < groups; ++g) {
      py::list l(sz);
      for (int64_t i = 0; i < sz; ++i) l[i] = level[g * static_cast<std::size_t>(sz) + static_cast<std::size_t>(i)];
      up.push_back(std::move(l));
    }
    if (sz == 0 && d > 0) {  // an empty inner dim: every outer slot holds an empty list
      std::size_t outer = 1;
      for (int64_t j = 0; j < d; ++j) outer *= static_cast<std::size_t>(c.size(j));
      up.assign(outer, py::list());
    }
    level = std::move(up);
  }
  return level[0];
}

// grad_fn: the node that made a tensor, with PyTorch's name and repr.
struct GradFn {
  Tensor output;
  std::string name;
};

py::object python_number(const Tensor& t) {
  if (t.numel() != 1) throw py::value_error("only one element tensors can be converted to Python scalars");
  return scalar_to_python(t.item());
}

}  // namespace

void bind_tensor(py::module_& m) {
  py::class_<GradFn>(m, "_GradFn")
      .def("name", [](const GradFn& g) { return g.name; })
      .def("__repr__", [](py::handle self) {
        char addr[32];
        std::snprintf(addr, sizeof addr, "%p", static_cast<void*>(self.ptr()));
        return "<" + self.cast<const GradFn&>().name + " object at " + addr + ">";
      });

  py::class_<Tensor> cls(m, "Tensor");
  // Tensor(t) shares t (used by Parameter); Tensor(list) copies data as float32; Tensor(2, 3) is
  // an uninitialised float32 tensor, as PyTorch's legacy constructor.
  cls.def(py::init([](py::args args) {
    if (args.size() == 1 && is_tensor(args[0])) return args[0].cast<Tensor>();
    if (args.size() == 0) return empty({0});
    if (args.size() == 1 && PySequence_Check(args[0].ptr()) && !py::isinstance<Tensor>(args[0]))
      return tensor_from_data(args[0], kFloat32);
    return empty(shape_from_args(args, "Tensor"));
  }));
  cls.def_property_readonly("shape", [](const Tensor& t) { return make_size(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) return make_size(t.sizes());
            return py::int_(t.size(py::cast<int64_t>(dim)));
          },
          py::arg("dim") = py::none())
      .def(
          "stride",
          [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) return py::tuple(py::cast(t.strides()));
            return py::int_(t.stride(py::cast<int64_t>(dim)));
          },
          py::arg("dim") = py::none())
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("ndim", &Tensor::dim)
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def("element_size", &Tensor::element_size)
      .def("storage_offset", &Tensor::storage_offset)
      .def("is_contiguous", [](const Tensor& t) { return t.is_contiguous(); })
      .def("is_floating_point", [](const Tensor& t) { return is_floating(t.dtype()); })
      .def_property_readonly("is_cuda", [](const Tensor&) { return false; })
      .def_property_readonly("_version", &Tensor::version)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.raw_data()); })
      .def("__len__",
           [](const Tensor& t) {
             if (t.dim() == 0) raise_type_error("len() of a 0-d tensor");
             return t.size(0);
           })
      .def("__iter__",
           [](const Tensor& t) {
             if (t.dim() == 0) raise_type_error("iteration over a 0-d tensor");
             py::list l;
             for (int64_t i = 0; i < t.size(0); ++i) l.append(py::cast(t.select(0, i)));
             return py::iter(l);
           })
      .def("__hash__", [](py::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); })
      .def("__repr__", [](const Tensor& t) { return t.to_string(); })
      .def("__str__", [](const Tensor& t) { return t.to_string(); })
      .def("__format__",
           [](const Tensor& t, py::str spec) -> py::object {
             if (t.dim() == 0)
               return py::reinterpret_steal<py::object>(PyObject_Format(python_number(t).ptr(), spec.ptr()));
             return py::str(t.to_string());
           })
      .def("__bool__",
           [](const Tensor& t) {
             if (t.numel() != 1) {
               if (t.numel() == 0) throw Error("Boolean value of Tensor with no values is ambiguous");
               throw Error("Boolean value of Tensor with more than one value is ambiguous");
             }
             return t.item().to_bool();
           })
      .def("__float__", [](const Tensor& t) { return py::float_(python_number(t)); })
      .def("__int__", [](const Tensor& t) { return py::int_(python_number(t)); })
      .def("__index__",
           [](const Tensor& t) {
             if (!is_integral(t.dtype(), true) || t.numel() != 1)
               raise_type_error("only integer tensors of a single element can be converted to an index");
             return t.item().to_int();
           })
      .def("item", [](const Tensor& t) { return python_number(t); })
      .def("tolist", &to_list);

  // --- autograd
  cls.def_property("requires_grad", &Tensor::requires_grad, [](Tensor& t, bool r) { t.requires_grad_(r); })
      .def_property(
          "grad", [](const Tensor& t) -> py::object { return t.grad().defined() ? py::cast(t.grad()) : py::none(); },
          [](Tensor& t, py::object g) {
            if (g.is_none()) {
              t.mutable_grad() = Tensor();
              return;
            }
            const Tensor& v = g.cast<const Tensor&>();
            if (v.sizes() != t.sizes()) throw Error("assigned grad has data of a different size");
            if (v.dtype() != t.dtype()) throw Error("assigned grad has data of a different type");
            t.mutable_grad() = v;
          })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("grad_fn",
                             [](const Tensor& t) -> py::object {
                               std::string n = t.grad_fn_name();
                               if (n.empty()) return py::none();
                               return py::cast(GradFn{t, std::move(n)});
                             })
      .def_property(
          "data", [](const Tensor& t) { return t.detach(); },
          [](Tensor& t, const Tensor& src) {
            // PyTorch's set_data: t keeps its identity and autograd state, takes src's data.
            TensorImpl* d = t.impl();
            const TensorImpl* s = src.impl();
            d->storage = s->storage;
            d->sizes = s->sizes;
            d->strides = s->strides;
            d->offset = s->offset;
            d->dtype = s->dtype;
          })
      .def(
          "requires_grad_",
          [](py::object self, bool r) {
            self.cast<Tensor&>().requires_grad_(r);
            return self;
          },
          py::arg("requires_grad") = true)
      .def("detach", &Tensor::detach)
      .def("retain_grad",
           [](py::object self) {
             self.cast<Tensor&>().retain_grad();
             return py::none();
           })
      .def(
          "backward",
          [](const Tensor& t, py::object gradient, py::object retain_graph, bool create_graph) {
            if (create_graph) throw Error("[backward] create_graph=True is not supported (no higher-order gradients)");
            Tensor g = gradient.is_none() ? Tensor() : gradient.cast<Tensor>();
            const bool retain = retain_graph.is_none() ? create_graph : retain_graph.cast<bool>();
            py::gil_scoped_release nogil;
            t.backward(g, retain);
          },
          py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(), py::arg("create_graph") = false);

  // --- operators
  cls.def("__add__",
          [](const Tensor& a, py::handle b) {
            return binary(
                a, b, [](const Tensor& x, const Tensor& y) { return add(x, y); },
                [](const Tensor& x, const Scalar& y) { return add(x, y); });
          })
      .def("__radd__",
           [](const Tensor& a, py::handle b) {
             return binary(
                 a, b, [](const Tensor& x, const Tensor& y) { return add(y, x); },
                 [](const Tensor& x, const Scalar& y) { return y + x; });
           })
      .def("__sub__",
           [](const Tensor& a, py::handle b) {
             return binary(
                 a, b, [](const Tensor& x, const Tensor& y) { return sub(x, y); },
                 [](const Tensor& x, const Scalar& y) { return sub(x, y); });
           })
      .def("__rsub__",
           [](const Tensor& a, py::handle b) {
             return binary(
                 a, b, [](const Tensor& x, const Tensor& y) { return sub(y, x); },
                 [](const Tensor& x, const Scalar& y) { return y - x; });
           })
      .def("__mul__",
           [](const Tensor& a, py::handle b) {
             return binary(
                 a, b, [](const Tensor& x, const Tensor& y) { return mul(x, y); },
                 [](const Tensor& x, const Scalar& y) { return mul(x, y); });
           })
      .def("__rmul__",
           [](const Tensor& a, py::handle b) {
             return binary(
                 a, b, [](const Tensor& x, const Tensor& y) { return mul(y, x); },
                 [](const Tensor& x, const Scalar& y) { return y * x; });
           })
      .def("__truediv__",
           [](const Tensor& a, py::handle b) {
             return binary(
                 a, b, [](const Tensor& x, const Tensor& y) { return div(x, y); },
                 [](const Tensor& x, const Scalar& y) { return div(x, y); });
           })
      .def("__rtruediv__",
           [](const Tensor& a, py::handle b) {
             return binary(
                 a, b, [](const Tensor& x, const Tensor& y) { return div(y, x); },
                 [](const Tensor& x, const Scalar& y) { return y / x; });
           })
      .def("__pow__",
           [](const Tensor& a, py::handle b) {
             return binary(
                 a, b, [](const Tensor& x, const Tensor& y) { return pow(x, y); },
                 [](const Tensor& x, const Scalar& y) { return pow(x, y); });
           })
      .def("__rpow__",
           [](const Tensor& a, py::handle b) {
             return binary(
                 // a tensor base is taken as a new tensor of its values, as PyTorch's __rpow__ does
                 a, b, [](const Tensor& x, const Tensor& y) { return pow(y.detach(), x); },
                 [](const Tensor& x, const Scalar& y) { return pow(number_tensor(y), x); });
           })
      .def("__matmul__",
           [](const Tensor& a, py::handle b) -> py::object {
             if (!is_tensor(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             const Tensor& o = b.cast<const Tensor&>();
             Tensor r;
             {
               py::gil_scoped_release nogil;
               r = matmul(a, o);
             }
             return py::cast(std::move(r));
           })
      .def("__rmatmul__",
           [](const Tensor& a, py::handle b) -> py::object {
             if (!is_tensor(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             const Tensor& o = b.cast<const Tensor&>();
             Tensor r;
             {
               py::gil_scoped_release nogil;
               r = matmul(o, a);
             }
             return py::cast(std::move(r));
           })
      .def(
          "__neg__", [](const Tensor& a) { return neg(a); }, py::call_guard<py::gil_scoped_release>())
      .def("__pos__", [](const Tensor& a) { return a; })
      .def(
          "__abs__", [](const Tensor& a) { return abs(a); }, py::call_guard<py::gil_scoped_release>())
      .def("__iadd__",
           [](py::object a, py::handle b) {
             return inplace(
                 std::move(a), b, [](Tensor& x, const Tensor& y) { x.add_(y); },
                 [](Tensor& x, const Scalar& y) { x.add_(y); });
           })
      .def("__isub__",
           [](py::object a, py::handle b) {
             return inplace(
                 std::move(a), b, [](Tensor& x, const Tensor& y) { x.sub_(y); },
                 [](Tensor& x, const Scalar& y) { x.sub_(y); });
           })
      .def("__imul__",
           [](py::object a, py::handle b) {
             return inplace(
                 std::move(a), b, [](Tensor& x, const Tensor& y) { x.mul_(y); },
                 [](Tensor& x, const Scalar& y) { x.mul_(y); });
           })
      .def("__itruediv__", [](py::object a, py::handle b) {
        return inplace(
            std::move(a), b, [](Tensor& x, const Tensor& y) { x.div_(y); },
            [](Tensor& x, const Scalar& y) { x.div_(y); });
      });
#define DITTO_COMPARE(py_name, op)                                       \
  cls.def(py_name, [](const Tensor& a, py::handle b) {                   \
    return binary(                                                       \
        a, b, [](const Tensor& x, const Tensor& y) { return op(x, y); }, \
        [](const Tensor& x, const Scalar& y) { return x.op(y); });       \
  });
  DITTO_COMPARE("__eq__", eq)
  DITTO_COMPARE("__ne__", ne)
  DITTO_COMPARE("__lt__", lt)
  DITTO_COMPARE("__le__", le)
  DITTO_COMPARE("__gt__", gt)
  DITTO_COMPARE("__ge__", ge)
#undef DITTO_COMPARE

  m.def("_backward", [](const std::vector<Tensor>& roots, const py::list& grads, bool retain_graph) {
    std::vector<Tensor> g;
    for (py::handle h : grads) g.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
    py::gil_scoped_release nogil;
    autograd::backward(roots, g, retain_graph);
  });

  // --- indexing
  cls.def("__getitem__", &getitem).def("__setitem__", [](Tensor& self, py::handle index, py::handle value) {
    setitem(self, index, value);
  });
}

}  // namespace ditto::python
