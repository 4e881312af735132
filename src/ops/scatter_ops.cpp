// Public scatter-style ops whose PyTorch CPU kernels race: index_copy, index_put, put. Several
// inputs may land on one output element; ditto's kernels own their outputs, so duplicates resolve
// in index order (op_table.def). Every index is checked here, before a kernel runs. scatter_add
// and scatter_reduce are in index_ops.cpp.
#include "autograd/graph.h"
#include "core/dtype_dispatch.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using detail::shape_str;
using ops::OpId;

namespace {

// index as a contiguous 1-D int64 tensor, checked against [-size, size) (or [0, size)), negatives
// wrapped. bad(v) reports an index out of range.
template <class Bad>
Tensor checked_index(const Tensor& index, int64_t size, bool allow_negative, Bad bad) {
  Tensor out = detail::new_tensor({index.numel()}, kInt64, "index");
  int64_t* o = out.data_ptr<int64_t>();
  const Tensor idx = index.contiguous();
  core::dispatch_dtype(idx.dtype(), [&]<class I>() {
    if constexpr (std::is_same_v<I, int32_t> || std::is_same_v<I, int64_t>) {
      const I* p = idx.data_ptr<I>();
      for (int64_t i = 0, n = idx.numel(); i < n; ++i) {
        const int64_t v = static_cast<int64_t>(p[i]);
        if (v >= size || v < (allow_negative ? -size : 0)) bad(v);
        o[i] = v < 0 ? v + size : v;
      }
    }
  });
  return out;
}

bool expandable(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const std::size_t off = to.size() - from.size();
  for (std::size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[off + i]) return false;
  return true;
}

Shape tail(const Shape& s, std::size_t from) { return Shape(s.begin() + static_cast<std::ptrdiff_t>(from), s.end()); }

}  // namespace

// --- index_copy
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const char* op = "index_copy_";
  detail::check_defined(self, op);
  detail::check_defined(index, op, "index");
  detail::check_defined(source, op, "source");
  const int64_t d = detail::wrap_dim(dim, self.dim(), op);
  if (index.dim() >= 2) fail(op, "Index should have dimension 1 or 0 (got ", index.dim(), ")");
  const int64_t n = index.numel();
  if (source.dim() == 0 && n != 1) fail(op, "When source is scalar, index should have one element (got ", n, ")");
  if (source.dim() != self.dim() && source.dim() != 0 && self.dim() != 0)
    fail(op, "When source and destination are not scalars, their dimensionality must match. Source dimensionality (",
         source.dim(), "), destination dimensionality (", self.dim(), ")");
  if (index.dtype() != kInt64) fail(op, "Expected a long tensor for index, but got ", dtype_name(index.dtype()));
  if (self.dtype() != source.dtype())
    fail(op, "self and source expected to have the same dtype, but got (self) ", dtype_name(self.dtype()),
         " and (source) ", dtype_name(source.dtype()));
  Shape self_slice = self.sizes(), src_slice = source.sizes();
  if (!self_slice.empty()) self_slice.erase(self_slice.begin() + d);
  if (!src_slice.empty()) src_slice.erase(src_slice.begin() + (source.dim() == self.dim() ? d : 0));
  if (self_slice != src_slice)
    fail(op, "Source/destination tensor must have same slice shapes. Destination slice shape: ", shape_str(self_slice),
         " at dimension ", d, " and source slice shape: ", shape_str(src_slice), " at dimension 0.");
  if (source.dim() > 0 && n != source.size(source.dim() == self.dim() ? d : 0))
    fail(op, "Number of indices (", n, ") should be equal to source.size(dim) (", source.size(d), ")");
  if (self.dim() == 0 && n != 1) fail(op, "a 0-dim self takes exactly one index, got ", n);
  const int64_t size = self.dim() == 0 ? 1 : self.size(d);
  const Tensor idx = checked_index(index, size, false, [&](int64_t v) {
    fail(op, "index ", v, " is out of bounds for dimension ", d, " with size ", size);
  });
  // source with self's rank and n slices along d (a scalar source becomes one slice)
  Shape src_shape = self.sizes();
  if (!src_shape.empty()) src_shape[d] = n;
  const Tensor src = source.reshape(src_shape);
  Tensor out = self.detach().clone();
  if (n > 0) ops::call<OpId::index_copy_>(self.device(), out, d, idx, src.detach());
  if (is_floating(self.dtype()) && autograd::any_needs_grad(self, src)) {
    ops::record<OpId::index_copy_>({self, src}, {out}, autograd::formulas::DimIndexSaved{d, idx});
  }
  return out;
}

