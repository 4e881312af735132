// Regression tests for the defects random calls found under ASan+UBSan (issue "Robustness"):
// each reproducer, with PyTorch 1.13's behaviour (the same result where it computes one, a
// ditto::Error naming the op where it raises).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ditto/ditto.h"
#include "ops/op_info.h"

using namespace ditto;

namespace {
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// The error's text, or "" when f did not throw ditto::Error.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// 1. narrow on a 0-dim tensor read sizes()[0] out of bounds; 10. a huge start was accepted.
TEST(Robustness, NarrowChecksRankStartAndLength) {
  EXPECT_EQ(error_of([] { scalar_tensor(1.0).narrow(0, 0, 1); }),
            "[narrow] narrow() cannot be applied to a 0-dim tensor.");
  EXPECT_NE(error_of([] { ones({3}).narrow(0, kMax, 1); }).find("[narrow] start out of range"), std::string::npos);
  EXPECT_NE(error_of([] { ones({3}).narrow(0, 2, kMax); }).find("exceeds dimension size"), std::string::npos);
  EXPECT_NE(error_of([] { ones({3}).narrow(0, 0, -1); }), "");
  EXPECT_TRUE(equal(arange(5, kFloat32).narrow(0, -2, 2), tensor({3.0f, 4.0f})));
}

// 10. slicing with step INT64_MAX overflowed the size and stride arithmetic.
TEST(Robustness, SliceWithHugeStep) {
  const Tensor x = tensor({1.0f, 2.0f, 3.0f});
  EXPECT_TRUE(equal(x.slice(0, std::nullopt, std::nullopt, kMax), tensor({1.0f})));
  EXPECT_TRUE(equal(x.slice(0, 1, std::nullopt, kMax), tensor({2.0f})));
  EXPECT_EQ(x.slice(0, 3, std::nullopt, kMax).numel(), 0);
}

// 2. max(x, 0) of a 0-dim tensor crashed in its backward.
TEST(Robustness, MaxOfZeroDimTensorBackward) {
  Tensor x = scalar_tensor(1.5).requires_grad_();
  auto [v, i] = max(x, 0);
  v.backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().dim(), 0);
  EXPECT_EQ(x.grad().item<float>(), 1.0f);
}

// 4. index_add with alpha on integer and bool tensors read a float buffer as int64 (heap
// overflow); PyTorch takes alpha in self's dtype: 0.5 -> 0 for int64, 2 -> true for bool.
TEST(Robustness, IndexAddAlphaInSelfDtype) {
  EXPECT_TRUE(equal(index_add(zeros({64}, kInt64), 0, arange(64), ones({64}, kInt64), 0.5), zeros({64}, kInt64)));
  EXPECT_TRUE(equal(index_add(zeros({3}, kBool), 0, arange(3), ones({3}, kBool), 2), ones({3}, kBool)));
  EXPECT_TRUE(equal(index_add(zeros({3}, kInt32), 0, arange(3), ones({3}, kInt32), 3), full({3}, 3, kInt32)));
}

// 15. index_add into a 0-dim self: the source's gradient had shape () instead of (1).
TEST(Robustness, IndexAddIntoZeroDimSelfBackward) {
  Tensor s = ones({1}).requires_grad_();
  index_add(scalar_tensor(0.0f), 0, tensor({0}), s).backward();
  ASSERT_TRUE(s.grad().defined());
  EXPECT_TRUE(equal(s.grad(), tensor({1.0f})));
}

// 14. backward(gradient) did not cast the gradient to the output's dtype.
TEST(Robustness, BackwardCastsTheSeedGradient) {
  Tensor x = ones({3}).requires_grad_();
  (x * 2.0).backward(ones({3}, kInt64));
  ASSERT_EQ(x.grad().dtype(), kFloat32);
  EXPECT_TRUE(equal(x.grad(), full({3}, 2.0f)));
  Tensor y = ones({3}).requires_grad_();
  y.softmax(0).backward(ones({3}, kBool));
  EXPECT_EQ(y.grad().dtype(), kFloat32);
  Tensor a = ones({2, 2}).requires_grad_();
  mm(a, ones({2, 2})).backward(ones({2, 2}, kFloat64));
  EXPECT_TRUE(equal(a.grad(), full({2, 2}, 2.0f)));
}

