// Public elementwise ops: argument checks, broadcasting and PyTorch's type promotion.
#include <cmath>
#include <cstring>
#include <limits>

#include "autograd/graph.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using ops::OpId;

namespace detail {

Tensor cast(const Tensor& t, ScalarType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor out = new_tensor(t.sizes(), dtype, "to");
  ops::call<OpId::copy_>(t.device(), out, t);
  return out;
}

Tensor wrap_scalar(const Scalar& s, ScalarType dtype) {
  Tensor t = new_tensor({}, dtype, "scalar");
  ops::call<OpId::fill_>(Device::CPU, t, s);
  return t;
}

void check_defined(const Tensor& t, const char* op, const char* what) {
  if (!t.defined()) fail(op, "expected a defined tensor for ", what);
}

void check_fits(const Scalar& s, ScalarType dtype, const char* op) {
  if (dtype == kBool || s.is_bool()) return;
  bool fits = true;
  if (s.is_floating()) {
    const double v = s.to_double();
    if (dtype == kFloat32)
      fits = !std::isfinite(v) || std::fabs(v) <= std::numeric_limits<float>::max();
    else if (dtype != kFloat64)  // integers: finite and within range (2^63 itself does not fit int64)
      fits = std::isfinite(v) && v >= (dtype == kInt32 ? -2147483648.0 : -9223372036854775808.0) &&
             v < (dtype == kInt32 ? 2147483648.0 : 9223372036854775808.0);
  } else if (dtype == kInt32) {
    fits = s.to_int() >= std::numeric_limits<int32_t>::min() && s.to_int() <= std::numeric_limits<int32_t>::max();
  }
  if (!fits) fail(op, "value cannot be converted to type ", dtype_name(dtype), " without overflow");
}

}  // namespace detail

ScalarType result_type(const Tensor& a, const Tensor& b) {
  const bool da = a.dim() > 0, db = b.dim() > 0;
  if (da == db) return promote_types(a.dtype(), b.dtype());
  // A 0-dim tensor only raises the dtype when it is of a higher category (PyTorch's rule).
  const ScalarType dim_t = da ? a.dtype() : b.dtype(), zero_t = da ? b.dtype() : a.dtype();
  if (detail::category(zero_t) > detail::category(dim_t)) return promote_types(dim_t, zero_t);
  return dim_t;
}

ScalarType result_type(const Tensor& a, const Scalar& b) {
  const ScalarType s = b.default_dtype();
  if (detail::category(s) > detail::category(a.dtype())) return s;
  return a.dtype();
}

namespace {

// out = op(a, b) computed in dtype `compute`, stored as `out_dtype`.
template <OpId id>
Tensor binary(const Tensor& a, const Tensor& b, ScalarType compute, ScalarType out_dtype, const char* name,
              const char* node_name = nullptr) {
  detail::check_defined(a, name, "self");
  detail::check_defined(b, name, "other");
  const Shape shape = detail::broadcast_shapes(a.sizes(), b.sizes(), name);
  Tensor out = detail::new_tensor(shape, out_dtype, name);
  const Tensor a1 = detail::cast(a, compute), b1 = detail::cast(b, compute);
  // an operand that already has the result's shape is passed as it is (no view to allocate)
  auto broadcast = [&shape](const Tensor& t) { return t.sizes() == shape ? t : views::expand(t, shape); };
  ops::call<id>(a.device(), out, broadcast(a1), broadcast(b1));
  constexpr bool saves_both = id == OpId::maximum || id == OpId::minimum || id == OpId::fmod || id == OpId::remainder;
  constexpr bool differentiable =
      id == OpId::add || id == OpId::sub || id == OpId::mul || id == OpId::div || id == OpId::pow_tensor || saves_both;
  if constexpr (differentiable) {
    if (is_floating(out_dtype) && autograd::any_needs_grad(a, b)) {
      using namespace autograd::formulas;
      // Save only what the wanted gradients need, so in-place ops like x.mul_(2) stay legal.
      if constexpr (id == OpId::mul)
        ops::record<id>({a, b}, {out},
                        BinarySaved{autograd::needs_grad(b) ? a1 : Tensor(), autograd::needs_grad(a) ? b1 : Tensor()});
      else if constexpr (id == OpId::div)
        ops::record<id>({a, b}, {out}, BinarySaved{autograd::needs_grad(b) ? a1 : Tensor(), b1});
      else if constexpr (saves_both)
        ops::record<id>({a, b}, {out}, BinarySaved{a1, b1}, node_name);
      else if constexpr (id == OpId::pow_tensor)
        ops::record<id>({a, b}, {out}, PowTensorSaved{a1, b1, out});
      else
        ops::record<id>({a, b}, {out}, NoSaved{});
    }
  }
  return out;
}

// name: the op in errors, the row's name unless given (pow.Tensor reports as "pow").
template <OpId id>
Tensor arith(const Tensor& a, const Tensor& b, const char* name = nullptr) {
  const ScalarType t = result_type(a, b);
  return binary<id>(a, b, t, t, name ? name : ops::op_name(id));
}

template <OpId id>
Tensor arith(const Tensor& a, const Scalar& b) {
  const ScalarType t = result_type(a, b);
  return binary<id>(a, detail::wrap_scalar(b, t), t, t, ops::op_name(id));
}

template <OpId id>
Tensor comparison(const Tensor& a, const Tensor& b) {
  return binary<id>(a, b, result_type(a, b), kBool, ops::op_name(id));
}

template <OpId id>
Tensor comparison(const Tensor& a, const Scalar& b) {
  const ScalarType t = result_type(a, b);
  return binary<id>(a, detail::wrap_scalar(b, t), t, kBool, ops::op_name(id));
}

void check_alpha(const Tensor& a, const Tensor& b, const Scalar& alpha, const char* name) {
  if (alpha.is_bool() && result_type(a, b) != kBool) fail(name, "Boolean alpha only supported for Boolean results.");
  if (alpha.is_floating() && !is_floating(result_type(a, b)))
    fail(name, "for integral input tensors, argument alpha must not be a floating point number.");
}

}  // namespace

