// ditto::audit: two runs that agree write the same log (apart from the header) at any thread
// count and kernel level; a planted difference, another seed and another layer are found at the
// right record; the reader refuses damaged logs.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ditto/audit.h"
#include "ditto/ditto.h"
#include "expect_error.h"
#include "guards.h"

namespace {

namespace nn = ditto::nn;
namespace audit = ditto::audit;
using ditto::Tensor;

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "ditto_audit_" + name + ".log"; }

// Three steps of a small MLP (dropout included), recorded to path, marked by step.
void train(const std::string& path, uint64_t seed = 0, bool tanh = false) {
  audit::start(path);  // before the model: its initial draws are recorded too
  ditto::manual_seed(seed);
  nn::Sequential model(nn::Linear(6, 16));
  if (tanh)
    model.push_back(nn::Tanh());
  else
    model.push_back(nn::ReLU());
  model.push_back(nn::Dropout(0.25));
  model.push_back(nn::Linear(16, 3));
  ditto::optim::Adam opt(model.parameters(), 1e-2);
  ditto::Generator data(5);
  for (int step = 0; step < 3; ++step) {
    audit::mark("step", step);
    const Tensor x = ditto::randn({8, 6}, ditto::kFloat32, &data);
    const Tensor y = ditto::randint(0, 3, {8}, ditto::kInt64, &data);
    opt.zero_grad();
    Tensor loss = nn::functional::cross_entropy(model(x), y);
    loss.backward();
    opt.step();
  }
  audit::stop();
}

std::string body(const std::string& path) {  // the log without its header
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  const std::string all = s.str();
  uint32_t n = 0;
  std::memcpy(&n, all.data() + 12, 4);
  return all.substr(16 + n);
}

TEST(Audit, RunsThatAgreeWriteTheSameLogAtEveryThreadCountAndLevel) {
  const std::string ref = temp_path("ref");
  {
    ditto::testing::ConfigGuard g;
    ditto::set_num_threads(1);
    train(ref);
  }
  const audit::Log log = audit::read_log(ref);
  ASSERT_GT(log.records.size(), 50u);
  bool forward = false, backward = false, module0 = false, marks = false;
  for (const audit::Record& r : log.records) {
    marks = marks || (r.kind == audit::Record::Mark && r.op == "step");
    if (r.kind != audit::Record::Op) continue;
    forward = forward || !r.backward;
    backward = backward || (r.backward && !r.node.empty());
    module0 = module0 || (r.module == "0" && r.op == "addmm");
    EXPECT_FALSE(r.determinism.empty());
  }
  EXPECT_TRUE(forward && backward && module0 && marks);
  for (int threads : {2, 3}) {
    for (auto level : ditto::testing::supported_levels()) {
      ditto::testing::ConfigGuard g(level);
      ditto::set_num_threads(threads);
      const std::string other = temp_path("other");
      train(other);
      EXPECT_EQ(body(other), body(ref)) << threads << " threads, level " << static_cast<int>(level);
      EXPECT_FALSE(audit::diff(log, audit::read_log(other)).differ);
    }
  }
}

TEST(Audit, APlantedDifferenceIsFoundAtItsOpWithItsInputsMatched) {
  const std::string ref = temp_path("plant_ref"), bad = temp_path("plant_bad");
  train(ref);
  const audit::Log a = audit::read_log(ref);
  // plant at the 40th op record (a forward or backward op of step 1)
  std::size_t at = 0;
  for (std::size_t i = 0, ops = 0; i < a.records.size(); ++i)
    if (a.records[i].kind == audit::Record::Op && a.records[i].step == 1 && ++ops == 20) at = i;
  ASSERT_GT(at, 0u);
  setenv("DITTO_AUDIT_PERTURB", std::to_string(a.records[at].seq).c_str(), 1);
  setenv("DITTO_AUDIT_VALUES", "all", 1);
  train(bad);
  unsetenv("DITTO_AUDIT_PERTURB");
  unsetenv("DITTO_AUDIT_VALUES");
  const audit::Log b = audit::read_log(bad);
  const audit::Divergence d = audit::diff(a, b);
  ASSERT_TRUE(d.differ);
  EXPECT_EQ(d.index, at);
  EXPECT_TRUE(d.inputs_matched);
  EXPECT_FALSE(d.structural);
  EXPECT_EQ(b.records[at].op, a.records[at].op);
  EXPECT_EQ(b.records[at].step, 1);
  // b kept its values, a did not: no value comparison; b against itself with values agrees
  EXPECT_FALSE(audit::diff(b, b).differ);
}

