#pragma once
// The op table as data (ops/op_table.def, one row per op), for code that reads it rather than
// calls ops: the dispatcher, ditto-ops, tests. It does not include the table itself, so adding
// an op does not rebuild its readers; typed kernel access is in ops/op_table.h.
#include <cstdint>
#include <span>

#include "ditto/tensor.h"

namespace ditto::ops {

enum class OpId : uint16_t;  // its enumerators: ops/op_table.h

enum class Determinism : uint8_t { Deterministic, Nondeterministic };
// Ops made of other ops (matmul, reshape, softmax's backward, most nn layers) have no row: their
// determinism is that of the table ops they run.
enum class OpKind : uint8_t { Primitive, View };
const char* determinism_name(Determinism d);
const char* op_kind_name(OpKind k);

using ErasedFn = void (*)();

struct KernelEntry {
  Device device;
  Determinism determinism;
  const char* impl;
  ErasedFn fn;  // the kernel, cast to the op's signature by kernel<>()
};

struct OpEntry {
  OpId id;
  const char* id_name;  // the row's identifier, e.g. "index_put_accumulate"
  const char* name;
  OpKind kind;
  std::span<const KernelEntry> kernels;
  // Differentiable ops (a DITTO_BACKWARD row; its formula: ops::Formula<id>): the node's name
  // (PyTorch's, e.g. "MulBackward0") and the table ops the formula runs (their kernels decide the
  // backward's determinism).
  bool differentiable = false;
  const char* node_name = nullptr;
  const char* backward_uses = nullptr;
  // Ops with a DITTO_UNARY row: the public function made from the row, the row's rule ("Float",
  // "Same", "SameNotBool") and its line for the header. Tests, the fuzzer and Python reach every
  // such op through unary.
  Tensor (*unary)(const Tensor&) = nullptr;
  const char* unary_rule = nullptr;
  const char* unary_doc = nullptr;
};

std::span<const OpEntry> all_ops();
const OpEntry& op_entry(OpId id);
// The op's name, from its row: the name errors and the determinism messages use.
inline const char* op_name(OpId id) { return op_entry(id).name; }

// The kernels the dispatcher picks for op on device (ops::select_kernel decides with these):
// the first one listed, and the first Deterministic one (null when there is none: deterministic
// mode refuses the op). first is null when the op has no kernel for device.
struct KernelChoice {
  const KernelEntry* first = nullptr;
  const KernelEntry* deterministic = nullptr;
};
KernelChoice kernel_choice(const OpEntry& op, Device device);

// How many times the dispatcher has selected a kernel of op (every ops::call counts once), and
// how many times deterministic mode refused it (warn_only included), in this process, from all
// threads. Tests use them to check what really ran: Invariance.CorpusCoversEveryOpInTheTable and
// DeterminismRefusal.EveryNondeterministicKernelIsTested.
uint64_t dispatch_count(OpId id);
uint64_t refusal_count(OpId id);

}  // namespace ditto::ops
