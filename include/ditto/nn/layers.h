#pragma once
// Basic layers: Linear, Sequential, activations, MSELoss.
#include <memory>
#include <string>
#include <utility>
#include <vector>

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

// Returns its input.
class Identity : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override { return x; }
  std::string name() const override { return "Identity"; }
};

// Modules registered under "0", "1", ... (torch.nn.ModuleList): their parameters are the list's,
// in order. list[i] is the module, list.as<T>(i) the module as a T (raises when it is not one);
// `for (const auto& m : list)` visits the shared pointers.
class ModuleList : public Module {
 public:
  ModuleList() = default;
  template <class... M>
  explicit ModuleList(std::shared_ptr<M>... modules) {
    (push_back(std::move(modules)), ...);
  }
  template <class M>
  void push_back(std::shared_ptr<M> m) {
    register_module(std::to_string(children_.size()), std::move(m));
  }
  std::size_t size() const { return children_.size(); }
  bool empty() const { return children_.empty(); }
  const std::shared_ptr<Module>& ptr(std::size_t i) const;
  Module& operator[](std::size_t i) const { return *ptr(i); }
  template <class T>
  T& as(std::size_t i) const {
    T* m = dynamic_cast<T*>(ptr(i).get());
    if (m == nullptr) wrong_type(std::to_string(i));
    return *m;
  }
  class Iterator {
   public:
    using Base = std::vector<std::pair<std::string, std::shared_ptr<Module>>>::const_iterator;
    explicit Iterator(Base it) : it_(it) {}
    const std::shared_ptr<Module>& operator*() const { return it_->second; }
    Iterator& operator++() {
      ++it_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return it_ != o.it_; }

   private:
    Base it_;
  };
  Iterator begin() const { return Iterator(children_.begin()); }
  Iterator end() const { return Iterator(children_.end()); }
  std::string name() const override { return "ModuleList"; }

 protected:
  [[noreturn]] void wrong_type(const std::string& key) const;
};

// Modules by name, in insertion order (torch.nn.ModuleDict); inserting an existing name replaces
// its module in place.
class ModuleDict : public ModuleList {
 public:
  ModuleDict() = default;
  template <class M>
  void insert(const std::string& key, std::shared_ptr<M> m) {
    for (auto& [k, c] : children_)
      if (k == key) {
        c = std::move(m);
        return;
      }
    register_module(key, std::move(m));
  }
  bool contains(const std::string& key) const;
  Module& operator[](const std::string& key) const { return *ptr(key); }
  using ModuleList::operator[];
  const std::shared_ptr<Module>& ptr(const std::string& key) const;
  using ModuleList::ptr;
  template <class T>
  T& as(const std::string& key) const {
    T* m = dynamic_cast<T*>(ptr(key).get());
    if (m == nullptr) wrong_type(key);
    return *m;
  }
  using ModuleList::as;
  std::vector<std::string> keys() const;
  std::string name() const override { return "ModuleDict"; }
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
