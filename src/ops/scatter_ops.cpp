// Public scatter-style ops whose PyTorch CPU kernels race: index_copy, index_put, put. Several
// inputs may land on one output element; ditto's kernels own their outputs, so duplicates resolve
// in index order (op_table.def). Every index is checked here, before a kernel runs. scatter_add
// and scatter_reduce are in index_ops.cpp.
#include <algorithm>
#include <string>

#include "autograd/graph.h"
#include "core/checked.h"
#include "core/dtype_dispatch.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using detail::shape_str;
using ops::checked_index;
using ops::OpId;

namespace {

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
  const char* op = ops::op_name(OpId::index_copy_);
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

// --- advanced indexing: index (x[i0, i1, ...]) and index_put (x[i0, i1, ...] = v)
namespace {
// PyTorch's advanced-indexing rules for a list of indices, one per dim from dim 0: an undefined
// tensor is a full slice (None / ':'), an int32/int64 tensor indexes its dim, a bool mask covers as
// many dims as it has (the coordinates of its true elements). The index tensors broadcast together
// to b; the result is self's other dims with b in place of the indexed ones: where the first
// indexed dim was when they are consecutive, else first.
struct Advanced {
  Shape perm;          // self's indexed dims (in order), then the others
  int64_t k = 0;       // the number of indexed dims
  Tensor lin;          // int64 (numel(b)): row-major linear index into the k indexed dims
  Shape b;             // the broadcast shape of the index tensors
  int64_t before = 0;  // dims of the result before b
};

Advanced advanced(const Tensor& self, const std::vector<Tensor>& indices, const char* op) {
  std::vector<int64_t> dims;
  std::vector<Tensor> idx;
  int64_t cur = 0;
  auto too_many = [&](int64_t got) {
    detail::fail_index(op, "too many indices for tensor of dimension ", self.dim(), " (got ", got, ")");
  };
  for (const Tensor& t : indices) {
    if (!t.defined()) {
      ++cur;
      continue;
    }
    const ScalarType it = t.dtype();
    if (it != kInt64 && it != kInt32 && it != kBool)
      detail::fail_index(op, "tensors used as indices must be long, int, byte or bool tensors, got ", dtype_name(it));
    if (it == kBool) {
      const int64_t k = t.dim();
      if (k == 0) fail(op, "a 0-dim bool index is not supported");
      if (cur + k > self.dim()) too_many(cur + k);
      for (int64_t j = 0; j < k; ++j)
        if (t.size(j) != self.size(cur + j))
          detail::fail_index(op, "The shape of the mask ", shape_str(t.sizes()), " at index ", j,
                             " does not match the shape of the indexed tensor ", shape_str(self.sizes()), " at index ",
                             cur + j);
      for (Tensor& c : nonzero_as_tuple(t)) idx.push_back(std::move(c));
      for (int64_t j = 0; j < k; ++j) dims.push_back(cur + j);
      cur += k;
    } else {
      if (cur >= self.dim()) too_many(cur + 1);
      idx.push_back(t);
      dims.push_back(cur++);
    }
  }
  if (idx.empty()) fail(op, "expected at least one index tensor");
  Advanced a;
  a.k = static_cast<int64_t>(dims.size());
  for (const Tensor& t : idx) {  // broadcast the index tensors together
    const Shape& s = t.sizes();
    Shape nb(std::max(a.b.size(), s.size()), 1);
    for (std::size_t i = 0; i < nb.size(); ++i) {
      const int64_t x = i + a.b.size() < nb.size() ? 1 : a.b[i + a.b.size() - nb.size()];
      const int64_t y = i + s.size() < nb.size() ? 1 : s[i + s.size() - nb.size()];
      if (x != y && x != 1 && y != 1) {
        std::string shapes;
        for (const Tensor& u : idx) shapes += (shapes.empty() ? "" : ", ") + shape_str(u.sizes());
        detail::fail_index(op, "shape mismatch: indexing tensors could not be broadcast together with shapes ", shapes);
      }
      nb[i] = x == 1 ? y : x;
    }
    a.b = nb;
  }
  int64_t n = 1;
  for (int64_t v : a.b) n = detail::checked_mul(n, v, op, "indices");
  a.lin = zeros({n}, kInt64);
  int64_t* lin = a.lin.data_ptr<int64_t>();
  int64_t inner = 1;
  for (int64_t j = a.k - 1; j >= 0; --j) {
    const int64_t d = dims[static_cast<std::size_t>(j)], size = self.size(d);
    const Tensor v = checked_index(idx[static_cast<std::size_t>(j)].expand(a.b), size, true, [&](int64_t bad) {
      detail::fail_index(op, "index ", bad, " is out of bounds for dimension ", d, " with size ", size);
    });
    const int64_t* p = v.data_ptr<int64_t>();
    for (int64_t e = 0; e < n; ++e) lin[e] += p[e] * inner;
    inner *= size;
  }
  bool consecutive = true;
  for (std::size_t i = 1; i < dims.size(); ++i) consecutive = consecutive && dims[i] == dims[i - 1] + 1;
  a.before = consecutive ? dims[0] : 0;
  a.perm.assign(dims.begin(), dims.end());
  for (int64_t d = 0; d < self.dim(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) a.perm.push_back(d);
  return a;
}

Shape inverse(const Shape& perm) {
  Shape inv(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inv[static_cast<std::size_t>(perm[i])] = static_cast<int64_t>(i);
  return inv;
}
// The result's dims from (b..., rest...): b moved after the first `before` dims of rest.
Shape b_in_place(std::size_t nb, std::size_t nrest, int64_t before) {
  Shape p;
  for (std::size_t i = 0; i < static_cast<std::size_t>(before); ++i) p.push_back(static_cast<int64_t>(nb + i));
  for (std::size_t i = 0; i < nb; ++i) p.push_back(static_cast<int64_t>(i));
  for (std::size_t i = nb + static_cast<std::size_t>(before); i < nb + nrest; ++i) p.push_back(static_cast<int64_t>(i));
  return p;
}
bool identity(const Shape& p) {
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}
}  // namespace

Tensor index(const Tensor& self, const std::vector<Tensor>& indices) {
  const char* op = "index";
  detail::check_defined(self, op);
  const Advanced a = advanced(self, indices, op);
  const Tensor xp = self.permute(a.perm);
  const Shape rest = tail(xp.sizes(), static_cast<std::size_t>(a.k));
  Shape rows{1}, res = a.b;
  for (int64_t i = 0; i < a.k; ++i) rows[0] *= xp.size(i);
  rows.insert(rows.end(), rest.begin(), rest.end());
  res.insert(res.end(), rest.begin(), rest.end());
  const Tensor r = xp.reshape(rows).index_select(0, a.lin).reshape(res);
  const Shape p = b_in_place(a.b.size(), rest.size(), a.before);
  return identity(p) ? r : r.permute(p).contiguous();
}

Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  const char* op = ops::op_name(OpId::index_put_);
  detail::check_defined(self, op);
  detail::check_defined(values, op, "values");
  if (values.dtype() != self.dtype())
    fail(op, "Index put requires the source and destination dtypes match, got ", dtype_name(self.dtype()),
         " for the destination and ", dtype_name(values.dtype()), " for the source.");
  const Advanced a = advanced(self, indices, op);
  const Tensor sp = self.permute(a.perm);  // the indexed dims first, merged into M rows
  const Shape rest = tail(sp.sizes(), static_cast<std::size_t>(a.k));
  Shape self_rows{1}, rows{a.lin.numel()}, front = a.b;
  for (int64_t i = 0; i < a.k; ++i) self_rows[0] *= sp.size(i);
  self_rows.insert(self_rows.end(), rest.begin(), rest.end());
  rows.insert(rows.end(), rest.begin(), rest.end());
  front.insert(front.end(), rest.begin(), rest.end());
  const Shape p = b_in_place(a.b.size(), rest.size(), a.before);
  Shape result_shape(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) result_shape[i] = front[static_cast<std::size_t>(p[i])];
  if (!expandable(values.sizes(), result_shape))
    fail(op, "shape mismatch: value tensor of shape ", shape_str(values.sizes()),
         " cannot be broadcast to indexing result of shape ", shape_str(result_shape));
  const Tensor vals = values.expand(result_shape).permute(inverse(p)).reshape(rows);
  Tensor out = detail::new_tensor(sp.sizes(), self.dtype(), op);
  if (out.numel() > 0) ops::call<OpId::copy_>(self.device(), out, sp.detach());
  if (a.lin.numel() > 0 && out.numel() > 0) {
    const Tensor out_rows = out.view(self_rows);
    const Tensor v = vals.detach();
    if (accumulate)
      ops::call<OpId::index_put_accumulate>(self.device(), out_rows, 0, a.lin, v);
    else
      ops::call<OpId::index_put_>(self.device(), out_rows, 0, a.lin, v);
  }
  if (is_floating(self.dtype()) && autograd::any_needs_grad(sp, vals)) {
    const autograd::formulas::IndexPutSaved s{self_rows, a.lin, accumulate};
    if (accumulate)
      ops::record<OpId::index_put_accumulate>({sp, vals}, {out}, s);
    else
      ops::record<OpId::index_put_>({sp, vals}, {out}, s);
  }
  return identity(a.perm) ? out : out.permute(inverse(a.perm)).contiguous();
}

// --- put: self seen as 1-D (row-major), index of any shape, negatives wrap.
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  const char* op = ops::op_name(OpId::put_);
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

// --- Tensor methods. In place: computed out of place, then copied into self (ops::assign_inplace).
using ops::assign_inplace;

Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  const char* op = ops::op_name(OpId::index_copy_);
  autograd::check_inplace(*this, op);
  return assign_inplace(*this, ditto::index_copy(*this, dim, index, source), op);
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ditto::index_copy(*this, dim, index, source);
}
Tensor& Tensor::index_put_(const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  const char* op = ops::op_name(OpId::index_put_);
  autograd::check_inplace(*this, op);
  return assign_inplace(*this, ditto::index_put(*this, indices, values, accumulate), op);
}
Tensor Tensor::index_put(const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) const {
  return ditto::index_put(*this, indices, values, accumulate);
}
Tensor Tensor::index(const std::vector<Tensor>& indices) const { return ditto::index(*this, indices); }
Tensor& Tensor::put_(const Tensor& index, const Tensor& source, bool accumulate) {
  const char* op = ops::op_name(OpId::put_);
  autograd::check_inplace(*this, op);
  return assign_inplace(*this, ditto::put(*this, index, source, accumulate), op);
}
Tensor Tensor::put(const Tensor& index, const Tensor& source, bool accumulate) const {
  return ditto::put(*this, index, source, accumulate);
}
Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                              bool include_self) const {
  return ditto::scatter_reduce(*this, dim, index, src, reduce, include_self);
}

}  // namespace ditto
