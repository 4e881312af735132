// Ordering ops: sort, argsort, topk, kthvalue, median, nanmedian and mode, forward and backward. The
// kernels (cpu/sort.cpp) see the input with the op's dim moved last, as a contiguous (M, n)
// tensor, and break ties as PyTorch's CPU kernels do (Note [Ordering ties]). Every gradient goes
// to the elements the op selected (PyTorch's value_selecting_reduction_backward, a scatter into
// zeros); the whole-tensor median's is shared among the elements equal to it.
#include <limits>

#include "autograd/graph.h"
#include "ops/common.h"
#include "ops/formulas.h"

namespace ditto {
using detail::fail;
using ops::OpId;

namespace {
// x with dim d moved last, contiguous, as (M, n); a 0-dim tensor is one line of one.
struct Rows {
  Tensor in;    // (M, n)
  Shape moved;  // x's shape with d swapped to the end
  int64_t d = 0;
};
Rows rows(const Tensor& x, int64_t d) {
  Rows r;
  r.d = d;
  const Tensor t = x.dim() == 0 ? x.view({1}) : x.transpose(d, -1);
  r.moved = t.sizes();
  const int64_t n = r.moved.back();
  r.in = t.contiguous().view({n == 0 ? 0 : t.numel() / n, n});
  return r;
}
// A kernel's (M, m) output back in x's layout: dim d of size m, then keepdim or not.
Tensor unrows(const Tensor& out, const Rows& r, int64_t m, bool keep, bool zero_dim) {
  Shape s = r.moved;
  s.back() = m;
  Tensor t = out.view(s);
  if (zero_dim) return t.view({});
  t = t.transpose(r.d, -1).contiguous();
  return keep ? t : t.squeeze(r.d);
}

int64_t line_length(const Tensor& x, int64_t d) { return x.dim() == 0 ? 1 : x.size(d); }

void no_bool(const Tensor& x, const char* op, const char* kernel) {
  if (x.dtype() == kBool) fail(op, "\"", kernel, "\" not implemented for 'Bool'");
}

// Records the value-selecting backward: indices (in the output's shape) say where each value came from.
template <OpId id>
void record_selection(const Tensor& x, const Tensor& values, const Tensor& indices, int64_t d, bool keepdim,
                      const char* node_name = nullptr) {
  if (is_floating(x.dtype()) && autograd::any_needs_grad(x))
    ops::record<id>({x}, {values, indices}, autograd::formulas::MaxDimSaved{x.sizes(), d, keepdim, indices}, node_name);
}

// median, nanmedian and mode along dim: one value and its index per line.
template <OpId id>
std::pair<Tensor, Tensor> median_dim(const Tensor& x, int64_t dim, bool keepdim) {
  const char* op = ops::op_name(id);
  const bool mode = id == OpId::mode;
  detail::check_defined(x, op);
  const int64_t d = detail::wrap_dim(dim, std::max<int64_t>(x.dim(), 1), op);
  if (!mode) no_bool(x, op, "median_out");
  if (x.dim() > 0 && x.size(d) == 0)
    detail::fail_index(op, mode ? op : ops::op_name(OpId::median), "(): Expected reduction dim ", d,
                       " to have non-zero size.");
  const Rows r = rows(x, d);
  Tensor v = detail::new_tensor({r.in.size(0)}, x.dtype(), op), i = detail::new_tensor({r.in.size(0)}, kInt64, op);
  if (r.in.numel() != 0) ops::call<id>(x.device(), v, i, r.in);
  Tensor values = unrows(v, r, 1, keepdim, x.dim() == 0), indices = unrows(i, r, 1, keepdim, x.dim() == 0);
  record_selection<id>(x, values, indices, d, keepdim || x.dim() == 0);
  return {values, indices};
}

// median() and nanmedian() of every element: the line kernel over the flattened tensor. A NaN
// makes median() the quiet NaN, as PyTorch's; an empty tensor gives NaN (the lowest integer for
// integer dtypes: PyTorch's NaN converted by the CPU).
template <OpId id>
Tensor median_all(const Tensor& x) {
  const char* op = ops::op_name(id);
  detail::check_defined(x, op);
  no_bool(x, op, "median_cpu");
  Tensor out;
  if (x.numel() == 0) {
    out = is_floating(x.dtype()) ? full({}, std::numeric_limits<double>::quiet_NaN(), x.dtype())
          : x.dtype() == kInt32  ? full({}, std::numeric_limits<int32_t>::min(), kInt32)
                                 : full({}, std::numeric_limits<int64_t>::min(), kInt64);
  } else {
    const Tensor flat = x.detach().reshape({1, x.numel()}).contiguous();
    Tensor v = detail::new_tensor({1}, x.dtype(), op), i = detail::new_tensor({1}, kInt64, op);
    ops::call<id>(x.device(), v, i, flat);
    out = v.view({});
    if (id == OpId::median && is_floating(x.dtype()) && out.ne(out).item<bool>())
      out = full({}, std::numeric_limits<double>::quiet_NaN(), x.dtype());
  }
  if (is_floating(x.dtype()) && autograd::any_needs_grad(x))
    ops::record<id>({x}, {out}, autograd::formulas::EvenlySaved{x, out});
  return out;
}
}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  const char* op = ops::op_name(OpId::sort);
  detail::check_defined(x, op);
  const int64_t d = detail::wrap_dim(dim, std::max<int64_t>(x.dim(), 1), op);
  const Rows r = rows(x, d);
  const int64_t n = line_length(x, d);
  Tensor v = detail::new_tensor(r.in.sizes(), x.dtype(), op), i = detail::new_tensor(r.in.sizes(), kInt64, op);
  // a line along a 0 stride holds one value n times: PyTorch leaves it in index order
  const bool repeated = x.dim() > 0 && x.stride(d) == 0;
  if (r.in.numel() != 0) ops::call<OpId::sort>(x.device(), v, i, r.in, descending, stable || repeated);
  Tensor values = unrows(v, r, n, true, x.dim() == 0), indices = unrows(i, r, n, true, x.dim() == 0);
  record_selection<OpId::sort>(x, values, indices, d, true, stable ? "SortBackward1" : nullptr);
  return {values, indices};
}

