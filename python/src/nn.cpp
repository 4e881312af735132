// ditto._C._nn, _C._init and _C._optim: the C++ ops behind ditto.nn.functional, ditto.nn.init and
// ditto.optim. The Python files give them PyTorch's signatures; this file converts arguments
// (sizes given as an int or a sequence, reductions as strings) and releases the GIL.
#include "common.h"

namespace ditto::python {
namespace {

using namespace ditto::nn;
using Release = py::call_guard<py::gil_scoped_release>;

// PyTorch's int-or-tuple (None: empty, where a pooling stride then defaults to the kernel size).
SizeArg size_arg(py::handle h, const char* op) {
  if (h.is_none()) return SizeArg();
  if (PyIndex_Check(h.ptr()) && !PyBool_Check(h.ptr())) return SizeArg(py::cast<int64_t>(h));
  return SizeArg(shape_from_sequence(h, op));
}

Reduction reduction_arg(const std::string& r) {
  if (r == "mean") return Reduction::Mean;
  if (r == "sum") return Reduction::Sum;
  if (r == "none") return Reduction::None;
  throw py::value_error(r + " is not a valid value for reduction");
}

Tensor opt(py::handle h) { return h.is_none() ? Tensor() : h.cast<Tensor>(); }

init::FanMode fan_mode(const std::string& mode) {
  if (mode == "fan_in") return init::FanMode::FanIn;
  if (mode == "fan_out") return init::FanMode::FanOut;
  throw py::value_error("Mode " + mode + " not supported, please use one of fan_in, fan_out");
}

// Optimizer state as a dict {param index: {name: tensor}} plus the step count.
py::dict state_to_python(const optim::OptimizerState& s) {
  py::dict per;
  for (std::size_t i = 0; i < s.per_param.size(); ++i) {
    py::dict d;
    for (const auto& [k, v] : s.per_param[i]) d[py::str(k)] = v;
    per[py::int_(i)] = d;
  }
  py::dict out;
  out["step"] = s.step;
  out["state"] = per;
  return out;
}
optim::OptimizerState state_from_python(const py::dict& d) {
  optim::OptimizerState s;
  s.step = d["step"].cast<int64_t>();
  py::dict per = d["state"].cast<py::dict>();
  s.per_param.resize(per.size());
  for (auto [k, v] : per) {
    const std::size_t i = k.cast<std::size_t>();
    if (i >= s.per_param.size()) throw py::value_error("optimizer state: parameter index out of range");
    for (auto [name, t] : v.cast<py::dict>()) s.per_param[i][name.cast<std::string>()] = t.cast<Tensor>();
  }
  return s;
}

}  // namespace

void bind_nn(py::module_& m) {
  py::module_ f = m.def_submodule("_nn", "the ops behind ditto.nn.functional");
  f.def("linear", [](const Tensor& x, const Tensor& w, py::handle b) {
    const Tensor bias = opt(b);
    py::gil_scoped_release nogil;
    return functional::linear(x, w, bias);
  });
  auto loss2 = [&](const char* name, auto fn) {
    f.def(name, [fn](const Tensor& input, const Tensor& target, const std::string& reduction) {
      const Reduction r = reduction_arg(reduction);
      py::gil_scoped_release nogil;
      return fn(input, target, r);
    });
  };
  loss2("mse_loss", [](const Tensor& a, const Tensor& b, Reduction r) { return functional::mse_loss(a, b, r); });
  loss2("l1_loss", [](const Tensor& a, const Tensor& b, Reduction r) { return functional::l1_loss(a, b, r); });
  auto loss2_number = [&](const char* name, auto fn) {  // a loss with one number: beta, delta, log_target
    f.def(name, [fn](const Tensor& input, const Tensor& target, const std::string& reduction, double number) {
      const Reduction r = reduction_arg(reduction);
      py::gil_scoped_release nogil;
      return fn(input, target, r, number);
    });
  };
  loss2_number("smooth_l1_loss", [](const Tensor& a, const Tensor& b, Reduction r, double beta) {
    return functional::smooth_l1_loss(a, b, r, beta);
  });
  loss2_number("huber_loss", [](const Tensor& a, const Tensor& b, Reduction r, double delta) {
    return functional::huber_loss(a, b, r, delta);
  });
  f.def("binary_cross_entropy",
        [](const Tensor& input, const Tensor& target, py::handle weight, const std::string& reduction) {
          const Tensor w = opt(weight);
          const Reduction r = reduction_arg(reduction);
          py::gil_scoped_release nogil;
          return functional::binary_cross_entropy(input, target, w, r);
        });
  f.def("kl_div", [](const Tensor& input, const Tensor& target, const std::string& reduction, bool log_target) {
    py::gil_scoped_release nogil;
    return functional::kl_div(input, target, reduction, log_target);
  });
  auto loss3 = [&](const char* name, auto fn) {  // (input1, input2, target, margin, reduction)
    f.def(name, [fn](const Tensor& a, const Tensor& b, const Tensor& t, double margin, const std::string& reduction) {
      const Reduction r = reduction_arg(reduction);
      py::gil_scoped_release nogil;
      return fn(a, b, t, margin, r);
    });
  };
  loss3("margin_ranking_loss", [](const Tensor& a, const Tensor& b, const Tensor& t, double m, Reduction r) {
    return functional::margin_ranking_loss(a, b, t, m, r);
  });
  loss3("cosine_embedding_loss", [](const Tensor& a, const Tensor& b, const Tensor& t, double m, Reduction r) {
    return functional::cosine_embedding_loss(a, b, t, m, r);
  });
  f.def("nll_loss", [](const Tensor& input, const Tensor& target, py::handle weight, int64_t ignore_index,
                       const std::string& reduction) {
    const Tensor w = opt(weight);
    const Reduction r = reduction_arg(reduction);
    py::gil_scoped_release nogil;
    return functional::nll_loss(input, target, w, ignore_index, r);
  });
  f.def("cross_entropy", [](const Tensor& input, const Tensor& target, py::handle weight, int64_t ignore_index,
                            const std::string& reduction, double label_smoothing) {
    const Tensor w = opt(weight);
    const Reduction r = reduction_arg(reduction);
    py::gil_scoped_release nogil;
    return functional::cross_entropy(input, target, w, ignore_index, r, label_smoothing);
  });
  auto ctc = [&]<class Lengths>() {  // lengths as tensors or as sequences of ints
    f.def("ctc_loss",
          [](const Tensor& log_probs, const Tensor& targets, const Lengths& input_lengths,
             const Lengths& target_lengths, int64_t blank, const std::string& reduction, bool zero_infinity) {
            const Reduction r = reduction_arg(reduction);
            py::gil_scoped_release nogil;
            return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, r, zero_infinity);
          });
  };
  ctc.operator()<Tensor>();
  ctc.operator()<Shape>();
  f.def("binary_cross_entropy_with_logits", [](const Tensor& input, const Tensor& target, py::handle weight,
                                               const std::string& reduction, py::handle pos_weight) {
    const Tensor w = opt(weight), pw = opt(pos_weight);
    const Reduction r = reduction_arg(reduction);
    py::gil_scoped_release nogil;
    return functional::binary_cross_entropy_with_logits(input, target, w, r, pw);
  });
  using DropoutFn = Tensor (*)(const Tensor&, double, bool, Generator*);
  for (auto [name, fn] : {std::pair<const char*, DropoutFn>{"dropout", &functional::dropout},
                          {"dropout1d", &functional::dropout1d},
                          {"dropout2d", &functional::dropout2d}})
    f.def(name, [fn](const Tensor& x, double p, bool training, py::handle generator) {
      if (p < 0.0 || p > 1.0)
        throw py::value_error("dropout probability has to be between 0 and 1, but got " + std::to_string(p));
      Generator* g = generator_from_python(generator);
      py::gil_scoped_release nogil;
      return fn(x, p, training, g);
    });
  f.def(
      "embedding",
      [](const Tensor& indices, const Tensor& weight, std::optional<int64_t> padding_idx) {
        return functional::embedding(indices, weight, padding_idx);
      },
      Release());
  f.def("embedding_bag",
        [](const Tensor& input, const Tensor& weight, py::handle offsets, const std::string& mode,
           py::handle per_sample_weights, bool include_last_offset, std::optional<int64_t> padding_idx) {
          const Tensor o = opt(offsets), w = opt(per_sample_weights);
          py::gil_scoped_release nogil;
          return functional::embedding_bag(input, weight, o, mode, w, include_last_offset, padding_idx);
        });
  f.def("rms_norm", [](const Tensor& x, py::handle shape, py::handle weight, std::optional<double> eps) {
    const Shape s =
        PyIndex_Check(shape.ptr()) ? Shape{py::cast<int64_t>(shape)} : shape_from_sequence(shape, "rms_norm");
    const Tensor w = opt(weight);
    py::gil_scoped_release nogil;
    return functional::rms_norm(x, s, w, eps);
  });
  f.def("layer_norm", [](const Tensor& x, py::handle shape, py::handle weight, py::handle bias, double eps) {
    const Shape s =
        PyIndex_Check(shape.ptr()) ? Shape{py::cast<int64_t>(shape)} : shape_from_sequence(shape, "layer_norm");
    const Tensor w = opt(weight), b = opt(bias);
    py::gil_scoped_release nogil;
    return functional::layer_norm(x, s, w, b, eps);
  });
  m.def("native_layer_norm", [](const Tensor& x, py::handle shape, py::handle weight, py::handle bias, double eps) {
    const Shape s =
        PyIndex_Check(shape.ptr()) ? Shape{py::cast<int64_t>(shape)} : shape_from_sequence(shape, "native_layer_norm");
    const Tensor w = opt(weight), b = opt(bias);
    py::gil_scoped_release nogil;
    return native_layer_norm(x, s, w, b, eps);
  });
  m.def("native_group_norm", [](const Tensor& x, py::handle weight, py::handle bias, int64_t N, int64_t C, int64_t HxW,
                                int64_t group, double eps) {
    const Tensor w = opt(weight), b = opt(bias);
    py::gil_scoped_release nogil;
    return native_group_norm(x, w, b, N, C, HxW, group, eps);
  });
  m.def("native_batch_norm", [](const Tensor& x, py::handle weight, py::handle bias, py::handle running_mean,
                                py::handle running_var, bool training, double momentum, double eps) {
    const Tensor w = opt(weight), b = opt(bias), rm = opt(running_mean), rv = opt(running_var);
    py::gil_scoped_release nogil;
    return native_batch_norm(x, w, b, rm, rv, training, momentum, eps);
  });
  f.def("batch_norm", [](const Tensor& x, py::handle running_mean, py::handle running_var, py::handle weight,
                         py::handle bias, bool training, double momentum, double eps) {
    const Tensor rm = opt(running_mean), rv = opt(running_var), w = opt(weight), b = opt(bias);
    py::gil_scoped_release nogil;
    return functional::batch_norm(x, rm, rv, w, b, training, momentum, eps);
  });
  f.def("group_norm", [](const Tensor& x, int64_t num_groups, py::handle weight, py::handle bias, double eps) {
    const Tensor w = opt(weight), b = opt(bias);
    py::gil_scoped_release nogil;
    return functional::group_norm(x, num_groups, w, b, eps);
  });
  f.def("instance_norm", [](const Tensor& x, py::handle running_mean, py::handle running_var, py::handle weight,
                            py::handle bias, bool use_input_stats, double momentum, double eps) {
    const Tensor rm = opt(running_mean), rv = opt(running_var), w = opt(weight), b = opt(bias);
    py::gil_scoped_release nogil;
    return functional::instance_norm(x, rm, rv, w, b, use_input_stats, momentum, eps);
  });
  f.def(
      "gelu", [](const Tensor& x, const std::string& approximate) { return gelu(x, approximate); }, Release());
  f.def("scaled_dot_product_attention", [](const Tensor& q, const Tensor& k, const Tensor& v, py::handle mask,
                                           double dropout_p, bool is_causal, std::optional<double> scale) {
    const Tensor m = opt(mask);
    py::gil_scoped_release nogil;
    return functional::scaled_dot_product_attention(q, k, v, m, dropout_p, is_causal, scale);
  });
  f.def(
      "silu", [](const Tensor& x) { return silu(x); }, Release());
  f.def(
      "mish", [](const Tensor& x) { return mish(x); }, Release());
  f.def(
      "hardswish", [](const Tensor& x) { return hardswish(x); }, Release());
  f.def(
      "leaky_relu", [](const Tensor& x, const Scalar& slope) { return leaky_relu(x, slope); }, Release());
  f.def(
      "softplus",
      [](const Tensor& x, const Scalar& beta, const Scalar& threshold) { return softplus(x, beta, threshold); },
      Release());
  f.def(
      "hardtanh", [](const Tensor& x, const Scalar& lo, const Scalar& hi) { return hardtanh(x, lo, hi); }, Release());
  f.def(
      "elu",
      [](const Tensor& x, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
        return elu(x, alpha, scale, input_scale);
      },
      Release());
  auto conv = [&](const char* name, auto fn) {
    f.def(name, [fn, name](const Tensor& x, const Tensor& w, py::handle b, py::handle stride, py::handle padding,
                           py::handle dilation, int64_t groups) {
      if (py::isinstance<py::str>(padding))
        throw Error(std::string("[") + name + "] padding='" + padding.cast<std::string>() +
                    "' is not supported yet; give the padding as numbers");
      const Tensor bias = opt(b);
      const SizeArg s = size_arg(stride, name), p = size_arg(padding, name), d = size_arg(dilation, name);
      py::gil_scoped_release nogil;
      return fn(x, w, bias, s, p, d, groups);
    });
  };
  conv("conv1d", [](const Tensor& x, const Tensor& w, const Tensor& b, SizeArg s, SizeArg p, SizeArg d, int64_t g) {
    return functional::conv1d(x, w, b, s, p, d, g);
  });
  conv("conv2d", [](const Tensor& x, const Tensor& w, const Tensor& b, SizeArg s, SizeArg p, SizeArg d, int64_t g) {
    return functional::conv2d(x, w, b, s, p, d, g);
  });
  conv("conv3d", [](const Tensor& x, const Tensor& w, const Tensor& b, SizeArg s, SizeArg p, SizeArg d, int64_t g) {
    return functional::conv3d(x, w, b, s, p, d, g);
  });
  // conv_transpose1d/2d/3d(input, weight, bias, stride, padding, output_padding, groups, dilation)
  auto conv_transpose = [&](const char* name, int dims) {
    f.def(name, [name, dims](const Tensor& x, const Tensor& w, std::optional<Tensor> b, py::handle stride,
                             py::handle padding, py::handle output_padding, int64_t groups, py::handle dilation) {
      const SizeArg s = size_arg(stride, name), p = size_arg(padding, name), o = size_arg(output_padding, name),
                    d = size_arg(dilation, name);
      const Tensor bias = b ? *b : Tensor();
      py::gil_scoped_release nogil;
      return dims == 1   ? functional::conv_transpose1d(x, w, bias, s, p, o, groups, d)
             : dims == 2 ? functional::conv_transpose2d(x, w, bias, s, p, o, groups, d)
                         : functional::conv_transpose3d(x, w, bias, s, p, o, groups, d);
    });
  };
  conv_transpose("conv_transpose1d", 1);
  conv_transpose("conv_transpose2d", 2);
  conv_transpose("conv_transpose3d", 3);
  auto max_pool = [&](const char* name, int dims) {
    f.def(name, [name, dims](const Tensor& x, py::handle kernel, py::handle stride, py::handle padding,
                             py::handle dilation, bool ceil_mode) {
      const SizeArg k = size_arg(kernel, name), s = size_arg(stride, name), p = size_arg(padding, name),
                    d = size_arg(dilation, name);
      py::gil_scoped_release nogil;
      return dims == 1   ? functional::max_pool1d_with_indices(x, k, s, p, d, ceil_mode)
             : dims == 2 ? functional::max_pool2d_with_indices(x, k, s, p, d, ceil_mode)
                         : functional::max_pool3d_with_indices(x, k, s, p, d, ceil_mode);
    });
  };
  max_pool("max_pool1d_with_indices", 1);
  max_pool("max_pool2d_with_indices", 2);
  max_pool("max_pool3d_with_indices", 3);
  auto unpool = [&](const char* name, int dims) {
    f.def(name, [name, dims](const Tensor& x, const Tensor& indices, py::handle kernel, py::handle stride,
                             py::handle padding, py::handle output_size) {
      const SizeArg k = size_arg(kernel, name), s = size_arg(stride, name), p = size_arg(padding, name);
      const Shape out = output_size.is_none() ? Shape() : shape_from_sequence(output_size, name);
      py::gil_scoped_release nogil;
      return dims == 1   ? functional::max_unpool1d(x, indices, k, s, p, out)
             : dims == 2 ? functional::max_unpool2d(x, indices, k, s, p, out)
                         : functional::max_unpool3d(x, indices, k, s, p, out);
    });
  };
  unpool("max_unpool1d", 1);
  unpool("max_unpool2d", 2);
  unpool("max_unpool3d", 3);
  auto avg_pool = [&](const char* name, int dims) {
    f.def(name, [name, dims](const Tensor& x, py::handle kernel, py::handle stride, py::handle padding, bool ceil_mode,
                             bool count_include_pad, std::optional<int64_t> divisor_override) {
      const SizeArg k = size_arg(kernel, name), s = size_arg(stride, name), p = size_arg(padding, name);
      py::gil_scoped_release nogil;
      return dims == 1   ? functional::avg_pool1d(x, k, s, p, ceil_mode, count_include_pad)
             : dims == 2 ? functional::avg_pool2d(x, k, s, p, ceil_mode, count_include_pad, divisor_override)
                         : functional::avg_pool3d(x, k, s, p, ceil_mode, count_include_pad, divisor_override);
    });
  };
  avg_pool("avg_pool1d", 1);
  avg_pool("avg_pool2d", 2);
  avg_pool("avg_pool3d", 3);
  // adaptive pooling; output_size entries already resolved (None: the input's size) in Python
  auto adaptive = [&](const char* name, auto fn) {
    f.def(name, [name, fn](const Tensor& x, py::handle output_size) {
      const SizeArg o = size_arg(output_size, name);
      py::gil_scoped_release nogil;
      return fn(x, o);
    });
  };
  adaptive("adaptive_avg_pool1d",
           [](const Tensor& x, const SizeArg& o) { return functional::adaptive_avg_pool1d(x, o); });
  adaptive("adaptive_avg_pool2d",
           [](const Tensor& x, const SizeArg& o) { return functional::adaptive_avg_pool2d(x, o); });
  adaptive("adaptive_avg_pool3d",
           [](const Tensor& x, const SizeArg& o) { return functional::adaptive_avg_pool3d(x, o); });
  adaptive("adaptive_max_pool1d_with_indices",
           [](const Tensor& x, const SizeArg& o) { return functional::adaptive_max_pool1d_with_indices(x, o); });
  adaptive("adaptive_max_pool2d_with_indices",
           [](const Tensor& x, const SizeArg& o) { return functional::adaptive_max_pool2d_with_indices(x, o); });
  adaptive("adaptive_max_pool3d_with_indices",
           [](const Tensor& x, const SizeArg& o) { return functional::adaptive_max_pool3d_with_indices(x, o); });
  auto fractional = [&](const char* name, int dims) {
    f.def(name, [name, dims](const Tensor& x, py::handle kernel, py::handle output_size, py::handle output_ratio,
                             std::optional<Tensor> samples) {
      const SizeArg k = size_arg(kernel, name), o = output_size.is_none() ? SizeArg() : size_arg(output_size, name);
      std::vector<double> r;
      if (py::isinstance<py::sequence>(output_ratio))
        r = output_ratio.cast<std::vector<double>>();
      else if (!output_ratio.is_none())
        r = {output_ratio.cast<double>()};
      const Tensor u = samples ? *samples : Tensor();
      py::gil_scoped_release nogil;
      return dims == 2 ? functional::fractional_max_pool2d_with_indices(x, k, o, r, u)
                       : functional::fractional_max_pool3d_with_indices(x, k, o, r, u);
    });
  };
  fractional("fractional_max_pool2d_with_indices", 2);
  fractional("fractional_max_pool3d_with_indices", 3);
  auto lp_pool = [&](const char* name, int dims) {
    f.def(name, [name, dims](const Tensor& x, double norm_type, py::handle kernel, py::handle stride, bool ceil_mode) {
      const SizeArg k = size_arg(kernel, name), s = size_arg(stride, name);
      py::gil_scoped_release nogil;
      return dims == 1 ? functional::lp_pool1d(x, norm_type, k, s, ceil_mode)
                       : functional::lp_pool2d(x, norm_type, k, s, ceil_mode);
    });
  };
  lp_pool("lp_pool1d", 1);
  lp_pool("lp_pool2d", 2);

