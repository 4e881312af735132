#include "ditto/determinism.h"

#include <atomic>
#include <iostream>
#include <mutex>
#include <set>
#include <string>

#include "core/determinism_state.h"
#include "ditto/error.h"

namespace ditto {
namespace {

// mode, warn_only and fill live in one atomic word so a reader never sees a torn combination.
constexpr unsigned kMode = 1, kWarnOnly = 2, kFill = 4;
std::atomic<unsigned> g_state{kFill};

struct WarnState {
  std::mutex mu;
  WarningHandler handler;
  std::set<std::string> seen;  // messages already printed by the default handler
};
WarnState& warn_state() {
  static WarnState* s = new WarnState();  // outlives static destruction of other objects
  return *s;
}

void set_bits(unsigned set, unsigned mask) {
  unsigned old = g_state.load();
  while (!g_state.compare_exchange_weak(old, (old & ~mask) | (set & mask))) {
  }
}

}  // namespace

void use_deterministic_algorithms(bool mode, bool warn_only) {
  set_bits((mode ? kMode : 0) | (warn_only ? kWarnOnly : 0), kMode | kWarnOnly);
}
bool are_deterministic_algorithms_enabled() { return g_state.load() & kMode; }
bool is_deterministic_algorithms_warn_only_enabled() { return g_state.load() & kWarnOnly; }

void set_deterministic_debug_mode(int mode) {
  switch (mode) {
    case 0: use_deterministic_algorithms(false, false); return;
    case 1: use_deterministic_algorithms(true, true); return;
    case 2: use_deterministic_algorithms(true, false); return;
  }
  detail::fail("set_deterministic_debug_mode", "invalid value of debug_mode, expected 0, 1, or 2, but got ", mode);
}

void set_deterministic_debug_mode(std::string_view mode) {
  if (mode == "default") return set_deterministic_debug_mode(0);
  if (mode == "warn") return set_deterministic_debug_mode(1);
  if (mode == "error") return set_deterministic_debug_mode(2);
  detail::fail("set_deterministic_debug_mode",
               "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got ", mode);
}

int get_deterministic_debug_mode() {
  const unsigned s = g_state.load();
  if (!(s & kMode)) return 0;
  return (s & kWarnOnly) ? 1 : 2;
}

void set_fill_uninitialized_memory(bool fill) { set_bits(fill ? kFill : 0, kFill); }
bool get_fill_uninitialized_memory() { return g_state.load() & kFill; }

void set_warning_handler(WarningHandler handler) {
  WarnState& w = warn_state();
  std::lock_guard<std::mutex> lock(w.mu);
  w.handler = std::move(handler);
}

// Save and set in one atomic exchange (and restore in one store): reading the flags one by one
// could save a combination no thread ever set, while another thread changes them.
DeterministicGuard::DeterministicGuard(bool mode, bool warn_only, bool fill) {
  const unsigned old = g_state.exchange((mode ? kMode : 0) | (warn_only ? kWarnOnly : 0) | (fill ? kFill : 0));
  mode_ = old & kMode;
  warn_only_ = old & kWarnOnly;
  fill_ = old & kFill;
}

DeterministicGuard::~DeterministicGuard() {
  g_state.store((mode_ ? kMode : 0) | (warn_only_ ? kWarnOnly : 0) | (fill_ ? kFill : 0));
}

namespace detail {

bool deterministic_algorithms() { return g_state.load() & kMode; }
bool deterministic_fill() { return (g_state.load() & (kMode | kFill)) == (kMode | kFill); }

void warn(std::string_view op, const std::string& message, bool alert) {
  WarnState& w = warn_state();
  WarningHandler handler;
  {
    std::lock_guard<std::mutex> lock(w.mu);
    handler = w.handler;
    if (!handler) {
      if (!w.seen.insert(message).second) return;
      std::cerr << "ditto warning: " << message << std::endl;
      return;
    }
  }
  handler(Warning{std::string(op), message, alert});
}

void alert_not_deterministic(std::string_view op) {
  const unsigned s = g_state.load();
  if (!(s & kMode)) return;
  const std::string name(op);
  if (s & kWarnOnly) {
    warn(op,
         name +
             " does not have a deterministic implementation, but you set "
             "'ditto::use_deterministic_algorithms(true, warn_only=true)'. Its result may differ "
             "between runs.",
         /*alert=*/true);
    return;
  }
  throw NondeterministicError(
      name, name +
                " does not have a deterministic implementation, but you set "
                "'ditto::use_deterministic_algorithms(true)'. You can turn off determinism just for this "
                "operation (for example with a ditto::DeterministicGuard(false) around it), or you can use "
                "the 'warn_only=true' option, if that's acceptable for your application.");
}

}  // namespace detail
}  // namespace ditto
