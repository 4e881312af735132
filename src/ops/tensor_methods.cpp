// Tensor methods: views through the op table, copies, and forwarding to the free functions.
#include <ostream>

#include "autograd/graph.h"
#include "core/determinism_state.h"
#include "core/dtype_dispatch.h"
#include "core/print.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using ops::OpId;

namespace {
// Records a view's node when self needs grad, with the state make_state() returns (built only
// then: views are called often, mostly without grad).
template <OpId id, class MakeState>
Tensor track_view(const Tensor& self, Tensor out, MakeState make_state, const char* node_name = nullptr) {
  if (autograd::any_needs_grad(self)) {
    ops::record<id>({self}, {out}, make_state(), node_name);
    autograd::mark_view(self, out);
  }
  return out;
}
}  // namespace

Tensor Tensor::view(const Shape& shape) const {
  return track_view<OpId::view>(*this, ops::call<OpId::view>(device(), *this, shape),
                                [&] { return autograd::formulas::InputShape{sizes()}; });
}
Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  Tensor out = ops::call<OpId::transpose>(device(), *this, d0, d1);
  return track_view<OpId::transpose>(*this, out, [&] {
    const char* op = ops::op_name(OpId::transpose);
    return autograd::formulas::TransposeSaved{detail::wrap_dim(d0, dim(), op), detail::wrap_dim(d1, dim(), op)};
  });
}
Tensor Tensor::t() const {
  DITTO_CHECK(dim() <= 2, "t", "expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  return dim() < 2 ? *this : transpose(0, 1);
}
Tensor Tensor::permute(const Shape& dims) const {
  Tensor out = ops::call<OpId::permute>(device(), *this, dims);
  return track_view<OpId::permute>(*this, out, [&] {
    const char* op = ops::op_name(OpId::permute);
    autograd::formulas::PermuteSaved s;
    for (int64_t d : dims) s.dims.push_back(detail::wrap_dim(d, dim(), op));
    return s;
  });
}
Tensor Tensor::select(int64_t dim, int64_t index) const {
  Tensor out = ops::call<OpId::select>(device(), *this, dim, index);
  return track_view<OpId::select>(*this, out, [&] {
    const int64_t d = detail::wrap_dim(dim, this->dim(), ops::op_name(OpId::select));
    return autograd::formulas::SelectSaved{sizes(), d, index < 0 ? index + sizes()[d] : index};
  });
}
Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) const {
  const int64_t s = start.value_or(0);
  const int64_t e = end.value_or(std::numeric_limits<int64_t>::max());
  Tensor out = ops::call<OpId::slice>(device(), *this, dim, s, e, step);
  return track_view<OpId::slice>(*this, out, [&] {
    return autograd::formulas::SliceSaved{sizes(), detail::wrap_dim(dim, this->dim(), ops::op_name(OpId::slice)), s, e,
                                          step};
  });
}
Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  detail::check_defined(*this, "narrow");
  DITTO_CHECK(this->dim() > 0, "narrow", "narrow() cannot be applied to a 0-dim tensor.");
  const int64_t d = detail::wrap_dim(dim, this->dim(), "narrow");
  const int64_t size = sizes()[d];
  DITTO_CHECK(length >= 0, "narrow", "narrow(): length must be non-negative.");
  if (start < -size || start > size)
    detail::fail_index("narrow", "start out of range (expected to be in range of [", -size, ", ", size, "], but got ",
                       start, ")");
  if (start < 0) start += size;
  DITTO_CHECK(length <= size - start, "narrow", "start (", start, ") + length (", length, ") exceeds dimension size (",
              size, ").");  // compared without forming start + length, which could overflow
  return slice(d, start, start + length);
}
Tensor Tensor::expand(const Shape& shape) const {
  return track_view<OpId::expand>(*this, ops::call<OpId::expand>(device(), *this, shape),
                                  [] { return autograd::formulas::NoSaved{}; });
}
Tensor Tensor::expand_as(const Tensor& other) const { return expand(other.sizes()); }
Tensor Tensor::squeeze() const {
  return track_view<OpId::squeeze>(*this, ops::call<OpId::squeeze>(device(), *this, std::nullopt),
                                   [&] { return autograd::formulas::InputShape{sizes()}; });
}
Tensor Tensor::squeeze(int64_t dim) const {
  // PyTorch's node of squeeze.dim (squeeze() is SqueezeBackward0)
  return track_view<OpId::squeeze>(
      *this, ops::call<OpId::squeeze>(device(), *this, dim), [&] { return autograd::formulas::InputShape{sizes()}; },
      "SqueezeBackward1");
}
Tensor Tensor::unsqueeze(int64_t dim) const {
  return track_view<OpId::unsqueeze>(*this, ops::call<OpId::unsqueeze>(device(), *this, dim),
                                     [&] { return autograd::formulas::InputShape{sizes()}; });
}

