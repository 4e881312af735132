// Selection by data: nonzero (a kernel, cpu/index.cpp: its size depends on the values), and ops
// made of it and of the gather/copy rows: argwhere, where(condition), masked_select,
// masked_scatter, take, take_along_dim, repeat_interleave and index_fill. Their gradients are those
// rows' (index_select's is an index_add in index order, index_copy's a gather), so no backward
// sums anything in a racing order. Messages are PyTorch 1.13's.
#include <algorithm>

#include "core/checked.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using ops::OpId;

Tensor nonzero(const Tensor& x) {
  detail::check_defined(x, ops::op_name(OpId::nonzero));
  const Tensor in = x.detach().contiguous();
  return ops::call<OpId::nonzero>(x.device(), in);
}

std::vector<Tensor> nonzero_as_tuple(const Tensor& x) {
  const Tensor nz = nonzero(x.dim() == 0 ? x.reshape({1}) : x);
  std::vector<Tensor> out;
  for (int64_t d = 0; d < nz.size(1); ++d) out.push_back(nz.select(1, d).contiguous());
  return out;
}

Tensor argwhere(const Tensor& x) { return nonzero(x); }

std::vector<Tensor> where(const Tensor& condition) { return nonzero_as_tuple(condition); }

namespace {
void check_mask(const Tensor& mask, const char* op) {
  detail::check_defined(mask, op, "mask");
  if (mask.dtype() != kBool) fail(op, op, ": expected BoolTensor for mask");
}
// The flat positions of mask's true elements (mask already expanded to the result's shape).
Tensor true_positions(const Tensor& mask) { return nonzero(mask.reshape({-1})).view({-1}); }
}  // namespace

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  detail::check_defined(x, "masked_select");
  check_mask(mask, "masked_select");
  const Shape s = detail::broadcast_shapes(x.sizes(), mask.sizes(), "masked_select");
  return x.expand(s).reshape({-1}).index_select(0, true_positions(mask.expand(s)));
}

Tensor masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& source) {
  detail::check_defined(x, "masked_scatter");
  detail::check_defined(source, "masked_scatter", "source");
  check_mask(mask, "masked_scatter");
  if (source.dtype() != x.dtype())
    fail("masked_scatter", "masked_scatter: expected self and source to have same dtypes but got",
         ops::aten_type_name(x.dtype()), " and ", ops::aten_type_name(source.dtype()));
  const Shape s = detail::broadcast_shapes(x.sizes(), mask.sizes(), "masked_scatter");
  const Tensor at = true_positions(mask.expand(s));
  if (source.numel() < at.numel()) fail("masked_scatter", "Number of elements of source < number of ones in mask");
  const Tensor taken = source.reshape({-1}).slice(0, 0, at.numel());
  return x.expand(s).reshape({-1}).index_copy(0, at, taken).view(s);
}

Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) {
  autograd::check_inplace(*this, "masked_scatter_");
  return ops::assign_inplace(*this, ditto::masked_scatter(*this, mask, source), "masked_scatter_");
}
Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  return ditto::masked_scatter(*this, mask, source);
}
Tensor Tensor::masked_select(const Tensor& mask) const { return ditto::masked_select(*this, mask); }

Tensor take(const Tensor& x, const Tensor& index) {
  detail::check_defined(x, "take");
  detail::check_defined(index, "take", "index");
  if (index.dtype() != kInt64)
    fail("take", "take(): Expected a long tensor for index, but got ", ops::aten_type_name(index.dtype()));
  const int64_t n = x.numel();
  const Tensor at = ops::checked_index(index, n, true, [&](int64_t v) {
    detail::fail_index("take", "out of range: tried to access index ", v, " on a tensor of ", n, " elements.");
  });
  return x.reshape({-1}).index_select(0, at).view(index.sizes());
}
Tensor Tensor::take(const Tensor& index) const { return ditto::take(*this, index); }

Tensor take_along_dim(const Tensor& x, const Tensor& indices, std::optional<int64_t> dim) {
  const char* op = "take_along_dim";
  detail::check_defined(x, op);
  detail::check_defined(indices, op, "indices");
  if (indices.dtype() != kInt64)
    fail(op, "torch.take_along_dim(): dtype of indices should be Long but got ", ops::aten_type_name(indices.dtype()));
  if (!dim) return x.reshape({-1}).gather(0, indices.reshape({-1}));
  if (x.dim() != indices.dim())
    fail(op, "torch.take_along_dim(): input and indices should have the same number of dimensions, but got ", x.dim(),
         " dimensions for input, and ", indices.dim(), " dimensions for indices");
  const int64_t d = detail::wrap_dim(*dim, std::max<int64_t>(x.dim(), 1), op);
  if (x.dim() == 0) return x.reshape({1}).gather(0, indices.reshape({1})).view({});
  // broadcast every dim but d
  Shape xs = x.sizes(), is = indices.sizes();
  xs[d] = 1, is[d] = 1;
  Shape s = detail::broadcast_shapes(xs, is, op), sx = s, si = s;
  sx[d] = x.size(d), si[d] = indices.size(d);
  return x.expand(sx).gather(d, indices.expand(si));
}

