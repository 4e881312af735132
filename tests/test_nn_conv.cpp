// Convolution: PyTorch's answers (tests/data/pytorch-nn-conv.json), a naive reference that pins
// the accumulation order bit for bit (Note [Convolution accumulation order], src/cpu/conv.cpp),
// batch and thread invariance, default init, bad input, and gradient-check samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/parallel.h"
#include "cpu/capability.h"
#include "cpu/conv_kernels.h"
#include "ditto/audit.h"
#include "ditto/ditto.h"
#include "expect_error.h"
#include "golden.h"
#include "gradcheck.h"
#include "guards.h"
#include "nn_conv_golden.h"

using namespace ditto;
namespace F = ditto::nn::functional;
namespace audit = ditto::audit;
namespace cg = ditto::testing::conv_golden;
using cg::json;

namespace {

// float32 results may differ from PyTorch's (oneDNN / its own GEMM) by a few roundings of the sum.
constexpr double kConvRtol = 1e-5;

struct ConvArgs {
  Shape stride{1, 1}, padding{0, 0}, dilation{1, 1};
  int64_t groups = 1;
};

Tensor run_conv(int dims, const Tensor& x, const Tensor& w, const Tensor& b, const ConvArgs& a) {
  if (dims == 1) return F::conv1d(x, w, b, a.stride[0], a.padding[0], a.dilation[0], a.groups);
  return F::conv2d(x, w, b, a.stride, a.padding, a.dilation, a.groups);
}

// ---- the naive reference: a direct loop nest, each output one sequential fma chain over
// (c, kh, kw) ascending on the zero-padded input, then + bias.
template <class T>
Tensor naive_conv2d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvArgs& a, bool reversed_k = false) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t O = w.size(0), Cg = w.size(1), kH = w.size(2), kW = w.size(3), G = a.groups, Og = O / G;
  const int64_t oH = (H + 2 * a.padding[0] - a.dilation[0] * (kH - 1) - 1) / a.stride[0] + 1;
  const int64_t oW = (W + 2 * a.padding[1] - a.dilation[1] * (kW - 1) - 1) / a.stride[1] + 1;
  const std::vector<T> xs = to_vector<T>(x.contiguous()), ws = to_vector<T>(w.contiguous());
  const std::vector<T> bs = b.defined() ? to_vector<T>(b.contiguous()) : std::vector<T>();
  std::vector<T> out(static_cast<std::size_t>(N * O * oH * oW));
  const int64_t K = Cg * kH * kW;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oh = 0; oh < oH; ++oh)
        for (int64_t ow = 0; ow < oW; ++ow) {
          const int64_t g = o / Og;
          T acc = 0;
          for (int64_t kk = 0; kk < K; ++kk) {
            const int64_t k = reversed_k ? K - 1 - kk : kk;
            const int64_t c = k / (kH * kW), kh = k / kW % kH, kw = k % kW;
            const int64_t ih = oh * a.stride[0] - a.padding[0] + kh * a.dilation[0];
            const int64_t iw = ow * a.stride[1] - a.padding[1] + kw * a.dilation[1];
            const T v = ih >= 0 && ih < H && iw >= 0 && iw < W ? xs[((n * C + g * Cg + c) * H + ih) * W + iw] : T(0);
            acc = std::fma(ws[((o * Cg + c) * kH + kh) * kW + kw], v, acc);
          }
          out[((n * O + o) * oH + oh) * oW + ow] = b.defined() ? bs[o] + acc : acc;
        }
  return from_vector(out, {N, O, oH, oW});
}

// grad weight: one chain over (n, oh, ow) ascending. grad input: per (kh, kw) a chain over the
// group's o ascending, those added to 0 in (kh, kw) order.
template <class T>
std::pair<Tensor, Tensor> naive_conv2d_grads(const Tensor& x, const Tensor& w, const Tensor& gy, const ConvArgs& a) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t O = w.size(0), Cg = w.size(1), kH = w.size(2), kW = w.size(3), Og = O / a.groups;
  const int64_t oH = gy.size(2), oW = gy.size(3);
  const std::vector<T> xs = to_vector<T>(x.contiguous()), ws = to_vector<T>(w.contiguous()),
                       gs = to_vector<T>(gy.contiguous());
  std::vector<T> gw(static_cast<std::size_t>(O * Cg * kH * kW)), gx(static_cast<std::size_t>(N * C * H * W));
  for (int64_t o = 0; o < O; ++o)
    for (int64_t c = 0; c < Cg; ++c)
      for (int64_t kh = 0; kh < kH; ++kh)
        for (int64_t kw = 0; kw < kW; ++kw) {
          const int64_t ci = o / Og * Cg + c;
          T acc = 0;
          for (int64_t n = 0; n < N; ++n)
            for (int64_t oh = 0; oh < oH; ++oh)
              for (int64_t ow = 0; ow < oW; ++ow) {
                const int64_t ih = oh * a.stride[0] - a.padding[0] + kh * a.dilation[0];
                const int64_t iw = ow * a.stride[1] - a.padding[1] + kw * a.dilation[1];
                const T v = ih >= 0 && ih < H && iw >= 0 && iw < W ? xs[((n * C + ci) * H + ih) * W + iw] : T(0);
                acc = std::fma(gs[((n * O + o) * oH + oh) * oW + ow], v, acc);
              }
          gw[((o * Cg + c) * kH + kh) * kW + kw] = acc;
        }
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ci = 0; ci < C; ++ci)
      for (int64_t ih = 0; ih < H; ++ih)
        for (int64_t iw = 0; iw < W; ++iw) {
          const int64_t g = ci / Cg, c = ci % Cg;
          T acc = 0;
          for (int64_t kh = 0; kh < kH; ++kh)
            for (int64_t kw = 0; kw < kW; ++kw) {
              const int64_t hn = ih + a.padding[0] - kh * a.dilation[0], wn = iw + a.padding[1] - kw * a.dilation[1];
              if (hn < 0 || wn < 0 || hn % a.stride[0] || wn % a.stride[1]) continue;
              const int64_t oh = hn / a.stride[0], ow = wn / a.stride[1];
              if (oh >= oH || ow >= oW) continue;
              T t = 0;
              for (int64_t o = g * Og; o < (g + 1) * Og; ++o)
                t = std::fma(ws[((o * Cg + c) * kH + kh) * kW + kw], gs[((n * O + o) * oH + oh) * oW + ow], t);
              acc = acc + t;
            }
          gx[((n * C + ci) * H + ih) * W + iw] = acc;
        }
  return {from_vector(gx, x.sizes()), from_vector(gw, w.sizes())};
}