Tensor Tensor::reshape(const Shape& shape) const {
  try {
    return view(shape);
  } catch (const Error&) {
    // not viewable: copy, then view (a bad shape still fails, with reshape's name)
  }
  Tensor c = contiguous();
  try {
    return c.view(shape);
  } catch (const Error& e) {
    std::string m = e.what();
    const std::string tag = "[view]";
    if (m.rfind(tag, 0) == 0) m = "[reshape]" + m.substr(tag.size());
    throw Error(m);
  }
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (dim() == 0) {  // PyTorch: a 0-dim tensor flattens to (1,), its dims wrapped as one dim's
    detail::wrap_dim(start_dim, 1, "flatten");
    detail::wrap_dim(end_dim, 1, "flatten");
    return reshape({1});
  }
  const int64_t s = detail::wrap_dim(start_dim, dim(), "flatten"), e = detail::wrap_dim(end_dim, dim(), "flatten");
  DITTO_CHECK(s <= e, "flatten", "start_dim cannot come after end_dim");
  Shape shape(sizes().begin(), sizes().begin() + s);
  int64_t n = 1;
  for (int64_t d = s; d <= e; ++d) n *= sizes()[d];
  shape.push_back(n);
  shape.insert(shape.end(), sizes().begin() + e + 1, sizes().end());
  return reshape(shape);
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::clone() const {
  Tensor out = detail::new_tensor(sizes(), dtype(), "clone");
  ops::call<OpId::copy_>(device(), out, *this);
  if (autograd::any_needs_grad(*this))
    ops::record<OpId::copy_>({*this}, {out}, autograd::formulas::NoSaved{}, "CloneBackward0");
  return out;
}

Tensor Tensor::to(ScalarType t) const {
  if (t == dtype()) return *this;
  Tensor out = detail::cast(*this, t);
  if (is_floating(t) && autograd::any_needs_grad(*this))
    ops::record<OpId::copy_>({*this}, {out}, autograd::formulas::NoSaved{}, "ToCopyBackward0");
  return out;
}

Tensor& Tensor::copy_(const Tensor& src) {
  const char* op = ops::op_name(OpId::copy_);
  detail::check_defined(*this, op, "self");
  detail::check_defined(src, op, "src");
  const Shape bs = detail::broadcast_shapes(src.sizes(), sizes(), op);
  if (bs != sizes())
    fail(op, "source of shape ", detail::shape_str(src.sizes()), " cannot be broadcast to ",
         detail::shape_str(sizes()));
  autograd::check_inplace(*this, op);
  // An overlapping source (src shares our storage) is copied out first.
  Tensor s;
  {
    NoGradGuard no_grad;
    s = src.storage() == storage() ? src.clone() : src;
    ops::call<OpId::copy_>(device(), *this, views::expand(s, sizes()));
  }
  storage()->bump_version();
  if (autograd::any_needs_grad(src) && is_floating(dtype())) {
    Tensor alias = detail::make_view(*this, sizes(), strides(), storage_offset());
    ops::record<OpId::copy_>({src}, {alias}, autograd::formulas::NoSaved{}, "CopyBackwards");
    autograd::rebase_history(*this, alias, op);
  }
  return *this;
}

Tensor& Tensor::fill_(const Scalar& value) {
  const char* op = ops::op_name(OpId::fill_);
  detail::check_defined(*this, op);
  detail::check_fits(value, dtype(), op);
  autograd::check_inplace(*this, op);
  ops::call<OpId::fill_>(device(), *this, value);
  storage()->bump_version();
  if (autograd::AutogradMeta* m = autograd::meta(*this); m && m->grad_fn) m->grad_fn.reset(), m->requires_grad = false;
  return *this;
}
Tensor& Tensor::zero_() { return fill_(0); }

Tensor& Tensor::resize_(const Shape& shape) {
  detail::check_defined(*this, "resize_");
  if (requires_grad()) fail("resize_", "cannot resize variables that require grad");
  const int64_t n = detail::checked_numel(shape, "resize_");
  std::size_t need = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(n + impl()->offset), element_size(), &need))
    fail("resize_", "shape ", detail::shape_str(shape), " overflows");
  const std::size_t old = storage()->nbytes();
  storage()->grow(need);
  impl()->sizes = shape;
  impl()->strides = detail::contiguous_strides(shape);
  if (need > old && detail::deterministic_fill()) {
    // only the grown part of the storage is filled (PyTorch's fill_resize_deterministic_)
    const int64_t es = static_cast<int64_t>(element_size());
    const int64_t first = static_cast<int64_t>(old) / es, last = static_cast<int64_t>(need) / es;
    Tensor tail = detail::make_view(*this, {last - first}, {1}, first);
    core::dispatch_dtype(dtype(), [&]<class T>() {
      T v;
      if constexpr (std::is_floating_point_v<T>)
        v = std::numeric_limits<T>::quiet_NaN();
      else
        v = std::numeric_limits<T>::max();
      T* p = static_cast<T*>(tail.raw_data());
      for (int64_t i = 0; i < last - first; ++i) p[i] = v;
    });
  }
  return *this;
}

