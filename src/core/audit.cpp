// ditto::audit's recorder, fed by the dispatcher's hook (src/ops/dispatch.h) and by audit::record
// (other libraries' recorders). It writes the format of core/audit_format.h; the logs are read and
// compared in core/audit_log.cpp.
#include "ditto/audit.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "core/audit_format.h"
#include "core/audit_hash.h"
#include "core/audit_hooks.h"
#include "ditto/capability.h"
#include "ditto/error.h"
#include "ditto/threads.h"

namespace ditto {
namespace detail {

std::atomic<bool> g_audit_on{false};

namespace {

struct Recorder {
  std::mutex mu;
  std::ofstream out;
  std::string path;
  uint64_t seq = 0;
  int64_t step = -1;
  std::string values;  // "", "all", "step:N"
  int64_t values_step = -1;
  int64_t perturb = -1;  // test hook: DITTO_AUDIT_PERTURB=seq flips a bit of that record's first written tensor
};
Recorder& recorder() {
  static Recorder* r = new Recorder();  // never destroyed: records may come from static destructors
  return *r;
}

thread_local bool t_recording = false;  // this thread is inside a record (hashing): no nested records
thread_local std::vector<std::string> t_modules;
thread_local std::vector<std::string> t_nodes;

struct Buf {
  std::string b;
  template <class T>
  void put(const T& v) {
    b.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void str(const std::string& s) {
    const auto n = static_cast<uint16_t>(std::min<std::size_t>(s.size(), 65535));
    put(n);
    b.append(s.data(), n);
  }
};

void write_record(Recorder& r, const Buf& rec) {
  const auto n = static_cast<uint32_t>(rec.b.size());
  r.out.write(reinterpret_cast<const char*>(&n), sizeof n);
  r.out.write(rec.b.data(), static_cast<std::streamsize>(rec.b.size()));
}

bool keep_values(const Recorder& r) { return r.values == "all" || (r.values_step >= 0 && r.step == r.values_step); }

std::string module_path() {
  std::string p;
  for (const std::string& m : t_modules) p += (p.empty() ? "" : ".") + m;
  return p;
}

}  // namespace

AuditCall::AuditCall(const char* op, const char* kernel, const char* determinism)
    : active_(audit_on() && !t_recording), op_(op), kernel_(kernel), determinism_(determinism) {}

AuditCall::~AuditCall() = default;

void AuditCall::before() {
  if (!active_) return;
  t_recording = true;
  before_.reserve(tensors_.size());
  for (const Tensor* t : tensors_) before_.push_back(t->defined() ? audit_hash(*t) : 0);
  t_recording = false;
}

namespace {

// Appends an op record for tensors (hashed before the kernel into before) with the recorder locked:
// hashes them again, and keeps the values of the written ones when the log keeps values.
void append_op(Recorder& r, const std::string& op, const std::string& kernel, const std::string& determinism,
               bool backward, const std::string& node, uint64_t attrs, const std::vector<const Tensor*>& tensors,
               const std::vector<uint64_t>& before) {
  const uint64_t seq = r.seq++;
  std::vector<uint64_t> after;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = *tensors[i];
    if (!t.defined()) {
      after.push_back(0);
      continue;
    }
    uint64_t h = audit_hash(t);
    if (static_cast<int64_t>(seq) == r.perturb && h != before[i] && t.numel() > 0) {
      // the test hook: one bit of element 0 of the first written tensor, as a kernel gone wrong would
      auto* p = static_cast<uint8_t*>(t.raw_data());
      p[0] ^= 1;
      h = audit_hash(t);
      r.perturb = -1;
    }
    after.push_back(h);
  }
  Buf rec;
  rec.put(static_cast<uint8_t>(audit::Record::Op));
  rec.put(seq);
  rec.str(op);
  rec.str(kernel);
  rec.str(determinism);
  rec.put(static_cast<uint8_t>(backward));
  rec.str(node);
  rec.str(module_path());
  rec.put(attrs);
  rec.put(r.step);
  rec.put(static_cast<uint16_t>(std::min<std::size_t>(tensors.size(), 65535)));
  const bool values = keep_values(r);
  for (std::size_t i = 0; i < tensors.size() && i < 65535; ++i) {
    const Tensor& t = *tensors[i];
    rec.put(static_cast<int8_t>(t.defined() ? static_cast<int8_t>(t.dtype()) : -1));
    const auto nd = static_cast<uint8_t>(t.defined() ? t.dim() : 0);
    rec.put(nd);
    for (uint8_t d = 0; d < nd; ++d) rec.put(t.size(d));
    rec.put(before[i]);
    rec.put(after[i]);
    const bool keep = values && t.defined() && after[i] != before[i];
    rec.put(static_cast<uint8_t>(keep));
    if (keep) {
      const Tensor c = t.contiguous();
      const auto n = static_cast<uint64_t>(c.numel()) * c.element_size();
      rec.put(n);
      rec.b.append(static_cast<const char*>(c.raw_data()), n);
    }
  }
  write_record(r, rec);
}

}  // namespace

void AuditCall::after(const Tensor* result) {
  if (!active_) return;
  t_recording = true;
  if (result) tensors_.push_back(result), before_.push_back(0);
  Recorder& r = recorder();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    if (audit_on() && r.out)
      append_op(r, op_, kernel_, determinism_, !t_nodes.empty(), t_nodes.empty() ? std::string() : t_nodes.back(),
                attrs_, tensors_, before_);
  }
  t_recording = false;
}

AuditNodeScope::AuditNodeScope(const std::string& node) : pushed_(audit_on()) {
  if (pushed_) t_nodes.push_back(node);
}
AuditNodeScope::~AuditNodeScope() {
  if (pushed_) t_nodes.pop_back();
}

}  // namespace detail