namespace {
// a + alpha * b in one rounding (PyTorch's vectorised add with alpha is an fma too).
Tensor add_scaled(const Tensor& a, const Tensor& b, const Scalar& alpha, const char* name) {
  detail::check_defined(a, name, "self");
  detail::check_defined(b, name, "other");
  check_alpha(a, b, alpha, name);
  const ScalarType t = result_type(a, b);
  detail::check_fits(alpha, t, name);
  const Shape shape = detail::broadcast_shapes(a.sizes(), b.sizes(), name);
  Tensor out = detail::new_tensor(shape, t, name);
  ops::call<OpId::add_scaled>(a.device(), out, views::expand(detail::cast(a, t), shape),
                              views::expand(detail::cast(b, t), shape), alpha);
  if (is_floating(t) && autograd::any_needs_grad(a, b))
    ops::record<OpId::add_scaled>({a, b}, {out}, autograd::formulas::AddScaledSaved{alpha});
  return out;
}
}  // namespace

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  const char* op = ops::op_name(OpId::add);
  if (alpha.is_bool()) {
    check_alpha(a, b, alpha, op);
    return alpha.to_bool() ? arith<OpId::add>(a, b) : arith<OpId::add>(a, zeros_like(b));
  }
  if (alpha.to_double() == 1.0) return arith<OpId::add>(a, b);
  return add_scaled(a, b, alpha, op);
}
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  const char* op = ops::op_name(OpId::sub);
  if (a.dtype() == kBool || b.dtype() == kBool)
    fail(op, "subtraction, the `-` operator, with a bool tensor is not supported. Use logical_xor instead.");
  if (alpha.is_bool()) fail(op, "Boolean alpha only supported for Boolean results.");
  if (alpha.to_double() == 1.0) return arith<OpId::sub>(a, b);
  // -alpha wraps for INT64_MIN, as PyTorch's int64 arithmetic does (no signed overflow)
  const Scalar neg_alpha = alpha.is_floating()
                               ? Scalar(-alpha.to_double())
                               : Scalar(static_cast<int64_t>(0 - static_cast<uint64_t>(alpha.to_int())));
  return add_scaled(a, b, neg_alpha, op);
}
Tensor mul(const Tensor& a, const Tensor& b) { return arith<OpId::mul>(a, b); }
Tensor div(const Tensor& a, const Tensor& b) {
  ScalarType t = result_type(a, b);
  if (!is_floating(t)) t = kFloat32;
  return binary<OpId::div>(a, b, t, t, ops::op_name(OpId::div));
}
Tensor add(const Tensor& a, const Scalar& b) { return arith<OpId::add>(a, b); }
Tensor sub(const Tensor& a, const Scalar& b) {
  if (a.dtype() == kBool || b.is_bool())
    fail(ops::op_name(OpId::sub),
         "subtraction, the `-` operator, with a bool tensor is not supported. Use logical_xor instead.");
  return arith<OpId::sub>(a, b);
}
Tensor mul(const Tensor& a, const Scalar& b) { return arith<OpId::mul>(a, b); }
Tensor div(const Tensor& a, const Scalar& b) {
  ScalarType t = result_type(a, b);
  if (!is_floating(t)) t = kFloat32;
  return binary<OpId::div>(a, detail::wrap_scalar(b, t), t, t, ops::op_name(OpId::div));
}

