// nn::DistributedDataParallel: leaves computed where they are owned, their gradients summed in
// the canonical leaf tree (Note [Leaf reduction order]); the rules for random draws and buffers
// are in include/ditto/nn/parallel.h.
#include <sstream>

#include "distributed/group.h"
#include "ditto/autograd.h"
#include "ditto/error.h"
#include "ditto/factory.h"
#include "ditto/nn/parallel.h"
#include "ditto/random.h"

namespace ditto::nn {

namespace {
constexpr const char* kOp = "DistributedDataParallel";

std::string describe(const std::vector<std::string>& names, const std::vector<Tensor>& ts, const char* what) {
  std::ostringstream s;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    s << what << " '" << names[i] << "' " << ts[i].dtype() << " [";
    for (int64_t d = 0; d < ts[i].dim(); ++d) s << (d ? ", " : "") << ts[i].size(d);
    s << "]\n";
  }
  return s.str();
}

// The first line where two descriptions differ ("(none)" past the end of one).
std::pair<std::string, std::string> first_difference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (;;) {
    const bool ga = static_cast<bool>(std::getline(sa, la)), gb = static_cast<bool>(std::getline(sb, lb));
    if (!ga && !gb) return {"", ""};
    if (!ga) la = "(nothing)";
    if (!gb) lb = "(nothing)";
    if (la != lb || !ga || !gb) return {la, lb};
  }
}

uint64_t mix64(uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::vector<Tensor> clones(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(t.detach().clone());
  return out;
}

void assign(std::vector<Tensor>& dst, const std::vector<Tensor>& src) {
  NoGradGuard no_grad;
  for (std::size_t i = 0; i < dst.size(); ++i) dst[i].copy_(src[i]);
}
}  // namespace

DistributedDataParallel::DistributedDataParallel(Module& module, int64_t num_leaves)
    : module_(&module), num_leaves_(num_leaves) {
  std::vector<std::string> pn, bn;
  for (auto& [name, t] : module.named_parameters()) pn.push_back(name), all_params_.push_back(t);
  for (auto& [name, t] : module.named_buffers()) bn.push_back(name), buffers_.push_back(t);
  setup(std::move(pn), std::move(bn));
}

DistributedDataParallel::DistributedDataParallel(std::vector<Tensor> parameters, std::vector<Tensor> buffers,
                                                 int64_t num_leaves, std::vector<std::string> parameter_names,
                                                 std::vector<std::string> buffer_names)
    : all_params_(std::move(parameters)), buffers_(std::move(buffers)), num_leaves_(num_leaves) {
  setup(std::move(parameter_names), std::move(buffer_names));
}

void DistributedDataParallel::setup(std::vector<std::string> pn, std::vector<std::string> bn) {
  if (num_leaves_ < 1) ditto::detail::fail(kOp, "num_leaves must be >= 1, got ", num_leaves_);
  for (std::size_t i = pn.size(); i < all_params_.size(); ++i) pn.push_back("parameter " + std::to_string(i));
  for (std::size_t i = bn.size(); i < buffers_.size(); ++i) bn.push_back("buffer " + std::to_string(i));
  bool have_dtype = false;
  for (std::size_t i = 0; i < all_params_.size(); ++i) {
    const Tensor& p = all_params_[i];
    if (!p.defined()) ditto::detail::fail(kOp, "parameter '", pn[i], "' is undefined");
    if (!p.requires_grad()) continue;
    if (!have_dtype) dtype_ = p.dtype(), have_dtype = true;
    if (p.dtype() != dtype_)
      ditto::detail::fail(kOp, "needs one floating dtype for every parameter; '", pn[i], "' is ", p.dtype(),
                          ", others ", dtype_);
    params_.push_back(p);
    numel_ += p.numel();
  }
  for (std::size_t i = 0; i < buffers_.size(); ++i)
    if (!buffers_[i].defined()) ditto::detail::fail(kOp, "buffer '", bn[i], "' is undefined");
  distributed::init();
  rank_ = distributed::rank();
  world_ = distributed::world_size();
  if (world_ == 1) return;

  // Every rank's model must be rank 0's: names, dtypes, shapes.
  const std::string mine = describe(pn, all_params_, "parameter") + describe(bn, buffers_, "buffer");
  distributed::detail::Writer w;
  w.put_bytes(mine.data(), mine.size());
  std::vector<std::pair<int, distributed::detail::Bytes>> sends;
  std::vector<int> peers;
  for (int p = 0; p < world_; ++p)
    if (p != rank_) peers.push_back(p), sends.emplace_back(p, w.out);
  auto got = distributed::detail::exchange(kOp, distributed::detail::Kind::wrap_check, std::move(sends), peers);
  std::vector<std::string> all(static_cast<std::size_t>(world_));
  all[static_cast<std::size_t>(rank_)] = mine;
  for (std::size_t i = 0; i < peers.size(); ++i)
    all[static_cast<std::size_t>(peers[i])].assign(got[i].begin() + distributed::detail::kHeaderBytes, got[i].end());
  for (int p = 1; p < world_; ++p) {
    if (all[static_cast<std::size_t>(p)] == all[0]) continue;
    auto [a, b] = first_difference(all[0], all[static_cast<std::size_t>(p)]);
    ditto::detail::fail(kOp, "rank ", p, "'s model differs from rank 0's: rank 0 has ", a, ", rank ", p, " has ", b);
  }
  NoGradGuard no_grad;
  for (Tensor& t : all_params_) distributed::broadcast(t, 0);
  for (Tensor& t : buffers_) distributed::broadcast(t, 0);
}