Tensor argsort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  NoGradGuard no_grad;
  return sort(x, dim, descending, stable).second;
}

std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  const char* op = ops::op_name(OpId::topk);
  detail::check_defined(x, op);
  const int64_t d = detail::wrap_dim(dim, std::max<int64_t>(x.dim(), 1), op);
  const int64_t n = line_length(x, d);
  if (k < 0 || k > n) fail(op, "selected index k out of range");
  no_bool(x, op, "topk_cpu");
  const Rows r = rows(x, d);
  const Shape out{r.in.size(0), k};
  Tensor v = detail::new_tensor(out, x.dtype(), op), i = detail::new_tensor(out, kInt64, op);
  if (r.in.size(0) != 0 && k != 0) ops::call<OpId::topk>(x.device(), v, i, r.in, k, largest, sorted);
  Tensor values = unrows(v, r, k, true, x.dim() == 0), indices = unrows(i, r, k, true, x.dim() == 0);
  record_selection<OpId::topk>(x, values, indices, d, true);
  return {values, indices};
}

std::pair<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
  const char* op = ops::op_name(OpId::kthvalue);
  detail::check_defined(x, op);
  const int64_t d = detail::wrap_dim(dim, std::max<int64_t>(x.dim(), 1), op);
  const int64_t n = line_length(x, d);
  if (x.dim() > 0 && n == 0)
    detail::fail_index(op, "kthvalue(): Expected reduction dim ", d, " to have non-zero size.");
  if (k < 1 || k > n) fail(op, "kthvalue(): selected number k out of range for dimension ", d);
  no_bool(x, op, "kthvalue_cpu");
  const Rows r = rows(x, d);
  Tensor v = detail::new_tensor({r.in.size(0)}, x.dtype(), op);
  Tensor i = detail::new_tensor({r.in.size(0)}, kInt64, op);
  if (r.in.numel() != 0) ops::call<OpId::kthvalue>(x.device(), v, i, r.in, k);
  Tensor values = unrows(v, r, 1, keepdim, x.dim() == 0), indices = unrows(i, r, 1, keepdim, x.dim() == 0);
  record_selection<OpId::kthvalue>(x, values, indices, d, keepdim || x.dim() == 0);
  return {values, indices};
}

