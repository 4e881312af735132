#pragma once
// ditto::data: which samples each process trains on.
#include <cstdint>
#include <vector>

namespace ditto::data {

// torch.utils.data.DistributedSampler, with its bits: with shuffle, the order is
// randperm(dataset_size) drawn from a generator seeded with seed + epoch; without drop_last it is
// padded by repeating its start to a multiple of num_replicas, with drop_last cut to one; rank r
// takes every num_replicas-th index from r. num_replicas and rank of -1 are the process group's.
class DistributedSampler {
 public:
  explicit DistributedSampler(int64_t dataset_size, int64_t num_replicas = -1, int64_t rank = -1, bool shuffle = true,
                              uint64_t seed = 0, bool drop_last = false);
  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  int64_t epoch() const { return epoch_; }
  std::vector<int64_t> indices() const;  // this rank's, for the current epoch
  int64_t num_samples() const { return num_samples_; }
  int64_t total_size() const { return num_samples_ * replicas_; }
  int64_t num_replicas() const { return replicas_; }
  int64_t rank() const { return rank_; }

 private:
  int64_t size_, replicas_, rank_;
  bool shuffle_, drop_last_;
  uint64_t seed_;
  int64_t epoch_ = 0, num_samples_ = 0;
};

// Batches made of leaves, for nn::DistributedDataParallel: the global batch `b` of an epoch is
// batch_size samples of the epoch's order (DistributedSampler's, for one replica, without the
// padding: the last incomplete batch is dropped), and leaf l of it is its l-th
// batch_size / num_leaves samples. Which process computes a leaf does not enter, so the samples of
// every step are the same for every world size.
class LeafSampler {
 public:
  LeafSampler(int64_t dataset_size, int64_t batch_size, int64_t num_leaves, bool shuffle = true, uint64_t seed = 0);
  void set_epoch(int64_t epoch);
  int64_t epoch() const { return epoch_; }
  int64_t batches_per_epoch() const { return size_ / batch_; }
  int64_t num_leaves() const { return leaves_; }
  std::vector<int64_t> batch(int64_t b) const;
  std::vector<int64_t> leaf(int64_t b, int64_t leaf) const;

 private:
  int64_t size_, batch_, leaves_;
  bool shuffle_;
  uint64_t seed_;
  int64_t epoch_ = 0;
  std::vector<int64_t> order_;
};

}  // namespace ditto::data
