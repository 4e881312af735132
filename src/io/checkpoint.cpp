// Checkpoints: a run's whole state in one safetensors file. Layout (tensor names):
//   model.<state_dict name>           the model's parameters and buffers
//   optimizer.step                    int64 scalar
//   optimizer.lr, optimizer.momentum  float64 (G): each parameter group's, as the schedulers left
//                                     them (files before groups: a scalar lr, no momentum)
//   optimizer.state.<i>.<name>        per parameter i: exp_avg, momentum_buffer, ...
//   scheduler.<k>.last_epoch          int64 scalar; the schedulers given, each followed by the
//   scheduler.<k>.{base_lr,last_lr}   ones it drives (SequentialLR's), base and last lr per group
//   generator.<j>.state               PyTorch's 5056-byte generator state, as 632 int64
//   step                              the caller's step
// and metadata "ditto.checkpoint" = "1", "ditto.optimizer.params", "ditto.schedulers",
// "ditto.generators", beside the caller's own keys (which may not start with "ditto.").
#include <cstring>
#include <mutex>
#include <set>

#include "ditto/factory.h"
#include "ditto/serialize.h"

namespace ditto {

namespace {
constexpr const char* kFormatKey = "ditto.checkpoint";
constexpr const char* kFormat = "1";

std::vector<Generator*> generator_list(const std::vector<Generator*>& given, bool with_default) {
  std::vector<Generator*> out;
  if (with_default) out.push_back(&default_generator());
  out.insert(out.end(), given.begin(), given.end());
  return out;
}

// The schedulers given, each followed by the ones it drives (recursively): what a checkpoint holds.
template <class S>
std::vector<S*> flatten(const std::vector<S*>& given, const char* op) {
  std::vector<S*> out;
  for (std::size_t k = 0; k < given.size(); ++k) {
    DITTO_CHECK(given[k] != nullptr, op, "scheduler ", k, " is null");
    out.push_back(given[k]);
    std::vector<S*> kids;
    for (optim::LRScheduler* c : given[k]->children()) kids.push_back(c);
    for (S* c : flatten(kids, op)) out.push_back(c);
  }
  return out;
}

Tensor doubles(const std::vector<double>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, kFloat64);
  std::memcpy(t.raw_data(), v.data(), v.size() * sizeof(double));
  return t;
}

Tensor state_tensor(Generator& g, bool is_default) {
  std::vector<uint8_t> bytes;
  if (is_default) {
    const std::lock_guard<std::mutex> lock(g.mutex());
    bytes = g.get_state();
  } else {
    bytes = g.get_state();
  }
  Tensor t = empty({static_cast<int64_t>(Generator::kStateBytes / 8)}, kInt64);
  std::memcpy(t.raw_data(), bytes.data(), Generator::kStateBytes);
  return t;
}

// Reads what load_checkpoint needs from the file, each missing or mistyped entry an error.
struct Reader {
  const SafetensorsFile& file;
  const std::string& path;
  std::set<std::string> used;

  const Tensor& get(const std::string& name, ScalarType dtype, const Shape& shape) {
    const Tensor* t = file.tensors.find(name);
    if (t == nullptr)
      detail::fail("load_checkpoint", path, ": no \"", name, "\" (not a checkpoint of this run's objects)");
    if (t->dtype() != dtype || t->sizes() != shape)
      detail::fail("load_checkpoint", path, ": \"", name, "\" is ", dtype_name(t->dtype()), " ",
                   detail_shape(t->sizes()), ", expected ", dtype_name(dtype), " ", detail_shape(shape));
    used.insert(name);
    return *t;
  }
  static std::string detail_shape(const Shape& s) {
    std::string r = "(";
    for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
    return r + ")";
  }
  // Per group doubles: shape (groups), or () from a file written before parameter groups.
  std::vector<double> per_group(const std::string& name, std::size_t groups) {
    const Tensor* t = file.tensors.find(name);
    const Shape want{static_cast<int64_t>(groups)};
    const Tensor& r =
        t != nullptr && t->dim() == 0 && groups == 1 ? get(name, kFloat64, {}) : get(name, kFloat64, want);
    std::vector<double> out(groups);
    std::memcpy(out.data(), r.contiguous().raw_data(), groups * sizeof(double));
    return out;
  }
  int64_t count(const std::string& key) const {
    const auto it = file.metadata.find(key);
    if (it == file.metadata.end()) detail::fail("load_checkpoint", path, ": metadata has no \"", key, "\"");
    try {
      std::size_t end = 0;
      const long long v = std::stoll(it->second, &end);
      if (end == it->second.size() && v >= 0) return v;
    } catch (const std::exception&) {
    }
    detail::fail("load_checkpoint", path, ": metadata \"", key, "\" is not a count: \"", it->second, "\"");
  }
};
}  // namespace

