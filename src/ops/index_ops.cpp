// Public joining and indexing ops: every index is checked before a kernel runs.

#include "autograd/graph.h"
#include "core/checked.h"
#include "core/dtype_dispatch.h"
#include "core/parallel.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using detail::shape_str;
using ops::OpId;

namespace {
bool legacy_empty(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

// Checks every index in [0, size) (negative ones are refused too, as PyTorch's kernels do). A bad
// one throws E: IndexError where PyTorch raises one (index_select, index_add_), a plain Error
// where it does not (gather, scatter).
template <class E = ditto::IndexError>
void check_indices(const Tensor& index, int64_t size, int64_t dim, const char* op) {
  const Tensor idx = index.contiguous();
  core::dispatch_dtype(idx.dtype(), [&]<class I>() {
    if constexpr (std::is_same_v<I, int32_t> || std::is_same_v<I, int64_t>) {
      const I* p = idx.data_ptr<I>();
      const int64_t n = idx.numel(), i = ops::first_out_of_range(p, n, size);
      if (i < n)
        detail::fail_as<E>(op, "index ", static_cast<int64_t>(p[i]), " is out of bounds for dimension ", dim,
                           " with size ", size);
    }
  });
}
}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const char* op = ops::op_name(OpId::cat);
  if (tensors.empty()) fail(op, "expected a non-empty list of Tensors");
  const Tensor* ref = nullptr;
  ScalarType t = tensors[0].dtype();
  for (const Tensor& x : tensors) {
    detail::check_defined(x, op);
    t = promote_types(t, x.dtype());
    if (!ref && !legacy_empty(x)) ref = &x;
  }
  if (!ref) {  // only legacy empty tensors: an empty result, still part of the graph (as PyTorch)
    Tensor out = detail::new_tensor({0}, t, op);
    if (is_floating(t) && autograd::any_needs_grad_list(tensors))
      ops::record<OpId::cat>(tensors, {out}, autograd::formulas::CatSaved{0, Shape(tensors.size(), 0)});
    return out;
  }
  if (ref->dim() == 0) fail(op, "zero-dimensional tensor cannot be concatenated");
  const int64_t d = detail::wrap_dim(dim, ref->dim(), op);
  Shape shape = ref->sizes();
  shape[d] = 0;
  std::vector<Tensor> inputs;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& x = tensors[i];
    if (legacy_empty(x)) continue;
    if (x.dim() != ref->dim())
      fail(op, "tensors must have same number of dimensions: got ", ref->dim(), " and ", x.dim());
    for (int64_t k = 0; k < x.dim(); ++k)
      if (k != d && x.size(k) != ref->size(k))
        fail(op, "sizes of tensors must match except in dimension ", d, ". Expected size ", ref->size(k),
             " but got size ", x.size(k), " for tensor number ", i, " in the list.");
    shape[d] = detail::checked_add(shape[d], x.size(d), op, "the concatenated size");
    inputs.push_back(x);
  }
  Tensor out = detail::new_tensor(shape, t, op);
  if (out.numel() > 0) ops::call<OpId::cat>(ref->device(), out, inputs, d);
  if (is_floating(t) && autograd::any_needs_grad_list(inputs)) {
    autograd::formulas::CatSaved s{d, {}};
    for (const Tensor& x : inputs) s.lengths.push_back(x.size(d));
    ops::record<OpId::cat>(inputs, {out}, std::move(s));
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) fail("stack", "expected a non-empty list of Tensors");
  const int64_t d = detail::wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    detail::check_defined(tensors[i], "stack");
    if (tensors[i].sizes() != tensors[0].sizes())
      fail("stack", "expects each tensor to be equal size, but got ", shape_str(tensors[0].sizes()), " at entry 0 and ",
           shape_str(tensors[i].sizes()), " at entry ", i);
    parts.push_back(tensors[i].unsqueeze(d));
  }
  return cat(parts, d);
}

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  const char* op = ops::op_name(OpId::index_select);
  detail::check_defined(x, op);
  detail::check_defined(index, op, "index");
  if (index.dtype() != kInt64 && index.dtype() != kInt32)
    fail(op, "expected dtype int32 or int64 for index, got ", dtype_name(index.dtype()));
  if (index.dim() > 1) fail(op, "index must be 0-D or 1-D, got ", index.dim(), "-D");
  const int64_t d = detail::wrap_dim(dim, x.dim(), op);
  const int64_t size = x.dim() == 0 ? 1 : x.size(d);
  check_indices(index, size, d, op);
  if (x.dim() == 0) return x.clone();
  Shape shape = x.sizes();
  shape[d] = index.numel();
  Tensor out = detail::new_tensor(shape, x.dtype(), op);
  const Tensor flat = index.reshape({-1});
  ops::call<OpId::index_select>(x.device(), out, x, d, flat);
  if (is_floating(x.dtype()) && autograd::any_needs_grad(x)) {
    ops::record<OpId::index_select>({x}, {out}, autograd::formulas::IndexSaved{x.sizes(), d, flat});
  }
  return out;
}

