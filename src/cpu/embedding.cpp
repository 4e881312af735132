// Embedding backward: each thread owns a range of weight rows and scans the whole index in
// order, so every row's sum has the index order whatever the thread count (as PyTorch's CPU
// kernel); no atomics.
#include "cpu/decl/embedding.h"

#include "cpu/loops.h"

namespace ditto::cpu {

void embedding_backward(const Tensor& grad_weight, const Tensor& grad, const Tensor& indices, int64_t padding_idx) {
  dispatch_floating(grad_weight.dtype(), [&]<class T>() {
    T* gw = grad_weight.data_ptr<T>();
    const T* g = grad.data_ptr<T>();
    const int64_t* idx = indices.data_ptr<int64_t>();
    const int64_t n = indices.numel(), dim = grad_weight.size(1);
    detail::parallel_for(grad_weight.size(0), n, [&](int64_t begin, int64_t end) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t k = idx[i];
        if (k == padding_idx || k < begin || k >= end) continue;
        T* dst = gw + k * dim;
        const T* src = g + i * dim;
        for (int64_t j = 0; j < dim; ++j) dst[j] = dst[j] + src[j];
      }
    });
  });
}

}  // namespace ditto::cpu