// 17. in-place ops refused same-kind casts (float64 into float32, int64 into int32), which
// PyTorch allows; casts to a lower kind stay refused.
TEST(Robustness, InPlaceSameKindCasts) {
  Tensor f = zeros({3});
  f.add_(ones({3}, kFloat64));
  EXPECT_TRUE(equal(f, ones({3})));
  Tensor i = ones({3}, kInt32);
  i.mul_(full({3}, 2, kInt64));
  EXPECT_TRUE(equal(i, full({3}, 2, kInt32)));
  EXPECT_NE(error_of([] {
              Tensor t = zeros({3}, kInt64);
              t.add_(ones({3}));
            }).find("can't be cast to the desired output type int64"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              Tensor t = zeros({3}, kBool);
              t.add_(ones({3}, kInt64));
            }),
            "");
}

// add_ with an alpha writes straight into self when nothing records it (an optimiser's step): the
// bits of the out-of-place op, o may be self itself, an overlapping view of self takes the copy
// path (its reads must see the old values), and a tensor saved for a backward that is then
// updated this way is still reported.
TEST(Robustness, AddScaledInPlaceMatchesOutOfPlace) {
  manual_seed(7);
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const Tensor p0 = randn({1000}, dt), g = randn({1000}, dt);
    Tensor p = p0.clone();
    p.add_(g, -0.01);
    EXPECT_TRUE(equal(p, add(p0, g, -0.01)));
    Tensor q = p0.clone();
    q.add_(q, 0.5);
    EXPECT_TRUE(equal(q, add(p0, p0, 0.5)));
  }
  Tensor r = arange(0, 100).to(kFloat32);
  const Tensor want = cat({r.narrow(0, 0, 1), add(r.narrow(0, 1, 99), r.narrow(0, 0, 99), 2.0)});
  r.narrow(0, 1, 99).add_(r.narrow(0, 0, 99), 2.0);  // must read the old values, not updated ones
  EXPECT_TRUE(equal(r, want));
  Tensor w = randn({3}).requires_grad_();
  Tensor y = w * 1.0;
  Tensor z = y.exp();  // saves its output
  {
    NoGradGuard no_grad;
    z.add_(ones({3}), 0.5);
  }
  EXPECT_THROW(z.sum().backward(), Error);
}

