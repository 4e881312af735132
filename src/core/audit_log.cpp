// ditto::audit's logs read (as untrusted input: a truncated or damaged log raises ditto::Error
// naming it) and compared: in step (diff), and by values (diff_values, for two libraries).
// The format is in core/audit_format.h. Apart from ditto::Error this file needs nothing of the
// library, so tests/fuzz/audit_log_fuzz.cpp builds it alone under libFuzzer.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/audit_format.h"
#include "ditto/audit.h"
#include "ditto/error.h"

namespace ditto::audit {

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
  return parse_log(ss.str(), path);
}

Log parse_log(const std::string& data, const std::string& path) {
  In in{path, data, 0, data.size()};
  if (data.size() < 16 || std::memcmp(data.data(), kLogMagic, 8) != 0)
    ditto::detail::fail("ditto-audit", path, " is not a ditto audit log");
  in.pos = 8;
  if (in.get<uint32_t>() != kLogVersion) in.bad("unknown log version");
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

namespace {

// A value as diff_values matches it: dtype, element count and hash (the shapes may differ: a
// PyTorch scalar is a one-element tensor in ditto's kernels).
struct Value {
  int8_t dtype;
  uint64_t numel, hash;
  bool operator==(const Value&) const = default;
};
struct ValueHash {
  std::size_t operator()(const Value& v) const {
    return v.hash ^ (v.numel * 0x9E3779B97F4A7C15ULL) ^ uint64_t(v.dtype);
  }
};
Value value_of(const Arg& a, uint64_t h) {
  uint64_t n = 1;
  for (int64_t s : a.sizes) n *= static_cast<uint64_t>(s);  // (wraps for absurd sizes: only compared)
  return {a.dtype, n, h};
}

}  // namespace

std::string recorder_of(const Log& log) {
  const std::string key = "\"recorder\": \"";
  const std::size_t at = log.header.find(key);
  if (at == std::string::npos) return "ditto";
  const std::size_t end = log.header.find('"', at + key.size());
  return end == std::string::npos ? "ditto" : log.header.substr(at + key.size(), end - at - key.size());
}

constexpr std::size_t kCounterparts = 16;

Divergence diff_values(const Log& a, const Log& b) {
  std::unordered_set<Value, ValueHash> in_a;  // every value a holds
  for (const Record& r : a.records)
    for (const Arg& x : r.args)
      if (x.dtype >= 0) in_a.insert(value_of(x, x.after)), in_a.insert(value_of(x, x.before));
  // Each value b holds, and the first record that can follow it there (the one reading it, or the
  // one after the one computing it); and, by dtype and element count, the records of b writing a
  // value that a never holds: b's own versions of what a computed.
  std::unordered_map<Value, std::size_t, ValueHash> first_b;
  std::unordered_map<Value, std::vector<std::size_t>, ValueHash> foreign;  // (hash 0: dtype and count only)
  for (std::size_t j = 0; j < b.records.size(); ++j)
    for (const Arg& x : b.records[j].args) {
      if (x.dtype < 0) continue;
      if (x.before) first_b.emplace(value_of(x, x.before), j);
      if (!x.written()) continue;
      const Value v = value_of(x, x.after);
      first_b.emplace(v, j + 1);
      if (!in_a.count(v)) foreign[value_of(x, 0)].push_back(j);
    }
  auto foreign_between = [&](const Value& v, std::size_t from, std::size_t to) {
    const auto f = foreign.find({v.dtype, v.numel, 0});
    if (f == foreign.end()) return false;
    const auto it = std::lower_bound(f->second.begin(), f->second.end(), from);
    return it != f->second.end() && *it < to;
  };

  // a's records in order: inputs, results b lacks, and where in b each record can stand (after all
  // its inputs: where b holds them, or where the inputs of a's record computing them stand)
  const std::size_t n = a.records.size();
  std::vector<std::vector<Value>> inputs(n), missing(n);
  std::vector<std::size_t> missing_arg(n, 0), start(n, 0), end(n, 0);
  std::vector<char> writes(n, 0), known(n, 1);  // has results (item() has none); all inputs placed in b
  std::unordered_map<Value, std::vector<std::size_t>, ValueHash> consumers;
  std::unordered_map<Value, std::size_t, ValueHash> producer;  // of each result b lacks
  std::unordered_set<Value, ValueHash> seen;                   // results and read inputs of a so far
  std::unordered_set<Value, ValueHash> results;                // results of a so far
  for (std::size_t i = 0; i < n; ++i) {
    const Record& r = a.records[i];
    if (r.kind != Record::Op) continue;
    for (const Arg& x : r.args) {
      if (x.dtype < 0) continue;
      // an input: an argument read and not written, or the old value of one written in place (an
      // output's memory before its kernel is not one unless a held that value already)
      const Value v = value_of(x, x.before);
      if (x.written() && !(x.before && seen.count(v))) continue;
      inputs[i].push_back(v), consumers[v].push_back(i);
      // (a value from outside the records, a parameter made before recording began, is placed
      // nowhere: b may first show it late, in another form's place)
      if (const auto f = first_b.find(v); f != first_b.end()) {
        if (results.count(v)) start[i] = std::max(start[i], f->second);
      } else if (const auto p = producer.find(v); p != producer.end()) {
        start[i] = std::max(start[i], start[p->second]);
        known[i] = known[i] && known[p->second];
      } else {
        known[i] = 0;
      }
    }
    for (std::size_t k = 0; k < r.args.size(); ++k) {
      const Arg& x = r.args[k];
      if (x.dtype < 0) continue;
      if (!x.written()) {
        seen.insert(value_of(x, x.before));
        continue;
      }
      writes[i] = 1;
      const Value v = value_of(x, x.after);
      seen.insert(v), results.insert(v);
      if (const auto f = first_b.find(v); f != first_b.end()) {
        end[i] = std::max(end[i], f->second);
      } else {
        if (missing[i].empty()) missing_arg[i] = k;
        missing[i].push_back(v);
        producer.emplace(v, i);
      }
    }
  }
  // A result b lacks is one b never materialised (it computed it inside a fused op, or by other
  // pieces) when a later record of a reads it and gets results b holds (or is such a record
  // itself), and b wrote no value of its size and dtype that a lacks in between: else b computed
  // its own version of it, and that is where the runs part. (A reader with no results, or one
  // that reads only shapes, which the recorders leave out, vouches for nothing.)
  std::vector<char> fused(n, 0);
  for (std::size_t i = n; i-- > 0;) {
    if (missing[i].empty()) continue;
    std::size_t best = SIZE_MAX;
    for (const Value& v : missing[i])
      if (const auto c = consumers.find(v); c != consumers.end())
        for (const std::size_t j : c->second)
          if (j > i && writes[j] && (missing[j].empty() || fused[j])) best = std::min(best, end[j]);
    if (best == SIZE_MAX) continue;
    bool own = false;
    for (const Value& v : missing[i]) own = own || foreign_between(v, start[i], best);
    if (!own) fused[i] = 1, end[i] = best;
  }
  Divergence d;
  for (std::size_t i = 0; i < n; ++i) {
    if (a.records[i].kind != Record::Op) continue;
    if (missing[i].empty()) {
      ++d.matched;
      continue;
    }
    if (fused[i]) {
      ++d.unmaterialised;
      continue;
    }
    d.differ = true;
    d.index = i;
    d.arg_a = missing_arg[i];
    d.inputs_matched = known[i];
    d.what = d.inputs_matched
                 ? "its inputs are values the other run holds too, its result is not: the runs part here"
                 : "its result is not in the other run, and neither are all its inputs: they came from outside the "
                   "ops recorded (data, a file, another initialisation)";
    // Its counterpart: the first of b's own versions after its inputs, or, where both logs kept
    // values, the nearest in value among the next few (b may compute pieces of that size first)
    const Arg& want = a.records[i].args[d.arg_a];
    const Value w = value_of(want, want.after);
    const auto f = foreign.find({w.dtype, w.numel, 0});
    if (f == foreign.end()) break;
    double best = 0;
    std::size_t tried = 0;
    for (auto it = std::lower_bound(f->second.begin(), f->second.end(), start[i]);
         it != f->second.end() && tried < kCounterparts; ++it) {
      const std::size_t j = *it;
      if (d.has_counterpart && j == d.index_b) continue;  // (a record writing two such values)
      for (std::size_t k = 0; k < b.records[j].args.size(); ++k) {
        const Arg& x = b.records[j].args[k];
        if (x.dtype != w.dtype || !x.written() || value_of(x, 0).numel != w.numel || in_a.count(value_of(x, x.after)))
          continue;
        const auto v = value_diff(want, x);
        ++tried;
        if (!d.has_counterpart || (v && v->max_abs < best)) {
          d.index_b = j, d.arg_b = k, d.has_counterpart = true, best = v ? v->max_abs : 0;
          if (!v) tried = kCounterparts;  // no values to compare: the first
        }
      }
    }
    break;
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

}  // namespace ditto::audit
