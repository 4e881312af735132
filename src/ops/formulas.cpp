// Backward formulas. Broadcasting and dtype are handled by the engine (it sums each gradient
// back to its input's shape and casts it), so formulas return gradients of the op's own shapes.
#include "ops/formulas.h"

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
Shape dims_of(const Saved& s) { return Shape(s.ints.begin() + 1, s.ints.end()); }
}  // namespace

// s.shapes[0] is the input shape for the view ops.
DITTO_FORMULA(view) { return {g[0].reshape(s.shapes[0])}; }
DITTO_FORMULA(transpose) { return {g[0].transpose(s.ints[0], s.ints[1])}; }
DITTO_FORMULA(permute) {
  Shape inv(s.ints.size());
  for (std::size_t i = 0; i < s.ints.size(); ++i) inv[s.ints[i]] = static_cast<int64_t>(i);
  return {g[0].permute(inv)};
}
DITTO_FORMULA(select) {
  Tensor r = zeros(s.shapes[0], g[0].dtype());
  r.select(s.ints[0], s.ints[1]).copy_(g[0]);
  return {r};
}
DITTO_FORMULA(slice) {
  Tensor r = zeros(s.shapes[0], g[0].dtype());
  r.slice(s.ints[0], s.ints[1], s.ints[2], s.ints[3]).copy_(g[0]);
  return {r};
}
DITTO_FORMULA(identity) { return {g[0]}; }

// s.tensors: inputs and/or output as each formula says.
DITTO_FORMULA(neg) { return {-g[0]}; }
DITTO_FORMULA(abs) {
  const Tensor& x = s.tensors[0];
  return {where(x > 0, g[0], where(x < 0, -g[0], zeros_like(g[0])))};
}
DITTO_FORMULA(exp) { return {g[0] * s.tensors[0]}; }         // tensors: out
DITTO_FORMULA(log) { return {g[0] / s.tensors[0]}; }         // tensors: x
DITTO_FORMULA(sqrt) { return {g[0] / (s.tensors[0] * 2)}; }  // tensors: out
DITTO_FORMULA(rsqrt) { return {g[0] * s.tensors[0].pow(3) * -0.5}; }
DITTO_FORMULA(sigmoid) {
  const Tensor& y = s.tensors[0];
  return {g[0] * (1 - y) * y};
}
DITTO_FORMULA(tanh) {
  const Tensor& y = s.tensors[0];
  return {g[0] * (1 - y * y)};
}
DITTO_FORMULA(relu) { return {threshold_backward(g[0], s.tensors[0], 0)}; }  // tensors: out
DITTO_FORMULA(pow_scalar) {
  const Scalar& e = s.scalars[0];
  if (e.to_double() == 0.0) return {zeros_like(g[0])};
  const double e1 = e.to_double() - 1.0;
  return {g[0] * (s.tensors[0].pow(e1) * e)};
}
DITTO_FORMULA(pow_tensor) {  // tensors: a, b, out
  const Tensor &a = s.tensors[0], &b = s.tensors[1], &out = s.tensors[2];
  Tensor ga = g[0] * (b * a.pow(b - 1));
  // d/db a^b = a^b log a; taken as 0 where a == 0 and b >= 0 (PyTorch's convention)
  Tensor gb = where((a == 0) * (b >= 0) > 0, zeros_like(g[0]), g[0] * out * a.log());
  return {ga, gb};
}
DITTO_FORMULA(clamp) {  // tensors: x; scalars: lo, hi; ints: has_lo, has_hi
  const Tensor& x = s.tensors[0];
  Tensor keep = ones_like(x, kBool);
  if (s.ints[0]) keep = keep * (x >= s.scalars[0]);
  if (s.ints[1]) keep = keep * (x <= s.scalars[1]);
  return {where(keep, g[0], zeros_like(g[0]))};
}
DITTO_FORMULA(add) { return {g[0], g[0]}; }
DITTO_FORMULA(add_scaled) { return {g[0], g[0] * s.scalars[0]}; }  // scalars: alpha
DITTO_FORMULA(sub) { return {g[0], -g[0]}; }
// mul and div save an operand only when the other's gradient needs it (undefined otherwise).
DITTO_FORMULA(mul) {
  const Tensor &a = s.tensors[0], &b = s.tensors[1];
  return {b.defined() ? g[0] * b : Tensor(), a.defined() ? g[0] * a : Tensor()};
}
DITTO_FORMULA(div) {
  const Tensor &a = s.tensors[0], &b = s.tensors[1];
  return {g[0] / b, a.defined() ? -g[0] * a / (b * b) : Tensor()};
}
DITTO_FORMULA(where) {  // tensors: cond
  const Tensor& c = s.tensors[0];
  const Tensor z = zeros_like(g[0]);
  return {where(c, g[0], z), where(c, z, g[0])};
}
DITTO_FORMULA(masked_fill) { return {g[0].masked_fill(s.tensors[0], 0)}; }  // tensors: mask (expanded)

