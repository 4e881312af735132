// scaled_dot_product_attention: argument checks, broadcasting, the fused kernels' dispatch and
// autograd, and the composed path for dropout (cpu/attention.cpp, Note [Attention order]).
#include <cmath>
#include <limits>
#include <string>

#include "autograd/graph.h"
#include "ditto/nn/functional.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using detail::shape_str;
using ops::OpId;

namespace {
constexpr const char* kOp = "scaled_dot_product_attention";

Shape batch_of(const Tensor& t) { return Shape(t.sizes().begin(), t.sizes().end() - 2); }
Shape with(Shape batch, int64_t a, int64_t b) {
  batch.insert(batch.end(), {a, b});
  return batch;
}

// dq, dk, dv of the fused kernel, in the (expanded) shapes of q, k and v.
std::tuple<Tensor, Tensor, Tensor> attention_backward(const Tensor& grad, const Tensor& q, const Tensor& k,
                                                      const Tensor& v, const Tensor& out, const Tensor& lse,
                                                      const Tensor& mask, const AttentionArgs& args) {
  const char* op = ops::op_name(OpId::_scaled_dot_product_flash_attention_backward);
  detail::check_defined(grad, op, "grad_output");
  if (grad.sizes() != out.sizes() || grad.dtype() != out.dtype())
    fail(op, "expected grad_output of shape ", shape_str(out.sizes()), ", got ", shape_str(grad.sizes()));
  Tensor dq = detail::new_tensor(q.sizes(), q.dtype(), op), dk = detail::new_tensor(k.sizes(), k.dtype(), op),
         dv = detail::new_tensor(v.sizes(), v.dtype(), op);
  ops::call<OpId::_scaled_dot_product_flash_attention_backward>(q.device(), dq, dk, dv, grad, q, k, v, out, lse, mask,
                                                                args);
  return {dq, dk, dv};
}
}  // namespace

namespace autograd::formulas {
DITTO_FORMULA(attention, AttentionSaved) {
  auto [dq, dk, dv] =
      attention_backward(g[0], *s.q, *s.k, *s.v, *s.out, *s.lse, s.mask.defined() ? *s.mask : Tensor(), s.args);
  return {dq, dk, dv};
}
}  // namespace autograd::formulas

namespace nn::functional {

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, Generator* gen) {
  detail::check_defined(query, kOp, "query");
  detail::check_defined(key, kOp, "key");
  detail::check_defined(value, kOp, "value");
  if (query.dim() < 2 || key.dim() < 2 || value.dim() < 2)
    fail(kOp, "expected query, key and value to have at least 2 dims, got ", query.dim(), ", ", key.dim(), " and ",
         value.dim());
  if (query.dtype() != key.dtype() || query.dtype() != value.dtype())
    fail(kOp, "Expected query, key, and value to have the same dtype, but got query.dtype: ", dtype_name(query.dtype()),
         " key.dtype: ", dtype_name(key.dtype()), " and value.dtype: ", dtype_name(value.dtype()), " instead.");
  if (!is_floating(query.dtype())) fail(kOp, "expected floating query, key and value, got ", dtype_name(query.dtype()));
  const int64_t L = query.size(-2), E = query.size(-1), S = key.size(-2), Ev = value.size(-1);
  if (key.size(-1) != E)
    fail(kOp, "the head dims of query and key differ: query ", shape_str(query.sizes()), ", key ",
         shape_str(key.sizes()));
  if (value.size(-2) != S)
    fail(kOp, "key and value must have the same sequence length: key ", shape_str(key.sizes()), ", value ",
         shape_str(value.sizes()));
  if (!(dropout_p >= 0 && dropout_p < 1)) fail(kOp, "dropout_p must be in [0, 1), got ", dropout_p);
  const Shape batch =
      detail::broadcast_shapes(detail::broadcast_shapes(batch_of(query), batch_of(key), kOp), batch_of(value), kOp);
  const Shape score_shape = with(batch, L, S);
  if (attn_mask.defined()) {
    if (is_causal) fail(kOp, "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
    if (attn_mask.dtype() != kBool && attn_mask.dtype() != query.dtype())
      fail(kOp, "Expected attn_mask dtype to be bool or to match query dtype, but got attn_mask.dtype: ",
           dtype_name(attn_mask.dtype()), " and  query.dtype: ", dtype_name(query.dtype()), " instead.");
    if (detail::broadcast_shapes(attn_mask.sizes(), score_shape, kOp) != score_shape)
      fail(kOp, "attn_mask of shape ", shape_str(attn_mask.sizes()), " does not broadcast to the scores' shape ",
           shape_str(score_shape));
  }
  const double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(E));
  const bool mask_grad = attn_mask.defined() && autograd::needs_grad(attn_mask);
  if (dropout_p > 0 || mask_grad || S == 0) {
    // the composition (PyTorch 2.x's reference): the dropout mask is drawn on the weights
    Tensor scores = matmul(query, key.transpose(-2, -1)) * sc;
    if (is_causal) scores = scores.masked_fill(triu(ones({L, S}, kBool), 1), -INFINITY);
    if (attn_mask.defined())
      scores =
          attn_mask.dtype() == kBool ? scores.masked_fill(attn_mask.eq(Scalar(false)), -INFINITY) : scores + attn_mask;
    Tensor weights = softmax(scores, -1);
    if (dropout_p > 0) weights = dropout(weights, dropout_p, true, gen);
    return matmul(weights, value);
  }
  const Tensor q = views::expand(query, with(batch, L, E)), k = views::expand(key, with(batch, S, E)),
               v = views::expand(value, with(batch, S, Ev));
  const Tensor mask = attn_mask.defined() ? views::expand(attn_mask.detach(), score_shape) : Tensor();
  Tensor out = detail::new_tensor(with(batch, L, Ev), query.dtype(), kOp);
  Shape lse_shape = batch;
  lse_shape.push_back(L);
  Tensor lse = detail::new_tensor(lse_shape, query.dtype(), kOp);
  const AttentionArgs args{sc, is_causal};
  if (lse.numel() > 0)
    ops::call<OpId::_scaled_dot_product_flash_attention>(query.device(), out, lse, q, k, v, mask, args);
  if (autograd::any_needs_grad(query, key, value))
    ops::record<OpId::_scaled_dot_product_flash_attention>(
        {query, key, value}, {out}, autograd::formulas::AttentionSaved{q, k, v, out, lse, mask, args});
  return out;
}

}  // namespace nn::functional
}  // namespace ditto
