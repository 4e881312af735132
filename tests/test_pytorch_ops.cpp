// Known-answer tests against PyTorch 1.13 (CPU): tests/data/pytorch-ops.json, written by
// tools/gen_golden_ops.py (its docstring describes the format). Each case names an op, its
// arguments and either PyTorch's result (dtype, sizes, values as exact bits, and for views the
// strides, storage offset, contiguity and aliasing) or the fact that PyTorch raised, in which case
// ditto must throw ditto::Error. Nothing here needs PyTorch.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ditto/ditto.h"
#include "golden.h"

using json = nlohmann::json;
using namespace ditto;

namespace {

// Raised when the test cannot build a case's inputs: a test bug, never a ditto::Error.
struct BadInput : std::logic_error {
  using std::logic_error::logic_error;
};

const json& golden() { return ditto::testing::golden_file("pytorch-ops.json"); }

const json& section(const char* name) { return ditto::testing::golden_section("pytorch-ops.json", name); }

ScalarType parse_dtype(const std::string& s) {
  if (s == "bool") return kBool;
  if (s == "int32") return kInt32;
  if (s == "int64") return kInt64;
  if (s == "float32") return kFloat32;
  if (s == "float64") return kFloat64;
  throw BadInput("unknown dtype " + s);
}

uint64_t parse_hex(const json& v) { return std::stoull(v.get<std::string>(), nullptr, 16); }

Scalar parse_scalar(const json& j) {
  const std::string kind = j.at("scalar").get<std::string>();
  if (kind == "bool") return Scalar(j.at("value").get<bool>());
  if (kind == "int") return Scalar(j.at("value").get<int64_t>());
  if (kind == "float") return Scalar(std::bit_cast<double>(parse_hex(j.at("value"))));
  throw BadInput("unknown scalar kind " + kind);
}

bool is_scalar(const json& j) { return j.is_object() && j.contains("scalar"); }

std::optional<Scalar> opt_scalar(const json& a, const char* key) {
  if (!a.contains(key) || a[key].is_null()) return std::nullopt;
  return parse_scalar(a[key]);
}

Shape shape_of(const json& j) { return j.get<Shape>(); }

// The view steps of tools/gen_golden_ops.py's apply_chain.
Tensor apply_chain(Tensor t, const json& chain) {
  for (const json& step : chain) {
    const std::string op = step.at(0).get<std::string>();
    auto i = [&](size_t k) { return step.at(k).get<int64_t>(); };
    auto oi = [&](size_t k) -> std::optional<int64_t> {
      if (step.at(k).is_null()) return std::nullopt;
      return step.at(k).get<int64_t>();
    };
    if (op == "view")
      t = t.view(shape_of(step.at(1)));
    else if (op == "reshape")
      t = t.reshape(shape_of(step.at(1)));
    else if (op == "transpose")
      t = t.transpose(i(1), i(2));
    else if (op == "t")
      t = t.t();
    else if (op == "permute")
      t = t.permute(shape_of(step.at(1)));
    else if (op == "select")
      t = t.select(i(1), i(2));
    else if (op == "slice")
      t = t.slice(i(1), oi(2), oi(3), i(4));
    else if (op == "narrow")
      t = t.narrow(i(1), i(2), i(3));
    else if (op == "expand")
      t = t.expand(shape_of(step.at(1)));
    else if (op == "squeeze")
      t = step.size() == 1 ? t.squeeze() : t.squeeze(i(1));
    else if (op == "unsqueeze")
      t = t.unsqueeze(i(1));
    else if (op == "flatten")
      t = t.flatten(i(1), i(2));
    else if (op == "contiguous")
      t = t.contiguous();
    else
      throw BadInput("unknown view step " + op);
  }
  return t;
}

// A contiguous tensor from its JSON description (without the "view" steps).
Tensor build_base(const json& j) {
  const ScalarType dt = parse_dtype(j.at("dtype").get<std::string>());
  const Shape sizes = shape_of(j.at("sizes"));
  const json& d = j.at("data");
  switch (dt) {
    case kBool: {
      std::vector<bool> v;
      for (const auto& x : d) v.push_back(x.get<bool>());
      return from_vector(v, sizes);
    }
    case kInt32:
    case kInt64: {
      std::vector<int64_t> v;
      for (const auto& x : d) v.push_back(x.get<int64_t>());
      Tensor t = from_vector(v, sizes);
      return dt == kInt32 ? t.to(kInt32) : t;
    }
    case kFloat32: {
      std::vector<float> v;
      for (const auto& x : d) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(parse_hex(x))));
      return from_vector(v, sizes);
    }
    case kFloat64: {
      std::vector<double> v;
      for (const auto& x : d) v.push_back(std::bit_cast<double>(parse_hex(x)));
      return from_vector(v, sizes);
    }
  }
  throw BadInput("bad dtype");
}

