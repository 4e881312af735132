// The process group and the collectives on it: barrier, broadcast, all_gather, all_reduce (the
// leaf tree with one leaf per rank). Each is one or two exchanges of the transport.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "distributed/group.h"
#include "ditto/error.h"
#include "ditto/factory.h"

namespace ditto::distributed {
namespace detail {
namespace {

struct State {
  std::once_flag once;
  std::unique_ptr<Transport> transport;  // null: a world of one
  bool initialized = false;
  uint64_t seq = 0;
  double timeout = 300.0;
};
State& state() {
  static State* s = new State();  // never destroyed: finalize runs at exit, after static destructors may have
  return *s;
}

constexpr uint32_t kMagic = 0x4f545444;  // "DTTO"

const char* kind_name(uint32_t k) {
  switch (static_cast<Kind>(k)) {
    case Kind::barrier: return "barrier";
    case Kind::broadcast: return "broadcast";
    case Kind::all_gather: return "all_gather";
    case Kind::reduce_scatter: return "all_reduce (scatter)";
    case Kind::reduce_gather: return "all_reduce (gather)";
    case Kind::wrap_check: return "DistributedDataParallel";
  }
  return "unknown";
}

void at_exit() { finalize(); }

}  // namespace

bool launched_by_mpi(int* world_from_env) {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"}) {
    if (const char* v = std::getenv(var)) {
      *world_from_env = std::atoi(v);
      return true;
    }
  }
  return std::getenv("PMIX_RANK") != nullptr && (*world_from_env = 0, true);
}

Transport* group() {
  init();
  return state().transport.get();
}

double timeout_s() { return state().timeout; }

std::vector<Bytes> exchange(const char* op, Kind kind, std::vector<std::pair<int, Bytes>> sends,
                            const std::vector<int>& from) {
  Transport* t = group();
  const uint64_t seq = state().seq++;
  const uint32_t header[2] = {kMagic, static_cast<uint32_t>(kind)};
  for (auto& [peer, bytes] : sends) {
    if (bytes.size() < kHeaderBytes) ditto::detail::fail(op, "internal: a message without its header");
    std::memcpy(bytes.data(), header, sizeof header);
    std::memcpy(bytes.data() + sizeof header, &seq, sizeof seq);
  }
  std::vector<Bytes> got = t->exchange(op, static_cast<int>(kind), std::move(sends), from, state().timeout);
  for (std::size_t i = 0; i < got.size(); ++i) {
    Reader r{got[i], 0, op, from[i]};
    const auto magic = r.get<uint32_t>(), k = r.get<uint32_t>();
    const auto s = r.get<uint64_t>();
    if (magic != kMagic || k != static_cast<uint32_t>(kind) || s != seq) {
      t->notify_failure("its collectives are out of step");
      ditto::detail::fail(op, "rank ", from[i], " is in collective ", s, " (", kind_name(k), ") while rank ", t->rank(),
                          " is in collective ", seq, " (", kind_name(static_cast<uint32_t>(kind)),
                          "): the ranks' programs made different calls");
    }
  }
  return got;
}

void Writer::put_tensor(const Tensor& t) {
  const Tensor c = t.contiguous();
  out.reserve(out.size() + 8 + 8 * static_cast<std::size_t>(c.dim()) +
              static_cast<std::size_t>(c.numel()) * c.element_size());
  put(static_cast<int32_t>(c.dtype()));
  put(static_cast<int32_t>(c.dim()));
  for (int64_t s : c.sizes()) put(s);
  put_bytes(c.raw_data(), static_cast<std::size_t>(c.numel()) * c.element_size());
}

void Reader::need(std::size_t n) const {
  if (n > in.size() - pos)
    ditto::detail::fail(op, "the message from rank ", from, " is ", in.size(), " bytes, shorter than its contents");
}

Tensor Reader::get_tensor() {
  const auto dt = get<int32_t>(), nd = get<int32_t>();
  if (dt < 0 || dt > static_cast<int32_t>(kFloat64) || nd < 0 || nd > 64)
    ditto::detail::fail(op, "the message from rank ", from, " holds no tensor");
  Shape shape(static_cast<std::size_t>(nd));
  for (auto& s : shape) s = get<int64_t>();
  Tensor t = empty(shape, static_cast<ScalarType>(dt));  // empty() checks the sizes
  const std::size_t n = static_cast<std::size_t>(t.numel()) * t.element_size();
  std::memcpy(t.raw_data(), get_bytes(n), n);
  return t;
}

}  // namespace detail

using detail::Bytes;
using detail::Kind;
using detail::state;

bool is_available() { return detail::mpi_built(); }

