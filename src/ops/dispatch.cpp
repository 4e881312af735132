#include "ops/dispatch.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "core/determinism_state.h"
#include "ditto/determinism.h"
#include "ditto/error.h"

namespace ditto::ops {
namespace {

// The ops this thread's AllowNondeterministic guards exempt (a stack: guards nest).
thread_local std::vector<OpId> t_exempt;

// Always on: one relaxed increment per dispatch, next to a kernel call.
std::array<std::atomic<uint64_t>, static_cast<std::size_t>(OpId::kCount)> g_dispatched{}, g_refused{};

bool exempt(OpId id) { return std::find(t_exempt.begin(), t_exempt.end(), id) != t_exempt.end(); }

}  // namespace

KernelChoice kernel_choice(const OpEntry& op, Device device) {
  KernelChoice c;
  for (const KernelEntry& k : op.kernels) {
    if (k.device != device) continue;
    if (!c.first) c.first = &k;
    if (!c.deterministic && k.determinism == Determinism::Deterministic) c.deterministic = &k;
  }
  return c;
}

uint64_t dispatch_count(OpId id) { return g_dispatched[static_cast<std::size_t>(id)].load(std::memory_order_relaxed); }
uint64_t refusal_count(OpId id) { return g_refused[static_cast<std::size_t>(id)].load(std::memory_order_relaxed); }

const KernelEntry& select_kernel(OpId id, Device device) {
  const OpEntry& op = op_entry(id);
  g_dispatched[static_cast<std::size_t>(id)].fetch_add(1, std::memory_order_relaxed);
  const KernelChoice c = kernel_choice(op, device);
  if (!c.first) detail::fail(op.name, "no kernel for device ", device_name(device));
  if (!detail::deterministic_algorithms()) return *c.first;
  if (!t_exempt.empty() && exempt(id)) return *c.first;  // AllowNondeterministic: the default kernel, silently
  if (c.deterministic) return *c.deterministic;
  g_refused[static_cast<std::size_t>(id)].fetch_add(1, std::memory_order_relaxed);
  detail::alert_not_deterministic(op.name);  // throws unless warn_only
  return *c.first;
}

}  // namespace ditto::ops

namespace ditto {
namespace {

struct ExemptionLog {
  std::mutex mu;
  std::vector<std::string> names;  // first-use order
};
ExemptionLog& exemption_log() {
  static ExemptionLog* log = new ExemptionLog();  // outlives static destruction of other objects
  return *log;
}

// The table ops a name stands for: the op itself and its variants ("put_" -> "put_.accumulate").
std::vector<ops::OpId> ops_named(std::string_view name) {
  std::vector<ops::OpId> ids;
  for (const ops::OpEntry& op : ops::all_ops()) {
    const std::string_view n = op.name;
    if (n == name || (n.size() > name.size() && n.substr(0, name.size()) == name && n[name.size()] == '.'))
      ids.push_back(op.id);
  }
  if (ids.empty()) detail::fail("AllowNondeterministic", "unknown op '", name, "' (ditto-ops lists the op names)");
  return ids;
}

void note_requested(std::string_view name) {
  ExemptionLog& log = exemption_log();
  std::lock_guard<std::mutex> lock(log.mu);
  if (std::find(log.names.begin(), log.names.end(), name) != log.names.end()) return;
  log.names.emplace_back(name);
  if (const char* path = std::getenv("DITTO_EXEMPTION_LOG"); path && *path)
    std::ofstream(path, std::ios::app) << name << "\n";
}

template <class Names>
std::size_t push_exemptions(const Names& names) {
  std::vector<ops::OpId> ids;  // every name is checked before the thread's list changes
  for (const auto& name : names) {
    const std::vector<ops::OpId> more = ops_named(name);
    ids.insert(ids.end(), more.begin(), more.end());
  }
  for (const auto& name : names) note_requested(name);
  const std::size_t before = ops::t_exempt.size();
  ops::t_exempt.insert(ops::t_exempt.end(), ids.begin(), ids.end());
  return before;
}

}  // namespace

AllowNondeterministic::AllowNondeterministic(std::initializer_list<std::string_view> ops)
    : restore_(push_exemptions(ops)) {}
AllowNondeterministic::AllowNondeterministic(const std::vector<std::string>& ops) : restore_(push_exemptions(ops)) {}
AllowNondeterministic::~AllowNondeterministic() { ops::t_exempt.resize(restore_); }

std::vector<std::string> requested_nondeterministic_exemptions() {
  ExemptionLog& log = exemption_log();
  std::lock_guard<std::mutex> lock(log.mu);
  return log.names;
}

}  // namespace ditto
