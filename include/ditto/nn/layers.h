#pragma once
// Basic layers: Linear, Sequential, activations, MSELoss.
#include <memory>

#include "ditto/nn/functional.h"
#include "ditto/nn/module.h"

namespace ditto::nn {

// y = x W^T + b, initialised as PyTorch: kaiming_uniform_(W, a=sqrt(5)), then
// bias ~ U(-1/sqrt(in), 1/sqrt(in)), drawn from the default generator in that order.
class Linear : public UnaryModule {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true, ScalarType dtype = kFloat32);
  Tensor forward(const Tensor& x) override;
  void reset_parameters();
  Tensor& weight() { return param(0); }
  Tensor& bias();  // undefined when built without bias
  int64_t in_features() const { return in_; }
  int64_t out_features() const { return out_; }
  std::string name() const override { return "Linear"; }

 private:
  int64_t in_, out_;
  bool has_bias_;
};

// Runs its children in order.
class Sequential : public UnaryModule {
 public:
  Sequential() = default;
  template <class... M>
  explicit Sequential(M&&... modules) {
    (push_back(std::forward<M>(modules)), ...);
  }
  template <class M>
  void push_back(M&& m) {
    using T = std::decay_t<M>;
    if constexpr (std::is_convertible_v<T, std::shared_ptr<UnaryModule>>) {
      add(std::shared_ptr<UnaryModule>(std::forward<M>(m)));
    } else {
      add(std::make_shared<T>(std::forward<M>(m)));
    }
  }
  Tensor forward(const Tensor& x) override;
  std::size_t size() const { return layers_.size(); }
  UnaryModule& operator[](std::size_t i) { return *layers_.at(i); }
  std::string name() const override { return "Sequential"; }

 private:
  void add(std::shared_ptr<UnaryModule> m);
  std::vector<std::shared_ptr<UnaryModule>> layers_;
};

class ReLU : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override { return functional::relu(x); }
  std::string name() const override { return "ReLU"; }
};
class Sigmoid : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override { return functional::sigmoid(x); }
  std::string name() const override { return "Sigmoid"; }
};
class Tanh : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override { return functional::tanh(x); }
  std::string name() const override { return "Tanh"; }
};
class Softmax : public UnaryModule {
 public:
  explicit Softmax(int64_t dim) : dim_(dim) {}
  Tensor forward(const Tensor& x) override { return functional::softmax(x, dim_); }
  std::string name() const override { return "Softmax"; }

 private:
  int64_t dim_;
};
class Flatten : public UnaryModule {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1) : start_(start_dim), end_(end_dim) {}
  Tensor forward(const Tensor& x) override { return x.flatten(start_, end_); }
  std::string name() const override { return "Flatten"; }

 private:
  int64_t start_, end_;
};

class MSELoss : public Module {
 public:
  explicit MSELoss(Reduction reduction = Reduction::Mean) : reduction_(reduction) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::mse_loss(input, target, reduction_);
  }
  std::string name() const override { return "MSELoss"; }

 private:
  Reduction reduction_;
};

}  // namespace ditto::nn
