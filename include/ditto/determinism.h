#pragma once
// Deterministic mode, as torch.use_deterministic_algorithms. The state is process-wide and safe
// to read and change from any thread. The op table declares each kernel's determinism class;
// the dispatcher, and nothing else, enforces the mode (docs/determinism.md lists every op).
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

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
  std::string op;                       // the op that warned
  std::string message;                  // full text
  bool nondeterministic_alert = false;  // a warn_only alert ("<op> does not have a deterministic ...")
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

// Lets only the named ops run their nondeterministic kernel, silently, while the guard lives and
// only on the thread that made it; every other op is still switched, refused or warned about as
// the mode says, and other threads see no exemption. (PyTorch users ask for this: issues
// #126164, #83392, #72831.) Names are the op table's (`ditto-ops` lists them); a name also
// covers its variants ("put_" covers "put_.accumulate"). An unknown name throws ditto::Error.
// Guards nest; each restores the thread's list on exit, also by exception.
//   ditto::AllowNondeterministic guard({"max_unpooling2d_forward_out"});
// With the environment variable DITTO_EXEMPTION_LOG set to a path, each name a guard of the
// process asks for is appended to that file once; `ditto-ops --exemptions PATH` lists them.
class AllowNondeterministic {
 public:
  AllowNondeterministic(std::initializer_list<std::string_view> ops);
  explicit AllowNondeterministic(const std::vector<std::string>& ops);
  ~AllowNondeterministic();
  AllowNondeterministic(const AllowNondeterministic&) = delete;
  AllowNondeterministic& operator=(const AllowNondeterministic&) = delete;

 private:
  std::size_t restore_;  // the length of the thread's list before this guard
};

// Every name an AllowNondeterministic guard of this process has asked for, in first-use order.
std::vector<std::string> requested_nondeterministic_exemptions();

}  // namespace ditto
