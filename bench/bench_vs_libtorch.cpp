// ditto and libtorch side by side: the same workloads, shapes and work per iteration, in one
// process, so that with --benchmark_enable_random_interleaving=true their repetitions alternate
// and share the machine's state (load, clock, cache). Each workload is registered as
//   ditto/<workload>/threads:N   libtorch/<workload>/threads:N      (N = 1, 2)
// and the ditto training steps once more as ditto/<workload>/threads:N/det:1 (deterministic mode
// on; the plain entries run with it off, the default). bench/compare.py turns the JSON into the
// table of medians and ratios; bench/run-vs-libtorch.sh does it all (see bench/README.md).
//   bench_vs_libtorch --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
//                     --benchmark_format=json | python3 bench/compare.py   (one command line)
// Counters: GB/s ("GBps") for sum and softmax (bytes read + written), GFLOP/s ("GFLOPS") for
// gemm and conv; the training steps report time only.
//
// Fairness notes (also in bench/README.md):
// - Threads: one setting per benchmark for everything in the process: ditto::set_num_threads,
//   at::set_num_threads (OpenMP: libtorch's conv, softmax, sum...) and openblas_set_num_threads
//   (libtorch's mm goes to OpenBLAS, whose pthread pool otherwise takes every core whatever
//   at::set_num_threads says). OPENBLAS_CORETYPE is left to the user (unset: OpenBLAS picks).
// - Memory: glibc malloc hands blocks over M_MMAP_THRESHOLD (dynamic, 128 KiB up to 32 MiB) to
//   mmap and trims the heap top over M_TRIM_THRESHOLD, so libtorch's tensors, which go straight
//   to malloc, would page-fault afresh on every iteration (about 12 us per fault on these VMs).
//   ditto has its own caching allocator; main() raises both thresholds so libtorch reuses its
//   memory too and is timed on its kernels, not on the OS's page faults.
// - Gradients are set to none before each step in both (ditto's zero_grad default, PyTorch 2.x's;
//   libtorch 1.13's optimizer.zero_grad() would zero them in place instead).
#include <ATen/native/ConvUtils.h>
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <malloc.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../examples/gpt/gpt.h"
#include "ditto/capability.h"
#include "ditto/ditto.h"
#include "machine_limits.h"

