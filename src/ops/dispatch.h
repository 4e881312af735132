#pragma once
// The dispatcher: the only place where deterministic mode is enforced (docs/design.md).
#include <type_traits>

#include "core/audit_hooks.h"
#include "ops/op_table.h"

namespace ditto::ops {

// Picks op id's kernel for device: the first one listed, or, in deterministic mode, the first
// Deterministic one. With none, deterministic mode refuses the op (NondeterministicError), or
// with warn_only warns and runs the first kernel. Throws if the op has no kernel for device.
const KernelEntry& select_kernel(OpId id, Device device);

template <OpId id>
typename OpSignature<id>::type* kernel(Device device) {
  return reinterpret_cast<typename OpSignature<id>::type*>(select_kernel(id, device).fn);
}

// Runs k, a kernel of op id that select_kernel chose, with args: recorded in ditto::audit's log
// when it is on (views are not: they compute nothing, and the ops reading them record their bits).
template <OpId id, class... Args>
decltype(auto) run(const KernelEntry& k, Args&&... args) {
  auto* fn = reinterpret_cast<typename OpSignature<id>::type*>(k.fn);
  if (detail::audit_on() && op_entry(id).kind != OpKind::View) [[unlikely]] {
    detail::AuditCall rec(op_entry(id).name, k.impl, determinism_name(k.determinism));
    (rec.arg(args), ...);
    rec.before();
    using R = decltype(fn(std::forward<Args>(args)...));
    if constexpr (std::is_void_v<R>) {
      fn(std::forward<Args>(args)...);
      rec.after();
    } else {
      R out = fn(std::forward<Args>(args)...);
      if constexpr (std::is_same_v<std::decay_t<R>, Tensor>)
        rec.after(&out);
      else
        rec.after();
      return out;
    }
  } else {
    return fn(std::forward<Args>(args)...);
  }
}

// Runs op id on device with args: run(select_kernel(id, device), args...).
template <OpId id, class... Args>
decltype(auto) call(Device device, Args&&... args) {
  return run<id>(select_kernel(id, device), std::forward<Args>(args)...);
}

// Chooses op id's kernel on device now (the mode's refusal included) and returns the call that
// runs it with args later, copied (tensors share their storage): for ops run side by side.
template <OpId id, class... Args>
auto bind(Device device, Args... args) {
  const KernelEntry& k = select_kernel(id, device);
  return [&k, args...] { run<id>(k, args...); };
}

// Runs id2 (the 1-D and 2-D form of an op) or id3 (its 3-D form) when spatial_dims is 3: rows of
// one signature whose kernels serve every rank.
template <OpId id2, OpId id3, class... Args>
void call_by_dims(int spatial_dims, Device device, Args&&... args) {
  if (spatial_dims == 3)
    call<id3>(device, std::forward<Args>(args)...);
  else
    call<id2>(device, std::forward<Args>(args)...);
}

}  // namespace ditto::ops