  // --- sampling
  f.def("grid_sample", [](const Tensor& x, const Tensor& grid, const std::string& mode, const std::string& padding,
                          std::optional<bool> align_corners) {
    py::gil_scoped_release nogil;
    return functional::grid_sample(x, grid, mode, padding, align_corners);
  });
  f.def("affine_grid", [](const Tensor& theta, py::handle size, std::optional<bool> align_corners) {
    const Shape s = shape_from_sequence(size, "affine_grid");
    py::gil_scoped_release nogil;
    return functional::affine_grid(theta, s, align_corners);
  });

  // --- padding and upsampling
  f.def("pad", [](const Tensor& x, py::handle pad, const std::string& mode, std::optional<double> value) {
    const Shape p = shape_from_sequence(pad, "pad");
    py::gil_scoped_release nogil;
    return functional::pad(x, p, mode, value);
  });
  f.def("interpolate", [](const Tensor& x, py::handle size, py::handle scale_factor, const std::string& mode,
                          std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor) {
    std::optional<SizeArg> s;
    if (!size.is_none()) s = size_arg(size, "interpolate");
    std::optional<std::vector<double>> sf;
    if (!scale_factor.is_none()) {
      if (py::isinstance<py::sequence>(scale_factor))
        sf = scale_factor.cast<std::vector<double>>();
      else
        sf = std::vector<double>{scale_factor.cast<double>()};
    }
    py::gil_scoped_release nogil;
    return functional::interpolate(x, s, sf, mode, align_corners, recompute_scale_factor);
  });