// Reductions: shapes[0] input shape; ints = {keepdim, dims...}.
DITTO_FORMULA(sum) { return {unreduce(g[0], s.shapes[0], dims_of(s), s.ints[0])}; }
DITTO_FORMULA(mean) {
  int64_t n = 1;
  for (int64_t d : dims_of(s)) n *= s.shapes[0][d];
  return {unreduce(g[0], s.shapes[0], dims_of(s), s.ints[0]) / static_cast<double>(n)};
}
DITTO_FORMULA(prod) {  // tensors: x, out; ints = {keepdim, dims...} (one dim, or all)
  const Tensor &x = s.tensors[0], &out = s.tensors[1];
  const Shape dims = dims_of(s);
  const bool keep = s.ints[0];
  const bool one_dim = dims.size() == 1 && x.dim() > 1;
  const Tensor gu = unreduce(g[0], s.shapes[0], dims, keep);
  // Without zeros: out / x. A lone zero gets the product of the others; two or more zeros: 0.
  const Tensor is_zero = x == 0;
  const Tensor safe = where(is_zero, ones_like(x), x);
  const Tensor zeros_n = unreduce(sum(is_zero, dims, keep), s.shapes[0], dims, keep);
  const Tensor others = unreduce(one_dim ? prod(safe, dims[0], keep) : prod(safe), s.shapes[0], dims, keep);
  const Tensor ou = unreduce(out, s.shapes[0], dims, keep);
  const Tensor r = where(is_zero, where(zeros_n == 1, others, zeros_like(x)), ou / safe);
  return {gu * r};
}
DITTO_FORMULA(amax) {  // tensors: x, out. Ties share the gradient equally (PyTorch's rule).
  const Tensor &x = s.tensors[0], &out = s.tensors[1];
  const Shape dims = dims_of(s);
  const Tensor hit = (x == unreduce(out, s.shapes[0], dims, s.ints[0])).to(g[0].dtype());
  const Tensor count = unreduce(sum(hit, dims, s.ints[0]), s.shapes[0], dims, s.ints[0]);
  return {unreduce(g[0], s.shapes[0], dims, s.ints[0]) * hit / count};
}
DITTO_FORMULA(max_dim) {  // tensors: indices; ints = {keepdim, dim}
  const int64_t dim = s.ints[1];
  const Shape& shape = s.shapes[0];
  if (shape.empty()) return {g[0].reshape({})};  // a 0-dim input is its own max
  Tensor idx = s.ints[0] ? s.tensors[0] : s.tensors[0].unsqueeze(dim);
  Tensor gv = s.ints[0] ? g[0] : g[0].unsqueeze(dim);
  Shape pos_shape(shape.size(), 1);
  pos_shape[dim] = shape[dim];
  const Tensor pos = arange(shape[dim]).view(pos_shape);
  return {where(pos == idx, gv.expand(shape), zeros(shape, g[0].dtype()))};
}
DITTO_FORMULA(var) {  // tensors: x, out; ints = {keepdim, correction, take_sqrt, dims...}
  const Tensor &x = s.tensors[0], &out = s.tensors[1];
  const Shape dims(s.ints.begin() + 3, s.ints.end());
  int64_t n = 1;
  for (int64_t d : dims) n *= s.shapes[0][d];
  const Tensor mu = mean(x, dims, true);
  Tensor gu = unreduce(g[0], s.shapes[0], dims, s.ints[0]);
  Tensor r = gu * (x - mu) * (2.0 / static_cast<double>(n - s.ints[1]));
  if (s.ints[2]) r = r / (unreduce(out, s.shapes[0], dims, s.ints[0]) * 2);
  return {r};
}
DITTO_FORMULA(softmax) {  // tensors: out; ints: dim
  const Tensor& y = s.tensors[0];
  return {y * (g[0] - sum(g[0] * y, {s.ints[0]}, true))};
}
DITTO_FORMULA(log_softmax) {
  const Tensor& y = s.tensors[0];
  return {g[0] - exp(y) * sum(g[0], {s.ints[0]}, true)};
}
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

