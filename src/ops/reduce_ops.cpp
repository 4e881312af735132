// Public reductions: dims, keepdim, output dtype; the kernels see a (M, R) view whose rows are the
// reduced elements in logical order (Note [Canonical reduction order]).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "autograd/graph.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using ops::OpId;

namespace detail {
Shape reduce_dims(const Shape& dims, int64_t ndim, const char* op) {
  Shape out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim, op);
    if (std::find(out.begin(), out.end(), w) != out.end())
      fail(op, "dim ", w, " appears multiple times in the list of dims");
    out.push_back(w);
  }
  if (ndim == 0) out.clear();
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace detail

namespace {

struct Plan {
  Tensor rows;      // (M, R)
  Shape out_shape;  // with or without kept 1s
  Shape dims;       // normalised reduced dims
  int64_t M = 1, R = 1;
};

// Merges dims [b, e) of v into one (size, stride), or nullopt when their elements are not one
// arithmetic sequence (size-1 dims are skipped).
std::optional<std::pair<int64_t, int64_t>> merged(const Tensor& v, int64_t b, int64_t e) {
  int64_t size = 1, stride = 1;
  bool first = true;
  for (int64_t d = e - 1; d >= b; --d) {
    if (v.size(d) == 1) continue;
    if (!first && v.stride(d) != stride * size) return std::nullopt;
    if (first) stride = v.stride(d), first = false;
    size *= v.size(d);
  }
  return std::make_pair(size, stride);
}

// A reduction over dims that are not one block (a bias gradient's sum over dims 0, 2, 3) would
// copy the input to make its (M, R) rows. Where each row is S segments of L contiguous elements
// instead, the rows are handed to the kernel as an (M, S, L) view (ops/signatures.h), which
// gathers one row at a time into a buffer (or, summing segments that are whole numbers of
// reduction lanes, reads them in place): the same inputs in the same order, without the copy.
// Only for rows of at most 2^20 elements (the kernel's per-thread buffer) and a non-empty input.
std::optional<Tensor> segmented_rows(const Tensor& permuted, int64_t kept, int64_t M) {
  const int64_t nd = permuted.dim();
  if (permuted.numel() == 0 || kept == nd || kept == 0) return std::nullopt;
  const auto m = merged(permuted, 0, kept);
  if (!m) return std::nullopt;
  for (int64_t split = kept + 1; split < nd; ++split) {
    const auto seg = merged(permuted, kept, split), line = merged(permuted, split, nd);
    if (!seg || !line || line->second != 1 || line->first < 2 || seg->first < 2) continue;
    if (seg->first > (int64_t(1) << 20) / line->first) return std::nullopt;
    return detail::make_view(permuted, {M, seg->first, line->first}, {m->second, seg->second, 1},
                             permuted.storage_offset());
  }
  return std::nullopt;
}

Plan plan(const Tensor& x, const Shape& dims_in, bool keepdim, const char* op, bool segments = false) {
  detail::check_defined(x, op);
  const int64_t nd = x.dim();
  const Shape dims = detail::reduce_dims(dims_in, nd, op);
  Shape perm, out_shape;
  Plan p;
  for (int64_t d = 0; d < nd; ++d) {
    const bool red = std::binary_search(dims.begin(), dims.end(), d);
    if (!red) {
      perm.push_back(d);
      out_shape.push_back(x.size(d));
      p.M *= x.size(d);
    } else if (keepdim) {
      out_shape.push_back(1);
    }
  }
  for (int64_t d : dims) {
    perm.push_back(d);
    p.R *= x.size(d);
  }
  p.out_shape = out_shape;
  p.dims = dims;
  const Tensor permuted = x.permute(perm);
  if (segments) {
    if (auto rows = segmented_rows(permuted, nd - static_cast<int64_t>(dims.size()), p.M)) {
      p.rows = *rows;
      return p;
    }
  }
  p.rows = permuted.reshape({p.M, p.R});
  return p;
}

template <OpId id>
Tensor reduce(const Tensor& x, const Shape& dims, bool keepdim, ScalarType out_dtype, const Tensor& source,
              const char* node_name = nullptr) {
  const char* op = ops::op_name(id);
  Plan p;
  {
    NoGradGuard no_grad;  // the (M, R) view is internal
    p = plan(x, dims, keepdim, op, id == OpId::sum || id == OpId::mean);
  }
  Tensor out = detail::new_tensor({p.M}, out_dtype, op).view(p.out_shape);
  ops::call<id>(x.device(), out.view({p.M}), p.rows);
  if (is_floating(out_dtype) && autograd::any_needs_grad(source)) {
    autograd::formulas::ReduceSaved s{x.sizes(), p.dims, keepdim, Tensor(), Tensor()};
    if constexpr (id == OpId::prod || id == OpId::amax || id == OpId::amin) {
      s.x = x;
      s.out = out;
    }
    ops::record<id>({source}, {out}, std::move(s), node_name);
  }
  return out;
}

ScalarType sum_dtype(const Tensor& x, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_floating(x.dtype()) ? x.dtype() : kInt64;
}

void need_float(const Tensor& x, const char* op) {
  if (!is_floating(x.dtype()))
    fail(op, "could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: ",
         dtype_name(x.dtype()));
}

void need_nonempty(const Tensor& x, const Plan& p, const char* op) {
  if (p.R == 0 && p.M > 0)
    fail(op, "expected reduction dim to be specified for input.numel() == 0, or a non-empty reduced dimension");
  // an empty result too: PyTorch still wants every reduced dim of an empty input non-empty
  if (p.M == 0)
    for (int64_t d : p.dims)
      if (x.size(d) == 0) fail(op, "Expected reduction dim ", d, " to have non-zero size.");
}

}  // namespace

