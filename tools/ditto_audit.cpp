// ditto-audit: reads the logs ditto::audit writes (DITTO_AUDIT=path) and says where two runs part.
//
//   ditto-audit diff a.log b.log [--json] [--align | --values] [--plot out.png]
//                                            the first record whose results differ (exit 1), or
//                                            exit 0 when the logs agree; --align skips records
//                                            that only one program has; --values compares by
//                                            values (the first record of a whose result b never
//                                            holds; the default for logs of two libraries, a
//                                            PyTorch program's and its ditto port's); --plot
//                                            draws the first differing op's ulp histogram and
//                                            each op's largest difference along the run
//                                            (tools/audit_plot.py, matplotlib), from the values
//                                            the logs kept
//   ditto-audit show a.log [--step N] [--op NAME] [--module PREFIX] [--json]
//
// diff names the record (sequence number, step, op, kernel, module path, forward or backward and
// the autograd node) and says whether its inputs were the same bits in both runs (then this op is
// where the runs part) or already differed (then they came from outside ditto's ops). Where both
// logs kept the values (DITTO_AUDIT_VALUES), it prints how the results differ: elements, largest
// absolute and relative difference, and a histogram of the differences in ulps.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "ditto/audit.h"
#include "ditto/error.h"

#ifndef DITTO_AUDIT_PLOT
#define DITTO_AUDIT_PLOT "tools/audit_plot.py"
#endif

namespace audit = ditto::audit;
using nlohmann::json;