std::pair<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim) {
  return median_dim<OpId::median_dim>(x, dim, keepdim);
}
std::pair<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim) {
  return median_dim<OpId::nanmedian_dim>(x, dim, keepdim);
}
std::pair<Tensor, Tensor> mode(const Tensor& x, int64_t dim, bool keepdim) {
  return median_dim<OpId::mode>(x, dim, keepdim);
}
Tensor median(const Tensor& x) { return median_all<OpId::median>(x); }

Tensor nanmedian(const Tensor& x) { return median_all<OpId::nanmedian>(x); }

namespace {
// x's elements (no dim) or its slices along dim as a contiguous (M, K) tensor, and the unique kernel
// of id on it; out's rows back in x's layout.
template <OpId id>
std::tuple<Tensor, Tensor, Tensor> unique_impl(const Tensor& x, bool sorted, bool consecutive, bool return_inverse,
                                               bool return_counts, std::optional<int64_t> dim) {
  const char* op = ops::op_name(id);
  detail::check_defined(x, op);
  Tensor in;
  Shape perm;
  if (!dim) {
    in = x.detach().reshape({x.numel(), 1}).contiguous();
  } else {
    if (x.dim() == 0) detail::fail_index(op, "Dimension specified as ", *dim, " but tensor has no dimensions");
    const int64_t d = detail::wrap_dim(*dim, x.dim(), op);
    int64_t zero_dims = 0;
    for (int64_t s : x.sizes()) zero_dims += s == 0;
    if (zero_dims > 1) fail(op, "Number of zero sized dimensions is more than one, so unique cannot be applied ");
    if (zero_dims == 1 && x.size(d) != 0)
      fail(op, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
    perm.push_back(d);
    for (int64_t i = 0; i < x.dim(); ++i)
      if (i != d) perm.push_back(i);
    const Tensor moved = x.detach().permute(perm).contiguous();
    const int64_t M = x.size(d);
    in = moved.view({M, M == 0 ? 0 : moved.numel() / M});
  }
  const int64_t M = in.size(0);
  Tensor out = detail::new_tensor(in.sizes(), x.dtype(), op), inverse = detail::new_tensor({M}, kInt64, op),
         counts = detail::new_tensor({M}, kInt64, op);
  const int64_t U = ops::call<id>(x.device(), out, inverse, counts, in, sorted, consecutive);
  out = out.slice(0, 0, U);
  counts = counts.slice(0, 0, U);
  if (!dim) {
    out = out.reshape({U});
    inverse = inverse.view(x.sizes());
  } else {
    Shape s = x.permute(perm).sizes();
    s[0] = U;
    Shape back(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) back[static_cast<std::size_t>(perm[i])] = static_cast<int64_t>(i);
    out = out.view(s).permute(back).contiguous();
  }
  if (!return_inverse) inverse = detail::new_tensor({0}, kInt64, op);
  if (!return_counts) counts = detail::new_tensor({0}, kInt64, op);
  return {out, inverse, counts};
}

std::string dims_str(const Tensor& t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
  return s + "]";
}
}  // namespace

Tensor searchsorted(const Tensor& seq, const Tensor& values, bool out_int32, bool right,
                    std::optional<std::string_view> side, const Tensor& sorter) {
  const char* op = ops::op_name(OpId::searchsorted);
  detail::check_defined(seq, op, "sorted_sequence");
  detail::check_defined(values, op, "input");
  if (side && *side != "left" && *side != "right")
    fail(op, "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
  if (side && *side == "left" && right)
    fail(op, "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True");
  const bool is_right = side ? *side == "right" : right;
  if (seq.dim() == 0)
    fail(op, "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  bool rows_match = seq.dim() == 1;
  if (!rows_match && values.dim() == seq.dim()) {
    rows_match = true;
    for (int64_t i = 0; i + 1 < seq.dim(); ++i) rows_match = rows_match && seq.size(i) == values.size(i);
  }
  if (!rows_match)
    fail(op,
         "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
         "tensor and input value tensor must match, but we got boundaries tensor ",
         dims_str(seq), " and input value tensor ", dims_str(values));
  if (sorter.defined()) {
    if (sorter.dtype() != kInt64)
      fail(op, "torch.searchsorted(): sorter must be a tensor of long dtype but got ",
           ops::aten_type_name(sorter.dtype()));
    if (sorter.sizes() != seq.sizes())
      fail(op, "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor ",
           dims_str(seq), " and got sorter tensor ", dims_str(sorter));
  }
  const ScalarType t = result_type(seq, values);
  if (t == kBool) fail(op, "\"searchsorted_out_cpu\" not implemented for 'Bool'");
  const int64_t n = seq.size(-1);
  const Tensor bd = seq.detach().to(t).contiguous().reshape({n == 0 ? 0 : seq.numel() / n, n});
  const int64_t rows = seq.dim() == 1 ? 1 : bd.size(0);
  const int64_t m = seq.dim() == 1 ? values.numel() : (values.dim() == 0 ? 1 : values.size(-1));
  const Tensor v = values.detach().to(t).contiguous().reshape({rows, m});
  Tensor so;
  if (sorter.defined()) {
    so = sorter.contiguous().reshape(bd.sizes());
    NoGradGuard no_grad;
    if (so.numel() > 0 && (amin(so).item<int64_t>() < 0 || amax(so).item<int64_t>() >= n))
      detail::fail_index(op, "torch.searchsorted(): sorter index out of range for a sequence of ", n, " elements");
  }
  Tensor out = detail::new_tensor({rows, m}, kInt64, op);
  if (out.numel() > 0) ops::call<OpId::searchsorted>(seq.device(), out, bd, v, so, is_right);
  out = out.view(values.sizes());
  return out_int32 ? out.to(kInt32) : out;
}

Tensor searchsorted(const Tensor& seq, const Scalar& value, bool out_int32, bool right,
                    std::optional<std::string_view> side, const Tensor& sorter) {
  const char* op = ops::op_name(OpId::searchsorted);
  detail::check_defined(seq, op, "sorted_sequence");
  if (seq.dim() != 1)
    fail(op,
         "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, "
         "but we got boundaries tensor dim(",
         seq.dim(), ") and input value's dim(0) numel(1)");
  return searchsorted(seq, scalar_tensor(value, result_type(seq, value)), out_int32, right, side, sorter);
}

Tensor bucketize(const Tensor& values, const Tensor& boundaries, bool out_int32, bool right) {
  detail::check_defined(boundaries, "bucketize", "boundaries");
  if (boundaries.dim() != 1)
    fail("bucketize", "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return searchsorted(boundaries, values, out_int32, right);
}
Tensor bucketize(const Scalar& value, const Tensor& boundaries, bool out_int32, bool right) {
  detail::check_defined(boundaries, "bucketize", "boundaries");
  if (boundaries.dim() != 1)
    fail("bucketize", "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return searchsorted(boundaries, value, out_int32, right);
}

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool sorted, bool return_inverse, bool return_counts,
                                          std::optional<int64_t> dim) {
  if (dim) return unique_impl<OpId::unique_dim>(x, true, false, return_inverse, return_counts, dim);
  return unique_impl<OpId::unique>(x, sorted, false, return_inverse, return_counts, dim);
}
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  return unique_impl<OpId::unique_consecutive>(x, true, true, return_inverse, return_counts, dim);
}

namespace autograd::formulas {
// PyTorch's value_selecting_reduction_backward: zeros, with each gradient at its value's index.
DITTO_FORMULA(select_values, MaxDimSaved) {
  if (s.input.empty()) return {g[0].reshape({})};
  const Tensor idx = s.keepdim ? *s.indices : s.indices->unsqueeze(s.dim);
  const Tensor gv = s.keepdim ? g[0] : g[0].unsqueeze(s.dim);
  return {scatter(zeros(s.input, g[0].dtype()), s.dim, idx, gv)};
}

// PyTorch's evenly_distribute_backward: the gradient shared among the elements equal to the result
// (the NaNs when it is NaN).
DITTO_FORMULA(evenly, EvenlySaved) {
  const Tensor &x = *s.x, &out = *s.out;
  const bool nan = out.ne(out).item<bool>();
  const Tensor mask = nan ? x.ne(x) : x.eq(out);
  const Tensor share = g[0] / mask.sum();
  return {where(mask, share.expand(x.sizes()), zeros(x.sizes(), g[0].dtype()))};
}
}  // namespace autograd::formulas

}  // namespace ditto
