#pragma once
// The autograd graph: nodes, edges, saved values, and recording from the public ops.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "autograd/saved.h"
#include "ditto/autograd.h"

namespace ditto::autograd {

struct Node;

struct Edge {
  std::shared_ptr<Node> node;  // null: the input needs no gradient
  uint32_t input_nr = 0;       // which gradient slot of node receives it
};

struct Node {
  explicit Node(std::string name, std::size_t num_outputs);
  virtual ~Node() = default;
  // grads[i] is the gradient of the node's i-th output (undefined if none reached it);
  // returns one gradient per edge in next.
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grads) = 0;
  virtual void release() {}

  std::string name;
  uint64_t sequence_nr;
  std::size_t num_outputs;
  std::vector<Edge> next;
  std::vector<Shape> input_shapes;  // per edge: gradients are summed back to these shapes
  std::vector<ScalarType> input_dtypes;
  std::vector<Shape> output_shapes;
  std::vector<ScalarType> output_dtypes;
  // Non-leaf tensors made by this node that asked for retain_grad(), by output slot.
  std::vector<std::pair<uint32_t, std::weak_ptr<TensorImpl>>> retained;
};

struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  Tensor grad;
  std::shared_ptr<Node> grad_fn;  // null for leaves
  uint32_t output_nr = 0;
  std::weak_ptr<Node> grad_accumulator;  // leaves: the unique AccumulateGrad node
  bool view_of_leaf = false;             // a view (of a view ...) of a leaf that requires grad: no in-place ops
};

AutogradMeta* meta(const Tensor& t);  // null when the tensor has none
AutogradMeta& ensure_meta(const Tensor& t);
bool needs_grad(const Tensor& t);  // requires grad and grad mode is on
template <class... T>
bool any_needs_grad(const T&... t) {
  return (needs_grad(t) || ...);
}
bool any_needs_grad_list(const std::vector<Tensor>& ts);

// Records a node: inputs are the differentiable inputs (in the formula's order), outputs
// receive the node as grad_fn; backward runs saved's formula on its state. op names the op in
// errors. Call only when any_needs_grad(inputs). Public ops call ops::record<id> (ops/record.h),
// which takes the names and the formula from the op's row and checks the state's type.
void record_node(const char* op, const char* node_name, std::unique_ptr<SavedState> saved,
                 const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs);
// Sums a broadcast gradient back to shape (leading dims and dims of size 1).
Tensor sum_to(const Tensor& grad, const Shape& shape);
// The in-place form: self's history becomes that of result (whose data was copied into self).
void rebase_history(const Tensor& self, const Tensor& result, const char* op);
// Refuses an in-place op on a leaf that requires grad (while grad mode is on).
void check_inplace(const Tensor& self, const char* op);
// Marks view (a view op's output, already recorded) as a view of a leaf when base is one or is
// itself such a view, so that check_inplace refuses in-place ops on it, as PyTorch does.
void mark_view(const Tensor& base, const Tensor& view);

}  // namespace ditto::autograd
