// Public matrix products (kernels: Note [GEMM accumulation order], cpu/gemm.h) and the ops made of
// them: baddbmm, outer, einsum.
#include <algorithm>
#include <string>

#include "autograd/graph.h"
#include "core/checked.h"
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
  const char* op = ops::op_name(OpId::bmm);
  detail::check_defined(a, op);
  detail::check_defined(b, op);
  if (a.dim() != 3 || b.dim() != 3) fail(op, "expected 3-D tensors, got ", a.dim(), "-D and ", b.dim(), "-D");
  if (a.size(0) != b.size(0)) fail(op, "batch sizes differ: ", a.size(0), " and ", b.size(0));
  if (a.size(2) != b.size(1))
    fail(op, "shapes (", shape_x(a.sizes()), ") and (", shape_x(b.sizes()), ") cannot be multiplied");
  same_dtype(a, b, op);
  Tensor out = detail::new_tensor({a.size(0), a.size(1), b.size(2)}, a.dtype(), op);
  if (out.numel() > 0) ops::call<OpId::bmm>(a.device(), out, a, b);  // an empty batch costs nothing
  if (is_floating(a.dtype()) && autograd::any_needs_grad(a, b)) {
    // the formula skips the gradients nobody wants
    ops::record<OpId::bmm>({a, b}, {out},
                           autograd::formulas::MatmulSaved{a, b, autograd::needs_grad(a), autograd::needs_grad(b)});
  }
  return out;
}

Tensor mm(const Tensor& a, const Tensor& b) {
  const char* op = ops::op_name(OpId::mm);
  detail::check_defined(a, op);
  detail::check_defined(b, op);
  if (a.dim() != 2 || b.dim() != 2) fail(op, "expected 2-D tensors, got ", a.dim(), "-D and ", b.dim(), "-D");
  if (a.size(1) != b.size(0))
    fail(op, "shapes (", shape_x(a.sizes()), ") and (", shape_x(b.sizes()), ") cannot be multiplied");
  same_dtype(a, b, op);
  Tensor out = detail::new_tensor({a.size(0), b.size(1)}, a.dtype(), op);
  ops::call<OpId::mm>(a.device(), out, a, b);  // the kernel takes 2-D operands as one product
  if (is_floating(a.dtype()) && autograd::any_needs_grad(a, b)) {
    // the formula skips the gradients nobody wants
    ops::record<OpId::mm>({a, b}, {out},
                          autograd::formulas::MatmulSaved{a, b, autograd::needs_grad(a), autograd::needs_grad(b)});
  }
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  const char* op = ops::op_name(OpId::addmm);
  detail::check_defined(self, op);
  detail::check_defined(a, op);
  detail::check_defined(b, op);
  if (a.dim() != 2 || b.dim() != 2) fail(op, "expected 2-D matrices, got ", a.dim(), "-D and ", b.dim(), "-D");
  if (a.size(1) != b.size(0))
    fail(op, "shapes (", shape_x(a.sizes()), ") and (", shape_x(b.sizes()), ") cannot be multiplied");
  same_dtype(a, b, op);
  same_dtype(self, a, op);
  const Shape shape{a.size(0), b.size(1)};
  const Shape bs = detail::broadcast_shapes(self.sizes(), shape, op);
  if (bs != shape)
    fail(op, "self of shape ", detail::shape_str(self.sizes()), " cannot be broadcast to ", detail::shape_str(shape));
  detail::check_fits(beta, a.dtype(), op);
  detail::check_fits(alpha, a.dtype(), op);
  Tensor out = detail::new_tensor(shape, a.dtype(), op);
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

Tensor baddbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) {
  detail::check_defined(self, "baddbmm");
  detail::check_defined(b1, "baddbmm", "batch1");
  detail::check_defined(b2, "baddbmm", "batch2");
  if (b1.dim() != 3) fail("baddbmm", "batch1 must be a 3D tensor");
  if (b2.dim() != 3) fail("baddbmm", "batch2 must be a 3D tensor");
  same_dtype(self, b1, "baddbmm");
  const Shape shape{b1.size(0), b1.size(1), b2.size(2)};
  if (detail::broadcast_shapes(self.sizes(), shape, "baddbmm") != shape)
    fail("baddbmm", "self of shape ", detail::shape_str(self.sizes()), " cannot be broadcast to ",
         detail::shape_str(shape));
  // integer products take beta and alpha converted to the integer type (truncated), as PyTorch
  detail::check_fits(beta, b1.dtype(), "baddbmm");
  detail::check_fits(alpha, b1.dtype(), "baddbmm");
  const bool integral = !is_floating(b1.dtype());
  const Scalar be = integral ? Scalar(beta.to<int64_t>()) : beta, al = integral ? Scalar(alpha.to<int64_t>()) : alpha;
  Tensor product = bmm(b1, b2);
  if (al.to_double() != 1.0) product = product * al;
  if (be.to_double() == 0.0) return product.expand(shape);  // self is not read (NaNs in it do not propagate)
  return (be.to_double() == 1.0 ? self : self * be) + product;
}

