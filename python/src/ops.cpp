// Factories and ops with PyTorch's Python names and arguments: each op is defined once and bound
// both as ditto.<op>(input, ...) and as Tensor.<op>(...). Kernels run with the GIL released.
#include <Python.h>

#include "common.h"
#include "ops/op_info.h"

namespace ditto::python {

namespace {

// --- ditto.tensor(data): PyTorch's inference over nested sequences
struct Gathered {
  Shape shape;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  enum { Bool, Int, Float } kind = Bool;
  bool any = false;
};

void gather(py::handle h, std::size_t depth, Gathered& g) {
  if (is_tensor(h)) {
    const Tensor& t = h.cast<const Tensor&>();
    if (t.dim() != 0 || depth == 0)
      throw Error("[tensor] only one-element (0-dim) tensors can be elements of a nested list");
    h = scalar_to_python(t.item()).release();
    py::object keep = py::reinterpret_steal<py::object>(h);
    gather(keep, depth, g);
    return;
  }
  Scalar s;
  if (scalar_from_python(h, s)) {
    if (depth != g.shape.size())
      throw py::value_error("expected sequence of length " + std::to_string(g.shape[depth]) + " at dim " +
                            std::to_string(depth) + " (got a number)");
    g.any = true;
    if (s.is_floating()) {
      if (g.kind != Gathered::Float) {
        for (int64_t v : g.ints) g.floats.push_back(static_cast<double>(v));
        g.ints.clear();
        g.kind = Gathered::Float;
      }
      g.floats.push_back(s.to_double());
    } else {
      if (s.is_integral() && g.kind == Gathered::Bool) g.kind = Gathered::Int;
      if (g.kind == Gathered::Float)
        g.floats.push_back(s.to_double());
      else
        g.ints.push_back(s.to_int());
    }
    return;
  }
  if (!PySequence_Check(h.ptr()) || py::isinstance<py::str>(h))
    raise_type_error("Could not infer dtype of " + std::string(py::str(h.get_type().attr("__name__"))));
  py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
  const int64_t n = static_cast<int64_t>(py::len(seq));
  if (depth == g.shape.size()) {
    if (g.any) throw py::value_error("expected a number at dim " + std::to_string(depth) + " (got a sequence)");
    g.shape.push_back(n);
  } else if (g.shape[depth] != n) {
    throw py::value_error("expected sequence of length " + std::to_string(g.shape[depth]) + " at dim " +
                          std::to_string(depth) + " (got " + std::to_string(n) + ")");
  }
  for (py::handle item : seq) gather(item, depth + 1, g);
}

}  // namespace

Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype) {
  if (is_tensor(data)) {
    const Tensor& t = data.cast<const Tensor&>();
    return t.detach().to(dtype.value_or(t.dtype())).clone();
  }
  if (PyObject_HasAttrString(data.ptr(), "__array_interface__")) {
    // a NumPy array (or anything NumPy reads): its dtype and values, copied
    py::object a = py::module_::import("numpy").attr("ascontiguousarray")(data);
    const Tensor t = py::module_::import("ditto").attr("from_numpy")(a).cast<Tensor>().clone();
    return dtype && *dtype != t.dtype() ? t.to(*dtype) : t;
  }
  Gathered g;
  gather(data, 0, g);
  const ScalarType inferred = g.kind == Gathered::Float ? kFloat32 : g.kind == Gathered::Int ? kInt64 : kBool;
  const ScalarType out = dtype.value_or(inferred);
  Tensor t;
  if (g.kind == Gathered::Float) {
    t = from_vector(g.floats, g.shape);
  } else if (g.kind == Gathered::Int) {
    t = from_vector(g.ints, g.shape);
  } else {
    std::vector<bool> b(g.ints.begin(), g.ints.end());
    t = from_vector(b, g.shape);
  }
  return t.dtype() == out ? t : t.to(out);
}

namespace {

Scalar as_scalar(py::handle h, const char* op, const char* arg) {
  Scalar s;
  if (!scalar_from_python(h, s)) {
    if (is_tensor(h) && h.cast<const Tensor&>().numel() == 1) return h.cast<const Tensor&>().item();
    raise_type_error(std::string(op) + "(): argument '" + arg + "' must be Number, not " +
                     std::string(py::str(h.get_type().attr("__name__"))));
  }
  return s;
}

std::optional<ScalarType> opt_dtype(py::handle h) {
  if (h.is_none()) return std::nullopt;
  ScalarType t;
  if (!dtype_from_python(h, t)) raise_type_error("dtype must be a ditto.dtype");
  return t;
}

void check_device(py::handle device) {
  if (device.is_none()) return;
  const std::string d = py::str(device);
  if (d != "cpu") throw Error("[device] ditto runs on the CPU only, got device '" + d + "'");
}

Tensor finish(Tensor t, bool requires_grad) {
  if (requires_grad) t.requires_grad_(true);
  return t;
}

// Binds f both as ditto.name(input, ...) and as Tensor.name(...).
template <class F, class... Extra>
void def_op(py::module_& m, py::class_<Tensor>& cls, const char* name, F&& f, const Extra&... extra) {
  m.def(name, f, py::arg("input"), extra...);
  cls.def(name, std::forward<F>(f), extra...);
}

using Release = py::call_guard<py::gil_scoped_release>;

// An in-place method: fn(self, args...) run without the GIL, returning self (the same Python object).
template <class... Args>
struct InPlace {
  template <class Fn>
  static auto wrap(Fn fn) {
    return [fn](py::object self, Args... args) {
      Tensor& t = self.cast<Tensor&>();
      {
        py::gil_scoped_release nogil;
        fn(t, args...);
      }
      return self;
    };
  }
};

// ditto.return_types.<name>(values, indices), defined in ditto/return_types.py.
py::object return_types(const char* name, const std::pair<Tensor, Tensor>& r) {
  return py::module_::import("ditto.return_types").attr(name)(r.first, r.second);
}
// fn() (a values-and-indices op) run without the GIL, as torch.return_types.<name>.
template <class Fn>
py::object values_indices(const char* name, Fn fn) {
  std::pair<Tensor, Tensor> r;
  {
    py::gil_scoped_release nogil;
    r = fn();
  }
  return return_types(name, r);
}

}  // namespace