void save_checkpoint(const std::string& path, const nn::Module& model, const optim::Optimizer& optimizer,
                     const std::vector<const optim::LRScheduler*>& schedulers,
                     const std::vector<const Generator*>& generators, int64_t step, const Metadata& metadata,
                     bool include_default_generator) {
  Metadata md;
  for (const auto& [k, v] : metadata) {
    DITTO_CHECK(k.rfind("ditto.", 0) != 0, "save_checkpoint", "metadata key \"", k,
                "\": keys starting with \"ditto.\" are the checkpoint's own");
    md.emplace(k, v);
  }
  StateDict sd;
  for (const auto& [k, t] : model.state_dict()) sd.insert("model." + k, t);
  const optim::OptimizerState os = optimizer.state_dict();
  sd.insert("optimizer.step", scalar_tensor(os.step, kInt64));
  std::vector<double> lrs, momenta;
  for (std::size_t g = 0; g < optimizer.num_groups(); ++g) {
    lrs.push_back(optimizer.group(g).lr);
    momenta.push_back(optimizer.group(g).momentum);
  }
  sd.insert("optimizer.lr", doubles(lrs));
  sd.insert("optimizer.momentum", doubles(momenta));
  for (std::size_t i = 0; i < os.per_param.size(); ++i)
    for (const auto& [k, t] : os.per_param[i]) sd.insert("optimizer.state." + std::to_string(i) + "." + k, t);
  const std::vector<const optim::LRScheduler*> all = flatten(schedulers, "save_checkpoint");
  for (std::size_t k = 0; k < all.size(); ++k) {
    const optim::SchedulerState s = all[k]->state_dict();
    const std::string p = "scheduler." + std::to_string(k) + ".";
    sd.insert(p + "last_epoch", scalar_tensor(s.last_epoch, kInt64));
    sd.insert(p + "base_lr", doubles(s.base_lrs));
    sd.insert(p + "last_lr", doubles(s.last_lrs));
  }
  std::vector<Generator*> gens;
  for (const Generator* g : generators) {
    DITTO_CHECK(g != nullptr, "save_checkpoint", "a generator is null");
    gens.push_back(const_cast<Generator*>(g));  // only its state is read (and the default's mutex taken)
  }
  gens = generator_list(gens, include_default_generator);
  for (std::size_t j = 0; j < gens.size(); ++j)
    sd.insert("generator." + std::to_string(j) + ".state", state_tensor(*gens[j], include_default_generator && j == 0));
  sd.insert("step", scalar_tensor(step, kInt64));
  md[kFormatKey] = kFormat;
  md["ditto.optimizer.params"] = std::to_string(os.per_param.size());
  md["ditto.schedulers"] = std::to_string(all.size());
  md["ditto.generators"] = std::to_string(gens.size());
  save_safetensors(path, sd, md);
}