Module& DistributedDataParallel::module() const {
  if (!module_) ditto::detail::fail(kOp, "was made from tensors, not a module");
  return *module_;
}

Tensor DistributedDataParallel::forward_backward(const std::function<Tensor(int64_t leaf)>& leaf_loss) {
  const distributed::LeafRange mine = local_leaves();
  const auto before = distributed::traffic();

  // Gradients already there are added to at the end; each leaf starts from none.
  std::vector<Tensor> earlier;
  for (Tensor& p : params_) earlier.push_back(p.grad()), p.mutable_grad() = Tensor();
  // The step's generator state: the leaves' seeds come from it, and it is advanced once.
  const std::vector<uint8_t> start_rng = get_rng_state();
  Generator step_gen;
  step_gen.set_state(start_rng);
  const uint64_t base = step_gen.random64();
  const std::vector<Tensor> start_buffers = clones(buffers_);
  std::vector<Tensor> leaf0_buffers;

  distributed::LeafReducer reducer(num_leaves_, numel_ + 1, dtype_);
  try {
    for (int64_t leaf = mine.begin; leaf < mine.end; ++leaf) {
      if (leaf != mine.begin) assign(buffers_, start_buffers);
      // manual_seed keeps 32 bits, as torch.manual_seed's stream does
      default_generator().manual_seed(mix64(base ^ mix64(static_cast<uint64_t>(leaf))) & 0xffffffffULL);
      const Tensor loss = leaf_loss(leaf);
      if (!loss.defined() || loss.numel() != 1 || !is_floating(loss.dtype()))
        ditto::detail::fail(kOp, "the leaf function must return a floating loss of one element (leaf ", leaf, ")");
      loss.backward();
      Tensor flat = empty({numel_ + 1}, dtype_);
      {
        NoGradGuard no_grad;
        int64_t off = 0;
        for (Tensor& p : params_) {
          Tensor slot = flat.narrow(0, off, p.numel());
          if (p.grad().defined())
            slot.copy_(p.grad().reshape({-1}));
          else
            slot.fill_(0.0);
          off += p.numel();
          p.mutable_grad() = Tensor();
        }
        flat.narrow(0, numel_, 1).copy_(loss.detach().reshape({1}));
      }
      reducer.add(leaf, std::move(flat));
      if (leaf == 0) leaf0_buffers = clones(buffers_);
    }
  } catch (const std::exception& e) {
    // The step did not happen: the gradients, buffers and generator are as they were.
    distributed::notify_failure(e.what());
    for (std::size_t i = 0; i < params_.size(); ++i) params_[i].mutable_grad() = earlier[i];
    assign(buffers_, start_buffers);
    set_rng_state(start_rng);
    throw;
  }
  Tensor total = reducer.finish();
  {
    NoGradGuard no_grad;
    const Scalar leaves(static_cast<double>(num_leaves_));
    int64_t off = 0;
    for (std::size_t i = 0; i < params_.size(); ++i) {
      Tensor& p = params_[i];
      Tensor g = total.narrow(0, off, p.numel()).reshape(p.sizes()) / leaves;
      off += p.numel();
      p.mutable_grad() = earlier[i].defined() ? earlier[i].add(g) : g;
    }
    // Buffers: leaf 0's, from the rank that computed it.
    if (!buffers_.empty()) {
      int owner = 0;
      while (distributed::leaf_range(num_leaves_, owner, world_).end == 0) ++owner;
      if (rank_ == owner) assign(buffers_, leaf0_buffers);
      if (world_ > 1)
        for (Tensor& b : buffers_) distributed::broadcast(b, owner);
    }
  }
  set_rng_state(step_gen.get_state());

  const auto after = distributed::traffic();
  traffic_.bytes_sent = after.bytes_sent - before.bytes_sent;
  const uint64_t bytes = static_cast<uint64_t>(numel_ + 1) * element_size(dtype_);
  traffic_.ring_all_reduce_bytes =
      world_ > 1 ? 2 * bytes * static_cast<uint64_t>(world_ - 1) / static_cast<uint64_t>(world_) : 0;
  return total.narrow(0, numel_, 1).reshape({}) / Scalar(static_cast<double>(num_leaves_));
}

}  // namespace ditto::nn