// An input tensor: the base, then its view steps. Failures here are test bugs.
Tensor build_tensor(const json& j) {
  try {
    Tensor t = build_base(j);
    if (j.contains("view")) t = apply_chain(t, j["view"]);
    if (t.dtype() != parse_dtype(j.at("dtype").get<std::string>())) throw BadInput("input dtype");
    return t;
  } catch (const BadInput&) {
    throw;
  } catch (const std::exception& e) {
    throw BadInput(std::string("building an input failed: ") + e.what());
  }
}

std::vector<Tensor> build_tensors(const json& list) {
  std::vector<Tensor> out;
  for (const auto& j : list) out.push_back(build_tensor(j));
  return out;
}

std::optional<ScalarType> opt_dtype(const json& a, const char* key = "dtype") {
  if (!a.contains(key) || a[key].is_null()) return std::nullopt;
  return parse_dtype(a[key].get<std::string>());
}

std::optional<int64_t> opt_int(const json& a, const char* key) {
  if (!a.contains(key) || a[key].is_null()) return std::nullopt;
  return a[key].get<int64_t>();
}

template <class Other>
Tensor compare_op(const std::string& op, const Tensor& x, const Other& o) {
  if (op == "eq") return x.eq(o);
  if (op == "ne") return x.ne(o);
  if (op == "lt") return x.lt(o);
  if (op == "le") return x.le(o);
  if (op == "gt") return x.gt(o);
  return x.ge(o);
}

// Inputs are built first (so that a ditto::Error can only come from the op itself), then the op
// runs. The Python side (torch_op in the generator) defines what each op name means.
struct Call {
  std::function<std::vector<Tensor>()> run;
  Tensor self;  // the first tensor input, when there is one (views compare storage with it)
};