namespace {

namespace dnn = ditto::nn;
namespace dF = ditto::nn::functional;
namespace tnn = torch::nn;
namespace tF = torch::nn::functional;

// openblas_set_num_threads, looked up at run time: present when libtorch's BLAS is OpenBLAS.
using SetBlasThreads = void (*)(int);
SetBlasThreads blas_set_threads() {
  static const auto fn = reinterpret_cast<SetBlasThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  return fn;
}

void set_threads(int n) {
  ditto::set_num_threads(n);
  at::set_num_threads(n);
  if (SetBlasThreads fn = blas_set_threads()) fn(n);
}

// The state a benchmark runs under: thread count and (ditto) deterministic mode; undone after.
struct Setup {
  Setup(int threads, bool det) {
    set_threads(threads);
    ditto::use_deterministic_algorithms(det);
    ditto::manual_seed(0);
    torch::manual_seed(0);
  }
  ~Setup() { ditto::use_deterministic_algorithms(false); }
};

void rate(benchmark::State& state, const char* name, double per_iteration) {
  state.counters[name] = benchmark::Counter(per_iteration, benchmark::Counter::kIsIterationInvariantRate);
}

// ===== sum of 16M float32 =========================================================================
constexpr int64_t kSumN = int64_t{1} << 24;

void ditto_sum(benchmark::State& state, int threads) {
  Setup s(threads, false);
  const ditto::Tensor x = ditto::randn({kSumN});
  for (auto _ : state) {
    ditto::Tensor r = ditto::sum(x);
    benchmark::DoNotOptimize(r);
  }
  rate(state, "GBps", 4e-9 * kSumN);
}
void torch_sum(benchmark::State& state, int threads) {
  Setup s(threads, false);
  const torch::Tensor x = torch::randn({kSumN});
  for (auto _ : state) {
    torch::Tensor r = x.sum();
    benchmark::DoNotOptimize(r);
  }
  rate(state, "GBps", 4e-9 * kSumN);
}

// ===== sgemm C (M, N) = A (M, K) @ B (K, N) =======================================================
void ditto_sgemm(benchmark::State& state, int threads, int64_t M, int64_t N, int64_t K) {
  Setup s(threads, false);
  const ditto::Tensor a = ditto::randn({M, K}), b = ditto::randn({K, N});
  for (auto _ : state) {
    ditto::Tensor c = ditto::mm(a, b);
    benchmark::DoNotOptimize(c);
  }
  rate(state, "GFLOPS", 2e-9 * double(M) * double(N) * double(K));
}
void torch_sgemm(benchmark::State& state, int threads, int64_t M, int64_t N, int64_t K) {
  Setup s(threads, false);
  const torch::Tensor a = torch::randn({M, K}), b = torch::randn({K, N});
  for (auto _ : state) {
    torch::Tensor c = torch::mm(a, b);
    benchmark::DoNotOptimize(c);
  }
  rate(state, "GFLOPS", 2e-9 * double(M) * double(N) * double(K));
}

// ===== conv2d ======================================================================================
// conv2d: x (32, 16, 32, 32), weight (32, 16, 3, 3), bias (32), padding 1; and issue 15's three
// more: a ResNet 3x3 64->64 at 56x56 (batch 8), a 1x1 256->64 at 28x28 (batch 8) and a first
// layer 7x7 stride 2 3->64 from 224x224 to 112x112 (batch 4, padding 3; its input needs no
// gradient, as an image's does not); and ResNet-18's last stage, small planes (batch 8): its
// 3x3 512->512 at 7x7 and its stride-2 3x3 256->512 from 14x14 to 7x7. Forward:
// 2 * N * Cout * oH * oW * Cin * kH * kW flops; forward+backward (grad of input, weight and bias
// from a fixed grad_output): three times that (twice for the first layer: no input gradient).
struct ConvShape {
  int64_t n, cin, cout, hw, k, stride, pad;
  bool input_grad;
  int64_t out_hw() const { return (hw + 2 * pad - k) / stride + 1; }
  double flops(bool backward) const {
    const double fwd = 2.0 * double(n * cout * out_hw() * out_hw() * cin * k * k);
    return backward ? fwd * (input_grad ? 3 : 2) : fwd;
  }
};
constexpr ConvShape kConvSmall{32, 16, 32, 32, 3, 1, 1, true};
constexpr ConvShape kConvShapes[] = {kConvSmall,
                                     {8, 64, 64, 56, 3, 1, 1, true},
                                     {8, 256, 64, 28, 1, 1, 0, true},
                                     {4, 3, 64, 224, 7, 2, 3, false},
                                     {8, 512, 512, 7, 3, 1, 1, true},
                                     {8, 256, 512, 14, 3, 2, 1, true}};
constexpr const char* kConvNames[] = {"conv2d",
                                      "conv2d_resnet3x3_64",
                                      "conv2d_1x1_256to64",
                                      "conv2d_7x7s2_3to64",
                                      "conv2d_resnet3x3_512_7",
                                      "conv2d_3x3s2_256to512_7"};

void ditto_conv(benchmark::State& state, int threads, const ConvShape& c, bool backward) {
  Setup s(threads, false);
  ditto::Tensor x = ditto::randn({c.n, c.cin, c.hw, c.hw});
  ditto::Tensor w = ditto::randn({c.cout, c.cin, c.k, c.k}), b = ditto::randn({c.cout});
  const ditto::Tensor gy = ditto::randn({c.n, c.cout, c.out_hw(), c.out_hw()});
  if (backward) {
    for (ditto::Tensor* t : {&x, &w, &b})
      if (t != &x || c.input_grad) t->requires_grad_(true);
  }
  for (auto _ : state) {
    ditto::Tensor y = dF::conv2d(x, w, b, c.stride, c.pad);
    if (backward) {
      for (ditto::Tensor* t : {&x, &w, &b}) t->mutable_grad() = ditto::Tensor();
      y.backward(gy);
      benchmark::DoNotOptimize(w.grad());
    }
    benchmark::DoNotOptimize(y);
  }
  rate(state, "GFLOPS", 1e-9 * c.flops(backward));
}
void torch_conv(benchmark::State& state, int threads, const ConvShape& c, bool backward) {
  Setup s(threads, false);
  torch::Tensor x = torch::randn({c.n, c.cin, c.hw, c.hw});
  torch::Tensor w = torch::randn({c.cout, c.cin, c.k, c.k}), b = torch::randn({c.cout});
  const torch::Tensor gy = torch::randn({c.n, c.cout, c.out_hw(), c.out_hw()});
  if (backward) {
    for (torch::Tensor* t : {&x, &w, &b})
      if (t != &x || c.input_grad) t->requires_grad_(true);
  }
  for (auto _ : state) {
    torch::Tensor y = torch::conv2d(x, w, b, c.stride, c.pad);
    if (backward) {
      for (torch::Tensor* t : {&x, &w, &b}) t->mutable_grad().reset();
      y.backward(gy);
      benchmark::DoNotOptimize(w.grad());
    }
    benchmark::DoNotOptimize(y);
  }
  rate(state, "GFLOPS", 1e-9 * c.flops(backward));
}

// ===== softmax over dim 1 of [4096, 1024] ==========================================================
constexpr int64_t kSoftmaxRows = 4096, kSoftmaxCols = 1024;

void ditto_softmax(benchmark::State& state, int threads) {
  Setup s(threads, false);
  const ditto::Tensor x = ditto::randn({kSoftmaxRows, kSoftmaxCols});
  for (auto _ : state) {
    ditto::Tensor y = ditto::softmax(x, 1);
    benchmark::DoNotOptimize(y);
  }
  rate(state, "GBps", 8e-9 * kSoftmaxRows * kSoftmaxCols);
}
void torch_softmax(benchmark::State& state, int threads) {
  Setup s(threads, false);
  const torch::Tensor x = torch::randn({kSoftmaxRows, kSoftmaxCols});
  for (auto _ : state) {
    torch::Tensor y = torch::softmax(x, 1);
    benchmark::DoNotOptimize(y);
  }
  rate(state, "GBps", 8e-9 * kSoftmaxRows * kSoftmaxCols);
}

// ===== normalisation layers, forward and backward, with weight and bias:
//   batch_norm (training, running statistics updated) of (8, 64, 56, 56) (a ResNet stage's) and
//   (32, 16, 14, 14) (a small CNN's); layer_norm over the last dim of (4096, 768) (a
//   transformer's); group_norm of (8, 64, 56, 56) in 8 groups
enum class Norm { Batch, Layer, Group };
template <class T>
void norm_step(benchmark::State& state, int threads, Norm kind, const std::vector<int64_t>& shape) {
  constexpr bool kDitto = std::is_same_v<T, ditto::Tensor>;
  Setup s(threads, false);
  const int64_t C = kind == Norm::Layer ? shape.back() : shape[1];
  auto vec = [](int64_t c, double v) {
    if constexpr (kDitto)
      return ditto::ones({c}) * v;
    else
      return torch::ones({c}) * v;
  };
  auto randn = [&]() {
    if constexpr (kDitto)
      return ditto::randn(ditto::Shape(shape.begin(), shape.end()));
    else
      return torch::randn(shape);
  };
  T x = randn().requires_grad_(), w = vec(C, 1).requires_grad_(), b = vec(C, 0).requires_grad_();
  T rm = vec(C, 0), rv = vec(C, 1);
  const T dy = randn();
  for (auto _ : state) {
    for (T* t : {&x, &w, &b}) t->mutable_grad() = T();
    T y;
    if constexpr (kDitto) {
      y = kind == Norm::Batch   ? dF::batch_norm(x, rm, rv, w, b, true, 0.1, 1e-5)
          : kind == Norm::Layer ? dF::layer_norm(x, {C}, w, b, 1e-5)
                                : dF::group_norm(x, 8, w, b, 1e-5);
    } else {
      y = kind == Norm::Batch   ? torch::batch_norm(x, w, b, rm, rv, true, 0.1, 1e-5, false)
          : kind == Norm::Layer ? torch::layer_norm(x, {C}, w, b, 1e-5)
                                : torch::group_norm(x, 8, w, b, 1e-5);
    }
    y.backward(dy);
    benchmark::DoNotOptimize(x.grad());
  }
  rate(state, "GBps", 20e-9 * static_cast<double>(x.numel()));  // x, y, dy, x, dx at the least
}

// ===== cumsum of 16M float32 (one line: both scan it in one pass, in double) ==========================
constexpr int64_t kScanN = 16 << 20;

void ditto_cumsum(benchmark::State& state, int threads) {
  Setup s(threads, false);
  const ditto::Tensor x = ditto::randn({kScanN});
  for (auto _ : state) {
    ditto::Tensor y = ditto::cumsum(x, 0);
    benchmark::DoNotOptimize(y);
  }
  rate(state, "GBps", 8e-9 * kScanN);
}
void torch_cumsum(benchmark::State& state, int threads) {
  Setup s(threads, false);
  const torch::Tensor x = torch::randn({kScanN});
  for (auto _ : state) {
    torch::Tensor y = torch::cumsum(x, 0);
    benchmark::DoNotOptimize(y);
  }
  rate(state, "GBps", 8e-9 * kScanN);
}

// sort and topk of (4096, 1024) float32 over the last dim (issue 14's shapes): values and indices.
constexpr int64_t kSortRows = 4096, kSortCols = 1024, kTopK = 32;
void ditto_sort(benchmark::State& state, int threads, bool top) {
  Setup s(threads, false);
  const ditto::Tensor x = ditto::randn({kSortRows, kSortCols});
  for (auto _ : state) {
    auto r = top ? ditto::topk(x, kTopK, 1) : ditto::sort(x, 1);
    benchmark::DoNotOptimize(r);
  }
  rate(state, "Melem/s", 1e-6 * kSortRows * kSortCols);
}
void torch_sort(benchmark::State& state, int threads, bool top) {
  Setup s(threads, false);
  const torch::Tensor x = torch::randn({kSortRows, kSortCols});
  for (auto _ : state) {
    auto r = top ? torch::topk(x, kTopK, 1) : torch::sort(x, 1);
    benchmark::DoNotOptimize(r);
  }
  rate(state, "Melem/s", 1e-6 * kSortRows * kSortCols);
}

// bincount of 16M int64 values in [0, 100000) with float32 weights, and histc of 16M float32.
void ditto_count(benchmark::State& state, int threads, bool hist) {
  Setup s(threads, false);
  const ditto::Tensor v = ditto::randint(0, 100000, {kScanN}), w = ditto::rand({kScanN}), x = ditto::randn({kScanN});
  for (auto _ : state) {
    ditto::Tensor y = hist ? ditto::histc(x, 1000, -3, 3) : ditto::bincount(v, w);
    benchmark::DoNotOptimize(y);
  }
  rate(state, "Melem/s", 1e-6 * kScanN);
}
void torch_count(benchmark::State& state, int threads, bool hist) {
  Setup s(threads, false);
  const torch::Tensor v = torch::randint(0, 100000, {kScanN}), w = torch::rand({kScanN}), x = torch::randn({kScanN});
  for (auto _ : state) {
    torch::Tensor y = hist ? torch::histc(x, 1000, -3, 3) : torch::bincount(v, w);
    benchmark::DoNotOptimize(y);
  }
  rate(state, "Melem/s", 1e-6 * kScanN);
}

// embedding_bag of 1M indices into a (100000, 64) table, bags of 100, forward and backward (the
// weight's gradient from ones).
constexpr int64_t kBagIdx = 1000000, kBagRows = 100000, kBagDim = 64, kBagLen = 100;
void ditto_bag(benchmark::State& state, int threads, const char* mode, bool backward) {
  Setup s(threads, false);
  ditto::Tensor w = ditto::randn({kBagRows, kBagDim}).requires_grad_(backward);
  const ditto::Tensor idx = ditto::randint(0, kBagRows, {kBagIdx}), offs = ditto::arange(0, kBagIdx, kBagLen);
  for (auto _ : state) {
    w.mutable_grad() = ditto::Tensor();
    ditto::Tensor y = dnn::functional::embedding_bag(idx, w, offs, mode);
    if (backward) y.backward(ditto::ones(y.sizes()));
    benchmark::DoNotOptimize(backward ? w.grad() : y);
  }
  rate(state, "Midx/s", 1e-6 * kBagIdx);
}
void torch_bag(benchmark::State& state, int threads, const char* mode, bool backward) {
  Setup s(threads, false);
  torch::Tensor w = torch::randn({kBagRows, kBagDim}).requires_grad_(backward);
  const torch::Tensor idx = torch::randint(0, kBagRows, {kBagIdx}), offs = torch::arange(0, kBagIdx, kBagLen);
  const int64_t m = std::string(mode) == "sum" ? 0 : std::string(mode) == "mean" ? 1 : 2;
  for (auto _ : state) {
    w.mutable_grad().reset();
    torch::Tensor y = std::get<0>(torch::embedding_bag(w, idx, offs, false, m));
    if (backward) y.backward(torch::ones(y.sizes()));
    benchmark::DoNotOptimize(backward ? w.grad() : y);
  }
  rate(state, "Midx/s", 1e-6 * kBagIdx);
}

// cross_entropy over segmentation logits (32, 21, 64, 64) with class targets (32, 64, 64), forward
// and backward (the shape).
const ditto::Shape kSegLogits{32, 21, 64, 64}, kSegTargets{32, 64, 64};
void ditto_xent(benchmark::State& state, int threads, bool backward) {
  Setup s(threads, false);
  ditto::Tensor x = ditto::randn(kSegLogits).requires_grad_(backward);
  const ditto::Tensor t = ditto::randint(0, 21, kSegTargets);
  for (auto _ : state) {
    x.mutable_grad() = ditto::Tensor();
    ditto::Tensor loss = dnn::functional::cross_entropy(x, t);
    if (backward) loss.backward();
    benchmark::DoNotOptimize(backward ? x.grad() : loss);
  }
  rate(state, "Mpix/s", 1e-6 * 32 * 64 * 64);
}
void torch_xent(benchmark::State& state, int threads, bool backward) {
  Setup s(threads, false);
  torch::Tensor x = torch::randn({32, 21, 64, 64}).requires_grad_(backward);
  const torch::Tensor t = torch::randint(0, 21, {32, 64, 64});
  for (auto _ : state) {
    x.mutable_grad().reset();
    torch::Tensor loss = torch::nn::functional::cross_entropy(x, t);
    if (backward) loss.backward();
    benchmark::DoNotOptimize(backward ? x.grad() : loss);
  }
  rate(state, "Mpix/s", 1e-6 * 32 * 64 * 64);
}

// ctc_loss of a speech-sized batch: T 200, N 16, C 30 (characters), targets of 50, log_softmax
// included, forward and backward (the gradient of the mean from one).
constexpr int64_t kCtcT = 200, kCtcN = 16, kCtcC = 30, kCtcS = 50;
void ditto_ctc(benchmark::State& state, int threads, bool backward) {
  Setup s(threads, false);
  ditto::Tensor x = ditto::randn({kCtcT, kCtcN, kCtcC}).requires_grad_(backward);
  const ditto::Tensor targets = ditto::randint(1, kCtcC, {kCtcN, kCtcS});
  const ditto::Shape il(kCtcN, kCtcT), tl(kCtcN, kCtcS);
  for (auto _ : state) {
    x.mutable_grad() = ditto::Tensor();
    ditto::Tensor loss = dnn::functional::ctc_loss(x.log_softmax(2), targets, il, tl);
    if (backward) loss.backward();
    benchmark::DoNotOptimize(backward ? x.grad() : loss);
  }
  rate(state, "items/s", kCtcN);
}
void torch_ctc(benchmark::State& state, int threads, bool backward) {
  Setup s(threads, false);
  torch::Tensor x = torch::randn({kCtcT, kCtcN, kCtcC}).requires_grad_(backward);
  const torch::Tensor targets = torch::randint(1, kCtcC, {kCtcN, kCtcS});
  const std::vector<int64_t> il(kCtcN, kCtcT), tl(kCtcN, kCtcS);
  for (auto _ : state) {
    x.mutable_grad().reset();
    torch::Tensor loss = torch::ctc_loss(x.log_softmax(2), targets, il, tl);
    if (backward) loss.backward();
    benchmark::DoNotOptimize(backward ? x.grad() : loss);
  }
  rate(state, "items/s", kCtcN);
}

// ===== training steps: zero_grad (to none), forward, loss, backward, SGD step =====================
// MLP 784-512-512-10 with ReLU, batch 128, MSE loss, SGD lr 0.01.
// audit: null, or ditto::audit recording: "" without values, one log for the whole run with a step
// mark per step (as a training run records); "all" with every written tensor's values, each step to
// a fresh log (a step's values are megabytes).
struct AuditRun {
  const char* mode;
  int64_t step = 0;
  explicit AuditRun(const char* m) : mode(m) {
    if (mode && !*mode) ditto::audit::start("/tmp/ditto-bench-audit.log", "none");
  }
  ~AuditRun() {
    if (mode) ditto::audit::stop();
  }
  void begin() {
    if (mode && *mode) ditto::audit::start("/tmp/ditto-bench-audit.log", mode);
    if (mode) ditto::audit::mark("step", step++);
  }
  void end() {
    if (mode && *mode) ditto::audit::stop();
  }
};

void ditto_mlp(benchmark::State& state, int threads, bool det, const char* audit = nullptr) {
  Setup s(threads, det);
  dnn::Sequential model(dnn::Linear(784, 512), dnn::ReLU(), dnn::Linear(512, 512), dnn::ReLU(), dnn::Linear(512, 10));
  ditto::optim::SGD opt(model.parameters(), 0.01);
  const ditto::Tensor x = ditto::randn({128, 784}), y = ditto::randn({128, 10});
  AuditRun rec(audit);
  for (auto _ : state) {
    rec.begin();
    opt.zero_grad();
    ditto::Tensor loss = dF::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss);
    rec.end();
  }
}
void torch_mlp(benchmark::State& state, int threads) {
  Setup s(threads, false);
  tnn::Sequential model(tnn::Linear(784, 512), tnn::ReLU(), tnn::Linear(512, 512), tnn::ReLU(), tnn::Linear(512, 10));
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.01));
  const torch::Tensor x = torch::randn({128, 784}), y = torch::randn({128, 10});
  for (auto _ : state) {
    model->zero_grad(/*set_to_none=*/true);
    torch::Tensor loss = torch::mse_loss(model->forward(x), y);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss);
  }
}

