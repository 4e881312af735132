#pragma once
// The kernels of cpu/elementwise.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h. The kernels of
// DITTO_UNARY rows are declared by their rows instead (ops/op_table.cpp).
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
void neg(const Tensor& out, const Tensor& in);
void maximum(const Tensor& out, const Tensor& a, const Tensor& b);
void minimum(const Tensor& out, const Tensor& a, const Tensor& b);
void fmod(const Tensor& out, const Tensor& a, const Tensor& b);
void remainder(const Tensor& out, const Tensor& a, const Tensor& b);
void pow_scalar(const Tensor& out, const Tensor& in, const Scalar& e);
void pow_tensor(const Tensor& out, const Tensor& a, const Tensor& b);
void clamp(const Tensor& out, const Tensor& in, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi);
void add(const Tensor& out, const Tensor& a, const Tensor& b);
void add_scaled(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha);
void sub(const Tensor& out, const Tensor& a, const Tensor& b);
void mul(const Tensor& out, const Tensor& a, const Tensor& b);
void div(const Tensor& out, const Tensor& a, const Tensor& b);
void eq(const Tensor& out, const Tensor& a, const Tensor& b);
void ne(const Tensor& out, const Tensor& a, const Tensor& b);
void lt(const Tensor& out, const Tensor& a, const Tensor& b);
void le(const Tensor& out, const Tensor& a, const Tensor& b);
void gt(const Tensor& out, const Tensor& a, const Tensor& b);
void ge(const Tensor& out, const Tensor& a, const Tensor& b);
void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
void masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
void fill(const Tensor& out, const Scalar& value);
void copy(const Tensor& dst, const Tensor& src);
void arange(const Tensor& out, double start, double step);
void linspace(const Tensor& out, double start, double end);
}  // namespace ditto::cpu