Call prepare(const std::string& op, const json& a) {
  Call c;
  if (a.contains("self") && !is_scalar(a["self"])) c.self = build_tensor(a["self"]);
  const Tensor x = c.self;
  auto T = [&](const char* k) { return build_tensor(a.at(k)); };
  auto one = [](Tensor t) { return std::vector<Tensor>{std::move(t)}; };
  auto R = [&](std::function<Tensor()> f) { c.run = [f, one] { return one(f()); }; };
  const bool other_scalar = a.contains("other") && is_scalar(a["other"]);
  std::optional<Scalar> s_other = other_scalar ? std::optional<Scalar>(parse_scalar(a["other"])) : std::nullopt;
  Tensor t_other = (a.contains("other") && !other_scalar) ? T("other") : Tensor();

  if (op == "add" || op == "sub") {
    const bool add_op = op == "add";
    if (a.contains("alpha")) {
      const Scalar alpha = parse_scalar(a["alpha"]);
      R([=] { return add_op ? ditto::add(x, t_other, alpha) : ditto::sub(x, t_other, alpha); });
    } else if (s_other) {
      const Scalar s = *s_other;
      R([=] { return add_op ? x + s : x - s; });
    } else {
      R([=] { return add_op ? x + t_other : x - t_other; });
    }
  } else if (op == "mul" || op == "div") {
    const bool mul_op = op == "mul";
    if (s_other) {
      const Scalar s = *s_other;
      R([=] { return mul_op ? x * s : x / s; });
    } else {
      R([=] { return mul_op ? x * t_other : x / t_other; });
    }
  } else if (op == "radd" || op == "rsub" || op == "rmul" || op == "rdiv") {
    const Scalar s = *s_other;
    const char k = op[1];
    R([=] { return k == 'a' ? s + x : k == 's' ? s - x : k == 'm' ? s * x : s / x; });
  } else if (op == "eq" || op == "ne" || op == "lt" || op == "le" || op == "gt" || op == "ge") {
    const std::string o = op;
    if (s_other) {
      const Scalar s = *s_other;
      R([=] { return compare_op(o, x, s); });
    } else {
      R([=] { return compare_op(o, x, t_other); });
    }
  } else if (op == "neg")
    R([=] { return ditto::neg(x); });
  else if (op == "abs")
    R([=] { return ditto::abs(x); });
  else if (op == "sign")
    R([=] { return ditto::sign(x); });
  else if (op == "exp")
    R([=] { return ditto::exp(x); });
  else if (op == "log")
    R([=] { return ditto::log(x); });
  else if (op == "sqrt")
    R([=] { return ditto::sqrt(x); });
  else if (op == "rsqrt")
    R([=] { return ditto::rsqrt(x); });
  else if (op == "sigmoid")
    R([=] { return ditto::sigmoid(x); });
  else if (op == "tanh")
    R([=] { return ditto::tanh(x); });
  else if (op == "relu")
    R([=] { return ditto::relu(x); });
  else if (op == "pow") {
    if (is_scalar(a.at("exponent"))) {
      const Scalar e = parse_scalar(a["exponent"]);
      R([=] { return ditto::pow(x, e); });
    } else {
      const Tensor e = T("exponent");
      R([=] { return ditto::pow(x, e); });
    }
  } else if (op == "clamp") {
    const auto lo = opt_scalar(a, "min"), hi = opt_scalar(a, "max");
    R([=] { return ditto::clamp(x, lo, hi); });
  } else if (op == "where") {
    const Tensor cond = T("condition");
    if (s_other) {
      const Scalar s = *s_other;
      R([=] { return ditto::where(cond, x, s); });
    } else {
      R([=] { return ditto::where(cond, x, t_other); });
    }
  } else if (op == "masked_fill") {
    const Tensor mask = T("mask");
    const Scalar v = parse_scalar(a.at("value"));
    R([=] { return ditto::masked_fill(x, mask, v); });
  } else if (op == "sum") {
    const auto dt = opt_dtype(a);
    const bool keep = a.value("keepdim", false);
    if (a.contains("dim")) {
      const Shape dims = shape_of(a["dim"]);
      R([=] { return ditto::sum(x, dims, keep, dt); });
    } else {
      R([=] { return ditto::sum(x, dt); });
    }
  } else if (op == "mean") {
    const bool keep = a.value("keepdim", false);
    if (a.contains("dim")) {
      const Shape dims = shape_of(a["dim"]);
      R([=] { return ditto::mean(x, dims, keep); });
    } else {
      R([=] { return ditto::mean(x); });
    }
  } else if (op == "prod") {
    const bool keep = a.value("keepdim", false);
    if (a.contains("dim")) {
      const int64_t d = a["dim"].get<int64_t>();
      R([=] { return ditto::prod(x, d, keep); });
    } else {
      R([=] { return ditto::prod(x); });
    }
  } else if (op == "max" || op == "min") {
    const bool is_max = op == "max";
    const bool keep = a.value("keepdim", false);
    if (a.contains("dim")) {
      const int64_t d = a["dim"].get<int64_t>();
      c.run = [=] {
        auto [v, i] = is_max ? ditto::max(x, d, keep) : ditto::min(x, d, keep);
        return std::vector<Tensor>{v, i};
      };
    } else {
      R([=] { return is_max ? ditto::max(x) : ditto::min(x); });
    }
  } else if (op == "amax" || op == "amin") {
    const bool is_max = op == "amax";
    const Shape dims = shape_of(a.at("dim"));
    const bool keep = a.value("keepdim", false);
    R([=] { return is_max ? ditto::amax(x, dims, keep) : ditto::amin(x, dims, keep); });
  } else if (op == "argmax" || op == "argmin") {
    const bool is_max = op == "argmax";
    const auto d = opt_int(a, "dim");
    const bool keep = a.value("keepdim", false);
    R([=] { return is_max ? ditto::argmax(x, d, keep) : ditto::argmin(x, d, keep); });
  } else if (op == "cat" || op == "stack") {
    const bool is_cat = op == "cat";
    const auto ts = build_tensors(a.at("tensors"));
    const int64_t d = a.at("dim").get<int64_t>();
    R([=] { return is_cat ? ditto::cat(ts, d) : ditto::stack(ts, d); });
  } else if (op == "index_select" || op == "gather") {
    const bool sel = op == "index_select";
    const Tensor idx = T("index");
    const int64_t d = a.at("dim").get<int64_t>();
    R([=] { return sel ? ditto::index_select(x, d, idx) : ditto::gather(x, d, idx); });
  } else if (op == "scatter_add" || op == "scatter_reduce") {
    const Tensor idx = T("index"), src = T("src");
    const int64_t d = a.at("dim").get<int64_t>();
    if (op == "scatter_add") {
      R([=] { return ditto::scatter_add(x, d, idx, src); });
    } else {
      const std::string how = a.at("reduce").get<std::string>();
      const bool include_self = a.value("include_self", true);
      R([=] { return ditto::scatter_reduce(x, d, idx, src, how, include_self); });
    }
  } else if (op == "index_add") {
    const Tensor idx = T("index"), source = T("source");
    const int64_t d = a.at("dim").get<int64_t>();
    const Scalar alpha = a.contains("alpha") ? parse_scalar(a["alpha"]) : Scalar(1);
    R([=] { return ditto::index_add(x, d, idx, source, alpha); });
  } else if (op == "matmul")
    R([=] { return ditto::matmul(x, t_other); });
  else if (op == "mm")
    R([=] { return ditto::mm(x, t_other); });
  else if (op == "bmm")
    R([=] { return ditto::bmm(x, t_other); });
  else if (op == "arange") {
    const auto dt = opt_dtype(a);
    const Scalar end = parse_scalar(a.at("end"));
    if (a.contains("start")) {
      const Scalar start = parse_scalar(a["start"]), step = parse_scalar(a.at("step"));
      R([=] { return ditto::arange(start, end, step, dt); });
    } else {
      R([=] { return ditto::arange(end, dt); });
    }
  } else if (op == "linspace") {
    const double lo = parse_scalar(a.at("start")).to_double(), hi = parse_scalar(a.at("end")).to_double();
    const int64_t steps = a.at("steps").get<int64_t>();
    const ScalarType dt = *opt_dtype(a);
    R([=] { return ditto::linspace(lo, hi, steps, dt); });
  } else if (op == "eye") {
    const int64_t n = a.at("n").get<int64_t>();
    const auto m = opt_int(a, "m");
    const ScalarType dt = *opt_dtype(a);
    R([=] { return ditto::eye(n, m, dt); });
  } else if (op == "full") {
    const Shape size = shape_of(a.at("size"));
    const Scalar v = parse_scalar(a.at("value"));
    const auto dt = opt_dtype(a);
    R([=] { return ditto::full(size, v, dt); });
  } else if (op == "zeros" || op == "ones") {
    const bool z = op == "zeros";
    const Shape size = shape_of(a.at("size"));
    const ScalarType dt = opt_dtype(a).value_or(kFloat32);
    R([=] { return z ? ditto::zeros(size, dt) : ditto::ones(size, dt); });
  } else if (op == "chain") {
    const json chain = a.at("chain");
    R([=] { return apply_chain(x, chain); });
  } else {
    throw BadInput("unknown op " + op);
  }
  return c;
}