// CNN on (64, 1, 28, 28): conv 1->16 3x3 pad 1, ReLU, maxpool 2, conv 16->32 3x3 pad 1, ReLU,
// maxpool 2, flatten, linear 1568->10; cross-entropy on int64 class targets; SGD lr 0.01.
void ditto_cnn(benchmark::State& state, int threads, bool det, const char* audit = nullptr) {
  Setup s(threads, det);
  dnn::Sequential model(dnn::Conv2d(1, 16, 3, 1, 1), dnn::ReLU(), dnn::MaxPool2d(2), dnn::Conv2d(16, 32, 3, 1, 1),
                        dnn::ReLU(), dnn::MaxPool2d(2), dnn::Flatten(), dnn::Linear(32 * 7 * 7, 10));
  ditto::optim::SGD opt(model.parameters(), 0.01);
  const ditto::Tensor x = ditto::randn({64, 1, 28, 28}), y = ditto::randint(0, 10, {64});
  AuditRun rec(audit);
  for (auto _ : state) {
    rec.begin();
    opt.zero_grad();
    ditto::Tensor loss = dF::cross_entropy(model(x), y);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss);
    rec.end();
  }
}
void torch_cnn(benchmark::State& state, int threads) {
  Setup s(threads, false);
  tnn::Sequential model(tnn::Conv2d(tnn::Conv2dOptions(1, 16, 3).padding(1)), tnn::ReLU(),
                        tnn::MaxPool2d(tnn::MaxPool2dOptions(2)), tnn::Conv2d(tnn::Conv2dOptions(16, 32, 3).padding(1)),
                        tnn::ReLU(), tnn::MaxPool2d(tnn::MaxPool2dOptions(2)), tnn::Flatten(),
                        tnn::Linear(32 * 7 * 7, 10));
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.01));
  const torch::Tensor x = torch::randn({64, 1, 28, 28}), y = torch::randint(0, 10, {64});
  for (auto _ : state) {
    model->zero_grad(/*set_to_none=*/true);
    torch::Tensor loss = tF::cross_entropy(model->forward(x), y);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss);
  }
}

