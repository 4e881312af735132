#pragma once
// What a backward formula receives: a typed state struct per op (declared beside its formula in
// ops/formulas.h), whose tensors are SavedTensors. See graph.h for the node that holds it.
#include <cstdint>
#include <vector>

#include "ditto/tensor.h"

namespace ditto::autograd {

using Grads = std::vector<Tensor>;

// Thrown by SavedTensor::get() when the tensor was written in place after it was saved; the node
// running the formula turns it into a ditto::Error naming the op (PyTorch checks at unpack too).
struct SavedTensorModified {};

// A tensor a backward formula needs: data only (no history), with its storage version when
// saved. Undefined when the op had no need to save it (say, a gradient nobody wants).
class SavedTensor {
 public:
  SavedTensor() = default;
  SavedTensor(const Tensor& t) : t_(t.defined() ? t.detach() : Tensor()), version_(t.defined() ? t.version() : 0) {}
  const Tensor& get() const {
    if (t_.defined() && t_.version() != version_) throw SavedTensorModified{};
    return t_;
  }
  const Tensor& operator*() const { return get(); }
  const Tensor* operator->() const { return &get(); }
  bool defined() const { return t_.defined(); }

 private:
  Tensor t_;
  uint64_t version_ = 0;
};

// An op's saved state with its formula, type-erased for the node (graph.h).
struct SavedState {
  virtual ~SavedState() = default;
  virtual Grads backward(const Grads& grads) const = 0;
};

template <class State>
struct TypedSaved final : SavedState {
  using Formula = Grads (*)(const State&, const Grads&);
  TypedSaved(State s, Formula f) : state(std::move(s)), formula(f) {}
  Grads backward(const Grads& grads) const override { return formula(state, grads); }
  State state;
  Formula formula;
};

}  // namespace ditto::autograd
