#pragma once
// The ops behind the modules, as free functions (torch.nn.functional).
#include <optional>

#include "ditto/random.h"
#include "ditto/tensor.h"

namespace ditto::nn {

enum class Reduction { None, Mean, Sum };

namespace functional {

// x @ weight^T + bias (bias optional): addmm for 2-D input, matmul otherwise.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);

}  // namespace functional
}  // namespace ditto::nn