namespace audit {

using detail::recorder;

void start(const std::string& path, const std::string& values, const std::string& recorder_name) {
  detail::Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.out.is_open()) r.out.close();
  r.out.open(path, std::ios::binary | std::ios::trunc);
  if (!r.out) ditto::detail::fail("audit", "cannot write the log ", path);
  r.path = path;
  r.seq = 0;
  r.step = -1;
  r.values = values;
  if (values.empty())
    if (const char* v = std::getenv("DITTO_AUDIT_VALUES")) r.values = v;
  if (r.values == "1") r.values = "all";
  if (r.values == "none" || r.values == "0") r.values.clear();
  r.values_step = -1;
  if (r.values.rfind("step:", 0) == 0) {
    char* end = nullptr;
    r.values_step = std::strtoll(r.values.c_str() + 5, &end, 10);
    if (*end || r.values_step < 0)
      ditto::detail::fail("audit", "DITTO_AUDIT_VALUES must be all, 1 or step:N, not '", r.values, "'");
  } else if (!r.values.empty() && r.values != "all") {
    ditto::detail::fail("audit", "DITTO_AUDIT_VALUES must be all, 1 or step:N, not '", r.values, "'");
  }
  r.perturb = -1;
  if (const char* p = std::getenv("DITTO_AUDIT_PERTURB")) r.perturb = std::atoll(p);
  for (const char c : recorder_name)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
      ditto::detail::fail("audit", "a recorder's name must not hold quotes, backslashes or control characters");
  std::ostringstream h;
  h << "{\"recorder\": \"" << (recorder_name.empty() ? "ditto" : recorder_name) << "\"";
  if (recorder_name.empty())
    h << ", \"threads\": " << get_num_threads() << ", \"kernel_level\": \"" << cpu_capability_name() << "\"";
  h << ", \"values\": \"" << r.values << "\"}";
  const std::string header = h.str();
  r.out.write(kLogMagic, sizeof kLogMagic);
  r.out.write(reinterpret_cast<const char*>(&kLogVersion), sizeof kLogVersion);
  const auto n = static_cast<uint32_t>(header.size());
  r.out.write(reinterpret_cast<const char*>(&n), sizeof n);
  r.out.write(header.data(), n);
  detail::g_audit_on.store(true, std::memory_order_relaxed);
  static const bool at_exit = (std::atexit([] { stop(); }), true);  // the log is complete when the program ends
  (void)at_exit;
}

void stop() {
  detail::Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  detail::g_audit_on.store(false, std::memory_order_relaxed);
  if (r.out.is_open()) r.out.close();
}

uint64_t hash(const Tensor& t) {
  if (!t.defined()) return 0;
  const bool was = detail::t_recording;
  detail::t_recording = true;  // (no op of its own is recorded)
  const uint64_t h = detail::audit_hash(t);
  detail::t_recording = was;
  return h;
}

void record(const std::string& op, const std::string& kernel, bool backward, const std::vector<Tensor>& args,
            const std::vector<uint64_t>& before) {
  if (!detail::audit_on() || detail::t_recording) return;
  DITTO_CHECK(before.size() == args.size(), "audit", "record: ", args.size(), " arguments but ", before.size(),
              " hashes from before");
  std::vector<const Tensor*> tensors;
  for (const Tensor& t : args) tensors.push_back(&t);
  detail::Recorder& r = recorder();
  detail::t_recording = true;
  try {
    std::lock_guard<std::mutex> lock(r.mu);
    if (r.out) detail::append_op(r, op, kernel, "", backward, "", 0, tensors, before);
  } catch (...) {
    detail::t_recording = false;
    throw;
  }
  detail::t_recording = false;
}

void mark(const std::string& name, int64_t value) {
  if (!detail::audit_on()) return;
  detail::Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.out) return;
  if (name == "step") r.step = value;
  detail::Buf rec;
  rec.put(static_cast<uint8_t>(Record::Mark));
  rec.put(r.seq++);
  rec.str(name);
  rec.put(value);
  detail::write_record(r, rec);
}

bool push_module(const std::string& name) {
  if (!detail::audit_on() || name.empty()) return false;
  detail::t_modules.push_back(name);
  return true;
}
void pop_module() {
  if (!detail::t_modules.empty()) detail::t_modules.pop_back();
}

ModuleScope::ModuleScope(const std::string& name) : pushed_(push_module(name)) {}
ModuleScope::~ModuleScope() {
  if (pushed_) pop_module();
}

namespace {
// DITTO_AUDIT=path: records the whole program.
const bool g_from_env = [] {
  if (const char* p = std::getenv("DITTO_AUDIT"); p && *p) start(p);
  return true;
}();
}  // namespace

}  // namespace audit
}  // namespace ditto
