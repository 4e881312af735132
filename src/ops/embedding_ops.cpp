// Public embedding ops: a row gather and bags of rows, whose backwards are deterministic on every
// path.
#include "ops/embedding_ops.h"

#include "autograd/graph.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using ops::OpId;

namespace {
// indices as a flat contiguous int64 tensor, every one checked against num.
Tensor checked_indices(const Tensor& indices, int64_t num, const char* op) {
  detail::check_defined(indices, op, "indices");
  if (indices.dtype() != kInt64 && indices.dtype() != kInt32)
    fail(op, "expected indices of dtype int64 or int32, got ", dtype_name(indices.dtype()));
  Tensor flat = indices.reshape({indices.numel()}).to(kInt64).contiguous();
  const int64_t* p = flat.data_ptr<int64_t>();
  const int64_t n = flat.numel();
  const int64_t i = ops::first_out_of_range(p, n, num);
  if (i < n) detail::fail_index(op, "index ", p[i], " is out of range for ", num, " embeddings");
  return flat;
}
}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx) {
  return nn::impl::embedding(weight, indices, padding_idx, ops::op_name(OpId::embedding));
}

Tensor nn::impl::embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, const char* op) {
  detail::check_defined(weight, op, "weight");
  if (weight.dim() != 2) fail(op, "weight must be 2-D (num_embeddings, embedding_dim), got ", weight.dim(), "-D");
  const Tensor flat = checked_indices(indices, weight.size(0), op);
  Tensor out = detail::new_tensor({flat.numel(), weight.size(1)}, weight.dtype(), op);
  ops::call<OpId::embedding>(weight.device(), out, weight, 0, flat);
  if (is_floating(weight.dtype()) && autograd::any_needs_grad(weight)) {
    ops::record<OpId::embedding>({weight}, {out},
                                 autograd::formulas::EmbeddingSaved{flat, weight.size(0), padding_idx});
  }
  Shape shape = indices.sizes();
  shape.push_back(weight.size(1));
  return out.view(shape);
}

Tensor embedding_dense_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx) {
  const char* op = ops::op_name(OpId::embedding_dense_backward);
  detail::check_defined(grad, op, "grad");
  if (!is_floating(grad.dtype())) fail(op, "expected a floating point grad, got ", dtype_name(grad.dtype()));
  const Tensor flat = checked_indices(indices, num_weights, op);
  if (grad.dim() < 1 || grad.numel() != flat.numel() * grad.size(-1))
    fail(op, "grad of shape ", detail::shape_str(grad.sizes()), " does not match ", flat.numel(), " indices");
  const int64_t dim = grad.size(-1);
  Tensor gw = zeros({num_weights, dim}, grad.dtype());
  ops::call<OpId::embedding_dense_backward>(grad.device(), gw, grad.reshape({flat.numel(), dim}).contiguous(), flat,
                                            padding_idx);
  return gw;
}

std::pair<Tensor, Tensor> embedding_bag_bounds(const Tensor& weight, const Tensor& indices, const Tensor& bounds,
                                               std::string_view mode_name, const Tensor& per_sample_weights,
                                               int64_t padding_idx) {
  return nn::impl::embedding_bag_bounds(weight, indices, bounds, mode_name, per_sample_weights, padding_idx,
                                        ops::op_name(OpId::embedding_bag));
}