// ===== scatter-style ops: many duplicate random indices ===========================================
// Each iteration runs the op out of place (a fresh result from self), in both libraries:
//   scatter_add_1d        zeros(65536).scatter_add(0, idx (2^20), src (2^20))
//   scatter_add_2d        zeros(1024, 256).scatter_add(0, idx (4096, 256), src (4096, 256))
//   scatter_amax_2d       the same with scatter_reduce "amax" (include_self)
//   index_add_rows        zeros(8192, 128).index_add(0, idx (16384), source (16384, 128))
//   gather_bwd_1d         gather(src (65536), 0, idx (2^20)).backward(w): the backward is scatter_add_
//   index_put_acc_rows    zeros(8192, 128).index_put({idx (16384)}, values (16384, 128), accumulate)
//   index_copy_rows       zeros(8192, 128).index_copy(0, idx (16384), source (16384, 128))
//   put_acc_1d            zeros(65536).put(idx (2^20), src (2^20), accumulate)
// ditto also runs each with deterministic mode on (det:1): for the ops whose PyTorch CPU kernel is
// nondeterministic (index_put_, index_copy_, put_) that is the price of its ordered kernel.
enum class Scatter { Add1d, Add2d, Amax2d, IndexAdd, GatherBwd, IndexPutAcc, IndexCopy, PutAcc };
struct ScatterShape {
  ditto::Shape self, index, src;
  int64_t range;
};
ScatterShape scatter_shape(Scatter w) {
  switch (w) {
    case Scatter::Add1d:
    case Scatter::GatherBwd:
    case Scatter::PutAcc: return {{65536}, {1 << 20}, {1 << 20}, 65536};
    case Scatter::Add2d:
    case Scatter::Amax2d: return {{1024, 256}, {4096, 256}, {4096, 256}, 1024};
    default: return {{8192, 128}, {16384}, {16384, 128}, 8192};
  }
}

void ditto_scatter(benchmark::State& state, int threads, bool det, Scatter w) {
  Setup s(threads, det);
  const ScatterShape sh = scatter_shape(w);
  const ditto::Tensor self = ditto::zeros(sh.self), idx = ditto::randint(0, sh.range, sh.index);
  ditto::Tensor src = ditto::randn(sh.src);
  if (w == Scatter::GatherBwd) src = ditto::randn(sh.self).requires_grad_();
  const ditto::Tensor weight = ditto::rand(sh.index);
  for (auto _ : state) {
    ditto::Tensor r;
    switch (w) {
      case Scatter::Add1d:
      case Scatter::Add2d: r = ditto::scatter_add(self, 0, idx, src); break;
      case Scatter::Amax2d: r = ditto::scatter_reduce(self, 0, idx, src, "amax"); break;
      case Scatter::IndexAdd: r = ditto::index_add(self, 0, idx, src); break;
      case Scatter::GatherBwd:
        src.mutable_grad() = ditto::Tensor();
        ditto::gather(src, 0, idx).backward(weight);
        r = src.grad();
        break;
      case Scatter::IndexPutAcc: r = ditto::index_put(self, {idx}, src, true); break;
      case Scatter::IndexCopy: r = ditto::index_copy(self, 0, idx, src); break;
      case Scatter::PutAcc: r = ditto::put(self, idx, src, true); break;
    }
    benchmark::DoNotOptimize(r);
  }
}
void torch_scatter(benchmark::State& state, int threads, Scatter w) {
  Setup s(threads, false);
  const ScatterShape sh = scatter_shape(w);
  const torch::Tensor self = torch::zeros(sh.self), idx = torch::randint(0, sh.range, sh.index);
  torch::Tensor src = torch::randn(sh.src);
  if (w == Scatter::GatherBwd) src = torch::randn(sh.self).requires_grad_();
  const torch::Tensor weight = torch::rand(sh.index);
  for (auto _ : state) {
    torch::Tensor r;
    switch (w) {
      case Scatter::Add1d:
      case Scatter::Add2d: r = torch::scatter_add(self, 0, idx, src); break;
      case Scatter::Amax2d: r = torch::scatter_reduce(self, 0, idx, src, "amax"); break;
      case Scatter::IndexAdd: r = torch::index_add(self, 0, idx, src); break;
      case Scatter::GatherBwd:
        src.mutable_grad() = torch::Tensor();
        torch::gather(src, 0, idx).backward(weight);
        r = src.grad();
        break;
      case Scatter::IndexPutAcc: r = self.index_put({idx}, src, true); break;
      case Scatter::IndexCopy: r = torch::index_copy(self, 0, idx, src); break;
      case Scatter::PutAcc: r = self.put(idx, src, true); break;
    }
    benchmark::DoNotOptimize(r);
  }
}

