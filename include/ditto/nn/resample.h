#pragma once
// Padding and upsampling modules, as torch.nn's. The ops behind them are nn::functional::pad and
// nn::functional::interpolate (ditto/nn/functional.h); errors from a module carry its name.
#include <optional>
#include <string>
#include <vector>

#include "ditto/nn/functional.h"
#include "ditto/nn/module.h"

namespace ditto::nn {

// Pads the last `dims` dims by `padding` (one width for every side, or (left, right, top, bottom,
// front, back) as F.pad lists them) in `mode`.
class PadNd : public UnaryModule {
 public:
  PadNd(const char* name, int dims, std::string mode, const SizeArg& padding, double value = 0.0);
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return name_; }
  const Shape& padding() const { return padding_; }

 private:
  const char* name_;
  std::string mode_;
  Shape padding_;
  double value_;
};

struct ReflectionPad1d : PadNd {
  explicit ReflectionPad1d(const SizeArg& padding) : PadNd("ReflectionPad1d", 1, "reflect", padding) {}
};
struct ReflectionPad2d : PadNd {
  explicit ReflectionPad2d(const SizeArg& padding) : PadNd("ReflectionPad2d", 2, "reflect", padding) {}
};
struct ReflectionPad3d : PadNd {
  explicit ReflectionPad3d(const SizeArg& padding) : PadNd("ReflectionPad3d", 3, "reflect", padding) {}
};
struct ReplicationPad1d : PadNd {
  explicit ReplicationPad1d(const SizeArg& padding) : PadNd("ReplicationPad1d", 1, "replicate", padding) {}
};
struct ReplicationPad2d : PadNd {
  explicit ReplicationPad2d(const SizeArg& padding) : PadNd("ReplicationPad2d", 2, "replicate", padding) {}
};
struct ReplicationPad3d : PadNd {
  explicit ReplicationPad3d(const SizeArg& padding) : PadNd("ReplicationPad3d", 3, "replicate", padding) {}
};
struct CircularPad1d : PadNd {
  explicit CircularPad1d(const SizeArg& padding) : PadNd("CircularPad1d", 1, "circular", padding) {}
};
struct CircularPad2d : PadNd {
  explicit CircularPad2d(const SizeArg& padding) : PadNd("CircularPad2d", 2, "circular", padding) {}
};
struct CircularPad3d : PadNd {
  explicit CircularPad3d(const SizeArg& padding) : PadNd("CircularPad3d", 3, "circular", padding) {}
};
struct ConstantPad1d : PadNd {
  ConstantPad1d(const SizeArg& padding, double value) : PadNd("ConstantPad1d", 1, "constant", padding, value) {}
};
struct ConstantPad2d : PadNd {
  ConstantPad2d(const SizeArg& padding, double value) : PadNd("ConstantPad2d", 2, "constant", padding, value) {}
};
struct ConstantPad3d : PadNd {
  ConstantPad3d(const SizeArg& padding, double value) : PadNd("ConstantPad3d", 3, "constant", padding, value) {}
};
struct ZeroPad2d : PadNd {
  explicit ZeroPad2d(const SizeArg& padding) : PadNd("ZeroPad2d", 2, "constant", padding) {}
};

// torch.nn.Upsample: F.interpolate with the module's arguments.
class Upsample : public UnaryModule {
 public:
  explicit Upsample(std::optional<SizeArg> size, std::optional<std::vector<double>> scale_factor = std::nullopt,
                    std::string mode = "nearest", std::optional<bool> align_corners = std::nullopt,
                    std::optional<bool> recompute_scale_factor = std::nullopt)
      : size_(std::move(size)),
        scale_factor_(std::move(scale_factor)),
        mode_(std::move(mode)),
        align_corners_(align_corners),
        recompute_scale_factor_(recompute_scale_factor) {}
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "Upsample"; }

 private:
  std::optional<SizeArg> size_;
  std::optional<std::vector<double>> scale_factor_;
  std::string mode_;
  std::optional<bool> align_corners_, recompute_scale_factor_;
};

}  // namespace ditto::nn
