// A user's program, built against an installed ditto through find_package(ditto CONFIG).
#include <ditto/ditto.h>

#include <iostream>

int main() {
  ditto::manual_seed(0);
  ditto::Tensor x = ditto::randn({1, 1, 4, 4});
  // PyTorch's first value after manual_seed(0)
  const float v = x.flatten()[0].item<float>();
  const bool ok = v > -1.12585f && v < -1.12583f && ditto::get_num_threads() >= 1;
  std::cout << (ok ? "ok" : "wrong") << "\n";
  return ok ? 0 : 1;
}