namespace {
// PyTorch's repeat_interleave(repeats): i repeated repeats[i] times, for i in order, as the
// upper bounds of 0 .. total - 1 in the running sum of repeats.
Tensor repeat_index(const Tensor& repeats, std::optional<int64_t> output_size) {
  const char* op = "repeat_interleave";
  detail::check_defined(repeats, op, "repeats");
  if (repeats.dim() > 1) fail(op, "repeats must be 0-dim or 1-dim tensor");
  if (!is_integral(repeats.dtype(), false))
    fail(op, "\"repeat_interleave_cpu\" not implemented for '", ops::aten_type_name(repeats.dtype()), "'");
  NoGradGuard no_grad;
  const Tensor r = repeats.reshape({-1}).to(kInt64);
  if (r.numel() > 0 && amin(r).item<int64_t>() < 0) fail(op, "repeats can not be negative");
  const Tensor ends = cumsum(r, 0);
  const int64_t total = r.numel() == 0 ? 0 : ends[-1].item<int64_t>();
  if (output_size && *output_size != total)
    fail(op, "output_size ", *output_size, " is not the sum of repeats, ", total);
  if (total == 0) return zeros({0}, kInt64);
  return searchsorted(ends, arange(total), false, true);
}
}  // namespace

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  return repeat_index(repeats, output_size);
}

Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  const char* op = "repeat_interleave";
  detail::check_defined(x, op);
  const Tensor in = dim ? x : x.reshape({-1});
  const int64_t d = dim ? detail::wrap_dim(*dim, std::max<int64_t>(x.dim(), 1), op) : 0;
  const Tensor line = in.dim() == 0 ? in.reshape({1}) : in;
  detail::check_defined(repeats, op, "repeats");
  if (repeats.dim() > 1) fail(op, "repeats must be 0-dim or 1-dim tensor");
  Tensor r = repeats;
  if (r.numel() == 1 && line.size(d) != 1) r = r.reshape({1}).expand({line.size(d)});
  if (r.numel() != line.size(d)) fail(op, "repeats must have the same size as input along dim");
  return line.index_select(d, repeat_index(r, output_size));
}

Tensor repeat_interleave(const Tensor& x, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  return repeat_interleave(x, scalar_tensor(repeats, kInt64), dim, output_size);
}
Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim) const {
  return ditto::repeat_interleave(*this, repeats, dim);
}
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim) const {
  return ditto::repeat_interleave(*this, repeats, dim);
}

Tensor index_fill(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value) {
  const char* op = "index_fill";
  detail::check_defined(x, op);
  detail::check_defined(index, op, "index");
  if (index.dtype() != kInt64) detail::fail_index(op, "index_fill_(): Expected dtype int64 for index.");
  if (index.dim() > 1) fail(op, "Index has to be a vector/scalar");
  const int64_t d = detail::wrap_dim(dim, std::max<int64_t>(x.dim(), 1), op);
  const Tensor line = x.dim() == 0 ? x.reshape({1}) : x;
  const Tensor at = ops::checked_index(index, line.size(d), true, [&](int64_t v) {
    detail::fail_index(op, "index ", v, " is out of bounds for dimension ", d, " with size ", line.size(d));
  });
  Shape s = line.sizes();
  s[d] = at.numel();
  const Tensor out = line.index_copy(d, at, full(s, value, x.dtype()));
  return x.dim() == 0 ? out.view({}) : out;
}

Tensor index_fill(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& value) {
  detail::check_defined(value, "index_fill", "value");
  if (value.dim() != 0)
    fail("index_fill", "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ", value.dim(),
         " dimension(s).");
  return index_fill(x, dim, index, value.item());
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ditto::index_fill(*this, dim, index, value);
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) {
  autograd::check_inplace(*this, "index_fill_");
  return ops::assign_inplace(*this, ditto::index_fill(*this, dim, index, value), "index_fill_");
}
Tensor Tensor::nonzero() const { return ditto::nonzero(*this); }

}  // namespace ditto
