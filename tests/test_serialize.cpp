// Saving and loading (include/ditto/serialize.h): safetensors round trips for every dtype, the
// bytes of a written file read back by an independent reader, a PyTorch-written file
// (tests/data/safetensors/, tools/gen_safetensors_golden.py) loaded and run, every malformed-file
// case raising ditto::Error, module state_dicts, and checkpoints that resume bit for bit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "ditto/ditto.h"
#include "ditto/serialize.h"
#include "expect_error.h"

using namespace ditto;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The statement raises a ditto::Error whose message contains `part`.
#define EXPECT_THROW_MSG(stmt, part) ::ditto::testing::expect_error([&] { (void)(stmt); }, "[", part)

std::string temp_path(const std::string& name) {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("ditto-serialize-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return (dir / name).string();
}

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return s;
}

// A file from a header text and data bytes, the header length as given (or the true one).
std::string raw_file(const std::string& header, const std::string& data, int64_t length = -1) {
  return le64(length < 0 ? header.size() : static_cast<uint64_t>(length)) + header + data;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  const Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.raw_data(), y.raw_data(), static_cast<std::size_t>(x.numel()) * x.element_size()) == 0;
}

StateDict every_dtype() {
  manual_seed(7);
  StateDict s;
  s.insert("f32", randn({3, 5}));
  s.insert("f64", randn({2, 2, 3}, kFloat64));
  s.insert("i64", randint(-1000000, 1000000, {7}, kInt64) * 4096 * 4096);
  s.insert("i32", randint(-100000, 100000, {4, 1}, kInt32));
  s.insert("bool", randn({9}) > 0);
  s.insert("scalar", scalar_tensor(2.5, kFloat64));
  s.insert("empty", zeros({0, 3}));
  s.insert("strided", randn({4, 3}).t());  // not contiguous: stored row-major
  Tensor nan = full({3}, std::nan(""), kFloat32);
  s.insert("nan", nan);
  return s;
}

TEST(Safetensors, RoundTripIsBitIdenticalForEveryDtype) {
  const StateDict s = every_dtype();
  const std::string p = temp_path("every.safetensors");
  save_safetensors(p, s, {{"format", "pt"}, {"note", "round trip"}});
  const SafetensorsFile f = load_safetensors(p);
  EXPECT_EQ(f.tensors.size(), s.size());
  for (const auto& [name, t] : s) {
    ASSERT_TRUE(f.tensors.contains(name)) << name;
    EXPECT_TRUE(same_bits(f.tensors.at(name), t)) << name;
  }
  EXPECT_EQ(f.metadata, (Metadata{{"format", "pt"}, {"note", "round trip"}}));
  EXPECT_TRUE(f.notes.empty());
  // Saving what was loaded gives the same bytes: the writer has one layout for a given state.
  StateDict again;
  for (const auto& [name, t] : s) again.insert(name, f.tensors.at(name));
  const std::string q = temp_path("every-again.safetensors");
  save_safetensors(q, again, f.metadata);
  EXPECT_EQ(read_bytes(p), read_bytes(q));
}

