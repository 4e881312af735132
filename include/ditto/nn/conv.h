#pragma once
// Convolution and pooling modules, as torch.nn's. The ops behind them are in ditto/nn/functional.h;
// errors from a module carry its name: "[Conv2d] ...".
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ditto/nn/functional.h"
#include "ditto/nn/module.h"

namespace ditto::nn {

// Conv1d / 2d / 3d: weight (out, in / groups, *kernel) and optional bias (out), initialised as
// PyTorch: kaiming_uniform_(weight, a = sqrt(5)), then bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in))
// with fan_in = weight.size(1) * prod(kernel), drawn from the default generator in that order
// (no bias draw when fan_in is 0; the bias is then zero). ConvTranspose1d / 2d / 3d: weight
// (in, out / groups, *kernel), initialised the same way (so fan_in = (out / groups) * prod(kernel)).
class ConvNd : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override;
  // Transposed modules: the output's spatial size (or its full size) instead of output_padding,
  // which it picks by PyTorch's rule (sizes from the default output's up to stride - 1 more).
  Tensor forward(const Tensor& x, const Shape& output_size);
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
  const Shape& output_padding() const { return output_padding_; }
  bool transposed() const { return transposed_; }
  std::string name() const override { return name_; }

 protected:
  ConvNd(const char* name, int dims, int64_t in, int64_t out, const SizeArg& kernel, const SizeArg& stride,
         const SizeArg& padding, const SizeArg& dilation, int64_t groups, bool bias, ScalarType dtype,
         bool transposed = false, const SizeArg& output_padding = 0);

 private:
  const char* name_;
  int dims_;
  int64_t in_, out_, groups_;
  Shape kernel_, stride_, padding_, dilation_, output_padding_;
  bool has_bias_, transposed_;
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

class Conv3d : public ConvNd {
 public:
  Conv3d(int64_t in_channels, int64_t out_channels, SizeArg kernel_size, SizeArg stride = 1, SizeArg padding = 0,
         SizeArg dilation = 1, int64_t groups = 1, bool bias = true, ScalarType dtype = kFloat32)
      : ConvNd("Conv3d", 3, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, dtype) {}
};

// PyTorch's argument order: (in, out, kernel, stride, padding, output_padding, groups, bias, dilation).
class ConvTranspose1d : public ConvNd {
 public:
  ConvTranspose1d(int64_t in_channels, int64_t out_channels, SizeArg kernel_size, SizeArg stride = 1,
                  SizeArg padding = 0, SizeArg output_padding = 0, int64_t groups = 1, bool bias = true,
                  SizeArg dilation = 1, ScalarType dtype = kFloat32)
      : ConvNd("ConvTranspose1d", 1, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
               dtype, true, output_padding) {}
};
class ConvTranspose2d : public ConvNd {
 public:
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, SizeArg kernel_size, SizeArg stride = 1,
                  SizeArg padding = 0, SizeArg output_padding = 0, int64_t groups = 1, bool bias = true,
                  SizeArg dilation = 1, ScalarType dtype = kFloat32)
      : ConvNd("ConvTranspose2d", 2, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
               dtype, true, output_padding) {}
};
class ConvTranspose3d : public ConvNd {
 public:
  ConvTranspose3d(int64_t in_channels, int64_t out_channels, SizeArg kernel_size, SizeArg stride = 1,
                  SizeArg padding = 0, SizeArg output_padding = 0, int64_t groups = 1, bool bias = true,
                  SizeArg dilation = 1, ScalarType dtype = kFloat32)
      : ConvNd("ConvTranspose3d", 3, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
               dtype, true, output_padding) {}
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

class MaxPool3d : public MaxPoolNd {
 public:
  explicit MaxPool3d(SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0, SizeArg dilation = 1,
                     bool ceil_mode = false)
      : MaxPoolNd("MaxPool3d", 3, kernel_size, stride, padding, dilation, ceil_mode) {}
  explicit MaxPool3d(std::initializer_list<int64_t> kernel_size) : MaxPool3d(SizeArg(kernel_size)) {}
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

// AvgPool1d / 2d / 3d (1-D has no divisor_override, as in PyTorch).
class AvgPoolNd : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return name_; }

 protected:
  AvgPoolNd(const char* name, int dims, SizeArg kernel_size, SizeArg stride, SizeArg padding, bool ceil_mode,
            bool count_include_pad, std::optional<int64_t> divisor_override)
      : name_(name),
        dims_(dims),
        kernel_(std::move(kernel_size)),
        stride_(std::move(stride)),
        padding_(std::move(padding)),
        ceil_mode_(ceil_mode),
        count_include_pad_(count_include_pad),
        divisor_override_(divisor_override) {}

 private:
  const char* name_;
  int dims_;
  SizeArg kernel_, stride_, padding_;
  bool ceil_mode_, count_include_pad_;
  std::optional<int64_t> divisor_override_;
};

class AvgPool1d : public AvgPoolNd {
 public:
  explicit AvgPool1d(SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0, bool ceil_mode = false,
                     bool count_include_pad = true)
      : AvgPoolNd("AvgPool1d", 1, kernel_size, stride, padding, ceil_mode, count_include_pad, std::nullopt) {}
};
class AvgPool2d : public AvgPoolNd {
 public:
  explicit AvgPool2d(SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0, bool ceil_mode = false,
                     bool count_include_pad = true, std::optional<int64_t> divisor_override = std::nullopt)
      : AvgPoolNd("AvgPool2d", 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override) {}
  explicit AvgPool2d(std::initializer_list<int64_t> kernel_size) : AvgPool2d(SizeArg(kernel_size)) {}
};
class AvgPool3d : public AvgPoolNd {
 public:
  explicit AvgPool3d(SizeArg kernel_size, SizeArg stride = {}, SizeArg padding = 0, bool ceil_mode = false,
                     bool count_include_pad = true, std::optional<int64_t> divisor_override = std::nullopt)
      : AvgPoolNd("AvgPool3d", 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override) {}
  explicit AvgPool3d(std::initializer_list<int64_t> kernel_size) : AvgPool3d(SizeArg(kernel_size)) {}
};