namespace {
// The index family treats a 0-dim tensor as one element along one dim (PyTorch's
// ensure_nonempty_dim / ensure_nonempty_size).
int64_t nonempty_dim(const Tensor& t) { return t.dim() == 0 ? 1 : t.dim(); }
int64_t nonempty_size(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }
Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

// PyTorch's gather_shape_check and scatter_shape_check (src null for gather), for a non-empty
// index: int64, self's rank, no larger than self apart from dim and no larger than src. The
// index values are checked by the kernels, which read them anyway (cpu/scatter.cpp).
void check_scatter_gather(const char* op, const Tensor& self, int64_t d, const Tensor& index, const Tensor* src) {
  if (index.dtype() != kInt64) fail(op, "Expected dtype int64 for index, got ", dtype_name(index.dtype()));
  const int64_t nd = nonempty_dim(self);
  if (nonempty_dim(index) != nd)
    fail(op, "Index tensor must have the same number of dimensions as ", src ? "self" : "input", " tensor (", nd,
         "), got ", index.dim());
  if (src && nonempty_dim(*src) != nd)
    fail(op, "src must have the same number of dimensions as self (", nd, "), got ", src->dim());
  for (int64_t k = 0; k < nd; ++k) {
    const int64_t n = nonempty_size(index, k);
    if ((k != d && n > nonempty_size(self, k)) || (src && n > nonempty_size(*src, k))) {
      if (src)
        fail(op, "Expected index ", shape_str(index.sizes()), " to be smaller than self ", shape_str(self.sizes()),
             " apart from dimension ", d, " and to be smaller size than src ", shape_str(src->sizes()));
      fail(op, "Size does not match at dimension ", k, " expected index ", shape_str(index.sizes()),
           " to be smaller than self ", shape_str(self.sizes()), " apart from dimension ", d);
    }
  }
}
}  // namespace

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  const char* op = ops::op_name(OpId::gather);
  detail::check_defined(x, op);
  detail::check_defined(index, op, "index");
  const int64_t d = detail::wrap_dim(dim, nonempty_dim(x), op);
  Tensor out = detail::new_tensor(index.sizes(), x.dtype(), op);
  if (index.numel() == 0) return out;  // nothing else is checked then (PyTorch)
  check_scatter_gather(op, x, d, index, nullptr);
  if (!ops::call<OpId::gather>(x.device(), at_least_1d(out), at_least_1d(x), d, at_least_1d(index)))
    check_indices<Error>(index, nonempty_size(x, d), d, op);  // throws, naming the first bad index
  if (is_floating(x.dtype()) && autograd::any_needs_grad(x)) {
    ops::record<OpId::gather>({x}, {out}, autograd::formulas::IndexSaved{x.sizes(), d, index});
  }
  return out;
}