Checkpoint load_checkpoint(const std::string& path, nn::Module& model, optim::Optimizer& optimizer,
                           const std::vector<optim::LRScheduler*>& schedulers,
                           const std::vector<Generator*>& generators, bool include_default_generator) {
  const SafetensorsFile file = load_safetensors(path);
  const auto fmt = file.metadata.find(kFormatKey);
  DITTO_CHECK(fmt != file.metadata.end(), "load_checkpoint", path,
              ": not a ditto checkpoint (no \"ditto.checkpoint\" metadata); load_safetensors reads it");
  DITTO_CHECK(fmt->second == kFormat, "load_checkpoint", path, ": checkpoint format \"", fmt->second,
              "\", this ditto reads \"", kFormat, "\"");
  Reader rd{file, path, {}};
  // Everything is read and checked before anything is restored.
  StateDict model_state;
  for (const auto& [k, t] : file.tensors)
    if (k.rfind("model.", 0) == 0) {
      model_state.insert(k.substr(6), t);
      rd.used.insert(k);
    }
  const int64_t nparams = rd.count("ditto.optimizer.params");
  DITTO_CHECK(nparams == static_cast<int64_t>(optimizer.params().size()), "load_checkpoint", path,
              ": the optimizer had ", nparams, " parameters, this one has ", optimizer.params().size());
  optim::OptimizerState os;
  os.step = rd.get("optimizer.step", kInt64, {}).item<int64_t>();
  const std::size_t groups = optimizer.num_groups();
  const std::vector<double> lrs = rd.per_group("optimizer.lr", groups);
  std::vector<double> momenta;
  if (file.tensors.find("optimizer.momentum") != nullptr) momenta = rd.per_group("optimizer.momentum", groups);
  os.per_param.resize(static_cast<std::size_t>(nparams));
  for (const auto& [k, t] : file.tensors) {
    if (k.rfind("optimizer.state.", 0) != 0) continue;
    const std::string rest = k.substr(16);
    const std::size_t dot = rest.find('.');
    std::size_t end = 0;
    long long i = -1;
    try {
      i = std::stoll(rest.substr(0, dot), &end);
    } catch (const std::exception&) {
    }
    DITTO_CHECK(dot != std::string::npos && end == dot && i >= 0 && i < nparams, "load_checkpoint", path, ": \"", k,
                "\" names no parameter of the optimizer");
    const Tensor& p = optimizer.params()[static_cast<std::size_t>(i)];
    DITTO_CHECK(t.dim() == 0 || t.sizes() == p.sizes(), "load_checkpoint", path, ": \"", k, "\" has shape ",
                Reader::detail_shape(t.sizes()), ", parameter ", i, " has ", Reader::detail_shape(p.sizes()));
    os.per_param[static_cast<std::size_t>(i)][rest.substr(dot + 1)] = t;
    rd.used.insert(k);
  }
  const std::vector<optim::LRScheduler*> all = flatten(schedulers, "load_checkpoint");
  const int64_t nsched = rd.count("ditto.schedulers");
  DITTO_CHECK(nsched == static_cast<int64_t>(all.size()), "load_checkpoint", path, ": ", nsched,
              " schedulers were saved (with the ones they drive), ", all.size(), " given");
  std::vector<optim::SchedulerState> ss;
  for (int64_t k = 0; k < nsched; ++k) {
    const std::string p = "scheduler." + std::to_string(k) + ".";
    ss.push_back({rd.get(p + "last_epoch", kInt64, {}).item<int64_t>(), rd.per_group(p + "base_lr", groups),
                  rd.per_group(p + "last_lr", groups)});
  }
  const std::vector<Generator*> gens = generator_list(generators, include_default_generator);
  const int64_t ngen = rd.count("ditto.generators");
  DITTO_CHECK(ngen == static_cast<int64_t>(gens.size()), "load_checkpoint", path, ": ", ngen,
              " generators were saved, ", gens.size(), " given (the default generator counts unless excluded)");
  std::vector<std::vector<uint8_t>> gstates;
  for (std::size_t j = 0; j < gens.size(); ++j) {
    DITTO_CHECK(gens[j] != nullptr, "load_checkpoint", "a generator is null");
    const Tensor& t =
        rd.get("generator." + std::to_string(j) + ".state", kInt64, {static_cast<int64_t>(Generator::kStateBytes / 8)});
    std::vector<uint8_t> bytes(Generator::kStateBytes);
    std::memcpy(bytes.data(), t.contiguous().raw_data(), bytes.size());
    gstates.push_back(std::move(bytes));
  }
  Checkpoint out;
  out.step = rd.get("step", kInt64, {}).item<int64_t>();
  for (const auto& [k, t] : file.tensors)
    DITTO_CHECK(rd.used.count(k) != 0, "load_checkpoint", path, ": unexpected tensor \"", k, "\"");
  for (const auto& [k, v] : file.metadata)
    if (k.rfind("ditto.", 0) != 0) out.metadata.emplace(k, v);

  // Restore: the model first (its own checks run before it writes anything), then the rest.
  model.load_state_dict(model_state, true);
  optimizer.load_state_dict(os);
  for (std::size_t g = 0; g < groups; ++g) {
    optimizer.group(g).lr = lrs[g];
    if (!momenta.empty()) optimizer.group(g).momentum = momenta[g];
  }
  for (std::size_t k = 0; k < ss.size(); ++k) all[k]->load_state_dict(ss[k]);
  for (std::size_t j = 0; j < gens.size(); ++j) {
    if (include_default_generator && j == 0) {
      const std::lock_guard<std::mutex> lock(gens[j]->mutex());
      gens[j]->set_state(gstates[j]);
    } else {
      gens[j]->set_state(gstates[j]);
    }
  }
  return out;
}

}  // namespace ditto