// The bytes of a ditto-written file, read by a reader written here from the format's description
// (not ditto's): header length, JSON, space padding, contiguous offsets, little-endian data.
TEST(Safetensors, WrittenFileParsesWithAnIndependentReader) {
  StateDict s;
  s.insert("b", tensor({1.5f, -2.0f, 3.25f}));
  s.insert("a", tensor({int64_t{1} << 40, -3}));
  s.insert("m", tensor({true, false, true}));
  const std::string p = temp_path("independent.safetensors");
  save_safetensors(p, s, {{"k", "v"}});
  const std::string bytes = read_bytes(p);
  ASSERT_GE(bytes.size(), 8u);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  EXPECT_EQ(n % 8, 0u);
  const std::string header = bytes.substr(8, n);
  const std::size_t close = header.find_last_of('}');
  EXPECT_EQ(header.find_first_not_of(' ', close + 1), std::string::npos);
  const json h = json::parse(header);
  EXPECT_EQ(h["__metadata__"], (json{{"k", "v"}}));
  const std::string data = bytes.substr(8 + n);
  EXPECT_EQ(data.size(), 3 * 4 + 2 * 8 + 3u);
  // 8-byte dtypes first, then by state order: a, b, m.
  EXPECT_EQ(h["a"], (json{{"dtype", "I64"}, {"shape", {2}}, {"data_offsets", {0, 16}}}));
  EXPECT_EQ(h["b"], (json{{"dtype", "F32"}, {"shape", {3}}, {"data_offsets", {16, 28}}}));
  EXPECT_EQ(h["m"], (json{{"dtype", "BOOL"}, {"shape", {3}}, {"data_offsets", {28, 31}}}));
  const unsigned char want_a[16] = {0, 0, 0, 0, 0, 1, 0, 0, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  EXPECT_EQ(std::memcmp(data.data(), want_a, 16), 0);
  float b[3];
  std::memcpy(b, data.data() + 16, 12);
  EXPECT_EQ(b[0], 1.5f);
  EXPECT_EQ(b[1], -2.0f);
  EXPECT_EQ(b[2], 3.25f);
  EXPECT_EQ(data.substr(28), std::string("\x01\x00\x01", 3));
}

TEST(Safetensors, HalfAndBfloat16AreReadIntoFloat32Exactly) {
  // F16: 1, -2, 2^-24 (the least subnormal), 6.1035156e-05 (the least normal), inf, 65504.
  // BF16: 1, -0.5, 3.3895314e38 (the largest), -inf.
  const unsigned char f16[] = {0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00, 0x00, 0x04, 0x00, 0x7c, 0xff, 0x7b};
  const unsigned char bf16[] = {0x80, 0x3f, 0x00, 0xbf, 0x7f, 0x7f, 0x80, 0xff};
  const std::string header = R"({"h":{"dtype":"F16","shape":[6],"data_offsets":[0,12]},)"
                             R"("g":{"dtype":"BF16","shape":[2,2],"data_offsets":[12,20]}})";
  const std::string p = temp_path("half.safetensors");
  write_bytes(p, raw_file(header, std::string(reinterpret_cast<const char*>(f16), sizeof f16) +
                                      std::string(reinterpret_cast<const char*>(bf16), sizeof bf16)));
  std::vector<std::string> warned;
  set_warning_handler([&](const Warning& w) { warned.push_back(w.message); });
  const SafetensorsFile f = load_safetensors(p);
  set_warning_handler(nullptr);
  const Tensor h = f.tensors.at("h"), g = f.tensors.at("g");
  EXPECT_EQ(h.dtype(), kFloat32);
  const float want_h[] = {1.0f, -2.0f, std::ldexp(1.0f, -24), std::ldexp(1.0f, -14), INFINITY, 65504.0f};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(h[i].item<float>(), want_h[i]) << i;
  EXPECT_EQ(g.sizes(), (Shape{2, 2}));
  EXPECT_EQ(g[0][0].item<float>(), 1.0f);
  EXPECT_EQ(g[0][1].item<float>(), -0.5f);
  EXPECT_EQ(g[1][0].item<float>(), 3.3895314e38f);
  EXPECT_EQ(g[1][1].item<float>(), -INFINITY);
  ASSERT_EQ(f.notes.size(), 2u);
  EXPECT_NE(f.notes[0].find("F16 read into float32"), std::string::npos);
  EXPECT_EQ(warned.size(), 2u);
}

TEST(Safetensors, LoadedTensorsWrittenInPlaceLeaveTheFileAlone) {
  const std::string p = temp_path("cow.safetensors");
  save_safetensors(p, {{"w", ones({64})}});
  const std::string before = read_bytes(p);
  {
    SafetensorsFile f = load_safetensors(p);
    Tensor w = f.tensors.at("w");
    w.mul_(3.0);
    EXPECT_EQ(w[5].item<float>(), 3.0f);
  }
  EXPECT_EQ(read_bytes(p), before);
  EXPECT_EQ(load_safetensors(p).tensors.at("w")[5].item<float>(), 1.0f);
}

TEST(Safetensors, SavingIsAtomic) {
  const std::string p = temp_path("atomic.safetensors");
  save_safetensors(p, {{"w", ones({4})}});
  const std::string before = read_bytes(p);
  // An undefined tensor fails the save before anything is written: the old file stays whole and
  // no temporary file is left beside it.
  EXPECT_THROW(save_safetensors(p, {{"w", zeros({4})}, {"x", Tensor()}}), Error);
  EXPECT_EQ(read_bytes(p), before);
  for (const auto& e : fs::directory_iterator(fs::path(p).parent_path()))
    EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << e.path();
  EXPECT_THROW(save_safetensors(temp_path("no/such/dir/x.safetensors"), {{"w", ones({1})}}), Error);
}

// Every way a file can be malformed raises ditto::Error naming the file and what is wrong.
struct Malformed {
  const char* what;
  std::string bytes;
  const char* message;
};

std::vector<Malformed> malformed_cases() {
  const std::string f8(8, '\0');  // two float32 zeros
  const std::string t = R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  return {
      {"empty file", "", "shorter than the 8-byte header length"},
      {"short file", "abc", "shorter than the 8-byte header length"},
      {"header length past the end", raw_file(t, f8, 4096), "runs past the end of the file"},
      {"header length over the limit", le64(uint64_t{1} << 40) + t, "over the limit"},
      {"header length overflowing", le64(~uint64_t{0}) + t, "over the limit"},
      {"truncated mid-header", raw_file(t, f8).substr(0, 20), "runs past the end of the file"},
      {"truncated mid-data", raw_file(t, f8).substr(0, 8 + t.size() + 5), "data section of 5 bytes"},
      {"not JSON", raw_file(R"({"t": [})", ""), "not valid JSON"},
      {"not an object", raw_file("[1, 2]", ""), "does not start with '{'"},
      {"trailing bytes in the header", raw_file(t + "x", f8), "not valid JSON"},
      {"duplicate names",
       raw_file(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                R"("t":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                f8),
       "duplicate key \"t\""},
      {"duplicate field", raw_file(R"({"t":{"dtype":"F32","dtype":"F64","shape":[2],"data_offsets":[0,8]}})", f8),
       "duplicate key \"dtype\""},
      {"unknown dtype", raw_file(R"({"t":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", f8),
       "unknown dtype \"F33\""},
      {"a dtype ditto has not", raw_file(R"({"t":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})", f8),
       "dtype U8 is not one ditto reads"},
      {"offsets outside the data", raw_file(R"({"t":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", f8),
       "lie outside the data section"},
      {"offsets reversed", raw_file(R"({"t":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", f8),
       "lie outside the data section"},
      {"overlapping tensors",
       raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                f8),
       "overlaps the tensor before it"},
      {"a hole", raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", f8), "a hole before it"},
      {"bytes after the tensors", raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", f8),
       "the tensors end at byte 4"},
      {"shape disagreeing with the bytes", raw_file(R"({"t":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}})", f8),
       "takes 16 bytes, data_offsets give 8"},
      {"element count overflowing",
       raw_file(R"({"t":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", f8), "overflows"},
      {"byte count overflowing",
       raw_file(R"({"t":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,8]}})", f8), "overflows"},
      {"size past int64", raw_file(R"({"t":{"dtype":"F32","shape":[9223372036854775808],"data_offsets":[0,8]}})", f8),
       "too large"},
      {"negative size", raw_file(R"({"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", f8),
       "non-negative integers"},
      {"fractional size", raw_file(R"({"t":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", f8),
       "non-negative integers"},
      {"no shape", raw_file(R"({"t":{"dtype":"F32","data_offsets":[0,8]}})", f8), "no \"shape\""},
      {"three offsets", raw_file(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,4,8]}})", f8),
       "data_offsets must be [begin, end]"},
      {"an entry that is not an object", raw_file(R"({"t":3})", ""), "expected an object"},
      {"metadata not strings", raw_file(R"({"__metadata__":{"a":1}})", ""), "must map strings to strings"},
      {"metadata not an object", raw_file(R"({"__metadata__":"x"})", ""), "must map strings to strings"},
      {"nested too deep", raw_file(R"({"t":{"dtype":"F32","shape":[[[[1]]]],"data_offsets":[0,4]}})", f8),
       "nested deeper"},
      {"a bool that is not 0 or 1",
       raw_file(R"({"t":{"dtype":"BOOL","shape":[8],"data_offsets":[0,8]}})",
                std::string("\x01\x00\x02\x00\x00\x00\x00\x00", 8)),
       "BOOL element 2 is 2"},
      {"invalid UTF-8", raw_file("{\"\xff\":{}}", ""), "not valid JSON"},
  };
}

