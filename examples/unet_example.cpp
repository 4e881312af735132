// Segmentation, reproducible to the bit: a small U-Net (Conv2d, BatchNorm2d, ReLU, MaxPool2d,
// bilinear Upsample, skip connections by concatenation, a 1x1 head) learns to label every pixel
// of 32x32 images as background, bar or blob, trained with per-pixel cross-entropy on
// (N, 3, H, W) logits and Adam, in deterministic mode. The data set is generated from a seed (no
// download). Every run prints the same losses, pixel accuracies and parameter fingerprint,
// whatever DITTO_NUM_THREADS or DITTO_CPU_CAPABILITY says (tests/examples/unet_example.cmake).
// `--steps N` stops after N batches (and prints the fingerprint then).
#include <ditto/ditto.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <vector>

namespace nn = ditto::nn;
using ditto::Tensor;

constexpr int64_t kSize = 32;

// Each image: noise, plus a bar (class 1: a filled rectangle, brighter) and a blob (class 2: a
// filled disc, darker) at random places; the label of a pixel is what covers it (the blob on top).
static std::pair<Tensor, Tensor> make_data(int64_t n, ditto::Generator& gen) {
  const Tensor noise = ditto::randn({n, 1, kSize, kSize}, ditto::kFloat32, &gen) * 0.5;
  const std::vector<int64_t> geo = ditto::to_vector<int64_t>(ditto::randint(0, 1 << 20, {n, 6}, ditto::kInt64, &gen));
  std::vector<float> x = ditto::to_vector<float>(noise);
  std::vector<int64_t> y(static_cast<std::size_t>(n * kSize * kSize), 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t* g = geo.data() + 6 * i;
    const int64_t bh = 3 + g[0] % 6, bw = 6 + g[1] % 14, by = g[2] % (kSize - bh), bx = g[3] % (kSize - bw);
    const int64_t r = 3 + g[4] % 4, cy = r + (g[5] % (kSize - 2 * r)), cx = r + ((g[5] >> 8) % (kSize - 2 * r));
    for (int64_t h = 0; h < kSize; ++h)
      for (int64_t w = 0; w < kSize; ++w) {
        const std::size_t k = static_cast<std::size_t>((i * kSize + h) * kSize + w);
        if (h >= by && h < by + bh && w >= bx && w < bx + bw) x[k] += 1.0f, y[k] = 1;
        if ((h - cy) * (h - cy) + (w - cx) * (w - cx) <= r * r) x[k] -= 1.0f, y[k] = 2;
      }
  }
  return {ditto::from_vector(x, {n, 1, kSize, kSize}), ditto::from_vector(y, {n, kSize, kSize})};
}

// conv 3x3 (padding 1), batch norm, ReLU.
static nn::Sequential block(int64_t in, int64_t out) {
  return nn::Sequential(nn::Conv2d(in, out, 3, 1, 1), nn::BatchNorm2d(out), nn::ReLU());
}

class UNet : public nn::UnaryModule {
 public:
  UNet()
      : enc1_(register_module("enc1", std::make_shared<nn::Sequential>(block(1, 8)))),
        enc2_(register_module("enc2", std::make_shared<nn::Sequential>(block(8, 16)))),
        mid_(register_module("mid", std::make_shared<nn::Sequential>(block(16, 32)))),
        dec2_(register_module("dec2", std::make_shared<nn::Sequential>(block(32 + 16, 16)))),
        dec1_(register_module("dec1", std::make_shared<nn::Sequential>(block(16 + 8, 8)))),
        head_(register_module("head", std::make_shared<nn::Conv2d>(8, 3, 1))),
        pool_(2),
        up_(std::nullopt, std::vector<double>{2.0}, "bilinear", false) {}

  Tensor forward(const Tensor& x) override {
    const Tensor e1 = (*enc1_)(x);          // (N, 8, 32, 32)
    const Tensor e2 = (*enc2_)(pool_(e1));  // (N, 16, 16, 16)
    const Tensor m = (*mid_)(pool_(e2));    // (N, 32, 8, 8)
    const Tensor d2 = (*dec2_)(ditto::cat({up_(m), e2}, 1));
    const Tensor d1 = (*dec1_)(ditto::cat({up_(d2), e1}, 1));
    return (*head_)(d1);  // (N, 3, 32, 32) logits
  }
  std::string name() const override { return "UNet"; }

 private:
  std::shared_ptr<nn::Sequential> enc1_, enc2_, mid_, dec2_, dec1_;
  std::shared_ptr<nn::Conv2d> head_;
  nn::MaxPool2d pool_;
  nn::Upsample up_;
};

static double pixel_accuracy(UNet& model, const Tensor& x, const Tensor& y) {
  ditto::NoGradGuard no_grad;
  model.eval();
  const Tensor pred = model(x).argmax(1);
  model.train();
  return (pred == y).sum().item<double>() / static_cast<double>(y.numel());
}

int main(int argc, char** argv) {
  int64_t max_steps = -1;
  if (argc == 3 && std::strcmp(argv[1], "--steps") == 0) {
    max_steps = std::atoll(argv[2]);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: unet_example [--steps N]\n");
    return 2;
  }
  ditto::manual_seed(0);
  ditto::use_deterministic_algorithms(true);
  ditto::Generator data_gen(2026);
  auto [train_x, train_y] = make_data(160, data_gen);
  auto [test_x, test_y] = make_data(64, data_gen);

  UNet model;
  ditto::optim::Adam optimizer(model.parameters(), 1e-2);
  const int64_t batch = 16, n = train_x.size(0);
  int64_t step = 0;
  for (int64_t epoch = 1; epoch <= 3 && step != max_steps; ++epoch) {
    ditto::Generator order_gen(100 + static_cast<uint64_t>(epoch));
    const Tensor order = ditto::randperm(n, ditto::kInt64, &order_gen);
    double total = 0;
    for (int64_t b = 0; b < n && step != max_steps; b += batch, ++step) {
      const Tensor idx = order.slice(0, b, b + batch);
      const Tensor loss =
          nn::functional::cross_entropy(model(train_x.index_select(0, idx)), train_y.index_select(0, idx));
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      total += loss.item<double>() * static_cast<double>(idx.numel());
    }
    if (step == max_steps) break;
    std::printf("epoch %lld  loss %.6f  train pixel accuracy %.4f  test pixel accuracy %.4f\n",
                static_cast<long long>(epoch), total / static_cast<double>(n), pixel_accuracy(model, train_x, train_y),
                pixel_accuracy(model, test_x, test_y));
  }
  std::cout << "parameters fingerprint: " << ditto::fingerprint_hex(ditto::fingerprint(model.parameters())) << "\n";
  return 0;
}
