// Losses, composed of public ops (gather, log_softmax, where, canonical-order sums), following
// the arithmetic order of PyTorch's CPU implementations.
#include "ditto/nn/loss.h"

#include "core/tensor_impl.h"
#include "ditto/autograd.h"
#include "ditto/factory.h"
#include "ditto/ops.h"

namespace ditto::nn {

namespace {
Tensor apply_reduction(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::None: return loss;
    case Reduction::Sum: return loss.sum();
    case Reduction::Mean: break;
  }
  return loss.mean();
}

void check_class_target(const Tensor& target, const char* op) {
  DITTO_CHECK(target.defined(), op, "expected a defined target");
  DITTO_CHECK(target.dtype() == kInt64, op, "expected target of dtype int64 (class indices), got ",
              dtype_name(target.dtype()));
}

// Checks input (N, C, d...) / (C) against target (N, d...) / () and every target's range.
void check_nll_args(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                    const char* op) {
  DITTO_CHECK(input.defined(), op, "expected a defined input");
  DITTO_CHECK(is_floating(input.dtype()), op, "expected a floating point input, got ", dtype_name(input.dtype()));
  check_class_target(target, op);
  DITTO_CHECK(input.dim() >= 1, op, "expected an input with 1 or more dimensions, got 0");
  Shape want = input.sizes();
  want.erase(want.begin() + (input.dim() == 1 ? 0 : 1));
  if (input.dim() >= 2)
    DITTO_CHECK(target.dim() >= 1 && target.size(0) == input.size(0), op, "expected input batch_size (", input.size(0),
                ") to match target batch_size (", target.dim() >= 1 ? target.size(0) : 0, ")");
  DITTO_CHECK(target.sizes() == want, op, "size mismatch (got input: ", detail::shape_str(input.sizes()),
              ", target: ", detail::shape_str(target.sizes()), ")");
  const int64_t C = input.size(input.dim() == 1 ? 0 : 1);
  DITTO_CHECK(!weight.defined() || (weight.dim() == 1 && weight.size(0) == C), op,
              "weight tensor should be defined either for all ", C,
              " classes or no classes but got weight tensor of shape: ", detail::shape_str(weight.sizes()));
  const Tensor t = target.contiguous();
  const int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0, n = t.numel(); i < n; ++i)
    if (p[i] != ignore_index)
      DITTO_CHECK(p[i] >= 0 && p[i] < C, "nll_loss", "target ", p[i], " is out of bounds for ", C, " classes");
}

// PyTorch's nll_loss: -weight[t] * input[n, t, ...]; ignored targets give 0 and weigh 0 in the mean
// (the sum of the picked weights, or the count of kept targets without weights).
Tensor nll_impl(const Tensor& input_in, const Tensor& target_in, const Tensor& weight, int64_t ignore_index,
                Reduction reduction) {
  const bool unbatched = input_in.dim() == 1;
  const Tensor input = unbatched ? input_in.unsqueeze(0) : input_in;
  const Tensor target = unbatched ? target_in.unsqueeze(0) : target_in;
  const Tensor keep = target.ne(ignore_index);
  const Tensor safe = where(keep, target, 0);
  const Tensor picked = input.gather(1, safe.unsqueeze(1)).squeeze(1);
  Tensor w;  // per-target weight, 0 where ignored
  Tensor loss;
  if (weight.defined()) {
    w = where(keep, weight.to(input.dtype()).index_select(0, safe.reshape({safe.numel()})).view(target.sizes()), 0.0);
    loss = where(keep, -picked * w, 0.0);
  } else {
    w = keep.to(input.dtype());
    loss = where(keep, -picked, 0.0);
  }
  if (unbatched && reduction == Reduction::None) loss = loss.squeeze(0);
  switch (reduction) {
    case Reduction::None: return loss;
    case Reduction::Sum: return loss.sum();
    case Reduction::Mean: break;
  }
  return loss.sum() / w.sum();
}
}  // namespace

namespace functional {

Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  DITTO_CHECK(input.defined() && target.defined(), "l1_loss", "expected defined input and target");
  DITTO_CHECK(is_floating(input.dtype()), "l1_loss", "input must be floating point, got ", dtype_name(input.dtype()));
  DITTO_CHECK(input.sizes() == target.sizes(), "l1_loss", "input of shape ", detail::shape_str(input.sizes()),
              " and target of shape ", detail::shape_str(target.sizes()), " must have the same shape");
  return apply_reduction((input - target).abs(), reduction);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                Reduction reduction) {
  check_nll_args(input, target, weight, ignore_index, "nll_loss");
  return nll_impl(input, target, weight, ignore_index, reduction);
}

