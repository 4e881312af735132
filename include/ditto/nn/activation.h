#pragma once
// GELU and Dropout (torch.nn.GELU, torch.nn.Dropout).
#include <string>

#include "ditto/nn/functional.h"
#include "ditto/nn/module.h"

namespace ditto::nn {

class GELU : public UnaryModule {
 public:
  // approximate: "none" (exact, with erf) or "tanh"
  explicit GELU(std::string approximate = "none");
  Tensor forward(const Tensor& x) override { return functional::gelu(x, approximate_); }
  const std::string& approximate() const { return approximate_; }
  std::string name() const override { return "GELU"; }

 private:
  std::string approximate_;
};

// In training mode zeroes elements with probability p, drawing from the default generator (or
// gen) exactly as PyTorch does; in eval mode returns its input.
class Dropout : public UnaryModule {
 public:
  explicit Dropout(double p = 0.5, Generator* gen = nullptr);
  Tensor forward(const Tensor& x) override;
  double p() const { return p_; }
  std::string name() const override { return "Dropout"; }

 private:
  double p_;
  Generator* gen_;
};

}  // namespace ditto::nn