// --- index_put: one index tensor for dim 0 (int32/int64, negatives wrap), or a bool mask over the
// leading dims. Both become a linear index into self seen as (M, rest...).
Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  const char* op = "index_put_";
  detail::check_defined(self, op);
  detail::check_defined(values, op, "values");
  if (indices.size() > static_cast<std::size_t>(self.dim()))
    fail(op, "too many indices for tensor of dimension ", self.dim(), " (got ", indices.size(), ")");
  if (indices.size() != 1) fail(op, "expected exactly one index tensor (ditto supports one), got ", indices.size());
  const Tensor& index = indices[0];
  detail::check_defined(index, op, "index");
  const ScalarType it = index.dtype();
  if (it != kInt64 && it != kInt32 && it != kBool)
    fail(op, "tensors used as indices must be long, int, byte or bool tensors, got ", dtype_name(it));
  if (values.dtype() != self.dtype())
    fail(op, "Index put requires the source and destination dtypes match, got ", dtype_name(self.dtype()),
         " for the destination and ", dtype_name(values.dtype()), " for the source.");
  Tensor lin;
  Shape result_shape;
  std::size_t k = 1;  // leading dims of self the index covers
  if (it == kBool) {
    k = static_cast<std::size_t>(index.dim());
    if (k == 0) fail(op, "a 0-dim bool index is not supported");
    if (k > static_cast<std::size_t>(self.dim()))
      fail(op, "too many indices for tensor of dimension ", self.dim(), " (got ", k, ")");
    for (std::size_t i = 0; i < k; ++i)
      if (index.size(static_cast<int64_t>(i)) != self.size(static_cast<int64_t>(i)))
        fail(op, "The shape of the mask ", shape_str(index.sizes()), " at index ", i,
             " does not match the shape of the indexed tensor ", shape_str(self.sizes()), " at index ", i);
    const Tensor m = index.contiguous();
    const bool* p = m.data_ptr<bool>();
    std::vector<int64_t> pos;
    for (int64_t i = 0, n = m.numel(); i < n; ++i)
      if (p[i]) pos.push_back(i);
    lin = detail::new_tensor({static_cast<int64_t>(pos.size())}, kInt64, op);
    std::copy(pos.begin(), pos.end(), lin.data_ptr<int64_t>());
    result_shape = {static_cast<int64_t>(pos.size())};
  } else {
    const int64_t size = self.size(0);
    lin = checked_index(index, size, true, [&](int64_t v) {
      detail::fail_index(op, "index ", v, " is out of bounds for dimension 0 with size ", size);
    });
    result_shape = index.sizes();
  }
  const Shape rest = tail(self.sizes(), k);
  result_shape.insert(result_shape.end(), rest.begin(), rest.end());
  if (!expandable(values.sizes(), result_shape))
    fail(op, "shape mismatch: value tensor of shape ", shape_str(values.sizes()),
         " cannot be broadcast to indexing result of shape ", shape_str(result_shape));
  Shape rows = {lin.numel()}, self_rows = {1};
  for (std::size_t i = 0; i < k; ++i) self_rows[0] *= self.size(static_cast<int64_t>(i));
  rows.insert(rows.end(), rest.begin(), rest.end());
  self_rows.insert(self_rows.end(), rest.begin(), rest.end());
  const Tensor vals = values.expand(result_shape).reshape(rows);
  Tensor out = self.detach().clone();
  if (lin.numel() > 0 && out.numel() > 0) {
    const Tensor out_rows = out.view(self_rows);
    const Tensor v = vals.detach();
    if (accumulate)
      ops::call<OpId::index_put_accumulate>(self.device(), out_rows, 0, lin, v);
    else
      ops::call<OpId::index_put_>(self.device(), out_rows, 0, lin, v);
  }
  if (is_floating(self.dtype()) && autograd::any_needs_grad(self, vals)) {
    const autograd::formulas::IndexPutSaved s{self_rows, lin, accumulate};
    if (accumulate)
      ops::record<OpId::index_put_accumulate>({self, vals}, {out}, s);
    else
      ops::record<OpId::index_put_>({self, vals}, {out}, s);
  }
  return out;
}

