// Autograd metadata, recording, and the Tensor methods of autograd.
#include "autograd/graph.h"

#include <atomic>

#include "core/tensor_impl.h"
#include "ditto/factory.h"

namespace ditto {
namespace {
thread_local bool t_grad_enabled = true;
std::atomic<uint64_t> g_sequence{0};
}  // namespace

NoGradGuard::NoGradGuard() : prev_(t_grad_enabled) { t_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { t_grad_enabled = prev_; }
bool is_grad_enabled() { return t_grad_enabled; }
void set_grad_enabled(bool enabled) { t_grad_enabled = enabled; }

namespace autograd {

Node::Node(std::string n, std::size_t outputs)
    : name(std::move(n)), sequence_nr(g_sequence.fetch_add(1)), num_outputs(outputs) {}

AutogradMeta* meta(const Tensor& t) { return t.defined() ? t.impl()->autograd.get() : nullptr; }

AutogradMeta& ensure_meta(const Tensor& t) {
  if (!t.impl()->autograd) t.impl()->autograd = std::make_shared<AutogradMeta>();
  return *t.impl()->autograd;
}

bool needs_grad(const Tensor& t) {
  if (!t_grad_enabled || !t.defined()) return false;
  const AutogradMeta* m = meta(t);
  return m && m->requires_grad;
}

bool any_needs_grad_list(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts)
    if (needs_grad(t)) return true;
  return false;
}

namespace {

// Leaves collect gradients through one AccumulateGrad node each.
struct AccumulateGrad : Node {
  explicit AccumulateGrad(std::shared_ptr<TensorImpl> v) : Node("AccumulateGrad", 1), variable(std::move(v)) {}
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    Tensor g = std::move(grads[0]);
    if (!g.defined()) return {};
    AutogradMeta& m = *variable->autograd;
    if (!m.grad.defined()) {
      // The gradient is owned by the leaf: never alias a tensor someone else holds. A contiguous
      // gradient that nothing else references (the usual result of a backward formula) is taken
      // as it is; anything else is copied.
      const bool sole = g.impl_ptr().use_count() == 1 && g.impl()->storage.use_count() == 1 && !g.impl()->autograd;
      if (!(sole && g.is_contiguous())) g = g.is_contiguous() ? g.clone() : g.contiguous();
      m.grad = std::move(g);
    } else {
      m.grad = m.grad + g;
    }
    return {};
  }
  std::shared_ptr<TensorImpl> variable;
};

// A node for one op of the table: runs its backward formula on the op's saved state.
struct OpNode : Node {
  OpNode(const char* op, std::string node_name, std::size_t outputs, std::unique_ptr<SavedState> s)
      : Node(std::move(node_name), outputs), op(op), saved(std::move(s)) {}
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    if (!saved)
      throw Error("[" + std::string(op) +
                  "] trying to backward through the graph a second time (or directly access saved tensors after "
                  "they have already been freed). Specify retain_graph=true on the first backward call.");
    // Undefined incoming gradients are zeros of the output's shape.
    for (std::size_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined()) grads[i] = zeros(output_shapes[i], output_dtypes[i]);
    try {
      return saved->backward(grads);
    } catch (const SavedTensorModified&) {
      throw Error("[" + std::string(op) +
                  "] one of the variables needed for gradient computation has been "
                  "modified by an inplace operation: the backward of " +
                  name + " needs its saved value.");
    }
  }
  void release() override { saved.reset(); }
  const char* op;
  std::unique_ptr<SavedState> saved;  // null once released
};

Edge edge_of(const Tensor& t) {
  if (!needs_grad(t)) return {};
  AutogradMeta& m = *meta(t);
  if (m.grad_fn) return {m.grad_fn, m.output_nr};
  std::shared_ptr<Node> acc = m.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t.impl_ptr());
    m.grad_accumulator = acc;
  }
  return {acc, 0};
}

}  // namespace