Tensor outer(const Tensor& a, const Tensor& b) {
  detail::check_defined(a, "outer");
  detail::check_defined(b, "outer");
  if (a.dim() != 1) fail("outer", "outer: Expected 1-D argument self, but got ", a.dim(), "-D");
  if (b.dim() != 1) fail("outer", "outer: Expected 1-D argument vec2, but got ", b.dim(), "-D");
  return a.reshape({-1, 1}) * b;
}

// --- einsum
namespace {
// A labelled operand: dims[i] carries label labels[i] (0-51 for a-zA-Z; 52 + j for the j-th
// broadcast dim of "...", counted from the left of the widest ellipsis).
struct Term {
  Tensor t;
  std::vector<int> labels;
};

int label_of(char c) { return c >= 'a' && c <= 'z' ? c - 'a' : c >= 'A' && c <= 'Z' ? 26 + (c - 'A') : -1; }
char label_char(int l) { return static_cast<char>(l < 26 ? 'a' + l : 'A' + (l - 26)); }
constexpr int kEllipsis = 52;

struct Subscripts {
  std::vector<int> labels;  // letters in order; kEllipsis marks where "..." stands
  bool ellipsis = false;
};

// One operand's or the output's subscripts: letters and at most one "...".
Subscripts parse_subscripts(std::string_view s, std::size_t offset, bool output) {
  Subscripts r;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      if (r.ellipsis || s.substr(i, 3) != "...")
        fail("einsum", "einsum(): found '.' for ", output ? "output" : "operand", " that is not part of any ellipsis");
      r.ellipsis = true;
      r.labels.push_back(kEllipsis);
      i += 2;
      continue;
    }
    const int l = label_of(s[i]);
    if (l < 0)
      fail("einsum", "einsum(): invalid subscript given at index ", offset + i,
           " in the equation string, subscripts must be in [a-zA-Z]");
    r.labels.push_back(l);
  }
  return r;
}

// A label repeated within one operand ("ii->i") takes the diagonal: the elements whose indices
// agree, through where (the others replaced by exact zeros) and a sum over the second dim, so the
// values and gradients are exact.
Term diagonals(Term x, std::size_t operand) {
  for (std::size_t i = 0; i < x.labels.size(); ++i) {
    for (std::size_t j = i + 1; j < x.labels.size();) {
      if (x.labels[j] != x.labels[i]) {
        ++j;
        continue;
      }
      const auto di = static_cast<int64_t>(i), dj = static_cast<int64_t>(j);
      const int64_t n = x.t.size(di);
      if (x.t.size(dj) != n)
        fail("einsum", "einsum(): subscript ", label_char(x.labels[i]), " is repeated for operand ", operand,
             " but the sizes don't match, ", x.t.size(dj), " != ", n);
      Shape ri(static_cast<std::size_t>(x.t.dim()), 1), rj = ri;
      ri[i] = n;
      rj[j] = n;
      const Tensor on_diagonal = arange(n, kInt64).view(ri) == arange(n, kInt64).view(rj);
      x.t = sum(where(on_diagonal, x.t, zeros({}, x.t.dtype())), {dj}, false, x.t.dtype());
      x.labels.erase(x.labels.begin() + static_cast<std::ptrdiff_t>(j));
    }
  }
  return x;
}

// The term contracted down to the labels in `keep` (the others summed), with its dims permuted
// to `order` where given.
Term sum_out(Term x, const std::vector<bool>& keep) {
  Shape dims;
  std::vector<int> rest;
  for (std::size_t i = 0; i < x.labels.size(); ++i) {
    if (keep[static_cast<std::size_t>(x.labels[i])])
      rest.push_back(x.labels[i]);
    else
      dims.push_back(static_cast<int64_t>(i));
  }
  if (dims.empty()) return x;
  return {sum(x.t, dims), rest};  // an integer sum is int64, as PyTorch's einsum gives it
}