// AdaptiveAvgPool1d / 2d / 3d and AdaptiveMaxPool1d / 2d / 3d (forward_with_indices also gives the
// indices, as return_indices=True).
class AdaptiveAvgPoolNd : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return name_; }

 protected:
  AdaptiveAvgPoolNd(const char* name, int dims, SizeArg output_size)
      : name_(name), dims_(dims), output_size_(std::move(output_size)) {}

 private:
  const char* name_;
  int dims_;
  SizeArg output_size_;
};
class AdaptiveAvgPool1d : public AdaptiveAvgPoolNd {
 public:
  explicit AdaptiveAvgPool1d(SizeArg output_size) : AdaptiveAvgPoolNd("AdaptiveAvgPool1d", 1, output_size) {}
};
class AdaptiveAvgPool2d : public AdaptiveAvgPoolNd {
 public:
  explicit AdaptiveAvgPool2d(SizeArg output_size) : AdaptiveAvgPoolNd("AdaptiveAvgPool2d", 2, output_size) {}
};
class AdaptiveAvgPool3d : public AdaptiveAvgPoolNd {
 public:
  explicit AdaptiveAvgPool3d(SizeArg output_size) : AdaptiveAvgPoolNd("AdaptiveAvgPool3d", 3, output_size) {}
};

class AdaptiveMaxPoolNd : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override { return forward_with_indices(x).first; }
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
  std::string name() const override { return name_; }

 protected:
  AdaptiveMaxPoolNd(const char* name, int dims, SizeArg output_size)
      : name_(name), dims_(dims), output_size_(std::move(output_size)) {}

 private:
  const char* name_;
  int dims_;
  SizeArg output_size_;
};
class AdaptiveMaxPool1d : public AdaptiveMaxPoolNd {
 public:
  explicit AdaptiveMaxPool1d(SizeArg output_size) : AdaptiveMaxPoolNd("AdaptiveMaxPool1d", 1, output_size) {}
};
class AdaptiveMaxPool2d : public AdaptiveMaxPoolNd {
 public:
  explicit AdaptiveMaxPool2d(SizeArg output_size) : AdaptiveMaxPoolNd("AdaptiveMaxPool2d", 2, output_size) {}
};
class AdaptiveMaxPool3d : public AdaptiveMaxPoolNd {
 public:
  explicit AdaptiveMaxPool3d(SizeArg output_size) : AdaptiveMaxPoolNd("AdaptiveMaxPool3d", 3, output_size) {}
};

// FractionalMaxPool2d / 3d: output_size, or else output_ratio; each forward draws new samples from
// the default generator, as PyTorch's module does (functional.h's fractional_max_pool2d).
class FractionalMaxPoolNd : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override { return forward_with_indices(x).first; }
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
  std::string name() const override { return name_; }

 protected:
  FractionalMaxPoolNd(const char* name, int dims, SizeArg kernel_size, SizeArg output_size,
                      std::vector<double> output_ratio)
      : name_(name),
        dims_(dims),
        kernel_(std::move(kernel_size)),
        output_size_(std::move(output_size)),
        output_ratio_(std::move(output_ratio)) {}

 private:
  const char* name_;
  int dims_;
  SizeArg kernel_, output_size_;
  std::vector<double> output_ratio_;
};
class FractionalMaxPool2d : public FractionalMaxPoolNd {
 public:
  explicit FractionalMaxPool2d(SizeArg kernel_size, SizeArg output_size = {}, std::vector<double> output_ratio = {})
      : FractionalMaxPoolNd("FractionalMaxPool2d", 2, kernel_size, output_size, std::move(output_ratio)) {}
};
class FractionalMaxPool3d : public FractionalMaxPoolNd {
 public:
  explicit FractionalMaxPool3d(SizeArg kernel_size, SizeArg output_size = {}, std::vector<double> output_ratio = {})
      : FractionalMaxPoolNd("FractionalMaxPool3d", 3, kernel_size, output_size, std::move(output_ratio)) {}
};

// LPPool1d / 2d: (sum over the window of x^p)^(1/p), PyTorch's composition (functional.h).
class LPPoolNd : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return name_; }

 protected:
  LPPoolNd(const char* name, int dims, double norm_type, SizeArg kernel_size, SizeArg stride, bool ceil_mode)
      : name_(name),
        dims_(dims),
        norm_type_(norm_type),
        kernel_(std::move(kernel_size)),
        stride_(std::move(stride)),
        ceil_mode_(ceil_mode) {}

 private:
  const char* name_;
  int dims_;
  double norm_type_;
  SizeArg kernel_, stride_;
  bool ceil_mode_;
};
class LPPool1d : public LPPoolNd {
 public:
  LPPool1d(double norm_type, SizeArg kernel_size, SizeArg stride = {}, bool ceil_mode = false)
      : LPPoolNd("LPPool1d", 1, norm_type, kernel_size, stride, ceil_mode) {}
};
class LPPool2d : public LPPoolNd {
 public:
  LPPool2d(double norm_type, SizeArg kernel_size, SizeArg stride = {}, bool ceil_mode = false)
      : LPPoolNd("LPPool2d", 2, norm_type, kernel_size, stride, ceil_mode) {}
};

}  // namespace ditto::nn
