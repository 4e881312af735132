#include "ops/dispatch.h"

#include "core/determinism_state.h"
#include "ditto/error.h"

namespace ditto::ops {

const KernelEntry& select_kernel(OpId id, Device device) {
  const OpEntry& op = op_entry(id);
  const KernelEntry* first = nullptr;
  const KernelEntry* first_det = nullptr;
  for (const KernelEntry& k : op.kernels) {
    if (k.device != device) continue;
    if (!first) first = &k;
    if (!first_det && k.determinism == Determinism::Deterministic) first_det = &k;
  }
  if (!first) detail::fail(op.name, "no kernel for device ", device_name(device));
  if (!detail::deterministic_algorithms()) return *first;
  if (first_det) return *first_det;
  detail::alert_not_deterministic(op.name);  // throws unless warn_only
  return *first;
}

}  // namespace ditto::ops