// --- forwarding to the free functions
Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const { return ditto::add(*this, o, alpha); }
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const { return ditto::sub(*this, o, alpha); }
Tensor Tensor::mul(const Tensor& o) const { return ditto::mul(*this, o); }
Tensor Tensor::div(const Tensor& o) const { return ditto::div(*this, o); }

namespace {
// In place: compute out of place, check the result can be cast to self's dtype (PyTorch's
// canCast: not floating to integral, not to bool from anything else), copy back.
Tensor& assign(Tensor& self, const Tensor& result, const char* op) {
  autograd::check_inplace(self, op);  // before anything is written
  if (detail::category(result.dtype()) > detail::category(self.dtype()))
    fail(op, "result type ", dtype_name(result.dtype()), " can't be cast to the desired output type ",
         dtype_name(self.dtype()));
  if (result.sizes() != self.sizes())
    fail(op, "output with shape ", detail::shape_str(self.sizes()), " doesn't match the broadcast shape ",
         detail::shape_str(result.sizes()));
  ops::call<OpId::copy_>(self.device(), self, result);
  self.storage()->bump_version();
  autograd::rebase_history(self, result, op);
  return self;
}
}  // namespace

// Note [In place into self]: self op= o is written straight into self, with no copy back, when
// nothing records it (no input needs grad, or grad mode is off), self is floating and
// contiguous, o has self's dtype (so no promotion) and either self's shape or no dims (a wrapped
// Scalar, broadcast), and o is self itself or outside self's storage. Elementwise kernels read the
// inputs at an index before writing the output there, so each element gets the kernel's
// arithmetic on the old values: the bits of the out-of-place op and the copy back. Otherwise
// (a partly overlapping view, promotion, broadcasting o, history to record) assign() runs.
namespace {
bool fits_into_self(const Tensor& self, const Tensor& o) {
  if (!o.defined() || !is_floating(self.dtype()) || o.dtype() != self.dtype() || o.device() != self.device() ||
      !self.is_contiguous() || (o.dim() != 0 && o.sizes() != self.sizes()) || autograd::any_needs_grad(self, o))
    return false;
  return o.storage() != self.storage() || (o.raw_data() == self.raw_data() && o.strides() == self.strides());
}

template <OpId id>
bool binary_into_self(Tensor& self, const Tensor& o) {
  if (!fits_into_self(self, o)) return false;
  ops::call<id>(self.device(), self, self, o.dim() == 0 && self.dim() != 0 ? views::expand(o, self.sizes()) : o);
  self.storage()->bump_version();
  return true;
}

// self + alpha * o in one rounding, as the out-of-place add with alpha (an optimiser's step).
bool add_scaled_into_self(Tensor& self, const Tensor& o, const Scalar& alpha) {
  if (alpha.is_bool() || o.dim() == 0 || !fits_into_self(self, o)) return false;
  detail::check_fits(alpha, self.dtype(), "add_");
  ops::call<OpId::add_scaled>(self.device(), self, self, o, alpha);
  self.storage()->bump_version();
  return true;
}

// A Scalar operand as the out-of-place op wraps it, when that keeps self's floating dtype.
Tensor wrapped_for(const Tensor& self, const Scalar& s) {
  if (!self.defined() || !is_floating(self.dtype()) || s.is_bool()) return Tensor();
  return detail::wrap_scalar(s, self.dtype());
}

// self op= o: into self where Note [In place into self] allows, else out_of_place() copied back.
template <OpId id, class OutOfPlace>
Tensor& in_place(Tensor& self, const Tensor& o, OutOfPlace out_of_place) {
  const char* op = id == OpId::add ? "add_" : id == OpId::sub ? "sub_" : id == OpId::mul ? "mul_" : "div_";
  autograd::check_inplace(self, op);
  if (binary_into_self<id>(self, o)) return self;
  return assign(self, out_of_place(), op);
}
}  // namespace

Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) {
  if (alpha.is_bool() || alpha.to_double() == 1.0)
    return in_place<OpId::add>(*this, alpha.is_bool() ? Tensor() : o, [&] { return ditto::add(*this, o, alpha); });
  autograd::check_inplace(*this, "add_");
  if (add_scaled_into_self(*this, o, alpha)) return *this;
  return assign(*this, ditto::add(*this, o, alpha), "add_");
}
Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) {
  const bool one = !alpha.is_bool() && alpha.to_double() == 1.0;
  return in_place<OpId::sub>(*this, one ? o : Tensor(), [&] { return ditto::sub(*this, o, alpha); });
}
// mul and div save self for other's gradient: when other needs one, they get a copy of self's
// value, which the write below does not change (PyTorch saves the original self too).
Tensor& Tensor::mul_(const Tensor& o) {
  return in_place<OpId::mul>(*this, o, [&] { return ditto::mul(autograd::needs_grad(o) ? clone() : *this, o); });
}
Tensor& Tensor::div_(const Tensor& o) {
  return in_place<OpId::div>(*this, o, [&] { return ditto::div(autograd::needs_grad(o) ? clone() : *this, o); });
}
Tensor& Tensor::add_(const Scalar& o) {
  return in_place<OpId::add>(*this, wrapped_for(*this, o), [&] { return ditto::add(*this, o); });
}
Tensor& Tensor::sub_(const Scalar& o) {
  return in_place<OpId::sub>(*this, wrapped_for(*this, o), [&] { return ditto::sub(*this, o); });
}
Tensor& Tensor::mul_(const Scalar& o) {
  return in_place<OpId::mul>(*this, wrapped_for(*this, o), [&] { return ditto::mul(*this, o); });
}
Tensor& Tensor::div_(const Scalar& o) {
  return in_place<OpId::div>(*this, wrapped_for(*this, o), [&] { return ditto::div(*this, o); });
}
Tensor Tensor::neg() const { return ditto::neg(*this); }
Tensor Tensor::pow(const Scalar& e) const { return ditto::pow(*this, e); }
Tensor Tensor::pow(const Tensor& e) const { return ditto::pow(*this, e); }
Tensor Tensor::maximum(const Tensor& o) const { return ditto::maximum(*this, o); }
Tensor Tensor::minimum(const Tensor& o) const { return ditto::minimum(*this, o); }
Tensor Tensor::fmod(const Tensor& o) const { return ditto::fmod(*this, o); }
Tensor Tensor::remainder(const Tensor& o) const { return ditto::remainder(*this, o); }
Tensor Tensor::fmod(const Scalar& o) const { return ditto::fmod(*this, o); }
Tensor Tensor::remainder(const Scalar& o) const { return ditto::remainder(*this, o); }
Tensor Tensor::clamp_min(const Scalar& min) const { return ditto::clamp_min(*this, min); }
Tensor Tensor::clamp_max(const Scalar& max) const { return ditto::clamp_max(*this, max); }
Tensor Tensor::clamp(std::optional<Scalar> lo, std::optional<Scalar> hi) const { return ditto::clamp(*this, lo, hi); }
Tensor Tensor::eq(const Tensor& o) const { return ditto::eq(*this, o); }
Tensor Tensor::ne(const Tensor& o) const { return ditto::ne(*this, o); }
Tensor Tensor::lt(const Tensor& o) const { return ditto::lt(*this, o); }
Tensor Tensor::le(const Tensor& o) const { return ditto::le(*this, o); }
Tensor Tensor::gt(const Tensor& o) const { return ditto::gt(*this, o); }
Tensor Tensor::ge(const Tensor& o) const { return ditto::ge(*this, o); }
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& v) const { return ditto::masked_fill(*this, mask, v); }
Tensor Tensor::sum(std::optional<ScalarType> dt) const { return ditto::sum(*this, dt); }
Tensor Tensor::sum(const DimList& dims, bool keepdim, std::optional<ScalarType> dt) const {
  return ditto::sum(*this, dims, keepdim, dt);
}
Tensor Tensor::mean() const { return ditto::mean(*this); }
Tensor Tensor::mean(const DimList& dims, bool keepdim) const { return ditto::mean(*this, dims, keepdim); }
Tensor Tensor::amax(const DimList& dims, bool keepdim) const { return ditto::amax(*this, dims, keepdim); }
Tensor Tensor::amin(const DimList& dims, bool keepdim) const { return ditto::amin(*this, dims, keepdim); }
Tensor Tensor::prod() const { return ditto::prod(*this); }
Tensor Tensor::prod(int64_t dim, bool keepdim) const { return ditto::prod(*this, dim, keepdim); }
Tensor Tensor::max() const { return ditto::max(*this); }
Tensor Tensor::min() const { return ditto::min(*this); }
std::pair<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const { return ditto::max(*this, dim, keepdim); }
std::pair<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const { return ditto::min(*this, dim, keepdim); }
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const { return ditto::argmax(*this, dim, keepdim); }
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const { return ditto::argmin(*this, dim, keepdim); }
Tensor Tensor::var(const DimList& dims, bool unbiased, bool keepdim) const {
  return ditto::var(*this, dims, unbiased, keepdim);
}
Tensor Tensor::std(const DimList& dims, bool unbiased, bool keepdim) const {
  return ditto::std(*this, dims, unbiased, keepdim);
}
Tensor Tensor::softmax(int64_t dim) const { return ditto::softmax(*this, dim); }
Tensor Tensor::log_softmax(int64_t dim) const { return ditto::log_softmax(*this, dim); }
Tensor Tensor::logsumexp(const DimList& dims, bool keepdim) const { return ditto::logsumexp(*this, dims, keepdim); }
Tensor Tensor::norm(const Scalar& p, const DimList& dims, bool keepdim) const {
  return ditto::norm(*this, p, dims, keepdim);
}
Tensor Tensor::matmul(const Tensor& o) const { return ditto::matmul(*this, o); }
Tensor Tensor::mm(const Tensor& o) const { return ditto::mm(*this, o); }
Tensor Tensor::bmm(const Tensor& o) const { return ditto::bmm(*this, o); }
Tensor Tensor::outer(const Tensor& o) const { return ditto::outer(*this, o); }
Tensor Tensor::baddbmm(const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) const {
  return ditto::baddbmm(*this, b1, b2, beta, alpha);
}
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const { return ditto::index_select(*this, dim, index); }
Tensor Tensor::gather(int64_t dim, const Tensor& index) const { return ditto::gather(*this, dim, index); }

