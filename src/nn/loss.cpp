// Losses, composed of public ops (gather, log_softmax, where, canonical-order sums), following
// the arithmetic order of PyTorch's CPU implementations.
#include "ditto/nn/loss.h"

#include <limits>

#include "core/tensor_impl.h"
#include "ditto/autograd.h"
#include "ditto/factory.h"
#include "ditto/ops.h"
#include "ops/loss_ops.h"

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

// Each target's weight, 0 where ignored (undefined without a weight): what multiplies each term,
// and the mean's denominator summed (reduce_nll).
Tensor target_weights(const Tensor& target, const Tensor& weight, int64_t ignore_index, ScalarType dtype) {
  if (!weight.defined()) return Tensor();
  const Tensor keep = target.ne(ignore_index);
  const Tensor safe = where(keep, target, 0);
  return where(keep, weight.to(dtype).index_select(0, safe.reshape({safe.numel()})).view(target.sizes()), 0.0);
}

// w: each target's weight (target_weights), or undefined without weights (then the count of kept
// targets is the mean's denominator).
Tensor reduce_nll(const Tensor& loss, const Tensor& target, const Tensor& w, int64_t ignore_index,
                  Reduction reduction) {
  switch (reduction) {
    case Reduction::None: return loss;
    case Reduction::Sum: return loss.sum();
    case Reduction::Mean: break;
  }
  return loss.sum() / (w.defined() ? w : target.ne(ignore_index).to(loss.dtype())).sum();
}

// PyTorch's nll_loss: -weight[t] * input[n, t, ...]; ignored targets give 0 and weigh 0 in the mean.
Tensor nll_impl(const Tensor& input_in, const Tensor& target_in, const Tensor& weight, int64_t ignore_index,
                Reduction reduction) {
  const bool unbatched = input_in.dim() == 1;
  const Tensor input = unbatched ? input_in.unsqueeze(0) : input_in;
  const Tensor target = unbatched ? target_in.unsqueeze(0) : target_in;
  const Tensor keep = target.ne(ignore_index);
  const Tensor safe = where(keep, target, 0);
  const Tensor picked = input.gather(1, safe.unsqueeze(1)).squeeze(1);
  const Tensor w = target_weights(target, weight, ignore_index, input.dtype());
  Tensor loss = where(keep, w.defined() ? -picked * w : -picked, 0.0);
  if (unbatched && reduction == Reduction::None) loss = loss.squeeze(0);
  return reduce_nll(loss, target, w, ignore_index, reduction);
}
// Checks an elementwise loss's operands: defined, floating input, target of input's shape.
void check_pair(const Tensor& input, const Tensor& target, const char* op) {
  DITTO_CHECK(input.defined() && target.defined(), op, "expected defined input and target");
  DITTO_CHECK(is_floating(input.dtype()), op, "input must be floating point, got ", dtype_name(input.dtype()));
  DITTO_CHECK(input.sizes() == target.sizes(), op, "input of shape ", detail::shape_str(input.sizes()),
              " and target of shape ", detail::shape_str(target.sizes()), " must have the same shape");
}

// aten cross_entropy_loss_prob_target (1.13): class probabilities as the target.
Tensor cross_entropy_probs(const Tensor& input, const Tensor& target_in, const Tensor& weight, int64_t ignore_index,
                           Reduction reduction, double label_smoothing) {
  const char* op = "cross_entropy";
  DITTO_CHECK(input.defined() && is_floating(input.dtype()), op, "expected a defined floating point input");
  DITTO_CHECK(input.dim() >= 1, op, "expected an input with 1 or more dimensions, got 0");
  DITTO_CHECK(input.sizes() == target_in.sizes(), op,
              "Expected input batch_size and target shape to match input: ", detail::shape_str(input.sizes()),
              ", target: ", detail::shape_str(target_in.sizes()));
  DITTO_CHECK(ignore_index < 0, op, "ignore_index is not supported for floating point target");
  const int64_t class_dim = input.dim() == 1 ? 0 : 1, C = input.size(class_dim);
  DITTO_CHECK(!weight.defined() || (weight.dim() == 1 && weight.size(0) == C), op,
              "weight tensor should be defined either for all ", C,
              " classes or no classes but got weight tensor of shape: ", detail::shape_str(weight.sizes()));
  Tensor target = target_in.to(input.dtype());
  if (label_smoothing > 0) target = target * (1 - label_smoothing) + label_smoothing / static_cast<double>(C);
  Tensor terms = input.log_softmax(class_dim) * target;
  if (weight.defined()) {
    Shape ws(static_cast<std::size_t>(input.dim()), 1);
    ws[static_cast<std::size_t>(class_dim)] = C;
    terms = terms * weight.to(input.dtype()).view(ws);
  }
  switch (reduction) {
    case Reduction::None: return -terms.sum({class_dim});
    case Reduction::Sum: return -terms.sum();
    case Reduction::Mean: break;
  }
  if (input.numel() == 0) return full({}, std::numeric_limits<double>::quiet_NaN(), input.dtype());
  return -terms.sum() / static_cast<double>(input.numel() / C);
}

// PyTorch's xlogy: x log y, 0 where x is 0 (unless y is NaN).
Tensor xlogy(const Tensor& x, const Tensor& y) {
  return where(where(x.eq(0.0), y.eq(y), false), zeros_like(x), x * y.log());
}
}  // namespace

