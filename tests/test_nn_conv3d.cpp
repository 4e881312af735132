// conv3d and the transposed convolutions: PyTorch's answers (tests/data/pytorch-nn-conv.json,
// sections conv_more and init_more, from tools/gen_golden_nn_conv.py), forward and gradients
// within the convolution tolerance (PyTorch sums in its BLAS's order, ditto in Note
// [Convolution accumulation order]'s) and the modules' initial weights bit for bit; transposed
// convolution against its definition (the convolution's input gradient) bit for bit; modules;
// bad input; gradient-check samples. Thread, level and batch invariance: tests/test_invariance.cpp.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>

#include "ditto/ditto.h"
#include "expect_error.h"
#include "gradcheck.h"
#include "nn_conv_golden.h"

using namespace ditto;
namespace F = ditto::nn::functional;
namespace cg = ditto::testing::conv_golden;
using cg::json;
using ditto::testing::expect_error;

namespace {

nn::SizeArg arg(const json& a, const char* key, int64_t absent) {
  return a.contains(key) ? cg::size_arg(a.at(key)) : nn::SizeArg(absent);
}

Tensor run(const std::string& op, const Tensor& x, const Tensor& w, const Tensor& b, const json& a) {
  const int64_t groups = a.value("groups", int64_t{1});
  const auto s = arg(a, "stride", 1), p = arg(a, "padding", 0), d = arg(a, "dilation", 1),
             o = arg(a, "output_padding", 0);
  if (op == "conv3d") return F::conv3d(x, w, b, s, p, d, groups);
  if (op == "conv_transpose1d") return F::conv_transpose1d(x, w, b, s, p, o, groups, d);
  if (op == "conv_transpose2d") return F::conv_transpose2d(x, w, b, s, p, o, groups, d);
  return F::conv_transpose3d(x, w, b, s, p, o, groups, d);
}

}  // namespace

TEST(NNConv3dGolden, ForwardAndGradientsMatchPyTorch) {
  const json& cases = cg::section("conv_more");
  ASSERT_GE(cases.size(), 15u);
  for (const json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    SCOPED_TRACE(name);
    Tensor x = cg::decode(c.at("input")).requires_grad_();
    Tensor w = cg::decode(c.at("weight")).requires_grad_();
    Tensor b = c.at("bias").is_null() ? Tensor() : cg::decode(c.at("bias")).requires_grad_();
    Tensor out = run(c.at("op").get<std::string>(), x, w, b, c.at("args"));
    const bool native = name.find("unbatched") == std::string::npos && name[1] != '1';  // 1-D: squeezed 2-D
    if (native) {
      EXPECT_EQ(out.grad_fn_name(), c.at("grad_fn").get<std::string>());
    }
    const double rtol = x.dtype() == kFloat64 ? 1e-12 : 1e-5;
    cg::expect_close(out, cg::decode(c.at("output")), rtol, "output");
    out.backward(cg::decode(c.at("grad_output")));
    cg::expect_close(x.grad(), cg::decode(c.at("grad_input")), rtol, "grad_input");
    cg::expect_close(w.grad(), cg::decode(c.at("grad_weight")), rtol, "grad_weight");
    if (b.defined()) cg::expect_close(b.grad(), cg::decode(c.at("grad_bias")), rtol, "grad_bias");
  }
}

// Conv3d / ConvTranspose*d default init, bit for bit (spec pytorch-cpu-rng.md §5).
TEST(NNConv3dGolden, DefaultInitMatchesPyTorch) {
  const json& cases = cg::section("init_more");
  ASSERT_GE(cases.size(), 10u);
  for (const json& c : cases) {
    const std::string kind = c.at("module").get<std::string>();
    const json& a = c.at("args");
    SCOPED_TRACE(kind + " " + a.dump());
    const int64_t in = a.at("in_channels").get<int64_t>(), out = a.at("out_channels").get<int64_t>();
    const int64_t groups = a.value("groups", int64_t{1});
    const bool bias = a.value("bias", true);
    const nn::SizeArg k = cg::size_arg(a.at("kernel_size")), s = arg(a, "stride", 1);
    manual_seed(c.at("seed").get<uint64_t>());
    std::shared_ptr<nn::ConvNd> m;
    if (kind == "Conv3d") m = std::make_shared<nn::Conv3d>(in, out, k, s, 0, 1, groups, bias);
    if (kind == "ConvTranspose1d") m = std::make_shared<nn::ConvTranspose1d>(in, out, k, s, 0, 0, groups, bias);
    if (kind == "ConvTranspose2d") m = std::make_shared<nn::ConvTranspose2d>(in, out, k, s, 0, 0, groups, bias);
    if (kind == "ConvTranspose3d") m = std::make_shared<nn::ConvTranspose3d>(in, out, k, s, 0, 0, groups, bias);
    ASSERT_TRUE(m) << kind;
    cg::expect_bits(m->weight(), cg::decode(c.at("weight")), "weight");
    if (c.at("bias").is_null())
      EXPECT_FALSE(m->bias().defined());
    else
      cg::expect_bits(m->bias(), cg::decode(c.at("bias")), "bias");
  }
}

