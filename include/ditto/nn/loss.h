#pragma once
// Loss modules (torch.nn): L1Loss, NLLLoss, CrossEntropyLoss, BCEWithLogitsLoss. Each is called
// as loss(input, target) and has PyTorch's reduction (mean by default).
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

}  // namespace ditto::nn
