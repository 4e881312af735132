// Public embedding ops: a row gather whose backward is deterministic on every path.
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
  for (int64_t i = 0, n = flat.numel(); i < n; ++i)
    if (p[i] < 0 || p[i] >= num) detail::fail_index(op, "index ", p[i], " is out of range for ", num, " embeddings");
  return flat;
}
}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx) {
  detail::check_defined(weight, "embedding", "weight");
  if (weight.dim() != 2)
    fail("embedding", "weight must be 2-D (num_embeddings, embedding_dim), got ", weight.dim(), "-D");
  const Tensor flat = checked_indices(indices, weight.size(0), "embedding");
  Tensor out = detail::new_tensor({flat.numel(), weight.size(1)}, weight.dtype(), "embedding");
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
  detail::check_defined(grad, "embedding_dense_backward", "grad");
  if (!is_floating(grad.dtype()))
    fail("embedding_dense_backward", "expected a floating point grad, got ", dtype_name(grad.dtype()));
  const Tensor flat = checked_indices(indices, num_weights, "embedding_dense_backward");
  if (grad.dim() < 1 || grad.numel() != flat.numel() * grad.size(-1))
    fail("embedding_dense_backward", "grad of shape ", detail::shape_str(grad.sizes()), " does not match ",
         flat.numel(), " indices");
  const int64_t dim = grad.size(-1);
  Tensor gw = zeros({num_weights, dim}, grad.dtype());
  ops::call<OpId::embedding_dense_backward>(grad.device(), gw, grad.reshape({flat.numel(), dim}).contiguous(), flat,
                                            padding_idx);
  return gw;
}

}  // namespace ditto