// --- comparing a result

struct Cell {
  bool is_float = false;
  bool nan = false;
  uint64_t bits = 0;  // floats
  int64_t value = 0;  // integers and bool
  double shown = 0;
};

std::vector<Cell> actual_cells(const Tensor& t) {
  std::vector<Cell> out;
  switch (t.dtype()) {
    case kBool:
      for (bool b : to_vector<bool>(t)) out.push_back({false, false, 0, b ? 1 : 0, 0});
      break;
    case kInt32:
      for (int32_t v : to_vector<int32_t>(t)) out.push_back({false, false, 0, v, 0});
      break;
    case kInt64:
      for (int64_t v : to_vector<int64_t>(t)) out.push_back({false, false, 0, v, 0});
      break;
    case kFloat32:
      for (float v : to_vector<float>(t)) out.push_back({true, std::isnan(v), std::bit_cast<uint32_t>(v), 0, v});
      break;
    case kFloat64:
      for (double v : to_vector<double>(t)) out.push_back({true, std::isnan(v), std::bit_cast<uint64_t>(v), 0, v});
      break;
  }
  return out;
}

std::vector<Cell> expected_cells(const json& e) {
  const ScalarType dt = parse_dtype(e.at("dtype").get<std::string>());
  std::vector<Cell> out;
  for (const auto& v : e.at("data")) {
    Cell c;
    if (dt == kFloat32) {
      const float f = std::bit_cast<float>(static_cast<uint32_t>(parse_hex(v)));
      c = {true, std::isnan(f), std::bit_cast<uint32_t>(f), 0, f};
    } else if (dt == kFloat64) {
      const double d = std::bit_cast<double>(parse_hex(v));
      c = {true, std::isnan(d), std::bit_cast<uint64_t>(d), 0, d};
    } else if (dt == kBool) {
      c.value = v.get<bool>() ? 1 : 0;
    } else {
      c.value = v.get<int64_t>();
    }
    out.push_back(c);
  }
  return out;
}

