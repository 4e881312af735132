// Stop and resume a training run without changing a bit: an MLP with dropout, AdamW and a cosine
// learning-rate schedule, on batches drawn from a generator of its own. One call saves everything
// that decides the rest of the run (weights, optimizer state, schedule, both generators, the
// step); one call restores it.
//
//   checkpoint_example                       40 steps straight
//   checkpoint_example --save-at 20 run.ckpt   20 steps, then save and stop
//   checkpoint_example --resume run.ckpt       load, then the remaining 20 steps
//
// Each step prints its loss (as an exact hexadecimal double); the end prints the fingerprints of
// the parameters and of both generators' states. A resumed run prints the same lines for the
// steps it runs and the same fingerprints as the run straight through, at any thread count.
#include <ditto/ditto.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "resume_flags.h"

namespace nn = ditto::nn;
using ditto::Tensor;

int main(int argc, char** argv) {
  ResumeFlags flags;
  if (!parse_resume_flags(argc, argv, flags)) return 2;
  constexpr int64_t kSteps = 40;
  ditto::manual_seed(0);
  ditto::use_deterministic_algorithms(true);
  nn::Sequential model(nn::Linear(16, 64), nn::ReLU(), nn::Dropout(0.2), nn::Linear(64, 64), nn::ReLU(),
                       nn::Dropout(0.2), nn::Linear(64, 4));
  ditto::optim::AdamW optimizer(model.parameters(), 3e-3);
  ditto::optim::CosineAnnealingLR schedule(optimizer, kSteps);
  ditto::Generator data(7);
  const Tensor teacher = ditto::randn({16, 4}, ditto::kFloat32, &data);

  int64_t step = 0;
  if (flags.resume) {
    step = ditto::load_checkpoint(flags.path, model, optimizer, {&schedule}, {&data}).step;
    std::printf("resumed at step %lld\n", static_cast<long long>(step));
  }
  for (; step < kSteps; ++step) {
    if (step == flags.save_at) {
      ditto::save_checkpoint(flags.path, model, optimizer, {&schedule}, {&data}, step,
                             {{"example", "checkpoint_example"}});
      std::printf("saved at step %lld\n", static_cast<long long>(step));
      return 0;
    }
    const Tensor x = ditto::randn({32, 16}, ditto::kFloat32, &data);
    const Tensor y = ditto::mm(x, teacher).argmax(1);
    Tensor loss = nn::functional::cross_entropy(model(x), y);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    schedule.step();
    std::printf("step %lld loss %a\n", static_cast<long long>(step), loss.item<double>());
  }
  const std::vector<uint8_t> rng = ditto::get_rng_state(), data_state = data.get_state();
  std::printf("parameters fingerprint: %s\n", ditto::fingerprint_hex(ditto::fingerprint(model.parameters())).c_str());
  std::printf("generators fingerprint: %s\n",
              ditto::fingerprint_hex(
                  ditto::fingerprint({ditto::tensor(std::vector<int64_t>(rng.begin(), rng.end())),
                                      ditto::tensor(std::vector<int64_t>(data_state.begin(), data_state.end()))}))
                  .c_str());
  return 0;
}
