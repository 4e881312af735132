// Data-parallel training whose bits do not depend on the number of processes. Run it alone or
// under mpirun with any number of processes: it prints the same losses and fingerprints.
//
//   ddp_example --model mlp --optim adam                 # one process
//   mpirun -np 3 ddp_example --model cnn --optim sgd     # three, the same output
//   mpirun -np 2 ddp_example --steps 8 --stop-at 4 --save run.ckpt
//   mpirun -np 3 ddp_example --steps 8 --resume run.ckpt # = 8 steps straight, at any world size
//
// Each step's global batch (64 samples of a data set generated from a seed) is cut into 8 leaves
// (--leaves) by data::LeafSampler; nn::DistributedDataParallel computes each rank's leaves and
// sums their gradients in the canonical leaf tree. The MLP has dropout (random draws), the CNN
// BatchNorm (buffers). Rank 0 prints; every rank checks that its parameters are rank 0's bits.
#include <ditto/ditto.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

namespace nn = ditto::nn;
namespace dist = ditto::distributed;
using ditto::Tensor;

namespace {

struct Options {
  std::string model = "mlp", optim = "adam", save, resume, log;
  int64_t steps = 5, leaves = 8, batch = 64, stop_at = -1;
  bool traffic = false;
  // Test hooks: at step fail_at, rank fail_rank raises, dies (SIGKILL) or hangs in its first leaf.
  int64_t fail_at = -1, fail_rank = 1;
  std::string fail_how = "raise";
};

std::string hex(const Tensor& t) { return ditto::fingerprint_hex(ditto::fingerprint(t)); }

int run(const Options& o) {
  dist::init();
  const int rank = dist::rank();
  ditto::manual_seed(0);
  ditto::use_deterministic_algorithms(true);

  // The data set: 512 samples labelled by a random linear teacher.
  constexpr int64_t kSamples = 512, kClasses = 5;
  ditto::Generator data_gen(2024);
  const bool cnn = o.model == "cnn";
  const Tensor x = cnn ? ditto::randn({kSamples, 1, 12, 12}, ditto::kFloat32, &data_gen)
                       : ditto::randn({kSamples, 20}, ditto::kFloat32, &data_gen);
  const Tensor teacher = ditto::randn({x.numel() / kSamples, kClasses}, ditto::kFloat32, &data_gen);
  const Tensor y = ditto::mm(x.reshape({kSamples, -1}), teacher).argmax(1);

  // One statement per layer: the layers draw their initial weights in this order (a constructor's
  // arguments would be evaluated in an order C++ leaves open), as examples/ddp/ddp.py does.
  nn::Sequential model;
  if (cnn) {
    model.push_back(nn::Conv2d(1, 6, 3, 1, 1));
    model.push_back(nn::BatchNorm2d(6));
    model.push_back(nn::ReLU());
    model.push_back(nn::MaxPool2d(2));
    model.push_back(nn::Flatten());
    model.push_back(nn::Linear(6 * 6 * 6, kClasses));
  } else {
    model.push_back(nn::Linear(20, 64));
    model.push_back(nn::ReLU());
    model.push_back(nn::Dropout(0.1));
    model.push_back(nn::Linear(64, kClasses));
  }
  std::unique_ptr<ditto::optim::Optimizer> optimizer;
  if (o.optim == "sgd")
    optimizer = std::make_unique<ditto::optim::SGD>(model.parameters(), 0.05, 0.9);
  else
    optimizer = std::make_unique<ditto::optim::Adam>(model.parameters(), 3e-3);

  nn::DistributedDataParallel ddp(model, o.leaves);
  ditto::data::LeafSampler sampler(kSamples, o.batch, o.leaves, /*shuffle=*/true, /*seed=*/0);
  nn::CrossEntropyLoss loss_fn;

  int64_t step = 0;
  if (!o.resume.empty()) {
    step = ditto::load_checkpoint(o.resume, model, *optimizer).step;
    if (rank == 0) std::printf("resumed at step %lld\n", static_cast<long long>(step));
  }
  for (; step < o.steps; ++step) {
    if (step == o.stop_at) {
      if (rank == 0) {
        ditto::save_checkpoint(o.save, model, *optimizer, {}, {}, step, {{"example", "ddp_example"}});
        std::printf("saved at step %lld\n", static_cast<long long>(step));
      }
      dist::barrier();  // the file is whole before any rank goes on
      return 0;
    }
    const int64_t per_epoch = sampler.batches_per_epoch(), batch = step % per_epoch;
    if (sampler.epoch() != step / per_epoch) sampler.set_epoch(step / per_epoch);
    optimizer->zero_grad();
    const Tensor loss = ddp.forward_backward([&](int64_t leaf) {
      if (step == o.fail_at && rank == o.fail_rank) {
        if (o.fail_how == "die") std::raise(SIGKILL);
        if (o.fail_how == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
        throw ditto::Error("[ddp_example] planted failure in leaf " + std::to_string(leaf));
      }
      const Tensor idx = ditto::tensor(sampler.leaf(batch, leaf));
      return loss_fn(model(ditto::index_select(x, 0, idx)), ditto::index_select(y, 0, idx));
    });
    optimizer->step();
    if (rank == 0) {
      char line[96];
      std::snprintf(line, sizeof line, "step %lld loss %a\n", static_cast<long long>(step), loss.item<double>());
      std::fputs(line, stdout);
      std::fflush(stdout);
      // mpirun forwards stdout and may drop a rank's last lines when it ends a failed job; the log
      // file is written by rank 0 itself, so each step's line is there whatever happens later
      if (!o.log.empty()) {
        if (std::FILE* f = std::fopen(o.log.c_str(), "a")) {
          std::fputs(line, f);
          std::fclose(f);
        }
      }
    }
    if (o.traffic && rank == 0) {
      const auto t = ddp.last_traffic();
      std::printf("  rank 0 sent %llu bytes (a ring all-reduce: %llu)\n", static_cast<unsigned long long>(t.bytes_sent),
                  static_cast<unsigned long long>(t.ring_all_reduce_bytes));
    }
  }
  std::vector<Tensor> buffers;
  for (auto& [name, b] : model.named_buffers()) buffers.push_back(b);
  const uint64_t fp = ditto::fingerprint(model.parameters());
  // Every rank holds rank 0's bits.
  const auto all = dist::all_gather(ditto::tensor(std::vector<int64_t>{static_cast<int64_t>(fp)}));
  for (std::size_t r = 0; r < all.size(); ++r)
    if (all[r].item<int64_t>() != static_cast<int64_t>(fp)) {
      std::fprintf(stderr, "rank %zu's parameters differ from rank %d's\n", r, rank);
      return 1;
    }
  if (rank == 0) {
    std::printf("parameters fingerprint: %s\n", ditto::fingerprint_hex(fp).c_str());
    std::printf("buffers fingerprint: %s\n",
                buffers.empty() ? "-" : ditto::fingerprint_hex(ditto::fingerprint(buffers)).c_str());
    const std::vector<uint8_t> rng = ditto::get_rng_state();
    std::printf("rng fingerprint: %s\n", hex(ditto::tensor(std::vector<int64_t>(rng.begin(), rng.end()))).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Data-parallel training with the same bits for any number of processes"};
  app.add_option("--model", o.model, "mlp or cnn")->check(CLI::IsMember({"mlp", "cnn"}));
  app.add_option("--optim", o.optim, "sgd or adam")->check(CLI::IsMember({"sgd", "adam"}));
  app.add_option("--steps", o.steps, "training steps")->check(CLI::PositiveNumber);
  app.add_option("--leaves", o.leaves, "leaves per global batch (fixed by the run, not the world size)")
      ->check(CLI::PositiveNumber);
  app.add_option("--batch", o.batch, "global batch size (a multiple of --leaves)")->check(CLI::PositiveNumber);
  app.add_option("--stop-at", o.stop_at, "save a checkpoint (--save) before this step and stop");
  app.add_option("--save", o.save, "checkpoint path for --stop-at");
  app.add_option("--resume", o.resume, "go on from a checkpoint");
  app.add_flag("--traffic", o.traffic, "print the bytes rank 0 sends per step");
  app.add_option("--log", o.log, "append each step's line to this file too (rank 0)");
  app.add_option("--fail-at", o.fail_at, "test hook: fail at this step");
  app.add_option("--fail-rank", o.fail_rank, "test hook: the rank that fails");
  app.add_option("--fail-how", o.fail_how, "test hook: raise, die or hang")
      ->check(CLI::IsMember({"raise", "die", "hang"}));
  CLI11_PARSE(app, argc, argv);
  if (o.stop_at >= 0 && o.save.empty()) {
    std::fprintf(stderr, "--stop-at needs --save PATH\n");
    return 2;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", dist::rank(), e.what());
    return 1;
  }
}
