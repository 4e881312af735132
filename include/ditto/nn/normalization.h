#pragma once
// LayerNorm, RMSNorm, BatchNorm1d and BatchNorm2d (torch.nn), with PyTorch's parameters, buffers and
// defaults.
#include <optional>

#include "ditto/nn/functional.h"
#include "ditto/nn/module.h"

namespace ditto::nn {

// Normalises over the trailing dims normalized_shape; weight = 1, bias = 0 when affine.
class LayerNorm : public UnaryModule {
 public:
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true,
                     ScalarType dtype = kFloat32);
  Tensor forward(const Tensor& x) override;
  void reset_parameters();
  Tensor& weight();  // undefined without elementwise_affine
  Tensor& bias();
  const Shape& normalized_shape() const { return shape_; }
  std::string name() const override { return "LayerNorm"; }

 private:
  Shape shape_;
  double eps_;
  bool affine_;
};

// x * rsqrt(mean(x^2 over the trailing dims) + eps) * weight (torch.nn.RMSNorm, PyTorch 2.4);
// eps defaults to the dtype's machine epsilon; weight = 1 when elementwise_affine.
class RMSNorm : public UnaryModule {
 public:
  explicit RMSNorm(Shape normalized_shape, std::optional<double> eps = std::nullopt, bool elementwise_affine = true,
                   ScalarType dtype = kFloat32);
  Tensor forward(const Tensor& x) override;
  Tensor& weight();  // undefined without elementwise_affine
  std::string name() const override { return "RMSNorm"; }

 private:
  Shape shape_;
  std::optional<double> eps_;
  bool affine_;
};

// Shared by BatchNorm1d/2d. Buffers (when track_running_stats): running_mean (zeros),
// running_var (ones), num_batches_tracked (int64 0-dim). momentum = nullopt uses the cumulative
// average 1/num_batches_tracked, as PyTorch's momentum=None.
class BatchNormBase : public UnaryModule {
 public:
  BatchNormBase(int64_t num_features, double eps, std::optional<double> momentum, bool affine, bool track_running_stats,
                ScalarType dtype);
  Tensor forward(const Tensor& x) override;
  void reset_running_stats();
  void reset_parameters();
  Tensor& weight();  // undefined without affine
  Tensor& bias();
  Tensor& running_mean();  // undefined without track_running_stats
  Tensor& running_var();
  Tensor& num_batches_tracked();
  int64_t num_features() const { return num_features_; }

 protected:
  virtual void check_input(const Tensor& x) const = 0;
  double eps() const { return eps_; }
  double momentum() const { return momentum_.value_or(0.1); }
  bool affine() const { return affine_; }
  bool tracks() const { return track_; }

 private:
  int64_t num_features_;
  double eps_;
  std::optional<double> momentum_;
  bool affine_, track_;
};

// Input (N, C) or (N, C, L).
class BatchNorm1d : public BatchNormBase {
 public:
  explicit BatchNorm1d(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
                       bool affine = true, bool track_running_stats = true, ScalarType dtype = kFloat32)
      : BatchNormBase(num_features, eps, momentum, affine, track_running_stats, dtype) {}
  std::string name() const override { return "BatchNorm1d"; }

 protected:
  void check_input(const Tensor& x) const override;
};

// Input (N, C, H, W).
class BatchNorm2d : public BatchNormBase {
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
                       bool affine = true, bool track_running_stats = true, ScalarType dtype = kFloat32)
      : BatchNormBase(num_features, eps, momentum, affine, track_running_stats, dtype) {}
  std::string name() const override { return "BatchNorm2d"; }

 protected:
  void check_input(const Tensor& x) const override;
};

// torch.nn.GroupNorm: input (N, C, *), C divisible by num_groups; weight (ones) and bias
// (zeros) of C when affine.
class GroupNorm : public UnaryModule {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true,
            ScalarType dtype = kFloat32);
  Tensor forward(const Tensor& x) override;
  void reset_parameters();
  Tensor& weight();  // undefined without affine
  Tensor& bias();
  std::string name() const override { return "GroupNorm"; }

 private:
  int64_t groups_, channels_;
  double eps_;
  bool affine_;
};

// torch.nn.InstanceNorm1d/2d: each sample's channel normalised over its own positions. PyTorch's
// defaults: no affine parameters, no running stats (with track_running_stats, eval mode uses
// them, as BatchNorm). The parameters and buffers are BatchNorm's.
class InstanceNormBase : public BatchNormBase {
 public:
  InstanceNormBase(int64_t num_features, double eps, double momentum, bool affine, bool track_running_stats,
                   ScalarType dtype, int64_t unbatched_dim)
      : BatchNormBase(num_features, eps, momentum, affine, track_running_stats, dtype), unbatched_dim_(unbatched_dim) {}
  Tensor forward(const Tensor& x) override;

 private:
  int64_t unbatched_dim_;  // the rank of an input without its batch dim
};

// Input (N, C, L) or unbatched (C, L).
class InstanceNorm1d : public InstanceNormBase {
 public:
  explicit InstanceNorm1d(int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = false,
                          bool track_running_stats = false, ScalarType dtype = kFloat32)
      : InstanceNormBase(num_features, eps, momentum, affine, track_running_stats, dtype, 2) {}
  std::string name() const override { return "InstanceNorm1d"; }

 protected:
  void check_input(const Tensor& x) const override;
};

// Input (N, C, H, W) or unbatched (C, H, W).
class InstanceNorm2d : public InstanceNormBase {
 public:
  explicit InstanceNorm2d(int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = false,
                          bool track_running_stats = false, ScalarType dtype = kFloat32)
      : InstanceNormBase(num_features, eps, momentum, affine, track_running_stats, dtype, 3) {}
  std::string name() const override { return "InstanceNorm2d"; }

 protected:
  void check_input(const Tensor& x) const override;
};

}  // namespace ditto::nn