TEST(Audit, ValuesShowHowTheResultsDiffer) {
  const std::string a_path = temp_path("values_a"), b_path = temp_path("values_b");
  setenv("DITTO_AUDIT_VALUES", "step:1", 1);
  train(a_path);
  const audit::Log a = audit::read_log(a_path);
  std::size_t at = 0;
  for (std::size_t i = 0; i < a.records.size() && !at; ++i)
    if (a.records[i].step == 1 && a.records[i].op == "addmm") at = i;
  ASSERT_GT(at, 0u);
  setenv("DITTO_AUDIT_PERTURB", std::to_string(a.records[at].seq).c_str(), 1);
  train(b_path);
  unsetenv("DITTO_AUDIT_PERTURB");
  unsetenv("DITTO_AUDIT_VALUES");
  const audit::Log b = audit::read_log(b_path);
  const audit::Divergence d = audit::diff(a, b);
  ASSERT_TRUE(d.differ);
  ASSERT_EQ(d.index, at);
  bool found = false;
  for (std::size_t k = 0; k < a.records[at].args.size(); ++k) {
    const auto v = audit::value_diff(a.records[at].args[k], b.records[at].args[k]);
    if (!v || !v->differing) continue;
    found = true;
    EXPECT_EQ(v->differing, 1);
    EXPECT_EQ(v->ulp_histogram[0], 1);  // one bit of a float32: one ulp
  }
  EXPECT_TRUE(found);
  // no values outside step 1
  for (const audit::Record& r : a.records)
    for (const audit::Arg& g : r.args) EXPECT_TRUE(!g.has_values || r.step == 1);
}

TEST(Audit, AnotherSeedOrAnotherLayerIsFoundWhereItEnters) {
  const std::string ref = temp_path("seed_ref"), seed = temp_path("seed_other"), layer = temp_path("layer_other");
  train(ref, 0);
  train(seed, 1);
  train(layer, 0, /*tanh=*/true);
  const audit::Log a = audit::read_log(ref), s = audit::read_log(seed), l = audit::read_log(layer);
  const audit::Divergence ds = audit::diff(a, s);
  ASSERT_TRUE(ds.differ);
  EXPECT_TRUE(ds.inputs_matched) << ds.what;  // the first draw from the other seed: the first layer's init
  EXPECT_EQ(a.records[ds.index].op, "uniform_");
  EXPECT_EQ(a.records[ds.index].kernel, "mt19937");
  const audit::Divergence dl = audit::diff(a, l);
  ASSERT_TRUE(dl.differ);
  EXPECT_TRUE(dl.structural);
  EXPECT_EQ(a.records[dl.index].module, "1");
  EXPECT_EQ(l.records[dl.index].module, "1");
}

// The hash a record holds is XXH3-64 of the bits in logical order, whatever the layout (strided,
// transposed, expanded, permuted, rows longer than the gather buffer) and the level.
TEST(Audit, TheHashIsTheBitsInLogicalOrderAtEveryLayoutAndLevel) {
  auto reference = [](const Tensor& t) {
    const Tensor c = t.contiguous();
    return XXH3_64bits(c.raw_data(), static_cast<std::size_t>(c.numel()) * c.element_size());
  };
  ditto::manual_seed(7);
  const Tensor m = ditto::randn({37, 53});
  const Tensor wide = ditto::randn({3, 70001});  // a transposed row of 70001 > the buffer's 65536 floats
  const Tensor cube = ditto::randn({5, 6, 7}, ditto::kFloat64);
  const Tensor ints = ditto::randint(-1000, 1000, {9, 11}, ditto::kInt64);
  std::vector<Tensor> views = {m,
                               m.t(),
                               m.t().contiguous().t(),
                               m.slice(1, 3, 50, 4),
                               m.select(1, 5),
                               wide.t().contiguous().t(),
                               wide.t(),
                               cube.permute({2, 0, 1}),
                               cube.slice(2, 1, 7, 2),
                               ints.t(),
                               ints.to(ditto::kInt32).t(),
                               ditto::gt(m, ditto::zeros({1})).t(),
                               m.select(0, 2).unsqueeze(0).expand({4, 53}),
                               ditto::randn({0, 3}).t()};
  for (auto level : ditto::testing::supported_levels()) {
    ditto::testing::ConfigGuard g(level);
    for (std::size_t i = 0; i < views.size(); ++i)
      EXPECT_EQ(audit::hash(views[i]), reference(views[i])) << "view " << i << ", level " << static_cast<int>(level);
  }
  EXPECT_NE(audit::hash(m.t()), audit::hash(m));  // the logical order: a transpose is other bits
}

