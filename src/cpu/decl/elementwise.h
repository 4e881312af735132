#pragma once
// The kernels of cpu/elementwise.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h. The kernels of
// DITTO_UNARY rows are declared by their rows instead (ops/op_table.cpp).
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void neg(const TensorBase& out, const TensorBase& in);
void maximum(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void minimum(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void fmod(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void remainder(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void pow_scalar(const TensorBase& out, const TensorBase& in, const Scalar& e);
void pow_tensor(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void clamp(const TensorBase& out, const TensorBase& in, const std::optional<Scalar>& lo,
           const std::optional<Scalar>& hi);
void add(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void add_scaled(const TensorBase& out, const TensorBase& a, const TensorBase& b, const Scalar& alpha);
void sub(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void mul(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void div(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void eq(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void ne(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void lt(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void le(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void gt(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void ge(const TensorBase& out, const TensorBase& a, const TensorBase& b);
void where(const TensorBase& out, const TensorBase& cond, const TensorBase& a, const TensorBase& b);
void masked_fill(const TensorBase& self, const TensorBase& mask, const Scalar& value);
void fill(const TensorBase& out, const Scalar& value);
void copy(const TensorBase& dst, const TensorBase& src);
void arange(const TensorBase& out, double start, double step);
void linspace(const TensorBase& out, double start, double end);
}  // namespace ditto::cpu
