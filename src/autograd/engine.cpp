// The backward pass. Nodes run in decreasing creation order among those whose inputs are all
// complete, so the order of every gradient sum is a function of the graph alone.
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/graph.h"
#include "core/audit_hooks.h"
#include "core/tensor_impl.h"
#include "ditto/factory.h"
#include "ditto/ops.h"

namespace ditto::autograd {

Tensor sum_to(const Tensor& grad, const Shape& shape) {
  if (grad.sizes() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  if (lead < 0)
    detail::fail("backward", "gradient of shape ", detail::shape_str(grad.sizes()), " cannot be reduced to shape ",
                 detail::shape_str(shape));
  Shape dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && grad.size(lead + static_cast<int64_t>(i)) != 1) dims.push_back(lead + static_cast<int64_t>(i));
  Tensor r = dims.empty() ? grad : ditto::sum(grad, dims, true);
  if (lead > 0 || r.sizes() != shape) r = r.reshape(shape);
  return r;
}

namespace {

struct Later {
  bool operator()(const Node* a, const Node* b) const { return a->sequence_nr < b->sequence_nr; }
};

void accumulate(Tensor& slot, const Tensor& g) { slot = slot.defined() ? slot + g : g; }

}  // namespace

void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads, bool retain_graph) {
  NoGradGuard no_grad;  // backward formulas are not themselves recorded
  std::vector<std::pair<Edge, Tensor>> starts;
  for (std::size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    const AutogradMeta* m = meta(r);
    if (!m || !m->requires_grad)
      detail::fail("backward", "element ", i, " of tensors does not require grad and does not have a grad_fn");
    Tensor g = i < grads.size() ? grads[i] : Tensor();
    if (!g.defined()) {
      if (r.numel() != 1) detail::fail("backward", "grad can be implicitly created only for scalar outputs");
      g = ones_like(r);
    } else if (g.sizes() != r.sizes()) {
      detail::fail("backward", "gradient has shape ", detail::shape_str(g.sizes()), " but the tensor has shape ",
                   detail::shape_str(r.sizes()));
    } else if (g.dtype() != r.dtype()) {
      g = g.to(r.dtype());  // PyTorch casts the seed gradient to the output's dtype
    }
    Edge e;
    if (m->grad_fn) {
      e = {m->grad_fn, m->output_nr};
    } else {  // a leaf root: its gradient is the seed itself
      std::shared_ptr<Node> acc = m->grad_accumulator.lock();
      if (!acc) {
        // No op has used this leaf yet, so it has no AccumulateGrad node: add the seed to its
        // .grad directly, as that node would (the seed is cloned: the leaf must not alias it).
        Tensor leaf = r;
        AutogradMeta& lm = ensure_meta(leaf);
        lm.grad = lm.grad.defined() ? lm.grad + g : g.clone();
        continue;
      }
      e = {acc, 0};
    }
    starts.push_back({e, g});
  }

  // Count, for each node, the edges that reach it from the roots.
  std::unordered_map<Node*, int> deps;  // lookup only; never iterated
  std::unordered_set<Node*> seen;
  std::vector<Node*> stack;
  for (auto& [e, g] : starts)
    if (seen.insert(e.node.get()).second) stack.push_back(e.node.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next) {
      if (!e.node) continue;
      ++deps[e.node.get()];
      if (seen.insert(e.node.get()).second) stack.push_back(e.node.get());
    }
  }

  std::unordered_map<Node*, std::vector<Tensor>> buffers;  // lookup only
  std::unordered_map<Node*, std::shared_ptr<Node>> keep;   // holds nodes alive while queued
  std::priority_queue<Node*, std::vector<Node*>, Later> ready;
  auto buffer = [&](const std::shared_ptr<Node>& n) -> std::vector<Tensor>& {
    auto it = buffers.find(n.get());
    if (it == buffers.end()) {
      it = buffers.emplace(n.get(), std::vector<Tensor>(n->num_outputs)).first;
      keep.emplace(n.get(), n);
    }
    return it->second;
  };
  for (auto& [e, g] : starts) accumulate(buffer(e.node)[e.input_nr], g);
  std::unordered_set<Node*> queued;
  for (auto& [e, g] : starts)
    if (deps[e.node.get()] == 0 && queued.insert(e.node.get()).second) ready.push(e.node.get());

  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    std::vector<Tensor> in = std::move(buffers[n]);
    buffers.erase(n);
    std::shared_ptr<Node> hold = std::move(keep[n]);
    keep.erase(n);
    for (auto& [slot, weak] : n->retained)
      if (auto impl = weak.lock(); impl && slot < in.size() && in[slot].defined()) {
        Tensor t(impl);
        AutogradMeta& m = ensure_meta(t);
        m.grad = m.grad.defined() ? m.grad + in[slot] : in[slot].clone();
      }
    std::vector<Tensor> out;
    {
      detail::AuditNodeScope audit(n->name);
      out = n->apply(std::move(in));
    }
    if (!retain_graph) n->release();
    for (std::size_t i = 0; i < n->next.size(); ++i) {
      const Edge& e = n->next[i];
      if (!e.node) continue;
      if (i < out.size() && out[i].defined()) {
        Tensor g = sum_to(out[i], n->input_shapes[i]);
        if (g.dtype() != n->input_dtypes[i]) g = g.to(n->input_dtypes[i]);
        accumulate(buffer(e.node)[e.input_nr], g);
      } else {
        buffer(e.node);
      }
      if (--deps[e.node.get()] == 0) ready.push(e.node.get());
    }
  }
}

}  // namespace ditto::autograd
