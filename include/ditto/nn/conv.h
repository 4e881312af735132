#pragma once
// Convolution and pooling modules, as torch.nn's. The ops behind them are in ditto/nn/functional.h;
// errors from a module carry its name: "[Conv2d] ...".
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "ditto/nn/functional.h"
#include "ditto/nn/module.h"

namespace ditto::nn {

// Conv1d / Conv2d: weight (out, in / groups, *kernel) and optional bias (out), initialised as
// PyTorch: kaiming_uniform_(weight, a = sqrt(5)), then bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in))
// with fan_in = (in / groups) * prod(kernel), drawn from the default generator in that order
// (no bias draw when fan_in is 0; the bias is then zero).
class ConvNd : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override;
  void reset_parameters();
  Tensor& weight() { return param(0); }
  Tensor& bias();  // undefined when built without bias
  int64_t in_channels() const { return in_; }
  int64_t out_channels() const { return out_; }
  int64_t groups() const { return groups_; }
  const Shape& kernel_size() const { return kernel_; }
  const Shape& stride() const { return stride_; }
  const Shape& padding() const { return padding_; }
  const Shape& dilation() const { return dilation_; }
  std::string name() const override { return name_; }

 protected:
  ConvNd(const char* name, int dims, int64_t in, int64_t out, const SizeArg& kernel, const SizeArg& stride,
         const SizeArg& padding, const SizeArg& dilation, int64_t groups, bool bias, ScalarType dtype);

 private:
  const char* name_;
  int dims_;
  int64_t in_, out_, groups_;
  Shape kernel_, stride_, padding_, dilation_;
  bool has_bias_;
  Tensor no_bias_;
};

class Conv1d : public ConvNd {
 public:
  Conv1d(int64_t in_channels, int64_t out_channels, SizeArg kernel_size, SizeArg stride = 1, SizeArg padding = 0,
         SizeArg dilation = 1, int64_t groups = 1, bool bias = true, ScalarType dtype = kFloat32)
      : ConvNd("Conv1d", 1, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, dtype) {}
};

class Conv2d : public ConvNd {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, SizeArg kernel_size, SizeArg stride = 1, SizeArg padding = 0,
         SizeArg dilation = 1, int64_t groups = 1, bool bias = true, ScalarType dtype = kFloat32)
      : ConvNd("Conv2d", 2, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, dtype) {}
};

// A kernel size alone may be a braced list, m({2, 3}): the pooling modules have an
// initializer_list constructor for it (with SizeArg only, the copy constructor would compete).

// MaxPool1d / MaxPool2d: forward gives the values; forward_with_indices also the int64 indices
// (flat positions within each input plane), as return_indices=True does in PyTorch.
class MaxPoolNd : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override { return forward_with_indices(x).first; }
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
  std::string name() const override { return name_; }

 protected:
  MaxPoolNd(const char* name, int dims, SizeArg kernel_size, SizeArg stride, SizeArg padding, SizeArg dilation,
            bool ceil_mode)
      : name_(name),
        dims_(dims),
        kernel_(std::move(kernel_size)),
        stride_(std::move(stride)),
        padding_(std::move(padding)),
        dilation_(std::move(dilation)),
        ceil_mode_(ceil_mode) {}

 private:
  const char* name_;
  int dims_;
  SizeArg kernel_, stride_, padding_, dilation_;
  bool ceil_mode_;
};

class MaxPool1d : public MaxPoolNd {
 public:
  explicit MaxPool1d(SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0, SizeArg dilation = 1,
                     bool ceil_mode = false)
      : MaxPoolNd("MaxPool1d", 1, kernel_size, stride, padding, dilation, ceil_mode) {}
  explicit MaxPool1d(std::initializer_list<int64_t> kernel_size) : MaxPool1d(SizeArg(kernel_size)) {}
};

class MaxPool2d : public MaxPoolNd {
 public:
  explicit MaxPool2d(SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0, SizeArg dilation = 1,
                     bool ceil_mode = false)
      : MaxPoolNd("MaxPool2d", 2, kernel_size, stride, padding, dilation, ceil_mode) {}
  explicit MaxPool2d(std::initializer_list<int64_t> kernel_size) : MaxPool2d(SizeArg(kernel_size)) {}
};

