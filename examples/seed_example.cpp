// The seed's example, line for line in C++: seeded training of a Linear(1, 1) with MSELoss and
// SGD under deterministic mode, then a MaxUnpool2d that deterministic mode refuses, then the
// same unpooling under warn_only (it runs; the warning goes to stderr). It prints what PyTorch
// prints for the same program (tests/data/seed_example_pytorch.txt), the API's name aside.
#include <ditto/ditto.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace nn = ditto::nn;

// Python's repr(round(x, 4)): correctly rounded to 4 decimals, trailing zeros dropped.
static std::string round4(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", x);
  std::string s = buf;
  while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
  return s;
}

int main() {
  ditto::manual_seed(0);
  ditto::use_deterministic_algorithms(true);

  ditto::Tensor x = ditto::tensor({{1.0}, {2.0}, {3.0}, {4.0}});
  ditto::Tensor y = ditto::tensor({{3.0}, {5.0}, {7.0}, {9.0}});
  nn::Linear model(1, 1);
  nn::MSELoss loss_fn;
  ditto::optim::SGD optimizer(model.parameters(), /*lr=*/0.05);

  std::vector<double> losses;
  for (int step = 0; step < 3; ++step) {
    ditto::Tensor loss = loss_fn(model(x), y);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    losses.push_back(loss.item<double>());
  }

  std::cout << "Deterministic losses: [";
  for (std::size_t i = 0; i < losses.size(); ++i) std::cout << (i ? ", " : "") << round4(losses[i]);
  std::cout << "]\n";
  std::cout << "Mode enabled: " << (ditto::are_deterministic_algorithms_enabled() ? "True" : "False") << "\n";

  ditto::manual_seed(0);
  ditto::Tensor image = ditto::randn({1, 1, 4, 4});
  auto [pooled, indices] = nn::MaxPool2d(2).forward_with_indices(image);
  try {
    nn::MaxUnpool2d(2)(pooled, indices, {1, 1, 4, 4});
    std::cout << "max_unpool2d: no error\n";
  } catch (const ditto::NondeterministicError& error) {
    const std::string message = error.what();
    std::cout << "Rejected op: max_unpool2d\n";
    std::cout << "Error: " << message.substr(0, message.find(" You can turn off")) << "\n";
  }

  // warn_only: the op runs and a warning goes to stderr
  std::cout << std::flush;
  ditto::use_deterministic_algorithms(true, /*warn_only=*/true);
  auto [ones_pooled, ones_indices] = nn::MaxPool2d(2).forward_with_indices(ditto::ones({1, 1, 4, 4}));
  ditto::Tensor out = nn::MaxUnpool2d(2)(ones_pooled, ones_indices, {1, 1, 4, 4});
  std::cout << "Ran with warning only: (";
  for (int64_t d = 0; d < out.dim(); ++d) std::cout << (d ? ", " : "") << out.size(d);
  std::cout << ")\n";
  return 0;
}
