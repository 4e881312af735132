#pragma once
// nn::DistributedDataParallel: data-parallel training whose bits do not depend on the number of
// processes (see docs/distributed.md and Note [Leaf reduction order]).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ditto/distributed.h"
#include "ditto/nn/module.h"

namespace ditto::nn {

// The global batch of a step is cut into a fixed number of leaves (micro-batches), chosen by the
// training run and not by the number of processes. forward_backward(leaf_loss) runs, on each rank,
// leaf_loss(l) (the forward of leaf l, returning its loss) and its backward for the leaves of
// distributed::local_leaves(num_leaves); then the leaves' gradients are summed in the canonical
// leaf tree and divided by num_leaves, so every rank's .grad() holds the same bits whatever the
// world size, and a world of one runs the same leaves and the same tree.
//
// The rules that make a leaf's result independent of the rank computing it:
//  - random draws: each leaf runs with the default generator seeded from the step's generator
//    state and the leaf index; after the step the default generator is that state advanced by one
//    64-bit draw, on every rank (dropout is the same for every world size);
//  - buffers (BatchNorm's running statistics): each leaf's forward starts from the buffers as
//    they were when the step began; after the step every rank holds the buffers as leaf 0's
//    forward left them (broadcast by the rank that computed leaf 0, PyTorch DDP's rank 0 rule).
// A gradient a leaf does not reach counts as zero; after the step every parameter that requires
// grad has one. Gradients already present are added to (gradient accumulation, as in PyTorch).
// When a leaf raises, the step is undone on this rank (gradients, buffers and the default
// generator as before the call), the other ranks are told (they raise an error naming this rank)
// and the error propagates.
class DistributedDataParallel {
 public:
  // Broadcasts the parameters and buffers from rank 0 after checking that every rank's module has
  // the same names, dtypes and shapes (collective). The module must outlive this object.
  DistributedDataParallel(Module& module, int64_t num_leaves);
  // The same over tensors (the Python front end): names are used in errors only.
  DistributedDataParallel(std::vector<Tensor> parameters, std::vector<Tensor> buffers, int64_t num_leaves,
                          std::vector<std::string> parameter_names = {}, std::vector<std::string> buffer_names = {});

  Module& module() const;
  int64_t num_leaves() const { return num_leaves_; }
  distributed::LeafRange local_leaves() const { return distributed::leaf_range(num_leaves_, rank_, world_); }

  // Collective. Returns the global loss: the leaves' losses summed in the same tree and divided
  // by num_leaves (a 0-dim tensor of the parameters' dtype), the same on every rank.
  Tensor forward_backward(const std::function<Tensor(int64_t leaf)>& leaf_loss);

  // The last forward_backward's bytes sent by this rank, and what a ring all-reduce of the same
  // gradients would send (2 (W - 1) / W of them).
  struct StepTraffic {
    uint64_t bytes_sent = 0, ring_all_reduce_bytes = 0;
  };
  StepTraffic last_traffic() const { return traffic_; }

 private:
  void setup(std::vector<std::string> parameter_names, std::vector<std::string> buffer_names);

  Module* module_ = nullptr;
  std::vector<Tensor> all_params_, params_, buffers_;  // params_: those that require grad
  int64_t num_leaves_, numel_ = 0;
  ScalarType dtype_ = kFloat32;
  int rank_ = 0, world_ = 1;
  StepTraffic traffic_;
};

}  // namespace ditto::nn
