// torch.nn.init, with PyTorch's double arithmetic for every bound (spec: pytorch-cpu-rng.md §5).
#include "ditto/nn/init.h"

#include <cmath>

#include "ditto/autograd.h"

namespace ditto::nn::init {

double calculate_gain(const std::string& nl, double param) {
  if (nl == "linear" || nl == "conv1d" || nl == "conv2d" || nl == "conv3d" || nl == "sigmoid") return 1.0;
  if (nl == "tanh") return 5.0 / 3;
  if (nl == "relu") return std::sqrt(2.0);
  if (nl == "leaky_relu") return std::sqrt(2.0 / (1 + param * param));
  if (nl == "selu") return 3.0 / 4;
  throw Error("[calculate_gain] unsupported nonlinearity " + nl);
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  DITTO_CHECK(t.dim() >= 2, "calculate_fan_in_and_fan_out",
              "fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

namespace {
int64_t fan(const Tensor& t, FanMode mode) {
  auto [in, out] = calculate_fan_in_and_fan_out(t);
  return mode == FanMode::FanIn ? in : out;
}
}  // namespace

Tensor& uniform_(Tensor& t, double a, double b, Generator* gen) {
  NoGradGuard g;
  return t.uniform_(a, b, gen);
}
Tensor& normal_(Tensor& t, double mean, double std, Generator* gen) {
  NoGradGuard g;
  return t.normal_(mean, std, gen);
}
Tensor& constant_(Tensor& t, double value) {
  NoGradGuard g;
  return t.fill_(value);
}
Tensor& zeros_(Tensor& t) { return constant_(t, 0.0); }
Tensor& ones_(Tensor& t) { return constant_(t, 1.0); }

Tensor& xavier_uniform_(Tensor& t, double gain, Generator* gen) {
  auto [in, out] = calculate_fan_in_and_fan_out(t);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(in + out));
  const double a = std::sqrt(3.0) * std;
  return uniform_(t, -a, a, gen);
}
Tensor& xavier_normal_(Tensor& t, double gain, Generator* gen) {
  auto [in, out] = calculate_fan_in_and_fan_out(t);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(in + out));
  return normal_(t, 0.0, std, gen);
}
Tensor& kaiming_uniform_(Tensor& t, double a, FanMode mode, const std::string& nl, Generator* gen) {
  if (t.numel() == 0) return t;
  const double gain = calculate_gain(nl, a);
  const double std = gain / std::sqrt(static_cast<double>(fan(t, mode)));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(t, -bound, bound, gen);
}
Tensor& kaiming_normal_(Tensor& t, double a, FanMode mode, const std::string& nl, Generator* gen) {
  if (t.numel() == 0) return t;
  const double gain = calculate_gain(nl, a);
  const double std = gain / std::sqrt(static_cast<double>(fan(t, mode)));
  return normal_(t, 0.0, std, gen);
}

}  // namespace ditto::nn::init
