#pragma once
// Activation modules (torch.nn.GELU, SiLU, ...) and Dropout.
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
  explicit Dropout(double p = 0.5, Generator* gen = nullptr) : Dropout(p, gen, 0) {}
  Tensor forward(const Tensor& x) override;
  double p() const { return p_; }
  std::string name() const override;

 protected:
  Dropout(double p, Generator* gen, int channel_dims);

 private:
  const char* op_name() const;
  double p_;
  Generator* gen_;
  int channel_dims_;  // 0: elementwise; 1 or 2: whole channels of Dropout1d or Dropout2d
};

// Zeroes whole channels: input (N, C, L) or (C, L), each of the C channels of a sample kept or
// dropped together (functional::dropout1d).
class Dropout1d : public Dropout {
 public:
  explicit Dropout1d(double p = 0.5, Generator* gen = nullptr) : Dropout(p, gen, 1) {}
};

// Zeroes whole channels of (N, C, H, W) or (N, C, L) input (functional::dropout2d).
class Dropout2d : public Dropout {
 public:
  explicit Dropout2d(double p = 0.5, Generator* gen = nullptr) : Dropout(p, gen, 2) {}
};

class SiLU : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override { return functional::silu(x); }
  std::string name() const override { return "SiLU"; }
};
class Mish : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override { return functional::mish(x); }
  std::string name() const override { return "Mish"; }
};
class Hardswish : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override { return functional::hardswish(x); }
  std::string name() const override { return "Hardswish"; }
};
class LeakyReLU : public UnaryModule {
 public:
  explicit LeakyReLU(double negative_slope = 0.01) : slope_(negative_slope) {}
  Tensor forward(const Tensor& x) override { return functional::leaky_relu(x, slope_); }
  std::string name() const override { return "LeakyReLU"; }

 private:
  double slope_;
};
class Softplus : public UnaryModule {
 public:
  explicit Softplus(double beta = 1.0, double threshold = 20.0) : beta_(beta), threshold_(threshold) {}
  Tensor forward(const Tensor& x) override { return functional::softplus(x, beta_, threshold_); }
  std::string name() const override { return "Softplus"; }

 private:
  double beta_, threshold_;
};
class ELU : public UnaryModule {
 public:
  explicit ELU(double alpha = 1.0) : alpha_(alpha) {}
  Tensor forward(const Tensor& x) override { return functional::elu(x, alpha_); }
  std::string name() const override { return "ELU"; }

 private:
  double alpha_;
};
class Hardtanh : public UnaryModule {
 public:
  explicit Hardtanh(double min_val = -1.0, double max_val = 1.0) : min_(min_val), max_(max_val) {}
  Tensor forward(const Tensor& x) override { return functional::hardtanh(x, min_, max_); }
  std::string name() const override { return "Hardtanh"; }

 private:
  double min_, max_;
};
class ReLU6 : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override { return functional::relu6(x); }
  std::string name() const override { return "ReLU6"; }
};

}  // namespace ditto::nn