std::string show(const Cell& c) {
  std::ostringstream s;
  if (c.is_float) {
    s.precision(17);
    s << c.shown << " (0x" << std::hex << c.bits << ")";
  } else {
    s << c.value;
  }
  return s.str();
}

std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// Empty string when `t` matches the expected tensor `e`, else what differs.
std::string compare(const Tensor& t, const json& e, const Tensor& self) {
  std::ostringstream why;
  const std::string want_dtype = e.at("dtype").get<std::string>();
  if (dtype_name(t.dtype()) != want_dtype)
    why << "dtype: ditto " << dtype_name(t.dtype()) << ", PyTorch " << want_dtype << ". ";
  const Shape want_sizes = shape_of(e.at("sizes"));
  if (t.sizes() != want_sizes)
    why << "sizes: ditto " << shape_str(t.sizes()) << ", PyTorch " << shape_str(want_sizes) << ". ";
  if (e.contains("strides")) {
    const Shape want = shape_of(e["strides"]);
    if (t.strides() != want)
      why << "strides: ditto " << shape_str(t.strides()) << ", PyTorch " << shape_str(want) << ". ";
    const int64_t off = e.at("storage_offset").get<int64_t>();
    if (t.storage_offset() != off) why << "storage_offset: ditto " << t.storage_offset() << ", PyTorch " << off << ". ";
    const bool contig = e.at("contiguous").get<bool>();
    if (t.is_contiguous() != contig)
      why << "is_contiguous: ditto " << t.is_contiguous() << ", PyTorch " << contig << ". ";
    const bool shares = e.at("shares_storage").get<bool>();
    const bool ditto_shares = t.storage().get() == self.storage().get();
    if (ditto_shares != shares)
      why << "shares storage with input: ditto " << ditto_shares << ", PyTorch " << shares << ". ";
  }
  if (!why.str().empty() || e.value("check", "") == "dtype") return why.str();
  const auto got = actual_cells(t), want = expected_cells(e);
  if (got.size() != want.size()) return "element count differs";
  int shown = 0, bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    // An expected NaN accepts any NaN: neither IEEE nor PyTorch fixes sign and payload.
    const bool same =
        want[i].is_float ? (want[i].nan ? got[i].nan : got[i].bits == want[i].bits) : got[i].value == want[i].value;
    if (same) continue;
    ++bad;
    if (shown++ < 6) why << "[" << i << "] ditto " << show(got[i]) << ", PyTorch " << show(want[i]) << "; ";
  }
  if (bad) why << "(" << bad << " of " << got.size() << " elements differ)";
  return why.str();
}

