#pragma once
// ditto::audit: a log of every op the dispatcher runs, and where two logs first differ.
//
// With DITTO_AUDIT=path in the environment, or between start(path) and stop(), each kernel the
// dispatcher runs (forward and backward) appends a record: its sequence number, the op, the kernel
// and its determinism class, forward or backward (and the autograd node running), the module path
// (e.g. "blocks.1.attn"), and for each tensor argument its dtype, shape and an order-sensitive
// 64-bit hash of its bits in logical order before and after the kernel (ditto::fingerprint).
// mark("step", 3) splits the log into steps. diff() (the ditto-audit tool) walks two logs and
// reports the first record whose results differ, and whether its inputs were the same (then this
// op is where the runs part). Off by default: one relaxed atomic load per dispatch.
// See docs/audit.md.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ditto/tensor.h"

namespace ditto::detail {
extern std::atomic<bool> g_audit_on;
}

namespace ditto::audit {

// Starts recording to path (truncated), values as given ("none", "all": the written tensors of
// every op, "step:N": those of the records of step N), or as DITTO_AUDIT_VALUES says when "".
// recorder names another library whose ops record() writes (the header says "ditto" otherwise).
void start(const std::string& path, const std::string& values = "", const std::string& recorder = "");
void stop();
inline bool enabled() { return detail::g_audit_on.load(std::memory_order_relaxed); }
// A mark: records after it belong to step `value` when name is "step".
void mark(const std::string& name, int64_t value);

// For recorders of other programs (ditto.audit's PyTorch recorder, python/ditto/audit.py): the
// hash a record holds for a tensor (XXH3-64 of its bits in logical order; dtype and shape are
// recorded beside it), and a record of an op run outside ditto's dispatcher: args are its tensor
// arguments and results, before their hashes before it ran (0 for a result that did not exist).
uint64_t hash(const Tensor& t);
void record(const std::string& op, const std::string& kernel, bool backward, const std::vector<Tensor>& args,
            const std::vector<uint64_t>& before);

// The module path's stack on this thread (ModuleScope, and Python's Module.__call__); empty names
// are not pushed (push_module returns whether it pushed).
bool push_module(const std::string& name);
void pop_module();

// Names the module whose forward runs in this scope (Module calls make one); nested scopes join
// with "." into the records' module path.
class ModuleScope {
 public:
  explicit ModuleScope(const std::string& name);
  ~ModuleScope();
  ModuleScope(const ModuleScope&) = delete;
  ModuleScope& operator=(const ModuleScope&) = delete;

 private:
  bool pushed_;
};

// --- reading logs (untrusted input: a truncated or corrupted file raises ditto::Error naming it)
struct Arg {
  int8_t dtype = -1;  // ScalarType, or -1 for an undefined tensor
  std::vector<int64_t> sizes;
  uint64_t before = 0, after = 0;  // hashes of the bits before and after the kernel
  std::vector<uint8_t> values;     // the bits after, when the log keeps them (written arguments only)
  bool has_values = false;
  bool written() const { return before != after; }
};
struct Record {
  enum Kind : uint8_t { Op = 0, Mark = 1 } kind = Op;
  uint64_t seq = 0;
  int64_t step = -1;         // the last "step" mark's value, -1 before any
  std::string op, kernel;    // Mark: op holds the mark's name, step its value
  std::string determinism;   // the kernel's class in the op table
  bool backward = false;     // run by the autograd engine
  std::string node, module;  // the autograd node running it; the module path
  uint64_t attrs = 0;        // hash of the non-tensor arguments (scalars, dims, flags)
  std::vector<Arg> args;
};
struct Log {
  std::string path;
  std::string header;  // JSON: the configuration that recorded it (threads, kernel level, ...)
  std::vector<Record> records;
};
Log read_log(const std::string& path);
// The same from a log's bytes (path names it in errors).
Log parse_log(const std::string& bytes, const std::string& path);

struct Divergence {
  bool differ = false;
  std::size_t index = 0;                     // the first record that differs, in a (the records before it agree)
  std::size_t index_b = 0;                   // the same record in b (index, unless aligned)
  std::size_t skipped_a = 0, skipped_b = 0;  // records aligning skipped: in one program only
  std::string what;                          // one line: why the records differ
  bool inputs_matched = false;               // its tensor inputs (and attrs) were the same bits in both runs
  bool structural = false;                   // different ops, shapes or lengths: the runs took different paths
  // diff_values only: records of a whose results b also holds, and those whose results b never
  // held but whose consumers' results it does (b computed them fused or in other pieces); the
  // written argument of a's record that b lacks, and the argument of b's nearest record
  // (index_b) that stands for it
  std::size_t matched = 0, unmaterialised = 0, arg_a = 0, arg_b = 0;
  bool has_counterpart = false;
};
// Walks both logs in step. With align, records that only one log has (two programs that compute
// the same things by other paths: a tensor made from a list in one, loaded in the other) are
// skipped: at a record that differs in op or shapes, the nearest record ahead in either log that
// is the same call (op, shapes, inputs' bits) as the other's current one is taken instead.
Divergence diff(const Log& a, const Log& b, bool align = false);

// Two programs that compute the same values by other ops (a PyTorch program's log, written by
// ditto.audit's PyTorch recorder, and its ditto port's; ditto-audit diff picks this when the logs'
// recorders differ): walks a and asks of each record's results whether b holds the same values
// (dtype, element count and hash, in any op). The first record of a whose result b lacks, and
// which no later record of a gets back to (a fused op in b), is where the runs part; inputs_matched
// says whether b held all its inputs. Its counterpart in b (index_b, arg_b) is b's first record
// after all those inputs appeared that writes a tensor of the same dtype and element count.
Divergence diff_values(const Log& a, const Log& b);

// The log's recorder ("ditto", or another library's, from its header).
std::string recorder_of(const Log& log);

// For a written argument kept in both logs: how its values differ.
struct ValueDiff {
  int64_t count = 0, differing = 0;
  double max_abs = 0, max_rel = 0;
  std::vector<int64_t> ulp_histogram;  // [0]: 1 ulp, [1]: 2-3, [2]: 4-7, ... (log2 buckets), last: NaN/inf/sign
};
std::optional<ValueDiff> value_diff(const Arg& a, const Arg& b);

}  // namespace ditto::audit
