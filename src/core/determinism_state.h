#pragma once
#include <string>
#include <string_view>

namespace ditto::detail {
bool deterministic_algorithms();
bool deterministic_fill();  // mode && fill_uninitialized_memory
// Called by the dispatcher for a refused kernel: throws NondeterministicError, or with warn_only
// emits the warning and returns.
void alert_not_deterministic(std::string_view op);
void warn(std::string_view op, const std::string& message, bool alert = false);
}  // namespace ditto::detail