// ===== causal self-attention of (8, 6, 256, 64) (issue 17's shape), forward and forward+backward:
// ditto's fused scaled_dot_product_attention against PyTorch 1.13's composition (it has no fused
// CPU kernel): q k^T * scale, the causal mask, softmax, @ v.
const ditto::Shape kAttn{8, 6, 256, 64};
void ditto_attention(benchmark::State& state, int threads, bool backward) {
  Setup s(threads, false);
  ditto::Tensor q = ditto::randn(kAttn).requires_grad_(backward), k = ditto::randn(kAttn).requires_grad_(backward),
                v = ditto::randn(kAttn).requires_grad_(backward);
  for (auto _ : state) {
    for (ditto::Tensor* t : {&q, &k, &v}) t->mutable_grad() = ditto::Tensor();
    ditto::Tensor y = dF::scaled_dot_product_attention(q, k, v, ditto::Tensor(), 0.0, true);
    if (backward) y.backward(ditto::ones(y.sizes()));
    benchmark::DoNotOptimize(backward ? q.grad() : y);
  }
  rate(state, "Mtok/s", 1e-6 * 8 * 256);
}
void torch_attention(benchmark::State& state, int threads, bool backward) {
  Setup s(threads, false);
  torch::Tensor q = torch::randn({8, 6, 256, 64}).requires_grad_(backward),
                k = torch::randn({8, 6, 256, 64}).requires_grad_(backward),
                v = torch::randn({8, 6, 256, 64}).requires_grad_(backward);
  const torch::Tensor future = torch::ones({256, 256}, torch::kBool).triu(1);
  for (auto _ : state) {
    for (torch::Tensor* t : {&q, &k, &v}) t->mutable_grad().reset();
    torch::Tensor w = torch::matmul(q, k.transpose(-2, -1)) * 0.125;
    torch::Tensor y = torch::matmul(w.masked_fill(future, -INFINITY).softmax(-1), v);
    if (backward) y.backward(torch::ones_like(y));
    benchmark::DoNotOptimize(backward ? q.grad() : y);
  }
  rate(state, "Mtok/s", 1e-6 * 8 * 256);
}

// ===== a GPT (issue 17's: 6 layers, 6 heads, 384 wide, context 256, batch 8, vocabulary 65) =======
// ditto: examples/gpt's model (fused attention). libtorch: the same model in torch::nn, with
// PyTorch 1.13's attention composition; the head is the tied embedding in both. The training step
// is zero_grad, forward, cross-entropy, backward, AdamW; the inference step one forward of the
// batch without autograd. Rates in tokens per second.
constexpr int64_t kGptB = 8, kGptT = 256, kGptC = 384, kGptH = 6, kGptL = 6, kGptV = 65;

struct TorchBlockImpl : tnn::Module {
  TorchBlockImpl()
      : ln_1(register_module("ln_1", tnn::LayerNorm(tnn::LayerNormOptions({kGptC})))),
        c_attn(register_module("c_attn", tnn::Linear(kGptC, 3 * kGptC))),
        c_proj(register_module("c_proj", tnn::Linear(kGptC, kGptC))),
        ln_2(register_module("ln_2", tnn::LayerNorm(tnn::LayerNormOptions({kGptC})))),
        c_fc(register_module("c_fc", tnn::Linear(kGptC, 4 * kGptC))),
        mlp_proj(register_module("mlp_proj", tnn::Linear(4 * kGptC, kGptC))) {}
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& future) {
    const int64_t B = x.size(0), T = x.size(1), C = kGptC;
    const auto qkv = c_attn(ln_1(x)).split(C, 2);
    auto heads = [&](const torch::Tensor& t) { return t.view({B, T, kGptH, C / kGptH}).transpose(1, 2); };
    const torch::Tensor q = heads(qkv[0]), k = heads(qkv[1]), v = heads(qkv[2]);
    const torch::Tensor w = torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(double(C / kGptH)));
    const torch::Tensor y = torch::matmul(w.masked_fill(future, -INFINITY).softmax(-1), v);
    const torch::Tensor h = x + c_proj(y.transpose(1, 2).contiguous().view({B, T, C}));
    return h + mlp_proj(torch::gelu(c_fc(ln_2(h))));
  }
  tnn::LayerNorm ln_1;
  tnn::Linear c_attn, c_proj;
  tnn::LayerNorm ln_2;
  tnn::Linear c_fc, mlp_proj;
};
TORCH_MODULE(TorchBlock);

struct TorchGptImpl : tnn::Module {
  TorchGptImpl()
      : wte(register_module("wte", tnn::Embedding(kGptV, kGptC))),
        wpe(register_module("wpe", tnn::Embedding(kGptT, kGptC))),
        ln_f(register_module("ln_f", tnn::LayerNorm(tnn::LayerNormOptions({kGptC})))) {
    for (int64_t i = 0; i < kGptL; ++i) blocks.push_back(register_module("h" + std::to_string(i), TorchBlock()));
  }
  torch::Tensor forward(const torch::Tensor& idx) {
    const int64_t T = idx.size(1);
    const torch::Tensor future = torch::ones({T, T}, torch::kBool).triu(1);
    torch::Tensor x = wte(idx) + wpe(torch::arange(T));
    for (auto& b : blocks) x = b->forward(x, future);
    return tF::linear(ln_f(x), wte->weight);
  }
  tnn::Embedding wte, wpe;
  tnn::LayerNorm ln_f;
  std::vector<TorchBlock> blocks;
};
TORCH_MODULE(TorchGpt);

void ditto_gpt(benchmark::State& state, int threads, bool train) {
  Setup s(threads, false);
  gpt::GPT model({.vocab = kGptV, .block = kGptT, .layers = kGptL, .heads = kGptH, .embd = kGptC, .dropout = 0.0});
  ditto::optim::AdamW opt(model.parameters(), 3e-4);
  const ditto::Tensor x = ditto::randint(0, kGptV, {kGptB, kGptT}), y = ditto::randint(0, kGptV, {kGptB, kGptT});
  if (!train) model.eval();
  for (auto _ : state) {
    if (train) {
      opt.zero_grad();
      ditto::Tensor loss = dF::cross_entropy(model.forward(x).view({-1, kGptV}), y.view({-1}));
      loss.backward();
      opt.step();
      benchmark::DoNotOptimize(loss);
    } else {
      ditto::NoGradGuard no_grad;
      benchmark::DoNotOptimize(model.forward(x));
    }
  }
  rate(state, "tok/s", kGptB * kGptT);
}
void torch_gpt(benchmark::State& state, int threads, bool train) {
  Setup s(threads, false);
  TorchGpt model;
  torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(3e-4));
  const torch::Tensor x = torch::randint(0, kGptV, {kGptB, kGptT}), y = torch::randint(0, kGptV, {kGptB, kGptT});
  if (!train) model->eval();
  for (auto _ : state) {
    if (train) {
      model->zero_grad(/*set_to_none=*/true);
      torch::Tensor loss = torch::cross_entropy_loss(model->forward(x).view({-1, kGptV}), y.view({-1}));
      loss.backward();
      opt.step();
      benchmark::DoNotOptimize(loss);
    } else {
      torch::NoGradGuard no_grad;
      benchmark::DoNotOptimize(model->forward(x));
    }
  }
  rate(state, "tok/s", kGptB * kGptT);
}