  // --- nn.init: the bounds are computed in C++ exactly as PyTorch's Python computes them
  py::module_ i = m.def_submodule("_init", "the functions behind ditto.nn.init");
  i.def("calculate_gain", &init::calculate_gain, py::arg("nonlinearity"), py::arg("param") = 0.01);
  i.def("calculate_fan_in_and_fan_out", &init::calculate_fan_in_and_fan_out);
  i.def("uniform_",
        [](Tensor& t, double a, double b, py::handle g) { init::uniform_(t, a, b, generator_from_python(g)); });
  i.def("normal_", [](Tensor& t, double mean, double std, py::handle g) {
    init::normal_(t, mean, std, generator_from_python(g));
  });
  i.def("constant_", [](Tensor& t, double v) { init::constant_(t, v); });
  i.def("xavier_uniform_",
        [](Tensor& t, double gain, py::handle g) { init::xavier_uniform_(t, gain, generator_from_python(g)); });
  i.def("xavier_normal_",
        [](Tensor& t, double gain, py::handle g) { init::xavier_normal_(t, gain, generator_from_python(g)); });
  i.def("kaiming_uniform_", [](Tensor& t, double a, const std::string& mode, const std::string& nl, py::handle g) {
    init::kaiming_uniform_(t, a, fan_mode(mode), nl, generator_from_python(g));
  });
  i.def("kaiming_normal_", [](Tensor& t, double a, const std::string& mode, const std::string& nl, py::handle g) {
    init::kaiming_normal_(t, a, fan_mode(mode), nl, generator_from_python(g));
  });

