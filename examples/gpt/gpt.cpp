// A character-level GPT trained on Shakespeare (examples/gpt/shakespeare.txt: the first 300 KB
// of the plays as collected in Karpathy's tinyshakespeare, public domain), then sampled. The
// same seed prints the same losses and the same text on every machine, thread count
// (DITTO_NUM_THREADS) and kernel level (DITTO_CPU_CAPABILITY); examples/gpt/gpt.py is its
// Python twin and prints the same bits.
//
//   gpt_example                       # 300 steps of a 4-layer model, a checkpoint, 300 characters
//   gpt_example --steps 20 --stop-at 10 --save run.ckpt && gpt_example --steps 20 --resume run.ckpt
//   gpt_example --help
//
// stdout: the configuration, the loss every --log-every steps, the validation loss, the sample.
// stderr: a progress bar with tokens per second (a line per --log-every steps when not a tty).
#include "gpt.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#ifndef GPT_DEFAULT_DATA
#define GPT_DEFAULT_DATA "examples/gpt/shakespeare.txt"
#endif

using ditto::Tensor;
namespace optim = ditto::optim;

namespace {

struct Options {
  gpt::Config model;
  std::string data = GPT_DEFAULT_DATA;
  int64_t steps = 300, batch = 16, accum = 1, warmup = 20, log_every = 10, stop_at = -1, sample = 300;
  int64_t eval_batches = 4;
  double lr = 1e-3, min_lr = 1e-4, weight_decay = 0.1, clip = 1.0, temperature = 0.8;
  uint64_t seed = 1337, sample_seed = 42;
  std::string save = "gpt.ckpt", resume, prompt = "ROMEO:";
  bool no_cache = false;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  DITTO_CHECK(in.good(), "gpt_example", "cannot read ", path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// B windows of block + 1 tokens at offsets drawn from gen: inputs and next-token targets.
std::pair<Tensor, Tensor> batch_of(const Tensor& data, int64_t B, int64_t block, ditto::Generator& gen) {
  const Tensor ix = ditto::randint(0, data.size(0) - block, {B}, ditto::kInt64, &gen);
  const Tensor pos = ix.unsqueeze(1) + ditto::arange(block);
  return {data.index_select(0, pos.flatten()).view({B, block}),
          data.index_select(0, (pos + 1).flatten()).view({B, block})};
}

Tensor loss_of(gpt::GPT& model, const Tensor& x, const Tensor& y) {
  const Tensor logits = model.forward(x);
  return ditto::nn::functional::cross_entropy(logits.view({-1, model.config.vocab}), y.view({-1}));
}

void progress(int64_t step, int64_t steps, double tokens_per_s, bool tty, int64_t log_every) {
  if (tty) {
    const int width = 30, done = static_cast<int>(width * step / steps);
    std::fprintf(stderr, "\r[%.*s%.*s] %lld/%lld  %.0f tok/s", done, "##############################", width - done,
                 "..............................", static_cast<long long>(step), static_cast<long long>(steps),
                 tokens_per_s);
    if (step == steps) std::fputc('\n', stderr);
  } else if (step % log_every == 0 || step == steps) {
    std::fprintf(stderr, "step %lld/%lld  %.0f tok/s\n", static_cast<long long>(step), static_cast<long long>(steps),
                 tokens_per_s);
  }
  std::fflush(stderr);
}

// Samples n characters after the prompt. The context is the tokens since the last restart;
// when it fills the block, it restarts from its last half. With the KV cache each new token is
// one forward of one position; without, the whole context is recomputed: the same logits, bit
// for bit, so the same text.
std::string sample(gpt::GPT& model, const gpt::Vocabulary& vocab, const Options& o) {
  ditto::NoGradGuard no_grad;
  model.eval();
  ditto::Generator gen(o.sample_seed);
  const Tensor prompt = vocab.encode(o.prompt);
  DITTO_CHECK(prompt.numel() >= 1 && prompt.numel() <= o.model.block, "gpt_example",
              "the prompt must hold 1 to --block characters");
  std::vector<int64_t> context(prompt.data_ptr<int64_t>(), prompt.data_ptr<int64_t>() + prompt.numel());
  std::string out = o.prompt;
  gpt::KVCache cache;
  auto as_tensor = [](const std::vector<int64_t>& v, std::size_t from) {
    Tensor t = ditto::empty({1, static_cast<int64_t>(v.size() - from)}, ditto::kInt64);
    std::copy(v.begin() + static_cast<std::ptrdiff_t>(from), v.end(), t.data_ptr<int64_t>());
    return t;
  };
  Tensor logits = model.forward(as_tensor(context, 0), o.no_cache ? nullptr : &cache);
  for (int64_t n = 0; n < o.sample; ++n) {
    const Tensor last = logits.select(1, logits.size(1) - 1) / o.temperature;
    const int64_t next = ditto::multinomial(last.softmax(-1), 1, false, &gen).item<int64_t>();
    out += vocab.chars[static_cast<std::size_t>(next)];
    context.push_back(next);
    if (static_cast<int64_t>(context.size()) > o.model.block) {  // restart from the last half
      context.erase(context.begin(), context.end() - o.model.block / 2);
      cache = gpt::KVCache();
      logits = model.forward(as_tensor(context, 0), o.no_cache ? nullptr : &cache);
    } else if (o.no_cache) {
      logits = model.forward(as_tensor(context, 0));
    } else {
      logits = model.forward(as_tensor(context, context.size() - 1), &cache);
    }
  }
  model.train();
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"A character-level GPT on Shakespeare, reproducible to the bit (ditto)"};
  app.add_option("--data", o.data, "training text");
  app.add_option("--steps", o.steps, "optimizer steps")->check(CLI::PositiveNumber);
  app.add_option("--batch", o.batch, "sequences per micro-batch")->check(CLI::PositiveNumber);
  app.add_option("--accum", o.accum, "micro-batches per step (gradient accumulation)")->check(CLI::PositiveNumber);
  app.add_option("--block", o.model.block, "context length")->check(CLI::Range(2, 4096));
  app.add_option("--layers", o.model.layers, "transformer blocks")->check(CLI::PositiveNumber);
  app.add_option("--heads", o.model.heads, "attention heads")->check(CLI::PositiveNumber);
  app.add_option("--embd", o.model.embd, "embedding width (a multiple of --heads)")->check(CLI::PositiveNumber);
  app.add_option("--dropout", o.model.dropout, "dropout probability")->check(CLI::Range(0.0, 1.0));
  app.add_option("--lr", o.lr, "peak learning rate (AdamW)");
  app.add_option("--min-lr", o.min_lr, "learning rate at the end of the cosine");
  app.add_option("--warmup", o.warmup, "linear warmup steps")->check(CLI::PositiveNumber);
  app.add_option("--weight-decay", o.weight_decay, "AdamW weight decay of the matrices");
  app.add_option("--clip", o.clip, "gradient norm clipping (0: none)");
  app.add_option("--seed", o.seed, "seed of the initial weights and of the batches");
  app.add_option("--log-every", o.log_every, "print the loss every N steps")->check(CLI::PositiveNumber);
  app.add_option("--save", o.save, "checkpoint written after training (empty: none)");
  app.add_option("--stop-at", o.stop_at, "stop after this step, saving the checkpoint, without sampling");
  app.add_option("--resume", o.resume, "go on from a checkpoint written with the same options");
  app.add_option("--eval-batches", o.eval_batches, "validation batches after training");
  app.add_option("--sample", o.sample, "characters to sample after training")->check(CLI::NonNegativeNumber);
  app.add_option("--prompt", o.prompt, "text the sample starts from");
  app.add_option("--temperature", o.temperature, "sampling temperature")->check(CLI::PositiveNumber);
  app.add_option("--sample-seed", o.sample_seed, "seed of the sampling generator");
  app.add_flag("--no-cache", o.no_cache, "sample by recomputing the whole context for every character");
  CLI11_PARSE(app, argc, argv);
  if (o.model.embd % o.model.heads != 0) {
    std::fprintf(stderr, "--embd must be a multiple of --heads\n");
    return 2;
  }
  try {
    const std::string text = read_file(o.data);
    const gpt::Vocabulary vocab(text);
    o.model.vocab = static_cast<int64_t>(vocab.chars.size());
    const Tensor data = vocab.encode(text);
    const int64_t n_train = data.size(0) * 9 / 10;
    const Tensor train = data.narrow(0, 0, n_train), val = data.narrow(0, n_train, data.size(0) - n_train);

    ditto::manual_seed(o.seed);
    gpt::GPT model(o.model);
    optim::AdamW opt(model.param_groups(o.weight_decay), {.lr = o.lr, .beta2 = 0.99, .weight_decay = o.weight_decay});
    const int64_t warmup = std::min(o.warmup, o.steps);
    optim::LinearLR warm(opt, 0.01, 1.0, warmup);
    optim::CosineAnnealingLR cosine(opt, std::max<int64_t>(o.steps - warmup, 1), o.min_lr);
    optim::SequentialLR schedule(opt, {&warm, &cosine}, {warmup});
    ditto::Generator data_gen(o.seed + 1);

    int64_t params = 0;
    for (const Tensor& p : model.parameters()) params += p.numel();
    std::printf(
        "GPT: %lld layers, %lld heads, %lld embedding, context %lld, %.2fM parameters; vocabulary %lld, "
        "%lld characters\n",
        static_cast<long long>(o.model.layers), static_cast<long long>(o.model.heads),
        static_cast<long long>(o.model.embd), static_cast<long long>(o.model.block), params / 1e6,
        static_cast<long long>(o.model.vocab), static_cast<long long>(data.size(0)));
    int64_t step = 0;
    if (!o.resume.empty()) {
      step = ditto::load_checkpoint(o.resume, model, opt, {&schedule}, {&data_gen}).step;
      std::printf("resumed at step %lld\n", static_cast<long long>(step));
    }
    const bool tty = isatty(2) != 0;
    const auto start = std::chrono::steady_clock::now();
    const int64_t first = step;
    float last_loss = 0;
    while (step < o.steps) {
      opt.zero_grad();
      double loss_sum = 0;
      for (int64_t k = 0; k < o.accum; ++k) {
        auto [x, y] = batch_of(train, o.batch, o.model.block, data_gen);
        Tensor loss = loss_of(model, x, y);
        loss_sum += loss.item<double>();
        (o.accum == 1 ? loss : loss / static_cast<double>(o.accum)).backward();
      }
      if (o.clip > 0) ditto::nn::utils::clip_grad_norm_(model.parameters(), o.clip);
      const double lr = opt.group(0).lr;
      opt.step();
      schedule.step();
      ++step;
      last_loss = static_cast<float>(loss_sum / static_cast<double>(o.accum));
      if (step % o.log_every == 0 || step == o.steps || step == 1)
        std::printf("step %5lld/%lld  loss %.6f  lr %.3e\n", static_cast<long long>(step),
                    static_cast<long long>(o.steps), last_loss, lr);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      progress(step, o.steps, static_cast<double>((step - first) * o.batch * o.accum * o.model.block) / s, tty,
               o.log_every);
      if (step == o.stop_at) break;
    }
    std::fflush(stdout);
    if (!o.save.empty()) {
      ditto::save_checkpoint(o.save, model, opt, {&schedule}, {&data_gen}, step);
      std::printf("checkpoint %s at step %lld\n", o.save.c_str(), static_cast<long long>(step));
    }
    if (step == o.stop_at) return 0;
    std::uint32_t bits = 0;
    std::memcpy(&bits, &last_loss, sizeof bits);
    std::printf("last loss bits 0x%08x\n", bits);
    if (o.eval_batches > 0) {
      ditto::NoGradGuard no_grad;
      model.eval();
      ditto::Generator eval_gen(o.seed + 2);
      double v = 0;
      for (int64_t k = 0; k < o.eval_batches; ++k) {
        auto [x, y] = batch_of(val, o.batch, o.model.block, eval_gen);
        v += loss_of(model, x, y).item<double>();
      }
      model.train();
      std::printf("validation loss %.6f\n", v / static_cast<double>(o.eval_batches));
    }
    if (o.sample > 0) {
      std::printf("--- sample (%lld characters, temperature %g, seed %llu) ---\n%s\n", static_cast<long long>(o.sample),
                  o.temperature, static_cast<unsigned long long>(o.sample_seed), sample(model, vocab, o).c_str());
    }
  } catch (const ditto::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
