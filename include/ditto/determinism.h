#pragma once
// Deterministic mode, as torch.use_deterministic_algorithms. The state is process-wide and safe
// to read and change from any thread. The op table declares each kernel's determinism class;
// the dispatcher, and nothing else, enforces the mode (docs/determinism.md lists every op).
#include <functional>
#include <string>
#include <string_view>
#include <variant>

namespace ditto {

// With mode on, an op whose kernels are all nondeterministic is refused with
// NondeterministicError ("<op> does not have a deterministic implementation, but you set
// 'ditto::use_deterministic_algorithms(true)'. ..."); with warn_only it runs and warns once per
// op per process (see set_warning_handler). Ops with a deterministic alternative switch to it.
void use_deterministic_algorithms(bool mode, bool warn_only = false);
bool are_deterministic_algorithms_enabled();
bool is_deterministic_algorithms_warn_only_enabled();

// PyTorch's debug mode: 0 "default" (off), 1 "warn" (on, warn_only), 2 "error" (on).
// Other values are rejected with ditto::Error.
void set_deterministic_debug_mode(int mode);
void set_deterministic_debug_mode(std::string_view mode);
int get_deterministic_debug_mode();

// With the mode and this flag on (the default), empty/empty_like/empty_strided and the grown part
// of resize_ are filled with NaN (floating) or the dtype's maximum (integers; true for bool).
void set_fill_uninitialized_memory(bool fill);
bool get_fill_uninitialized_memory();

// Warnings (warn_only alerts and others). The default handler writes each distinct message to
// stderr once per process; an installed handler sees every warning. Pass nullptr to restore the
// default. The handler may be called from any thread that runs an op.
struct Warning {
  std::string op;       // the op that warned
  std::string message;  // full text
};
using WarningHandler = std::function<void(const Warning&)>;
void set_warning_handler(WarningHandler handler);

// Sets mode, warn_only and fill for a scope; restores all three on exit, even by exception.
class DeterministicGuard {
 public:
  explicit DeterministicGuard(bool mode, bool warn_only = false, bool fill_uninitialized_memory = true);
  ~DeterministicGuard();
  DeterministicGuard(const DeterministicGuard&) = delete;
  DeterministicGuard& operator=(const DeterministicGuard&) = delete;

 private:
  bool mode_, warn_only_, fill_;
};

}  // namespace ditto