// Note [In place into self]: add_, sub_, mul_ and div_ with a tensor of self's dtype and shape,
// a 0-dim one or a Scalar write straight into self when nothing records it: no copy_ runs, and
// the bits are the out-of-place op's, with o being self itself too; a broadcast operand, an
// integer self and recorded history take the copy path with the same result.
TEST(Robustness, ElementwiseInPlaceMatchesOutOfPlace) {
  auto copies = [] {
    for (const ops::OpEntry& e : ops::all_ops())
      if (std::string(e.name) == "copy_") return ops::dispatch_count(e.id);
    return uint64_t{0};
  };
  manual_seed(11);
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const Tensor a = randn({257, 3}, dt), b = randn({257, 3}, dt) + 3.0, zero_dim = randn({}, dt);
    struct Case {
      const char* what;
      std::function<void(Tensor&)> in_place;
      std::function<Tensor(const Tensor&)> out_of_place;
    };
    const std::vector<Case> cases = {
        {"add_", [&](Tensor& t) { t.add_(b); }, [&](const Tensor& t) { return add(t, b); }},
        {"sub_", [&](Tensor& t) { t.sub_(b); }, [&](const Tensor& t) { return sub(t, b); }},
        {"mul_", [&](Tensor& t) { t.mul_(b); }, [&](const Tensor& t) { return mul(t, b); }},
        {"div_", [&](Tensor& t) { t.div_(b); }, [&](const Tensor& t) { return div(t, b); }},
        {"mul_ self", [&](Tensor& t) { t.mul_(t); }, [&](const Tensor& t) { return mul(t, t); }},
        {"div_ 0-dim", [&](Tensor& t) { t.div_(zero_dim); }, [&](const Tensor& t) { return div(t, zero_dim); }},
        {"add_ scalar", [&](Tensor& t) { t.add_(0.1); }, [&](const Tensor& t) { return add(t, Scalar(0.1)); }},
        {"sub_ scalar", [&](Tensor& t) { t.sub_(3); }, [&](const Tensor& t) { return sub(t, Scalar(3)); }},
        {"mul_ scalar", [&](Tensor& t) { t.mul_(0.9); }, [&](const Tensor& t) { return mul(t, Scalar(0.9)); }},
        {"div_ scalar", [&](Tensor& t) { t.div_(7.0); }, [&](const Tensor& t) { return div(t, Scalar(7.0)); }},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.what) + " " + dtype_name(dt));
      Tensor t = a.clone();
      const Tensor want = c.out_of_place(a);
      const uint64_t before = copies();
      const uint64_t version = t.version();
      c.in_place(t);
      EXPECT_EQ(copies(), before) << "the copy path ran";
      EXPECT_GT(t.version(), version);
      EXPECT_TRUE(equal(t, want));
      EXPECT_EQ(std::memcmp(t.raw_data(), want.contiguous().raw_data(),
                            static_cast<std::size_t>(t.numel()) * t.element_size()),
                0);
    }
  }
  // the copy path, with the same answers: a broadcast operand, an integer self, history to record
  Tensor r = arange(0, 12).to(kFloat32).view({3, 4});
  r.mul_(arange(0, 4).to(kFloat32));
  EXPECT_TRUE(equal(r, mul(arange(0, 12).to(kFloat32).view({3, 4}), arange(0, 4).to(kFloat32))));
  Tensor i = arange(0, 5);
  i.mul_(3);
  EXPECT_TRUE(equal(i, arange(0, 15, 3)));
  Tensor w = randn({4}).requires_grad_();
  Tensor y = w * 1.0;
  y.mul_(2.0);
  y.sum().backward();
  EXPECT_TRUE(equal(w.grad(), full({4}, 2.0)));
}

// 20. flatten of a 0-dim tensor accepted any dims.
TEST(Robustness, FlattenZeroDimChecksDims) {
  EXPECT_NE(error_of([] { flatten(scalar_tensor(1.0), 0, 5); }).find("[flatten] dimension out of range"),
            std::string::npos);
  EXPECT_NE(error_of([] { nn::Flatten(1, -1)(scalar_tensor(1.0)); }), "");
  EXPECT_EQ(flatten(scalar_tensor(1.0), 0, -1).sizes(), Shape({1}));
}

// 5. matmul over a huge empty batch looped over every empty product.
TEST(Robustness, EmptyBatchMatmulCostsNothing) {
  const Tensor r = matmul(zeros({int64_t{1} << 40, 0, 1}), ones({1, 6}));
  EXPECT_EQ(r.sizes(), Shape({int64_t{1} << 40, 0, 6}));
  EXPECT_EQ(r.numel(), 0);
  EXPECT_EQ(bmm(zeros({int64_t{1} << 40, 3, 0}), zeros({int64_t{1} << 40, 0, 0})).numel(), 0);
}

// 13. failed allocations escaped as std::bad_alloc. (The sanitizer run sets
// allocator_may_return_null=1, so that ASan returns null as malloc does instead of aborting.)
TEST(Robustness, FailedAllocationIsADittoError) {
  EXPECT_NE(error_of([] { zeros({int64_t{1} << 40}); }).find("can't allocate memory"), std::string::npos);
  EXPECT_NE(error_of([] { nn::Linear(int64_t{1} << 40, 6); }), "");
  EXPECT_NE(error_of([] { empty_strided({int64_t{1} << 40}, {1}); }), "");
}