namespace {

const char* kDtypes[] = {"bool", "int32", "int64", "float32", "float64"};

std::string shape(const audit::Arg& a) {
  if (a.dtype < 0) return "undefined";
  std::string s = std::string(kDtypes[a.dtype]) + "[";
  for (std::size_t i = 0; i < a.sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(a.sizes[i]);
  return s + "]";
}

std::string hex(uint64_t h) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

json record_json(const audit::Record& r) {
  json j = {{"seq", r.seq}, {"step", r.step}};
  if (r.kind == audit::Record::Mark) {
    j["mark"] = r.op;
    return j;
  }
  j["op"] = r.op;
  j["kernel"] = r.kernel;
  j["determinism"] = r.determinism;
  j["direction"] = r.backward ? "backward" : "forward";
  j["node"] = r.node;
  j["module"] = r.module;
  j["attrs"] = hex(r.attrs);
  json args = json::array();
  for (const audit::Arg& a : r.args)
    args.push_back({{"tensor", shape(a)},
                    {"before", hex(a.before)},
                    {"after", hex(a.after)},
                    {"written", a.written()},
                    {"values", a.has_values}});
  j["args"] = args;
  return j;
}

std::string record_line(const audit::Record& r) {
  if (r.kind == audit::Record::Mark)
    return "#" + std::to_string(r.seq) + " mark " + r.op + " = " + std::to_string(r.step);
  std::string s = "#" + std::to_string(r.seq) + " step " + std::to_string(r.step) + " " + r.op + " [" + r.kernel +
                  ", " + r.determinism + "] " + (r.backward ? "backward (" + r.node + ")" : "forward");
  if (!r.module.empty()) s += " in " + r.module;
  for (const audit::Arg& a : r.args) s += " " + shape(a) + (a.written() ? "->" + hex(a.after).substr(0, 8) : "");
  return s;
}

// --plot: the data for tools/audit_plot.py, which draws it with matplotlib.
void draw(const audit::Log& a, const audit::Log& b, const audit::Divergence& d, const std::string& out) {
  json data = {{"series", json::array()}};
  if (d.index < a.records.size()) data["op"] = a.records[d.index].op, data["seq"] = a.records[d.index].seq;
  const std::size_t n = std::min(a.records.size(), b.records.size());
  bool hist = false;
  for (std::size_t i = 0; i < n; ++i) {  // the records in step (as far as the ops line up)
    const audit::Record &x = a.records[i], &y = b.records[i];
    if (x.op != y.op || x.args.size() != y.args.size()) break;
    double worst = -1;
    for (std::size_t k = 0; k < x.args.size(); ++k)
      if (const auto v = audit::value_diff(x.args[k], y.args[k])) {
        worst = std::max(worst, v->max_abs);
        if (!hist && v->differing && i >= d.index) data["ulp_histogram"] = v->ulp_histogram, hist = true;
      }
    if (worst >= 0) data["series"].push_back({i, worst});
  }
  if (data["series"].empty())
    throw ditto::Error(
        "[ditto-audit] --plot needs logs that kept values (record with DITTO_AUDIT_VALUES=all or step:N)");
  const std::string path = out + ".json";
  std::ofstream(path) << data.dump();
  const char* script = std::getenv("DITTO_AUDIT_PLOT_SCRIPT");
  const std::string cmd =
      std::string("/usr/bin/python3 '") + (script ? script : DITTO_AUDIT_PLOT) + "' '" + path + "' '" + out + "'";
  if (std::system(cmd.c_str()) != 0)
    throw ditto::Error("[ditto-audit] drawing " + out + " failed (needs python3-matplotlib): " + cmd);
  std::remove(path.c_str());
}

// How a written argument's values differ, where both logs kept them: into j and text.
void describe_values(const audit::Arg& x, const audit::Arg& y, json& arg, std::string& text) {
  const auto v = audit::value_diff(x, y);
  if (!v) return;
  arg["differing"] = v->differing;
  arg["count"] = v->count;
  arg["max_abs"] = v->max_abs;
  arg["max_rel"] = v->max_rel;
  arg["ulp_histogram"] = v->ulp_histogram;
  char line[256];
  std::snprintf(line, sizeof line, "    %lld of %lld elements differ; largest difference %.3g (relative %.3g)\n",
                static_cast<long long>(v->differing), static_cast<long long>(v->count), v->max_abs, v->max_rel);
  text += line;
  std::string hist = "    ulps:";
  for (std::size_t bkt = 0; bkt + 1 < v->ulp_histogram.size(); ++bkt)
    if (v->ulp_histogram[bkt])
      hist += " [" + std::to_string(1ULL << bkt) + ", " + std::to_string((2ULL << bkt) - 1) +
              "]: " + std::to_string(v->ulp_histogram[bkt]);
  if (v->ulp_histogram.back()) hist += " non-finite or sign: " + std::to_string(v->ulp_histogram.back());
  text += hist + "\n";
}

// Logs of two libraries (a PyTorch program and its ditto port): by values (audit::diff_values).
int diff_by_values(const audit::Log& a, const audit::Log& b, bool as_json) {
  const audit::Divergence d = audit::diff_values(a, b);
  const std::string ra = audit::recorder_of(a), rb = audit::recorder_of(b);
  json j = {{"differ", d.differ},
            {"a", a.path},
            {"b", b.path},
            {"by_values", true},
            {"recorders", {ra, rb}},
            {"matched", d.matched},
            {"unmaterialised", d.unmaterialised}};
  std::string text;
  const std::string counts = std::to_string(d.matched) + " records whose results " + b.path + " holds too, " +
                             std::to_string(d.unmaterialised) + " whose results it computed inside other ops";
  if (!d.differ) {
    text = "the values agree (" + ra + " and " + rb + "): " + counts + "\n";
  } else {
    const audit::Record& r = a.records[d.index];
    j["index"] = d.index;
    j["what"] = d.what;
    j["inputs_matched"] = d.inputs_matched;
    j["record_a"] = record_json(r);
    text = "the runs first part at record " + std::to_string(d.index) + " of " + a.path + ": " + d.what + "\n  " +
           a.path + ": " + record_line(r) + "\n  before it: " + counts + "\n";
    if (d.has_counterpart) {
      const audit::Record& q = b.records[d.index_b];
      j["record_b"] = record_json(q);
      text += "  nearest in " + b.path + ": " + record_line(q) + "\n";
      json arg = {{"arg", d.arg_a}, {"arg_b", d.arg_b}, {"tensor", shape(r.args[d.arg_a])}};
      text += "  argument " + std::to_string(d.arg_a) + " (" + shape(r.args[d.arg_a]) + ") against its argument " +
              std::to_string(d.arg_b) + " (" + shape(q.args[d.arg_b]) + ")\n";
      describe_values(r.args[d.arg_a], q.args[d.arg_b], arg, text);
      if (!r.args[d.arg_a].has_values || !q.args[d.arg_b].has_values)
        text += "    (record both with values, DITTO_AUDIT_VALUES=all, to see how they differ)\n";
      j["args"] = json::array({arg});
    }
  }
  if (as_json)
    std::printf("%s\n", j.dump(1).c_str());
  else
    std::printf("%s", text.c_str());
  return d.differ ? 1 : 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: ditto-audit diff A.log B.log [--json] [--align | --values] [--plot OUT.png]\n"
               "       ditto-audit show A.log [--step N] [--op NAME] [--module PREFIX] [--json]\n");
  return 2;
}

int show(int argc, char** argv) {
  if (argc < 3) return usage();
  const audit::Log log = audit::read_log(argv[2]);
  bool as_json = false;
  long long step = -2;
  std::string op, module;
  for (int i = 3; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json"))
      as_json = true;
    else if (!std::strcmp(argv[i], "--step") && i + 1 < argc)
      step = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--op") && i + 1 < argc)
      op = argv[++i];
    else if (!std::strcmp(argv[i], "--module") && i + 1 < argc)
      module = argv[++i];
    else
      return usage();
  }
  json out = json::array();
  if (!as_json)
    std::printf("%s: %zu records; recorded with %s\n", log.path.c_str(), log.records.size(), log.header.c_str());
  for (const audit::Record& r : log.records) {
    if (step != -2 && r.step != step) continue;
    if (!op.empty() && r.op != op) continue;
    if (!module.empty() && r.module.rfind(module, 0) != 0) continue;
    if (as_json)
      out.push_back(record_json(r));
    else
      std::printf("%s\n", record_line(r).c_str());
  }
  if (as_json) std::printf("%s\n", out.dump(1).c_str());
  return 0;
}

int diff(int argc, char** argv) {
  if (argc < 4) return usage();
  bool as_json = false, align = false, by_values = false;
  std::string plot;
  for (int i = 4; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json"))
      as_json = true;
    else if (!std::strcmp(argv[i], "--align"))
      align = true;
    else if (!std::strcmp(argv[i], "--values"))
      by_values = true;
    else if (!std::strcmp(argv[i], "--plot") && i + 1 < argc)
      plot = argv[++i];
    else
      return usage();
  }
  const audit::Log a = audit::read_log(argv[2]), b = audit::read_log(argv[3]);
  if (by_values || audit::recorder_of(a) != audit::recorder_of(b)) return diff_by_values(a, b, as_json);
  const audit::Divergence d = audit::diff(a, b, align);
  json j = {{"differ", d.differ},
            {"a", a.path},
            {"b", b.path},
            {"records", {a.records.size(), b.records.size()}},
            {"skipped", {d.skipped_a, d.skipped_b}}};
  if (!d.differ) {
    if (as_json)
      std::printf("%s\n", j.dump(1).c_str());
    else if (align)
      std::printf("the logs agree: %zu and %zu records, %zu and %zu of them in one program only\n", a.records.size(),
                  b.records.size(), d.skipped_a, d.skipped_b);
    else
      std::printf("the logs agree: %zu records, the same bits\n", a.records.size());
    return 0;
  }
  j["index"] = d.index;
  j["what"] = d.what;
  j["structural"] = d.structural;
  j["inputs_matched"] = d.inputs_matched;
  std::string text = "the runs first differ at record " + std::to_string(d.index) + ": " + d.what + "\n";
  for (const auto* log : {&a, &b}) {
    const std::size_t at = log == &a ? d.index : d.index_b;
    if (at < log->records.size()) {
      const audit::Record& r = log->records[at];
      j[log == &a ? "record_a" : "record_b"] = record_json(r);
      text += "  " + log->path + ": " + record_line(r) + "\n";
    }
  }
  if (!d.structural && d.index < a.records.size()) {
    const audit::Record &x = a.records[d.index], &y = b.records[d.index_b];
    json args = json::array();
    for (std::size_t k = 0; k < x.args.size(); ++k) {
      const bool in = x.args[k].before != y.args[k].before, out = x.args[k].after != y.args[k].after;
      if (!in && !out) continue;
      json arg = {{"arg", k}, {"tensor", shape(x.args[k])}, {"input_differs", in}, {"result_differs", out}};
      text += "  argument " + std::to_string(k) + " (" + shape(x.args[k]) +
              "): " + (in ? "differs before the kernel" : "the same before the kernel") + ", " +
              (out ? "differs after" : "the same after") + "\n";
      describe_values(x.args[k], y.args[k], arg, text);
      args.push_back(arg);
    }
    j["args"] = args;
  }
  if (!plot.empty()) draw(a, b, d, plot);
  if (as_json)
    std::printf("%s\n", j.dump(1).c_str());
  else
    std::printf("%s", text.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  try {
    if (!std::strcmp(argv[1], "diff")) return diff(argc, argv);
    if (!std::strcmp(argv[1], "show")) return show(argc, argv);
  } catch (const ditto::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return usage();
}