namespace {
// fmod and remainder: bool refused, integer division by zero raised (PyTorch's
// ZeroDivisionError) before the kernel runs. node_name: PyTorch's for the Scalar form.
template <OpId id>
Tensor modulo(const Tensor& a, const Tensor& b, const char* node_name = nullptr) {
  const char* name = ops::op_name(id);
  detail::check_defined(a, name, "self");
  detail::check_defined(b, name, "other");
  const ScalarType t = result_type(a, b);
  if (t == kBool) fail(name, "not implemented for 'Bool'");
  if (!is_floating(t) && b.eq(Scalar(0)).sum().template item<int64_t>() > 0) fail(name, "ZeroDivisionError");
  return binary<id>(a, b, t, t, name, node_name);
}
}  // namespace

Tensor maximum(const Tensor& a, const Tensor& b) { return arith<OpId::maximum>(a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return arith<OpId::minimum>(a, b); }
Tensor fmod(const Tensor& a, const Tensor& b) { return modulo<OpId::fmod>(a, b); }
Tensor remainder(const Tensor& a, const Tensor& b) { return modulo<OpId::remainder>(a, b); }
Tensor fmod(const Tensor& a, const Scalar& b) {
  detail::check_defined(a, ops::op_name(OpId::fmod));
  return modulo<OpId::fmod>(a, detail::wrap_scalar(b, result_type(a, b)), "FmodBackward0");
}
Tensor remainder(const Tensor& a, const Scalar& b) {
  detail::check_defined(a, ops::op_name(OpId::remainder));
  return modulo<OpId::remainder>(a, detail::wrap_scalar(b, result_type(a, b)), "RemainderBackward0");
}
Tensor clamp_min(const Tensor& x, const Scalar& min) { return clamp(x, min, std::nullopt); }
Tensor clamp_max(const Tensor& x, const Scalar& max) { return clamp(x, std::nullopt, max); }

Tensor pow(const Tensor& x, const Scalar& exponent) {
  const char* op = ops::op_name(OpId::pow_scalar);
  detail::check_defined(x, op);
  if (result_type(x, exponent) == kBool) fail(op, "not implemented for 'Bool'");
  const ScalarType t = result_type(x, exponent);
  if (!is_floating(t) && exponent.to_int() < 0) fail(op, "integers to negative integer powers are not allowed.");
  Tensor out = detail::new_tensor(x.sizes(), t, op);
  const Tensor xc = detail::cast(x, t);
  ops::call<OpId::pow_scalar>(x.device(), out, xc, exponent);
  if (is_floating(t) && autograd::any_needs_grad(x))
    ops::record<OpId::pow_scalar>({x}, {out}, autograd::formulas::PowScalarSaved{xc, exponent});
  return out;
}

Tensor pow(const Tensor& x, const Tensor& exponent) {
  // errors name "pow" (pow_scalar's row), not pow_tensor's "pow.Tensor"
  const char* op = ops::op_name(OpId::pow_scalar);
  detail::check_defined(x, op);
  detail::check_defined(exponent, op, "exponent");
  if (result_type(x, exponent) == kBool) fail(op, "not implemented for 'Bool'");
  return arith<OpId::pow_tensor>(x, exponent, op);
}

Tensor clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  const char* op = ops::op_name(OpId::clamp);
  detail::check_defined(x, op);
  if (!lo && !hi) fail(op, "at least one of 'min' or 'max' must not be None");
  ScalarType t = x.dtype();
  if (lo) t = promote_types(t, result_type(x, *lo));
  if (hi) t = promote_types(t, result_type(x, *hi));
  if (t == kBool) fail(op, "not implemented for 'Bool'");
  Tensor out = detail::new_tensor(x.sizes(), t, op);
  const Tensor xc = detail::cast(x, t);
  ops::call<OpId::clamp>(x.device(), out, xc, lo, hi);
  if (is_floating(t) && autograd::any_needs_grad(x))
    ops::record<OpId::clamp>({x}, {out}, autograd::formulas::ClampSaved{xc, lo, hi});
  return out;
}

