#pragma once
// The argument structs of kernels (and of their signatures, ops/signatures.h).
#include <cstdint>

namespace ditto {

// Geometry of a convolution over three spatial dims, depth first: 2-D convolution has depth
// stride and dilation 1 and padding 0 (conv1d runs as conv2d with height 1).
struct ConvArgs {
  int64_t stride[3], padding[3], dilation[3], groups;
};
// Geometry of a pooling window over three spatial dims, depth first: 1-D and 2-D pooling have
// kernel, stride and dilation 1 and padding 0 in the dims they lack. divisor (avg_pool's
// divisor_override) is 0 when unset.
struct PoolArgs {
  int64_t kernel[3], stride[3], padding[3], dilation[3];
  bool ceil_mode, count_include_pad;
  int64_t divisor;
};

// Padding of the last `dims` (1 to 3) dims (cpu/resample.cpp): before[d] positions are added before
// spatial dim d (negative: that many are cropped), value is the constant mode's fill.
enum class PadMode : uint8_t { Constant, Reflect, Replicate, Circular };
struct PadArgs {
  PadMode mode;
  int dims;
  int64_t before[3];
  double value;
};
// Upsampling of the last `dims` dims (cpu/resample.cpp, Note [Upsampling arithmetic]): PyTorch's
// scale_factor per spatial dim, or <= 0 when the scale comes from the sizes.
enum class UpsampleMode : uint8_t { Nearest, NearestExact, Linear, Cubic };
struct UpsampleArgs {
  UpsampleMode mode;
  int dims;
  bool align_corners;
  double scales[3];
};

// grid_sample's interpolation and padding (PyTorch's GridSamplerInterpolation / Padding).
enum class GridMode : uint8_t { Bilinear, Nearest, Bicubic };
enum class GridPadding : uint8_t { Zeros, Border, Reflection };
struct GridSampleArgs {
  GridMode mode;
  GridPadding padding;
  bool align_corners;
};

// scaled_dot_product_attention's fused kernels: the scores are scale * q.k, causal masks key j for
// query i when j > i (the upper-left aligned triangle, PyTorch's is_causal).
struct AttentionArgs {
  double scale;
  bool causal;
};

// Replace is scatter_ without a reduction: the last value along a line wins.
enum class ScatterReduction : uint8_t { Sum, Prod, Mean, Amax, Amin, Replace };

}  // namespace ditto