TEST(Safetensors, EveryMalformedFileRaisesAnErrorNamingTheFile) {
  for (const Malformed& m : malformed_cases()) {
    const std::string p = temp_path("bad.safetensors");
    write_bytes(p, m.bytes);
    try {
      load_safetensors(p);
      ADD_FAILURE() << m.what << ": loaded";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("[" + p + "]"), std::string::npos) << m.what << ": " << msg;
      EXPECT_NE(msg.find(m.message), std::string::npos) << m.what << ": " << msg;
    }
  }
  EXPECT_THROW_MSG(load_safetensors(temp_path("absent.safetensors")), "cannot open");
  EXPECT_THROW_MSG(load_safetensors(fs::temp_directory_path().string()), "not a regular file");
}

TEST(Safetensors, EmptyFileOfNoTensorsAndZeroSizedTensorsLoad) {
  const std::string p = temp_path("none.safetensors");
  save_safetensors(p, {});
  EXPECT_TRUE(load_safetensors(p).tensors.empty());
  // Zero-byte tensors take no bytes, at an offset where one tensor ends and the next begins.
  write_bytes(p, raw_file(R"({"a":{"dtype":"F32","shape":[0,4],"data_offsets":[0,0]},)"
                          R"("b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                          R"("c":{"dtype":"I64","shape":[3,0],"data_offsets":[8,8]}})",
                          std::string(8, '\0')));
  const SafetensorsFile f = load_safetensors(p);
  EXPECT_EQ(f.tensors.at("a").sizes(), (Shape{0, 4}));
  EXPECT_EQ(f.tensors.at("c").dtype(), kInt64);
  EXPECT_EQ(f.tensors.at("b").sum().item<float>(), 0.0f);
}