Tensor eq(const Tensor& a, const Tensor& b) { return comparison<OpId::eq>(a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return comparison<OpId::ne>(a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return comparison<OpId::lt>(a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return comparison<OpId::le>(a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return comparison<OpId::gt>(a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return comparison<OpId::ge>(a, b); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const char* op = ops::op_name(OpId::where);
  detail::check_defined(cond, op, "condition");
  if (cond.dtype() != kBool) fail(op, "expected condition to be a bool tensor, but got ", dtype_name(cond.dtype()));
  const ScalarType t = result_type(a, b);
  const Shape shape = detail::broadcast_shapes(detail::broadcast_shapes(cond.sizes(), a.sizes(), op), b.sizes(), op);
  Tensor out = detail::new_tensor(shape, t, op);
  const Tensor c = views::expand(cond, shape);
  ops::call<OpId::where>(a.device(), out, c, views::expand(detail::cast(a, t), shape),
                         views::expand(detail::cast(b, t), shape));
  if (is_floating(t) && autograd::any_needs_grad(a, b))
    ops::record<OpId::where>({a, b}, {out}, autograd::formulas::WhereSaved{c});
  return out;
}
Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b) {
  return where(cond, a, detail::wrap_scalar(b, result_type(a, b)));
}
Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b) {
  return where(cond, detail::wrap_scalar(a, result_type(b, a)), b);
}

namespace {
Tensor triangle(const Tensor& x, int64_t diagonal, bool lower, const char* op) {
  detail::check_defined(x, op);
  if (x.dim() < 2) fail(op, op, ": input tensor must have at least 2 dimensions");
  const int64_t R = x.size(-2), C = x.size(-1);
  // j - i over (R, C), broadcast over the leading dims; a 0-dim zero of x's dtype keeps the dtype
  const Tensor d = arange(C, kInt64).view({1, C}) - arange(R, kInt64).view({R, 1});
  const Tensor keep = lower ? d.le(Scalar(diagonal)) : d.ge(Scalar(diagonal));
  return where(keep, x, zeros({}, x.dtype()));
}
}  // namespace

Tensor tril(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, true, "tril"); }
Tensor triu(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, false, "triu"); }

Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value) {
  const char* op = ops::op_name(OpId::masked_fill);
  detail::check_defined(x, op);
  detail::check_defined(mask, op, "mask");
  if (mask.dtype() != kBool)
    fail(op, "only supports boolean masks, but got mask with dtype ", dtype_name(mask.dtype()));
  // Out of place, input and mask broadcast together (PyTorch); the value is converted to x's
  // dtype (a float value truncates into an integer tensor, as PyTorch does).
  detail::check_fits(value, x.dtype(), op);
  const Shape shape = detail::broadcast_shapes(x.sizes(), mask.sizes(), op);
  Tensor out = detail::new_tensor(shape, x.dtype(), op);
  ops::call<OpId::copy_>(x.device(), out, views::expand(x, shape));
  const Tensor m = views::expand(mask, shape);
  ops::call<OpId::masked_fill>(x.device(), out, m, value);
  if (autograd::any_needs_grad(x)) ops::record<OpId::masked_fill>({x}, {out}, autograd::formulas::MaskSaved{m});
  return out;
}

bool equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return false;
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  return std::memcmp(ac.raw_data(), bc.raw_data(), static_cast<std::size_t>(a.numel()) * a.element_size()) == 0;
}

// --- operators
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Scalar& a, const Tensor& b) {
  if (a.is_bool() || b.dtype() == kBool)
    fail(ops::op_name(OpId::sub),
         "subtraction, the `-` operator, with a bool tensor is not supported. Use logical_xor instead.");
  return add(neg(b), a);
}
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Scalar& a, const Tensor& b) {
  ScalarType t = result_type(b, a);
  if (!is_floating(t)) t = kFloat32;
  return div(detail::wrap_scalar(a, t), b);
}
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return comparison<OpId::eq>(a, b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return comparison<OpId::ne>(a, b); }
Tensor operator<(const Tensor& a, const Scalar& b) { return comparison<OpId::lt>(a, b); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return comparison<OpId::le>(a, b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return comparison<OpId::gt>(a, b); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return comparison<OpId::ge>(a, b); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }

Tensor Tensor::eq(const Scalar& o) const { return *this == o; }
Tensor Tensor::ne(const Scalar& o) const { return *this != o; }
Tensor Tensor::lt(const Scalar& o) const { return *this < o; }
Tensor Tensor::le(const Scalar& o) const { return *this <= o; }
Tensor Tensor::gt(const Scalar& o) const { return *this > o; }
Tensor Tensor::ge(const Scalar& o) const { return *this >= o; }

}  // namespace ditto