  // --- optimizers: the C++ update steps, one object per parameter group
  py::module_ o = m.def_submodule("_optim", "the update steps behind ditto.optim");
  py::class_<optim::Optimizer>(o, "Optimizer")
      .def("step", &optim::Optimizer::step, Release())
      .def_property("lr", &optim::Optimizer::lr, &optim::Optimizer::set_lr)
      .def_property(  // SGD's momentum, Adam's beta1 (one group per object)
          "momentum", [](const optim::Optimizer& opt) { return opt.group(0).momentum; },
          [](optim::Optimizer& opt, double m) { opt.group(0).momentum = m; })
      .def("state_dict", [](const optim::Optimizer& opt) { return state_to_python(opt.state_dict()); })
      .def("load_state_dict",
           [](optim::Optimizer& opt, const py::dict& d) { opt.load_state_dict(state_from_python(d)); });
  py::class_<optim::SGD, optim::Optimizer>(o, "SGD").def(
      py::init([](std::vector<Tensor> params, double lr, double momentum, double dampening, double weight_decay,
                  bool nesterov, bool maximize) {
        optim::SGDOptions opts;
        opts.lr = lr;
        opts.momentum = momentum;
        opts.dampening = dampening;
        opts.weight_decay = weight_decay;
        opts.nesterov = nesterov;
        opts.maximize = maximize;
        return new optim::SGD(std::move(params), opts);
      }));
  auto adam_options = [](double lr, std::pair<double, double> betas, double eps, double weight_decay, bool amsgrad,
                         bool maximize) {
    optim::AdamOptions opts;
    opts.lr = lr;
    opts.beta1 = betas.first;
    opts.beta2 = betas.second;
    opts.eps = eps;
    opts.weight_decay = weight_decay;
    opts.amsgrad = amsgrad;
    opts.maximize = maximize;
    return opts;
  };
  py::class_<optim::Adam, optim::Optimizer>(o, "Adam").def(
      py::init([adam_options](std::vector<Tensor> params, double lr, std::pair<double, double> betas, double eps,
                              double weight_decay, bool amsgrad, bool maximize) {
        return new optim::Adam(std::move(params), adam_options(lr, betas, eps, weight_decay, amsgrad, maximize));
      }));
  py::class_<optim::AdamW, optim::Adam>(o, "AdamW")
      .def(py::init([adam_options](std::vector<Tensor> params, double lr, std::pair<double, double> betas, double eps,
                                   double weight_decay, bool amsgrad, bool maximize) {
        return new optim::AdamW(std::move(params), adam_options(lr, betas, eps, weight_decay, amsgrad, maximize));
      }));
}

}  // namespace ditto::python