// Values of varied magnitudes, so that a different summation order shows in the bits.
Tensor spread(const Shape& s, ScalarType dt) { return (randn(s, dt) * (rand(s, dt) * 6 - 3).exp()).contiguous(); }

struct RefCase {
  Shape x, w;
  ConvArgs a;
  bool bias;
};

std::vector<RefCase> ref_cases() {
  return {
      {{3, 5, 7, 9}, {7, 5, 3, 2}, {{2, 1}, {1, 0}, {1, 2}, 1}, true},
      {{2, 6, 11, 5}, {9, 2, 3, 3}, {{1, 1}, {2, 1}, {2, 2}, 3}, true},
      {{1, 3, 13, 13}, {5, 3, 5, 5}, {{3, 3}, {2, 2}, {1, 1}, 1}, false},
      {{2, 4, 6, 6}, {4, 1, 1, 1}, {{1, 1}, {0, 0}, {1, 1}, 4}, true},  // 1x1, one channel per group
      {{2, 3, 5, 8}, {2, 3, 1, 1}, {{1, 1}, {0, 0}, {1, 1}, 1}, false},
      {{1, 17, 9, 9}, {3, 17, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, true},  // K = 153
      {{2, 3, 1, 13}, {4, 3, 1, 3}, {{1, 2}, {0, 1}, {1, 2}, 1}, true},   // conv1d's form
      {{3, 1, 8, 7}, {16, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, true},   // K = 9 < Og: weight gradient transposed
  };
}

using ditto::testing::expect_error;

// Runs fn at every kernel level this CPU has (the GEMM under conv has one per level).
void for_each_level(const std::function<void(const char*)>& fn) {
  ditto::testing::ConfigGuard reset;
  for (CpuCapability c : {CpuCapability::Scalar, CpuCapability::AVX2, CpuCapability::AVX512}) {
    if (!cpu_supports(c)) continue;
    set_cpu_capability_for_testing(c);
    fn(capability_name(c));
  }
}

}  // namespace

// ------------------------------------------------------------------------------ PyTorch's answers

TEST(NNConvGolden, ForwardAndGradientsMatchPyTorch) {
  const json& cases = cg::section("conv");
  ASSERT_GE(cases.size(), 10u);
  std::size_t same = 0, total = 0;
  for (const json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    SCOPED_TRACE(name);
    const int dims = c.at("dims").get<int>();
    Tensor x = cg::decode(c.at("input")).requires_grad_();
    Tensor w = cg::decode(c.at("weight")).requires_grad_();
    Tensor b = c.at("bias").is_null() ? Tensor() : cg::decode(c.at("bias")).requires_grad_();
    ConvArgs a;
    a.stride = c.at("stride").get<Shape>();
    a.padding = c.at("padding").get<Shape>();
    a.dilation = c.at("dilation").get<Shape>();
    a.groups = c.at("groups").get<int64_t>();
    if (dims == 2)
      for (Shape* v : {&a.stride, &a.padding, &a.dilation})
        if (v->size() == 1) v->push_back((*v)[0]);
    Tensor out = run_conv(dims, x, w, b, a);
    EXPECT_EQ(out.grad_fn_name(), x.dim() == dims + 2 && dims == 2 ? "ConvolutionBackward0" : "SqueezeBackward1");
    const double rtol = x.dtype() == kFloat64 ? 1e-12 : kConvRtol;
    same += cg::expect_close(out, cg::decode(c.at("output")), rtol, "output");
    total += out.numel();
    out.backward(cg::decode(c.at("grad_output")));
    cg::expect_close(x.grad(), cg::decode(c.at("grad_input")), rtol, "grad_input");
    cg::expect_close(w.grad(), cg::decode(c.at("grad_weight")), rtol, "grad_weight");
    if (b.defined()) cg::expect_close(b.grad(), cg::decode(c.at("grad_bias")), rtol, "grad_bias");
  }
  RecordProperty("forward_bits_identical_to_pytorch", std::to_string(same) + "/" + std::to_string(total));
}

// nn.Conv2d / nn.Conv1d default init, bit for bit (spec pytorch-cpu-rng.md §5).
TEST(NNConvGolden, DefaultInitMatchesPyTorch) {
  auto make = [](const std::string& kind, const json& a) -> std::shared_ptr<nn::ConvNd> {
    auto get = [&](const char* k, int64_t d) { return a.contains(k) ? cg::size_arg(a.at(k)) : nn::SizeArg(d); };
    const int64_t in = a.at("in_channels").get<int64_t>(), out = a.at("out_channels").get<int64_t>();
    const int64_t groups = a.value("groups", int64_t{1});
    const bool bias = a.value("bias", true);
    if (kind == "Conv1d")
      return std::make_shared<nn::Conv1d>(in, out, cg::size_arg(a.at("kernel_size")), get("stride", 1),
                                          get("padding", 0), get("dilation", 1), groups, bias);
    return std::make_shared<nn::Conv2d>(in, out, cg::size_arg(a.at("kernel_size")), get("stride", 1), get("padding", 0),
                                        get("dilation", 1), groups, bias);
  };
  const json& cases = cg::section("init");
  ASSERT_GE(cases.size(), 20u);
  for (const json& c : cases) {
    const uint64_t seed = c.at("seed").get<uint64_t>();
    const std::string kind = c.at("module").get<std::string>();
    SCOPED_TRACE(kind + " seed " + std::to_string(seed) + " " + c.at("args").dump());
    manual_seed(seed);
    if (kind == "Conv2d+Conv1d") {  // construction order decides the draws
      nn::Conv2d first(3, 4, 3);
      nn::Conv1d second(2, 3, 2);
      cg::expect_bits(first.weight(), cg::decode(c.at("first_weight")), "first weight");
      cg::expect_bits(first.bias(), cg::decode(c.at("first_bias")), "first bias");
      cg::expect_bits(second.weight(), cg::decode(c.at("weight")), "weight");
      cg::expect_bits(second.bias(), cg::decode(c.at("bias")), "bias");
      continue;
    }
    auto m = make(kind, c.at("args"));
    cg::expect_bits(m->weight(), cg::decode(c.at("weight")), "weight");
    if (c.at("bias").is_null()) {
      EXPECT_FALSE(m->bias().defined());
      EXPECT_EQ(m->parameters().size(), 1u);
    } else {
      cg::expect_bits(m->bias(), cg::decode(c.at("bias")), "bias");
    }
  }
  // The entries of the RNG golden file, too.
  int checked = 0;
  for (const auto& [seed, entries] : ditto::testing::golden_section("pytorch-rng.json", "main").items()) {
    const json& e = entries.at("conv2d_3_8_3");
    manual_seed(std::stoull(seed));
    nn::Conv2d m(3, 8, 3);
    std::vector<uint64_t> want_w, want_b;
    for (const auto& h : e.at("weight")) want_w.push_back(std::stoull(h.get<std::string>(), nullptr, 16));
    for (const auto& h : e.at("bias")) want_b.push_back(std::stoull(h.get<std::string>(), nullptr, 16));
    EXPECT_EQ(cg::bits(m.weight()), want_w) << "seed " << seed;
    EXPECT_EQ(cg::bits(m.bias()), want_b) << "seed " << seed;
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

// ------------------------------------------------------------------- the naive reference, bitwise

TEST(NNConvReference, ForwardMatchesNaiveLoopBitForBit) {
  for_each_level([](const char* level) {
    for (ScalarType dt : {kFloat32, kFloat64}) {
      int k = 0;
      for (const RefCase& rc : ref_cases()) {
        SCOPED_TRACE(std::string(level) + " " + dtype_name(dt) + " case " + std::to_string(k++));
        manual_seed(100 + k);
        const Tensor x = spread(rc.x, dt), w = spread(rc.w, dt), b = rc.bias ? spread({rc.w[0]}, dt) : Tensor();
        const Tensor got = F::conv2d(x, w, b, rc.a.stride, rc.a.padding, rc.a.dilation, rc.a.groups);
        const Tensor want = dt == kFloat32 ? naive_conv2d<float>(x, w, b, rc.a) : naive_conv2d<double>(x, w, b, rc.a);
        cg::expect_bits(got, want, "conv2d vs naive");
      }
    }
  });
  // The comparison can fail: summing k in reverse order gives other bits somewhere.
  manual_seed(7);
  const RefCase rc = ref_cases()[5];
  const Tensor x = spread(rc.x, kFloat32), w = spread(rc.w, kFloat32);
  const Tensor got = F::conv2d(x, w, Tensor(), rc.a.stride, rc.a.padding);
  EXPECT_FALSE(equal(got, naive_conv2d<float>(x, w, Tensor(), rc.a, /*reversed_k=*/true)));
  EXPECT_TRUE(equal(got, naive_conv2d<float>(x, w, Tensor(), rc.a)));
}

TEST(NNConvReference, Conv1dIsConv2dWithHeightOne) {
  manual_seed(3);
  const Tensor x = spread({2, 3, 13}, kFloat32), w = spread({4, 3, 3}, kFloat32), b = spread({4}, kFloat32);
  const Tensor got = F::conv1d(x, w, b, 2, 1, 2);
  ConvArgs a{{1, 2}, {0, 1}, {1, 2}, 1};
  cg::expect_bits(got, naive_conv2d<float>(x.unsqueeze(2), w.unsqueeze(2), b, a).squeeze(2), "conv1d vs naive");
}

TEST(NNConvReference, GradientsMatchNaiveLoopsBitForBit) {
  for_each_level([](const char* level) {
    int k = 0;
    for (const RefCase& rc : ref_cases()) {
      SCOPED_TRACE(std::string(level) + " case " + std::to_string(k++));
      manual_seed(200 + k);
      Tensor x = spread(rc.x, kFloat32).requires_grad_(), w = spread(rc.w, kFloat32).requires_grad_();
      Tensor b = rc.bias ? spread({rc.w[0]}, kFloat32).requires_grad_() : Tensor();
      Tensor out = F::conv2d(x, w, b, rc.a.stride, rc.a.padding, rc.a.dilation, rc.a.groups);
      const Tensor gy = spread(out.sizes(), kFloat32);
      out.backward(gy);
      auto [gx, gw] = naive_conv2d_grads<float>(x.detach(), w.detach(), gy, rc.a);
      cg::expect_bits(x.grad(), gx, "grad_input vs naive");
      cg::expect_bits(w.grad(), gw, "grad_weight vs naive");
      if (b.defined()) cg::expect_bits(b.grad(), gy.sum({0, 2, 3}), "grad_bias vs canonical sum");
    }
  });
}

namespace {
// Each case at every level, float32 and float64: forward and both gradients against the naive
// loops, bit for bit (the seed of case k is seed + k + 1).
void expect_cases_match_naive(const std::vector<RefCase>& cases, uint64_t seed, const std::string& label) {
  for_each_level([&](const char* level) {
    int k = 0;
    for (const RefCase& rc : cases) {
      SCOPED_TRACE(std::string(level) + " " + label + std::to_string(k++));
      for (ScalarType dt : {kFloat32, kFloat64}) {
        manual_seed(seed + static_cast<uint64_t>(k));
        Tensor x = spread(rc.x, dt).requires_grad_(), w = spread(rc.w, dt).requires_grad_();
        Tensor b = rc.bias ? spread({rc.w[0]}, dt) : Tensor();
        Tensor out = F::conv2d(x, w, b, rc.a.stride, rc.a.padding, rc.a.dilation, rc.a.groups);
        const Tensor gy = spread(out.sizes(), dt);
        out.backward(gy);
        if (dt == kFloat32) {
          cg::expect_bits(out, naive_conv2d<float>(x.detach(), w.detach(), b, rc.a), "forward vs naive");
          auto [gx, gw] = naive_conv2d_grads<float>(x.detach(), w.detach(), gy, rc.a);
          cg::expect_bits(x.grad(), gx, "grad_input vs naive");
          cg::expect_bits(w.grad(), gw, "grad_weight vs naive");
        } else {
          cg::expect_bits(out, naive_conv2d<double>(x.detach(), w.detach(), b, rc.a), "forward vs naive");
          auto [gx, gw] = naive_conv2d_grads<double>(x.detach(), w.detach(), gy, rc.a);
          cg::expect_bits(x.grad(), gx, "grad_input vs naive");
          cg::expect_bits(w.grad(), gw, "grad_weight vs naive");
        }
      }
    }
  });
}
}  // namespace

// The direct tiles (Note [Direct convolution], cpu/conv.cpp) on shapes that reach every case of
// them: rows wider than a vector and not a multiple of it, output channels not a multiple of a
// forward tile's 8 (and more than 16, 32, 48: weight tiles of 1 to 4 vectors), input channels in
// several blocks, positions spanning rows (oW == W) or not, strides 1 to 3 (phases), dilation,
// groups, a 1x1 and a 5x5, padding wider than the kernel's reach on one side, rows so short that
// one vector's outputs are several runs (stored lane range by lane range).
TEST(NNConvReference, DirectTilesMatchNaiveLoopsBitForBit) {
  const std::vector<RefCase> cases = {
      {{2, 7, 9, 37}, {21, 7, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, true},     // spanning rows, 21 channels
      {{2, 13, 11, 19}, {35, 13, 3, 3}, {{1, 1}, {0, 0}, {1, 1}, 1}, true},  // valid: per-row vectors
      {{1, 6, 12, 40}, {50, 3, 5, 5}, {{1, 1}, {2, 2}, {1, 1}, 2}, false},   // groups, 5x5
      {{2, 5, 23, 29}, {9, 5, 3, 3}, {{2, 3}, {1, 2}, {1, 1}, 1}, true},     // strides 2 and 3
      {{1, 4, 17, 33}, {17, 4, 3, 3}, {{1, 1}, {2, 2}, {2, 2}, 1}, true},    // dilation 2
      {{3, 40, 7, 19}, {64, 40, 1, 1}, {{1, 1}, {0, 0}, {1, 1}, 1}, false},  // 1x1, 64 out
      {{2, 3, 30, 30}, {16, 3, 7, 7}, {{2, 2}, {3, 3}, {1, 1}, 1}, true},    // a first layer
      {{1, 2, 6, 6}, {3, 2, 2, 2}, {{1, 1}, {3, 0}, {1, 1}, 1}, true},       // padding past the kernel
      {{2, 2, 5, 2}, {3, 2, 1, 2}, {{1, 4}, {0, 1}, {1, 3}, 1}, true},       // stride past the row: a phase all padding
      {{2, 3, 6, 4}, {10, 3, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, true},  // rows of 5: a vector's outputs in 2-4 runs
      {{1, 2, 7, 75}, {5, 2, 3, 3}, {{2, 3}, {1, 2}, {1, 1}, 1}, true},  // phases of 25 columns: whole vectors gathered
      {{2, 3, 4, 9}, {5, 3, 2, 3}, {{3, 2}, {2, 1}, {1, 1}, 1}, true},   // row phases, a row past the padded input
      {{2, 16, 14, 14}, {24, 16, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, 1}, false},  // to 7x7: vectors across output rows
  };
  expect_cases_match_naive(cases, 300, "direct case ");
}

// Small planes with 64 output channels or more skip the direct tiles: the forward where they would
// waste a quarter of their lanes, the weight gradient below 128 positions a sample; so does the
// input gradient of planes under 128 positions with 64 input channels or more. The GEMM takes
// them, several samples side by side, with the same bits: its panels gathered from padded copies
// (or, unpadded at stride 1, from the input in place) where im2col wrote col before; col2im for
// the input gradient.
TEST(NNConvReference, SmallPlanesThroughTheGemmMatchNaiveLoopsBitForBit) {
  const std::vector<RefCase> cases = {
      {{3, 8, 7, 7}, {64, 8, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, true},       // 7x7, stride 1
      {{3, 8, 14, 14}, {72, 8, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, 1}, true},     // 14x14 to 7x7
      {{2, 16, 14, 13}, {64, 16, 1, 1}, {{2, 2}, {0, 0}, {1, 1}, 1}, false},  // 1x1, stride 2
      {{5, 4, 9, 5}, {128, 2, 3, 2}, {{1, 1}, {1, 0}, {1, 1}, 2}, true},      // groups
      {{2, 64, 5, 5}, {8, 64, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, false},     // the input gradient of 64 channels
      {{3, 16, 7, 6}, {64, 16, 1, 1}, {{1, 1}, {0, 0}, {1, 1}, 1}, true},     // 1x1: col read in place
      {{3, 8, 8, 7}, {128, 4, 3, 3}, {{1, 1}, {0, 0}, {1, 1}, 2}, false},     // in place, groups
      {{2, 8, 9, 9}, {64, 8, 3, 3}, {{1, 1}, {2, 2}, {2, 2}, 1}, false},      // dilation 2
  };
  expect_cases_match_naive(cases, 500, "small case ");
}

// Both input-gradient tile shapes (cpu/conv_kernels.h's kInputVectors: each convolution takes
// the one that computes less), forced in turn at every level, against the naive loops: spanning
// rows and per-row vectors, channel counts that leave empty rows in one shape or the other,
// groups, dilation, rows so short that a vector spans several.
TEST(NNConvReference, BothInputTileShapesMatchNaiveLoopsBitForBit) {
  struct Chosen {
    ~Chosen() { cpu::conv_kernels::force_input_tile_for_testing(-1); }
  } chosen;
  const std::vector<RefCase> cases = {
      {{2, 7, 9, 37}, {21, 7, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, false},     // spanning rows
      {{2, 13, 11, 19}, {35, 13, 3, 3}, {{1, 1}, {0, 0}, {1, 1}, 1}, false},  // valid: per-row vectors
      {{1, 10, 12, 40}, {8, 5, 5, 5}, {{1, 1}, {2, 2}, {1, 1}, 2}, false},    // groups, 5x5
      {{1, 16, 17, 33}, {17, 16, 3, 3}, {{1, 1}, {2, 2}, {2, 2}, 1}, false},  // 16 channels, dilation 2
      {{2, 3, 6, 4}, {10, 3, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, false},      // rows of 4
  };
  for_each_level([&](const char* level) {
    for (int shape : {0, 1}) {
      cpu::conv_kernels::force_input_tile_for_testing(shape);
      int k = 0;
      for (const RefCase& rc : cases) {
        SCOPED_TRACE(std::string(level) + " tile shape " + std::to_string(shape) + " case " + std::to_string(k++));
        for (ScalarType dt : {kFloat32, kFloat64}) {
          manual_seed(500 + k);
          const Tensor x = spread(rc.x, dt), w = spread(rc.w, dt);
          const Tensor gy =
              spread(F::conv2d(x, w, Tensor(), rc.a.stride, rc.a.padding, rc.a.dilation, rc.a.groups).sizes(), dt);
          const Tensor gx =
              F::conv2d_backward_input(gy, w, rc.x, rc.a.stride, rc.a.padding, rc.a.dilation, rc.a.groups);
          if (dt == kFloat32)
            cg::expect_bits(gx, naive_conv2d_grads<float>(x, w, gy, rc.a).first, "grad_input vs naive");
          else
            cg::expect_bits(gx, naive_conv2d_grads<double>(x, w, gy, rc.a).first, "grad_input vs naive");
        }
      }
    }
  });
}

// Where output rows are input rows (stride 1, oW = W) the forward can read the input itself, its
// padded taps masked to +0 (cpu/conv.cpp's lane masks), and the first and last sample from a
// guarded copy (AVX-512 on AMD does with padding, every level without: the test forces it at every
// level, the 1x1 case without masks); forced to read the padded copy instead, it must give the same
// bits, both equal to the naive loops'. The last column of every row holds an infinity:
// a padded tap that read its neighbour across the row instead of a zero would make the output infinite or NaN, not
// finite. Batches of 1 (one job: the guarded copy, split over 3 threads by channels) and 3 (a middle sample read in
// place, its masked taps in the neighbouring samples); planes so small that a masked tap reaches two samples away
// (ASan's run checks that no read leaves the input). The input gradient's runs read the output gradient in place the
// same way.
TEST(NNConvReference, ReadingInPlaceGivesThePaddedCopysBits) {
  struct Padded {
    ~Padded() { cpu::conv_kernels::force_forward_in_place_for_testing(-1); }
  } padded;
  const std::vector<RefCase> cases = {
      {{3, 7, 9, 37}, {21, 7, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, true},    // 3x3 "same"
      {{1, 6, 12, 40}, {50, 3, 5, 5}, {{1, 1}, {2, 2}, {1, 1}, 2}, false},  // groups, 5x5
      {{3, 4, 17, 33}, {17, 4, 3, 3}, {{1, 1}, {2, 2}, {2, 2}, 1}, true},   // dilation 2
      {{1, 5, 11, 19}, {9, 5, 3, 3}, {{1, 1}, {0, 1}, {1, 1}, 1}, true},    // no row padding: oH = H - 2
      {{3, 40, 7, 9}, {20, 40, 1, 1}, {{1, 1}, {0, 0}, {1, 1}, 1}, false},  // 1x1
      {{3, 3, 6, 3}, {10, 3, 7, 3}, {{1, 1}, {3, 1}, {1, 1}, 1}, true},     // rows of 3: a vector spans rows
      {{5, 1, 2, 2}, {3, 1, 5, 5}, {{1, 1}, {2, 2}, {1, 1}, 1}, true},      // planes of 4: a masked tap 2 samples away
      {{2, 4, 16, 16}, {16, 4, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, true},   // planes of 1 or 2 KiB: grad_output copied
  };
  ditto::testing::ConfigGuard reset;
  for (int threads : {1, 3}) {
    set_num_threads(threads);
    for_each_level([&](const char* level) {
      int k = 0;
      for (const RefCase& rc : cases) {
        SCOPED_TRACE(std::string(level) + " threads " + std::to_string(threads) + " case " + std::to_string(k++));
        for (ScalarType dt : {kFloat32, kFloat64}) {
          manual_seed(700 + k);
          Tensor x = spread(rc.x, dt);
          const int64_t W = rc.x[3];
          for (int64_t r = 0; r < x.numel() / W; ++r)
            x.view({-1}).narrow(0, r * W + W - 1, 1).fill_(r % 2 ? INFINITY : -INFINITY);
          const Tensor w = spread(rc.w, dt), b = rc.bias ? spread({rc.w[0]}, dt) : Tensor();
          Tensor out[2];
          for (bool force : {false, true}) {
            cpu::conv_kernels::force_forward_in_place_for_testing(force ? 0 : 1);
            out[force] = F::conv2d(x, w, b, rc.a.stride, rc.a.padding, rc.a.dilation, rc.a.groups);
          }
          Tensor want = dt == kFloat32 ? naive_conv2d<float>(x, w, b, rc.a) : naive_conv2d<double>(x, w, b, rc.a);
          want = want.masked_fill(want.ne(want), std::numeric_limits<double>::quiet_NaN());  // NaN canonical
          cg::expect_bits(out[0], want, "in place vs naive");
          cg::expect_bits(out[1], want, "padded copy vs naive");
          // the infinities reach some outputs, and the rows' first columns stay finite
          const std::vector<double> all = cg::values(want), col0 = cg::values(want.narrow(3, 0, 1));
          EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](double v) { return !std::isfinite(v); }));
          if (rc.a.padding[1] < W - 1) {  // else the first column's taps reach the last
            EXPECT_TRUE(std::all_of(col0.begin(), col0.end(), [](double v) { return std::isfinite(v); }));
          }
          // The input gradient reads the output gradient in place too (its spanning runs), lanes
          // without an output position dropped whatever they read: infinities at the rows' ends.
          Tensor gy = spread(want.sizes(), dt);
          for (int64_t r = 0; r < gy.numel() / W; ++r)
            gy.view({-1}).narrow(0, r * W + W - 1, 1).fill_(r % 2 ? INFINITY : -INFINITY);
          const Tensor gx =
              F::conv2d_backward_input(gy, w, rc.x, rc.a.stride, rc.a.padding, rc.a.dilation, rc.a.groups);
          Tensor want_gx = dt == kFloat32 ? naive_conv2d_grads<float>(x, w, gy, rc.a).first
                                          : naive_conv2d_grads<double>(x, w, gy, rc.a).first;
          want_gx = want_gx.masked_fill(want_gx.ne(want_gx), std::numeric_limits<double>::quiet_NaN());
          cg::expect_bits(gx, want_gx, "grad_input vs naive");
        }
      }
    });
  }
}

// The weight gradient walks the positions in chunks of about 64 KiB of gradients, each thread
// over its own range of tiles, the chains carried from chunk to chunk and sample to sample: shapes
// with several chunks per sample (padded, and in place: unpadded, stride 1), at 1 to 3 threads.
TEST(NNConvReference, WeightGradientAcrossChunksAndThreadsMatchesNaiveLoops) {
  const std::vector<RefCase> cases = {
      {{3, 4, 40, 41}, {20, 4, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, false},  // 1640 positions, padded
      {{2, 5, 30, 30}, {40, 5, 3, 3}, {{1, 1}, {0, 0}, {1, 1}, 1}, false},  // 784 positions, in place
  };
  for (int threads : {1, 2, 3}) {
    for_each_level([&](const char* level) {
      set_num_threads(threads);
      int k = 0;
      for (const RefCase& rc : cases) {
        SCOPED_TRACE(std::string(level) + " threads " + std::to_string(threads) + " case " + std::to_string(k++));
        manual_seed(400 + k);
        const Tensor x = spread(rc.x, kFloat32), w = spread(rc.w, kFloat32);
        const Tensor gy = spread(F::conv2d(x, w, Tensor(), rc.a.stride, rc.a.padding).sizes(), kFloat32);
        const Tensor gw = F::conv2d_backward_weight(gy, x, rc.w, rc.a.stride, rc.a.padding, rc.a.dilation, rc.a.groups);
        cg::expect_bits(gw, naive_conv2d_grads<float>(x, w, gy, rc.a).second, "grad_weight vs naive");
      }
    });
  }
}

// Random small shapes (strides, paddings and dilations up to past the row, groups, empty phases)
// against the naive loops at the detected level: the direct tiles' edge cases, and ASan's run of
// this test checks that no tile reads outside its buffers.
TEST(NNConvReference, RandomShapesMatchNaiveLoopsBitForBit) {
  std::mt19937_64 rng(20261205);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int checked = 0;
  for (int trial = 0; trial < 200 && checked < 60; ++trial) {
    const int64_t groups = pick(1, 2), cg = pick(1, 4), og = pick(1, 12);
    const Shape xs{pick(1, 2), groups * cg, pick(1, 12), pick(1, 21)}, ws{groups * og, cg, pick(1, 4), pick(1, 4)};
    const RefCase rc{xs,
                     ws,
                     {{pick(1, 3), pick(1, 5)}, {pick(0, 3), pick(0, 4)}, {pick(1, 3), pick(1, 3)}, groups},
                     pick(0, 1) == 1};
    bool valid = true;
    for (int i = 0; i < 2; ++i)
      valid = valid && xs[2 + i] + 2 * rc.a.padding[i] - rc.a.dilation[i] * (ws[2 + i] - 1) - 1 >= 0;
    if (!valid) continue;
    ++checked;
    SCOPED_TRACE("trial " + std::to_string(trial));
    manual_seed(trial);
    Tensor x = spread(rc.x, kFloat32).requires_grad_(), w = spread(rc.w, kFloat32).requires_grad_();
    Tensor b = rc.bias ? spread({rc.w[0]}, kFloat32) : Tensor();
    Tensor out = F::conv2d(x, w, b, rc.a.stride, rc.a.padding, rc.a.dilation, rc.a.groups);
    const Tensor gy = spread(out.sizes(), kFloat32);
    out.backward(gy);
    cg::expect_bits(out, naive_conv2d<float>(x.detach(), w.detach(), b, rc.a), "forward vs naive");
    auto [gx, gw] = naive_conv2d_grads<float>(x.detach(), w.detach(), gy, rc.a);
    cg::expect_bits(x.grad(), gx, "grad_input vs naive");
    cg::expect_bits(w.grad(), gw, "grad_weight vs naive");
  }
  EXPECT_GE(checked, 40);
}

// Lanes whose tap lies in the padding are computed from stored zeros (forward, grad weight: a
// padded tap is fma(w, 0, acc), im2col's zero) or dropped (grad input: a tap with no output
// position adds nothing). An infinite weight shows the difference: inf * 0 is NaN. Every NaN
// result is the canonical quiet NaN, a NaN bias included.
TEST(NNConvReference, InfiniteWeightsAndNaNsFollowTheNote) {
  const RefCase rc{{2, 3, 9, 21}, {10, 3, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, true};
  auto canonical = [](const Tensor& t) { return t.masked_fill(t.ne(t), std::numeric_limits<float>::quiet_NaN()); };
  for_each_level([&](const char* level) {
    SCOPED_TRACE(level);
    manual_seed(9);
    Tensor w0 = spread(rc.w, kFloat32);
    w0.index_put_({tensor(std::vector<int64_t>{4}), tensor(std::vector<int64_t>{1})}, scalar_tensor(INFINITY));
    Tensor x = spread(rc.x, kFloat32).requires_grad_(), w = w0.clone().requires_grad_();
    Tensor b = spread({10}, kFloat32);
    // a NaN bias with a payload comes out canonical
    b.index_put_({tensor(std::vector<int64_t>{7})}, scalar_tensor(std::bit_cast<float>(0x7fc12345u)));
    Tensor out = F::conv2d(x, w, b, rc.a.stride, rc.a.padding, rc.a.dilation, rc.a.groups);
    const Tensor gy = spread(out.sizes(), kFloat32);
    out.backward(gy);
    const Tensor want = canonical(naive_conv2d<float>(x.detach(), w.detach(), b, rc.a));
    EXPECT_GT(want.ne(want).sum().item<int64_t>(), 0);  // the padded taps of channel 4 are NaN
    cg::expect_bits(out, want, "forward vs naive");
    auto [gx, gw] = naive_conv2d_grads<float>(x.detach(), w.detach(), gy, rc.a);
    cg::expect_bits(x.grad(), canonical(gx), "grad_input vs naive");
    // the infinite weight makes grad input infinite or NaN where its tap reaches, but no padded
    // read leaks in: most of grad input stays finite
    EXPECT_LT(gx.ne(gx).sum().item<int64_t>(), gx.numel() / 2);
    cg::expect_bits(w.grad(), canonical(gw), "grad_weight vs naive");
  });
}

// ------------------------------------------------------------------------------ invariance

TEST(NNConvInvariance, SampleIsTheSameAloneOrInAnyBatch) {
  for (int64_t groups : {1, 2}) {
    SCOPED_TRACE("groups " + std::to_string(groups));
    manual_seed(11);
    const Tensor xs = spread({8, 4, 12, 12}, kFloat32), w = spread({6, 4 / groups, 3, 3}, kFloat32),
                 b = spread({6}, kFloat32);
    auto conv = [&](const Tensor& x) { return F::conv2d(x, w, b, 1, 1, 1, groups); };
    const Tensor full = conv(xs);
    for (int64_t i = 0; i < 8; ++i) {
      EXPECT_TRUE(equal(conv(xs.narrow(0, i, 1)), full.narrow(0, i, 1))) << "sample " << i << " alone";
      EXPECT_TRUE(equal(conv(xs[i]), full[i])) << "sample " << i << " unbatched";
    }
    for (int64_t start : {0, 2, 5}) {
      EXPECT_TRUE(equal(conv(xs.narrow(0, start, 3)), full.narrow(0, start, 3))) << "batch of 3 at " << start;
    }
    // a sample inside a different batch of 8 (other samples around it)
    Tensor other = spread({8, 4, 12, 12}, kFloat32);
    other.narrow(0, 6, 1).copy_(xs.narrow(0, 1, 1));
    EXPECT_TRUE(equal(conv(other).narrow(0, 6, 1), full.narrow(0, 1, 1)));
  }
}

TEST(NNConvInvariance, ForwardAndGradientsIndependentOfThreadCountAndKernelLevel) {
  ditto::testing::ConfigGuard keep;
  struct Shp {
    Shape x, w;
    int64_t groups;
    bool side_by_side;  // large enough for the two gradients to run side by side at two threads
  };
  // (N * groups) >= threads: split over (n, group) blocks; N = 1: the GEMM splits its blocks.
  for (const Shp& s : {Shp{{4, 6, 20, 20}, {8, 3, 3, 3}, 2, false}, Shp{{1, 8, 40, 40}, {32, 8, 3, 3}, 1, true}}) {
    manual_seed(21);
    const Tensor x0 = spread(s.x, kFloat32), w0 = spread(s.w, kFloat32), b0 = spread({s.w[0]}, kFloat32);
    std::vector<Tensor> ref;
    for_each_level([&](const char* level) {
      for (int t : {1, 2, 3, 8}) {
        SCOPED_TRACE(std::string(level) + ", " + std::to_string(t) + " threads");
        set_num_threads(t);
        Tensor x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_(), b = b0.clone().requires_grad_();
        Tensor out = F::conv2d(x, w, b, 1, 1, 1, s.groups);
        const uint64_t before = ditto::detail::side_by_side_count();
        (out * out).sum().backward();
        // Note [Convolution gradients side by side]: taken at two threads only, and then no bit changes
        EXPECT_EQ(ditto::detail::side_by_side_count() - before, s.side_by_side && t == 2 ? 1u : 0u);
        const std::vector<Tensor> r{out.detach(), x.grad(), w.grad(), b.grad()};
        if (ref.empty()) {
          ref = r;
          continue;
        }
        for (std::size_t i = 0; i < r.size(); ++i) EXPECT_TRUE(equal(r[i], ref[i])) << "result " << i;
      }
    });
  }
}

TEST(NNConvInvariance, TransposedGradientsSideBySideAtTwoThreadsWithTheSameBits) {
  ditto::testing::ConfigGuard keep;
  manual_seed(23);
  const Tensor x0 = spread({4, 16, 16, 16}, kFloat32), w0 = spread({16, 8, 4, 4}, kFloat32);
  std::vector<Tensor> ref;
  for (int t : {1, 2, 3}) {
    SCOPED_TRACE(std::to_string(t) + " threads");
    set_num_threads(t);
    Tensor x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_();
    Tensor out = F::conv_transpose2d(x, w, Tensor(), 2, 1);
    const uint64_t before = ditto::detail::side_by_side_count();
    out.backward(out.detach());
    EXPECT_EQ(ditto::detail::side_by_side_count() - before, t == 2 ? 1u : 0u);
    if (ref.empty()) {
      ref = {x.grad(), w.grad()};
      continue;
    }
    EXPECT_TRUE(equal(x.grad(), ref[0]));
    EXPECT_TRUE(equal(w.grad(), ref[1]));
  }
}

TEST(NNConvInvariance, GradientsRunInOrderWhileAuditRecords) {
  // ditto::audit's log keeps the ops' order, so its records are the same at every thread count
  ditto::testing::ConfigGuard keep;
  manual_seed(22);
  const Tensor x0 = spread({2, 8, 32, 32}, kFloat32), w0 = spread({16, 8, 3, 3}, kFloat32);
  std::vector<std::string> names[2];
  std::vector<Tensor> grads[2];
  for (int t : {1, 2}) {
    set_num_threads(t);
    Tensor x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_();
    Tensor out = F::conv2d(x, w, Tensor(), 1, 1);
    const std::string path = ::testing::TempDir() + "ditto_conv_audit.log";
    const uint64_t before = ditto::detail::side_by_side_count();
    audit::start(path);
    out.backward(out.detach());
    audit::stop();
    EXPECT_EQ(ditto::detail::side_by_side_count(), before);
    for (const audit::Record& r : audit::read_log(path).records)
      if (r.kind == audit::Record::Op) names[t - 1].push_back(r.op);
    grads[t - 1] = {x.grad(), w.grad()};
  }
  EXPECT_EQ(names[1], names[0]);
  EXPECT_EQ(names[0], (std::vector<std::string>{"conv2d_backward_input", "conv2d_backward_weight"}));
  for (int i = 0; i < 2; ++i)
    EXPECT_TRUE(equal(grads[1][static_cast<std::size_t>(i)], grads[0][static_cast<std::size_t>(i)]));
}

TEST(NNConvInvariance, RunsInDeterministicModeWithTheSameBits) {
  manual_seed(5);
  const Tensor x = spread({2, 3, 9, 9}, kFloat32), w = spread({4, 3, 3, 3}, kFloat32);
  const Tensor free_run = F::conv2d(x, w, Tensor(), 2, 1);
  DeterministicGuard g(true);
  EXPECT_TRUE(equal(F::conv2d(x, w, Tensor(), 2, 1), free_run));
  Tensor xr = x.clone().requires_grad_();
  F::conv2d(xr, w, Tensor(), 2, 1).sum().backward();  // backward kernels are deterministic too
  EXPECT_TRUE(xr.grad().defined());
}

// ------------------------------------------------------------------------------ modules

TEST(NNConvModule, Conv2dParametersForwardAndErrors) {
  manual_seed(0);
  nn::Conv2d m(3, 8, {3, 2}, 2, 1);
  EXPECT_EQ(m.name(), "Conv2d");
  EXPECT_EQ(m.weight().sizes(), (Shape{8, 3, 3, 2}));
  EXPECT_EQ(m.bias().sizes(), (Shape{8}));
  const auto named = m.named_parameters();
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].first, "weight");
  EXPECT_EQ(named[1].first, "bias");
  const Tensor x = randn({2, 3, 7, 6});
  const Tensor y = m(x);
  EXPECT_EQ(y.sizes(), (Shape{2, 8, 4, 4}));
  EXPECT_TRUE(equal(y, F::conv2d(x, m.weight(), m.bias(), 2, 1)));
  EXPECT_EQ(m(x[0]).sizes(), (Shape{8, 4, 4}));  // unbatched
  y.sum().backward();
  EXPECT_EQ(m.weight().grad().sizes(), m.weight().sizes());

  expect_error([&] { m(randn({3, 7})); }, "[Conv2d]", "expected 3D (unbatched) or 4D (batched) input, got 2D");
  try {
    m(randn({3, 7}));
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "[Conv2d] expected 3D (unbatched) or 4D (batched) input, got 2D");
  }
  expect_error([&] { m(randn({2, 4, 7, 6})); }, "[Conv2d]", "expected input with 3 channels");
  expect_error(
      [] {
        nn::Conv2d(3, 8, 3)(randn({1, 3, 2, 2}));
      },
      "[Conv2d]", "can't be greater than the padded input size");
  expect_error([] { nn::Conv2d(3, 8, 3, 1, 0, 1, 2); }, "[Conv2d]", "in_channels (3) must be divisible by groups");
  expect_error([] { nn::Conv2d(4, 6, 3, 1, 0, 1, 4); }, "[Conv2d]", "out_channels (6) must be divisible by groups");
  expect_error([] { nn::Conv2d(4, 6, 3, 0); }, "[Conv2d]", "stride");
  expect_error([] { nn::Conv2d(4, 6, {3, 3, 3}); }, "[Conv2d]", "kernel_size");

  nn::Conv2d nb(2, 3, 1, 1, 0, 1, 1, /*bias=*/false);
  EXPECT_FALSE(nb.bias().defined());
  EXPECT_EQ(nb.parameters().size(), 1u);
}

TEST(NNConvModule, Conv1d) {
  manual_seed(1);
  nn::Conv1d m(4, 6, 3, 1, 2, 2, 2);
  EXPECT_EQ(m.name(), "Conv1d");
  EXPECT_EQ(m.weight().sizes(), (Shape{6, 2, 3}));
  const Tensor x = randn({3, 4, 10});
  EXPECT_TRUE(equal(m(x), F::conv1d(x, m.weight(), m.bias(), 1, 2, 2, 2)));
  EXPECT_EQ(m(x).sizes(), (Shape{3, 6, 10}));
  EXPECT_EQ(m(x[1]).sizes(), (Shape{6, 10}));
  expect_error([&] { m(randn({1, 4, 10, 2})); }, "[Conv1d]", "expected 2D (unbatched) or 3D (batched) input, got 4D");
  expect_error([&] { m(randn({1, 6, 10})); }, "[Conv1d]", "expected input with 4 channels");
  expect_error([&] { m(randn({1, 5, 10})); }, "[Conv1d]", "input channels (5) must be divisible by groups (2)");
}

// ------------------------------------------------------------------------------ bad input

TEST(NNConvErrors, BadInputNamesTheOp) {
  const Tensor x = randn({1, 3, 5, 5}), w = randn({4, 3, 3, 3});
  expect_error([&] { F::conv2d(randn({3, 5}), w); }, "[conv2d]", "got 2D");
  expect_error([&] { F::conv2d(randn({1, 1, 3, 5, 5}), w); }, "[conv2d]", "got 5D");
  expect_error([&] { F::conv2d(x, randn({4, 3, 3})); }, "[conv2d]", "4D weight");
  expect_error([&] { F::conv2d(randn({1, 4, 5, 5}), w); }, "[conv2d]", "expected input with 3 channels");
  expect_error(
      [&] {
        F::conv2d(x, randn({4, 1, 3, 3}), Tensor(), 1, 0, 1, 2);
      },
      "[conv2d]", "input channels (3) must be divisible by groups (2)");
  expect_error(
      [&] {
        F::conv2d(randn({1, 4, 5, 5}), randn({3, 2, 3, 3}), Tensor(), 1, 0, 1, 2);
      },
      "[conv2d]", "output channels (3) must be divisible by groups (2)");
  expect_error([&] { F::conv2d(randn({1, 3, 2, 2}), w); }, "[conv2d]", "can't be greater than the padded input");
  expect_error([&] { F::conv2d(randn({1, 3, 5, 5}), w, Tensor(), 1, 0, 3); }, "[conv2d]", "padded input");
  expect_error([&] { F::conv2d(x, w, Tensor(), 0); }, "[conv2d]", "expected stride > 0");
  expect_error([&] { F::conv2d(x, w, Tensor(), {1, -1}); }, "[conv2d]", "expected stride > 0");
  expect_error([&] { F::conv2d(x, w, Tensor(), 1, -1); }, "[conv2d]", "expected padding >= 0");
  expect_error([&] { F::conv2d(x, w, Tensor(), 1, 0, 0); }, "[conv2d]", "expected dilation > 0");
  expect_error([&] { F::conv2d(x, w, Tensor(), 1, 0, 1, 0); }, "[conv2d]", "expected groups > 0");
  expect_error([&] { F::conv2d(x, w, Tensor(), {1, 1, 1}); }, "[conv2d]", "stride to be one number or 2 numbers");
  expect_error([&] { F::conv2d(x, w, randn({5})); }, "[conv2d]", "expected bias of shape (4,)");
  expect_error([&] { F::conv2d(x, w.to(kFloat64)); }, "[conv2d]", "same dtype");
  expect_error([&] { F::conv2d(x.to(kInt64), w.to(kInt64)); }, "[conv2d]", "floating-point");
  expect_error([&] { F::conv2d(Tensor(), w); }, "[conv2d]", "");
  expect_error([&] { F::conv1d(randn({1, 3, 5, 5}), randn({4, 3, 3})); }, "[conv1d]", "got 4D");
  expect_error([&] { F::conv1d(randn({1, 3, 2}), randn({4, 3, 3})); }, "[conv1d]", "padded input");
  expect_error(
      [&] {
        F::conv2d_backward_input(randn({1, 4, 2, 2}), w, {1, 3, 5, 5}, 1, 0, 1, 1);
      },
      "[conv2d_backward_input]", "grad_output of shape (1, 4, 3, 3)");
  expect_error(
      [&] {
        F::conv2d_backward_weight(randn({1, 4, 3, 3}), x, {4, 3, 3}, 1, 0, 1, 1);
      },
      "[conv2d_backward_weight]", "4D");
}

TEST(NNConvErrors, EmptyBatchAndZeroChannels) {
  const Tensor w = randn({4, 3, 3, 3});
  Tensor x = zeros({0, 3, 5, 5}).requires_grad_();
  Tensor wr = w.clone().requires_grad_();
  Tensor y = F::conv2d(x, wr, randn({4}));
  EXPECT_EQ(y.sizes(), (Shape{0, 4, 3, 3}));
  y.sum().backward();
  EXPECT_TRUE(equal(wr.grad(), zeros({4, 3, 3, 3})));  // no samples: zero gradient
  const Tensor b = tensor({1.0, 2.0});
  const Tensor z = F::conv2d(zeros({1, 0, 3, 3}), zeros({2, 0, 2, 2}), b);  // no input channels: bias only
  EXPECT_TRUE(equal(z, b.view({1, 2, 1, 1}).expand({1, 2, 2, 2}).contiguous()));
}

// ------------------------------------------------------------------------------ gradient checks
namespace {
DITTO_GRADCHECK("conv2d", ({gc_rand({2, 3, 5, 6}), gc_rand({4, 3, 3, 2}), gc_rand({4})}),
                return F::conv2d(v[0], v[1], v[2], {2, 1}, 1);)
DITTO_GRADCHECK("conv2d", ({gc_rand({1, 4, 7, 6}), gc_rand({6, 2, 3, 3}), gc_rand({6})}),
                return F::conv2d(v[0], v[1], v[2], 1, {2, 1}, 2, 2);)
DITTO_GRADCHECK("conv2d", ({gc_rand({2, 5, 5}), gc_rand({3, 2, 2, 2})}), return F::conv2d(v[0], v[1]);)
DITTO_GRADCHECK("conv2d", ({gc_rand({2, 3, 4, 4}), gc_rand({2, 3, 1, 1}), gc_rand({2})}),
                return F::conv2d(v[0], v[1], v[2]);)
DITTO_GRADCHECK("conv2d", ({gc_rand({2, 3, 9}), gc_rand({4, 3, 3}), gc_rand({4})}),
                return F::conv1d(v[0], v[1], v[2], 2, 1, 2);)
}  // namespace
