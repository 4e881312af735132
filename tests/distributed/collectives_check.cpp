// ditto::distributed's collectives under mpirun (CTest runs it at 1, 2, 3, 4, 5 and 8 processes):
// every rank can make every rank's and every leaf's data from seeds, so each checks, bit for bit,
// that all_reduce and LeafReducer return the canonical tree of tests/leaf_tree_reference.h, that
// broadcast and all_gather move the right bits, that the bytes sent stay within the Note's bound,
// and that a model that differs on one rank is refused at wrap time on every rank, naming it.
// Prints "ok: N checks" and exits 0, or lists what failed and exits 1.
#include <cstdio>
#include <cstring>
#include <string>

#include "ditto/ditto.h"
#include "leaf_tree_reference.h"

namespace dist = ditto::distributed;
using ditto::Tensor;

namespace {

int checks = 0, failures = 0;

void expect(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "rank %d: FAILED: %s\n", dist::rank(), what.c_str());
  }
}

template <class T>
bool same_bits(const Tensor& t, const std::vector<T>& want) {
  const Tensor c = t.contiguous();
  return c.numel() == static_cast<int64_t>(want.size()) &&
         (want.empty() || std::memcmp(c.data_ptr<T>(), want.data(), want.size() * sizeof(T)) == 0);
}

template <class T>
void leaf_reducer(ditto::ScalarType dt, int64_t leaves, int64_t numel) {
  std::vector<std::vector<T>> all;
  for (int64_t l = 0; l < leaves; ++l) all.push_back(ditto::testing::leaf_values<T>(l, numel, 11));
  dist::LeafReducer r(leaves, numel, dt);
  const dist::LeafRange mine = dist::local_leaves(leaves);
  for (int64_t l = mine.begin; l < mine.end; ++l) r.add(l, ditto::tensor(all[static_cast<std::size_t>(l)], dt));
  const auto before = dist::traffic().bytes_sent;
  const Tensor got = r.finish();
  const auto sent = dist::traffic().bytes_sent - before;
  const std::string what =
      std::to_string(leaves) + " leaves of " + std::to_string(numel) + " " + (sizeof(T) == 4 ? "float32" : "float64");
  expect(same_bits(got, ditto::testing::tree_sum(all)), "LeafReducer, " + what);
  // Note [Leaf reduction order]: (k + 1) (W - 1) n / W elements, k <= log2(P) + 1 nodes, and
  // small headers; the same as a ring all-reduce when the shares are aligned nodes.
  const int w = dist::world_size();
  const double ring = 2.0 * (w - 1) / w * static_cast<double>(numel) * sizeof(T);
  const int64_t p = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(leaves)));
  const bool aligned = (leaves % w == 0) && ((leaves / w) & (leaves / w - 1)) == 0 && (w & (w - 1)) == 0 && p == leaves;
  const double headers = 64.0 * w * 4;
  if (aligned) expect(static_cast<double>(sent) <= ring + headers, "aligned shares send a ring's bytes, " + what);
  expect(static_cast<double>(sent) <= ring * (std::log2(static_cast<double>(p)) + 2) / 2 + headers,
         "bytes bound, " + what);
}

}  // namespace

int main() {
  dist::init();
  const int rank = dist::rank(), world = dist::world_size();

  // all_reduce: one leaf per rank.
  for (int64_t numel : {1, 17, 1000}) {
    std::vector<std::vector<float>> all;
    for (int r = 0; r < world; ++r) all.push_back(ditto::testing::leaf_values<float>(r, numel, 5));
    const Tensor mine = ditto::tensor(all[static_cast<std::size_t>(rank)]);
    expect(same_bits(dist::all_reduce(mine), ditto::testing::tree_sum(all)), "all_reduce of " + std::to_string(numel));
  }
  for (int64_t leaves : {1, 2, 3, 5, 7, 8, 13, 16})
    for (int64_t numel : {0, 1, 5, 1000}) leaf_reducer<float>(ditto::kFloat32, leaves, numel);
  leaf_reducer<double>(ditto::kFloat64, 6, 333);

  // broadcast from the last rank; all_gather of different lengths.
  const int root = world - 1;
  const auto root_data = ditto::testing::leaf_values<float>(root, 12, 3);
  Tensor b = rank == root ? ditto::tensor(root_data).reshape({3, 4}) : ditto::zeros({3, 4});
  dist::broadcast(b, root);
  expect(same_bits(b, root_data), "broadcast from rank " + std::to_string(root));
  const auto gathered = dist::all_gather(ditto::tensor(ditto::testing::leaf_values<double>(rank, rank + 1, 4)));
  bool ok = static_cast<int>(gathered.size()) == world;
  for (int r = 0; ok && r < world; ++r)
    ok = same_bits(gathered[static_cast<std::size_t>(r)], ditto::testing::leaf_values<double>(r, r + 1, 4));
  expect(ok, "all_gather");
  dist::barrier();

  // A broadcast into a tensor of another shape is refused on that rank, naming the root.
  if (world > 1) {
    Tensor wrong = rank == 1 ? ditto::zeros({2, 2}) : ditto::zeros({3});
    try {
      dist::broadcast(wrong, 0);
      expect(rank != 1, "broadcast into the wrong shape raises");
    } catch (const ditto::Error& e) {
      expect(rank == 1 && std::string(e.what()).find("rank 0 sent a float32 tensor of shape [3]") != std::string::npos,
             std::string("broadcast's error: ") + e.what());
    }
  }

  // A model that differs on the last rank: every rank refuses it, naming the rank and the parameter.
  if (world > 1) {
    ditto::nn::Sequential model(ditto::nn::Linear(4, rank == world - 1 ? 5 : 4));
    try {
      ditto::nn::DistributedDataParallel ddp(model, 4);
      expect(false, "a model that differs on one rank is refused");
    } catch (const ditto::Error& e) {
      const std::string m = e.what(), want = "rank " + std::to_string(world - 1) + "'s model differs from rank 0's";
      expect(m.find(want) != std::string::npos && m.find("'0.weight' float32 [5, 4]") != std::string::npos,
             "the refusal names the rank and the parameter: " + m);
    }
  }
  dist::barrier();
  if (failures) return 1;
  if (rank == 0) std::printf("ok: %d checks on each of %d ranks\n", checks, world);
  return 0;
}
