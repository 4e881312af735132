#pragma once
// The op table (op_table.def) as data, and typed access to its kernels.
#include <cstdint>
#include <span>

#include "autograd/saved.h"
#include "ops/signatures.h"
#include "core/views.h"

namespace ditto::ops {

enum class Determinism : uint8_t { Deterministic, Nondeterministic };
enum class OpKind : uint8_t { Primitive, View, Composite };
const char* determinism_name(Determinism d);
const char* op_kind_name(OpKind k);

using ErasedFn = void (*)();

struct KernelEntry {
  Device device;
  Determinism determinism;
  const char* impl;
  ErasedFn fn;  // the kernel, cast to the op's signature by kernel<>()
};

enum class OpId : uint16_t {
#define DITTO_OP(id, name, sig, kind) id,
#define DITTO_KERNEL(...)
#define DITTO_BACKWARD(...)
#include "ops/op_table.def"
#undef DITTO_OP
#undef DITTO_KERNEL
#undef DITTO_BACKWARD
  kCount
};

struct OpEntry {
  OpId id;
  const char* name;
  OpKind kind;
  std::span<const KernelEntry> kernels;
  // Differentiable ops: the backward formula, its node's name (PyTorch's, e.g. "MulBackward0")
  // and the table ops the formula runs (their kernels decide the backward's determinism).
  autograd::BackwardFn backward = nullptr;
  const char* node_name = nullptr;
  const char* backward_uses = nullptr;
};

std::span<const OpEntry> all_ops();
const OpEntry& op_entry(OpId id);

template <OpId id> struct OpSignature;
#define DITTO_OP(id, name, sig, kind) \
  template <> struct OpSignature<OpId::id> { using type = kernel_sig::sig; };
#define DITTO_KERNEL(...)
#define DITTO_BACKWARD(...)
#include "ops/op_table.def"
#undef DITTO_OP
#undef DITTO_KERNEL
#undef DITTO_BACKWARD

}  // namespace ditto::ops
