// ctc_loss: PyTorch's wrapper (ctc_loss_impl) around the _ctc_loss kernel (cpu/ctc.cpp, Note
// [CTC order]) and its gradient, _ctc_loss_backward. Every argument is checked before the kernel
// runs; where PyTorch 1.13 reads past its input (an empty input sequence, a label >= C, a negative
// target length) ditto raises an error or gives PyTorch 2.x's defined result.
#include "ops/loss_ops.h"

#include <algorithm>
#include <limits>

#include "core/checked.h"
#include "ditto/nn/functional.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using ops::OpId;

namespace nn::functional {

namespace {
constexpr const char* kOp = "ctc_loss";
constexpr const char* kChecked = " (while checking arguments for ctc_loss_cpu)";

Shape lengths_of(const Tensor& t, const char* what) {
  detail::check_defined(t, kOp, what);
  if (!is_integral(t.dtype(), false)) fail(kOp, what, " must be integral");
  if (t.dim() > 1) fail(kOp, what, " must be 0-D or 1-D, got ", t.dim(), "-D");
  const Tensor flat = t.detach().reshape({-1}).to(kInt64).contiguous();
  const int64_t* p = flat.data_ptr<int64_t>();
  return Shape(p, p + flat.numel());
}
}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Shape& input_lengths, const Shape& target_lengths,
                int64_t blank, Reduction reduction, bool zero_infinity) {
  detail::check_defined(log_probs, kOp, "log_probs");
  detail::check_defined(targets, kOp, "targets");
  if (log_probs.dim() != 2 && log_probs.dim() != 3)
    fail(kOp, "expected log_probs of shape (T, N, C) or (T, C) (unbatched), got ", log_probs.dim(), "-D");
  if (!is_floating(log_probs.dtype()))
    fail(kOp, "\"ctc_loss_cpu\" not implemented for '", ops::aten_type_name(log_probs.dtype()), "'");
  if (!is_integral(targets.dtype(), false))
    fail(kOp, "targets must be integers (int32 or int64), got ", dtype_name(targets.dtype()));
  const bool batched = log_probs.dim() == 3;
  const Tensor lp = batched ? log_probs : log_probs.unsqueeze(1);
  const int64_t T = lp.size(0), N = lp.size(1), C = lp.size(2);
  if (blank < 0 || blank >= C) fail(kOp, "blank must be in label range");
  if (static_cast<int64_t>(input_lengths.size()) != N) fail(kOp, "input_lengths must be of size batch_size");
  if (static_cast<int64_t>(target_lengths.size()) != N) fail(kOp, "target_lengths must be of size batch_size");
  if (targets.dim() != 1 && targets.dim() != 2)
    fail(kOp, "expected targets of shape (N, S) or (sum(target_lengths)), got ", targets.dim(), "-D");
  // spans[b] = (input length, target length, offset of the labels in the flattened targets)
  const bool concatenated = targets.dim() == 1;
  Tensor spans = detail::new_tensor({N, 3}, kInt64, kOp);
  int64_t* sp = spans.data_ptr<int64_t>();
  int64_t pos = 0, max_target = 0;
  for (int64_t b = 0; b < N; ++b) {
    const int64_t il = input_lengths[b], tl = target_lengths[b];
    if (tl < 0) fail(kOp, "Expected target_lengths to have value at least 0, but got value ", tl, kChecked);
    if (il < 0) fail(kOp, "Expected input_lengths to have value at least 0, but got value ", il, kChecked);
    if (il > T) fail(kOp, "Expected input_lengths to have value at most ", T, ", but got value ", il, kChecked);
    sp[3 * b] = il, sp[3 * b + 1] = tl;
    sp[3 * b + 2] = concatenated ? pos : detail::checked_mul(b, targets.size(1), kOp, "targets");
    pos = detail::checked_add(pos, tl, kOp, "target_lengths");
    max_target = std::max(max_target, tl);
  }
  if (concatenated && targets.size(0) != pos)
    fail(kOp, "Expected tensor to have size ", pos, " at dimension 0, but got size ", targets.size(0),
         " for argument #2 'targets'", kChecked);
  if (!concatenated) {
    if (targets.size(0) != N)
      fail(kOp, "Expected tensor to have size ", N, " at dimension 0, but got size ", targets.size(0),
           " for argument #2 'targets'", kChecked);
    if (targets.size(1) < max_target)
      fail(kOp, "Expected tensor to have size at least ", max_target, " at dimension 1, but got size ", targets.size(1),
           " for argument #2 'targets'", kChecked);
  }
  const Tensor labels = targets.detach().reshape({-1}).to(kInt64).contiguous();
  const int64_t* lab = labels.data_ptr<int64_t>();
  for (int64_t b = 0; b < N; ++b)
    for (int64_t i = sp[3 * b + 2], e = i + sp[3 * b + 1]; i < e; ++i)
      if (lab[i] < 0 || lab[i] >= C)
        detail::fail_index(kOp, "target ", lab[i], " of batch item ", b, " is out of range for ", C, " classes");
  const int64_t states = detail::checked_add(detail::checked_mul(max_target, 2, kOp, "states"), 1, kOp, "states");
  Tensor nll = detail::new_tensor({N}, lp.dtype(), kOp);
  Tensor log_alpha = detail::new_tensor({N, T, states}, lp.dtype(), kOp);
  const Tensor lpc = lp.detach().contiguous();
  ops::call<OpId::ctc_loss>(lp.device(), nll, log_alpha, lpc, labels, spans, blank);
  if (autograd::needs_grad(lp))
    ops::record<OpId::ctc_loss>({lp}, {nll},
                                autograd::formulas::CtcSaved{lpc, labels, spans, nll, log_alpha, blank, zero_infinity});
  Tensor res = nll;
  if (zero_infinity) res = where(res.eq(std::numeric_limits<double>::infinity()), zeros({}, res.dtype()), res);
  switch (reduction) {
    case Reduction::Mean: return (res / clamp(tensor(target_lengths, res.dtype()), 1)).mean();
    case Reduction::Sum: return res.sum();
    case Reduction::None: break;
  }
  return batched ? res : res.squeeze(0);
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, Reduction reduction, bool zero_infinity) {
  return ctc_loss(log_probs, targets, lengths_of(input_lengths, "input_lengths"),
                  lengths_of(target_lengths, "target_lengths"), blank, reduction, zero_infinity);
}

}  // namespace nn::functional

