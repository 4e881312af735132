// DistributedSampler (PyTorch's semantics and bits) and LeafSampler; see include/ditto/data.h.
#include <algorithm>

#include "ditto/data.h"
#include "ditto/distributed.h"
#include "ditto/error.h"
#include "ditto/random.h"
#include "ditto/tensor.h"

namespace ditto::data {

namespace {
std::vector<int64_t> epoch_order(int64_t n, bool shuffle, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  if (!shuffle) {
    for (int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
    return order;
  }
  Generator g(seed + static_cast<uint64_t>(epoch));  // g.manual_seed(self.seed + self.epoch)
  const Tensor perm = randperm(n, kInt64, &g);
  std::copy_n(perm.data_ptr<int64_t>(), n, order.begin());
  return order;
}
}  // namespace

DistributedSampler::DistributedSampler(int64_t dataset_size, int64_t num_replicas, int64_t rank, bool shuffle,
                                       uint64_t seed, bool drop_last)
    : size_(dataset_size), replicas_(num_replicas), rank_(rank), shuffle_(shuffle), drop_last_(drop_last), seed_(seed) {
  constexpr const char* op = "DistributedSampler";
  if (replicas_ == -1 || rank_ == -1) distributed::init();
  if (replicas_ == -1) replicas_ = distributed::world_size();
  if (rank_ == -1) rank_ = distributed::rank();
  if (size_ < 0) ditto::detail::fail(op, "dataset size must be >= 0, got ", size_);
  if (replicas_ < 1) ditto::detail::fail(op, "num_replicas must be >= 1, got ", replicas_);
  if (rank_ < 0 || rank_ >= replicas_)
    ditto::detail::fail(op, "Invalid rank ", rank_, ", rank should be in the interval [0, ", replicas_ - 1, "]");
  // ceil(len / replicas), or with drop_last and a remainder ceil((len - replicas) / replicas)
  if (drop_last_ && size_ % replicas_ != 0)
    num_samples_ = size_ < replicas_ ? 0 : (size_ - replicas_ + replicas_ - 1) / replicas_;
  else
    num_samples_ = (size_ + replicas_ - 1) / replicas_;
}

std::vector<int64_t> DistributedSampler::indices() const {
  std::vector<int64_t> all = epoch_order(size_, shuffle_, seed_, epoch_);
  const auto total = static_cast<std::size_t>(total_size());
  if (!drop_last_) {
    if (all.empty() && total > 0) ditto::detail::fail("DistributedSampler", "cannot pad an empty dataset");
    for (std::size_t i = 0; all.size() < total; ++i) all.push_back(all[i]);  // repeats the start, as often as needed
  } else {
    all.resize(total);
  }
  std::vector<int64_t> mine;
  mine.reserve(static_cast<std::size_t>(num_samples_));
  for (std::size_t i = static_cast<std::size_t>(rank_); i < total; i += static_cast<std::size_t>(replicas_))
    mine.push_back(all[i]);
  return mine;
}

LeafSampler::LeafSampler(int64_t dataset_size, int64_t batch_size, int64_t num_leaves, bool shuffle, uint64_t seed)
    : size_(dataset_size), batch_(batch_size), leaves_(num_leaves), shuffle_(shuffle), seed_(seed) {
  constexpr const char* op = "LeafSampler";
  if (size_ < 0) ditto::detail::fail(op, "dataset size must be >= 0, got ", size_);
  if (leaves_ < 1 || batch_ < 1 || batch_ % leaves_ != 0)
    ditto::detail::fail(op, "batch_size must be a positive multiple of num_leaves (each leaf the same size), got ",
                        batch_, " and ", leaves_);
  set_epoch(0);
}

void LeafSampler::set_epoch(int64_t epoch) {
  epoch_ = epoch;
  order_ = epoch_order(size_, shuffle_, seed_, epoch);
}

std::vector<int64_t> LeafSampler::batch(int64_t b) const {
  if (b < 0 || b >= batches_per_epoch())
    ditto::detail::fail_index("LeafSampler", "batch ", b, " out of range: an epoch has ", batches_per_epoch());
  const auto begin = order_.begin() + b * batch_;
  return {begin, begin + batch_};
}

std::vector<int64_t> LeafSampler::leaf(int64_t b, int64_t l) const {
  if (l < 0 || l >= leaves_)
    ditto::detail::fail_index("LeafSampler", "leaf ", l, " out of range: a batch has ", leaves_);
  const std::vector<int64_t> all = batch(b);
  const int64_t per = batch_ / leaves_;
  return {all.begin() + l * per, all.begin() + (l + 1) * per};
}

}  // namespace ditto::data