Tensor reshape(const Tensor& x, const Shape& shape) { return x.reshape(shape); }
Tensor flatten(const Tensor& x, int64_t s, int64_t e) { return x.flatten(s, e); }
Tensor transpose(const Tensor& x, int64_t d0, int64_t d1) { return x.transpose(d0, d1); }
Tensor permute(const Tensor& x, const Shape& dims) { return x.permute(dims); }
Tensor squeeze(const Tensor& x) { return x.squeeze(); }
Tensor squeeze(const Tensor& x, int64_t dim) { return x.squeeze(dim); }
Tensor unsqueeze(const Tensor& x, int64_t dim) { return x.unsqueeze(dim); }
Tensor clone(const Tensor& x) { return x.clone(); }

// --- printing
std::string Tensor::to_string() const {
  if (!defined()) return "[ Tensor (undefined) ]";
  detail::PrintData d;
  d.dtype = dtype();
  d.sizes = sizes();
  d.grad_fn = grad_fn_name();
  d.requires_grad = d.grad_fn.empty() && requires_grad();
  const Tensor c = contiguous();
  core::dispatch_dtype(dtype(), [&]<class T>() {
    const T* p = static_cast<const T*>(c.raw_data());
    for (int64_t i = 0, n = c.numel(); i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>)
        d.floats.push_back(static_cast<double>(p[i]));
      else
        d.ints.push_back(static_cast<int64_t>(p[i]));
    }
  });
  return detail::format_tensor(d);
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.to_string(); }

}  // namespace ditto