// torch.nn.functional.cross_entropy with class-index targets (aten cross_entropy_loss).
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     Reduction reduction, double label_smoothing) {
  check_nll_args(input, target, weight, ignore_index, "cross_entropy");
  DITTO_CHECK(label_smoothing >= 0 && label_smoothing <= 1, "cross_entropy",
              "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const Tensor logp = input.log_softmax(class_dim);
  const Tensor nll = nll_impl(logp, target, weight, ignore_index, reduction);
  if (label_smoothing == 0) return nll;
  const int64_t C = input.size(class_dim);
  const Tensor ignored = target.eq(ignore_index);
  Tensor smooth;
  if (weight.defined()) {
    Shape ws(static_cast<std::size_t>(input.dim()), 1);
    ws[class_dim] = C;
    smooth = -(logp * weight.to(input.dtype()).view(ws)).sum({class_dim});
  } else {
    smooth = -logp.sum({class_dim});
  }
  smooth = smooth.masked_fill(ignored, 0.0);
  Tensor ret;
  switch (reduction) {
    case Reduction::Mean:
      if (weight.defined()) {
        const Tensor keep = ignored.eq(false);
        const Tensor tw = where(keep,
                                weight.to(input.dtype())
                                    .index_select(0, where(keep, target, 0).reshape({target.numel()}))
                                    .view(target.sizes()),
                                0.0);
        ret = smooth.sum() / tw.sum();
      } else {
        ret = smooth.sum() / ignored.eq(false).sum().to(input.dtype());
      }
      break;
    case Reduction::Sum: ret = smooth.sum(); break;
    case Reduction::None: ret = smooth; break;
  }
  return (1 - label_smoothing) * nll + ret * (label_smoothing / static_cast<double>(C));
}

// aten binary_cross_entropy_with_logits (1.13):
//   max_val = (-x).clamp_min(0)
//   loss = (1 - t) * x + max_val + log(exp(-max_val) + exp(-x - max_val))            (no pos_weight)
//   loss = (1 - t) * x + lw * (log(exp(-max_val) + exp(-x - max_val)) + max_val),
//          lw = (pos_weight - 1) * t + 1                                              (pos_weight)
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        Reduction reduction, const Tensor& pos_weight) {
  const char* op = "binary_cross_entropy_with_logits";
  DITTO_CHECK(input.defined() && target.defined(), op, "expected defined input and target");
  DITTO_CHECK(is_floating(input.dtype()) && is_floating(target.dtype()), op,
              "expected floating point input and target, got ", dtype_name(input.dtype()), " and ",
              dtype_name(target.dtype()));
  DITTO_CHECK(input.sizes() == target.sizes(), op, "target size ", detail::shape_str(target.sizes()),
              " must be the same as input size ", detail::shape_str(input.sizes()));
  if (weight.defined()) detail::broadcast_shapes(input.sizes(), weight.sizes(), op);
  if (pos_weight.defined()) detail::broadcast_shapes(input.sizes(), pos_weight.sizes(), op);
  const Tensor max_val = (-input).clamp(0.0);
  const Tensor lse = ((-max_val).exp() + (-input - max_val).exp()).log();
  Tensor loss;
  if (pos_weight.defined()) {
    const Tensor log_weight = (pos_weight - 1) * target + 1;
    loss = (1 - target) * input + log_weight * (lse + max_val);
  } else {
    loss = (1 - target) * input + max_val + lse;
  }
  if (weight.defined()) loss = loss * weight;
  return apply_reduction(loss, reduction);
}

}  // namespace functional

NLLLoss::NLLLoss(const Tensor& weight, int64_t ignore_index, Reduction reduction)
    : weight_(weight), ignore_index_(ignore_index), reduction_(reduction) {
  if (weight.defined()) register_buffer("weight", weight);
}

CrossEntropyLoss::CrossEntropyLoss(const Tensor& weight, int64_t ignore_index, Reduction reduction,
                                   double label_smoothing)
    : weight_(weight), ignore_index_(ignore_index), reduction_(reduction), label_smoothing_(label_smoothing) {
  DITTO_CHECK(label_smoothing >= 0 && label_smoothing <= 1, "CrossEntropyLoss",
              "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  if (weight.defined()) register_buffer("weight", weight);
}

BCEWithLogitsLoss::BCEWithLogitsLoss(const Tensor& weight, Reduction reduction, const Tensor& pos_weight)
    : weight_(weight), pos_weight_(pos_weight), reduction_(reduction) {
  if (weight.defined()) register_buffer("weight", weight);
  if (pos_weight.defined()) register_buffer("pos_weight", pos_weight);
}

}  // namespace ditto::nn