void bind_ops(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));

  // ---------------------------------------------------------------- factories
  m.def(
      "tensor",
      [](py::handle data, py::handle dtype, py::handle device, bool requires_grad) {
        check_device(device);
        return finish(tensor_from_data(data, opt_dtype(dtype)), requires_grad);
      },
      py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false);
  auto sized = [&](const char* name, auto make) {
    m.def(
        name,
        [make, name](py::args size, py::handle dtype, py::handle device, bool requires_grad, py::handle out) {
          check_device(device);
          if (!out.is_none()) throw Error(std::string("[") + name + "] out= is not supported");
          const Shape s = shape_from_args(size, name);
          const ScalarType t = opt_dtype(dtype).value_or(kFloat32);
          Tensor r;
          {
            py::gil_scoped_release nogil;
            r = make(s, t);
          }
          return finish(std::move(r), requires_grad);
        },
        py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false,
        py::arg("out") = py::none());
  };
  sized("empty", [](const Shape& s, ScalarType t) { return empty(s, t); });
  sized("zeros", [](const Shape& s, ScalarType t) { return zeros(s, t); });
  sized("ones", [](const Shape& s, ScalarType t) { return ones(s, t); });
  m.def(
      "full",
      [](py::handle size, py::handle fill, py::handle dtype, py::handle device, bool requires_grad) {
        check_device(device);
        return finish(full(shape_from_sequence(size, "full"), as_scalar(fill, "full", "fill_value"), opt_dtype(dtype)),
                      requires_grad);
      },
      py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def(
      "empty_strided",
      [](py::handle size, py::handle stride, py::handle dtype, bool requires_grad) {
        return finish(empty_strided(shape_from_sequence(size, "empty_strided"),
                                    shape_from_sequence(stride, "empty_strided"), opt_dtype(dtype).value_or(kFloat32)),
                      requires_grad);
      },
      py::arg("size"), py::arg("stride"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("requires_grad") = false);
  auto like = [&](const char* name, auto make) {
    m.def(
        name,
        [make](const Tensor& t, py::handle dtype, py::handle device, bool requires_grad) {
          check_device(device);
          const auto d = opt_dtype(dtype);
          Tensor r;
          {
            py::gil_scoped_release nogil;
            r = make(t, d);
          }
          return finish(std::move(r), requires_grad);
        },
        py::arg("input"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
        py::arg("requires_grad") = false);
  };
  like("empty_like", [](const Tensor& t, std::optional<ScalarType> d) { return empty_like(t, d); });
  like("zeros_like", [](const Tensor& t, std::optional<ScalarType> d) { return zeros_like(t, d); });
  like("ones_like", [](const Tensor& t, std::optional<ScalarType> d) { return ones_like(t, d); });
  // another dtype: the same draws as rand(t's shape, dtype), without converting t's values
  like("rand_like",
       [](const Tensor& t, std::optional<ScalarType> d) { return d ? rand(t.sizes(), *d) : rand_like(t); });
  like("randn_like",
       [](const Tensor& t, std::optional<ScalarType> d) { return d ? randn(t.sizes(), *d) : randn_like(t); });
  m.def(
      "full_like",
      [](const Tensor& t, py::handle fill, py::handle dtype, py::handle device, bool requires_grad) {
        check_device(device);
        return finish(full_like(t, as_scalar(fill, "full_like", "fill_value"), opt_dtype(dtype)), requires_grad);
      },
      py::arg("input"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def(
      "arange",
      [](py::handle start, py::handle end, py::handle step, py::handle dtype, py::handle device, bool requires_grad) {
        check_device(device);
        const auto d = opt_dtype(dtype);
        Tensor r = end.is_none() ? arange(as_scalar(start, "arange", "end"), d)
                                 : arange(as_scalar(start, "arange", "start"), as_scalar(end, "arange", "end"),
                                          as_scalar(step, "arange", "step"), d);
        return finish(std::move(r), requires_grad);
      },
      py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1, py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def(
      "linspace",
      [](double start, double end, int64_t steps, py::handle dtype, py::handle device, bool requires_grad) {
        check_device(device);
        return finish(linspace(start, end, steps, opt_dtype(dtype).value_or(kFloat32)), requires_grad);
      },
      py::arg("start"), py::arg("end"), py::arg("steps"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def(
      "eye",
      [](int64_t n, std::optional<int64_t> mm, py::handle dtype, py::handle device, bool requires_grad) {
        check_device(device);
        return finish(eye(n, mm, opt_dtype(dtype).value_or(kFloat32)), requires_grad);
      },
      py::arg("n"), py::arg("m") = py::none(), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def(
      "scalar_tensor",
      [](py::handle s, py::handle dtype, bool requires_grad) {
        return finish(scalar_tensor(as_scalar(s, "scalar_tensor", "s"), opt_dtype(dtype).value_or(kFloat32)),
                      requires_grad);
      },
      py::arg("s"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("requires_grad") = false);

  // ---------------------------------------------------------------- random
  auto random_sized = [&](const char* name, auto make) {
    m.def(
        name,
        [make, name](py::args size, py::handle generator, py::handle dtype, py::handle device, bool requires_grad) {
          check_device(device);
          const Shape s = shape_from_args(size, name);
          Generator* g = generator_from_python(generator);
          const ScalarType t = opt_dtype(dtype).value_or(kFloat32);
          Tensor r;
          {
            py::gil_scoped_release nogil;
            r = make(s, t, g);
          }
          return finish(std::move(r), requires_grad);
        },
        py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
        py::arg("requires_grad") = false);
  };
  random_sized("rand", [](const Shape& s, ScalarType t, Generator* g) { return rand(s, t, g); });
  random_sized("randn", [](const Shape& s, ScalarType t, Generator* g) { return randn(s, t, g); });
  m.def(
      "randint",
      [](py::args args, py::handle generator, py::handle dtype, bool requires_grad) {
        // randint(high, size) or randint(low, high, size)
        if (args.size() != 2 && args.size() != 3) raise_type_error("randint() takes (high, size) or (low, high, size)");
        const bool low_given = args.size() == 3;
        const int64_t low = low_given ? py::cast<int64_t>(args[0]) : 0;
        const int64_t high = py::cast<int64_t>(args[low_given ? 1 : 0]);
        const Shape size = shape_from_sequence(args[low_given ? 2 : 1], "randint");
        Generator* g = generator_from_python(generator);
        const ScalarType t = opt_dtype(dtype).value_or(kInt64);
        py::gil_scoped_release nogil;
        return finish(randint(low, high, size, t, g), requires_grad);
      },
      py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
      py::arg("requires_grad") = false);
  m.def(
      "randperm",
      [](int64_t n, py::handle generator, py::handle dtype) {
        Generator* g = generator_from_python(generator);
        const ScalarType t = opt_dtype(dtype).value_or(kInt64);
        py::gil_scoped_release nogil;
        return randperm(n, t, g);
      },
      py::arg("n"), py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none());
  m.def(
      "bernoulli",
      [](const Tensor& p, py::handle generator) {
        Generator* g = generator_from_python(generator);
        py::gil_scoped_release nogil;
        return bernoulli(p, g);
      },
      py::arg("input"), py::kw_only(), py::arg("generator") = py::none());
  def_op(
      m, cls, "multinomial",
      [](const Tensor& p, int64_t num_samples, bool replacement, py::handle generator) {
        Generator* g = generator_from_python(generator);
        py::gil_scoped_release nogil;
        return multinomial(p, num_samples, replacement, g);
      },
      py::arg("num_samples"), py::arg("replacement") = false, py::kw_only(), py::arg("generator") = py::none());
  m.def(
      "normal",
      [](double mean, double std, py::handle size, py::handle generator, py::handle dtype) {
        const Shape s = shape_from_sequence(size, "normal");
        Generator* g = generator_from_python(generator);
        const ScalarType t = opt_dtype(dtype).value_or(kFloat32);
        py::gil_scoped_release nogil;
        return normal(mean, std, s, t, g);
      },
      py::arg("mean"), py::arg("std"), py::arg("size"), py::kw_only(), py::arg("generator") = py::none(),
      py::arg("dtype") = py::none());
  cls.def(
         "uniform_",
         [](py::object self, double from, double to, py::handle generator) {
           Generator* g = generator_from_python(generator);
           Tensor& t = self.cast<Tensor&>();
           {
             py::gil_scoped_release nogil;
             t.uniform_(from, to, g);
           }
           return self;
         },
         py::arg("from") = 0.0, py::arg("to") = 1.0, py::kw_only(), py::arg("generator") = py::none())
      .def(
          "normal_",
          [](py::object self, double mean, double std, py::handle generator) {
            Generator* g = generator_from_python(generator);
            Tensor& t = self.cast<Tensor&>();
            {
              py::gil_scoped_release nogil;
              t.normal_(mean, std, g);
            }
            return self;
          },
          py::arg("mean") = 0.0, py::arg("std") = 1.0, py::kw_only(), py::arg("generator") = py::none())
      .def(
          "bernoulli_",
          [](py::object self, double p, py::handle generator) {
            Generator* g = generator_from_python(generator);
            Tensor& t = self.cast<Tensor&>();
            {
              py::gil_scoped_release nogil;
              t.bernoulli_(p, g);
            }
            return self;
          },
          py::arg("p") = 0.5, py::kw_only(), py::arg("generator") = py::none())
      .def(
          "random_",
          [](py::object self, int64_t from, py::object to, py::handle generator) {
            Generator* g = generator_from_python(generator);
            Tensor& t = self.cast<Tensor&>();
            // random_(to) draws from [0, to); random_(from, to) from [from, to)
            const int64_t lo = to.is_none() ? 0 : from;
            const int64_t hi = to.is_none() ? from : to.cast<int64_t>();
            {
              py::gil_scoped_release nogil;
              t.random_(lo, hi, g);
            }
            return self;
          },
          py::arg("from"), py::arg("to") = py::none(), py::kw_only(), py::arg("generator") = py::none());

  // ---------------------------------------------------------------- elementwise
  def_op(
      m, cls, "round",
      [](const Tensor& x, int64_t decimals) {
        if (decimals != 0) throw Error("[round] decimals other than 0 are not supported yet");
        return round(x);
      },
      py::kw_only(), py::arg("decimals") = 0, Release());
  def_op(
      m, cls, "neg", [](const Tensor& x) { return neg(x); }, Release());
  // every op with a DITTO_UNARY row (src/ops/op_table.def), function and method, from the table;
  // round is bound above for its decimals argument
  for (const ops::OpEntry& e : ops::all_ops()) {
    if (!e.unary || py::hasattr(m, e.id_name)) continue;
    Tensor (*fn)(const Tensor&) = e.unary;
    def_op(
        m, cls, e.id_name, [fn](const Tensor& x) { return fn(x); }, Release());
  }
  m.attr("fix") = m.attr("trunc");
  cls.attr("fix") = cls.attr("trunc");
  def_op(
      m, cls, "negative", [](const Tensor& x) { return neg(x); }, Release());
  def_op(
      m, cls, "clone", [](const Tensor& x) { return clone(x); }, Release());

  // add/sub: other is a Tensor or a number; alpha scales other
  auto add_like = [&](const char* name, bool subtract) {
    def_op(
        m, cls, name,
        [subtract, name](const Tensor& x, py::handle other, py::handle alpha) {
          const Scalar a = as_scalar(alpha, name, "alpha");
          Tensor o = is_tensor(other) ? other.cast<Tensor>() : Tensor();
          Scalar s;
          if (!o.defined()) s = as_scalar(other, name, "other");
          py::gil_scoped_release nogil;
          if (!o.defined()) {
            if (a.is_integral() && a.to_int() == 1) return subtract ? sub(x, s) : add(x, s);
            o = scalar_tensor(s);
          }
          return subtract ? sub(x, o, a) : add(x, o, a);
        },
        py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  };
  add_like("add", false);
  add_like("sub", true);
  add_like("subtract", true);
  auto binary_op = [&](const char* name, auto tt, auto ts) {
    def_op(
        m, cls, name,
        [tt, ts, name](const Tensor& x, py::handle other) {
          Tensor r;
          if (!with_other(
                  other, [&](const Tensor& o) { r = tt(x, o); }, [&](const Scalar& s) { r = ts(x, s); }))
            r = ts(x, as_scalar(other, name, "other"));  // raises TypeError
          return r;
        },
        py::arg("other"));
  };
  binary_op(
      "mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); },
      [](const Tensor& a, const Scalar& b) { return mul(a, b); });
  binary_op(
      "multiply", [](const Tensor& a, const Tensor& b) { return mul(a, b); },
      [](const Tensor& a, const Scalar& b) { return mul(a, b); });
  binary_op(
      "true_divide", [](const Tensor& a, const Tensor& b) { return div(a, b); },
      [](const Tensor& a, const Scalar& b) { return div(a, b); });
  def_op(
      m, cls, "div",
      [](const Tensor& x, py::handle other, py::handle rounding_mode) {
        if (!rounding_mode.is_none()) throw Error("[div] rounding_mode is not supported yet");
        if (is_tensor(other)) {
          const Tensor& o = other.cast<const Tensor&>();
          py::gil_scoped_release nogil;
          return div(x, o);
        }
        const Scalar s = as_scalar(other, "div", "other");
        py::gil_scoped_release nogil;
        return div(x, s);
      },
      py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
  m.attr("divide") = m.attr("div");
  cls.attr("divide") = cls.attr("div");
  binary_op(
      "pow", [](const Tensor& a, const Tensor& b) { return pow(a, b); },
      [](const Tensor& a, const Scalar& b) { return pow(a, b); });
  def_op(
      m, cls, "maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, py::arg("other"), Release());
  def_op(
      m, cls, "minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }, py::arg("other"), Release());
  binary_op(
      "fmod", [](const Tensor& a, const Tensor& b) { return fmod(a, b); },
      [](const Tensor& a, const Scalar& b) { return fmod(a, b); });
  binary_op(
      "remainder", [](const Tensor& a, const Tensor& b) { return remainder(a, b); },
      [](const Tensor& a, const Scalar& b) { return remainder(a, b); });
#define DITTO_CMP(name)                                                   \
  binary_op(                                                              \
      #name, [](const Tensor& a, const Tensor& b) { return name(a, b); }, \
      [](const Tensor& a, const Scalar& b) { return a.name(b); });
  DITTO_CMP(eq)
  DITTO_CMP(ne)
  DITTO_CMP(lt)
  DITTO_CMP(le)
  DITTO_CMP(gt)
  DITTO_CMP(ge)
#undef DITTO_CMP
  auto clamp_fn = [](const Tensor& x, py::handle min, py::handle max) {
    if (is_tensor(min) || is_tensor(max)) {
      // Tensor bounds, as min(max(x, lo), hi) with NaN in a bound propagated: composed of where,
      // lt/gt and ne (x != x is NaN), so the gradient goes to x where it is not clamped and to
      // the bound that was taken.
      auto bound = [&](py::handle b, const char* arg) {
        if (b.is_none()) return Tensor();
        return is_tensor(b) ? b.cast<Tensor>() : scalar_tensor(as_scalar(b, "clamp", arg), x.dtype());
      };
      const Tensor lo = bound(min, "min"), hi = bound(max, "max");
      py::gil_scoped_release nogil;
      Tensor r = x;
      if (lo.defined()) r = where(add(lt(r, lo), ne(lo, lo)), lo, r);
      if (hi.defined()) r = where(add(gt(r, hi), ne(hi, hi)), hi, r);
      return r;
    }
    std::optional<Scalar> lo, hi;
    if (!min.is_none()) lo = as_scalar(min, "clamp", "min");
    if (!max.is_none()) hi = as_scalar(max, "clamp", "max");
    if (!lo && !hi) throw Error("[clamp] At least one of 'min' or 'max' must not be None");
    py::gil_scoped_release nogil;
    return clamp(x, lo, hi);
  };
  def_op(m, cls, "clamp", clamp_fn, py::arg("min") = py::none(), py::arg("max") = py::none());
  def_op(m, cls, "clip", clamp_fn, py::arg("min") = py::none(), py::arg("max") = py::none());
  def_op(
      m, cls, "clamp_min", [clamp_fn](const Tensor& x, py::handle min) { return clamp_fn(x, min, py::none()); },
      py::arg("min"));
  def_op(
      m, cls, "clamp_max", [clamp_fn](const Tensor& x, py::handle max) { return clamp_fn(x, py::none(), max); },
      py::arg("max"));
  m.def(
      "where",
      [](const Tensor& cond, py::handle a, py::handle b) -> py::object {
        if (a.is_none() && b.is_none()) return py::tuple(py::cast(where(cond)));  // where(condition)
        if (is_tensor(a) && is_tensor(b)) return py::cast(where(cond, a.cast<Tensor>(), b.cast<Tensor>()));
        if (is_tensor(a)) return py::cast(where(cond, a.cast<Tensor>(), as_scalar(b, "where", "other")));
        if (is_tensor(b)) return py::cast(where(cond, as_scalar(a, "where", "input"), b.cast<Tensor>()));
        const Scalar sa = as_scalar(a, "where", "input"), sb = as_scalar(b, "where", "other");
        return py::cast(where(cond, scalar_tensor(sa), sb));
      },
      py::arg("condition"), py::arg("input") = py::none(), py::arg("other") = py::none());
  cls.def(
      "where",
      [](const Tensor& self, const Tensor& cond, py::handle other) {
        if (is_tensor(other)) return where(cond, self, other.cast<Tensor>());
        return where(cond, self, as_scalar(other, "where", "other"));
      },
      py::arg("condition"), py::arg("other"));
  def_op(
      m, cls, "tril", [](const Tensor& x, int64_t diagonal) { return tril(x, diagonal); }, py::arg("diagonal") = 0,
      Release());
  def_op(
      m, cls, "triu", [](const Tensor& x, int64_t diagonal) { return triu(x, diagonal); }, py::arg("diagonal") = 0,
      Release());
  def_op(
      m, cls, "masked_fill",
      [](const Tensor& x, const Tensor& mask, py::handle value) {
        if (is_tensor(value) && value.cast<const Tensor&>().requires_grad()) {
          // a 0-dim value that wants its gradient: where(mask, value, x), which gives it one
          const Tensor v = value.cast<Tensor>();
          if (v.dim() != 0)
            throw Error("[masked_fill] only supports a 0-dimensional value tensor, but got tensor with " +
                        std::to_string(v.dim()) + " dimension(s).");
          py::gil_scoped_release nogil;
          return where(mask, v.to(x.dtype()), x);
        }
        const Scalar v = as_scalar(value, "masked_fill", "value");
        py::gil_scoped_release nogil;
        return masked_fill(x, mask, v);
      },
      py::arg("mask"), py::arg("value"));
  def_op(
      m, cls, "lerp",
      [](const Tensor& x, const Tensor& end, py::handle weight) {
        if (is_tensor(weight)) {
          // PyTorch's formula per element: |w| < 0.5 ? fma(w, end - x, x) : fma(w - 1, end - x, end),
          // each fma an addcmul, so the bits are its kernel's
          const Tensor w = weight.cast<Tensor>();
          py::gil_scoped_release nogil;
          const Tensor diff = sub(end, x);
          return where(abs(w).lt(0.5), addcmul(x, w, diff), addcmul(end, sub(w, 1), diff));
        }
        const Scalar w = as_scalar(weight, "lerp", "weight");
        py::gil_scoped_release nogil;
        return lerp(x, end, w);
      },
      py::arg("end"), py::arg("weight"));
  def_op(
      m, cls, "addcmul",
      [](const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value) {
        // as PyTorch, a floating value is truncated for integer tensors
        const bool integral =
            is_integral(x.dtype(), true) && is_integral(t1.dtype(), true) && is_integral(t2.dtype(), true);
        return addcmul(x, t1, t2, integral && value.is_floating() ? Scalar(value.to_int()) : value);
      },
      py::arg("tensor1"), py::arg("tensor2"), py::kw_only(), py::arg("value") = 1, Release());
  def_op(
      m, cls, "addcdiv",
      [](const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value) {
        return addcdiv(x, t1, t2, value);
      },
      py::arg("tensor1"), py::arg("tensor2"), py::kw_only(), py::arg("value") = 1, Release());
  m.def(
      "result_type",
      [](py::handle a, py::handle b) {
        if (is_tensor(a) && is_tensor(b)) return result_type(a.cast<Tensor>(), b.cast<Tensor>());
        if (is_tensor(a)) return result_type(a.cast<Tensor>(), as_scalar(b, "result_type", "other"));
        if (is_tensor(b)) return result_type(b.cast<Tensor>(), as_scalar(a, "result_type", "tensor"));
        raise_type_error("result_type() needs at least one Tensor");
      },
      py::arg("tensor"), py::arg("other"));
  m.def("promote_types", &promote_types, py::arg("type1"), py::arg("type2"));
  m.def(
      "is_tensor", [](py::handle h) { return is_tensor(h); }, py::arg("obj"));
  def_op(
      m, cls, "equal", [](const Tensor& a, const Tensor& b) { return equal(a, b); }, py::arg("other"), Release());

  // ---------------------------------------------------------------- reductions
  def_op(
      m, cls, "sum",
      [](const Tensor& x, py::handle dim, bool keepdim, py::handle dtype) {
        const auto d = opt_dtype(dtype);
        if (dim.is_none()) {
          py::gil_scoped_release nogil;
          return keepdim ? sum(x, DimList(), true, d) : sum(x, d);
        }
        const DimList dims = dims_from_python(dim, "sum");
        py::gil_scoped_release nogil;
        return sum(x, dims, keepdim, d);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none());
  def_op(
      m, cls, "mean",
      [](const Tensor& x, py::handle dim, bool keepdim, py::handle dtype) {
        const auto d = opt_dtype(dtype);
        const Tensor in = d ? x.to(*d) : x;
        if (dim.is_none()) {
          py::gil_scoped_release nogil;
          return keepdim ? mean(in, DimList(), true) : mean(in);
        }
        const DimList dims = dims_from_python(dim, "mean");
        py::gil_scoped_release nogil;
        return mean(in, dims, keepdim);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none());
  def_op(
      m, cls, "prod",
      [](const Tensor& x, py::handle dim, bool keepdim, py::handle dtype) {
        // dtype: the product's type (an integer product is computed in int64 and wraps the same)
        const auto d = opt_dtype(dtype);
        const Tensor in = d ? x.to(*d) : x;
        const std::optional<int64_t> dd = dim.is_none() ? std::nullopt : std::optional<int64_t>(py::cast<int64_t>(dim));
        py::gil_scoped_release nogil;
        const Tensor r = dd ? prod(in, *dd, keepdim) : prod(in);
        return d && r.dtype() != *d ? r.to(*d) : r;
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none());
  auto max_like = [&](const char* name, bool is_max) {
    def_op(
        m, cls, name,
        [is_max, name](const Tensor& x, py::handle dim, bool keepdim) -> py::object {
          if (dim.is_none()) {
            Tensor r;
            {
              py::gil_scoped_release nogil;
              r = is_max ? max(x) : min(x);
            }
            return py::cast(std::move(r));
          }
          if (is_tensor(dim))
            throw Error(std::string("[") + name + "] the elementwise form " + name +
                        "(input, other) is not supported yet");
          const int64_t d = py::cast<int64_t>(dim);
          return values_indices(name, [&] { return is_max ? max(x, d, keepdim) : min(x, d, keepdim); });
        },
        py::arg("dim") = py::none(), py::arg("keepdim") = false);
  };
  max_like("max", true);
  max_like("min", false);
  auto amax_like = [&](const char* name, bool is_max) {
    def_op(
        m, cls, name,
        [is_max, name](const Tensor& x, py::handle dim, bool keepdim) {
          const DimList dims = dims_from_python(dim, name);
          py::gil_scoped_release nogil;
          return is_max ? amax(x, dims, keepdim) : amin(x, dims, keepdim);
        },
        py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  };
  def_op(
      m, cls, "logsumexp",
      [](const Tensor& x, py::handle dim, bool keepdim) {
        const DimList dims = dims_from_python(dim, "logsumexp");
        py::gil_scoped_release nogil;
        return logsumexp(x, dims, keepdim);
      },
      py::arg("dim"), py::arg("keepdim") = false);
  // torch.norm with a numeric p ("fro" is 2) and linalg.vector_norm (ditto._C.vector_norm)
  auto norm_order = [](py::handle p, const char* op) -> Scalar {
    if (p.is_none()) return Scalar(2.0);
    if (py::isinstance<py::str>(p)) {
      if (p.cast<std::string>() == "fro") return Scalar(2.0);
      throw Error(std::string("[") + op + "] only numeric norms and 'fro' are supported, got '" +
                  p.cast<std::string>() + "'");
    }
    return Scalar(py::cast<double>(p));
  };
  def_op(
      m, cls, "norm",
      [norm_order](const Tensor& x, py::handle p, py::handle dim, bool keepdim, py::handle dtype) {
        const Scalar ord = norm_order(p, "norm");
        const DimList dims = dims_from_python(dim, "norm");
        const auto d = opt_dtype(dtype);
        const Tensor in = d ? x.to(*d) : x;
        py::gil_scoped_release nogil;
        return norm(in, ord, dims, keepdim);
      },
      py::arg("p") = "fro", py::arg("dim") = py::none(), py::arg("keepdim") = false, py::arg("dtype") = py::none());
  m.def(
      "vector_norm",
      [](const Tensor& x, double ord, py::handle dim, bool keepdim, py::handle dtype) {
        const DimList dims = dims_from_python(dim, "linalg.vector_norm");
        const auto d = opt_dtype(dtype);
        const Tensor in = d ? x.to(*d) : x;
        py::gil_scoped_release nogil;
        return linalg::vector_norm(in, ord, dims, keepdim);
      },
      py::arg("x"), py::arg("ord") = 2, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
      py::arg("dtype") = py::none());
  amax_like("amax", true);
  amax_like("amin", false);
  def_op(
      m, cls, "argmax",
      [](const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return argmax(x, dim, keepdim); },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, Release());
  def_op(
      m, cls, "argmin",
      [](const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return argmin(x, dim, keepdim); },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, Release());
  auto var_like = [&](const char* name, bool is_std) {
    def_op(
        m, cls, name,
        [is_std, name](const Tensor& x, py::handle dim, py::handle unbiased, bool keepdim, py::handle correction) {
          bool unb = true;
          py::handle d = dim;
          if (PyBool_Check(dim.ptr())) {  // var(input, unbiased)
            unb = dim.cast<bool>();
            d = py::none();
          }
          if (!unbiased.is_none()) unb = unbiased.cast<bool>();
          const DimList dims = dims_from_python(d, name);
          if (!correction.is_none()) {
            const double c = py::cast<double>(correction);
            if (c != 0.0 && c != 1.0) {
              // sum((x - mean)^2) / (N - c), from the biased variance (N: elements per result)
              const Shape& dl = dims;
              double n = 1;
              if (dl.empty())
                n = static_cast<double>(x.numel());
              else
                for (int64_t dd : dl) n *= static_cast<double>(x.size(dd));
              py::gil_scoped_release nogil;
              const Tensor v = mul(var(x, dims, false, keepdim), n / (n - c));
              return is_std ? sqrt(v) : v;
            }
            unb = c == 1.0;
          }
          py::gil_scoped_release nogil;
          return is_std ? ditto::std(x, dims, unb, keepdim) : var(x, dims, unb, keepdim);
        },
        py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false, py::kw_only(),
        py::arg("correction") = py::none());
  };
  var_like("var", false);
  var_like("std", true);
  auto softmax_like = [&](const char* name, bool log) {
    def_op(
        m, cls, name,
        [log](const Tensor& x, int64_t dim, py::handle dtype) {
          const auto d = opt_dtype(dtype);
          py::gil_scoped_release nogil;
          const Tensor in = d ? x.to(*d) : x;
          return log ? log_softmax(in, dim) : softmax(in, dim);
        },
        py::arg("dim"), py::arg("dtype") = py::none());
  };
  softmax_like("softmax", false);
  softmax_like("log_softmax", true);
  auto scan_like = [&](const char* name, bool product) {
    def_op(
        m, cls, name,
        [product](const Tensor& x, int64_t dim, py::handle dtype) {
          const auto d = opt_dtype(dtype);
          py::gil_scoped_release nogil;
          return product ? cumprod(x, dim, d) : cumsum(x, dim, d);
        },
        py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none());
  };
  scan_like("cumsum", false);
  scan_like("cumprod", true);
  def_op(
      m, cls, "logcumsumexp", [](const Tensor& x, int64_t dim) { return logcumsumexp(x, dim); }, py::arg("dim"),
      Release());
  auto cummax_like = [&](const char* name, bool is_max) {
    def_op(
        m, cls, name,
        [name, is_max](const Tensor& x, int64_t dim) {
          return values_indices(name, [&] { return is_max ? cummax(x, dim) : cummin(x, dim); });
        },
        py::arg("dim"));
  };
  cummax_like("cummax", true);
  cummax_like("cummin", false);

  // searchsorted(sorted_sequence, input) and bucketize(input, boundaries): input a tensor or a number
  m.def(
      "searchsorted",
      [](const Tensor& seq, py::handle input, bool out_int32, bool right, std::optional<std::string> side,
         py::handle sorter) {
        const Tensor so = sorter.is_none() ? Tensor() : sorter.cast<Tensor>();
        const std::optional<std::string_view> sd = side ? std::optional<std::string_view>(*side) : std::nullopt;
        if (is_tensor(input)) {
          const Tensor v = input.cast<Tensor>();
          py::gil_scoped_release nogil;
          return searchsorted(seq, v, out_int32, right, sd, so);
        }
        Scalar s;
        if (!scalar_from_python(input, s)) throw py::type_error("searchsorted(): input must be a Tensor or a number");
        py::gil_scoped_release nogil;
        return searchsorted(seq, s, out_int32, right, sd, so);
      },
      py::arg("sorted_sequence"), py::arg("input"), py::kw_only(), py::arg("out_int32") = false,
      py::arg("right") = false, py::arg("side") = py::none(), py::arg("sorter") = py::none());
  m.def(
      "bucketize",
      [](py::handle input, const Tensor& boundaries, bool out_int32, bool right) {
        if (is_tensor(input)) {
          const Tensor v = input.cast<Tensor>();
          py::gil_scoped_release nogil;
          return bucketize(v, boundaries, out_int32, right);
        }
        Scalar s;
        if (!scalar_from_python(input, s)) throw py::type_error("bucketize(): input must be a Tensor or a number");
        py::gil_scoped_release nogil;
        return bucketize(s, boundaries, out_int32, right);
      },
      py::arg("input"), py::arg("boundaries"), py::kw_only(), py::arg("out_int32") = false, py::arg("right") = false);

  // ---------------------------------------------------------------- counting
  def_op(
      m, cls, "histc",
      [](const Tensor& x, int64_t bins, const Scalar& min, const Scalar& max) { return histc(x, bins, min, max); },
      py::arg("bins") = 100, py::arg("min") = 0, py::arg("max") = 0, Release());
  def_op(
      m, cls, "bincount",
      [](const Tensor& x, std::optional<Tensor> weights, int64_t minlength) { return bincount(x, weights, minlength); },
      py::arg("weights") = py::none(), py::arg("minlength") = 0, Release());

  // ---------------------------------------------------------------- ordering
  def_op(
      m, cls, "sort",
      [](const Tensor& x, int64_t dim, bool descending, bool stable) {
        return values_indices("sort", [&] { return sort(x, dim, descending, stable); });
      },
      py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(), py::arg("stable") = false);
  def_op(
      m, cls, "argsort",
      [](const Tensor& x, int64_t dim, bool descending, bool stable) { return argsort(x, dim, descending, stable); },
      py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(), py::arg("stable") = false, Release());
  def_op(
      m, cls, "topk",
      [](const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
        return values_indices("topk", [&] { return topk(x, k, dim, largest, sorted); });
      },
      py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true, py::arg("sorted") = true);
  def_op(
      m, cls, "kthvalue",
      [](const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
        return values_indices("kthvalue", [&] { return kthvalue(x, k, dim, keepdim); });
      },
      py::arg("k"), py::arg("dim") = -1, py::arg("keepdim") = false);
  auto median_like = [&](const char* name, bool ignore_nan) {
    def_op(
        m, cls, name,
        [name, ignore_nan](const Tensor& x, py::handle dim, bool keepdim) -> py::object {
          if (dim.is_none()) {
            Tensor r;
            {
              py::gil_scoped_release nogil;
              r = ignore_nan ? nanmedian(x) : median(x);
            }
            return py::cast(std::move(r));
          }
          const int64_t d = py::cast<int64_t>(dim);
          return values_indices(name, [&] { return ignore_nan ? nanmedian(x, d, keepdim) : median(x, d, keepdim); });
        },
        py::arg("dim") = py::none(), py::arg("keepdim") = false);
  };
  median_like("median", false);
  median_like("nanmedian", true);
  def_op(
      m, cls, "mode",
      [](const Tensor& x, int64_t dim, bool keepdim) {
        return values_indices("mode", [&] { return mode(x, dim, keepdim); });
      },
      py::arg("dim") = -1, py::arg("keepdim") = false);
  // unique: the output, then inverse and counts where asked (a tuple then, as torch.unique)
  auto unique_tuple = [](const std::tuple<Tensor, Tensor, Tensor>& r, bool inverse, bool counts) -> py::object {
    if (!inverse && !counts) return py::cast(std::get<0>(r));
    py::list out;
    out.append(std::get<0>(r));
    if (inverse) out.append(std::get<1>(r));
    if (counts) out.append(std::get<2>(r));
    return py::tuple(out);
  };
  def_op(
      m, cls, "unique",
      [unique_tuple](const Tensor& x, bool sorted, bool inverse, bool counts, std::optional<int64_t> dim) {
        std::tuple<Tensor, Tensor, Tensor> r;
        {
          py::gil_scoped_release nogil;
          r = unique(x, sorted, inverse, counts, dim);
        }
        return unique_tuple(r, inverse, counts);
      },
      py::arg("sorted") = true, py::arg("return_inverse") = false, py::arg("return_counts") = false,
      py::arg("dim") = py::none());
  def_op(
      m, cls, "unique_consecutive",
      [unique_tuple](const Tensor& x, bool inverse, bool counts, std::optional<int64_t> dim) {
        std::tuple<Tensor, Tensor, Tensor> r;
        {
          py::gil_scoped_release nogil;
          r = unique_consecutive(x, inverse, counts, dim);
        }
        return unique_tuple(r, inverse, counts);
      },
      py::arg("return_inverse") = false, py::arg("return_counts") = false, py::arg("dim") = py::none());

  // ---------------------------------------------------------------- linear algebra
  def_op(
      m, cls, "mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); }, py::arg("mat2"), Release());
  def_op(
      m, cls, "bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); }, py::arg("mat2"), Release());
  def_op(
      m, cls, "matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, py::arg("other"), Release());
  def_op(
      m, cls, "addmm",
      [](const Tensor& x, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
        return addmm(x, a, b, beta, alpha);
      },
      py::arg("mat1"), py::arg("mat2"), py::kw_only(), py::arg("beta") = 1, py::arg("alpha") = 1, Release());

  def_op(
      m, cls, "baddbmm",
      [](const Tensor& x, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
        return baddbmm(x, a, b, beta, alpha);
      },
      py::arg("batch1"), py::arg("batch2"), py::kw_only(), py::arg("beta") = 1, py::arg("alpha") = 1, Release());
  def_op(
      m, cls, "outer", [](const Tensor& a, const Tensor& b) { return outer(a, b); }, py::arg("vec2"), Release());
  m.attr("ger") = m.attr("outer");
  cls.attr("ger") = cls.attr("outer");
  // einsum(equation, *operands) or einsum(equation, [operands])
  m.def("einsum", [](const std::string& equation, py::args args) {
    std::vector<Tensor> ops;
    if (args.size() == 1 && !is_tensor(args[0])) {
      ops = args[0].cast<std::vector<Tensor>>();
    } else {
      for (py::handle a : args) ops.push_back(a.cast<Tensor>());
    }
    py::gil_scoped_release nogil;
    return einsum(equation, ops);
  });

  // ---------------------------------------------------------------- joining and indexing
  m.def(
      "cat", [](const std::vector<Tensor>& ts, int64_t dim) { return cat(ts, dim); }, py::arg("tensors"),
      py::arg("dim") = 0, Release());
  m.attr("concat") = m.attr("cat");
  m.def(
      "stack", [](const std::vector<Tensor>& ts, int64_t dim) { return stack(ts, dim); }, py::arg("tensors"),
      py::arg("dim") = 0, Release());
  def_op(
      m, cls, "index_select",
      [](const Tensor& x, int64_t dim, const Tensor& index) { return index_select(x, dim, index); }, py::arg("dim"),
      py::arg("index"), Release());
  def_op(
      m, cls, "gather", [](const Tensor& x, int64_t dim, const Tensor& index) { return gather(x, dim, index); },
      py::arg("dim"), py::arg("index"), Release());
  def_op(
      m, cls, "index_add",
      [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
        return index_add(x, dim, index, source, alpha);
      },
      py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1, Release());
  def_op(
      m, cls, "scatter_add",
      [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
        return scatter_add(x, dim, index, src);
      },
      py::arg("dim"), py::arg("index"), py::arg("src"), Release());
  // scatter(input, dim, index, src) and scatter(input, dim, index, value=number); f(src tensor or
  // value scalar) runs with the GIL released
  auto scatter_src = [](py::handle src, py::handle value, auto f) {
    py::handle v = src.is_none() ? value : src;
    if (v.is_none()) throw py::type_error("scatter() missing 1 required argument: 'src' or 'value'");
    if (is_tensor(v)) {
      const Tensor s = v.cast<Tensor>();
      py::gil_scoped_release nogil;
      return f(s);
    }
    Scalar sv;
    if (!scalar_from_python(v, sv)) throw py::type_error("scatter(): src must be a Tensor or a number");
    py::gil_scoped_release nogil;
    return f(sv);
  };
  def_op(
      m, cls, "scatter",
      [scatter_src](const Tensor& x, int64_t dim, const Tensor& index, py::handle src, py::handle value,
                    std::optional<std::string> reduce) {
        return scatter_src(src, value, [&](const auto& s) {
          return reduce ? scatter(x, dim, index, s, *reduce) : scatter(x, dim, index, s);
        });
      },
      py::arg("dim"), py::arg("index"), py::arg("src") = py::none(), py::kw_only(), py::arg("value") = py::none(),
      py::arg("reduce") = py::none());
  cls.def(
      "scatter_",
      [scatter_src](py::object self, int64_t dim, const Tensor& index, py::handle src, py::handle value,
                    std::optional<std::string> reduce) {
        Tensor& t = self.cast<Tensor&>();
        if (reduce) {  // PyTorch's scatter_(..., reduce=): in place, no gradient
          const Tensor r = scatter_src(src, value, [&](const auto& s) { return scatter(t, dim, index, s, *reduce); });
          py::gil_scoped_release nogil;
          NoGradGuard no_grad;
          t.copy_(r);
        } else {
          scatter_src(src, value, [&](const auto& s) { return t.scatter_(dim, index, s), 0; });
        }
        return self;
      },
      py::arg("dim"), py::arg("index"), py::arg("src") = py::none(), py::kw_only(), py::arg("value") = py::none(),
      py::arg("reduce") = py::none());
  def_op(
      m, cls, "index_copy",
      [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) {
        return index_copy(x, dim, index, source);
      },
      py::arg("dim"), py::arg("index"), py::arg("source"), Release());
  def_op(
      m, cls, "index_put",
      [](const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
        return index_put(x, indices, values, accumulate);
      },
      py::arg("indices"), py::arg("values"), py::arg("accumulate") = false, Release());
  def_op(
      m, cls, "put",
      [](const Tensor& x, const Tensor& index, const Tensor& source, bool accumulate) {
        return put(x, index, source, accumulate);
      },
      py::arg("index"), py::arg("source"), py::arg("accumulate") = false, Release());
  // selection by data
  def_op(
      m, cls, "nonzero",
      [](const Tensor& x, bool as_tuple) -> py::object {
        if (!as_tuple) return py::cast(nonzero(x));
        std::vector<Tensor> r;
        {
          py::gil_scoped_release nogil;
          r = nonzero_as_tuple(x);
        }
        return py::tuple(py::cast(r));
      },
      py::kw_only(), py::arg("as_tuple") = false);
  def_op(
      m, cls, "argwhere", [](const Tensor& x) { return argwhere(x); }, Release());
  def_op(
      m, cls, "masked_select", [](const Tensor& x, const Tensor& mask) { return masked_select(x, mask); },
      py::arg("mask"), Release());
  def_op(
      m, cls, "masked_scatter",
      [](const Tensor& x, const Tensor& mask, const Tensor& source) { return masked_scatter(x, mask, source); },
      py::arg("mask"), py::arg("source"), Release());
  def_op(
      m, cls, "take", [](const Tensor& x, const Tensor& index) { return take(x, index); }, py::arg("index"), Release());
  def_op(
      m, cls, "take_along_dim",
      [](const Tensor& x, const Tensor& indices, std::optional<int64_t> dim) {
        return take_along_dim(x, indices, dim);
      },
      py::arg("indices"), py::arg("dim") = py::none(), Release());
  // repeat_interleave(input, repeats, dim, *, output_size) and repeat_interleave(repeats)
  m.def(
      "repeat_interleave",
      [](const Tensor& x, py::handle repeats, std::optional<int64_t> dim, std::optional<int64_t> output_size) {
        if (repeats.is_none()) return repeat_interleave(x, output_size);
        if (is_tensor(repeats)) return repeat_interleave(x, repeats.cast<Tensor>(), dim, output_size);
        return repeat_interleave(x, py::cast<int64_t>(repeats), dim, output_size);
      },
      py::arg("input"), py::arg("repeats") = py::none(), py::arg("dim") = py::none(), py::kw_only(),
      py::arg("output_size") = py::none());
  cls.def(
      "repeat_interleave",
      [](const Tensor& x, py::handle repeats, std::optional<int64_t> dim, std::optional<int64_t> output_size) {
        if (is_tensor(repeats)) return repeat_interleave(x, repeats.cast<Tensor>(), dim, output_size);
        return repeat_interleave(x, py::cast<int64_t>(repeats), dim, output_size);
      },
      py::arg("repeats"), py::arg("dim") = py::none(), py::kw_only(), py::arg("output_size") = py::none());
  def_op(
      m, cls, "index_fill",
      [](const Tensor& x, int64_t dim, const Tensor& index, py::handle value) {
        if (is_tensor(value)) return index_fill(x, dim, index, value.cast<Tensor>());
        return index_fill(x, dim, index, as_scalar(value, "index_fill", "value"));
      },
      py::arg("dim"), py::arg("index"), py::arg("value"));
  def_op(
      m, cls, "scatter_reduce",
      [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
         bool include_self) { return scatter_reduce(x, dim, index, src, reduce, include_self); },
      py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce"), py::kw_only(),
      py::arg("include_self") = true, Release());
  // in place: each returns self (the same Python object)
  cls.def("index_add_",
          InPlace<int64_t, const Tensor&, const Tensor&, const Scalar&>::wrap(
              [](Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
                t.index_add_(dim, index, source, alpha);
              }),
          py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1);
  cls.def("scatter_add_",
          InPlace<int64_t, const Tensor&, const Tensor&>::wrap(
              [](Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) { t.scatter_add_(dim, index, src); }),
          py::arg("dim"), py::arg("index"), py::arg("src"));
  cls.def(
      "index_copy_",
      InPlace<int64_t, const Tensor&, const Tensor&>::wrap(
          [](Tensor& t, int64_t dim, const Tensor& index, const Tensor& source) { t.index_copy_(dim, index, source); }),
      py::arg("dim"), py::arg("index"), py::arg("source"));
  cls.def("index_put_",
          InPlace<const std::vector<Tensor>&, const Tensor&, bool>::wrap(
              [](Tensor& t, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
                t.index_put_(indices, values, accumulate);
              }),
          py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
  cls.def("put_",
          InPlace<const Tensor&, const Tensor&, bool>::wrap([](Tensor& t, const Tensor& index, const Tensor& source,
                                                               bool accumulate) { t.put_(index, source, accumulate); }),
          py::arg("index"), py::arg("source"), py::arg("accumulate") = false);

  cls.def("masked_scatter_",
          InPlace<const Tensor&, const Tensor&>::wrap(
              [](Tensor& t, const Tensor& mask, const Tensor& source) { t.masked_scatter_(mask, source); }),
          py::arg("mask"), py::arg("source"));
  cls.def(
      "index_fill_",
      [](py::object self, int64_t dim, const Tensor& index, py::handle value) {
        const Scalar v = is_tensor(value) ? value.cast<Tensor>().item() : as_scalar(value, "index_fill_", "value");
        Tensor& t = self.cast<Tensor&>();
        {
          py::gil_scoped_release nogil;
          t.index_fill_(dim, index, v);
        }
        return self;
      },
      py::arg("dim"), py::arg("index"), py::arg("value"));

  // ---------------------------------------------------------------- in-place arithmetic and copies
  auto inplace_binary = [&](const char* name, auto tt, auto ts) {
    cls.def(
        name,
        [tt, ts, name](py::object self, py::handle other, py::handle alpha) {
          Tensor& t = self.cast<Tensor&>();
          const Scalar a = as_scalar(alpha, name, "alpha");
          if (is_tensor(other)) {
            const Tensor& o = other.cast<const Tensor&>();
            py::gil_scoped_release nogil;
            tt(t, o, a);
          } else {
            const Scalar s = as_scalar(other, name, "other");
            py::gil_scoped_release nogil;
            ts(t, s, a);
          }
          return self;
        },
        py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  };
  inplace_binary(
      "add_", [](Tensor& t, const Tensor& o, const Scalar& a) { t.add_(o, a); },
      [](Tensor& t, const Scalar& s, const Scalar& a) {
        if (a.is_integral() && a.to_int() == 1)
          t.add_(s);
        else
          t.add_(scalar_tensor(s), a);
      });
  inplace_binary(
      "sub_", [](Tensor& t, const Tensor& o, const Scalar& a) { t.sub_(o, a); },
      [](Tensor& t, const Scalar& s, const Scalar& a) {
        if (a.is_integral() && a.to_int() == 1)
          t.sub_(s);
        else
          t.sub_(scalar_tensor(s), a);
      });
  auto inplace_plain = [&](const char* name, auto tt, auto ts) {
    cls.def(
        name,
        [tt, ts, name](py::object self, py::handle other) {
          Tensor& t = self.cast<Tensor&>();
          if (!with_other(
                  other, [&](const Tensor& o) { tt(t, o); }, [&](const Scalar& s) { ts(t, s); }))
            ts(t, as_scalar(other, name, "other"));  // raises TypeError
          return self;
        },
        py::arg("other"));
  };
  inplace_plain(
      "mul_", [](Tensor& t, const Tensor& o) { t.mul_(o); }, [](Tensor& t, const Scalar& s) { t.mul_(s); });
  inplace_plain(
      "div_", [](Tensor& t, const Tensor& o) { t.div_(o); }, [](Tensor& t, const Scalar& s) { t.div_(s); });
  inplace_plain(
      "fill_", [](Tensor& t, const Tensor& o) { t.fill_(o.item()); }, [](Tensor& t, const Scalar& s) { t.fill_(s); });
  cls.def("copy_",
          InPlace<const Tensor&, bool>::wrap([](Tensor& t, const Tensor& src, bool non_blocking) { t.copy_(src); }),
          py::arg("src"), py::arg("non_blocking") = false);
  cls.def("zero_", [](py::object self) {
    Tensor& t = self.cast<Tensor&>();
    {
      py::gil_scoped_release nogil;
      t.zero_();
    }
    return self;
  });
  cls.def("resize_", [](py::object self, py::args size) {
    Tensor& t = self.cast<Tensor&>();
    const Shape s = shape_from_args(size, "resize_");
    {
      py::gil_scoped_release nogil;
      t.resize_(s);
    }
    return self;
  });

  // ---------------------------------------------------------------- views and conversions
  m.def(
      "reshape", [](const Tensor& x, py::handle shape) { return reshape(x, shape_from_sequence(shape, "reshape")); },
      py::arg("input"), py::arg("shape"));
  cls.def("reshape", [](const Tensor& x, py::args shape) { return x.reshape(shape_from_args(shape, "reshape")); });
  cls.def("view", [](const Tensor& x, py::args shape) {
    if (shape.size() == 1 && !PySequence_Check(shape[0].ptr()) && !PyIndex_Check(shape[0].ptr()))
      return x.to(shape[0].cast<ScalarType>());  // view(dtype) of the same size only
    return x.view(shape_from_args(shape, "view"));
  });
  cls.def(
      "view_as", [](const Tensor& x, const Tensor& o) { return x.view(o.sizes()); }, py::arg("other"));
  cls.def(
      "reshape_as", [](const Tensor& x, const Tensor& o) { return x.reshape(o.sizes()); }, py::arg("other"));
  def_op(
      m, cls, "flatten", [](const Tensor& x, int64_t s, int64_t e) { return flatten(x, s, e); },
      py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  def_op(
      m, cls, "transpose", [](const Tensor& x, int64_t a, int64_t b) { return transpose(x, a, b); }, py::arg("dim0"),
      py::arg("dim1"));
  m.attr("swapaxes") = m.attr("transpose");
  def_op(m, cls, "t", [](const Tensor& x) { return x.t(); });
  cls.def_property_readonly("T", [](const Tensor& x) {
    Shape perm;
    for (int64_t d = x.dim() - 1; d >= 0; --d) perm.push_back(d);
    return x.permute(perm);
  });
  m.def(
      "permute", [](const Tensor& x, py::handle dims) { return permute(x, shape_from_sequence(dims, "permute")); },
      py::arg("input"), py::arg("dims"));
  cls.def("permute", [](const Tensor& x, py::args dims) { return x.permute(shape_from_args(dims, "permute")); });
  def_op(
      m, cls, "squeeze",
      [](const Tensor& x, std::optional<int64_t> dim) { return dim ? squeeze(x, *dim) : squeeze(x); },
      py::arg("dim") = py::none());
  def_op(
      m, cls, "unsqueeze", [](const Tensor& x, int64_t dim) { return unsqueeze(x, dim); }, py::arg("dim"));
  def_op(
      m, cls, "narrow",
      [](const Tensor& x, int64_t dim, int64_t start, int64_t length) { return x.narrow(dim, start, length); },
      py::arg("dim"), py::arg("start"), py::arg("length"));
  def_op(
      m, cls, "split",
      [](const Tensor& x, py::handle split, int64_t dim) {
        std::vector<Tensor> r;
        if (py::isinstance<py::int_>(split)) {
          const auto n = split.cast<int64_t>();
          py::gil_scoped_release nogil;
          r = ditto::split(x, n, dim);
        } else {
          const Shape sizes = shape_from_sequence(split, "split");
          py::gil_scoped_release nogil;
          r = split_with_sizes(x, sizes, dim);
        }
        return py::tuple(py::cast(r));
      },
      py::arg("split_size_or_sections"), py::arg("dim") = 0);
  def_op(
      m, cls, "split_with_sizes",
      [](const Tensor& x, py::handle sizes, int64_t dim) {
        return py::tuple(py::cast(split_with_sizes(x, shape_from_sequence(sizes, "split_with_sizes"), dim)));
      },
      py::arg("split_sizes"), py::arg("dim") = 0);
  def_op(
      m, cls, "chunk",
      [](const Tensor& x, int64_t chunks, int64_t dim) { return py::tuple(py::cast(chunk(x, chunks, dim))); },
      py::arg("chunks"), py::arg("dim") = 0);
  def_op(
      m, cls, "unbind", [](const Tensor& x, int64_t dim) { return py::tuple(py::cast(unbind(x, dim))); },
      py::arg("dim") = 0);
  cls.def("repeat", [](const Tensor& x, py::args sizes) { return x.repeat(shape_from_args(sizes, "repeat")); });
  def_op(
      m, cls, "tile", [](const Tensor& x, py::handle dims) { return tile(x, shape_from_sequence(dims, "tile")); },
      py::arg("dims"));
  m.def(
      "flip", [](const Tensor& x, py::handle dims) { return flip(x, dims_from_python(dims, "flip")); },
      py::arg("input"), py::arg("dims"));
  cls.def("flip", [](const Tensor& x, py::args dims) {
    if (dims.size() == 1 && !py::isinstance<py::int_>(dims[0])) return flip(x, dims_from_python(dims[0], "flip"));
    return flip(x, DimList(shape_from_args(dims, "flip")));
  });
  def_op(
      m, cls, "roll",
      [](const Tensor& x, py::handle shifts, py::handle dims) {
        return roll(x, dims_from_python(shifts, "roll"), dims.is_none() ? DimList() : dims_from_python(dims, "roll"));
      },
      py::arg("shifts"), py::arg("dims") = py::none());
  def_op(
      m, cls, "movedim",
      [](const Tensor& x, py::handle source, py::handle destination) {
        return movedim(x, dims_from_python(source, "movedim"), dims_from_python(destination, "movedim"));
      },
      py::arg("source"), py::arg("destination"));
  m.attr("moveaxis") = m.attr("movedim");
  cls.attr("moveaxis") = cls.attr("movedim");
  m.attr("swapdims") = m.attr("transpose");
  cls.attr("swapaxes") = cls.attr("transpose");
  cls.attr("swapdims") = cls.attr("transpose");
  def_op(
      m, cls, "select", [](const Tensor& x, int64_t dim, int64_t index) { return x.select(dim, index); },
      py::arg("dim"), py::arg("index"));
  cls.def("expand", [](const Tensor& x, py::args size) { return x.expand(shape_from_args(size, "expand")); });
  cls.def(
      "expand_as", [](const Tensor& x, const Tensor& o) { return x.expand_as(o); }, py::arg("other"));
  cls.def(
      "contiguous", [](const Tensor& x) { return x.contiguous(); }, Release());
  cls.def(
      "to",
      [](const Tensor& x, py::args args, py::handle dtype, bool copy, bool non_blocking) {
        // to(dtype), to(device), to(device, dtype), to(other), to(dtype=...)
        std::optional<ScalarType> target = opt_dtype(dtype);
        for (py::handle a : args) {
          ScalarType t;
          if (dtype_from_python(a, t))
            target = t;
          else if (is_tensor(a))
            target = a.cast<const Tensor&>().dtype();
          else
            check_device(a);
        }
        if (!target || *target == x.dtype()) return copy ? x.clone() : x;
        return x.to(*target);
      },
      py::kw_only(), py::arg("dtype") = py::none(), py::arg("copy") = false, py::arg("non_blocking") = false);
  cls.def(
      "type",
      [](const Tensor& x, py::handle dtype) -> py::object {
        if (dtype.is_none())
          return py::str(std::string("ditto.") + (x.dtype() == kFloat32   ? "FloatTensor"
                                                  : x.dtype() == kFloat64 ? "DoubleTensor"
                                                  : x.dtype() == kInt64   ? "LongTensor"
                                                  : x.dtype() == kInt32   ? "IntTensor"
                                                                          : "BoolTensor"));
        return py::cast(x.to(dtype.cast<ScalarType>()));
      },
      py::arg("dtype") = py::none());
  cls.def("float", [](const Tensor& x) { return x.dtype() == kFloat32 ? x : x.to(kFloat32); });
  cls.def("double", [](const Tensor& x) { return x.dtype() == kFloat64 ? x : x.to(kFloat64); });
  cls.def("long", [](const Tensor& x) { return x.dtype() == kInt64 ? x : x.to(kInt64); });
  cls.def("int", [](const Tensor& x) { return x.dtype() == kInt32 ? x : x.to(kInt32); });
  cls.def("bool", [](const Tensor& x) { return x.dtype() == kBool ? x : x.to(kBool); });
  cls.def("cpu", [](const Tensor& x) { return x; });
  cls.def_property_readonly("device", [](const Tensor&) { return py::module_::import("ditto").attr("device")("cpu"); });
  def_op(m, cls, "numel", [](const Tensor& x) { return x.numel(); });
  m.def(
      "is_floating_point", [](const Tensor& x) { return is_floating(x.dtype()); }, py::arg("input"));
}

}  // namespace ditto::python