// PyTorch names the node of a reduction over everything (no dim argument) *Backward0 and the one
// of a reduction over given dims *Backward1 (the row's name).
Tensor sum(const Tensor& x, std::optional<ScalarType> dtype) {
  detail::check_defined(x, ops::op_name(OpId::sum));
  const ScalarType t = sum_dtype(x, dtype);
  return reduce<OpId::sum>(detail::cast(x, t), {}, false, t, x, "SumBackward0");
}
Tensor sum(const Tensor& x, const DimList& dims, bool keepdim, std::optional<ScalarType> dtype) {
  detail::check_defined(x, ops::op_name(OpId::sum));
  const ScalarType t = sum_dtype(x, dtype);
  return reduce<OpId::sum>(detail::cast(x, t), dims, keepdim, t, x);
}

Tensor mean(const Tensor& x) {
  const char* op = ops::op_name(OpId::mean);
  detail::check_defined(x, op);
  need_float(x, op);
  return reduce<OpId::mean>(x, {}, false, x.dtype(), x, "MeanBackward0");
}
Tensor mean(const Tensor& x, const DimList& dims, bool keepdim) {
  const char* op = ops::op_name(OpId::mean);
  detail::check_defined(x, op);
  need_float(x, op);
  return reduce<OpId::mean>(x, dims, keepdim, x.dtype(), x);
}

Tensor prod(const Tensor& x) {
  detail::check_defined(x, ops::op_name(OpId::prod));
  const ScalarType t = sum_dtype(x, std::nullopt);
  return reduce<OpId::prod>(detail::cast(x, t), {}, false, t, x, "ProdBackward0");
}
Tensor prod(const Tensor& x, int64_t dim, bool keepdim) {
  detail::check_defined(x, ops::op_name(OpId::prod));
  const ScalarType t = sum_dtype(x, std::nullopt);
  return reduce<OpId::prod>(detail::cast(x, t), {dim}, keepdim, t, x);
}