// --- put: self seen as 1-D (row-major), index of any shape, negatives wrap.
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  const char* op = "put_";
  detail::check_defined(self, op);
  detail::check_defined(index, op, "index");
  detail::check_defined(source, op, "source");
  if (index.dtype() != kInt64) fail(op, "Expected a long tensor for index, but got ", dtype_name(index.dtype()));
  if (self.dtype() != source.dtype())
    fail(op, "self and source expected to have the same dtype, but got self.dtype = ", dtype_name(self.dtype()),
         " and source.dtype = ", dtype_name(source.dtype()));
  if (source.numel() != index.numel())
    fail(op, "Expected source and index to have the same number of elements, but got source.numel() = ", source.numel(),
         ", index.numel() = ", index.numel());
  if (self.numel() == 0 && index.numel() != 0) fail(op, "Tried to put elements into an empty tensor");
  const int64_t numel = self.numel();
  const Tensor lin = checked_index(index, numel, true, [&](int64_t v) {
    detail::fail_index(op, "out of range: tried to access index ", v, " on a tensor of ", numel, " elements.");
  });
  const Tensor src = source.reshape({-1});
  Tensor out = self.detach().clone();
  if (lin.numel() > 0) {
    const Tensor flat = out.view({numel});
    if (accumulate)
      ops::call<OpId::put_accumulate>(self.device(), flat, 0, lin, src.detach());
    else
      ops::call<OpId::put_>(self.device(), flat, 0, lin, src.detach());
  }
  if (is_floating(self.dtype()) && autograd::any_needs_grad(self, src)) {
    const autograd::formulas::PutSaved s{lin, accumulate};
    if (accumulate)
      ops::record<OpId::put_accumulate>({self, src}, {out}, s);
    else
      ops::record<OpId::put_>({self, src}, {out}, s);
  }
  return out;
}

// --- Tensor methods. In place: computed out of place, then copied into self.
namespace {
Tensor& assign_inplace(Tensor& self, const Tensor& result, const char* op) {
  {
    NoGradGuard no_grad;
    ops::call<OpId::copy_>(self.device(), self, result);
  }
  self.storage()->bump_version();
  autograd::rebase_history(self, result, op);
  return self;
}
}  // namespace

Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  autograd::check_inplace(*this, "index_copy_");
  return assign_inplace(*this, ditto::index_copy(*this, dim, index, source), "index_copy_");
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ditto::index_copy(*this, dim, index, source);
}
Tensor& Tensor::index_put_(const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  autograd::check_inplace(*this, "index_put_");
  return assign_inplace(*this, ditto::index_put(*this, indices, values, accumulate), "index_put_");
}
Tensor Tensor::index_put(const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) const {
  return ditto::index_put(*this, indices, values, accumulate);
}
Tensor& Tensor::put_(const Tensor& index, const Tensor& source, bool accumulate) {
  autograd::check_inplace(*this, "put_");
  return assign_inplace(*this, ditto::put(*this, index, source, accumulate), "put_");
}
Tensor Tensor::put(const Tensor& index, const Tensor& source, bool accumulate) const {
  return ditto::put(*this, index, source, accumulate);
}
Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                              bool include_self) const {
  return ditto::scatter_reduce(*this, dim, index, src, reduce, include_self);
}

}  // namespace ditto