// Runs every case of a section; returns the number that failed (each failure already reported).
// `only` picks the cases to run (all by default); at least min_cases of them must exist.
int run_section(const char* name, size_t min_cases, std::function<bool(const json&)> only = nullptr) {
  const json& cases = section(name);
  size_t selected = 0;
  for (const json& c : cases) selected += !only || only(c);
  EXPECT_GE(selected, min_cases) << "tests/data/pytorch-ops.json is missing or lacks section " << name
                                 << " (regenerate with tools/gen_golden_ops.py)";
  int failed = 0;
  for (const json& c : cases) {
    if (only && !only(c)) continue;
    const std::string cname = c.at("name").get<std::string>();
    const std::string op = c.at("op").get<std::string>();
    SCOPED_TRACE(std::string(name) + "/" + cname + " (" + op + ")");
    auto fail = [&](const std::string& msg) {
      ++failed;
      ADD_FAILURE() << name << "/" << cname << ": " << msg << "\n  case: " << c.dump().substr(0, 600);
    };
    Call call;
    try {
      call = prepare(op, c.at("args"));
    } catch (const std::exception& e) {
      fail(std::string("test could not build the inputs: ") + e.what());
      continue;
    }
    if (c.contains("error")) {
      try {
        const auto r = call.run();
        std::string got = r.empty() ? "" : std::string(dtype_name(r[0].dtype())) + shape_str(r[0].sizes());
        fail("PyTorch raises (" + c["error"].get<std::string>() + ") but ditto returned " + got);
      } catch (const Error&) {
        // as PyTorch
      } catch (const std::exception& e) {
        fail(std::string("threw a non-ditto::Error exception: ") + e.what());
      }
      continue;
    }
    std::vector<Tensor> r;
    try {
      r = call.run();
    } catch (const std::exception& e) {
      fail(std::string("ditto threw, PyTorch did not: ") + e.what());
      continue;
    }
    const json& expect = c.at("expect");
    const std::vector<json> want = expect.is_array() ? expect.get<std::vector<json>>() : std::vector<json>{expect};
    if (r.size() != want.size()) {
      fail("result count differs");
      continue;
    }
    std::string why;
    for (size_t k = 0; k < r.size(); ++k) {
      std::string w;
      try {
        w = compare(r[k], want[k], call.self);
      } catch (const std::exception& e) {
        w = std::string("reading the result threw: ") + e.what();
      }
      if (!w.empty()) why += (r.size() > 1 ? "output " + std::to_string(k) + ": " : std::string()) + w;
    }
    if (!why.empty()) fail(why);
  }
  return failed;
}

}  // namespace

TEST(PyTorchOpsData, GoldenFileIsPresentAndFromPyTorch) {
  const json& doc = golden();
  ASSERT_TRUE(doc.contains("torch_version")) << "tests/data/pytorch-ops.json missing";
  EXPECT_EQ(doc["torch_version"].get<std::string>().substr(0, 4), "1.13");
  size_t total = 0;
  for (const char* s : {"promotion", "integer", "views", "factories", "float_bits", "matmul"})
    total += section(s).size();
  EXPECT_GE(total, 2000u);
}

TEST(PyTorchOpsPromotion, DtypesValuesAndRefusals) { EXPECT_EQ(run_section("promotion", 1000), 0); }
TEST(PyTorchOpsInteger, ExactIntegerAndIndexOps) { EXPECT_EQ(run_section("integer", 300), 0); }
TEST(PyTorchOpsViews, GeometryAndValues) { EXPECT_EQ(run_section("views", 120), 0); }
TEST(PyTorchOpsFactories, ExactBits) {
  EXPECT_EQ(run_section("factories", 150, [](const json& c) { return !c.value("vectorized", false); }), 0);
}
// Float arange/linspace long enough that PyTorch fills them with its vectorized loop: per 32-byte
// vector, base + j * step with the base recomputed at each vector (see mark_vectorized in
// tools/gen_golden_ops.py; PyTorch's default kernel level).
TEST(PyTorchOpsFactories, VectorizedArangeLinspaceBits) {
  EXPECT_EQ(run_section("factories", 10, [](const json& c) { return c.value("vectorized", false); }), 0);
}
TEST(PyTorchOpsFloatBits, IeeeExactElementwise) { EXPECT_EQ(run_section("float_bits", 100), 0); }
TEST(PyTorchOpsMatmul, ShapesAndValues) { EXPECT_EQ(run_section("matmul", 60), 0); }
// The index family's edge cases: empty indices of every dtype and rank, 0-dim tensors, and the
// shapes, dtypes and index values PyTorch accepts and refuses.
TEST(PyTorchOpsScatter, EdgeCasesAcceptedAndRefusedAsPyTorch) { EXPECT_EQ(run_section("scatter", 150), 0); }

