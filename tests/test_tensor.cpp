// Tensor metadata, views, factories and copies.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/transpose.h"
#include "cpu/capability.h"
#include "ditto/ditto.h"

using namespace ditto;

namespace {
template <class T>
std::vector<T> vals(const Tensor& t) {
  return to_vector<T>(t);
}
}  // namespace

TEST(TensorFactory, NestedListsInferDtypeAndShape) {
  Tensor f = tensor({{1.0, 2.0}, {3.0, 4.0}});
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(f.sizes(), (Shape{2, 2}));
  EXPECT_EQ(vals<float>(f), (std::vector<float>{1, 2, 3, 4}));
  Tensor i = tensor({1, 2, 3});
  EXPECT_EQ(i.dtype(), kInt64);
  Tensor b = tensor({true, false});
  EXPECT_EQ(b.dtype(), kBool);
  Tensor mixed = tensor({1, 2.5});  // one float literal makes it float32, as in PyTorch
  EXPECT_EQ(mixed.dtype(), kFloat32);
  Tensor d = tensor({1.0, 2.0}, kFloat64);
  EXPECT_EQ(d.dtype(), kFloat64);
  EXPECT_THROW(tensor({{1, 2}, {3}}), Error);
}

TEST(TensorFactory, ZerosOnesFullArangeLinspaceEye) {
  EXPECT_EQ(vals<int64_t>(zeros({2, 3}, kInt64)), std::vector<int64_t>(6, 0));
  EXPECT_EQ(vals<double>(ones({3}, kFloat64)), std::vector<double>(3, 1.0));
  EXPECT_EQ(full({2}, 1.5).dtype(), kFloat32);
  EXPECT_EQ(full({2}, 7).dtype(), kInt64);
  EXPECT_EQ(vals<int64_t>(arange(5)), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(vals<int64_t>(arange(1, 10, 3)), (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(vals<float>(arange(0.0, 1.0, 0.25)), (std::vector<float>{0, 0.25f, 0.5f, 0.75f}));
  EXPECT_EQ(arange(0, 1, 0.1).numel(), 10);
  EXPECT_EQ(vals<float>(linspace(0, 1, 5)), (std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1}));
  EXPECT_EQ(vals<float>(eye(2, 3)), (std::vector<float>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(vals<float>(zeros_like(eye(2))), std::vector<float>(4, 0));
  EXPECT_EQ(ones_like(eye(2), kInt64).dtype(), kInt64);
  EXPECT_THROW(arange(0, 5, 0), Error);
  EXPECT_THROW(zeros({-1}), Error);
}

TEST(TensorFactory, ElementCountOverflowIsAnError) {
  try {
    zeros({int64_t(1) << 40, int64_t(1) << 40});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[full]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(empty({int64_t(1) << 62, 4}), Error);
}

// Strides as PyTorch 1.13 gives them (torch.empty_permuted is 2.x; its strides follow from the
// definition: the permuted contiguous tensor viewed back).
TEST(TensorFactory, MemoryFormatsAndPermutedLayouts) {
  EXPECT_EQ(empty_permuted({2, 3, 5}, {1, 0, 2}).strides(), Shape({5, 10, 1}));
  EXPECT_EQ(empty_permuted({2, 3, 5}, {-1, 0, 1}).strides(), Shape({3, 1, 6}));
  EXPECT_EQ(empty_like(zeros({2, 3, 4, 5}), MemoryFormat::ChannelsLast).strides(), Shape({60, 1, 15, 3}));
  EXPECT_EQ(empty_like(zeros({2, 3, 4, 5, 6}), MemoryFormat::ChannelsLast3d).strides(), Shape({360, 1, 90, 18, 3}));
  EXPECT_EQ(empty_like(zeros({3, 4}).t()).strides(), Shape({1, 4}));                // preserve: dense strides kept
  EXPECT_EQ(empty_like(zeros({3, 8}).slice(1, 0, 8, 2)).strides(), Shape({4, 1}));  // not dense: contiguous
  EXPECT_EQ(empty_like(zeros({3, 4}).t(), MemoryFormat::Contiguous).strides(), Shape({3, 1}));
  EXPECT_EQ(empty_like(zeros({3, 4}), kInt64).dtype(), kInt64);
  EXPECT_THROW(empty_like(zeros({3, 4}), MemoryFormat::ChannelsLast), Error);
  EXPECT_THROW(empty_permuted({2, 3}, {0}), Error);
  EXPECT_THROW(empty_permuted({2, 3}, {1, 1}), Error);
  EXPECT_THROW(empty_permuted({2, 3}, {0, 2}), Error);
  Tensor out = zeros({2}, kInt32);
  Tensor& r = empty_out(out, {3, 4});
  EXPECT_TRUE(r.is_same(out));
  EXPECT_EQ(out.sizes(), Shape({3, 4}));
  EXPECT_EQ(out.dtype(), kInt32);
}

TEST(TensorView, ViewsShareStorage) {
  Tensor x = arange(12).view({3, 4});
  EXPECT_EQ(x.strides(), (Shape{4, 1}));
  Tensor t = x.t();
  EXPECT_EQ(t.sizes(), (Shape{4, 3}));
  EXPECT_EQ(t.strides(), (Shape{1, 4}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.storage(), x.storage());
  Tensor row = x.select(0, 1);
  EXPECT_EQ(vals<int64_t>(row), (std::vector<int64_t>{4, 5, 6, 7}));
  row.fill_(0);  // writes through to x
  EXPECT_EQ(x[1][2].item<int64_t>(), 0);
  Tensor s = x.slice(1, 0, 4, 2);
  EXPECT_EQ(s.sizes(), (Shape{3, 2}));
  EXPECT_EQ(vals<int64_t>(s), (std::vector<int64_t>{0, 2, 0, 0, 8, 10}));
  EXPECT_EQ(x.slice(1, -2).sizes(), (Shape{3, 2}));
  Tensor p = arange(24).view({2, 3, 4}).permute({2, 0, 1});
  EXPECT_EQ(p.sizes(), (Shape{4, 2, 3}));
  EXPECT_EQ(p.strides(), (Shape{1, 12, 4}));
  EXPECT_EQ(p.contiguous().strides(), (Shape{6, 3, 1}));
  EXPECT_EQ(vals<int64_t>(p)[1], 4);
}

TEST(TensorView, ExpandSqueezeUnsqueezeFlattenReshape) {
  Tensor v = tensor({1.0, 2.0, 3.0});
  Tensor e = v.unsqueeze(0).expand({2, 3});
  EXPECT_EQ(e.strides(), (Shape{0, 1}));
  EXPECT_EQ(vals<float>(e), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(v.unsqueeze(1).sizes(), (Shape{3, 1}));
  EXPECT_EQ(zeros({1, 3, 1}).squeeze().sizes(), (Shape{3}));
  EXPECT_EQ(zeros({1, 3, 1}).squeeze(0).sizes(), (Shape{3, 1}));
  EXPECT_EQ(zeros({1, 3, 1}).squeeze(1).sizes(), (Shape{1, 3, 1}));
  EXPECT_EQ(zeros({2, 3, 4}).flatten().sizes(), (Shape{24}));
  EXPECT_EQ(zeros({2, 3, 4}).flatten(1).sizes(), (Shape{2, 12}));
  Tensor t = arange(6).view({2, 3}).t();
  EXPECT_THROW(t.view({6}), Error);  // not viewable
  Tensor r = t.reshape({6});         // copies instead
  EXPECT_EQ(vals<int64_t>(r), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(arange(6).reshape({-1, 2}).sizes(), (Shape{3, 2}));
  EXPECT_THROW(arange(6).reshape({4, -1}), Error);
  EXPECT_THROW(v.expand({2, 4}), Error);
}

TEST(TensorView, BadDimsNameTheOp) {
  Tensor x = zeros({2, 3});
  auto expect_msg = [](auto fn, const std::string& op) {
    try {
      fn();
      ADD_FAILURE() << "expected an error from " << op;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("[" + op + "]", 0), 0u) << e.what();
    }
  };
  expect_msg([&] { x.transpose(0, 2); }, "transpose");
  expect_msg([&] { x.select(0, 2); }, "select");
  expect_msg([&] { x.permute({0, 0}); }, "permute");
  expect_msg([&] { x.view({4}); }, "view");
  expect_msg([&] { x.size(5); }, "size");
  expect_msg([&] { x.item<float>(); }, "item");
  expect_msg([&] { x.data_ptr<double>(); }, "data_ptr");
  expect_msg([&] { x.unsqueeze(4); }, "unsqueeze");
}

TEST(TensorCopy, CloneToCopyFill) {
  Tensor x = tensor({1.5, -2.5, 3.0});
  Tensor c = x.clone();
  c.fill_(9);
  EXPECT_EQ(vals<float>(x)[0], 1.5f);
  EXPECT_EQ(vals<int64_t>(x.to(kInt64)), (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(vals<bool>(x.to(kBool)), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(x.to(kFloat64).dtype(), kFloat64);
  Tensor big = full({1}, 1e30).to(kInt64);  // out of range: defined, no UB
  EXPECT_EQ(big.item<int64_t>(), std::numeric_limits<int64_t>::min());
  Tensor y = zeros({2, 3});
  y.copy_(tensor({1.0, 2.0, 3.0}));  // broadcast copy
  EXPECT_EQ(vals<float>(y), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  EXPECT_THROW(y.copy_(zeros({4})), Error);
  Tensor z = arange(4).to(kFloat32);
  z.slice(0, 1).copy_(z.slice(0, 0, 3));  // overlapping copy reads the source first
  EXPECT_EQ(vals<float>(z), (std::vector<float>{0, 0, 1, 2}));
}

TEST(TensorCopy, ItemAndDataPtr) {
  Tensor x = tensor({{1.0, 2.0}, {3.0, 4.0}});
  EXPECT_EQ(x[1][0].item<float>(), 3.0f);
  EXPECT_EQ(x.sum().item<double>(), 10.0);
  EXPECT_EQ(x.data_ptr<float>()[3], 4.0f);
  EXPECT_EQ(x.select(1, 1).data_ptr<float>()[0], 2.0f);
}

// Where PyTorch raises IndexError (Python) / c10::IndexError, ditto throws ditto::IndexError, a
// ditto::Error; other bad indices (gather, scatter) stay plain errors, as in PyTorch.
TEST(Tensor, IndexErrorsAreIndexErrors) {
  const Tensor x = ones({2, 3});
  auto is_index_error = [](auto f) {
    try {
      f();
    } catch (const ditto::IndexError&) {
      return true;
    } catch (const ditto::Error&) {
      return false;
    }
    ADD_FAILURE() << "no error";
    return false;
  };
  EXPECT_TRUE(is_index_error([&] { x.sum(5); }));
  EXPECT_TRUE(is_index_error([&] { x.transpose(0, 2); }));
  EXPECT_TRUE(is_index_error([&] { x.select(0, 2); }));
  EXPECT_TRUE(is_index_error([&] { x.narrow(1, 4, 1); }));
  EXPECT_TRUE(is_index_error([&] { x.index_select(1, tensor({3})); }));
  EXPECT_TRUE(is_index_error([&] { zeros({3}).index_put_({tensor({3})}, ones({1})); }));
  EXPECT_TRUE(is_index_error([&] { zeros({3}).put_(tensor({3}), ones({1})); }));
  EXPECT_TRUE(is_index_error([&] { embedding(ones({3, 2}), tensor({3})); }));
  EXPECT_FALSE(is_index_error([&] { x.gather(1, tensor({{3}, {0}})); }));
  EXPECT_FALSE(is_index_error([&] { x.view({4}); }));
}

// detail::transpose4_avx2 (core/transpose.h; conv's weight gradient, attention, audit hashes)
// moves every 4-byte element to its transposed place and writes nothing else: blocks of 16 and of
// 8 rows, the leftover rows and columns, and a source stride of a multiple of 4 KiB, against an
// element-by-element transpose. The element values are distinct bit patterns, NaNs among them.
TEST(Transpose, FourByteTransposeMovesEveryElementAndNothingElse) {
  if (!cpu_supports(CpuCapability::AVX2)) GTEST_SKIP() << "needs AVX2";
  for (int64_t rows : {1, 7, 8, 15, 16, 24, 33, 512})
    for (int64_t cols : {1, 8, 13, 32}) {
      const int64_t ld = rows >= 512 ? 1024 : rows + 3;  // elements between columns of the source
      std::vector<uint32_t> src(static_cast<std::size_t>(cols * ld));
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = 0x7fc00000u ^ static_cast<uint32_t>(i * 2654435761u);
      const int64_t out_ld = cols + 2;  // elements between rows of the result; the rest must stay
      std::vector<uint32_t> out(static_cast<std::size_t>(rows * out_ld), 0xdeadbeefu);
      detail::transpose4_avx2(reinterpret_cast<const char*>(src.data()), ld * 4, reinterpret_cast<char*>(out.data()),
                              out_ld * 4, rows, cols);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < out_ld; ++j) {
          const uint32_t want = j < cols ? src[static_cast<std::size_t>(j * ld + i)] : 0xdeadbeefu;
          ASSERT_EQ(out[static_cast<std::size_t>(i * out_ld + j)], want)
              << "rows " << rows << " cols " << cols << " at " << i << ", " << j;
        }
    }
}