DITTO_FORMULA(mm) {  // tensors: a, b; ints: whether a, b need a gradient
  const Tensor &a = s.tensors[0], &b = s.tensors[1];
  return {s.ints[0] ? mm_grad_a(g[0], a, b) : Tensor(), s.ints[1] ? mm_grad_b(g[0], a, b) : Tensor()};
}
DITTO_FORMULA(bmm) {  // tensors: a, b; ints: whether a, b need a gradient
  return {s.ints[0] ? g[0].bmm(s.tensors[1].transpose(1, 2)) : Tensor(),
          s.ints[1] ? s.tensors[0].transpose(1, 2).bmm(g[0]) : Tensor()};
}
DITTO_FORMULA(addmm) {  // tensors: a, b; scalars: beta, alpha; ints: whether self, a, b need a gradient
  const Scalar &beta = s.scalars[0], &alpha = s.scalars[1];
  Tensor gs = !s.ints[0] ? Tensor() : beta.to_double() == 1.0 ? g[0] : g[0] * beta;
  Tensor ga = s.ints[1] ? mm_grad_a(g[0], s.tensors[0], s.tensors[1]) : Tensor();
  Tensor gb = s.ints[2] ? mm_grad_b(g[0], s.tensors[0], s.tensors[1]) : Tensor();
  if (alpha.to_double() != 1.0) {
    if (ga.defined()) ga = ga * alpha;
    if (gb.defined()) gb = gb * alpha;
  }
  return {gs, ga, gb};
}
DITTO_FORMULA(cat) {  // ints = {dim, len0, len1, ...}
  Grads r;
  int64_t off = 0;
  for (std::size_t i = 1; i < s.ints.size(); ++i) {
    r.push_back(g[0].narrow(s.ints[0], off, s.ints[i]));
    off += s.ints[i];
  }
  return r;
}
DITTO_FORMULA(index_select) {  // tensors: index; ints: dim
  Tensor r = zeros(s.shapes[0], g[0].dtype());
  return {detail::index_add_checked_index(r, s.ints[0], s.tensors[0], g[0])};
}
DITTO_FORMULA(gather) {  // tensors: index; ints: dim
  Tensor r = zeros(s.shapes[0], g[0].dtype());
  return {scatter_add(r, s.ints[0], s.tensors[0], g[0])};
}
DITTO_FORMULA(index_add) {  // self, source: tensors index; shapes: source; ints: dim; scalars: alpha
  // (a 0-dim self selects to 0-dim rows: reshaped to source's shape)
  Tensor gs = g[0].index_select(s.ints[0], s.tensors[0]).reshape(s.shapes[0]);
  if (s.scalars[0].to_double() != 1.0) gs = gs * s.scalars[0];
  return {g[0], gs};
}
DITTO_FORMULA(scatter_add) {  // self, src: tensors index; ints: dim
  return {g[0], g[0].gather(s.ints[0], s.tensors[0])};
}

}  // namespace ditto::autograd::formulas
