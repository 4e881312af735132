#pragma once
// Backward formulas of the table's ops, written with public ops (docs/design.md: backward as data in
// terms of public ops). Each is named in op_table.def beside its op.
#include "autograd/saved.h"

namespace ditto::autograd::formulas {
using Grads = std::vector<Tensor>;
#define DITTO_FORMULA(name) Grads name(const Saved& s, const Grads& g)
DITTO_FORMULA(view);
DITTO_FORMULA(transpose);
DITTO_FORMULA(permute);
DITTO_FORMULA(select);
DITTO_FORMULA(slice);
DITTO_FORMULA(identity);  // expand (the engine sums back), copies, casts
DITTO_FORMULA(neg);
DITTO_FORMULA(abs);
DITTO_FORMULA(exp);
DITTO_FORMULA(log);
DITTO_FORMULA(sqrt);
DITTO_FORMULA(rsqrt);
DITTO_FORMULA(sigmoid);
DITTO_FORMULA(tanh);
DITTO_FORMULA(relu);
DITTO_FORMULA(pow_scalar);
DITTO_FORMULA(pow_tensor);
DITTO_FORMULA(clamp);
DITTO_FORMULA(add);
DITTO_FORMULA(add_scaled);
DITTO_FORMULA(sub);
DITTO_FORMULA(mul);
DITTO_FORMULA(div);
DITTO_FORMULA(where);
DITTO_FORMULA(masked_fill);
DITTO_FORMULA(sum);
DITTO_FORMULA(mean);
DITTO_FORMULA(prod);
DITTO_FORMULA(amax);
DITTO_FORMULA(max_dim);
DITTO_FORMULA(var);
DITTO_FORMULA(softmax);
DITTO_FORMULA(log_softmax);
DITTO_FORMULA(mm);
DITTO_FORMULA(bmm);
DITTO_FORMULA(addmm);
DITTO_FORMULA(cat);
DITTO_FORMULA(index_select);
DITTO_FORMULA(gather);
DITTO_FORMULA(index_add);
DITTO_FORMULA(scatter_add);
// formulas_scatter.cpp: index_copy, index_put, put, scatter_reduce
DITTO_FORMULA(index_copy);
DITTO_FORMULA(index_put);
DITTO_FORMULA(put);
DITTO_FORMULA(scatter_reduce);
// formulas_conv.cpp: convolution and pooling
DITTO_FORMULA(conv2d);
DITTO_FORMULA(max_pool2d);
DITTO_FORMULA(avg_pool2d);
DITTO_FORMULA(adaptive_avg_pool2d);
DITTO_FORMULA(max_unpool);
// formulas_nn.cpp: pointwise ops with several operands, GELU, embedding
DITTO_FORMULA(lerp);
DITTO_FORMULA(addcmul);
DITTO_FORMULA(addcdiv);
DITTO_FORMULA(gelu);
DITTO_FORMULA(embedding);
}  // namespace ditto::autograd::formulas