// ===== registration ================================================================================
template <class Fn>
void add(const std::string& name, Fn&& fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn))->Unit(benchmark::kMillisecond)->UseRealTime();
}

// Upsampling x2 of (8, 64, 64, 64) (the shape) and reflection padding of (8, 64, 64, 64) by
// 3 on every side, forward and backward (the input's gradient from ones).
const ditto::Shape kUpIn{8, 64, 64, 64};
enum class Resample { Bilinear, Bicubic, Nearest, ReflectPad };
void ditto_resample(benchmark::State& state, int threads, Resample kind, bool backward) {
  Setup s(threads, false);
  ditto::Tensor x = ditto::randn(kUpIn).requires_grad_(backward);
  const char* mode = kind == Resample::Bilinear ? "bilinear" : kind == Resample::Bicubic ? "bicubic" : "nearest";
  for (auto _ : state) {
    x.mutable_grad() = ditto::Tensor();
    ditto::Tensor y =
        kind == Resample::ReflectPad
            ? dnn::functional::pad(x, {3, 3, 3, 3}, "reflect")
            : dnn::functional::interpolate(x, std::nullopt, std::vector<double>{2.0}, mode,
                                           kind == Resample::Nearest ? std::nullopt : std::optional<bool>(false));
    if (backward) y.backward(ditto::ones(y.sizes()));
    benchmark::DoNotOptimize(backward ? x.grad() : y);
  }
  rate(state, "Mpix/s", 1e-6 * 8 * 64 * 64 * 64);
}
void torch_resample(benchmark::State& state, int threads, Resample kind, bool backward) {
  Setup s(threads, false);
  torch::Tensor x = torch::randn({8, 64, 64, 64}).requires_grad_(backward);
  namespace tf = torch::nn::functional;
  for (auto _ : state) {
    x.mutable_grad().reset();
    torch::Tensor y;
    if (kind == Resample::ReflectPad) {
      y = tf::pad(x, tf::PadFuncOptions({3, 3, 3, 3}).mode(torch::kReflect));
    } else {
      auto o = tf::InterpolateFuncOptions().scale_factor(std::vector<double>{2.0, 2.0});
      if (kind == Resample::Bilinear) o.mode(torch::kBilinear).align_corners(false);
      if (kind == Resample::Bicubic) o.mode(torch::kBicubic).align_corners(false);
      if (kind == Resample::Nearest) o.mode(torch::kNearest);
      y = tf::interpolate(x, o);
    }
    if (backward) y.backward(torch::ones(y.sizes()));
    benchmark::DoNotOptimize(backward ? x.grad() : y);
  }
  rate(state, "Mpix/s", 1e-6 * 8 * 64 * 64 * 64);
}

// Pooling: adaptive pools to 7x7 of (32, 256, 14, 14) (the shape), 3-D pools of
// (4, 32, 16, 32, 32) (max 3x3x3 stride 2 pad 1, avg 2x2x2, adaptive to 4x4x4) and fractional max
// pooling 2x2 of (8, 64, 64, 64) to 45x45 with fixed samples; and the conv_transpose2d,
// (16, 64, 32, 32) to 32 channels, kernel 4, stride 2, padding 1 (its weight's gradient included);
// grid_sample of (8, 32, 64, 64) on a rotated and scaled 64x64 grid (the shape), bilinear and
// bicubic, zeros padding (the grid's gradient included); the backward from ones.
enum class Vision {
  AdaptiveAvg2d,
  AdaptiveMax2d,
  Max3d,
  Avg3d,
  AdaptiveAvg3d,
  Fractional2d,
  ConvTranspose2d,
  GridSample,
  GridSampleBicubic
};
const char* vision_name(Vision p) {
  switch (p) {
    case Vision::AdaptiveAvg2d: return "adaptive_avg_pool2d_7x7";
    case Vision::AdaptiveMax2d: return "adaptive_max_pool2d_7x7";
    case Vision::Max3d: return "max_pool3d_k3s2p1";
    case Vision::Avg3d: return "avg_pool3d_k2";
    case Vision::AdaptiveAvg3d: return "adaptive_avg_pool3d_4";
    case Vision::Fractional2d: return "fractional_max_pool2d_45";
    case Vision::ConvTranspose2d: return "conv_transpose2d_k4s2";
    case Vision::GridSample: return "grid_sample_bilinear";
    case Vision::GridSampleBicubic: return "grid_sample_bicubic";
  }
  return "?";
}
std::vector<int64_t> vision_input(Vision p) {
  if (p == Vision::AdaptiveAvg2d || p == Vision::AdaptiveMax2d) return {32, 256, 14, 14};
  if (p == Vision::Fractional2d) return {8, 64, 64, 64};
  if (p == Vision::ConvTranspose2d) return {16, 64, 32, 32};
  if (p == Vision::GridSample || p == Vision::GridSampleBicubic) return {8, 32, 64, 64};
  return {4, 32, 16, 32, 32};
}
void ditto_vision(benchmark::State& state, int threads, Vision kind, bool backward) {
  Setup s(threads, false);
  const auto shape = vision_input(kind);
  ditto::Tensor x = ditto::randn(shape).requires_grad_(backward);
  const ditto::Tensor u = ditto::rand({shape[0], shape[1], 2});
  ditto::Tensor w = ditto::randn({64, 32, 4, 4}).requires_grad_(backward);
  const auto theta_v = std::vector<float>{0.8f, -0.3f, 0.05f, 0.3f, 0.8f, -0.1f};
  ditto::Tensor grid =
      dnn::functional::affine_grid(ditto::from_vector(theta_v, {1, 2, 3}).expand({8, 2, 3}).contiguous(),
                                   {8, 32, 64, 64}, false)
          .detach()
          .requires_grad_(backward);
  namespace F = dnn::functional;
  for (auto _ : state) {
    x.mutable_grad() = ditto::Tensor();
    w.mutable_grad() = ditto::Tensor();
    grid.mutable_grad() = ditto::Tensor();
    ditto::Tensor y;
    switch (kind) {
      case Vision::AdaptiveAvg2d: y = F::adaptive_avg_pool2d(x, 7); break;
      case Vision::AdaptiveMax2d: y = F::adaptive_max_pool2d(x, 7); break;
      case Vision::Max3d: y = F::max_pool3d(x, 3, 2, 1); break;
      case Vision::Avg3d: y = F::avg_pool3d(x, 2); break;
      case Vision::AdaptiveAvg3d: y = F::adaptive_avg_pool3d(x, 4); break;
      case Vision::Fractional2d: y = F::fractional_max_pool2d(x, 2, {45, 45}, {}, u); break;
      case Vision::ConvTranspose2d: y = F::conv_transpose2d(x, w, ditto::Tensor(), 2, 1); break;
      case Vision::GridSample: y = F::grid_sample(x, grid, "bilinear", "zeros", false); break;
      case Vision::GridSampleBicubic: y = F::grid_sample(x, grid, "bicubic", "zeros", false); break;
    }
    if (backward) y.backward(ditto::ones(y.sizes()));
    benchmark::DoNotOptimize(backward ? x.grad() : y);
  }
}
void torch_vision(benchmark::State& state, int threads, Vision kind, bool backward) {
  Setup s(threads, false);
  const auto shape = vision_input(kind);
  torch::Tensor x = torch::randn(shape).requires_grad_(backward);
  const torch::Tensor u = torch::rand({shape[0], shape[1], 2});
  torch::Tensor w = torch::randn({64, 32, 4, 4}).requires_grad_(backward);
  const torch::Tensor theta =
      torch::tensor({0.8f, -0.3f, 0.05f, 0.3f, 0.8f, -0.1f}).view({1, 2, 3}).expand({8, 2, 3}).contiguous();
  torch::Tensor grid = torch::affine_grid_generator(theta, {8, 32, 64, 64}, false).detach().requires_grad_(backward);
  for (auto _ : state) {
    x.mutable_grad().reset();
    w.mutable_grad().reset();
    grid.mutable_grad().reset();
    torch::Tensor y;
    switch (kind) {
      case Vision::AdaptiveAvg2d: y = torch::adaptive_avg_pool2d(x, {7, 7}); break;
      case Vision::AdaptiveMax2d: y = std::get<0>(torch::adaptive_max_pool2d(x, {7, 7})); break;
      case Vision::Max3d: y = torch::max_pool3d(x, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}); break;
      case Vision::Avg3d: y = torch::avg_pool3d(x, {2, 2, 2}); break;
      case Vision::AdaptiveAvg3d: y = torch::adaptive_avg_pool3d(x, {4, 4, 4}); break;
      case Vision::Fractional2d: y = std::get<0>(torch::fractional_max_pool2d(x, {2, 2}, {45, 45}, u)); break;
      case Vision::ConvTranspose2d: y = torch::conv_transpose2d(x, w, {}, 2, 1); break;
      case Vision::GridSample: y = torch::grid_sampler(x, grid, 0, 0, false); break;
      case Vision::GridSampleBicubic: y = torch::grid_sampler(x, grid, 2, 0, false); break;
    }
    if (backward) y.backward(torch::ones(y.sizes()));
    benchmark::DoNotOptimize(backward ? x.grad() : y);
  }
}