void init() {
  auto& s = state();
  std::call_once(s.once, [&] {
    if (const char* t = std::getenv("DITTO_DISTRIBUTED_TIMEOUT")) {
      char* end = nullptr;
      const double v = std::strtod(t, &end);
      if (end == t || *end != '\0' || !(v > 0))
        ditto::detail::fail("distributed.init", "DITTO_DISTRIBUTED_TIMEOUT must be a positive number of seconds, not '",
                            t, "'");
      s.timeout = v;
    }
    int env_world = 1;
    // Under mpirun, even with one process, so that MPI's world is what mpirun says.
    if (detail::launched_by_mpi(&env_world) && (detail::mpi_built() || env_world > 1)) {
      s.transport = detail::make_mpi_transport();
      std::atexit(detail::at_exit);
      if (s.transport->world() == 1) s.transport->finalize(), s.transport.reset();
    }
    s.initialized = true;
  });
}

bool is_initialized() { return state().initialized; }

void finalize() {
  auto& s = state();
  if (s.transport) s.transport->finalize();
}

int rank() { return state().transport ? state().transport->rank() : 0; }
int world_size() { return state().transport ? state().transport->world() : 1; }

void notify_failure(const std::string& what) {
  if (auto* t = state().transport.get()) t->notify_failure(what);
}

Traffic traffic() {
  auto* t = state().transport.get();
  return t ? Traffic{t->bytes_sent, t->messages} : Traffic{};
}

static std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

static std::vector<int> everyone_but(int me, int world) {
  std::vector<int> r;
  for (int p = 0; p < world; ++p)
    if (p != me) r.push_back(p);
  return r;
}

void barrier() {
  detail::Transport* t = detail::group();
  if (!t) return;
  std::vector<std::pair<int, Bytes>> sends;
  for (int p : everyone_but(t->rank(), t->world())) sends.emplace_back(p, detail::Writer().out);
  detail::exchange("distributed.barrier", Kind::barrier, std::move(sends), everyone_but(t->rank(), t->world()));
}

void broadcast(Tensor& tensor, int root) {
  constexpr const char* op = "distributed.broadcast";
  detail::Transport* t = detail::group();
  const int world = t ? t->world() : 1;
  if (root < 0 || root >= world) ditto::detail::fail(op, "root ", root, " is not a rank of a world of ", world);
  if (!t) return;
  std::vector<std::pair<int, Bytes>> sends;
  std::vector<int> from;
  if (t->rank() == root) {
    detail::Writer w;
    w.put_tensor(tensor);
    for (int p : everyone_but(root, world)) sends.emplace_back(p, w.out);
  } else {
    from.push_back(root);
  }
  auto got = detail::exchange(op, Kind::broadcast, std::move(sends), from);
  if (t->rank() == root) return;
  detail::Reader r{got[0], detail::kHeaderBytes, op, root};
  const Tensor src = r.get_tensor();
  if (src.dtype() != tensor.dtype() || src.sizes() != tensor.sizes())
    ditto::detail::fail(op, "rank ", root, " sent a ", src.dtype(), " tensor of shape ", shape_str(src.sizes()),
                        " where rank ", t->rank(), " holds a ", tensor.dtype(), " tensor of shape ",
                        shape_str(tensor.sizes()));
  tensor.copy_(src);
}

std::vector<Tensor> all_gather(const Tensor& tensor) {
  constexpr const char* op = "distributed.all_gather";
  detail::Transport* t = detail::group();
  if (!t) return {tensor.clone()};
  detail::Writer w;
  w.put_tensor(tensor);
  std::vector<std::pair<int, Bytes>> sends;
  const std::vector<int> peers = everyone_but(t->rank(), t->world());
  for (int p : peers) sends.emplace_back(p, w.out);
  auto got = detail::exchange(op, Kind::all_gather, std::move(sends), peers);
  std::vector<Tensor> out;
  for (int p = 0, i = 0; p < t->world(); ++p) {
    if (p == t->rank()) {
      out.push_back(tensor.clone());
      continue;
    }
    detail::Reader r{got[static_cast<std::size_t>(i)], detail::kHeaderBytes, op, p};
    out.push_back(r.get_tensor());
    if (out.back().dtype() != tensor.dtype())
      ditto::detail::fail(op, "rank ", p, " sent ", out.back().dtype(), " where rank ", t->rank(), " has ",
                          tensor.dtype());
    ++i;
  }
  return out;
}

Tensor all_reduce(const Tensor& tensor) {
  const int world = (detail::group(), world_size());
  if (!is_floating(tensor.dtype()))
    ditto::detail::fail("distributed.all_reduce", "needs a floating tensor, got ", tensor.dtype());
  LeafReducer reducer(world, tensor.numel(), tensor.dtype());
  reducer.add(rank(), tensor.reshape({-1}));
  return reducer.finish().view(tensor.sizes());
}

LeafRange leaf_range(int64_t num_leaves, int r, int world) {
  if (num_leaves < 1 || world < 1 || r < 0 || r >= world)
    ditto::detail::fail("distributed.leaf_range", "needs num_leaves >= 1 and 0 <= rank < world, got ", num_leaves,
                        " leaves, rank ", r, " of ", world);
  // num_leaves * world fits: both are bounded (leaves by memory, world by an int)
  return {num_leaves * r / world, num_leaves * (r + 1) / world};
}

LeafRange local_leaves(int64_t num_leaves) {
  init();
  return leaf_range(num_leaves, rank(), world_size());
}

}  // namespace ditto::distributed