// Weights trained in PyTorch 1.13 (tools/gen_safetensors_golden.py, committed) load by name into
// the same architecture in ditto and give PyTorch's eval-mode outputs: within float32 rounding of
// the GEMM and convolution sums, whose order is ditto's own (docs/design.md); BatchNorm, ReLU,
// max pooling and flatten add no difference of their own.
StateDict with_prefix(const StateDict& s, const std::string& prefix) {
  StateDict out;
  for (const auto& [k, t] : s)
    if (k.rfind(prefix, 0) == 0) out.insert(k.substr(prefix.size()), t);
  return out;
}

TEST(Safetensors, PyTorchTrainedWeightsGivePyTorchsOutputs) {
  const SafetensorsFile f = load_safetensors(DITTO_TEST_DATA "/safetensors/pytorch-models.safetensors");
  EXPECT_EQ(f.metadata.at("source"), "tools/gen_safetensors_golden.py");
  nn::Sequential mlp(nn::Linear(6, 5), nn::BatchNorm1d(5), nn::ReLU(), nn::Linear(5, 4));
  nn::Sequential cnn(nn::Conv2d(2, 3, 3, 1, 1), nn::BatchNorm2d(3), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(),
                     nn::Linear(12, 2));
  for (auto& [m, name] : {std::pair<nn::Sequential*, std::string>{&mlp, "mlp"}, {&cnn, "cnn"}}) {
    const auto r = m->load_state_dict(with_prefix(f.tensors, name + "."));
    EXPECT_TRUE(r.missing_keys.empty() && r.unexpected_keys.empty());
    EXPECT_EQ(m->state_dict().at("1.num_batches_tracked").item<int64_t>(), 3);
    m->eval();
    const StateDict io = with_prefix(f.tensors, name + "_io.");
    const Tensor got = (*m)(io.at("input")), want = io.at("output");
    ASSERT_EQ(got.sizes(), want.sizes());
    const double err = (got - want).abs().max().item<double>(), scale = want.abs().max().item<double>();
    EXPECT_LE(err, 4 * 1.2e-7 * std::max(scale, 1.0)) << name;
  }
  for (const char* h : {"f16", "bf16"})
    EXPECT_TRUE(same_bits(f.tensors.at(std::string("half.") + h), f.tensors.at(std::string("half.") + h + "_as_f32")))
        << h;
}