Tensor amax(const Tensor& x, const DimList& dims, bool keepdim) {
  const char* op = ops::op_name(OpId::amax);
  {
    NoGradGuard no_grad;
    need_nonempty(x, plan(x, dims, keepdim, op), op);
  }
  return reduce<OpId::amax>(x, dims, keepdim, x.dtype(), x);
}
Tensor amin(const Tensor& x, const DimList& dims, bool keepdim) {
  const char* op = ops::op_name(OpId::amin);
  {
    NoGradGuard no_grad;
    need_nonempty(x, plan(x, dims, keepdim, op), op);
  }
  return reduce<OpId::amin>(x, dims, keepdim, x.dtype(), x);
}
Tensor max(const Tensor& x) {
  detail::check_defined(x, "max");
  if (x.numel() == 0)
    fail("max",
         "expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' "
         "argument.");
  return amax(x, {}, false);
}
Tensor min(const Tensor& x) {
  detail::check_defined(x, "min");
  if (x.numel() == 0)
    fail("min",
         "expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' "
         "argument.");
  return amin(x, {}, false);
}

namespace {
template <OpId id>
std::pair<Tensor, Tensor> with_index(const Tensor& x, int64_t dim, bool keepdim, const char* op) {
  Plan p;
  {
    NoGradGuard no_grad;
    p = plan(x, {dim}, keepdim, op);
  }
  need_nonempty(x, p, op);
  Tensor values = detail::new_tensor(p.out_shape, x.dtype(), op);
  Tensor indices = detail::new_tensor(p.out_shape, kInt64, op);
  if (p.M > 0) ops::call<id>(x.device(), values.view({p.M}), indices.view({p.M}), p.rows);
  if (is_floating(x.dtype()) && autograd::any_needs_grad(x)) {
    ops::record<id>({x}, {values, indices},
                    autograd::formulas::MaxDimSaved{x.sizes(), p.dims.empty() ? 0 : p.dims[0], keepdim, indices});
  }
  return {values, indices};
}
template <OpId id>
Tensor arg(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  const char* op = ops::op_name(id);
  detail::check_defined(x, op);
  if (x.dtype() == kBool) fail(op, "not implemented for 'Bool'");  // as PyTorch
  if (!dim) {
    if (x.numel() == 0) fail(op, "expected reduction dim to be specified for input.numel() == 0.");
    Tensor flat = x.detach().reshape({1, x.numel()});
    Tensor out = detail::new_tensor({1}, kInt64, op);
    ops::call<id>(x.device(), out, flat);
    return keepdim ? out.view(Shape(x.dim(), 1)) : out.view({});
  }
  Plan p;
  {
    NoGradGuard no_grad;
    p = plan(x, {*dim}, keepdim, op);
  }
  need_nonempty(x, p, op);
  Tensor out = detail::new_tensor({p.M}, kInt64, op);
  if (p.M > 0) ops::call<id>(x.device(), out, p.rows);
  return out.view(p.out_shape);
}
}  // namespace

std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  return with_index<OpId::max_dim>(x, dim, keepdim, "max");
}
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  return with_index<OpId::min_dim>(x, dim, keepdim, "min");
}
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return arg<OpId::argmax>(x, dim, keepdim); }
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return arg<OpId::argmin>(x, dim, keepdim); }

namespace {
Tensor var_impl(const Tensor& x, const Shape& dims, bool unbiased, bool keepdim, bool take_sqrt, const char* op) {
  detail::check_defined(x, op);
  if (!is_floating(x.dtype())) fail(op, "std and var only support floating point and complex dtypes");
  Plan p;
  {
    NoGradGuard no_grad;
    p = plan(x, dims, keepdim, op);
  }
  Tensor out = detail::new_tensor(p.out_shape, x.dtype(), op);
  ops::call<OpId::var>(x.device(), out.view({p.M}), p.rows, unbiased ? 1 : 0, take_sqrt);
  if (autograd::any_needs_grad(x))
    ops::record<OpId::var>(
        {x}, {out}, autograd::formulas::VarSaved{x.sizes(), p.dims, keepdim, take_sqrt, unbiased ? 1 : 0, x, out},
        take_sqrt ? "StdBackward0" : "VarBackward0");
  return out;
}
}  // namespace

