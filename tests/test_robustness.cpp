// Regression tests for the defects random calls found under ASan+UBSan (issue "Robustness"):
// each reproducer, with PyTorch 1.13's behaviour (the same result where it computes one, a
// ditto::Error naming the op where it raises).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "ditto/ditto.h"

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
