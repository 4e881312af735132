#pragma once
// The op table (op_table.def): the op ids and typed access to their kernels (the table as data:
// ops/op_info.h).
#include <cstdint>
#include <span>

#include "core/views.h"
#include "ops/op_info.h"
#include "ops/signatures.h"

namespace ditto::ops {

enum class OpId : uint16_t {
#define DITTO_OP(id, name, sig, kind) id,
#include "ops/op_table.def"
  kCount
};

template <OpId id>
struct OpSignature;
#define DITTO_OP(id, name, sig, kind) \
  template <>                         \
  struct OpSignature<OpId::id> {      \
    using type = kernel_sig::sig;     \
  };
#include "ops/op_table.def"

}  // namespace ditto::ops
