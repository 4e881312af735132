// Note [Leaf reduction order]
// A sum over L leaves (DistributedDataParallel's micro-batches; all_reduce's ranks) is added in
// one tree fixed by L alone: the aligned binary tree over leaf indices 0..P-1, P the power of two
// at or above L. A node covers the leaves [lo, lo + size), size a power of two and lo a multiple
// of it; its value is left child + right child, added element by element (IEEE addition, the
// same bits on every CPU and kernel level), or the left child alone when the right one covers
// no leaf (lo + size / 2 >= L). The root (0, P) is the sum.
//
// Which rank computes which leaf does not enter: a rank holds the contiguous leaves
// leaf_range(L, rank, world) and folds them, as they come, into the maximal tree nodes that lie
// inside its range (a stack of at most log2(P) + 1 nodes: a right child is added to its left
// sibling below it, a left child whose sibling covers nothing becomes its parent). Each node's
// value is the tree's value of that node, whatever the range, so the nodes of all ranks, which
// cover [0, L) without overlap, complete to the same root everywhere.
//
// The exchange (finish): the n elements are cut into one chunk per rank (rank c owns
// [c n / W, (c + 1) n / W)). Every rank sends each of its nodes' chunk c to rank c; rank c
// completes the tree of its chunk from the nodes it received (the same recursion as above); then
// every rank sends its finished chunk to every other. Each rank sends (k + 1) (W - 1) n / W
// elements, k its number of nodes, against a ring all-reduce's 2 (W - 1) n / W: the same when the
// ranks' shares are aligned nodes (W a power of two dividing L), at most (log2(P) + 2) / 2 times
// it otherwise (L = 8, W = 3: 1.5 times).
#include <algorithm>
#include <bit>
#include <map>
#include <optional>

#include "distributed/group.h"
#include "ditto/error.h"
#include "ditto/factory.h"

namespace ditto::distributed {

namespace {

constexpr const char* kOp = "distributed.LeafReducer";

template <class F>
void on_dtype(ScalarType dt, F&& f) {
  if (dt == kFloat32)
    f(float{});
  else
    f(double{});
}

void add_into(Tensor& acc, const Tensor& v) {
  on_dtype(acc.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* a = acc.data_ptr<T>();
    const T* b = v.data_ptr<T>();
    const int64_t n = acc.numel();
    for (int64_t i = 0; i < n; ++i) a[i] += b[i];
  });
}

// The tree's value of node (lo, size) over elements [begin, end), from nodes that cover [0, L):
// `have` maps (lo, size) to the node's elements [begin, end).
using NodeMap = std::map<std::pair<int64_t, int64_t>, const uint8_t*>;

std::optional<detail::Bytes> complete(const NodeMap& have, int64_t lo, int64_t size, int64_t leaves, std::size_t bytes,
                                      ScalarType dt) {
  if (lo >= leaves) return std::nullopt;
  if (auto it = have.find({lo, size}); it != have.end()) return detail::Bytes(it->second, it->second + bytes);
  if (size == 1)
    ditto::detail::fail(kOp, "no rank sent leaf ", lo, " of ", leaves, " (the ranks disagree on the leaves)");
  auto left = complete(have, lo, size / 2, leaves, bytes, dt);
  auto right = complete(have, lo + size / 2, size / 2, leaves, bytes, dt);
  if (right) {
    on_dtype(dt, [&](auto zero) {
      using T = decltype(zero);
      auto* a = reinterpret_cast<T*>(left->data());
      const auto* b = reinterpret_cast<const T*>(right->data());
      const std::size_t n = bytes / sizeof(T);
      for (std::size_t i = 0; i < n; ++i) a[i] += b[i];
    });
  }
  return left;
}

}  // namespace

LeafReducer::LeafReducer(int64_t num_leaves, int64_t numel, ScalarType dtype)
    : num_leaves_(num_leaves), numel_(numel), dtype_(dtype) {
  if (num_leaves < 1 || num_leaves > (int64_t{1} << 40))
    ditto::detail::fail(kOp, "needs between 1 and 2^40 leaves, got ", num_leaves);
  if (numel < 0) ditto::detail::fail(kOp, "numel must be >= 0, got ", numel);
  if (!is_floating(dtype)) ditto::detail::fail(kOp, "sums float32 or float64 leaves, not ", dtype);
  mine_ = local_leaves(num_leaves);
  next_ = mine_.begin;
}

void LeafReducer::add(int64_t leaf, Tensor value) {
  if (leaf != next_)
    ditto::detail::fail(kOp, "rank ", rank(), " holds leaves [", mine_.begin, ", ", mine_.end,
                        ") and takes them in order; expected leaf ", next_, ", got ", leaf);
  if (value.dtype() != dtype_ || value.dim() != 1 || value.size(0) != numel_)
    ditto::detail::fail(kOp, "leaf ", leaf, " must be a 1-D ", dtype_, " tensor of ", numel_, " elements, got ",
                        value.dtype(), " of ", value.numel(), " elements in ", value.dim(), " dims");
  ++next_;
  // A tensor nobody else holds (DistributedDataParallel's, moved in) is kept as it is; others
  // are copied, so that the caller may change or reuse theirs.
  const bool sole = value.impl_ptr().use_count() == 1 && value.storage().use_count() == 1 && value.is_contiguous() &&
                    value.storage_offset() == 0;
  stack_.push_back({leaf, 1, sole ? std::move(value) : value.contiguous().clone()});
  const int64_t root = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(num_leaves_)));
  for (;;) {
    Node& top = stack_.back();
    if (top.size == root) break;
    const bool left_child = top.lo % (2 * top.size) == 0;
    if (left_child) {
      if (top.lo + top.size < num_leaves_) break;  // its sibling has leaves, still to come
      top.size *= 2;                               // the sibling covers nothing: this is the parent
    } else {
      if (stack_.size() < 2) break;
      Node& below = stack_[stack_.size() - 2];
      if (below.size != top.size || below.lo + below.size != top.lo) break;  // the sibling is another rank's
      add_into(below.value, top.value);
      below.size *= 2;
      stack_.pop_back();
    }
  }
}