// a and b contracted into one term keeping the labels in `keep`: batch labels (in both, kept),
// contracted (in both, not kept), and each side's own, as one bmm of (batch, own_a, contracted) by
// (batch, contracted, own_b). A size-1 dim broadcasts against the other side's size.
Term contract(Term a, Term b, const std::vector<bool>& keep) {
  std::vector<bool> keep_a = keep, keep_b = keep;
  for (int l : b.labels) keep_a[static_cast<std::size_t>(l)] = true;
  for (int l : a.labels) keep_b[static_cast<std::size_t>(l)] = true;
  a = sum_out(std::move(a), keep_a);  // a's own labels that nothing else needs
  b = sum_out(std::move(b), keep_b);
  auto pos = [](const Term& t, int l) {
    return static_cast<int64_t>(std::find(t.labels.begin(), t.labels.end(), l) - t.labels.begin());
  };
  std::vector<int> batch, summed, own_a, own_b;
  for (int l : a.labels) {
    const bool in_b = pos(b, l) < static_cast<int64_t>(b.labels.size());
    (in_b ? (keep[static_cast<std::size_t>(l)] ? batch : summed) : own_a).push_back(l);
  }
  for (int l : b.labels)
    if (pos(a, l) == static_cast<int64_t>(a.labels.size())) own_b.push_back(l);
  auto size_of = [&](int l) {
    const int64_t ia = pos(a, l), ib = pos(b, l);
    const int64_t sa = ia < static_cast<int64_t>(a.labels.size()) ? a.t.size(ia) : 1;
    const int64_t sb = ib < static_cast<int64_t>(b.labels.size()) ? b.t.size(ib) : 1;
    return std::max(sa, sb);
  };
  // permute and broadcast one side to the given label groups, then flatten each group
  auto arrange = [&](const Term& t, std::initializer_list<const std::vector<int>*> groups) {
    Shape perm, full, flat;
    for (const auto* g : groups) {
      int64_t n = 1;
      for (int l : *g) {
        perm.push_back(pos(t, l));
        full.push_back(size_of(l));
        n = detail::checked_mul(n, size_of(l), "einsum", "the size of a contraction");
      }
      flat.push_back(n);
    }
    return t.t.permute(perm).expand(full).reshape(flat);
  };
  const ScalarType t = promote_types(a.t.dtype(), b.t.dtype());  // int32 by a summed int64
  const Tensor A = arrange(a, {&batch, &own_a, &summed}).to(t), B = arrange(b, {&batch, &summed, &own_b}).to(t);
  Shape out_shape;
  std::vector<int> labels;
  for (const auto* g : {&batch, &own_a, &own_b})
    for (int l : *g) {
      out_shape.push_back(size_of(l));
      labels.push_back(l);
    }
  return {bmm(A, B).view(out_shape), labels};
}
}  // namespace

Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq.push_back(c);
  const std::size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Subscripts> subs;
  for (std::size_t start = 0;;) {
    const std::size_t comma = lhs.find(',', start);
    subs.push_back(parse_subscripts(std::string_view(lhs).substr(start, comma - start), start, false));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (operands.empty()) fail("einsum", "einsum(): must provide at least one operand");
  if (subs.size() > operands.size())
    fail("einsum", "einsum(): more operands were provided than specified in the equation");
  if (subs.size() < operands.size())
    fail("einsum", "einsum(): fewer operands were provided than specified in the equation");
  // Each operand's dims get their labels; the broadcast dims of "..." are right-aligned.
  int64_t ell = 0;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    detail::check_defined(operands[k], "einsum");
    if (operands[k].dtype() != operands[0].dtype())
      fail("einsum", "expected every operand to have the same dtype, got ", dtype_name(operands[0].dtype()), " and ",
           dtype_name(operands[k].dtype()));
    const int64_t letters = static_cast<int64_t>(subs[k].labels.size()) - (subs[k].ellipsis ? 1 : 0);
    const int64_t nd = operands[k].dim();
    if (subs[k].ellipsis ? nd < letters : nd != letters)
      fail("einsum", "einsum(): the number of subscripts in the equation (", letters,
           subs[k].ellipsis ? ") is more than the number of dimensions ("
                            : ") does not match the number of dimensions (",
           nd, ") for operand ", k, subs[k].ellipsis ? "" : " and no ellipsis was given");
    ell = std::max(ell, nd - letters);
  }
  std::vector<int> count(static_cast<std::size_t>(kEllipsis + ell), 0);
  std::vector<int64_t> size(count.size(), -1);
  std::vector<Term> terms;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const Tensor& t = operands[k];
    const int64_t letters = static_cast<int64_t>(subs[k].labels.size()) - (subs[k].ellipsis ? 1 : 0);
    const int64_t own_ell = t.dim() - letters;
    Term term{t, {}};
    Shape view;  // the operand with its missing leading broadcast dims as size 1
    int64_t d = 0;
    for (int l : subs[k].labels) {
      if (l == kEllipsis) {
        for (int64_t j = 0; j < ell - own_ell; ++j) {
          term.labels.push_back(kEllipsis + static_cast<int>(j));
          view.push_back(1);
        }
        for (int64_t j = ell - own_ell; j < ell; ++j, ++d) {
          term.labels.push_back(kEllipsis + static_cast<int>(j));
          view.push_back(t.size(d));
        }
        continue;
      }
      term.labels.push_back(l);
      view.push_back(t.size(d++));
    }
    term.t = t.reshape(view);
    for (int l : term.labels) ++count[static_cast<std::size_t>(l)];  // "ii" counts i twice (implicit output)
    term = diagonals(std::move(term), k);
    for (std::size_t i = 0; i < term.labels.size(); ++i) {
      const auto l = static_cast<std::size_t>(term.labels[i]);
      const int64_t s = term.t.size(static_cast<int64_t>(i));
      if (size[l] < 0 || size[l] == 1) {
        size[l] = std::max<int64_t>(size[l], s);
      } else if (s != 1 && s != size[l]) {
        fail("einsum", "einsum(): operands do not broadcast: subscript ",
             l >= kEllipsis ? std::string("...") : std::string(1, label_char(static_cast<int>(l))), " has size ", s,
             " for operand ", k, " and ", size[l], " before it");
      }
    }
    terms.push_back(std::move(term));
  }
  // The output: the labels after "->" ("..." where written), or the broadcast dims followed by
  // the labels used once, in alphabetical order.
  std::vector<int> out;
  if (arrow != std::string::npos) {
    const Subscripts o = parse_subscripts(std::string_view(eq).substr(arrow + 2), arrow + 2, true);
    for (int l : o.labels) {
      if (l == kEllipsis) {
        for (int64_t j = 0; j < ell; ++j) out.push_back(kEllipsis + static_cast<int>(j));
        continue;
      }
      if (count[static_cast<std::size_t>(l)] == 0)
        fail("einsum", "einsum(): output subscript ", label_char(l),
             " does not appear in the equation for any input operand");
      if (std::find(out.begin(), out.end(), l) != out.end())
        fail("einsum", "einsum(): output subscript ", label_char(l), " appears more than once in the output");
      out.push_back(l);
    }
  } else {
    for (int64_t j = 0; j < ell; ++j) out.push_back(kEllipsis + static_cast<int>(j));
    for (int c = 'A'; c <= 'z'; ++c) {  // ASCII order: upper case first
      const int l = label_of(static_cast<char>(c));
      if (l >= 0 && count[static_cast<std::size_t>(l)] == 1) out.push_back(l);
    }
  }
  std::vector<bool> in_out(count.size(), false);
  for (int l : out) in_out[static_cast<std::size_t>(l)] = true;
  // Left to right: each step keeps the labels of the output and of the operands still to come.
  Term acc = std::move(terms[0]);
  for (std::size_t k = 1; k < terms.size(); ++k) {
    std::vector<bool> keep = in_out;
    for (std::size_t j = k + 1; j < terms.size(); ++j)
      for (int l : terms[j].labels) keep[static_cast<std::size_t>(l)] = true;
    acc = contract(std::move(acc), std::move(terms[k]), keep);
  }
  acc = sum_out(std::move(acc), in_out);
  Shape perm, shape;
  for (int l : out) {
    const auto it = std::find(acc.labels.begin(), acc.labels.end(), l);
    perm.push_back(static_cast<int64_t>(it - acc.labels.begin()));
  }
  Tensor result = acc.t.permute(perm);
  for (int l : out) shape.push_back(size[static_cast<std::size_t>(l)]);
  return result.expand(shape);  // a label of size 1 in one operand only stays broadcast
}

}  // namespace ditto
