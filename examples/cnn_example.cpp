// Real training, reproducible to the bit: a small CNN (Conv2d, ReLU, MaxPool2d, Linear,
// CrossEntropyLoss, Adam) learns to tell ten kinds of 28x28 stroke images apart. The data set is
// generated from a seed (no download). Every run prints the same losses, accuracies and
// parameter fingerprint, whatever DITTO_NUM_THREADS says.
//
// `--save-at STEP PATH` stops after STEP batches and saves a checkpoint; `--resume PATH` goes on
// from it, in a new process, and prints what the run straight through prints from there on (each
// epoch's batch order comes from a generator seeded by the epoch, as DistributedSampler does, so
// a resume mid-epoch sees the same order).
#include <ditto/ditto.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "resume_flags.h"

namespace nn = ditto::nn;
using ditto::Tensor;

// Class c < 5: a horizontal bar at row 4 + 4c; c >= 5: a vertical bar at column 4 + 4(c - 5);
// each image shifted by -1..1 pixels and covered with Gaussian noise.
static std::pair<Tensor, Tensor> make_data(int64_t n, ditto::Generator& gen) {
  Tensor x = ditto::randn({n, 1, 28, 28}, ditto::kFloat32, &gen) * 1.0;
  Tensor y = ditto::randint(0, 10, {n}, ditto::kInt64, &gen);
  Tensor shift = ditto::randint(-1, 2, {n}, ditto::kInt64, &gen);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = y[i].item<int64_t>(), pos = 4 + 4 * (c % 5) + shift[i].item<int64_t>();
    Tensor img = x[i][0];
    Tensor bar = c < 5 ? img.slice(0, pos, pos + 2) : img.slice(1, pos, pos + 2);
    bar.add_(1.0);
  }
  return {x, y};
}

static double accuracy(nn::Sequential& model, const Tensor& x, const Tensor& y) {
  ditto::NoGradGuard no_grad;
  model.eval();
  Tensor pred = model(x).argmax(1);
  model.train();
  return (pred == y).sum().item<double>() / static_cast<double>(y.numel());
}

int main(int argc, char** argv) {
  ResumeFlags flags;
  if (!parse_resume_flags(argc, argv, flags)) return 2;
  ditto::manual_seed(0);
  ditto::use_deterministic_algorithms(true);
  ditto::Generator data_gen(2024);
  auto [train_x, train_y] = make_data(1024, data_gen);
  auto [test_x, test_y] = make_data(256, data_gen);

  nn::Sequential model(nn::Conv2d(1, 8, 3, 1, 1), nn::ReLU(), nn::MaxPool2d(2), nn::Conv2d(8, 16, 3, 1, 1), nn::ReLU(),
                       nn::MaxPool2d(2), nn::Flatten(), nn::Linear(16 * 7 * 7, 10));
  nn::CrossEntropyLoss loss_fn;
  ditto::optim::Adam optimizer(model.parameters(), 1e-3);

  const int64_t batch = 64, n = train_x.size(0), per_epoch = (n + batch - 1) / batch;
  int64_t step = 0;
  double total = 0;  // the epoch's loss so far (saved with a checkpoint, exactly, as %a)
  if (flags.resume) {
    const ditto::Checkpoint c = ditto::load_checkpoint(flags.path, model, optimizer);
    step = c.step;
    total = std::strtod(c.metadata.at("epoch_loss_sum").c_str(), nullptr);
  }
  for (int64_t epoch = step / per_epoch + 1; epoch <= 3; ++epoch) {
    ditto::Generator order_gen(1000 + static_cast<uint64_t>(epoch));
    const Tensor order = ditto::randperm(n, ditto::kInt64, &order_gen);
    for (int64_t b = (step % per_epoch) * batch; b < n; b += batch, ++step) {
      if (step == flags.save_at) {
        char sum[64];
        std::snprintf(sum, sizeof sum, "%a", total);
        ditto::save_checkpoint(flags.path, model, optimizer, {}, {}, step, {{"epoch_loss_sum", sum}});
        std::printf("saved at step %lld\n", static_cast<long long>(step));
        return 0;
      }
      Tensor idx = order.slice(0, b, b + batch);
      Tensor loss = loss_fn(model(train_x.index_select(0, idx)), train_y.index_select(0, idx));
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      total += loss.item<double>() * static_cast<double>(idx.numel());
    }
    std::printf("epoch %lld  loss %.6f  train accuracy %.4f  test accuracy %.4f\n", static_cast<long long>(epoch),
                total / n, accuracy(model, train_x, train_y), accuracy(model, test_x, test_y));
    total = 0;
  }
  std::cout << "parameters fingerprint: " << ditto::fingerprint_hex(ditto::fingerprint(model.parameters())) << "\n";
  return 0;
}