namespace F = nn::functional;

// 3, 6. convolution with a huge stride or padding: overflow in the shape arithmetic, then
// out-of-bounds writes in im2col / col2im. A huge stride that leaves one output is valid.
TEST(Robustness, ConvolutionWithHugeStrideOrPadding) {
  EXPECT_TRUE(equal(F::conv1d(ones({1, 1, 4}), ones({1, 1, 2}), {}, kMax, 2), zeros({1, 1, 1})));
  EXPECT_NE(error_of([] {
              F::conv2d(ones({1, 1, 3, 7}), ones({1, 1, 2, 2}), {}, {3, 3}, {2, kMax}, {1, 2});
            }).find("[conv2d] the padded input size overflows"),
            std::string::npos);
  EXPECT_NE(
      error_of([] {
        F::conv2d_backward_input(ones({1, 2, 2, 1}), ones({2, 1, 2, 3}), {1, 2, 2, 2}, 3, {2, kMax}, {2, kMax}, 2);
      }),
      "");
  const std::string e = error_of([] { nn::Conv2d(6, 6, 3, 2, kMax, 2, 3)(randn({1, 6, 3, 3})); });
  EXPECT_NE(e.find("overflows"), std::string::npos) << e;
}

// 7, 8, 9. pooling and unpooling with huge kernel, stride, padding or dilation.
TEST(Robustness, PoolingWithHugeArguments) {
  EXPECT_NE(error_of([] { F::max_pool1d(ones({1, 1, 7}), 3, 1, 1, kMax); }).find("overflows"), std::string::npos);
  EXPECT_NE(error_of([] { F::avg_pool2d(ones({1, 1, 6, 4}), {2, int64_t{1} << 62}, {}, {0}, true); }), "");
  const Tensor x = ones({1, 1, 2, 2}), idx = zeros({1, 1, 2, 2}, kInt64);
  EXPECT_NE(error_of([&] { F::max_unpool2d(x, idx, 2, kMax); }).find("overflows"), std::string::npos);
  EXPECT_NE(error_of([&] { F::max_unpool2d(x, idx, kMax, 2); }), "");
  EXPECT_NE(error_of([&] { F::max_unpool2d(x, idx, 2, 2, int64_t{1} << 62); }), "");
  EXPECT_NE(error_of([&] { F::max_unpool3d(ones({1, 1, 1, 1, 1}), zeros({1, 1, 1, 1, 1}), kMax, kMax); }), "");
}

// 11. empty tensors with huge dims cost nothing; a broadcast view whose element count exceeds
// int64 is refused.
TEST(Robustness, HugeEmptyShapes) {
  const Tensor z = zeros({int64_t{1} << 62, 0, 3});
  EXPECT_EQ(z.numel(), 0);
  EXPECT_EQ(z.strides(), Shape({3, 3, 1}));
  EXPECT_NE(error_of([] { zeros({1, 1, 0}).expand({kMax, 4, 0}).view({-1}); }).find("overflows"), std::string::npos);
}

// 12. alpha negation, addmm's beta on integers, arange's span.
TEST(Robustness, IntegerScalarEdgeCases) {
  const int64_t lo = std::numeric_limits<int64_t>::min();
  EXPECT_TRUE(equal(sub(tensor({1}), tensor({1}), lo), tensor({lo + 1})));  // wraps, as PyTorch
  EXPECT_NE(error_of([] {
              addmm(ones({2, 2}, kInt64), ones({2, 2}, kInt64), ones({2, 2}, kInt64), 1e300);
            }).find("value cannot be converted to type int64 without overflow"),
            std::string::npos);
  EXPECT_NE(error_of([&] { arange(lo, 0, 2); }).find("[arange] invalid size"), std::string::npos);
}