// --- state dicts
nn::Sequential small_model(uint64_t seed) {
  manual_seed(seed);
  return nn::Sequential(nn::Linear(3, 4), nn::BatchNorm1d(4), nn::ReLU(), nn::Linear(4, 2));
}

TEST(StateDict, NamesAreDottedAsPyTorchsAndIncludeBuffers) {
  nn::Sequential m = small_model(1);
  EXPECT_EQ(m.state_dict().keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                                      "1.num_batches_tracked", "3.weight", "3.bias"}));
  // Views, not copies, as PyTorch's: a write through the model shows.
  const StateDict s = m.state_dict();
  {
    NoGradGuard g;
    m.parameters()[0].fill_(4.0);
  }
  EXPECT_EQ(s.at("0.weight")[0][0].item<float>(), 4.0f);
  EXPECT_FALSE(s.at("0.weight").requires_grad());
}

TEST(StateDict, LoadingGivesTheSameOutputsAndSafetensorsKeepsEveryBit) {
  nn::Sequential a = small_model(1), b = small_model(2);
  const Tensor x = randn({5, 3});
  a(x);  // a training step's batch statistics reach the running buffers
  const std::string p = temp_path("model.safetensors");
  save_safetensors(p, a.state_dict());
  const auto r = b.load_state_dict(load_safetensors(p).tensors);
  EXPECT_TRUE(r.missing_keys.empty());
  EXPECT_TRUE(r.unexpected_keys.empty());
  a.eval();
  b.eval();
  EXPECT_TRUE(same_bits(a(x), b(x)));
  for (const auto& [name, t] : a.state_dict()) EXPECT_TRUE(same_bits(t, b.state_dict().at(name))) << name;
}

TEST(StateDict, StrictAndNonStrictLoadingNameTheKeys) {
  nn::Sequential m = small_model(1);
  StateDict s;
  for (const auto& [k, t] : small_model(3).state_dict())
    if (k != "3.bias") s.insert(k, t);
  s.insert("extra.weight", ones({1}));
  const Tensor before = m.state_dict().at("0.weight").clone();
  EXPECT_THROW_MSG(m.load_state_dict(s),
                   "Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict: \"3.bias\".\n\t"
                   "Unexpected key(s) in state_dict: \"extra.weight\".");
  EXPECT_TRUE(same_bits(m.state_dict().at("0.weight"), before));  // nothing written
  const auto r = m.load_state_dict(s, false);
  EXPECT_EQ(r.missing_keys, std::vector<std::string>{"3.bias"});
  EXPECT_EQ(r.unexpected_keys, std::vector<std::string>{"extra.weight"});
  EXPECT_TRUE(same_bits(m.state_dict().at("0.weight"), s.at("0.weight")));
  // A shape mismatch raises, strict or not.
  StateDict wrong{{"0.weight", ones({3, 3})}};
  EXPECT_THROW_MSG(m.load_state_dict(wrong, false),
                   "size mismatch for 0.weight: copying a param with shape (3, 3) from checkpoint, the shape in "
                   "current model is (4, 3).");
  EXPECT_THROW_MSG((StateDict{{"a", ones({1})}, {"a", ones({1})}}), "duplicate name \"a\"");
}

