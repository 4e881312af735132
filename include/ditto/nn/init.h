#pragma once
// Initialisation, identical to torch.nn.init: the bounds are computed in double exactly as
// PyTorch's Python does, then drawn with PyTorch's streams (uniform_/normal_).
#include <string>

#include "ditto/random.h"

namespace ditto::nn::init {

enum class FanMode { FanIn, FanOut };

// gain for a nonlinearity: "linear", "conv1d", "conv2d", "sigmoid": 1; "tanh": 5/3; "relu":
// sqrt(2); "leaky_relu": sqrt(2 / (1 + param^2)) (param defaults to 0.01); "selu": 3/4.
double calculate_gain(const std::string& nonlinearity, double param = 0.01);
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t);

Tensor& uniform_(Tensor& t, double a = 0.0, double b = 1.0, Generator* gen = nullptr);
Tensor& normal_(Tensor& t, double mean = 0.0, double std = 1.0, Generator* gen = nullptr);
Tensor& constant_(Tensor& t, double value);
Tensor& zeros_(Tensor& t);
Tensor& ones_(Tensor& t);
Tensor& xavier_uniform_(Tensor& t, double gain = 1.0, Generator* gen = nullptr);
Tensor& xavier_normal_(Tensor& t, double gain = 1.0, Generator* gen = nullptr);
Tensor& kaiming_uniform_(Tensor& t, double a = 0.0, FanMode mode = FanMode::FanIn,
                         const std::string& nonlinearity = "leaky_relu", Generator* gen = nullptr);
Tensor& kaiming_normal_(Tensor& t, double a = 0.0, FanMode mode = FanMode::FanIn,
                        const std::string& nonlinearity = "leaky_relu", Generator* gen = nullptr);

}  // namespace ditto::nn::init
