#pragma once
// Loss modules (torch.nn): L1Loss, NLLLoss, CrossEntropyLoss, BCEWithLogitsLoss, SmoothL1Loss,
// HuberLoss, BCELoss, KLDivLoss (loss(input, target)), MarginRankingLoss and
// CosineEmbeddingLoss (loss(input1, input2, target)), CTCLoss (loss(log_probs, targets,
// input_lengths, target_lengths)); PyTorch's reductions (mean by default).
#include "ditto/nn/functional.h"
#include "ditto/nn/module.h"

namespace ditto::nn {

class L1Loss : public Module {
 public:
  explicit L1Loss(Reduction reduction = Reduction::Mean) : reduction_(reduction) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::l1_loss(input, target, reduction_);
  }
  std::string name() const override { return "L1Loss"; }

 private:
  Reduction reduction_;
};

// Class weights are an optional buffer of C elements; targets equal to ignore_index add nothing
// (and, for the mean, count nothing).
class NLLLoss : public Module {
 public:
  explicit NLLLoss(const Tensor& weight = Tensor(), int64_t ignore_index = -100, Reduction reduction = Reduction::Mean);
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::nll_loss(input, target, weight_, ignore_index_, reduction_);
  }
  std::string name() const override { return "NLLLoss"; }

 private:
  Tensor weight_;
  int64_t ignore_index_;
  Reduction reduction_;
};

class CrossEntropyLoss : public Module {
 public:
  explicit CrossEntropyLoss(const Tensor& weight = Tensor(), int64_t ignore_index = -100,
                            Reduction reduction = Reduction::Mean, double label_smoothing = 0.0);
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::cross_entropy(input, target, weight_, ignore_index_, reduction_, label_smoothing_);
  }
  std::string name() const override { return "CrossEntropyLoss"; }

 private:
  Tensor weight_;
  int64_t ignore_index_;
  Reduction reduction_;
  double label_smoothing_;
};

class BCEWithLogitsLoss : public Module {
 public:
  explicit BCEWithLogitsLoss(const Tensor& weight = Tensor(), Reduction reduction = Reduction::Mean,
                             const Tensor& pos_weight = Tensor());
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::binary_cross_entropy_with_logits(input, target, weight_, reduction_, pos_weight_);
  }
  std::string name() const override { return "BCEWithLogitsLoss"; }

 private:
  Tensor weight_, pos_weight_;
  Reduction reduction_;
};

// The losses with one number besides the reduction (beta, delta).
class SmoothL1Loss : public Module {
 public:
  explicit SmoothL1Loss(Reduction reduction = Reduction::Mean, double beta = 1.0)
      : reduction_(reduction), beta_(beta) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::smooth_l1_loss(input, target, reduction_, beta_);
  }
  std::string name() const override { return "SmoothL1Loss"; }

 private:
  Reduction reduction_;
  double beta_;
};

class HuberLoss : public Module {
 public:
  explicit HuberLoss(Reduction reduction = Reduction::Mean, double delta = 1.0)
      : reduction_(reduction), delta_(delta) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::huber_loss(input, target, reduction_, delta_);
  }
  std::string name() const override { return "HuberLoss"; }

 private:
  Reduction reduction_;
  double delta_;
};

class BCELoss : public Module {
 public:
  explicit BCELoss(const Tensor& weight = Tensor(), Reduction reduction = Reduction::Mean)
      : weight_(weight), reduction_(reduction) {
    if (weight_.defined()) register_buffer("weight", weight_);
  }
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::binary_cross_entropy(input, target, weight_, reduction_);
  }
  std::string name() const override { return "BCELoss"; }

 private:
  Tensor weight_;
  Reduction reduction_;
};

// reduction "none", "sum", "mean" or "batchmean" (PyTorch's advice for the KL divergence).
class KLDivLoss : public Module {
 public:
  explicit KLDivLoss(std::string reduction = "mean", bool log_target = false)
      : reduction_(std::move(reduction)), log_target_(log_target) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::kl_div(input, target, reduction_, log_target_);
  }
  std::string name() const override { return "KLDivLoss"; }

 private:
  std::string reduction_;
  bool log_target_;
};

class MarginRankingLoss : public Module {
 public:
  explicit MarginRankingLoss(double margin = 0.0, Reduction reduction = Reduction::Mean)
      : margin_(margin), reduction_(reduction) {}
  Tensor operator()(const Tensor& input1, const Tensor& input2, const Tensor& target) const {
    return functional::margin_ranking_loss(input1, input2, target, margin_, reduction_);
  }
  std::string name() const override { return "MarginRankingLoss"; }

 private:
  double margin_;
  Reduction reduction_;
};

class CTCLoss : public Module {
 public:
  explicit CTCLoss(int64_t blank = 0, Reduction reduction = Reduction::Mean, bool zero_infinity = false)
      : blank_(blank), reduction_(reduction), zero_infinity_(zero_infinity) {}
  Tensor operator()(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                    const Tensor& target_lengths) const {
    return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, blank_, reduction_, zero_infinity_);
  }
  Tensor operator()(const Tensor& log_probs, const Tensor& targets, const Shape& input_lengths,
                    const Shape& target_lengths) const {
    return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, blank_, reduction_, zero_infinity_);
  }
  std::string name() const override { return "CTCLoss"; }

 private:
  int64_t blank_;
  Reduction reduction_;
  bool zero_infinity_;
};

class CosineEmbeddingLoss : public Module {
 public:
  explicit CosineEmbeddingLoss(double margin = 0.0, Reduction reduction = Reduction::Mean)
      : margin_(margin), reduction_(reduction) {}
  Tensor operator()(const Tensor& input1, const Tensor& input2, const Tensor& target) const {
    return functional::cosine_embedding_loss(input1, input2, target, margin_, reduction_);
  }
  std::string name() const override { return "CosineEmbeddingLoss"; }

 private:
  double margin_;
  Reduction reduction_;
};

}  // namespace ditto::nn