// diff_values on two programs' logs written with audit::record (as ditto.audit's PyTorch recorder
// writes them): a value the other program never materialised, its own version of one, and a
// result of other bits with its inputs matched.
TEST(Audit, ByValuesAFusedOpAgreesAndTheFirstOpOfOtherBitsIsNamed) {
  ditto::manual_seed(3);
  const Tensor x = ditto::randn({4, 5});
  const Tensor a = ditto::mul(x, 3.0), p = ditto::sub(a, 1.0), c = ditto::relu(p);
  const Tensor q = ditto::sub(a, 1.5), a2 = ditto::add(a, ditto::mul(a, 1e-6));
  struct Op {
    std::string name;
    std::vector<Tensor> inputs, results;
  };
  auto write = [&](const std::string& name, const std::string& recorder, const std::vector<Op>& ops) {
    const std::string path = temp_path(name);
    audit::start(path, "all", recorder);
    for (const Op& op : ops) {
      std::vector<Tensor> args = op.inputs;
      std::vector<uint64_t> before;
      for (const Tensor& t : op.inputs) before.push_back(audit::hash(t));
      for (const Tensor& t : op.results) args.push_back(t), before.push_back(0);
      audit::record(op.name, recorder.empty() ? "test" : recorder, false, args, before);
    }
    audit::stop();
    return audit::read_log(path);
  };
  const audit::Log ref =
      write("ref", "reference", {{"randn", {}, {x}}, {"mul", {x}, {a}}, {"sub", {a}, {p}}, {"relu", {p}, {c}}});
  EXPECT_EQ(audit::recorder_of(ref), "reference");
  // b computes relu(a - 1) in one op: the same results, p never materialised
  const audit::Log fused = write("fused", "", {{"randn", {}, {x}}, {"mul", {x}, {a}}, {"sub_relu", {a}, {c}}});
  EXPECT_EQ(audit::recorder_of(fused), "ditto");
  audit::Divergence d = audit::diff_values(ref, fused);
  EXPECT_FALSE(d.differ) << d.what;
  EXPECT_EQ(d.matched, 3u);
  EXPECT_EQ(d.unmaterialised, 1u);
  // b's fused op writes its own (other) version of p beside the same result: the runs part at sub
  const audit::Log own = write("own", "", {{"randn", {}, {x}}, {"mul", {x}, {a}}, {"sub_relu", {a}, {q, c}}});
  d = audit::diff_values(ref, own);
  ASSERT_TRUE(d.differ);
  EXPECT_EQ(ref.records[d.index].op, "sub");
  EXPECT_TRUE(d.inputs_matched);
  ASSERT_TRUE(d.has_counterpart);
  EXPECT_EQ(own.records[d.index_b].op, "sub_relu");
  EXPECT_EQ(d.arg_b, 1u);
  // b's mul gives other bits: named, its inputs matched, and how much they differ
  const audit::Log other = write("other", "", {{"randn", {}, {x}}, {"mul", {x}, {a2}}, {"sub_relu", {a2}, {c}}});
  d = audit::diff_values(ref, other);
  ASSERT_TRUE(d.differ);
  EXPECT_EQ(ref.records[d.index].op, "mul");
  EXPECT_TRUE(d.inputs_matched);
  ASSERT_TRUE(d.has_counterpart);
  EXPECT_EQ(other.records[d.index_b].op, "mul");
  const auto v = audit::value_diff(ref.records[d.index].args[d.arg_a], other.records[d.index_b].args[d.arg_b]);
  ASSERT_TRUE(v.has_value());
  EXPECT_GT(v->differing, 10);
  EXPECT_LT(v->max_rel, 2e-6);
  // data from outside the records: the first result is named, its inputs not matched
  const audit::Log data = write("data", "", {{"randn", {}, {q}}, {"mul", {q}, {a}}});
  d = audit::diff_values(ref, data);
  ASSERT_TRUE(d.differ);
  EXPECT_EQ(ref.records[d.index].op, "randn");
  EXPECT_EQ(d.matched, 0u);
}

TEST(Audit, DamagedLogsAreRefused) {
  const std::string ref = temp_path("damage");
  train(ref);
  std::ifstream f(ref, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  const std::string all = s.str();
  auto write = [&](const std::string& bytes) {
    const std::string p = temp_path("damaged");
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  };
  ditto::testing::expect_error([&] { audit::read_log(write(all.substr(0, all.size() - 3))); }, "[ditto-audit]",
                               "truncated record");
  ditto::testing::expect_error([&] { audit::read_log(write("not a log at all")); }, "[ditto-audit]",
                               "not a ditto audit log");
  std::string bad = all;
  bad[8] = 9;  // version
  ditto::testing::expect_error([&] { audit::read_log(write(bad)); }, "[ditto-audit]", "unknown log version");
  // every truncation either reads or raises ditto::Error, never anything else
  for (std::size_t cut = 0; cut < all.size(); cut += 97) {
    try {
      audit::read_log(write(all.substr(0, cut)));
    } catch (const ditto::Error&) {
    }
  }
  // and so does every log with a byte changed (seeded: lengths, counts, dtypes, sizes hit too)
  uint64_t rng = 12345;
  for (int k = 0; k < 300; ++k) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    std::string flipped = all;
    flipped[static_cast<std::size_t>((rng >> 33) % all.size())] ^= static_cast<char>(1 + (rng >> 13) % 255);
    try {
      audit::read_log(write(flipped));
    } catch (const ditto::Error&) {
    }
  }
  ditto::testing::expect_error([] { audit::read_log("/nonexistent/x.log"); }, "[ditto-audit]", "cannot open");
}

}  // namespace