// --- checkpoints
// AdamW, a cosine schedule and dropout (drawing from the default generator), batches drawn from
// a generator of the run's own: every kind of state a checkpoint must carry.
struct TrainingRun {
  nn::Sequential model;
  optim::AdamW opt;
  optim::CosineAnnealingLR sched;
  Generator data{11};
  explicit TrainingRun(uint64_t seed)
      : model((manual_seed(seed), nn::Sequential(nn::Linear(8, 16), nn::ReLU(), nn::Dropout(0.25), nn::Linear(16, 3)))),
        opt(model.parameters(), 1e-2),
        sched(opt, 7) {}
  std::vector<double> train(int steps) {
    std::vector<double> losses;
    for (int i = 0; i < steps; ++i) {
      const Tensor x = randn({16, 8}, kFloat32, &data), y = randint(0, 3, {16}, kInt64, &data);
      Tensor loss = nn::functional::cross_entropy(model(x), y);
      opt.zero_grad();
      loss.backward();
      opt.step();
      sched.step();
      losses.push_back(loss.item<double>());
    }
    return losses;
  }
};

TEST(Checkpoint, ResumingGivesTheBitsOfARunStraightThrough) {
  const int saved_threads = get_num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    TrainingRun straight(5);
    const std::vector<double> all = straight.train(20);
    const uint64_t params = fingerprint(straight.model.parameters());
    const std::vector<uint8_t> rng = get_rng_state(), data = straight.data.get_state();

    const std::string p = temp_path("run.ckpt");
    {
      TrainingRun first(5);
      const std::vector<double> half = first.train(10);
      EXPECT_EQ(half, std::vector<double>(all.begin(), all.begin() + 10));
      save_checkpoint(p, first.model, first.opt, {&first.sched}, {&first.data}, 10, {{"run", "test"}});
    }
    manual_seed(999);        // whatever happened in between
    TrainingRun second(77);  // other initial weights, a fresh optimizer and schedule
    const Checkpoint c = load_checkpoint(p, second.model, second.opt, {&second.sched}, {&second.data});
    EXPECT_EQ(c.step, 10);
    EXPECT_EQ(c.metadata, (Metadata{{"run", "test"}}));
    const std::vector<double> rest = second.train(10);
    EXPECT_EQ(rest, std::vector<double>(all.begin() + 10, all.end())) << threads << " threads";
    EXPECT_EQ(fingerprint(second.model.parameters()), params) << threads << " threads";
    EXPECT_EQ(get_rng_state(), rng);
    EXPECT_EQ(second.data.get_state(), data);
    EXPECT_EQ(second.opt.lr(), straight.opt.lr());
  }
  set_num_threads(saved_threads);
}

