// Public matrix products (kernels: Note [GEMM accumulation order], cpu/gemm.h).
#include "autograd/graph.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using detail::shape_x;
using ops::OpId;

namespace {
void same_dtype(const Tensor& a, const Tensor& b, const char* op) {
  if (a.dtype() != b.dtype())
    fail(op, "expected both operands to have the same dtype, got ", dtype_name(a.dtype()), " and ",
         dtype_name(b.dtype()));
}
}  // namespace

Tensor bmm(const Tensor& a, const Tensor& b) {
  detail::check_defined(a, "bmm");
  detail::check_defined(b, "bmm");
  if (a.dim() != 3 || b.dim() != 3) fail("bmm", "expected 3-D tensors, got ", a.dim(), "-D and ", b.dim(), "-D");
  if (a.size(0) != b.size(0)) fail("bmm", "batch sizes differ: ", a.size(0), " and ", b.size(0));
  if (a.size(2) != b.size(1))
    fail("bmm", "shapes (", shape_x(a.sizes()), ") and (", shape_x(b.sizes()), ") cannot be multiplied");
  same_dtype(a, b, "bmm");
  Tensor out = detail::new_tensor({a.size(0), a.size(1), b.size(2)}, a.dtype(), "bmm");
  if (out.numel() > 0) ops::call<OpId::bmm>(a.device(), out, a, b);  // an empty batch costs nothing
  if (is_floating(a.dtype()) && autograd::any_needs_grad(a, b)) {
    // the formula skips the gradients nobody wants
    ops::record<OpId::bmm>({a, b}, {out},
                           autograd::formulas::MatmulSaved{a, b, autograd::needs_grad(a), autograd::needs_grad(b)});
  }
  return out;
}

Tensor mm(const Tensor& a, const Tensor& b) {
  detail::check_defined(a, "mm");
  detail::check_defined(b, "mm");
  if (a.dim() != 2 || b.dim() != 2) fail("mm", "expected 2-D tensors, got ", a.dim(), "-D and ", b.dim(), "-D");
  if (a.size(1) != b.size(0))
    fail("mm", "shapes (", shape_x(a.sizes()), ") and (", shape_x(b.sizes()), ") cannot be multiplied");
  same_dtype(a, b, "mm");
  Tensor out = detail::new_tensor({a.size(0), b.size(1)}, a.dtype(), "mm");
  ops::call<OpId::mm>(a.device(), out, a, b);  // the kernel takes 2-D operands as one product
  if (is_floating(a.dtype()) && autograd::any_needs_grad(a, b)) {
    // the formula skips the gradients nobody wants
    ops::record<OpId::mm>({a, b}, {out},
                          autograd::formulas::MatmulSaved{a, b, autograd::needs_grad(a), autograd::needs_grad(b)});
  }
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  detail::check_defined(self, "addmm");
  detail::check_defined(a, "addmm");
  detail::check_defined(b, "addmm");
  if (a.dim() != 2 || b.dim() != 2) fail("addmm", "expected 2-D matrices, got ", a.dim(), "-D and ", b.dim(), "-D");
  if (a.size(1) != b.size(0))
    fail("addmm", "shapes (", shape_x(a.sizes()), ") and (", shape_x(b.sizes()), ") cannot be multiplied");
  same_dtype(a, b, "addmm");
  same_dtype(self, a, "addmm");
  const Shape shape{a.size(0), b.size(1)};
  const Shape bs = detail::broadcast_shapes(self.sizes(), shape, "addmm");
  if (bs != shape)
    fail("addmm", "self of shape ", detail::shape_str(self.sizes()), " cannot be broadcast to ",
         detail::shape_str(shape));
  detail::check_fits(beta, a.dtype(), "addmm");
  detail::check_fits(alpha, a.dtype(), "addmm");
  Tensor out = detail::new_tensor(shape, a.dtype(), "addmm");
  ops::call<OpId::addmm>(a.device(), out, views::expand(self, shape), a, b, beta, alpha);
  if (is_floating(a.dtype()) && autograd::any_needs_grad(self, a, b)) {
    ops::record<OpId::addmm>({self, a, b}, {out},
                             autograd::formulas::AddmmSaved{a, b, beta, alpha, autograd::needs_grad(self),
                                                            autograd::needs_grad(a), autograd::needs_grad(b)});
  }
  return out;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  detail::check_defined(a, "matmul");
  detail::check_defined(b, "matmul");
  const int64_t da = a.dim(), db = b.dim();
  if (da == 0 || db == 0) fail("matmul", "both arguments need at least 1 dimension, got ", da, "-D and ", db, "-D");
  if (da == 1 && db == 1) {
    if (a.size(0) != b.size(0))
      fail("matmul", "inconsistent tensor size, expected tensor [", a.size(0), "] and src [", b.size(0),
           "] to have the same number of elements");
    return mm(a.unsqueeze(0), b.unsqueeze(1)).view({});
  }
  if (da == 2 && db == 1) return mm(a, b.unsqueeze(1)).squeeze(1);
  if (da == 1 && db == 2) return mm(a.unsqueeze(0), b).squeeze(0);
  if (da == 2 && db == 2) return mm(a, b);
  // Batched: (..., n, k) @ (..., k, m) with broadcast batch dims. A 1-D operand gains a dim
  // that is removed again at the end.
  const Tensor A = da == 1 ? a.unsqueeze(0) : a;
  const Tensor B = db == 1 ? b.unsqueeze(1) : b;
  const int64_t n = A.size(-2), k = A.size(-1), k2 = B.size(-2), m = B.size(-1);
  if (k != k2) fail("matmul", "shapes (", shape_x(a.sizes()), ") and (", shape_x(b.sizes()), ") cannot be multiplied");
  const Shape ba(A.sizes().begin(), A.sizes().end() - 2), bb(B.sizes().begin(), B.sizes().end() - 2);
  const Shape batch = detail::broadcast_shapes(ba, bb, "matmul");
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  Shape ea = batch, eb = batch;
  ea.insert(ea.end(), {n, k});
  eb.insert(eb.end(), {k, m});
  Tensor out = bmm(A.expand(ea).reshape({nb, n, k}), B.expand(eb).reshape({nb, k, m}));
  Shape os = batch;
  if (da > 1) os.push_back(n);
  if (db > 1) os.push_back(m);
  return out.view(os);
}

}  // namespace ditto
