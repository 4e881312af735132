// Public pointwise ops with several operands (lerp, addcmul, addcdiv) and GELU.
#include <string_view>

#include "autograd/graph.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using ops::OpId;

namespace {

bool parse_gelu_approx(std::string_view approximate, const char* op) {
  if (approximate == "none") return false;
  if (approximate == "tanh") return true;
  fail(op, "approximate argument must be either none or tanh.");
}

// self + value * op(t1, t2), broadcast, in the promoted dtype.
template <OpId id>
Tensor addc(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  const char* op = ops::op_name(id);
  detail::check_defined(self, op, "self");
  detail::check_defined(t1, op, "tensor1");
  detail::check_defined(t2, op, "tensor2");
  const ScalarType t = promote_types(result_type(self, t1), result_type(t1, t2));
  if (t == kBool) fail(op, "not implemented for 'Bool'");
  if (id == OpId::addcdiv && !is_floating(t))
    fail(op, "integer division with addcdiv is not supported; use a floating point tensor1 or tensor2");
  if (value.is_floating() && !is_floating(t)) fail(op, "value cannot be a floating point number for integral tensors");
  const Shape shape = detail::broadcast_shapes(detail::broadcast_shapes(self.sizes(), t1.sizes(), op), t2.sizes(), op);
  Tensor out = detail::new_tensor(shape, t, op);
  const Tensor s = detail::cast(self, t), a = detail::cast(t1, t), b = detail::cast(t2, t);
  ops::call<id>(self.device(), out, views::expand(s, shape), views::expand(a, shape), views::expand(b, shape), value);
  if (is_floating(t) && autograd::any_needs_grad(self, t1, t2)) {
    ops::record<id>({self, t1, t2}, {out}, autograd::formulas::AddcSaved{a, b, value});
  }
  return out;
}

}  // namespace

Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight) {
  detail::check_defined(start, "lerp", "self");
  detail::check_defined(end, "lerp", "end");
  if (start.dtype() != end.dtype())
    fail("lerp", "expected dtype ", dtype_name(start.dtype()), " for `end` but got dtype ", dtype_name(end.dtype()));
  if (!is_floating(start.dtype())) fail("lerp", "not implemented for '", dtype_name(start.dtype()), "'");
  const Shape shape = detail::broadcast_shapes(start.sizes(), end.sizes(), "lerp");
  Tensor out = detail::new_tensor(shape, start.dtype(), "lerp");
  ops::call<OpId::lerp>(start.device(), out, views::expand(start, shape), views::expand(end, shape), weight);
  if (autograd::any_needs_grad(start, end)) {
    ops::record<OpId::lerp>({start, end}, {out}, autograd::formulas::LerpSaved{weight});
  }
  return out;
}

Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc<OpId::addcmul>(self, t1, t2, value);
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc<OpId::addcdiv>(self, t1, t2, value);
}

Tensor gelu(const Tensor& x, std::string_view approximate) {
  const char* op = ops::op_name(OpId::gelu);
  detail::check_defined(x, op);
  const bool tanh_approx = parse_gelu_approx(approximate, op);
  if (!is_floating(x.dtype())) fail(op, "not implemented for '", dtype_name(x.dtype()), "'");
  Tensor out = detail::new_tensor(x.sizes(), x.dtype(), op);
  ops::call<OpId::gelu>(x.device(), out, x, tanh_approx);
  if (autograd::any_needs_grad(x)) {
    ops::record<OpId::gelu>({x}, {out}, autograd::formulas::GeluSaved{x, tanh_approx});
  }
  return out;
}

namespace {
// An activation's input: defined and floating (PyTorch's kernels are dispatched over floating
// types only; hardtanh, a clamp, also takes integers). Returns the output to fill.
Tensor activation_output(const Tensor& x, const char* op, bool integers = false) {
  detail::check_defined(x, op);
  if (!is_floating(x.dtype()) && !(integers && x.dtype() != kBool))
    fail(op, "\"", op, "_cpu\" not implemented for '", ops::aten_type_name(x.dtype()), "'");
  return detail::new_tensor(x.sizes(), x.dtype(), op);
}
template <OpId id>
Tensor plain_activation(const Tensor& x) {
  const char* op = ops::op_name(id);
  Tensor out = activation_output(x, op);
  ops::call<id>(x.device(), out, x);
  if (autograd::any_needs_grad(x)) ops::record<id>({x}, {out}, autograd::formulas::SavedInput{x});
  return out;
}
}  // namespace