void record_node(const char* op, const char* node_name, std::unique_ptr<SavedState> saved,
                 const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
  auto node = std::make_shared<OpNode>(op, node_name, outputs.size(), std::move(saved));
  for (const Tensor& in : inputs) {
    node->next.push_back(edge_of(in));
    node->input_shapes.push_back(in.defined() ? in.sizes() : Shape{});
    node->input_dtypes.push_back(in.defined() ? in.dtype() : kFloat32);
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    node->output_shapes.push_back(out.sizes());
    node->output_dtypes.push_back(out.dtype());
    if (!is_floating(out.dtype())) continue;  // integer outputs (indices) carry no gradient
    AutogradMeta& m = ensure_meta(out);
    m.requires_grad = true;
    m.grad_fn = node;
    m.output_nr = static_cast<uint32_t>(i);
  }
}

void zero_grad(std::vector<Tensor>& params, bool set_to_none) {
  for (Tensor& p : params) {
    Tensor& g = p.mutable_grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      g = Tensor();
    } else {
      NoGradGuard no_grad;
      g.zero_();
    }
  }
}

void check_inplace(const Tensor& self, const char* op) {
  const AutogradMeta* m = meta(self);
  if (!t_grad_enabled || !m || !m->requires_grad) return;
  if (!m->grad_fn) detail::fail(op, "a leaf Variable that requires grad is being used in an in-place operation.");
  if (m->view_of_leaf)
    detail::fail(op, "a view of a leaf Variable that requires grad is being used in an in-place operation.");
}

void mark_view(const Tensor& base, const Tensor& view) {
  const AutogradMeta* b = meta(base);
  if (!b || !b->requires_grad) return;
  if (AutogradMeta* v = meta(view)) v->view_of_leaf = !b->grad_fn || b->view_of_leaf;
}

void rebase_history(const Tensor& self, const Tensor& result, const char* op) {
  const AutogradMeta* r = meta(result);
  if (!t_grad_enabled || !r || !r->requires_grad) return;
  check_inplace(self, op);
  AutogradMeta& m = ensure_meta(self);
  m.requires_grad = true;
  m.grad_fn = r->grad_fn;
  m.output_nr = r->output_nr;
}

}  // namespace autograd

// --- Tensor methods
bool Tensor::requires_grad() const {
  const autograd::AutogradMeta* m = autograd::meta(*this);
  return m && m->requires_grad;
}

Tensor& Tensor::requires_grad_(bool requires_grad) {
  autograd::AutogradMeta& m = autograd::ensure_meta(*this);
  if (m.grad_fn) {
    if (!requires_grad)
      detail::fail(
          "requires_grad_",
          "you can only change requires_grad flags of leaf variables. If you want to use a "
          "computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    return *this;
  }
  if (requires_grad && !is_floating(dtype()))
    detail::fail("requires_grad_", "only Tensors of floating point dtype can require gradients, got ",
                 dtype_name(dtype()));
  m.requires_grad = requires_grad;
  return *this;
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  const autograd::AutogradMeta* m = autograd::meta(*this);
  return m ? m->grad : undefined;
}

Tensor& Tensor::mutable_grad() { return autograd::ensure_meta(*this).grad; }

bool Tensor::is_leaf() const {
  const autograd::AutogradMeta* m = autograd::meta(*this);
  return !m || !m->grad_fn;
}

std::string Tensor::grad_fn_name() const {
  const autograd::AutogradMeta* m = autograd::meta(*this);
  return m && m->grad_fn ? m->grad_fn->name : std::string();
}

Tensor& Tensor::retain_grad() {
  autograd::AutogradMeta& m = autograd::ensure_meta(*this);
  if (!m.requires_grad) detail::fail("retain_grad", "can't retain_grad on Tensor that has requires_grad=False");
  if (m.grad_fn && !m.retains_grad) m.grad_fn->retained.push_back({m.output_nr, impl_ptr()});
  m.retains_grad = true;
  return *this;
}

Tensor Tensor::detach() const { return detail::make_view(*this, sizes(), strides(), storage_offset()); }

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph);
}

}  // namespace ditto
