// Counting ops: histc and bincount (cpu/count.cpp, Note [Counting order]). Neither has a gradient
// (PyTorch's have none either): their outputs never require grad.
#include <cmath>
#include <limits>

#include "core/checked.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using ops::OpId;

Tensor histc(const Tensor& x, int64_t bins, const Scalar& min, const Scalar& max) {
  const char* op = ops::op_name(OpId::histc);
  detail::check_defined(x, op);
  if (!is_floating(x.dtype())) fail(op, "\"histogram_cpu\" not implemented for '", ops::aten_type_name(x.dtype()), "'");
  if (bins <= 0) fail(op, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  double lo = min.to_double(), hi = max.to_double();
  const Tensor flat = x.detach().reshape({-1}).contiguous();
  if (lo == hi && x.numel() > 0) {  // the data's own range, as PyTorch's aminmax
    NoGradGuard no_grad;
    lo = amin(flat).to(kFloat64).item<double>();
    hi = amax(flat).to(kFloat64).item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) fail(op, "torch.histc: range of [", lo, ", ", hi, "] is not finite");
  if (!(lo < hi)) fail(op, "torch.histc: max must be larger than min");
  Tensor hist = detail::new_tensor({bins}, x.dtype(), op);
  ops::call<OpId::histc>(x.device(), hist, flat, lo, hi);
  return hist;
}

Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights, int64_t minlength) {
  const char* op = ops::op_name(OpId::bincount);
  detail::check_defined(x, op);
  if (!is_integral(x.dtype(), false))
    fail(op, "\"bincount_cpu\" not implemented for '", ops::aten_type_name(x.dtype()), "'");
  if (minlength < 0) fail(op, "minlength should be >= 0");
  if (x.dim() == 1 && x.numel() == 0) return zeros({minlength}, kInt64);
  const Tensor in = x.detach().contiguous();
  if (x.dim() != 1) fail(op, "bincount only supports 1-d non-negative integral inputs.");
  std::pair<int64_t, int64_t> range;
  core::dispatch_dtype(in.dtype(), [&]<class I>() {
    if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool>)
      range = ops::integer_range(in.data_ptr<I>(), in.numel());
  });
  if (range.first < 0) fail(op, "bincount only supports 1-d non-negative integral inputs.");
  const bool weighted = weights && weights->defined();
  if (weighted && (weights->dim() != 1 || weights->size(0) != x.size(0)))
    fail(op, "weights should be 1-d and have the same length as input");
  const int64_t bins = std::max(detail::checked_add(range.second, int64_t{1}, op, "bins"), minlength);
  Tensor w;
  NoGradGuard no_grad;
  ScalarType out_type = kInt64;
  if (weighted) {
    out_type = weights->dtype() == kFloat32 ? kFloat32 : kFloat64;  // PyTorch: float stays float, all else double
    w = weights->detach().to(out_type).contiguous();
  }
  Tensor out = detail::new_tensor({bins}, out_type, op);
  ops::call<OpId::bincount>(x.device(), out, in, w);
  return out;
}

}  // namespace ditto