// 18. in-place ops on a view of a leaf that requires grad, and random fills of such a leaf.
TEST(Robustness, InPlaceOnLeafViewsIsRefused) {
  Tensor x = ones({3}).requires_grad_();
  Tensor m = ones({2, 3}).requires_grad_();
  EXPECT_NE(error_of([&] { m.t().mul_(2); }).find("a view of a leaf Variable that requires grad"), std::string::npos);
  EXPECT_NE(error_of([&] { x.t().mul_(2); }).find("leaf Variable that requires grad"), std::string::npos);
  EXPECT_NE(error_of([&] { x.add_(ones({3})); }), "");  // refused before it writes
  EXPECT_NE(error_of([&] { m.slice(0, 0, 1).fill_(1.0); }).find("a view of a leaf Variable"), std::string::npos);
  EXPECT_NE(error_of([&] { m.select(0, 1).view({3}).index_put_({tensor({0})}, tensor({5.0f})); }), "");
  EXPECT_NE(error_of([&] { x.uniform_(); }).find("a leaf Variable that requires grad"), std::string::npos);
  EXPECT_NE(error_of([&] { x.normal_(); }), "");
  EXPECT_NE(error_of([&] { x.bernoulli_(); }), "");
  EXPECT_NE(error_of([&] { x.random_(0, 5); }), "");
  EXPECT_TRUE(equal(x, ones({3})));
  EXPECT_TRUE(equal(m, ones({2, 3})));
  {
    NoGradGuard no_grad;  // allowed without grad mode (how nn::init fills parameters)
    x.t().mul_(2);
    x.uniform_();
  }
  Tensor y = x * 2;  // a view of a non-leaf may be written in place
  y.view({3}).mul_(2);
}

// 19. scalars that do not fit the dtype they are stored into.
TEST(Robustness, ScalarsMustFitTheDtype) {
  EXPECT_NE(error_of([] { zeros({2}, kInt32).fill_(INFINITY); }).find("value cannot be converted to type int32"),
            std::string::npos);
  EXPECT_NE(error_of([] { add(ones({2}, kInt32), ones({2}, kInt32), int64_t{1} << 31); }), "");
  EXPECT_NE(error_of([] { scalar_tensor(std::numeric_limits<int64_t>::min(), kInt32); }), "");
  EXPECT_NE(error_of([] { masked_fill(zeros({2}), tensor({true, false}), 1e300); }).find("float32"), std::string::npos);
  EXPECT_TRUE(equal(zeros({2}).fill_(INFINITY), full({2}, INFINITY)));  // inf and NaN fit floats
  EXPECT_TRUE(equal(zeros({2}, kInt32).fill_(-2147483648.0), full({2}, -2147483648LL, kInt32)));
  EXPECT_TRUE(equal(zeros({2}, kBool).fill_(7), ones({2}, kBool)));
}

// 16. a.div_(b) / a.mul_(b) with only b requiring grad: b's gradient reads a's value before the
// write, which autograd reported as "modified by an inplace operation".
TEST(Robustness, InPlaceMulDivWithOtherRequiringGrad) {
  Tensor b = full({3}, 2.0f).requires_grad_();
  Tensor a = ones({3});
  a.div_(b);
  a.sum().backward();
  EXPECT_TRUE(equal(b.grad(), full({3}, -0.25f)));
  Tensor c = full({3}, 3.0f).requires_grad_();
  Tensor d = full({3}, 5.0f);
  d.mul_(c);
  d.sum().backward();
  EXPECT_TRUE(equal(c.grad(), full({3}, 5.0f)));
  EXPECT_TRUE(equal(d, full({3}, 15.0f)));
}

