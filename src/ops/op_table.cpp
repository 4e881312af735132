#include "ops/op_table.h"

#include <vector>

#include "cpu/kernels.h"

// The kernels and public functions of DITTO_UNARY rows are declared by their rows (the kernels
// are defined in cpu/elementwise.cpp, the functions in ops/unary_ops.cpp).
namespace ditto {
namespace cpu {
#define DITTO_UNARY(id, rule, doc) void id(const TensorBase& out, const TensorBase& in);
#include "ops/op_table.def"
}  // namespace cpu
#define DITTO_UNARY(id, rule, doc) Tensor id(const Tensor& x);
#include "ops/op_table.def"
}  // namespace ditto

namespace ditto::ops {
namespace {

template <class Sig, class Fn>
ErasedFn erase(Fn* fn) {
  Sig* typed = fn;  // a kernel whose signature differs from its op's fails to compile here
  return reinterpret_cast<ErasedFn>(typed);
}

struct FlatKernel {
  OpId op;
  KernelEntry entry;
};

const std::vector<FlatKernel>& flat_kernels() {
  static const std::vector<FlatKernel> k = {
#define DITTO_KERNEL(id, device, det, impl, fn) \
  {OpId::id, {Device::device, Determinism::det, impl, erase<OpSignature<OpId::id>::type>(&fn)}},
#include "ops/op_table.def"
  };
  return k;
}

struct Table {
  std::vector<std::vector<KernelEntry>> kernels;  // per op, in declaration order
  std::vector<OpEntry> ops;
  Table() {
    struct Decl {
      OpId id;
      const char* id_name;
      const char* name;
      OpKind kind;
    };
    const Decl decls[] = {
#define DITTO_OP(id, name, sig, kind) {OpId::id, #id, name, OpKind::kind},
#include "ops/op_table.def"
    };
    struct Back {
      OpId id;
      const char* node;
      const char* uses;
    };
    const Back backs[] = {
#define DITTO_BACKWARD(id, node, fn, state, uses) {OpId::id, node, uses},
#include "ops/op_table.def"
    };
    kernels.resize(static_cast<std::size_t>(OpId::kCount));
    for (const FlatKernel& k : flat_kernels()) kernels[static_cast<std::size_t>(k.op)].push_back(k.entry);
    for (const Decl& d : decls)
      ops.push_back({d.id, d.id_name, d.name, d.kind, kernels[static_cast<std::size_t>(d.id)]});
    for (const Back& b : backs) {
      OpEntry& e = ops[static_cast<std::size_t>(b.id)];
      e.differentiable = true;
      e.node_name = b.node;
      e.backward_uses = b.uses;
    }
    struct Unary {
      OpId id;
      Tensor (*fn)(const Tensor&);
      const char* rule;
      const char* doc;
    };
    const Unary unaries[] = {
#define DITTO_UNARY(id, rule, doc) {OpId::id, &ditto::id, #rule, doc},
#include "ops/op_table.def"
    };
    for (const Unary& u : unaries) {
      OpEntry& e = ops[static_cast<std::size_t>(u.id)];
      e.unary = u.fn;
      e.unary_rule = u.rule;
      e.unary_doc = u.doc;
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

const char* determinism_name(Determinism d) {
  return d == Determinism::Deterministic ? "deterministic" : "nondeterministic";
}

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::Primitive: return "primitive";
    case OpKind::View: return "view";
  }
  return "?";
}

std::span<const OpEntry> all_ops() { return table().ops; }
const OpEntry& op_entry(OpId id) { return table().ops[static_cast<std::size_t>(id)]; }

}  // namespace ditto::ops
