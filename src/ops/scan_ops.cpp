// Scans: cumsum, cumprod, logcumsumexp, cummax and cummin, forward and backward. The kernels see
// the input as a contiguous (outer, n, inner) tensor whose dim 1 is the scanned one, and follow
// Note [Scan order]
// (cpu/scan.cpp): PyTorch's CPU order, so forward and cumsum's backward are PyTorch's bits
// (logcumsumexp's within its exp and log1p).
#include <limits>

#include "autograd/graph.h"
#include "ops/common.h"
#include "ops/formulas.h"

namespace ditto {
using detail::fail;
using ops::lines;
using ops::OpId;

namespace {
// g's scan along dim from its end: PyTorch's flip, scan, flip in one pass (the gradients of
// cumsum and logcumsumexp).
template <OpId id>
Tensor reverse_scan(const Tensor& g, int64_t dim) {
  const Tensor gc = g.contiguous();
  Tensor out = detail::new_tensor(g.sizes(), g.dtype(), ops::op_name(id));
  if (g.numel() != 0) ops::call<id>(g.device(), lines(out, dim), lines(gc, dim), true);
  return out;
}

template <OpId id>
Tensor scan(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  const char* name = ops::op_name(id);
  detail::check_defined(x, name);
  const int64_t d = detail::wrap_dim(dim, std::max<int64_t>(x.dim(), 1), name);
  const ScalarType t = dtype ? *dtype : is_integral(x.dtype(), true) ? kInt64 : x.dtype();
  if (t == kBool) fail(name, "\"", name, "_cpu\" not implemented for 'Bool'");
  Tensor out = detail::new_tensor(x.sizes(), t, name);
  const Tensor xc = detail::cast(x, t).contiguous();
  if (x.numel() != 0) ops::call<id>(x.device(), lines(out, d), lines(xc, d), false);
  if (is_floating(t) && autograd::any_needs_grad(x))
    ops::record<id>({x}, {out}, autograd::formulas::ScanSaved{id == OpId::cumprod ? xc : Tensor(), d});
  return out;
}

template <OpId id>
std::pair<Tensor, Tensor> extremum(const Tensor& x, int64_t dim) {
  const char* name = ops::op_name(id);
  detail::check_defined(x, name);
  const int64_t d = detail::wrap_dim(dim, std::max<int64_t>(x.dim(), 1), name);
  Tensor values = detail::new_tensor(x.sizes(), x.dtype(), name);
  Tensor indices = detail::new_tensor(x.sizes(), kInt64, name);
  const Tensor xc = x.contiguous();
  if (x.numel() != 0) ops::call<id>(x.device(), lines(values, d), lines(indices, d), lines(xc, d));
  if (is_floating(x.dtype()) && autograd::any_needs_grad(x))
    ops::record<id>({x}, {values, indices}, autograd::formulas::CummaxSaved{indices, d});
  return {values, indices};
}
}  // namespace

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return scan<OpId::cumsum>(x, dim, dtype);
}
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return scan<OpId::cumprod>(x, dim, dtype);
}
Tensor logcumsumexp(const Tensor& x, int64_t dim) {
  const char* op = ops::op_name(OpId::logcumsumexp);
  detail::check_defined(x, op);
  const int64_t d = detail::wrap_dim(dim, std::max<int64_t>(x.dim(), 1), op);
  if (!is_floating(x.dtype()))
    fail(op, "\"logcumsumexp_out_cpu\" not implemented for '", ops::aten_type_name(x.dtype()), "'");
  Tensor out = detail::new_tensor(x.sizes(), x.dtype(), op);
  const Tensor xc = x.contiguous();
  if (x.numel() != 0) ops::call<OpId::logcumsumexp>(x.device(), lines(out, d), lines(xc, d), false);
  if (autograd::any_needs_grad(x))
    ops::record<OpId::logcumsumexp>({x}, {out}, autograd::formulas::LogcumsumexpSaved{xc, out, d});
  return out;
}
std::pair<Tensor, Tensor> cummax(const Tensor& x, int64_t dim) { return extremum<OpId::cummax>(x, dim); }
std::pair<Tensor, Tensor> cummin(const Tensor& x, int64_t dim) { return extremum<OpId::cummin>(x, dim); }

namespace autograd::formulas {
DITTO_FORMULA(cumsum, ScanSaved) { return {reverse_scan<OpId::cumsum>(g[0], s.dim)}; }

DITTO_FORMULA(cumprod, ScanSaved) {
  const Tensor& x = *s.x;
  const Tensor gc = g[0].to(x.dtype()).contiguous();
  Tensor out = detail::new_tensor(x.sizes(), x.dtype(), ops::op_name(OpId::cumprod_backward));
  if (x.numel() != 0)
    ops::call<OpId::cumprod_backward>(x.device(), lines(out, s.dim), lines(gc, s.dim), lines(x, s.dim));
  return {out};
}

// PyTorch's logcumsumexp_backward: the positive and negative parts of g, each in log space,
// scanned from the end (TensorFlow's cumulative_logsumexp gradient).
DITTO_FORMULA(logcumsumexp, LogcumsumexpSaved) {
  const Tensor &x = *s.x, &out = *s.out;
  if (x.numel() == 0) return {zeros_like(x)};
  const Tensor gd = g[0].to(x.dtype());
  const Scalar lowest = x.dtype() == kFloat64 ? Scalar(std::numeric_limits<double>::lowest())
                                              : Scalar(static_cast<double>(std::numeric_limits<float>::lowest()));
  const Tensor log_abs = log(abs(gd));
  const Tensor log_pos = where(gd.gt(0), log_abs, lowest);
  const Tensor log_neg = where(gd.lt(0), log_abs, lowest);
  const Tensor pos = exp(reverse_scan<OpId::logcumsumexp>(log_pos - out, s.dim) + x);
  const Tensor neg = exp(reverse_scan<OpId::logcumsumexp>(log_neg - out, s.dim) + x);
  return {pos - neg};
}

// PyTorch's cummaxmin_backward: each gradient goes to the element its running extremum came from,
// summed in index order (scatter_add along dim).
DITTO_FORMULA(cummax, CummaxSaved) {
  const Tensor& idx = *s.indices;
  if (idx.dim() == 0) return {g[0].clone()};
  return {scatter_add(zeros(idx.sizes(), g[0].dtype()), s.dim, idx, g[0])};
}
}  // namespace autograd::formulas

}  // namespace ditto