Tensor LeafReducer::finish() {
  if (next_ != mine_.end)
    ditto::detail::fail(kOp, "rank ", rank(), " added ", next_ - mine_.begin, " of its ", mine_.size(),
                        " leaves before finish()");
  detail::Transport* t = detail::group();
  const std::size_t esize = element_size(dtype_);
  const int64_t root = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(num_leaves_)));
  if (!t) {
    // A world of one: this rank holds every leaf, folded to the root.
    if (stack_.size() != 1 || stack_[0].lo != 0 || stack_[0].size != root)
      ditto::detail::fail(kOp, "internal: the leaves did not fold to the root");
    Tensor out = std::move(stack_[0].value);
    stack_.clear();
    next_ = mine_.begin;
    return out;
  }
  const int me = t->rank(), world = t->world();
  auto chunk_begin = [&](int c) { return numel_ * c / world; };
  std::vector<int> peers;
  for (int p = 0; p < world; ++p)
    if (p != me) peers.push_back(p);

  // 1. Each node's chunk c to rank c.
  std::vector<std::pair<int, detail::Bytes>> sends;
  for (int c : peers) {
    const std::size_t off = static_cast<std::size_t>(chunk_begin(c)) * esize;
    const std::size_t len = static_cast<std::size_t>(chunk_begin(c + 1) - chunk_begin(c)) * esize;
    detail::Writer w;
    w.reserve(4 + 16 * stack_.size() + len * stack_.size());
    w.put(static_cast<uint32_t>(stack_.size()));
    for (const Node& n : stack_) w.put(n.lo), w.put(n.size);
    for (const Node& n : stack_) w.put_bytes(static_cast<const uint8_t*>(n.value.raw_data()) + off, len);
    sends.emplace_back(c, std::move(w.out));
  }
  auto got = detail::exchange(kOp, detail::Kind::reduce_scatter, std::move(sends), peers);

  // 2. This rank's chunk, completed from everyone's nodes.
  const std::size_t my_off = static_cast<std::size_t>(chunk_begin(me)) * esize;
  const std::size_t my_len = static_cast<std::size_t>(chunk_begin(me + 1) - chunk_begin(me)) * esize;
  NodeMap have;
  auto insert = [&](int64_t lo, int64_t size, const uint8_t* data, int from) {
    if (size < 1 || (size & (size - 1)) != 0 || size > root || lo < 0 || lo % size != 0 || lo >= num_leaves_ ||
        !have.emplace(std::make_pair(lo, size), data).second)
      ditto::detail::fail(kOp, "rank ", from, " sent tree node (", lo, ", ", size, "), which is not a node of ",
                          num_leaves_, " leaves or overlaps another");
  };
  for (const Node& n : stack_) insert(n.lo, n.size, static_cast<const uint8_t*>(n.value.raw_data()) + my_off, me);
  for (std::size_t i = 0; i < got.size(); ++i) {
    detail::Reader r{got[i], detail::kHeaderBytes, kOp, peers[i]};
    const auto count = r.get<uint32_t>();
    if (count > 64)
      ditto::detail::fail(kOp, "rank ", peers[i], " sent ", count, " tree nodes; a rank holds at most 41");
    std::vector<std::pair<int64_t, int64_t>> nodes(count);
    for (auto& [lo, size] : nodes) lo = r.get<int64_t>(), size = r.get<int64_t>();
    for (auto& [lo, size] : nodes) insert(lo, size, r.get_bytes(my_len), peers[i]);
  }
  detail::Bytes mine = *complete(have, 0, root, num_leaves_, my_len, dtype_);

  // 3. Every finished chunk to every rank.
  sends.clear();
  detail::Writer w;
  w.reserve(mine.size());
  w.put_bytes(mine.data(), mine.size());
  for (int p : peers) sends.emplace_back(p, w.out);
  got = detail::exchange(kOp, detail::Kind::reduce_gather, std::move(sends), peers);
  Tensor out = empty({numel_}, dtype_);
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  std::copy(mine.begin(), mine.end(), dst + my_off);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const int c = peers[i];
    const std::size_t len = static_cast<std::size_t>(chunk_begin(c + 1) - chunk_begin(c)) * esize;
    if (got[i].size() != detail::kHeaderBytes + len)
      ditto::detail::fail(kOp, "rank ", c, " sent ", got[i].size() - detail::kHeaderBytes,
                          " bytes of its chunk, expected ", len);
    std::copy(got[i].begin() + detail::kHeaderBytes, got[i].end(),
              dst + static_cast<std::size_t>(chunk_begin(c)) * esize);
  }
  stack_.clear();
  next_ = mine_.begin;
  return out;
}

}  // namespace ditto::distributed