// The transposed convolution is the convolution's input gradient (plus bias), bit for bit, and
// its gradients are the convolution and the convolution's weight gradient.
TEST(NNConv3d, TransposeIsTheConvolutionsInputGradient) {
  const Tensor x = randn({2, 4, 3, 5, 4}), w = randn({4, 3, 2, 3, 2}), b = randn({6});
  const Tensor y = F::conv_transpose3d(x, w, b, {2, 1, 2}, {1, 0, 1}, {1, 0, 0}, 2, 1);
  const Tensor g = F::conv3d_backward_input(x, w, y.sizes(), {2, 1, 2}, {1, 0, 1}, 1, 2);
  EXPECT_TRUE(equal(y, g + b.view({1, 6, 1, 1, 1})));
  const Tensor x2 = randn({2, 6, 4, 5}).requires_grad_(), w2 = randn({6, 2, 3, 3}).requires_grad_();
  Tensor y2 = F::conv_transpose2d(x2, w2, Tensor(), 2, 1, 1, 3);
  const Tensor gy = randn(y2.sizes());
  y2.backward(gy);
  EXPECT_TRUE(equal(x2.grad(), F::conv2d(gy, w2.detach(), Tensor(), 2, 1, 1, 3)));
  EXPECT_TRUE(equal(w2.grad(), F::conv2d_backward_weight(x2.detach(), gy, w2.sizes(), 2, 1, 1, 3)));
}

TEST(NNConv3d, ModulesCallTheirOps) {
  manual_seed(0);
  nn::Conv3d c3(2, 4, 3, 1, 1);
  const Tensor x5 = randn({2, 2, 4, 5, 6});
  EXPECT_TRUE(equal(c3(x5), F::conv3d(x5, c3.weight(), c3.bias(), 1, 1)));
  EXPECT_EQ(c3.weight().sizes(), (Shape{4, 2, 3, 3, 3}));
  nn::ConvTranspose2d t2(4, 6, 4, 2, 1, 0, 2);
  EXPECT_EQ(t2.weight().sizes(), (Shape{4, 3, 4, 4}));
  const Tensor x4 = randn({2, 4, 5, 5});
  EXPECT_EQ(t2(x4).sizes(), (Shape{2, 6, 10, 10}));
  EXPECT_TRUE(equal(t2(x4), F::conv_transpose2d(x4, t2.weight(), t2.bias(), 2, 1, 0, 2)));
  nn::ConvTranspose1d t1(3, 2, 3, 2, 0, 1);
  EXPECT_EQ(t1(randn({3, 7})).sizes(), (Shape{2, 16}));
  EXPECT_EQ(t1.name(), "ConvTranspose1d");
  EXPECT_TRUE(t1.transposed());
  nn::ConvTranspose2d t2s(3, 2, 3, 2, 1);
  const Tensor x3 = randn({1, 3, 4, 5});
  EXPECT_EQ(t2s.forward(x3, {8, 10}).sizes(), (Shape{1, 2, 8, 10}));
  EXPECT_TRUE(equal(t2s.forward(x3, {1, 2, 8, 9}), F::conv_transpose2d(x3, t2s.weight(), t2s.bias(), 2, 1, {1, 0})));
  expect_error([&] { t2s.forward(x3, {9, 9}); }, "[ConvTranspose2d]", "must be from 7 to 8");
  expect_error([&] { t2s.forward(x3, {1, 8, 10}); }, "[ConvTranspose2d]", "output_size must have 2 or 4 elements");
  nn::ConvTranspose2d huge(3, 2, 3, std::numeric_limits<int64_t>::max() / 2);
  expect_error([&] { huge.forward(x3, {8, 10}); }, "[ConvTranspose2d]", "the output size overflows");
  expect_error([&] { c3.forward(x5, {4, 5, 6}); }, "[Conv3d]", "transposed convolutions only");
  nn::ConvTranspose3d t3(2, 2, 2, 2);
  EXPECT_EQ(t3(randn({1, 2, 2, 3, 2})).sizes(), (Shape{1, 2, 4, 6, 4}));
}