Tensor var(const Tensor& x, const DimList& dims, bool unbiased, bool keepdim) {
  return var_impl(x, dims, unbiased, keepdim, false, ops::op_name(OpId::var));
}
Tensor std(const Tensor& x, const DimList& dims, bool unbiased, bool keepdim) {
  return var_impl(x, dims, unbiased, keepdim, true, "std");
}

Tensor logsumexp(const Tensor& x, const DimList& dims, bool keepdim) {
  const char* op = ops::op_name(OpId::logsumexp);
  detail::check_defined(x, op);
  const Tensor xf = is_floating(x.dtype()) ? x : x.to(kFloat32);
  Plan p;
  {
    NoGradGuard no_grad;
    p = plan(xf, dims, keepdim, op);
  }
  Tensor out = detail::new_tensor(p.out_shape, xf.dtype(), op);
  if (p.M > 0) ops::call<OpId::logsumexp>(x.device(), out.view({p.M}), p.rows);
  if (autograd::any_needs_grad(x))
    ops::record<OpId::logsumexp>({xf}, {out}, autograd::formulas::ReduceSaved{xf.sizes(), p.dims, keepdim, xf, out});
  return out;
}

namespace linalg {
Tensor vector_norm(const Tensor& x, const Scalar& ord, const DimList& dims, bool keepdim) {
  const char* op = "linalg.vector_norm";
  detail::check_defined(x, op);
  if (!is_floating(x.dtype()))
    fail(op, "Expected a floating point or complex tensor as input. Got ", ops::aten_type_name(x.dtype()));
  const double p = ord.to_double();
  Plan pl;
  {
    NoGradGuard no_grad;
    pl = plan(x, dims, keepdim, op);
  }
  if (std::isinf(p) && pl.R == 0 && x.numel() == 0) {  // max and min have no identity
    if (static_cast<const Shape&>(dims).empty())
      fail(op, "linalg.vector_norm cannot compute the ", p > 0 ? "inf" : "-inf",
           " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d : pl.dims)
      if (x.size(d) == 0)
        fail(op, "linalg.vector_norm cannot compute the ", p > 0 ? "inf" : "-inf", " norm on the dimension ", d,
             " because this dimension is empty and the operation does not have an identity");
  }
  Tensor out = detail::new_tensor(pl.out_shape, x.dtype(), op);
  if (pl.M > 0) ops::call<OpId::linalg_vector_norm>(x.device(), out.view({pl.M}), pl.rows, ord);
  if (autograd::any_needs_grad(x))
    ops::record<OpId::linalg_vector_norm>({x}, {out},
                                          autograd::formulas::NormSaved{x.sizes(), pl.dims, keepdim, ord, x, out});
  return out;
}
}  // namespace linalg

Tensor norm(const Tensor& x, const Scalar& p, const DimList& dims, bool keepdim) {
  return linalg::vector_norm(x, p, dims, keepdim);
}

namespace {
template <OpId id>
Tensor softmax_impl(const Tensor& x, int64_t dim) {
  const char* op = ops::op_name(id);
  detail::check_defined(x, op);
  if (!is_floating(x.dtype())) fail(op, "expected a floating point input, got ", dtype_name(x.dtype()));
  const int64_t d = detail::wrap_dim(dim, x.dim(), op);
  if (x.numel() == 0) return detail::new_tensor(x.sizes(), x.dtype(), op);
  const Tensor in = x.detach().contiguous();
  Tensor result = detail::new_tensor(x.sizes(), x.dtype(), op);
  ops::call<id>(x.device(), ops::lines(result, d), ops::lines(in, d));
  if (autograd::any_needs_grad(x)) {
    ops::record<id>({x}, {result}, autograd::formulas::SoftmaxSaved{result, d});
  }
  return result;
}
}  // namespace

Tensor softmax(const Tensor& x, int64_t dim) { return softmax_impl<OpId::softmax>(x, dim); }
Tensor log_softmax(const Tensor& x, int64_t dim) { return softmax_impl<OpId::log_softmax>(x, dim); }

}  // namespace ditto