namespace functional {

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta) {
  check_pair(input, target, "smooth_l1_loss");
  DITTO_CHECK(beta >= 0, "smooth_l1_loss", "smooth_l1_loss does not support negative values for beta.");
  if (beta == 0) return l1_loss(input, target, reduction);
  const Tensor z = (input - target).abs();
  return apply_reduction(where(z.lt(beta), z * 0.5 * z / beta, z - 0.5 * beta), reduction);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta) {
  check_pair(input, target, "huber_loss");
  DITTO_CHECK(delta > 0, "huber_loss", "huber_loss does not support non-positive values for delta.");
  const Tensor z = (input - target).abs();
  return apply_reduction(where(z.lt(delta), z * 0.5 * z, (z - 0.5 * delta) * delta), reduction);
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction) {
  check_pair(input, target, "binary_cross_entropy");
  {
    NoGradGuard no_grad;
    const Tensor in_range = where(input.ge(0.0), input.le(1.0), false);  // false for NaN too
    DITTO_CHECK(in_range.sum().item<int64_t>() == input.numel(), "binary_cross_entropy",
                "all elements of input should be between 0 and 1");
  }
  // The value from input's values; input's gradient is PyTorch's own formula,
  // g w (x - t) / max((1 - x) x, 1e-12), which stays finite where x is 0 or 1 (the clamped logs'
  // derivatives do not): x c - (x c), with c that factor detached, is 0 in value and c in
  // gradient. target's gradient comes through the logs, as PyTorch's (their difference).
  const Tensor t = target.to(input.dtype());
  const Tensor x = input.detach();
  Tensor loss = (t - 1.0) * clamp((1.0 - x).log(), -100.0, std::nullopt) - t * clamp(x.log(), -100.0, std::nullopt);
  if (input.requires_grad() && is_grad_enabled()) {
    Tensor c;
    {
      NoGradGuard no_grad;
      c = (x - t) / clamp((1.0 - x) * x, 1e-12, std::nullopt);
    }
    const Tensor xc = input * c;
    loss = loss + (xc - xc.detach());
  }
  if (weight.defined()) loss = loss * weight.to(input.dtype());
  return apply_reduction(loss, reduction);
}

Tensor kl_div(const Tensor& input, const Tensor& target, std::string_view reduction, bool log_target) {
  check_pair(input, target, "kl_div");
  const Tensor t = target.to(input.dtype());
  const Tensor loss = log_target ? t.exp() * (t - input) : xlogy(t, t) - t * input;
  if (reduction == "none") return loss;
  if (reduction == "sum") return loss.sum();
  if (reduction == "mean") return loss.mean();
  if (reduction == "batchmean") return input.dim() == 0 ? loss.sum() : loss.sum() / static_cast<double>(input.size(0));
  detail::fail("kl_div", reduction, " is not a valid value for reduction");
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           Reduction reduction) {
  DITTO_CHECK(input1.defined() && input2.defined() && target.defined(), "margin_ranking_loss",
              "expected defined inputs and target");
  DITTO_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(), "margin_ranking_loss",
              "All input tensors should have same dimension but got sizes: input1: ", detail::shape_str(input1.sizes()),
              ", input2: ", detail::shape_str(input2.sizes()), ", target: ", detail::shape_str(target.sizes()));
  return apply_reduction(clamp(-target * (input1 - input2) + margin, 0.0, std::nullopt), reduction);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             Reduction reduction) {
  const char* op = "cosine_embedding_loss";
  DITTO_CHECK(input1.defined() && input2.defined() && target.defined(), op, "expected defined inputs and target");
  DITTO_CHECK(input1.sizes() == input2.sizes(), op, "input1 and input2 must have the same shape, got ",
              detail::shape_str(input1.sizes()), " and ", detail::shape_str(input2.sizes()));
  DITTO_CHECK(input1.dim() == 1 || input1.dim() == 2, op,
              "1D target tensor expects 2D input tensors, but found inputs with sizes ",
              detail::shape_str(input1.sizes()), " and ", detail::shape_str(input2.sizes()), ".");
  DITTO_CHECK(target.dim() == input1.dim() - 1, op, "expected a target of ", input1.dim() - 1, " dims, got ",
              target.dim());
  const int64_t d = input1.dim() - 1;
  constexpr double kEps = 1e-12;  // PyTorch's EPSILON
  const Tensor prod = (input1 * input2).sum({d});
  const Tensor mag1 = (input1 * input1).sum({d}) + kEps, mag2 = (input2 * input2).sum({d}) + kEps;
  const Tensor cos = prod / (mag1 * mag2).sqrt();
  const Tensor zero = zeros_like(cos);
  const Tensor pos = where(target.eq(1), 1.0 - cos, zero);
  const Tensor neg = where(target.eq(-1), clamp(cos - margin, 0.0, std::nullopt), zero);
  return apply_reduction(pos + neg, reduction);
}

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
  DITTO_CHECK(label_smoothing >= 0 && label_smoothing <= 1, "cross_entropy",
              "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  if (target.defined() && is_floating(target.dtype()))
    return cross_entropy_probs(input, target, weight, ignore_index, reduction, label_smoothing);
  check_nll_args(input, target, weight, ignore_index, "cross_entropy");
  if (label_smoothing == 0 && input.numel() > 0) {  // log_softmax and nll_loss's bits, in one node
    const Tensor w = target_weights(target, weight, ignore_index, input.dtype());
    return reduce_nll(impl::cross_entropy_terms(input, target, w, ignore_index), target, w, ignore_index, reduction);
  }
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