namespace {
void check_index_add(const Tensor& self, int64_t d, const Tensor& index, const Tensor& source, bool index_values) {
  const char* op = ops::op_name(OpId::index_add_);
  if (index.dtype() != kInt64 && index.dtype() != kInt32)
    fail(op, "expected dtype int32 or int64 for index, got ", dtype_name(index.dtype()));
  if (index.dim() > 1) fail(op, "index must be 0-D or 1-D, got ", index.dim(), "-D");
  if (source.dtype() != self.dtype())
    fail(op, "self (", dtype_name(self.dtype()), ") and source (", dtype_name(source.dtype()),
         ") must have the same dtype");
  const int64_t n = index.numel();
  // PyTorch takes a 0-dim self with a 0-D or 1-D source, and a 1-D self with a 0-dim source for one
  // index (that element added at it)
  const bool scalar_source = self.dim() == 1 && source.dim() == 0;
  if (source.dim() != self.dim() && !(self.dim() == 0 && source.dim() <= 1) && !scalar_source)
    fail(op, "source must have the same number of dimensions as self, got ", source.dim(), " and ", self.dim());
  if ((self.dim() == 0 || scalar_source) && source.numel() != n)
    fail(op, "number of indices (", n, ") should be equal to source.size(dim) (", source.numel(), ")");
  if (self.dim() > 0 && !scalar_source) {
    if (source.size(d) != n)
      fail(op, "number of indices (", n, ") should be equal to source.size(dim) (", source.size(d), ")");
    for (int64_t k = 0; k < self.dim(); ++k)
      if (k != d && source.size(k) != self.size(k))
        fail(op, "source ", shape_str(source.sizes()), " and self ", shape_str(self.sizes()), " differ at dimension ",
             k);
  }
  if (index_values) check_indices(index, self.dim() == 0 ? 1 : self.size(d), d, op);
}

}  // namespace

namespace {
Tensor index_add_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                      bool check_index_values) {
  const char* op = ops::op_name(OpId::index_add_);
  detail::check_defined(self, op);
  detail::check_defined(index, op, "index");
  detail::check_defined(source, op, "source");
  const int64_t d = detail::wrap_dim(dim, self.dim(), op);
  check_index_add(self, d, index, source, check_index_values);
  Tensor out = self.detach().clone();
  Tensor src = source;
  if (alpha.to_double() != 1.0) {  // alpha in self's dtype, as PyTorch's kernel takes it
    NoGradGuard no_grad;
    src = mul(source, detail::wrap_scalar(alpha, self.dtype()));
  }
  if (self.dim() == 1 && src.dim() == 0) src = src.reshape({1});  // the one slice along d
  ops::call<OpId::index_add_>(self.device(), out, d, index.reshape({-1}), src.detach());
  if (is_floating(self.dtype()) && autograd::any_needs_grad(self, source)) {
    ops::record<OpId::index_add_>({self, source}, {out},
                                  autograd::formulas::IndexAddSaved{source.sizes(), d, index.reshape({-1}), alpha});
  }
  return out;
}
}  // namespace

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return index_add_impl(self, dim, index, source, alpha, true);
}

namespace {
// scatter_add and scatter_reduce: checks, then the kernel on self's clone (0-dim tensors run as
// 1-D), then autograd. An empty index returns self unchanged; only src's dtype is checked then.
Tensor scatter_common(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      ScatterReduction r, bool include_self, OpId id) {
  detail::check_defined(self, op);
  detail::check_defined(index, op, "index");
  detail::check_defined(src, op, "src");
  const int64_t d = detail::wrap_dim(dim, nonempty_dim(self), op);
  if (self.dtype() != src.dtype())
    fail(op, "Expected self.dtype to be equal to src.dtype, got ", dtype_name(self.dtype()), " and ",
         dtype_name(src.dtype()));
  if (self.dtype() == kBool && r == ScatterReduction::Mean) fail(op, "reduce='mean' is not implemented for bool");
  Tensor used = src;
  if (index.numel() > 0) {
    check_scatter_gather(op, self, d, index, &src);
    // only src's first index.size(k) entries along each dim take part
    used = at_least_1d(src);
    for (int64_t k = 0; k < used.dim(); ++k)
      if (used.size(k) != nonempty_size(index, k)) used = used.narrow(k, 0, nonempty_size(index, k));
  }
  Tensor out = self.detach().clone();
  if (index.numel() > 0) {
    const Tensor o = at_least_1d(out), i = at_least_1d(index), u = used.detach();
    const bool in_range = id == OpId::scatter_reduce
                              ? ops::call<OpId::scatter_reduce>(self.device(), o, d, i, u, r, include_self)
                          : id == OpId::scatter_ ? ops::call<OpId::scatter_>(self.device(), o, d, i, u, r, true)
                                                 : ops::call<OpId::scatter_add_>(self.device(), o, d, i, u);
    if (!in_range) check_indices<Error>(index, nonempty_size(self, d), d, op);  // throws, naming the first bad index
  }
  if (is_floating(self.dtype()) && autograd::any_needs_grad(self, used)) {
    if (index.numel() == 0) return autograd::any_needs_grad(self) ? self.clone() : out;
    used = used.reshape(index.sizes());  // index's shape, so the formula's gathers line up
    if (id == OpId::scatter_add_) {
      ops::record<OpId::scatter_add_>({self, used}, {out}, autograd::formulas::DimIndexSaved{d, index});
    } else if (id == OpId::scatter_) {
      ops::record<OpId::scatter_>({self, used}, {out}, autograd::formulas::DimIndexSaved{d, index});
    } else {
      autograd::formulas::ScatterReduceSaved s{d, r, include_self, index, {}, {}, {}};
      if (r == ScatterReduction::Amax || r == ScatterReduction::Amin || r == ScatterReduction::Prod) {
        s.self = self;
        s.src = used;
        s.out = out;
      }
      ops::record<OpId::scatter_reduce>({self, used}, {out}, std::move(s));
    }
  }
  return out;
}
}  // namespace

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_common(ops::op_name(OpId::scatter_add_), self, dim, index, src, ScatterReduction::Sum, true,
                        OpId::scatter_add_);
}

