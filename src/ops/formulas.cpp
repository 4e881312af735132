// Backward formulas. Broadcasting and dtype are handled by the engine (it sums each gradient
// back to its input's shape and casts it), so formulas return gradients of the op's own shapes.
#include "ops/formulas.h"

#include <cmath>

#include "ditto/factory.h"
#include "ditto/ops.h"
#include "ops/common.h"

namespace ditto::autograd::formulas {
namespace {
// grad of a reduction, made the input's shape again (reduced dims back as size 1, expanded).
Tensor unreduce(const Tensor& grad, const Shape& shape, const Shape& dims, bool keepdim) {
  Shape k = shape;
  for (int64_t d : dims) k[d] = 1;
  return grad.reshape(k).expand(shape);
}
}  // namespace

DITTO_FORMULA(view, InputShape) { return {g[0].reshape(s.input)}; }
DITTO_FORMULA(transpose, TransposeSaved) { return {g[0].transpose(s.d0, s.d1)}; }
DITTO_FORMULA(permute, PermuteSaved) {
  Shape inv(s.dims.size());
  for (std::size_t i = 0; i < s.dims.size(); ++i) inv[s.dims[i]] = static_cast<int64_t>(i);
  return {g[0].permute(inv)};
}
DITTO_FORMULA(select, SelectSaved) {
  Tensor r = zeros(s.input, g[0].dtype());
  r.select(s.dim, s.index).copy_(g[0]);
  return {r};
}
DITTO_FORMULA(slice, SliceSaved) {
  Tensor r = zeros(s.input, g[0].dtype());
  r.slice(s.dim, s.start, s.end, s.step).copy_(g[0]);
  return {r};
}
DITTO_FORMULA(identity, NoSaved) { return {g[0]}; }

DITTO_FORMULA(neg, NoSaved) { return {-g[0]}; }
DITTO_FORMULA(abs, SavedInput) {
  const Tensor& x = *s.x;
  return {where(x > 0, g[0], where(x < 0, -g[0], zeros_like(g[0])))};
}
DITTO_FORMULA(flat, NoSaved) { return {zeros_like(g[0])}; }  // flat everywhere (sign: 0 at 0, as PyTorch)
// PyTorch's derivatives.yaml, in its order of operations
DITTO_FORMULA(sin, SavedInput) { return {g[0] * s.x->cos()}; }
DITTO_FORMULA(cos, SavedInput) { return {g[0] * -s.x->sin()}; }
DITTO_FORMULA(erf, SavedInput) { return {2.0 / std::sqrt(M_PI) * exp(-s.x->pow(2)) * g[0]}; }
DITTO_FORMULA(log1p, SavedInput) { return {g[0] / (*s.x + 1)}; }
DITTO_FORMULA(expm1, SavedOutput) { return {g[0] * (*s.out + 1)}; }
DITTO_FORMULA(reciprocal, SavedOutput) { return {-(g[0] * (*s.out * *s.out))}; }  // PyTorch: -grad * (result * result)
// maximum / minimum: the gradient goes to the larger (smaller) operand, halved on ties
DITTO_FORMULA(maximum, BinarySaved) {
  const Tensor &a = *s.a, &b = *s.b;
  const Tensor shared = where(a == b, g[0] / 2, g[0]);
  return {shared.masked_fill(a < b, 0), shared.masked_fill(a > b, 0)};
}
DITTO_FORMULA(minimum, BinarySaved) {
  const Tensor &a = *s.a, &b = *s.b;
  const Tensor shared = where(a == b, g[0] / 2, g[0]);
  return {shared.masked_fill(a > b, 0), shared.masked_fill(a < b, 0)};
}
DITTO_FORMULA(fmod, BinarySaved) { return {g[0], -g[0] * (*s.a / *s.b).trunc()}; }
DITTO_FORMULA(remainder, BinarySaved) { return {g[0], -g[0] * (*s.a / *s.b).floor()}; }
DITTO_FORMULA(exp, SavedOutput) { return {g[0] * *s.out}; }
DITTO_FORMULA(log, SavedInput) { return {g[0] / *s.x}; }
DITTO_FORMULA(sqrt, SavedOutput) { return {g[0] / (*s.out * 2)}; }
DITTO_FORMULA(rsqrt, SavedOutput) { return {g[0] * s.out->pow(3) * -0.5}; }
DITTO_FORMULA(sigmoid, SavedOutput) {
  const Tensor& y = *s.out;
  return {g[0] * (1 - y) * y};
}
DITTO_FORMULA(tanh, SavedOutput) {
  const Tensor& y = *s.out;
  return {g[0] * (1 - y * y)};
}
DITTO_FORMULA(relu, SavedOutput) { return {threshold_backward(g[0], *s.out, 0)}; }
DITTO_FORMULA(pow_scalar, PowScalarSaved) {
  const Scalar& e = s.exponent;
  if (e.to_double() == 0.0) return {zeros_like(g[0])};
  const double e1 = e.to_double() - 1.0;
  return {g[0] * (s.x->pow(e1) * e)};
}
DITTO_FORMULA(pow_tensor, PowTensorSaved) {
  const Tensor &a = *s.a, &b = *s.b, &out = *s.out;
  Tensor ga = g[0] * (b * a.pow(b - 1));
  // d/db a^b = a^b log a; taken as 0 where a == 0 and b >= 0 (PyTorch's convention)
  Tensor gb = where((a == 0) * (b >= 0) > 0, zeros_like(g[0]), g[0] * out * a.log());
  return {ga, gb};
}
DITTO_FORMULA(clamp, ClampSaved) {
  const Tensor& x = *s.x;
  Tensor keep = ones_like(x, kBool);
  if (s.lo) keep = keep * (x >= *s.lo);
  if (s.hi) keep = keep * (x <= *s.hi);
  return {where(keep, g[0], zeros_like(g[0]))};
}
DITTO_FORMULA(add, NoSaved) { return {g[0], g[0]}; }
DITTO_FORMULA(add_scaled, AddScaledSaved) { return {g[0], g[0] * s.alpha}; }
DITTO_FORMULA(sub, NoSaved) { return {g[0], -g[0]}; }
DITTO_FORMULA(mul, BinarySaved) {
  return {s.b.defined() ? g[0] * *s.b : Tensor(), s.a.defined() ? g[0] * *s.a : Tensor()};
}
DITTO_FORMULA(div, BinarySaved) {
  const Tensor& b = *s.b;
  return {g[0] / b, s.a.defined() ? -g[0] * *s.a / (b * b) : Tensor()};
}
DITTO_FORMULA(where, WhereSaved) {
  const Tensor& c = *s.cond;
  const Tensor z = zeros_like(g[0]);
  return {where(c, g[0], z), where(c, z, g[0])};
}
DITTO_FORMULA(masked_fill, MaskSaved) { return {g[0].masked_fill(*s.mask, 0)}; }

DITTO_FORMULA(sum, ReduceSaved) { return {unreduce(g[0], s.input, s.dims, s.keepdim)}; }
DITTO_FORMULA(mean, ReduceSaved) {
  int64_t n = 1;
  for (int64_t d : s.dims) n *= s.input[d];
  return {unreduce(g[0], s.input, s.dims, s.keepdim) / static_cast<double>(n)};
}
DITTO_FORMULA(prod, ReduceSaved) {  // one dim, or all
  const Tensor &x = *s.x, &out = *s.out;
  const Shape& dims = s.dims;
  const bool keep = s.keepdim;
  const bool one_dim = dims.size() == 1 && x.dim() > 1;
  const Tensor gu = unreduce(g[0], s.input, dims, keep);
  // Without zeros: out / x. A lone zero gets the product of the others; two or more zeros: 0.
  const Tensor is_zero = x == 0;
  const Tensor safe = where(is_zero, ones_like(x), x);
  const Tensor zeros_n = unreduce(sum(is_zero, dims, keep), s.input, dims, keep);
  const Tensor others = unreduce(one_dim ? prod(safe, dims[0], keep) : prod(safe), s.input, dims, keep);
  const Tensor ou = unreduce(out, s.input, dims, keep);
  const Tensor r = where(is_zero, where(zeros_n == 1, others, zeros_like(x)), ou / safe);
  return {gu * r};
}
DITTO_FORMULA(amax, ReduceSaved) {  // Ties share the gradient equally (PyTorch's rule).
  const Tensor &x = *s.x, &out = *s.out;
  const Tensor hit = (x == unreduce(out, s.input, s.dims, s.keepdim)).to(g[0].dtype());
  const Tensor count = unreduce(sum(hit, s.dims, s.keepdim), s.input, s.dims, s.keepdim);
  return {unreduce(g[0], s.input, s.dims, s.keepdim) * hit / count};
}
DITTO_FORMULA(max_dim, MaxDimSaved) {
  const int64_t dim = s.dim;
  const Shape& shape = s.input;
  if (shape.empty()) return {g[0].reshape({})};  // a 0-dim input is its own max
  Tensor idx = s.keepdim ? *s.indices : s.indices->unsqueeze(dim);
  Tensor gv = s.keepdim ? g[0] : g[0].unsqueeze(dim);
  Shape pos_shape(shape.size(), 1);
  pos_shape[dim] = shape[dim];
  const Tensor pos = arange(shape[dim]).view(pos_shape);
  return {where(pos == idx, gv.expand(shape), zeros(shape, g[0].dtype()))};
}
DITTO_FORMULA(var, VarSaved) {
  const Tensor &x = *s.x, &out = *s.out;
  int64_t n = 1;
  for (int64_t d : s.dims) n *= s.input[d];
  const Tensor mu = mean(x, s.dims, true);
  Tensor gu = unreduce(g[0], s.input, s.dims, s.keepdim);
  Tensor r = gu * (x - mu) * (2.0 / static_cast<double>(n - s.correction));
  if (s.take_sqrt) r = r / (unreduce(out, s.input, s.dims, s.keepdim) * 2);
  return {r};
}
// PyTorch's logsumexp_backward: g * exp(x - result)
DITTO_FORMULA(logsumexp, ReduceSaved) {
  return {unreduce(g[0], s.input, s.dims, s.keepdim) * exp(*s.x - unreduce(*s.out, s.input, s.dims, s.keepdim))};
}
// PyTorch's norm_backward: 0 where the norm is 0; ord inf / -inf share the gradient among the
// elements of largest (smallest) magnitude, NaNs counted among them.
DITTO_FORMULA(vector_norm, NormSaved) {
  const Tensor& x = *s.x;
  const double p = s.ord.to_double();
  const Tensor gu = unreduce(g[0], s.input, s.dims, s.keepdim), norm = unreduce(*s.out, s.input, s.dims, s.keepdim);
  if (p == 0) return {zeros_like(x)};
  if (p == 1) return {x.sign() * gu};
  if (p == 2) return {gu * (x / norm).masked_fill(norm == 0, 0)};
  if (std::isinf(p)) {
    const Tensor mag = x.abs();
    const Tensor hit = (mag == norm) + (mag != mag);
    const Tensor count = unreduce(sum(hit, s.dims, s.keepdim), s.input, s.dims, s.keepdim).to(x.dtype());
    return {x.sign() * ((gu / count) * hit)};
  }
  if (p < 1) {
    const Tensor scaled = x.sign() * x.abs().pow(p - 1).masked_fill(x == 0, 0);
    return {scaled * gu * norm.pow(1 - p)};
  }
  const Tensor scaled = p < 2 ? x.sign() * x.abs().pow(p - 1) : x * x.abs().pow(p - 2);
  return {scaled * (gu / norm.pow(p - 1)).masked_fill(norm == 0, 0)};
}

namespace {
// softmax's and log_softmax's gradient in one pass (cpu/reduce.cpp): softmax's is
// y * (g - sum(g * y, dim)), log_softmax's g - exp(y) * sum(g, dim), with sum's canonical order.
template <ops::OpId id>
Tensor softmax_grad(const SoftmaxSaved& s, const Tensor& g) {
  const Tensor& y = *s.out;
  const Tensor gc = g.contiguous();
  Tensor gi = detail::new_tensor(y.sizes(), y.dtype(), ops::op_name(id));
  ops::call<id>(y.device(), ops::lines(gi, s.dim), ops::lines(gc, s.dim), ops::lines(y, s.dim));
  return gi;
}
}  // namespace
DITTO_FORMULA(softmax, SoftmaxSaved) { return {softmax_grad<ops::OpId::softmax_backward>(s, g[0])}; }
DITTO_FORMULA(log_softmax, SoftmaxSaved) { return {softmax_grad<ops::OpId::log_softmax_backward>(s, g[0])}; }
namespace {
// Gradients of a (M, K) and b (K, N) in c = a @ b, laid out like a and b: a transposed view
// (a weight used as w.t()) gets its gradient computed transposed, so the transpose's backward
// hands a contiguous tensor to the leaf and nothing is copied. Each element is the same fma
// chain either way (the two factors of a product are only swapped), so the bits are the same.
bool transposed(const Tensor& t) { return t.dim() == 2 && t.stride(0) == 1 && t.stride(1) != 1; }
Tensor mm_grad_a(const Tensor& g, const Tensor& a, const Tensor& b) {
  return transposed(a) ? b.mm(g.t()).t() : g.mm(b.t());
}
Tensor mm_grad_b(const Tensor& g, const Tensor& a, const Tensor& b) {
  return transposed(b) ? g.t().mm(a).t() : a.t().mm(g);
}
}  // namespace

DITTO_FORMULA(mm, MatmulSaved) {
  const Tensor &a = *s.a, &b = *s.b;
  return {s.grad_a ? mm_grad_a(g[0], a, b) : Tensor(), s.grad_b ? mm_grad_b(g[0], a, b) : Tensor()};
}
DITTO_FORMULA(bmm, MatmulSaved) {
  return {s.grad_a ? g[0].bmm(s.b->transpose(1, 2)) : Tensor(), s.grad_b ? s.a->transpose(1, 2).bmm(g[0]) : Tensor()};
}
DITTO_FORMULA(addmm, AddmmSaved) {
  const Scalar &beta = s.beta, &alpha = s.alpha;
  Tensor gs = !s.grad_self ? Tensor() : beta.to_double() == 1.0 ? g[0] : g[0] * beta;
  Tensor ga = s.grad_a ? mm_grad_a(g[0], *s.a, *s.b) : Tensor();
  Tensor gb = s.grad_b ? mm_grad_b(g[0], *s.a, *s.b) : Tensor();
  if (alpha.to_double() != 1.0) {
    if (ga.defined()) ga = ga * alpha;
    if (gb.defined()) gb = gb * alpha;
  }
  return {gs, ga, gb};
}
DITTO_FORMULA(cat, CatSaved) {
  Grads r;
  int64_t off = 0;
  for (int64_t len : s.lengths) {
    r.push_back(g[0].narrow(s.dim, off, len));
    off += len;
  }
  return r;
}
DITTO_FORMULA(index_select, IndexSaved) {
  Tensor r = zeros(s.input, g[0].dtype());
  return {detail::index_add_checked_index(r, s.dim, *s.index, g[0])};
}
DITTO_FORMULA(gather, IndexSaved) {
  Tensor r = zeros(s.input, g[0].dtype());
  const Tensor& index = *s.index;
  if (r.dim() == 0 || index.dim() == 0 || index.numel() == 0) return {scatter_add(r, s.dim, index, g[0])};
  // the forward checked every index: scatter straight into the new zeros, without scatter_add's copy
  ops::call<ops::OpId::scatter_add_>(r.device(), r, s.dim, index, g[0]);
  return {r};
}
DITTO_FORMULA(index_add, IndexAddSaved) {
  // (a 0-dim self selects to 0-dim rows: reshaped to source's shape)
  Tensor gs = g[0].index_select(s.dim, *s.index).reshape(s.source);
  if (s.alpha.to_double() != 1.0) gs = gs * s.alpha;
  return {g[0], gs};
}
DITTO_FORMULA(scatter_add, DimIndexSaved) { return {g[0], g[0].gather(s.dim, *s.index)}; }

}  // namespace ditto::autograd::formulas