void register_all() {
  for (int t : {1, 2}) {
    const std::string tn = "/threads:" + std::to_string(t);
    auto both = [&](const std::string& w, auto ditto_fn, auto torch_fn) {
      add("ditto/" + w + tn, ditto_fn);
      add("libtorch/" + w + tn, torch_fn);
    };
    both(
        "sum_16M", [t](benchmark::State& s) { ditto_sum(s, t); }, [t](benchmark::State& s) { torch_sum(s, t); });
    both(
        "sgemm_1024x1024x1024", [t](benchmark::State& s) { ditto_sgemm(s, t, 1024, 1024, 1024); },
        [t](benchmark::State& s) { torch_sgemm(s, t, 1024, 1024, 1024); });
    both(
        "sgemm_256x1024x512", [t](benchmark::State& s) { ditto_sgemm(s, t, 256, 1024, 512); },
        [t](benchmark::State& s) { torch_sgemm(s, t, 256, 1024, 512); });
    for (std::size_t i = 0; i < std::size(kConvShapes); ++i)
      for (bool bwd : {false, true})
        both(
            std::string(kConvNames[i]) + (bwd ? "_fwd_bwd" : "_fwd"),
            [t, i, bwd](benchmark::State& s) { ditto_conv(s, t, kConvShapes[i], bwd); },
            [t, i, bwd](benchmark::State& s) { torch_conv(s, t, kConvShapes[i], bwd); });
    both(
        "softmax_4096x1024", [t](benchmark::State& s) { ditto_softmax(s, t); },
        [t](benchmark::State& s) { torch_softmax(s, t); });
    const std::tuple<const char*, Norm, std::vector<int64_t>> norms[] = {
        {"batch_norm_8x64x56x56", Norm::Batch, {8, 64, 56, 56}},
        {"batch_norm_32x16x14x14", Norm::Batch, {32, 16, 14, 14}},
        {"layer_norm_4096x768", Norm::Layer, {4096, 768}},
        {"group_norm_8x64x56x56_g8", Norm::Group, {8, 64, 56, 56}}};
    for (const auto& [name, kind, shape] : norms) {
      const Norm k = kind;
      const std::vector<int64_t> sh = shape;
      both(
          name, [t, k, sh](benchmark::State& s) { norm_step<ditto::Tensor>(s, t, k, sh); },
          [t, k, sh](benchmark::State& s) { norm_step<torch::Tensor>(s, t, k, sh); });
    }
    both(
        "cumsum_16M", [t](benchmark::State& s) { ditto_cumsum(s, t); },
        [t](benchmark::State& s) { torch_cumsum(s, t); });
    both(
        "sort_4096x1024", [t](benchmark::State& s) { ditto_sort(s, t, false); },
        [t](benchmark::State& s) { torch_sort(s, t, false); });
    both(
        "topk32_4096x1024", [t](benchmark::State& s) { ditto_sort(s, t, true); },
        [t](benchmark::State& s) { torch_sort(s, t, true); });
    both(
        "bincount_16M_weights", [t](benchmark::State& s) { ditto_count(s, t, false); },
        [t](benchmark::State& s) { torch_count(s, t, false); });
    both(
        "histc_16M", [t](benchmark::State& s) { ditto_count(s, t, true); },
        [t](benchmark::State& s) { torch_count(s, t, true); });
    for (bool bwd : {false, true}) {
      const std::string part = bwd ? "_fwd_bwd" : "_fwd";
      for (const char* mode : {"sum", "max"})
        both(
            "embedding_bag_" + std::string(mode) + part,
            [t, mode, bwd](benchmark::State& s) { ditto_bag(s, t, mode, bwd); },
            [t, mode, bwd](benchmark::State& s) { torch_bag(s, t, mode, bwd); });
      both(
          "cross_entropy_seg" + part, [t, bwd](benchmark::State& s) { ditto_xent(s, t, bwd); },
          [t, bwd](benchmark::State& s) { torch_xent(s, t, bwd); });
      both(
          "ctc_loss" + part, [t, bwd](benchmark::State& s) { ditto_ctc(s, t, bwd); },
          [t, bwd](benchmark::State& s) { torch_ctc(s, t, bwd); });
      both(
          "attention_causal" + part, [t, bwd](benchmark::State& s) { ditto_attention(s, t, bwd); },
          [t, bwd](benchmark::State& s) { torch_attention(s, t, bwd); });
      both(
          bwd ? "gpt_train_step" : "gpt_inference_step", [t, bwd](benchmark::State& s) { ditto_gpt(s, t, bwd); },
          [t, bwd](benchmark::State& s) { torch_gpt(s, t, bwd); });
      const std::pair<const char*, Resample> resamples[] = {{"upsample_bilinear_x2", Resample::Bilinear},
                                                            {"upsample_bicubic_x2", Resample::Bicubic},
                                                            {"upsample_nearest_x2", Resample::Nearest},
                                                            {"reflection_pad2d_3", Resample::ReflectPad}};
      for (const auto& [w, kind] : resamples) {
        const Resample k = kind;
        both(
            w + part, [t, k, bwd](benchmark::State& s) { ditto_resample(s, t, k, bwd); },
            [t, k, bwd](benchmark::State& s) { torch_resample(s, t, k, bwd); });
      }
      for (Vision k :
           {Vision::AdaptiveAvg2d, Vision::AdaptiveMax2d, Vision::Max3d, Vision::Avg3d, Vision::AdaptiveAvg3d,
            Vision::Fractional2d, Vision::ConvTranspose2d, Vision::GridSample, Vision::GridSampleBicubic})
        both(
            vision_name(k) + part, [t, k, bwd](benchmark::State& s) { ditto_vision(s, t, k, bwd); },
            [t, k, bwd](benchmark::State& s) { torch_vision(s, t, k, bwd); });
    }
    both(
        "mlp_step", [t](benchmark::State& s) { ditto_mlp(s, t, false); },
        [t](benchmark::State& s) { torch_mlp(s, t); });
    both(
        "cnn_step", [t](benchmark::State& s) { ditto_cnn(s, t, false); },
        [t](benchmark::State& s) { torch_cnn(s, t); });
    const std::pair<const char*, Scatter> scatters[] = {
        {"scatter_add_1d", Scatter::Add1d},      {"scatter_add_2d", Scatter::Add2d},
        {"scatter_amax_2d", Scatter::Amax2d},    {"index_add_rows", Scatter::IndexAdd},
        {"gather_bwd_1d", Scatter::GatherBwd},   {"index_put_acc_rows", Scatter::IndexPutAcc},
        {"index_copy_rows", Scatter::IndexCopy}, {"put_acc_1d", Scatter::PutAcc}};
    for (const auto& [w, kind] : scatters) {
      const Scatter k = kind;
      both(
          w, [t, k](benchmark::State& s) { ditto_scatter(s, t, false, k); },
          [t, k](benchmark::State& s) { torch_scatter(s, t, k); });
      add(std::string("ditto/") + w + tn + "/det:1", [t, k](benchmark::State& s) { ditto_scatter(s, t, true, k); });
    }
    add("ditto/mlp_step" + tn + "/det:1", [t](benchmark::State& s) { ditto_mlp(s, t, true); });
    add("ditto/cnn_step" + tn + "/det:1", [t](benchmark::State& s) { ditto_cnn(s, t, true); });
    // ditto::audit's cost: each step recorded to a fresh log, without values and with every
    // written tensor's values (docs/audit.md)
    for (const char* mode : {"", "all"}) {
      const std::string m = *mode ? "/audit:values" : "/audit:on";
      add("ditto/mlp_step" + tn + m, [t, mode](benchmark::State& s) { ditto_mlp(s, t, false, mode); });
      add("ditto/cnn_step" + tn + m, [t, mode](benchmark::State& s) { ditto_cnn(s, t, false, mode); });
    }
  }
}