// include_self as PyTorch's; "prod" is not implemented yet.
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self) {
  const char* op = ops::op_name(OpId::scatter_reduce);
  ScatterReduction r;
  if (reduce == "sum")
    r = ScatterReduction::Sum;
  else if (reduce == "mean")
    r = ScatterReduction::Mean;
  else if (reduce == "amax")
    r = ScatterReduction::Amax;
  else if (reduce == "amin")
    r = ScatterReduction::Amin;
  else if (reduce == "prod")
    r = ScatterReduction::Prod;
  else
    fail(op, "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
  return scatter_common(op, self, dim, index, src, r, include_self, OpId::scatter_reduce);
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_common(ops::op_name(OpId::scatter_), self, dim, index, src, ScatterReduction::Replace, true,
                        OpId::scatter_);
}
// scatter with reduce="add" or "multiply" (PyTorch's scatter.reduce): no gradient, as PyTorch's.
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  const char* op = ops::op_name(OpId::scatter_);
  ScatterReduction r = ScatterReduction::Sum;
  if (reduce == "multiply")
    r = ScatterReduction::Prod;
  else if (reduce != "add")
    fail(op, "reduce argument must be either add or multiply.");
  if (autograd::any_needs_grad(self, src))
    fail(op,
         "the derivative of scatter with reduce is not implemented (as in PyTorch: \"derivative for aten::scatter is "
         "not implemented\"); call it under no_grad or use scatter_reduce");
  NoGradGuard no_grad;
  return scatter_common(op, self, dim, index, src, r, true, OpId::scatter_reduce);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  const char* op = ops::op_name(OpId::scatter_);
  detail::check_defined(self, op);
  detail::check_defined(index, op, "index");
  return scatter(self, dim, index, full(index.sizes(), value, self.dtype()), reduce);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  const char* op = ops::op_name(OpId::scatter_);
  detail::check_defined(self, op);
  detail::check_defined(index, op, "index");
  const Tensor src = full(index.sizes(), value, self.dtype());
  return scatter_common(op, self, dim, index, src, ScatterReduction::Replace, true, OpId::scatter_);
}

// The in-place forms: computed out of place, then written into self (ops::assign_inplace), each
// named by its row.
Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  const char* op = ops::op_name(OpId::index_add_);
  autograd::check_inplace(*this, op);
  return ops::assign_inplace(*this, ditto::index_add(*this, dim, index, source, alpha), op);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) {
  const char* op = ops::op_name(OpId::scatter_);
  autograd::check_inplace(*this, op);
  return ops::assign_inplace(*this, ditto::scatter(*this, dim, index, src), op);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) {
  const char* op = ops::op_name(OpId::scatter_);
  autograd::check_inplace(*this, op);
  return ops::assign_inplace(*this, ditto::scatter(*this, dim, index, value), op);
}
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) {
  const char* op = ops::op_name(OpId::scatter_add_);
  autograd::check_inplace(*this, op);
  return ops::assign_inplace(*this, ditto::scatter_add(*this, dim, index, src), op);
}

namespace detail {
// index_select's backward: its index was checked by the forward.
Tensor index_add_checked_index(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return index_add_impl(self, dim, index, source, 1, false);
}
}  // namespace detail

}  // namespace ditto