TEST(NNConv3dErrors, BadInputNamesTheOp) {
  const Tensor x5 = randn({1, 2, 4, 5, 6}), w5 = randn({3, 2, 2, 2, 2});
  expect_error([&] { F::conv3d(x5.view({2, 120}), w5); }, "[conv3d]", "expected 4D");
  expect_error([&] { F::conv3d(x5, randn({3, 2, 2, 2})); }, "[conv3d]", "5D weight");
  expect_error([&] { F::conv3d(x5, randn({3, 1, 2, 2, 2})); }, "[conv3d]", "channels");
  expect_error([&] { F::conv3d(x5, randn({3, 2, 5, 2, 2})); }, "[conv3d]", "can't be greater than");
  expect_error([&] { F::conv3d(x5, w5, randn({2})); }, "[conv3d]", "bias of shape");
  const Tensor x4 = randn({1, 4, 3, 3}), w4 = randn({4, 2, 3, 3});
  expect_error([&] { F::conv_transpose2d(x4, w4, Tensor(), 1, 0, 1); }, "[conv_transpose2d]",
               "output padding must be smaller");
  expect_error([&] { F::conv_transpose2d(x4, w4, Tensor(), 1, 3); }, "[conv_transpose2d]", "output size");
  expect_error([&] { F::conv_transpose2d(x4, randn({3, 2, 3, 3})); }, "[conv_transpose2d]", "expected input with 3");
  expect_error([&] { F::conv_transpose2d(x4, w4, randn({2}), 1, 0, 0, 2); }, "[conv_transpose2d]",
               "bias of shape (4,)");
  expect_error([&] { F::conv_transpose2d(x4, w4, Tensor(), 1, 0, 0, 3); }, "[conv_transpose2d]", "divisible");
  expect_error([&] { F::conv_transpose1d(x4, randn({4, 2, 3})); }, "[conv_transpose1d]", "expected 2D");
  expect_error(
      [&] {
        F::conv_transpose3d(x5, randn({2, 2, 2, 2, 2}), Tensor(), std::numeric_limits<int64_t>::max() / 2);
      },
      "[conv_transpose3d]", "output size");
  expect_error(
      [&] {
        F::conv3d_backward_input(x5, w5, {1, 2, 4, 5}, 1, 0, 1, 1);
      },
      "[conv3d_backward_input]", "5D input size");
  expect_error(
      [&] {
        F::conv3d_backward_weight(x5, x5, {3, 2, 2, 2, 2}, 1, 0, 1, 1);
      },
      "[conv3d_backward_weight]", "grad_output of shape");
  expect_error([&] { nn::ConvTranspose2d(4, 2, 3)(x5); }, "[ConvTranspose2d]", "expected 3D");
}

// ------------------------------------------------------------------------------ gradient checks
namespace {
using ditto::testing::gc_rand;
DITTO_GRADCHECK("conv3d", ({gc_rand({1, 2, 3, 4, 4}), gc_rand({2, 2, 2, 2, 3}), gc_rand({2})}),
                return F::conv3d(v[0], v[1], v[2], {1, 2, 1}, {0, 1, 1}, 1, 1);)
DITTO_GRADCHECK("conv3d", ({gc_rand({1, 4, 3, 4, 3}), gc_rand({2, 2, 2, 2, 2})}),
                return F::conv3d(v[0], v[1], Tensor(), 1, 1, {1, 2, 1}, 2);)
DITTO_GRADCHECK("conv_transpose2d", ({gc_rand({1, 4, 3, 3}), gc_rand({4, 1, 3, 3}), gc_rand({2})}),
                return F::conv_transpose2d(v[0], v[1], v[2], 2, 1, 1, 2);)
// output_padding >= stride (allowed below the dilation): the convolution of y's size has more
// positions than x, of which the gradient keeps x's
DITTO_GRADCHECK("conv_transpose2d", ({gc_rand({1, 2, 3, 4}), gc_rand({2, 2, 2, 2})}),
                return F::conv_transpose2d(v[0], v[1], Tensor(), 1, 0, 1, 1, 2);)
DITTO_GRADCHECK("conv_transpose2d", ({gc_rand({2, 5}), gc_rand({2, 3, 3})}),
                return F::conv_transpose1d(v[0], v[1], Tensor(), 2, 0, 1, 1, 2);)
DITTO_GRADCHECK("conv_transpose3d", ({gc_rand({1, 2, 2, 3, 2}), gc_rand({2, 2, 2, 2, 2}), gc_rand({2})}),
                return F::conv_transpose3d(v[0], v[1], v[2], {2, 1, 2}, 0, {1, 0, 0});)
}  // namespace
