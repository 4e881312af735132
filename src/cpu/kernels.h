#pragma once
// The CPU kernels: what each kernel file defines, and the argument structs they take. Public ops
// (src/ops/) check arguments, work out shapes and dtypes, allocate outputs and then call a kernel
// chosen by the dispatcher from the op table (ops/op_table.def); kernels see only validated
// arguments. Each kernel's contract is its signature's in ops/signatures.h.
#include <optional>
#include <vector>

#include "cpu/kernel_args.h"
#include "ditto/tensor.h"

namespace ditto {

namespace cpu {
// elementwise.cpp
void neg(const Tensor& out, const Tensor& in);
void abs(const Tensor& out, const Tensor& in);
void sign(const Tensor& out, const Tensor& in);
void exp(const Tensor& out, const Tensor& in);
void log(const Tensor& out, const Tensor& in);
void sqrt(const Tensor& out, const Tensor& in);
void rsqrt(const Tensor& out, const Tensor& in);
void sigmoid(const Tensor& out, const Tensor& in);
void tanh(const Tensor& out, const Tensor& in);
void relu(const Tensor& out, const Tensor& in);
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
// reduce.cpp
void sum(const Tensor& out, const Tensor& in);
void mean(const Tensor& out, const Tensor& in);
void prod(const Tensor& out, const Tensor& in);
void amax(const Tensor& out, const Tensor& in);
void amin(const Tensor& out, const Tensor& in);
void max_dim(const Tensor& values, const Tensor& indices, const Tensor& in);
void min_dim(const Tensor& values, const Tensor& indices, const Tensor& in);
void argmax(const Tensor& indices, const Tensor& in);
void argmin(const Tensor& indices, const Tensor& in);
void var(const Tensor& out, const Tensor& in, int64_t correction, bool take_sqrt);
void softmax(const Tensor& out, const Tensor& in);
void log_softmax(const Tensor& out, const Tensor& in);
// gemm.cpp
void bmm(const Tensor& out, const Tensor& a, const Tensor& b);
void addmm(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
           const Scalar& alpha);
// index.cpp
void cat(const Tensor& out, const std::vector<Tensor>& inputs, int64_t dim);
void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
// scatter.cpp: gather and the scatter-style kernels, each of which owns its outputs (Note
// [Scatter lines]; rows in index order), so their results depend only on the inputs.
bool gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
bool scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
bool scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduction reduce,
                    bool include_self);
void index_add_ordered(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
void index_copy_ordered(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
// conv.cpp
void conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dArgs& args);
void conv2d_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                           const Conv2dArgs& args);
void conv2d_backward_weight(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                            const Conv2dArgs& args);
// pool.cpp
void max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& input, const Pool2dArgs& args);
void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices);
void avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dArgs& args);
void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dArgs& args);
void adaptive_avg_pool2d(const Tensor& out, const Tensor& input);
void adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out);
void max_unpool_racing(const Tensor& out, const Tensor& input, const Tensor& indices);
// pointwise.cpp
void lerp(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& weight);
void addcmul(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
void addcdiv(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
void gelu(const Tensor& out, const Tensor& in, bool tanh_approx);
void gelu_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& in, bool tanh_approx);
void threshold_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& self, const Scalar& threshold);
// embedding.cpp
void embedding_backward(const Tensor& grad_weight, const Tensor& grad, const Tensor& indices, int64_t padding_idx);
}  // namespace cpu

}  // namespace ditto