Tensor silu(const Tensor& x) { return plain_activation<OpId::silu>(x); }
Tensor hardswish(const Tensor& x) { return plain_activation<OpId::hardswish>(x); }
Tensor mish(const Tensor& x) { return plain_activation<OpId::mish>(x); }

Tensor leaky_relu(const Tensor& x, const Scalar& negative_slope) {
  const char* op = ops::op_name(OpId::leaky_relu);
  Tensor out = activation_output(x, op);
  detail::check_fits(negative_slope, x.dtype(), op);
  ops::call<OpId::leaky_relu>(x.device(), out, x, negative_slope);
  if (autograd::any_needs_grad(x))
    ops::record<OpId::leaky_relu>({x}, {out}, autograd::formulas::LeakyReluSaved{x, negative_slope});
  return out;
}
Tensor softplus(const Tensor& x, const Scalar& beta, const Scalar& threshold) {
  const char* op = ops::op_name(OpId::softplus);
  Tensor out = activation_output(x, op);
  for (const Scalar& v : {beta, threshold}) detail::check_fits(v, x.dtype(), op);
  ops::call<OpId::softplus>(x.device(), out, x, beta, threshold);
  if (autograd::any_needs_grad(x))
    ops::record<OpId::softplus>({x}, {out}, autograd::formulas::SoftplusSaved{x, beta, threshold});
  return out;
}
Tensor hardtanh(const Tensor& x, const Scalar& min_val, const Scalar& max_val) {
  const char* op = ops::op_name(OpId::hardtanh);
  Tensor out = activation_output(x, op, /*integers=*/true);
  for (const Scalar& v : {min_val, max_val}) detail::check_fits(v, x.dtype(), op);
  ops::call<OpId::hardtanh>(x.device(), out, x, min_val, max_val);
  if (autograd::any_needs_grad(x))
    ops::record<OpId::hardtanh>({x}, {out}, autograd::formulas::HardtanhSaved{x, min_val, max_val});
  return out;
}
Tensor elu(const Tensor& x, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  const char* op = ops::op_name(OpId::elu);
  Tensor out = activation_output(x, op);
  for (const Scalar& v : {alpha, scale, input_scale}) detail::check_fits(v, x.dtype(), op);
  ops::call<OpId::elu>(x.device(), out, x, alpha, scale, input_scale);
  if (autograd::any_needs_grad(x))
    ops::record<OpId::elu>({x}, {out}, autograd::formulas::EluSaved{x, alpha, scale, input_scale});
  return out;
}

namespace {
// The checks of an elementwise vjp taking (grad_output, self): both defined, of one dtype that
// `allowed` accepts (described by `kind`), and of one shape. Returns the output to fill.
Tensor vjp_output(const Tensor& grad, const Tensor& self, bool allowed, const char* kind, const char* op) {
  detail::check_defined(grad, op, "grad_output");
  detail::check_defined(self, op, "self");
  if (!allowed || grad.dtype() != self.dtype())
    fail(op, "expected grad_output and self of one ", kind, " dtype, got ", dtype_name(grad.dtype()), " and ",
         dtype_name(self.dtype()));
  if (grad.sizes() != self.sizes())
    fail(op, "grad_output of shape ", detail::shape_str(grad.sizes()), " does not match self's shape ",
         detail::shape_str(self.sizes()));
  return detail::new_tensor(self.sizes(), self.dtype(), op);
}
}  // namespace

Tensor gelu_backward(const Tensor& grad, const Tensor& x, std::string_view approximate) {
  const char* op = ops::op_name(OpId::gelu_backward);
  const bool tanh_approx = parse_gelu_approx(approximate, op);
  Tensor out = vjp_output(grad, x, x.defined() && is_floating(x.dtype()), "floating", op);
  ops::call<OpId::gelu_backward>(x.device(), out, grad, x, tanh_approx);
  return out;
}

Tensor threshold_backward(const Tensor& grad, const Tensor& self, const Scalar& threshold) {
  Tensor out = vjp_output(grad, self, self.defined() && self.dtype() != kBool, "numeric",
                          ops::op_name(OpId::threshold_backward));
  ops::call<OpId::threshold_backward>(self.device(), out, grad, self, threshold);
  return out;
}

}  // namespace ditto
