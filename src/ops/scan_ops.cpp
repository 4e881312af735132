// Scans: cumsum and cumprod, forward and backward. The kernels see the input as a contiguous
// (outer, n, inner) tensor whose dim 1 is the scanned one, and follow Note [Scan order]
// (cpu/scan.cpp): PyTorch's CPU order, so forward and cumsum's backward are PyTorch's bits.
#include "autograd/graph.h"
#include "ops/common.h"
#include "ops/formulas.h"

namespace ditto {
using detail::fail;
using ops::OpId;

namespace {
// x (contiguous) viewed as (outer, n, inner) around dim d; a 0-dim tensor is one line of one.
Tensor lines(const Tensor& x, int64_t d) {
  if (x.dim() == 0) return x.view({1, 1, 1});
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= x.size(i);
  for (int64_t i = d + 1; i < x.dim(); ++i) inner *= x.size(i);
  return x.view({outer, x.size(d), inner});
}

// g's scan along dim from its end (cumsum's gradient: PyTorch's flip, cumsum, flip, in one pass).
Tensor reverse_cumsum(const Tensor& g, int64_t dim) {
  const Tensor gc = g.contiguous();
  Tensor out = detail::new_tensor(g.sizes(), g.dtype(), "cumsum");
  if (g.numel() != 0) ops::call<OpId::cumsum>(g.device(), lines(out, dim), lines(gc, dim), true);
  return out;
}

template <OpId id>
Tensor scan(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  const char* name = ops::op_entry(id).name;
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
}  // namespace

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return scan<OpId::cumsum>(x, dim, dtype);
}
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return scan<OpId::cumprod>(x, dim, dtype);
}

namespace autograd::formulas {
DITTO_FORMULA(cumsum, ScanSaved) { return {reverse_cumsum(g[0], s.dim)}; }

DITTO_FORMULA(cumprod, ScanSaved) {
  const Tensor& x = *s.x;
  const Tensor gc = g[0].to(x.dtype()).contiguous();
  Tensor out = detail::new_tensor(x.sizes(), x.dtype(), "cumprod_backward");
  if (x.numel() != 0)
    ops::call<OpId::cumprod_backward>(x.device(), lines(out, s.dim), lines(gc, s.dim), lines(x, s.dim));
  return {out};
}
}  // namespace autograd::formulas

}  // namespace ditto
