// ditto::audit: the recorder (fed by the dispatcher's hook, src/ops/dispatch.h), the log format,
// its reader and the comparison of two logs.
//
// Log format (little-endian): "DITTOAUD", u32 version (1), u32 n and n bytes of JSON header (the
// configuration: threads, kernel level, values kept), then records, each u32 length and that many
// bytes: u8 kind; Op: u64 seq, str op, str kernel, str determinism, u8 backward, str node,
// str module, u64 attrs, i64 step, u16 nargs, per argument i8 dtype, u8 ndim, i64 sizes[ndim],
// u64 before, u64 after, u8 has_values [u64 nbytes, bytes]; Mark: u64 seq, str name, i64 value.
// A str is u16 length and its bytes. Everything after the header depends only on the program and
// its inputs, so two runs that agree write the same bytes.
#include "ditto/audit.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "core/audit_hooks.h"
#include "ditto/capability.h"
#include "ditto/error.h"
#include "ditto/fingerprint.h"
#include "ditto/threads.h"

namespace ditto {
namespace detail {

std::atomic<bool> g_audit_on{false};

namespace {

constexpr char kMagic[8] = {'D', 'I', 'T', 'T', 'O', 'A', 'U', 'D'};
constexpr uint32_t kVersion = 1;

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
  for (const Tensor* t : tensors_) before_.push_back(t->defined() ? fingerprint(*t) : 0);
  t_recording = false;
}

void AuditCall::after(const Tensor* result) {
  if (!active_) return;
  t_recording = true;
  if (result) tensors_.push_back(result), before_.push_back(0);
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!audit_on() || !r.out) {
    t_recording = false;
    return;
  }
  const uint64_t seq = r.seq++;
  std::vector<uint64_t> after;
  for (std::size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor& t = *tensors_[i];
    if (!t.defined()) {
      after.push_back(0);
      continue;
    }
    uint64_t h = fingerprint(t);
    if (static_cast<int64_t>(seq) == r.perturb && h != before_[i] && t.numel() > 0) {
      // the test hook: one bit of element 0 of the first written tensor, as a kernel gone wrong would
      auto* p = static_cast<uint8_t*>(t.raw_data());
      p[0] ^= 1;
      h = fingerprint(t);
      r.perturb = -1;
    }
    after.push_back(h);
  }
  Buf rec;
  rec.put(static_cast<uint8_t>(audit::Record::Op));
  rec.put(seq);
  rec.str(op_);
  rec.str(kernel_);
  rec.str(determinism_);
  rec.put(static_cast<uint8_t>(!t_nodes.empty()));
  rec.str(t_nodes.empty() ? std::string() : t_nodes.back());
  rec.str(module_path());
  rec.put(attrs_);
  rec.put(r.step);
  rec.put(static_cast<uint16_t>(std::min<std::size_t>(tensors_.size(), 65535)));
  const bool values = keep_values(r);
  for (std::size_t i = 0; i < tensors_.size() && i < 65535; ++i) {
    const Tensor& t = *tensors_[i];
    rec.put(static_cast<int8_t>(t.defined() ? static_cast<int8_t>(t.dtype()) : -1));
    const auto nd = static_cast<uint8_t>(t.defined() ? t.dim() : 0);
    rec.put(nd);
    for (uint8_t d = 0; d < nd; ++d) rec.put(t.size(d));
    rec.put(before_[i]);
    rec.put(after[i]);
    const bool keep = values && t.defined() && after[i] != before_[i];
    rec.put(static_cast<uint8_t>(keep));
    if (keep) {
      const Tensor c = t.contiguous();
      const auto n = static_cast<uint64_t>(c.numel()) * c.element_size();
      rec.put(n);
      rec.b.append(static_cast<const char*>(c.raw_data()), n);
    }
  }
  write_record(r, rec);
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

void start(const std::string& path, const std::string& values) {
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
  std::ostringstream h;
  h << "{\"threads\": " << get_num_threads() << ", \"kernel_level\": \"" << cpu_capability_name()
    << "\", \"values\": \"" << r.values << "\"}";
  const std::string header = h.str();
  r.out.write(detail::kMagic, sizeof detail::kMagic);
  r.out.write(reinterpret_cast<const char*>(&detail::kVersion), sizeof detail::kVersion);
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

// ---- reading

namespace {

struct In {
  const std::string& path;
  const std::string& data;
  std::size_t pos = 0, end = 0;
  [[noreturn]] void bad(const std::string& what) const {
    ditto::detail::fail("ditto-audit", path, ": ", what, " at byte ", pos);
  }
  void need(std::size_t n) const {
    if (n > end - pos) bad("truncated record");
  }
  template <class T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, data.data() + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  std::string str() {
    const auto n = get<uint16_t>();
    need(n);
    std::string s = data.substr(pos, n);
    pos += n;
    return s;
  }
};

}  // namespace

Log read_log(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) ditto::detail::fail("ditto-audit", "cannot open ", path);
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string data = ss.str();
  In in{path, data, 0, data.size()};
  if (data.size() < 16 || std::memcmp(data.data(), detail::kMagic, 8) != 0)
    ditto::detail::fail("ditto-audit", path, " is not a ditto audit log");
  in.pos = 8;
  if (in.get<uint32_t>() != detail::kVersion) in.bad("unknown log version");
  Log log;
  log.path = path;
  const auto hn = in.get<uint32_t>();
  in.need(hn);
  log.header = data.substr(in.pos, hn);
  in.pos += hn;
  while (in.pos < data.size()) {
    in.end = data.size();
    const auto n = in.get<uint32_t>();
    in.need(n);
    in.end = in.pos + n;
    Record rec;
    const auto kind = in.get<uint8_t>();
    if (kind == Record::Mark) {
      rec.kind = Record::Mark;
      rec.seq = in.get<uint64_t>();
      rec.op = in.str();
      rec.step = in.get<int64_t>();
    } else if (kind == Record::Op) {
      rec.seq = in.get<uint64_t>();
      rec.op = in.str();
      rec.kernel = in.str();
      rec.determinism = in.str();
      rec.backward = in.get<uint8_t>() != 0;
      rec.node = in.str();
      rec.module = in.str();
      rec.attrs = in.get<uint64_t>();
      rec.step = in.get<int64_t>();
      const auto nargs = in.get<uint16_t>();
      for (uint16_t i = 0; i < nargs; ++i) {
        Arg a;
        a.dtype = in.get<int8_t>();
        if (a.dtype < -1 || a.dtype > 4) in.bad("bad dtype");
        const auto nd = in.get<uint8_t>();
        for (uint8_t d = 0; d < nd; ++d) {
          a.sizes.push_back(in.get<int64_t>());
          if (a.sizes.back() < 0) in.bad("negative size");
        }
        a.before = in.get<uint64_t>();
        a.after = in.get<uint64_t>();
        a.has_values = in.get<uint8_t>() != 0;
        if (a.has_values) {
          const auto nb = in.get<uint64_t>();
          in.need(nb);
          a.values.assign(data.begin() + static_cast<std::ptrdiff_t>(in.pos),
                          data.begin() + static_cast<std::ptrdiff_t>(in.pos + nb));
          in.pos += nb;
        }
        rec.args.push_back(std::move(a));
      }
    } else {
      in.bad("unknown record kind");
    }
    if (in.pos != in.end) in.bad("record longer than its contents");
    log.records.push_back(std::move(rec));
  }
  return log;
}

// ---- comparing

namespace {

bool same_shapes(const Record& x, const Record& y) {
  if (x.kind != y.kind || x.op != y.op || x.args.size() != y.args.size()) return false;
  for (std::size_t k = 0; k < x.args.size(); ++k)
    if (x.args[k].dtype != y.args[k].dtype || x.args[k].sizes != y.args[k].sizes) return false;
  return true;
}

// The same op on the same inputs: what aligning two programs' logs pairs up.
bool same_call(const Record& x, const Record& y) {
  if (!same_shapes(x, y)) return false;
  if (x.kind == Record::Mark) return x.step == y.step;
  if (x.attrs != y.attrs) return false;
  for (std::size_t k = 0; k < x.args.size(); ++k)
    if (x.args[k].before != y.args[k].before) return false;
  return true;
}

constexpr std::size_t kAlignWindow = 256;

}  // namespace

Divergence diff(const Log& a, const Log& b, bool align) {
  Divergence d;
  std::size_t i = 0, j = 0;
  auto differ = [&](bool structural, std::string what) {
    d.differ = true;
    d.index = i;
    d.index_b = j;
    d.structural = structural;
    d.what = std::move(what);
    return d;
  };
  while (i < a.records.size() && j < b.records.size()) {
    const Record &x = a.records[i], &y = b.records[j];
    if (!same_shapes(x, y)) {
      if (align) {
        // Skip what one program does and the other does not (making a tensor from a list, say):
        // the nearest record ahead in either log that is the same call as the other's.
        std::size_t skip_b = 0, skip_a = 0;
        for (std::size_t k = 1; k < kAlignWindow && !skip_b && j + k < b.records.size(); ++k)
          if (same_call(x, b.records[j + k])) skip_b = k;
        for (std::size_t k = 1; k < kAlignWindow && !skip_a && i + k < a.records.size(); ++k)
          if (same_call(a.records[i + k], y)) skip_a = k;
        if (skip_b && (!skip_a || skip_b <= skip_a)) {
          j += skip_b, d.skipped_b += skip_b;
          continue;
        }
        if (skip_a) {
          i += skip_a, d.skipped_a += skip_a;
          continue;
        }
      }
      if (x.kind != y.kind || x.op != y.op)
        return differ(true, "the runs took different paths: '" + x.op + "' in one, '" + y.op + "' in the other");
      return differ(true, "'" + x.op + "' has arguments of other shapes or dtypes");
    }
    if (x.kind == Record::Mark) {
      if (x.step != y.step) return differ(true, "mark '" + x.op + "' has other values");
      ++i, ++j;
      continue;
    }
    bool tensors = true, outputs = true;
    for (std::size_t k = 0; k < x.args.size(); ++k) {
      tensors = tensors && x.args[k].before == y.args[k].before;
      outputs = outputs && x.args[k].after == y.args[k].after;
    }
    const bool inputs = tensors && x.attrs == y.attrs;
    if (!outputs || !inputs) {
      differ(false, inputs    ? "its inputs are the same bits, its results are not: the runs part here"
                    : tensors ? "its tensor inputs are the same bits, its other arguments (scalars, dims, flags) are "
                                "not: the program passed other values here"
                              : "its inputs already differ, and no earlier op's results did: they came from outside "
                                "ditto's ops (data, a file, a tensor written in place by the program)");
      d.inputs_matched = inputs;
      return d;
    }
    ++i, ++j;
  }
  if (i < a.records.size() || j < b.records.size()) {
    if (align) {  // what is left in one log only is skipped too
      d.skipped_a += a.records.size() - i, d.skipped_b += b.records.size() - j;
      return d;
    }
    differ(true, "one log ends after " + std::to_string(std::min(i, j)) + " records, the other goes on");
  }
  return d;
}

std::optional<ValueDiff> value_diff(const Arg& a, const Arg& b) {
  if (!a.has_values || !b.has_values || a.values.size() != b.values.size() || a.dtype != b.dtype) return std::nullopt;
  ValueDiff v;
  v.ulp_histogram.assign(33, 0);
  auto one = [&](auto x, auto y, auto ux, auto uy) {
    ++v.count;
    if (ux == uy) return;
    ++v.differing;
    const double dx = static_cast<double>(x), dy = static_cast<double>(y);
    const double ad = std::fabs(dx - dy);
    if (std::isfinite(ad)) {
      v.max_abs = std::max(v.max_abs, ad);
      const double m = std::max(std::fabs(dx), std::fabs(dy));
      if (m > 0) v.max_rel = std::max(v.max_rel, ad / m);
    }
    if (!std::isfinite(dx) || !std::isfinite(dy) || std::signbit(dx) != std::signbit(dy)) {
      ++v.ulp_histogram.back();
      return;
    }
    const auto ulps = static_cast<uint64_t>(ux > uy ? ux - uy : uy - ux);
    const int bucket = std::min(31, static_cast<int>(std::bit_width(ulps)) - 1);
    ++v.ulp_histogram[static_cast<std::size_t>(bucket)];
  };
  const uint8_t* pa = a.values.data();
  const uint8_t* pb = b.values.data();
  if (a.dtype == 3) {  // float32
    for (std::size_t i = 0; i + 4 <= a.values.size(); i += 4) {
      float x, y;
      uint32_t ux, uy;
      std::memcpy(&x, pa + i, 4), std::memcpy(&y, pb + i, 4), std::memcpy(&ux, pa + i, 4), std::memcpy(&uy, pb + i, 4);
      one(x, y, ux, uy);
    }
  } else if (a.dtype == 4) {  // float64
    for (std::size_t i = 0; i + 8 <= a.values.size(); i += 8) {
      double x, y;
      uint64_t ux, uy;
      std::memcpy(&x, pa + i, 8), std::memcpy(&y, pb + i, 8), std::memcpy(&ux, pa + i, 8), std::memcpy(&uy, pb + i, 8);
      one(x, y, ux, uy);
    }
  } else {
    const std::size_t w = a.dtype == 2 ? 8 : a.dtype == 1 ? 4 : 1;
    for (std::size_t i = 0; i + w <= a.values.size(); i += w) {
      int64_t x = 0, y = 0;
      std::memcpy(&x, pa + i, w), std::memcpy(&y, pb + i, w);
      ++v.count;
      if (x != y) ++v.differing, v.max_abs = std::max(v.max_abs, std::fabs(static_cast<double>(x - y)));
    }
  }
  return v;
}

}  // namespace audit
}  // namespace ditto