// ---------------------------------------------------------------- the golden files' one schema

namespace {
// What is wrong with a known-answer document (empty: nothing), against tools/golden_json.py's
// schema: torch_version, generator, non-empty sections, and every tensor {"dtype", "sizes",
// "data"} with as many data as its sizes say (the old {"shape", "hex"} encoding is refused).
std::string schema_problem(const json& doc) {
  if (!doc.is_object()) return "not an object";
  if (!doc.contains("torch_version") || !doc.at("torch_version").is_string()) return "no torch_version";
  if (!doc.contains("generator") || !doc.at("generator").is_string() ||
      doc.at("generator").get<std::string>().rfind("tools/", 0) != 0)
    return "no generator under tools/";
  if (!doc.contains("sections") || !doc.at("sections").is_object() || doc.at("sections").empty()) return "no sections";
  for (const auto& [name, cases] : doc.at("sections").items())
    if (cases.empty()) return "section '" + name + "' is empty";
  std::string problem;
  std::function<void(const json&, const std::string&)> walk = [&](const json& v, const std::string& at) {
    if (!problem.empty()) return;
    if (v.is_object()) {
      if (v.contains("hex") || (v.contains("shape") && v.contains("dtype"))) {
        problem = at + ": a tensor in the old {shape, hex} encoding";
        return;
      }
      if (v.contains("dtype") && v.contains("sizes") && v.contains("data")) {
        int64_t n = 1;
        for (const auto& s : v.at("sizes")) n *= s.get<int64_t>();
        if (!v.at("data").is_array() || static_cast<int64_t>(v.at("data").size()) != n)
          problem = at + ": a tensor whose data do not match its sizes";
        return;
      }
      for (const auto& [k, x] : v.items()) walk(x, at + "/" + k);
    } else if (v.is_array()) {
      for (std::size_t i = 0; i < v.size(); ++i) walk(v[i], at + "[" + std::to_string(i) + "]");
    }
  };
  walk(doc.at("sections"), "sections");
  return problem;
}
}  // namespace

TEST(GoldenFiles, EveryFileHasTheOneSchema) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(DITTO_TEST_DATA)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(schema_problem(ditto::testing::golden_file(name)), "") << name;
  }
  EXPECT_GE(files, 9);
}

TEST(GoldenFiles, TheSchemaCheckCatchesWhatItNames) {
  const json good = json::parse(
      R"({"torch_version":"1.13","generator":"tools/x.py","sections":{"a":[{"t":{"dtype":"int64","sizes":[2],"data":[1,2]}}]}})");
  EXPECT_EQ(schema_problem(good), "");
  json v = good;
  v.erase("generator");
  EXPECT_NE(schema_problem(v), "");
  v = good;
  v["sections"]["b"] = json::array();
  EXPECT_NE(schema_problem(v), "");
  v = good;
  v["sections"]["a"][0]["t"]["sizes"] = {3};
  EXPECT_NE(schema_problem(v), "");
  v = good;
  v["sections"]["a"][0]["u"] = json::parse(R"({"dtype":"float32","shape":[1],"hex":["3f800000"]})");
  EXPECT_NE(schema_problem(v), "");
  EXPECT_THROW(ditto::testing::golden_section("pytorch-ops.json", "no such section"), std::runtime_error);
  EXPECT_THROW(ditto::testing::golden_file("no-such-file.json"), std::runtime_error);
}