// Two parameter groups (weights decay, biases do not) under OneCycleLR, which also moves Adam's
// beta1, or under SequentialLR (warmup, then cosine), which drives two schedulers: the lrs, the
// momenta and every scheduler's position come back, and the rest of the run is the same bits.
TEST(Checkpoint, ParameterGroupsAndChainedSchedulersResumeBitForBit) {
  struct Run {
    nn::Sequential model;
    std::unique_ptr<optim::AdamW> opt;
    std::vector<std::unique_ptr<optim::LRScheduler>> scheds;  // the last drives the others
    Generator data{13};
    Run(uint64_t seed, bool sequential)
        : model((manual_seed(seed), nn::Sequential(nn::Linear(8, 16), nn::ReLU(), nn::Linear(16, 3)))) {
      std::vector<Tensor> decay, no_decay;
      for (const auto& [name, t] : model.named_parameters()) (name.ends_with("bias") ? no_decay : decay).push_back(t);
      opt = std::make_unique<optim::AdamW>(
          std::vector<optim::ParamGroup>{{decay, std::nullopt, std::nullopt}, {no_decay, 2e-2, 0.0}},
          optim::AdamOptions{.lr = 1e-2, .weight_decay = 0.1});
      if (sequential) {
        scheds.push_back(std::make_unique<optim::LinearLR>(*opt, 0.1, 1.0, 4));
        scheds.push_back(std::make_unique<optim::CosineAnnealingLR>(*opt, 12, 1e-4));
        scheds.push_back(std::make_unique<optim::SequentialLR>(
            *opt, std::vector<optim::LRScheduler*>{scheds[0].get(), scheds[1].get()}, std::vector<int64_t>{4}));
      } else {
        scheds.push_back(std::make_unique<optim::OneCycleLR>(*opt, std::vector<double>{2e-2, 5e-2}, 20));
      }
    }
    std::vector<double> train(int steps) {
      std::vector<double> out;
      for (int i = 0; i < steps; ++i) {
        const Tensor x = randn({16, 8}, kFloat32, &data), y = randint(0, 3, {16}, kInt64, &data);
        Tensor loss = nn::functional::cross_entropy(model(x), y);
        opt->zero_grad();
        loss.backward();
        opt->step();
        scheds.back()->step();
        out.push_back(loss.item<double>());
      }
      return out;
    }
  };
  for (bool sequential : {false, true}) {
    SCOPED_TRACE(sequential ? "SequentialLR" : "OneCycleLR");
    Run straight(5, sequential);
    const std::vector<double> all = straight.train(14);
    const std::string p = temp_path("groups.ckpt");
    {
      Run first(5, sequential);
      first.train(6);
      save_checkpoint(p, first.model, *first.opt, {first.scheds.back().get()}, {&first.data}, 6);
    }
    Run second(77, sequential);
    load_checkpoint(p, second.model, *second.opt, {second.scheds.back().get()}, {&second.data});
    EXPECT_EQ(second.train(8), std::vector<double>(all.begin() + 6, all.end()));
    EXPECT_EQ(fingerprint(second.model.parameters()), fingerprint(straight.model.parameters()));
    for (std::size_t g = 0; g < 2; ++g) {
      EXPECT_EQ(second.opt->group(g).lr, straight.opt->group(g).lr);
      EXPECT_EQ(second.opt->group(g).momentum, straight.opt->group(g).momentum);
    }
    EXPECT_NE(straight.opt->group(0).lr, straight.opt->group(1).lr);
    if (sequential) {
      EXPECT_EQ(second.scheds[1]->last_epoch(), straight.scheds[1]->last_epoch());
    } else {
      EXPECT_NE(straight.opt->group(0).momentum, 0.9);  // OneCycleLR moved beta1
    }
  }
}

TEST(Checkpoint, AMismatchRaisesBeforeAnythingIsRestored) {
  TrainingRun a(5);
  a.train(3);
  const std::string p = temp_path("mismatch.ckpt");
  save_checkpoint(p, a.model, a.opt, {&a.sched}, {&a.data}, 3);
  TrainingRun b(6);
  const uint64_t before = fingerprint(b.model.parameters());
  EXPECT_THROW_MSG(load_checkpoint(p, b.model, b.opt, {}, {&b.data}),
                   "1 schedulers were saved (with the ones they drive), 0 given");
  EXPECT_THROW_MSG(load_checkpoint(p, b.model, b.opt, {&b.sched}, {}), "2 generators were saved, 1 given");
  nn::Sequential other(nn::Linear(8, 16), nn::ReLU(), nn::Linear(16, 3));
  optim::AdamW other_opt(other.parameters(), 1e-2);
  EXPECT_THROW_MSG(load_checkpoint(p, other, other_opt, {&b.sched}, {&b.data}),
                   "Unexpected key(s) in state_dict: \"3.weight\", \"3.bias\".");
  EXPECT_EQ(fingerprint(b.model.parameters()), before);
  EXPECT_THROW_MSG(save_checkpoint(p, a.model, a.opt, {}, {}, 0, {{"ditto.x", "y"}}), "the checkpoint's own");
  save_safetensors(p, a.model.state_dict());
  EXPECT_THROW_MSG(load_checkpoint(p, b.model, b.opt), "not a ditto checkpoint");
}

}  // namespace