// Found by ditto-fuzz (tests/fuzz/ditto_fuzz.cpp), seed 1 call 456 and seed 3 call 3783.
TEST(Robustness, FuzzerFinds) {
  // printing an empty tensor with a huge dim listed every index of that dim
  EXPECT_EQ(zeros({0, 2, int64_t{1} << 62, 1}).to_string(), "tensor([], size=(0, 2, 4611686018427387904, 1))");
  // arange's element count: INT64_MIN / -1 raised SIGFPE (PyTorch 1.13 crashes the same way)
  EXPECT_NE(error_of([] { arange(0, std::numeric_limits<int64_t>::min(), -1); }), "");
  EXPECT_NE(error_of([] { arange(std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), -1); }), "");
  // under UBSan: adaptive pooling to a huge output of an empty batch overflowed its cost estimate
  EXPECT_EQ(F::adaptive_avg_pool2d(zeros({0, 2, 3, 3}), {int64_t{1} << 62, 2}).sizes(),
            Shape({0, 2, int64_t{1} << 62, 2}));
  // and integer addmm's alpha and beta multiplied with signed overflow; they wrap, as the GEMM does
  const int64_t lo = std::numeric_limits<int64_t>::min();
  EXPECT_TRUE(equal(addmm(ones({1, 1}, kInt64), full({1, 1}, 4, kInt64), ones({1, 1}, kInt64), 1, lo),
                    tensor({{1}})));  // 4 * INT64_MIN wraps to 0
}

// cat's output size is checked too.
TEST(Robustness, CatSizeOverflow) {
  const Tensor a = zeros({int64_t{1} << 62, 0});
  EXPECT_NE(error_of([&] { cat({a, a}, 0); }).find("[cat] the concatenated size overflows"), std::string::npos);
  const Tensor b = zeros({int64_t{1} << 61, 0});
  EXPECT_EQ(cat({b, b, b}, 0).size(0), 3 * (int64_t{1} << 61));
}

// An undefined tensor half-way through a list is refused; the hash state made for the call is
// freed all the same (the ASan+UBSan run checks for the leak this once had).
TEST(Robustness, FingerprintRefusesAnUndefinedTensorWithoutLeaking) {
  const std::string e = error_of([] { fingerprint(std::vector<Tensor>{ones({3}), Tensor()}); });
  EXPECT_NE(e.find("[fingerprint] undefined tensor"), std::string::npos) << e;
  EXPECT_EQ(fingerprint(std::vector<Tensor>{ones({3})}), fingerprint(ones({3})));
}

// Found by the OpInfo sweep: size(0) and stride(0) of a 0-dim tensor read past its (empty) shape.
TEST(Robustness, SizeAndStrideOfA0DimTensorAreIndexErrors) {
  const Tensor x = scalar_tensor(1.0);
  EXPECT_THROW(x.size(0), ditto::IndexError);
  EXPECT_THROW(x.stride(-1), ditto::IndexError);
  EXPECT_EQ(ones({2, 3}).size(-1), 3);
}

// Found by Fuzz.RandomCallsSeed1 under UBSan: repeat of an empty tensor by 2^62 made an empty
// (2^62, 1, 1, 0) copy whose leading stride times its size overflowed in the strided loop before
// the loop saw the empty dim. An empty tensor's other dims may be that large (PyTorch's too).
TEST(Robustness, CopiesOfEmptyTensorsWithHugeDimsDoNoStrideArithmetic) {
  constexpr int64_t kHuge = int64_t{1} << 62;
  const Tensor x = zeros({0}, kInt32);
  const Tensor r = repeat(x, {kHuge, 1});
  EXPECT_EQ(r.sizes(), (Shape{kHuge, 0}));
  EXPECT_EQ(tile(zeros({2, 0}), {kHuge / 2, 1}).sizes(), (Shape{kHuge, 0}));
  EXPECT_EQ(r.clone().numel(), 0);
  EXPECT_NE(error_of([] { repeat(ones({2}), {kHuge, 3}); }).find("[repeat]"), std::string::npos);
}
