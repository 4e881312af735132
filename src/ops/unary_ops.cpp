// The elementwise ops on one tensor. Those with a DITTO_UNARY row (ops/op_table.def) are made
// from it here, function and Tensor method: the row's rule says the result's dtype, its
// DITTO_BACKWARD row the state saved for the formula. neg, whose bool message is its own, is
// written out with the same template.
#include <type_traits>

#include "autograd/graph.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;
using ops::OpId;

namespace {

enum class UnaryRule { Float, Same, SameNotBool };

template <OpId id, UnaryRule rule>
Tensor unary(const Tensor& x) {
  const char* name = ops::op_name(id);
  detail::check_defined(x, name);
  if (rule == UnaryRule::SameNotBool && x.dtype() == kBool) fail(name, "not implemented for 'Bool'");
  const ScalarType t = rule == UnaryRule::Float && !is_floating(x.dtype()) ? kFloat32 : x.dtype();
  Tensor out = detail::new_tensor(x.sizes(), t, name);
  const Tensor xc = detail::cast(x, t);
  ops::call<id>(x.device(), out, xc);
  if constexpr (ops::Differentiable<id>) {
    if (autograd::any_needs_grad(x)) {
      using State = typename ops::Formula<id>::State;
      namespace f = autograd::formulas;
      if constexpr (std::is_same_v<State, f::SavedInput>)
        ops::record<id>({x}, {out}, f::SavedInput{xc});
      else if constexpr (std::is_same_v<State, f::SavedOutput>)
        ops::record<id>({x}, {out}, f::SavedOutput{out});
      else
        ops::record<id>({x}, {out}, State{});  // NoSaved; another state does not compile here
    }
  }
  return out;
}

}  // namespace

Tensor neg(const Tensor& x) {
  const char* op = ops::op_name(OpId::neg);
  detail::check_defined(x, op);
  if (x.dtype() == kBool)
    fail(op, "negation, the `-` operator, on a bool tensor is not supported. Use logical_not instead.");
  return unary<OpId::neg, UnaryRule::Same>(x);
}

// The function, declared here too so that a new row builds before its header line exists.
#define DITTO_UNARY(id, rule, doc) \
  Tensor id(const Tensor& x);      \
  Tensor id(const Tensor& x) { return unary<OpId::id, UnaryRule::rule>(x); }
#include "ops/op_table.def"

// The method: include/ditto/tensor.h must declare it (tools/gen_op_headers.py writes it there).
#define DITTO_UNARY(id, rule, doc)                                                          \
  template <class T>                                                                        \
  concept has_method_##id = requires(const T& t) {                                          \
    t.id();                                                                                 \
  };                                                                                        \
  static_assert(has_method_##id<Tensor>, "Tensor::" #id                                     \
                                         "() is not declared in "                           \
                                         "include/ditto/tensor.h: run python3 "             \
                                         "tools/gen_op_headers.py --update (DITTO_UNARY)"); \
  Tensor Tensor::id() const { return ditto::id(*this); }
#include "ops/op_table.def"

}  // namespace ditto