namespace nn::impl {
Tensor cross_entropy_terms(const Tensor& input, const Tensor& target, const Tensor& weights, int64_t ignore_index) {
  const char* op = "cross_entropy";
  const bool unbatched = input.dim() == 1;
  const int64_t N = unbatched ? 1 : input.size(0), C = input.size(unbatched ? 0 : 1);
  const int64_t P = target.numel() / std::max<int64_t>(N, 1);
  const Tensor in = input.detach().contiguous().view({N, C, P});
  const Tensor t = target.contiguous().view({N, P});
  const Tensor w = weights.defined() ? weights.detach().contiguous().view({N, P}) : Tensor();
  const bool grad = autograd::needs_grad(input);  // logp is only kept for the backward
  Tensor logp = grad ? detail::new_tensor({N, C, P}, input.dtype(), op) : Tensor();
  Tensor terms = detail::new_tensor(target.sizes(), input.dtype(), op);
  ops::call<OpId::cross_entropy>(input.device(), logp, terms.view({N, P}), in, t, w, ignore_index);
  if (grad)
    ops::record<OpId::cross_entropy>(
        {input}, {terms}, autograd::formulas::CrossEntropySaved{logp, target, weights, input.sizes(), ignore_index});
  return terms;
}
}  // namespace nn::impl

namespace autograd::formulas {
// The gradient of where(keep, -logp[t] (* w), 0) through nll's gather and log_softmax, as their
// formulas compute it: g kept, negated (after the weight's product), scattered, then
// log_softmax's g - exp(logp) * sum(g); the last two in one kernel (cpu/reduce.cpp).
DITTO_FORMULA(cross_entropy, CrossEntropySaved) {
  const Tensor& logp = *s.logp;
  const Tensor& target = *s.target;
  const Tensor keep = target.ne(s.ignore_index);
  const Tensor gk = where(keep, g[0], zeros_like(g[0]));
  const Tensor gt = s.weights.defined() ? -(gk * *s.weights) : -gk;
  const int64_t N = logp.size(0), P = logp.size(2);
  Tensor grad = detail::new_tensor(logp.sizes(), logp.dtype(), ops::op_name(OpId::cross_entropy_backward));
  ops::call<OpId::cross_entropy_backward>(logp.device(), grad, logp, where(keep, target, 0).contiguous().view({N, P}),
                                          gt.contiguous().view({N, P}));
  return {grad.view(s.input)};
}

// PyTorch's _ctc_loss_backward: the gradient of every log_prob from the saved alphas.
DITTO_FORMULA(ctc_loss, CtcSaved) {
  const Tensor& lp = *s.log_probs;
  Tensor grad = detail::new_tensor(lp.sizes(), lp.dtype(), "ctc_loss_backward");
  const Tensor go = g[0].detach().contiguous();
  ops::call<OpId::ctc_loss_backward>(lp.device(), grad, go, lp, *s.targets, *s.spans, *s.nll, *s.log_alpha, s.blank,
                                     s.zero_infinity);
  return {grad};
}
}  // namespace autograd::formulas

}  // namespace ditto
