// ditto::distributed in a world of one process (the multi-process checks run under mpirun:
// tests/distributed/collectives_check.cpp and tests/examples/ddp_example.cmake): the leaf tree
// against its definition, DistributedDataParallel's gradients, random-draw and buffer rules, the
// samplers against PyTorch's indices, and bad input.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "ditto/ditto.h"
#include "expect_error.h"
#include "golden.h"
#include "leaf_tree_reference.h"

namespace {

namespace dist = ditto::distributed;
namespace nn = ditto::nn;
using ditto::Tensor;
using ditto::testing::expect_error;

template <class T>
std::vector<T> values(const Tensor& t) {
  const Tensor c = t.contiguous();
  return std::vector<T>(c.data_ptr<T>(), c.data_ptr<T>() + c.numel());
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T>
void check_tree(ditto::ScalarType dt) {
  for (int64_t leaves = 1; leaves <= 20; ++leaves) {
    for (int64_t numel : {0, 1, 7, 100}) {
      std::vector<std::vector<T>> data;
      dist::LeafReducer r(leaves, numel, dt);
      for (int64_t l = 0; l < leaves; ++l) {
        data.push_back(ditto::testing::leaf_values<T>(l, numel, 7));
        r.add(l, ditto::tensor(data.back(), dt));
      }
      EXPECT_TRUE(same_bits(values<T>(r.finish()), ditto::testing::tree_sum(data))) << leaves << " leaves, " << numel;
    }
  }
}

TEST(Distributed, LeafReducerAddsInTheCanonicalTree) {
  check_tree<float>(ditto::kFloat32);
  check_tree<double>(ditto::kFloat64);
  // The tree is not the sequential sum: the test data can tell them apart.
  std::vector<std::vector<float>> data;
  for (int l = 0; l < 7; ++l) data.push_back(ditto::testing::leaf_values<float>(l, 100, 7));
  std::vector<float> seq(100, 0.0f);
  for (auto& d : data)
    for (int i = 0; i < 100; ++i) seq[static_cast<std::size_t>(i)] += d[static_cast<std::size_t>(i)];
  EXPECT_FALSE(same_bits(seq, ditto::testing::tree_sum(data)));
}

TEST(Distributed, LeafReducerIsReusableAndRejectsBadLeaves) {
  dist::LeafReducer r(3, 4, ditto::kFloat32);
  const Tensor one = ditto::ones({4});
  for (int round = 0; round < 2; ++round) {
    for (int l = 0; l < 3; ++l) r.add(l, one);
    EXPECT_EQ(values<float>(r.finish()), std::vector<float>(4, 3.0f));
  }
  expect_error([&] { r.add(1, one); }, "[distributed.LeafReducer]", "expected leaf 0, got 1");
  expect_error([&] { r.add(0, ditto::ones({5})); }, "[distributed.LeafReducer]", "of 4 elements");
  expect_error([&] { r.add(0, ditto::ones({4}, ditto::kFloat64)); }, "[distributed.LeafReducer]", "float32");
  expect_error([&] { r.add(0, ditto::ones({2, 2})); }, "[distributed.LeafReducer]", "1-D");
  r.add(0, one);
  expect_error([&] { r.finish(); }, "[distributed.LeafReducer]", "added 1 of its 3 leaves");
  expect_error([] { dist::LeafReducer(0, 4, ditto::kFloat32); }, "[distributed.LeafReducer]", "between 1 and");
  expect_error([] { dist::LeafReducer(2, -1, ditto::kFloat32); }, "[distributed.LeafReducer]", "numel");
  expect_error([] { dist::LeafReducer(2, 4, ditto::kInt64); }, "[distributed.LeafReducer]", "float32 or float64");
}

TEST(Distributed, LeafRangesCoverTheLeavesInOrder) {
  for (int64_t leaves : {1, 2, 3, 7, 8, 13, 64})
    for (int world = 1; world <= 9; ++world) {
      int64_t next = 0;
      for (int r = 0; r < world; ++r) {
        const dist::LeafRange lr = dist::leaf_range(leaves, r, world);
        EXPECT_EQ(lr.begin, next);
        EXPECT_LE(lr.size(), leaves / world + 1);
        EXPECT_GE(lr.size(), leaves / world);
        next = lr.end;
      }
      EXPECT_EQ(next, leaves);
    }
  expect_error([] { dist::leaf_range(4, 2, 2); }, "[distributed.leaf_range]", "rank 2 of 2");
  expect_error([] { dist::leaf_range(0, 0, 1); }, "[distributed.leaf_range]", "num_leaves >= 1");
}

TEST(Distributed, CollectivesInAWorldOfOne) {
  dist::init();
  EXPECT_EQ(dist::world_size(), 1);
  EXPECT_EQ(dist::rank(), 0);
  dist::barrier();
  const Tensor x = ditto::tensor(ditto::testing::leaf_values<float>(0, 10, 3)).reshape({2, 5});
  const Tensor s = dist::all_reduce(x);
  EXPECT_EQ(s.sizes(), x.sizes());
  EXPECT_TRUE(same_bits(values<float>(s), values<float>(x)));
  Tensor b = x.clone();
  dist::broadcast(b, 0);
  EXPECT_TRUE(same_bits(values<float>(b), values<float>(x)));
  expect_error([&] { dist::broadcast(b, 1); }, "[distributed.broadcast]", "root 1 is not a rank of a world of 1");
  const auto g = dist::all_gather(x);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_TRUE(same_bits(values<float>(g[0]), values<float>(x)));
  expect_error([] { dist::all_reduce(ditto::ones({2}, ditto::kInt64)); }, "[distributed.all_reduce]", "floating");
  EXPECT_EQ(dist::traffic().bytes_sent, 0u);
}

// The gradient of each leaf alone, flattened: what DistributedDataParallel sums.
std::vector<float> leaf_gradient(nn::Module& m, const std::function<Tensor(int64_t)>& loss, int64_t leaf,
                                 float* value) {
  m.zero_grad();
  Tensor l = loss(leaf);
  l.backward();
  *value = l.item<float>();
  std::vector<float> flat;
  for (const Tensor& p : m.parameters()) {
    const auto v = values<float>(p.grad());
    flat.insert(flat.end(), v.begin(), v.end());
  }
  m.zero_grad();
  return flat;
}

TEST(Distributed, DataParallelGradientIsTheTreeMeanOfTheLeaves) {
  ditto::manual_seed(3);
  nn::Sequential model(nn::Linear(6, 5));
  model.push_back(nn::Tanh());
  model.push_back(nn::Linear(5, 3));
  const Tensor x = ditto::randn({28, 6}), y = ditto::randint(0, 3, {28});
  constexpr int64_t kLeaves = 7;
  auto loss = [&](int64_t leaf) {
    return nn::functional::cross_entropy(model(x.narrow(0, 4 * leaf, 4)), y.narrow(0, 4 * leaf, 4));
  };
  std::vector<std::vector<float>> grads, losses;
  for (int64_t l = 0; l < kLeaves; ++l) {
    float v = 0;
    grads.push_back(leaf_gradient(model, loss, l, &v));
    losses.push_back({v});
  }
  std::vector<float> want = ditto::testing::tree_sum(grads);
  for (float& g : want) g /= static_cast<float>(kLeaves);

  nn::DistributedDataParallel ddp(model, kLeaves);
  const Tensor total = ddp.forward_backward(loss);
  EXPECT_EQ(total.dim(), 0);
  EXPECT_EQ(total.item<float>(), ditto::testing::tree_sum(losses)[0] / static_cast<float>(kLeaves));
  std::vector<float> got;
  for (const Tensor& p : model.parameters()) {
    const auto v = values<float>(p.grad());
    got.insert(got.end(), v.begin(), v.end());
  }
  EXPECT_TRUE(same_bits(got, want));

  // Gradients already there are added to.
  ddp.forward_backward(loss);
  std::size_t i = 0;
  bool all = true;
  for (const Tensor& p : model.parameters())
    for (float g : values<float>(p.grad())) all = all && g == want[i] + want[i], ++i;
  EXPECT_TRUE(all);
  EXPECT_EQ(ddp.last_traffic().bytes_sent, 0u);
}

TEST(Distributed, DataParallelLeavesDrawFromTheirOwnSeedAndAdvanceTheGeneratorOnce) {
  ditto::manual_seed(5);
  nn::Sequential model(nn::Linear(8, 8));
  model.push_back(nn::Dropout(0.5));
  const Tensor x = ditto::randn({8, 8});
  nn::DistributedDataParallel ddp(model, 4);
  std::vector<Tensor> outs;
  auto loss = [&](int64_t leaf) {
    const Tensor out = model(x.narrow(0, 2 * leaf, 2));
    outs.push_back(out.detach());
    return out.sum();
  };
  const std::vector<uint8_t> start = ditto::get_rng_state();
  ddp.forward_backward(loss);
  ditto::Generator g;
  g.set_state(start);
  g.random64();
  EXPECT_EQ(ditto::get_rng_state(), g.get_state());
  // The same step from the same state draws the same masks, and leaves draw different ones.
  const std::vector<Tensor> first = outs;
  outs.clear();
  ditto::set_rng_state(start);
  ddp.forward_backward(loss);
  ASSERT_EQ(outs.size(), first.size());
  for (std::size_t i = 0; i < outs.size(); ++i)
    EXPECT_EQ(ditto::fingerprint(outs[i]), ditto::fingerprint(first[i])) << i;
  EXPECT_NE(ditto::fingerprint(first[0].ne(0.0)), ditto::fingerprint(first[2].ne(0.0)));
}

TEST(Distributed, DataParallelKeepsLeafZerosBuffers) {
  ditto::manual_seed(6);
  nn::Sequential model(nn::BatchNorm1d(3));
  const Tensor x = ditto::randn({12, 3}) * 3.0 + 1.0;
  nn::Sequential copy(nn::BatchNorm1d(3));
  copy(x.narrow(0, 0, 4));  // leaf 0 alone, from the starting buffers
  nn::DistributedDataParallel ddp(model, 3);
  ddp.forward_backward([&](int64_t leaf) { return model(x.narrow(0, 4 * leaf, 4)).pow(2.0).sum(); });
  const auto b = model.named_buffers(), c = copy.named_buffers();
  ASSERT_EQ(b.size(), c.size());
  for (std::size_t i = 0; i < b.size(); ++i)
    EXPECT_EQ(ditto::fingerprint(b[i].second), ditto::fingerprint(c[i].second)) << b[i].first;
}

TEST(Distributed, DataParallelRejectsBadModelsAndLeaves) {
  nn::Sequential model(nn::Linear(2, 2));
  expect_error([&] { nn::DistributedDataParallel(model, 0); }, "[DistributedDataParallel]", "num_leaves must be >= 1");
  Tensor a = ditto::ones({2}).requires_grad_(), b = ditto::ones({2}, ditto::kFloat64).requires_grad_();
  expect_error(
      [&] {
        nn::DistributedDataParallel({a, b}, {}, 2, {"a", "b"});
      },
      "[DistributedDataParallel]", "'b' is float64");
  nn::DistributedDataParallel ddp(model, 2);
  expect_error([&] { ddp.forward_backward([&](int64_t) {
                       return model(ditto::ones({1, 2}));
                     }); },
               "[DistributedDataParallel]", "one element");
  // A leaf that raises: the error propagates and the step is undone (gradients, generator).
  model.parameters()[0].mutable_grad() = ditto::full({2, 2}, 3.0);
  const std::vector<uint8_t> rng = ditto::get_rng_state();
  try {
    ddp.forward_backward([&](int64_t leaf) -> Tensor {
      if (leaf == 1) throw ditto::Error("[test] leaf " + std::to_string(leaf));
      return nn::functional::dropout(model(ditto::ones({1, 2})), 0.5, true).sum();
    });
    ADD_FAILURE() << "the leaf's error did not propagate";
  } catch (const ditto::Error& e) {
    EXPECT_STREQ(e.what(), "[test] leaf 1");
  }
  EXPECT_EQ(ditto::fingerprint(model.parameters()[0].grad()), ditto::fingerprint(ditto::full({2, 2}, 3.0)));
  EXPECT_FALSE(model.parameters()[1].grad().defined());
  EXPECT_EQ(ditto::get_rng_state(), rng);
  const nn::DistributedDataParallel from_tensors({a}, {}, 2);
  expect_error([&] { from_tensors.module(); }, "[DistributedDataParallel]", "from tensors");
}

TEST(Distributed, DistributedSamplerGivesPyTorchsIndices) {
  const auto& cases = ditto::testing::golden_section("pytorch-sampler.json", "distributed_sampler");
  for (const auto& c : cases) {
    ditto::data::DistributedSampler s(c.at("size").get<int64_t>(), c.at("num_replicas").get<int64_t>(),
                                      c.at("rank").get<int64_t>(), c.at("shuffle").get<bool>(),
                                      c.at("seed").get<uint64_t>(), c.at("drop_last").get<bool>());
    s.set_epoch(c.at("epoch").get<int64_t>());
    const auto want = c.at("indices").get<std::vector<int64_t>>();
    EXPECT_EQ(s.indices(), want) << c.dump();
    EXPECT_EQ(s.num_samples(), static_cast<int64_t>(want.size())) << c.dump();
  }
  expect_error([] { ditto::data::DistributedSampler(10, 2, 2); }, "[DistributedSampler]", "Invalid rank 2");
  expect_error([] { ditto::data::DistributedSampler(10, 0, 0); }, "[DistributedSampler]", "num_replicas");
  expect_error([] { ditto::data::DistributedSampler(-1, 1, 0); }, "[DistributedSampler]", "dataset size");
}

TEST(Distributed, LeafSamplerCutsTheEpochIntoBatchesAndLeaves) {
  ditto::data::LeafSampler s(100, 24, 4, true, 9);
  EXPECT_EQ(s.batches_per_epoch(), 4);
  ditto::Generator g(9);
  const auto perm = values<int64_t>(ditto::randperm(100, ditto::kInt64, &g));
  for (int64_t b = 0; b < 4; ++b) {
    std::vector<int64_t> joined;
    for (int64_t l = 0; l < 4; ++l) {
      const auto leaf = s.leaf(b, l);
      EXPECT_EQ(leaf.size(), 6u);
      joined.insert(joined.end(), leaf.begin(), leaf.end());
    }
    EXPECT_EQ(joined, s.batch(b));
    EXPECT_EQ(joined, std::vector<int64_t>(perm.begin() + 24 * b, perm.begin() + 24 * (b + 1)));
  }
  s.set_epoch(1);
  EXPECT_NE(s.batch(0), std::vector<int64_t>(perm.begin(), perm.begin() + 24));
  expect_error([] { ditto::data::LeafSampler(100, 10, 4); }, "[LeafSampler]", "multiple of num_leaves");
  EXPECT_THROW(s.batch(4), ditto::IndexError);
  EXPECT_THROW(s.leaf(0, 4), ditto::IndexError);
}

}  // namespace
