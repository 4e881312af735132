// Backward formulas of the scatter-style ops (PyTorch's derivatives.yaml). They run scatter_add_,
// index_put_ and index_copy_, whose deterministic kernels the dispatcher picks in deterministic
// mode; put_'s backward uses index_put_, so it has one even though put_ itself is refused.
#include "ditto/factory.h"
#include "ditto/ops.h"
#include "ops/formulas.h"

namespace ditto::autograd::formulas {

DITTO_FORMULA(scatter, DimIndexSaved) {
  return {scatter(g[0], s.dim, *s.index, Scalar(0.0)), g[0].gather(s.dim, *s.index)};
}

DITTO_FORMULA(index_copy, DimIndexSaved) {
  Tensor gsrc = g[0].index_select(s.dim, *s.index);
  return {index_copy(g[0], s.dim, *s.index, zeros_like(gsrc)), gsrc};
}

DITTO_FORMULA(index_put, IndexPutSaved) {
  const Tensor gm = g[0].reshape(s.self_rows);
  Tensor gv = gm.index_select(0, *s.index);
  if (s.accumulate) return {g[0], gv};
  return {index_put(gm, {*s.index}, zeros_like(gv), false).reshape(g[0].sizes()), gv};
}

DITTO_FORMULA(put, PutSaved) {
  const Tensor gf = g[0].reshape({-1});
  Tensor gsrc = gf.index_select(0, *s.index);
  if (s.accumulate) return {g[0], gsrc};
  return {index_put(gf, {*s.index}, zeros_like(gsrc), false).reshape(g[0].sizes()), gsrc};
}

// amax/amin share the gradient equally among the values equal to the result.
DITTO_FORMULA(scatter_reduce, ScatterReduceSaved) {
  const int64_t dim = s.dim;
  const ScatterReduction r = s.reduce;
  const bool include_self = s.include_self;
  const Tensor& index = *s.index;
  const Tensor& grad = g[0];
  Tensor scattered;  // positions that received a value
  if (!include_self) scattered = scatter_add(zeros_like(grad), dim, index, ones(index.sizes(), grad.dtype())).gt(0.0);
  Tensor gself, gsrc;
  if (r == ScatterReduction::Sum) {
    gself = grad;
    gsrc = grad.gather(dim, index);
  } else if (r == ScatterReduction::Mean) {
    Tensor n =
        scatter_add(include_self ? ones_like(grad) : zeros_like(grad), dim, index, ones(index.sizes(), grad.dtype()));
    n = n.masked_fill(n.eq(0.0), 1.0);
    gself = grad / n;
    gsrc = gself.gather(dim, index);
  } else if (r == ScatterReduction::Prod) {  // PyTorch's: the zeros of self and src taken apart
    const Tensor &self = *s.self, &src = *s.src, &out = *s.out;
    const Tensor masked_self = self.masked_fill(self.eq(0.0), 1.0);
    gself = grad * scatter_reduce(masked_self, dim, index, src, "prod", include_self) / masked_self;
    const Tensor src_zero = src.eq(0.0);
    const Tensor zeros_there = scatter_add(zeros_like(self), dim, index, src_zero.to(self.dtype())).gather(dim, index);
    const Tensor single_zero = where(src_zero, zeros_there.eq(1.0), false);
    const Tensor without_it = scatter_reduce(self, dim, index, src.masked_fill(single_zero, 1.0), "prod", include_self);
    gsrc = where(single_zero, (grad * without_it).gather(dim, index),
                 (grad * out).gather(dim, index) / src.masked_fill(src_zero, 1.0));
  } else {
    const Tensor &self = *s.self, &src = *s.src, &out = *s.out;
    Tensor self_is = self.eq(out);
    if (!include_self) self_is = self_is.masked_fill(scattered, false);
    const Tensor src_is = src.eq(out.gather(dim, index));
    const Tensor n = scatter_add(self_is.to(grad.dtype()), dim, index, src_is.to(grad.dtype()));
    const Tensor share = grad / n;
    return {where(self_is, share, 0.0), where(src_is, share.gather(dim, index), 0.0)};
  }
  if (!include_self) gself = gself.masked_fill(scattered, 0.0);
  return {gself, gsrc};
}

}  // namespace ditto::autograd::formulas