std::pair<Tensor, Tensor> nn::impl::embedding_bag_bounds(const Tensor& weight, const Tensor& indices,
                                                         const Tensor& bounds, std::string_view mode_name,
                                                         const Tensor& per_sample_weights, int64_t padding_idx,
                                                         const char* op) {
  detail::check_defined(weight, op, "weight");
  detail::check_defined(bounds, op, "bounds");
  if (weight.dim() != 2 || !is_floating(weight.dtype()))
    fail(op, "weight must be a floating 2-D tensor (num_embeddings, embedding_dim), got ", weight.dim(), "-D ",
         dtype_name(weight.dtype()));
  const int64_t mode = mode_name == "sum" ? 0 : mode_name == "mean" ? 1 : mode_name == "max" ? 2 : -1;
  if (mode < 0) fail(op, "mode has to be one of sum, mean or max, got '", mode_name, "'");
  if (indices.defined() && indices.dim() != 1) fail(op, "expected 1-D indices, got ", indices.dim(), "-D");
  const Tensor idx = checked_indices(indices, weight.size(0), op);
  const int64_t L = idx.numel();
  if (bounds.dim() != 1 || bounds.numel() < 1 || bounds.dtype() != kInt64)
    fail(op, "expected bounds of B + 1 int64 values, got ", bounds.dim(), "-D ", dtype_name(bounds.dtype()));
  const Tensor bd = bounds.contiguous();
  const int64_t* b = bd.data_ptr<int64_t>();
  const int64_t B = bd.numel() - 1;
  if (b[0] != 0) fail(op, "bounds[0] has to be 0, got ", b[0]);
  for (int64_t i = 1; i <= B; ++i)
    if (b[i] < b[i - 1] || b[i] > L)
      fail(op, "bounds must be non-decreasing and at most ", L, ", got bounds[", i, "] = ", b[i], " after ", b[i - 1]);
  Tensor psw;
  if (per_sample_weights.defined()) {
    if (mode != 0) fail(op, "per_sample_weights is only supported for mode='sum' (got mode='", mode_name, "')");
    if (per_sample_weights.dtype() != weight.dtype() || per_sample_weights.numel() != L)
      fail(op, "expected per_sample_weights of ", L, " ", dtype_name(weight.dtype()), " values, got ",
           per_sample_weights.numel(), " ", dtype_name(per_sample_weights.dtype()));
    psw = per_sample_weights.detach().reshape({L}).contiguous();
  }
  const int64_t D = weight.size(1);
  const Tensor w = weight.detach().contiguous();
  Tensor out = detail::new_tensor({B, D}, weight.dtype(), op);
  Tensor max_indices = mode == 2 ? detail::new_tensor({B, D}, kInt64, op) : Tensor();
  ops::call<OpId::embedding_bag>(weight.device(), out, max_indices, w, idx, bd, psw, mode, padding_idx);
  const bool psw_grad = per_sample_weights.defined() && autograd::any_needs_grad(per_sample_weights);
  if (autograd::any_needs_grad(weight) || psw_grad) {
    autograd::formulas::EmbeddingBagSaved saved{idx,
                                                bd,
                                                psw,
                                                max_indices,
                                                psw_grad ? w : Tensor(),
                                                per_sample_weights.defined() ? per_sample_weights.sizes() : Shape{},
                                                weight.size(0),
                                                mode,
                                                padding_idx};
    if (per_sample_weights.defined())
      ops::record<OpId::embedding_bag>({weight, per_sample_weights}, {out}, std::move(saved));
    else
      ops::record<OpId::embedding_bag>({weight}, {out}, std::move(saved));
  }
  return {out, max_indices};
}

namespace autograd::formulas {
// The weight's gradient by the owner-computes kernel; per_sample_weights' (sum only) is each kept
// position's row of weight dotted with its bag's gradient (a canonical sum over the row), 0
// elsewhere.
DITTO_FORMULA(embedding_bag, EmbeddingBagSaved) {
  const Tensor go = g[0].contiguous();
  const Tensor& idx = *s.indices;
  const Tensor& bd = *s.bounds;
  Tensor gw = zeros({s.num_weights, go.size(1)}, go.dtype());
  ops::call<ops::OpId::embedding_bag_backward>(go.device(), gw, go, idx, bd, *s.per_sample_weights, *s.max_indices,
                                               s.mode, s.padding_idx);
  if (!s.weight->defined()) return {gw};
  const int64_t L = idx.numel(), B = bd.numel() - 1;
  std::vector<int64_t> bag(static_cast<std::size_t>(L), 0), kept(static_cast<std::size_t>(L), 0);
  const int64_t* b = bd.data_ptr<int64_t>();
  const int64_t* ip = idx.data_ptr<int64_t>();
  for (int64_t k = 0; k < B; ++k)
    for (int64_t p = b[k]; p < b[k + 1]; ++p) bag[p] = k, kept[p] = ip[p] != s.padding_idx;
  const Tensor dots = (go.index_select(0, tensor(bag, kInt64)) * s.weight->index_select(0, idx)).sum({1});
  return {gw, where(tensor(kept, kInt64).ne(0), dots, 0.0).reshape(s.psw_shape)};
}
}  // namespace autograd::formulas

}  // namespace ditto