// "BLAS_INFO=open" and the like from libtorch's build summary.
std::string config_value(const std::string& config, const std::string& key) {
  const std::size_t at = config.find(key + "=");
  if (at == std::string::npos) return "?";
  const std::size_t begin = at + key.size() + 1, end = config.find_first_of(",\n", begin);
  return config.substr(begin, end - begin);
}

// Which kernel libtorch's convolution picks for an input shape and weight (mkldnn = oneDNN).
std::string conv_backend(at::IntArrayRef input, at::IntArrayRef weight) {
  using at::native::ConvBackend;
  const torch::Tensor x = torch::empty(input), w = torch::empty(weight), b = torch::empty({weight[0]});
  const int64_t one[] = {1, 1}, pad[] = {1, 1}, zero[] = {0, 0};
  switch (at::native::select_conv_backend(x, w, b, one, pad, one, false, zero, 1)) {
    case ConvBackend::Mkldnn: return "mkldnn";
    case ConvBackend::Slow2d: return "slow2d (im2col + gemm)";
    case ConvBackend::NnpackSpatial: return "nnpack";
    case ConvBackend::Xnnpack2d: return "xnnpack";
    default: return "other";
  }
}

}  // namespace

int main(int argc, char** argv) {
  // See the fairness note at the top: keep freed memory in the heap for libtorch to reuse.
  // 32 MiB is the most glibc accepts for the mmap threshold (and above every per-iteration
  // tensor here: the largest, softmax's output, is 16 MiB).
  const bool mmap_ok = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1;
  const bool trim_ok = mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;

  const std::string config = torch::show_config();
  using CorenameFn = char* (*)();
  const auto corename = reinterpret_cast<CorenameFn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  benchmark::AddCustomContext("ditto_cpu_capability", ditto::cpu_capability_name());
  benchmark::AddCustomContext("libtorch_version", TORCH_VERSION);
  benchmark::AddCustomContext("libtorch_blas", config_value(config, "BLAS_INFO"));
  benchmark::AddCustomContext("libtorch_mkldnn", config_value(config, "USE_MKLDNN"));
  benchmark::AddCustomContext("libtorch_conv2d_backend",
                              conv_backend({kConvSmall.n, kConvSmall.cin, kConvSmall.hw, kConvSmall.hw},
                                           {kConvSmall.cout, kConvSmall.cin, 3, 3}) +
                                  " (conv2d workloads), " + conv_backend({64, 1, 28, 28}, {16, 1, 3, 3}) + " / " +
                                  conv_backend({64, 16, 14, 14}, {32, 16, 3, 3}) + " (cnn_step's two convs)");
  benchmark::AddCustomContext("libtorch_parallel",
                              at::get_parallel_info().find("OpenMP") != std::string::npos ? "OpenMP" : "other");
  benchmark::AddCustomContext("openblas_core", corename ? corename() : "not loaded");
  if (!corename)  // Debian's libblas.so.3 alternative is then the reference BLAS: every mm 10-20x slower
    std::fprintf(stderr,
                 "WARNING: libtorch's BLAS is not OpenBLAS (the reference BLAS?): its matrix products are many times "
                 "slower and every ratio here flatters ditto. Install libopenblas-dev (bench/run-vs-libtorch.sh "
                 "does).\n");
  benchmark::AddCustomContext("OPENBLAS_CORETYPE", coretype ? coretype : "unset");
  // The machine's limits (bench/machine_limits.h), for compare.py's fraction-of-limit column:
  // peak_gflops_<level>_<threads>t (float32 FMA peak) and stream_gbps_<threads>t.
  if (std::getenv("DITTO_BENCH_NO_LIMITS") == nullptr) {
    for (int t : {1, 2}) {
      const std::string tn = "_" + std::to_string(t) + "t";
      auto put = [&](const std::string& key, double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f", v);
        benchmark::AddCustomContext(key + tn, buf);
      };
      put("peak_gflops_scalar", bench_limits::peak_gflops(bench_limits::fma_loop_scalar, 1, t) / 4);
      if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        put("peak_gflops_avx2", bench_limits::peak_gflops(bench_limits::fma_loop_avx2, 8, t));
      if (__builtin_cpu_supports("avx512f"))
        put("peak_gflops_avx512", bench_limits::peak_gflops(bench_limits::fma_loop_avx512, 16, t));
      put("stream_gbps", bench_limits::stream_gbps(t));
    }
  }
  benchmark::AddCustomContext("malloc", std::string("M_MMAP_THRESHOLD=32MiB ") + (mmap_ok ? "set" : "REFUSED") +
                                            ", M_TRIM_THRESHOLD=1GiB " + (trim_ok ? "set" : "REFUSED"));

  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
