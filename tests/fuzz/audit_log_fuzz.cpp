// libFuzzer target for ditto::audit's log reader and comparisons (src/core/audit_log.cpp): any
// bytes either parse into a log or raise ditto::Error; a log that parses compares equal to
// itself, in step and by values, and against the committed logs nothing reads out of bounds (no
// crash, no other exception, no sanitizer report). Built and run by reader_fuzz.cmake (CTest
// Fuzz.AuditLogReader) with Debian's clang; the corpus is three small logs
// (tests/fuzz/audit-corpus: a ditto program's, with and without values, and a PyTorch program's).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ditto/audit.h"
#include "ditto/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace audit = ditto::audit;
  try {
    const audit::Log log = audit::parse_log(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    if (audit::diff(log, log).differ || audit::diff(log, log, /*align=*/true).differ ||
        audit::diff_values(log, log).differ)
      std::abort();
    static const audit::Log other = [] {
      audit::Log l;
      l.records.resize(3);
      l.records[1].args.resize(2);
      l.records[1].args[0].dtype = 3;
      l.records[1].args[0].sizes = {2};
      l.records[1].args[0].after = 1;
      l.records[1].args[0].has_values = true;
      l.records[1].args[0].values.assign(8, 0);
      return l;
    }();
    audit::diff(log, other), audit::diff(other, log), audit::diff(log, other, true);
    audit::diff_values(log, other), audit::diff_values(other, log);
    for (const audit::Record& r : log.records)
      for (const audit::Arg& a : r.args) {
        audit::value_diff(a, a);
        for (const audit::Arg& b : other.records[1].args) audit::value_diff(a, b);
      }
  } catch (const ditto::Error&) {
  }
  return 0;
}