// MaxUnpool1d / 2d / 3d take the values and indices of a max pool, so they have no one-tensor
// forward: m.unpool(x, indices) or m(x, indices, output_size). output_size is the spatial size
// or the full one; empty: (in - 1) * stride + kernel - 2 * padding. Refused in deterministic
// mode (racing writes), as in PyTorch.
class MaxUnpoolNd : public Module {
 public:
  Tensor unpool(const Tensor& x, const Tensor& indices, const Shape& output_size = {}) const;
  Tensor operator()(const Tensor& x, const Tensor& indices, const Shape& output_size = {}) const {
    return unpool(x, indices, output_size);
  }
  std::string name() const override { return name_; }

 protected:
  MaxUnpoolNd(const char* name, int dims, SizeArg kernel_size, SizeArg stride, SizeArg padding)
      : name_(name),
        dims_(dims),
        kernel_(std::move(kernel_size)),
        stride_(std::move(stride)),
        padding_(std::move(padding)) {}

 private:
  const char* name_;
  int dims_;
  SizeArg kernel_, stride_, padding_;
};

class MaxUnpool1d : public MaxUnpoolNd {
 public:
  explicit MaxUnpool1d(SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0)
      : MaxUnpoolNd("MaxUnpool1d", 1, kernel_size, stride, padding) {}
  explicit MaxUnpool1d(std::initializer_list<int64_t> kernel_size) : MaxUnpool1d(SizeArg(kernel_size)) {}
};
class MaxUnpool2d : public MaxUnpoolNd {
 public:
  explicit MaxUnpool2d(SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0)
      : MaxUnpoolNd("MaxUnpool2d", 2, kernel_size, stride, padding) {}
  explicit MaxUnpool2d(std::initializer_list<int64_t> kernel_size) : MaxUnpool2d(SizeArg(kernel_size)) {}
};
class MaxUnpool3d : public MaxUnpoolNd {
 public:
  explicit MaxUnpool3d(SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0)
      : MaxUnpoolNd("MaxUnpool3d", 3, kernel_size, stride, padding) {}
  explicit MaxUnpool3d(std::initializer_list<int64_t> kernel_size) : MaxUnpool3d(SizeArg(kernel_size)) {}
};

class AvgPool2d : public UnaryModule {
 public:
  explicit AvgPool2d(SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0, bool ceil_mode = false,
                     bool count_include_pad = true, std::optional<int64_t> divisor_override = std::nullopt)
      : kernel_(std::move(kernel_size)),
        stride_(std::move(stride)),
        padding_(std::move(padding)),
        ceil_mode_(ceil_mode),
        count_include_pad_(count_include_pad),
        divisor_override_(divisor_override) {}
  explicit AvgPool2d(std::initializer_list<int64_t> kernel_size) : AvgPool2d(SizeArg(kernel_size)) {}
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "AvgPool2d"; }

 private:
  SizeArg kernel_, stride_, padding_;
  bool ceil_mode_, count_include_pad_;
  std::optional<int64_t> divisor_override_;
};

class AvgPool1d : public UnaryModule {
 public:
  explicit AvgPool1d(SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0, bool ceil_mode = false,
                     bool count_include_pad = true)
      : kernel_(std::move(kernel_size)),
        stride_(std::move(stride)),
        padding_(std::move(padding)),
        ceil_mode_(ceil_mode),
        count_include_pad_(count_include_pad) {}
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "AvgPool1d"; }

 private:
  SizeArg kernel_, stride_, padding_;
  bool ceil_mode_, count_include_pad_;
};

class AdaptiveAvgPool1d : public UnaryModule {
 public:
  explicit AdaptiveAvgPool1d(SizeArg output_size) : output_size_(std::move(output_size)) {}
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "AdaptiveAvgPool1d"; }

 private:
  SizeArg output_size_;
};

class AdaptiveAvgPool2d : public UnaryModule {
 public:
  explicit AdaptiveAvgPool2d(SizeArg output_size) : output_size_(std::move(output_size)) {}
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "AdaptiveAvgPool2d"; }

 private:
  SizeArg output_size_;
};

}  // namespace ditto::nn
