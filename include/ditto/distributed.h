#pragma once
// ditto::distributed: processes that train one model together, over MPI (launched with mpirun),
// with results that are the same bits on every rank and for every number of ranks.
//
// Without mpirun (or in a ditto built without MPI) the world is one process and every collective
// is a copy. Every call here is collective unless it says otherwise: each rank makes the same calls
// in the same order. A rank that fails inside a collective, stops reaching them or dies makes the
// others raise a ditto::Error that names it, within the timeout (DITTO_DISTRIBUTED_TIMEOUT seconds,
// default 300), instead of hanging. See docs/distributed.md.
#include <cstdint>
#include <string>
#include <vector>

#include "ditto/tensor.h"

namespace ditto::distributed {

// True when this ditto was built with MPI (it can run under mpirun with more than one process).
bool is_available();
// Joins the processes mpirun started (MPI_Init); a world of one when not under mpirun. Idempotent;
// collectives call it. Raises when started by mpirun with several processes and built without MPI.
void init();
bool is_initialized();
// Leaves the group (MPI_Finalize); also run at exit. Not collective after a failure.
void finalize();
int rank();        // not collective; 0 before init()
int world_size();  // not collective; 1 before init()

void barrier();
// t's bits from rank `root`, in place (every rank's t must have root's shape and dtype).
void broadcast(Tensor& t, int root = 0);
// Every rank's t, in rank order (same dtype everywhere; shapes may differ).
std::vector<Tensor> all_gather(const Tensor& t);
// The sum of every rank's t in one tree over the ranks (Note [Leaf reduction order], with one leaf
// per rank): the same bits on every rank, whichever rank finishes first. The bits depend on the
// number of ranks; for bits that do not, split the work into a fixed number of leaves and use
// LeafReducer.
Tensor all_reduce(const Tensor& t);

// Leaves [begin, end) of `num_leaves`, the contiguous share of rank `rank` of `world` ranks:
// floor(rank * n / world) to floor((rank + 1) * n / world).
struct LeafRange {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end - begin; }
};
LeafRange leaf_range(int64_t num_leaves, int rank, int world);
LeafRange local_leaves(int64_t num_leaves);  // this rank's share

// The sum over a fixed number of leaves, each a 1-D float32 or float64 tensor of `numel`
// elements, in one canonical tree over the leaf index (Note [Leaf reduction order]): the same bits
// for any number of ranks and any split of the leaves among them. Each rank add()s the leaves of
// local_leaves(num_leaves), in order (add copies the tensor unless it is handed over, moved from
// its only holder); finish() (collective) returns the sum on every rank.
class LeafReducer {
 public:
  LeafReducer(int64_t num_leaves, int64_t numel, ScalarType dtype);
  void add(int64_t leaf, Tensor value);
  Tensor finish();
  int64_t num_leaves() const { return num_leaves_; }

  struct Node {
    int64_t lo = 0, size = 0;  // the leaves [lo, lo + size) of the tree's aligned node
    Tensor value;
  };

 private:
  int64_t num_leaves_, numel_;
  ScalarType dtype_;
  LeafRange mine_;
  int64_t next_;
  std::vector<Node> stack_;  // maximal complete nodes so far, left to right
};

// What this rank has sent since init() (payload bytes and messages), for measuring.
struct Traffic {
  uint64_t bytes_sent = 0, messages = 0;
};
Traffic traffic();

// Tells the other ranks that this one failed (they raise an error naming it at their next
// collective); DistributedDataParallel calls it when a leaf raises. Not collective.
void notify_failure(const std::string& what);

}  // namespace ditto::distributed
