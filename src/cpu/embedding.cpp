// Embedding backward: each thread owns a range of weight rows and scans the whole index in
// order, so every row's sum has the index order whatever the thread count (as PyTorch's CPU
// kernel); no atomics.
//
// Note [Bag order]
// ----------------
// embedding_bag's forward gives each task whole bags: a bag's row starts at zero and adds its
// kept positions (inside the bag, not padding_idx) in index order, each row times its
// per-sample weight when there is one; mean then multiplies by 1 / count computed in the dtype
// (float32) or divides by the count (float64), PyTorch's arithmetic. max takes, per column, the
// first kept position's value and then any strictly greater one (PyTorch's CPU rule, so a NaN is
// kept only when it comes first). The backward is owner-computes: each task owns a range of
// weight rows and walks every bag's positions in index order, so a row's gradient sums its
// positions in index order (max: its bags in bag order) at every thread count. These are the bits
// of the ops the bag is defined by (embedding, index_add in index order, a gather of the maxima),
// without materialising a row per position.
#include "cpu/decl/embedding.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "cpu/capability.h"
#include "cpu/embedding_impl.h"
#include "cpu/loops.h"

DITTO_BAG_LEVEL(scalar, F32x1, F64x1)

namespace ditto::cpu {

void embedding_backward(const TensorBase& grad_weight, const TensorBase& grad, const TensorBase& indices,
                        int64_t padding_idx) {
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

namespace {
using embedding_kernels::kPrefetch;
using embedding_kernels::prefetch_row;

// The level's bag sum (cpu/embedding_impl.h).
template <class T>
auto bag_sum_kernel() {
  using namespace embedding_kernels;
  if constexpr (std::is_same_v<T, float>)
    return by_level(&bag_sum_f32_scalar, &bag_sum_f32_avx2, &bag_sum_f32_avx512);
  else
    return by_level(&bag_sum_f64_scalar, &bag_sum_f64_avx2, &bag_sum_f64_avx512);
}

// How many of bag b's positions are kept (not padding_idx).
int64_t kept_in(const int64_t* idx, int64_t begin, int64_t end, int64_t padding_idx) {
  int64_t c = 0;
  for (int64_t p = begin; p < end; ++p) c += idx[p] != padding_idx;
  return c;
}
}  // namespace

void embedding_bag(const TensorBase& out, const TensorBase& max_indices, const TensorBase& weight,
                   const TensorBase& indices, const TensorBase& bounds, const TensorBase& per_sample_weights,
                   int64_t mode, int64_t padding_idx) {
  dispatch_floating(weight.dtype(), [&]<class T>() {
    const T* w = weight.data_ptr<T>();
    const int64_t* idx = indices.data_ptr<int64_t>();
    const int64_t* bd = bounds.data_ptr<int64_t>();
    const T* psw = per_sample_weights.defined() ? per_sample_weights.data_ptr<T>() : nullptr;
    T* o = out.data_ptr<T>();
    int64_t* mi = mode == 2 ? max_indices.data_ptr<int64_t>() : nullptr;
    const int64_t B = out.size(0), D = out.size(1), L = indices.numel();
    const int64_t per_bag = B > 0 ? indices.numel() / B + 1 : 1;
    const auto sum = bag_sum_kernel<T>();
    detail::parallel_for(B, per_bag * D, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        T* ob = o + b * D;
        if (mode == 2) {
          std::fill(ob, ob + D, T(0));
          int64_t* mb = mi + b * D;
          std::fill(mb, mb + D, int64_t(-1));
          bool first = true;
          for (int64_t p = bd[b]; p < bd[b + 1]; ++p) {
            if (p + kPrefetch < L) prefetch_row(w + idx[p + kPrefetch] * D, D);
            const int64_t k = idx[p];
            if (k == padding_idx) continue;
            const T* src = w + k * D;
            for (int64_t j = 0; j < D; ++j)
              if (first || src[j] > ob[j]) ob[j] = src[j], mb[j] = k;
            first = false;
          }
          continue;
        }
        sum(w, idx, bd[b], bd[b + 1], L, psw, D, padding_idx, ob);
        if (mode == 1) {
          const int64_t c = kept_in(idx, bd[b], bd[b + 1], padding_idx);
          if (c == 0) continue;
          if constexpr (std::is_same_v<T, float>) {
            const T scale = T(1) / static_cast<T>(c);
            for (int64_t j = 0; j < D; ++j) ob[j] = ob[j] * scale;
          } else {
            for (int64_t j = 0; j < D; ++j) ob[j] = ob[j] / static_cast<T>(c);
          }
        }
      }
    });
  });
}

void embedding_bag_backward(const TensorBase& grad_weight, const TensorBase& grad, const TensorBase& indices,
                            const TensorBase& bounds, const TensorBase& per_sample_weights,
                            const TensorBase& max_indices, int64_t mode, int64_t padding_idx) {
  dispatch_floating(grad_weight.dtype(), [&]<class T>() {
    T* gw = grad_weight.data_ptr<T>();
    const T* g = grad.data_ptr<T>();
    const int64_t* idx = indices.data_ptr<int64_t>();
    const int64_t* bd = bounds.data_ptr<int64_t>();
    const T* psw = per_sample_weights.defined() ? per_sample_weights.data_ptr<T>() : nullptr;
    const int64_t B = grad.size(0), D = grad.size(1), num = grad_weight.size(0);
    if (mode == 2) {
      const int64_t* mi = max_indices.data_ptr<int64_t>();
      detail::parallel_for(num, B * D / (num > 0 ? num : 1) + 1, [&](int64_t begin, int64_t end) {
        for (int64_t e = 0; e < B * D; ++e) {
          const int64_t k = mi[e];
          if (k >= begin && k < end) gw[k * D + e % D] = gw[k * D + e % D] + g[e];
        }
      });
      return;
    }
    // mean's per-bag gradient scale, as its forward: 1 / count in float32, a division in float64
    std::vector<T> scale(mode == 1 ? static_cast<std::size_t>(B) : 0);
    for (int64_t b = 0; b < static_cast<int64_t>(scale.size()); ++b)
      scale[b] = static_cast<T>(std::max<int64_t>(kept_in(idx, bd[b], bd[b + 1], padding_idx), 1));
    const int64_t L = bd[B];
    detail::parallel_for(num, L * D / (num > 0 ? num : 1) + 1, [&](int64_t begin, int64_t end) {
      std::vector<T> row(static_cast<std::size_t>(D));
      for (int64_t b = 0; b < B; ++b) {
        const T* gb = g + b * D;
        if (mode == 1) {  // the gradient of out * (1 / count) (float32) or out / count (float64)
          bool any = false;
          for (int64_t p = bd[b]; p < bd[b + 1] && !any; ++p) any = idx[p] >= begin && idx[p] < end;
          if (!any) continue;
          const T c = scale[static_cast<std::size_t>(b)];
          if constexpr (std::is_same_v<T, float>) {
            const T s = T(1) / c;
            for (int64_t j = 0; j < D; ++j) row[j] = gb[j] * s;
          } else {
            for (int64_t j = 0; j < D; ++j) row[j] = gb[j] / c;
          }
          gb = row.data();
        }
        for (int64_t p = bd[b]; p < bd[b + 1]; ++p) {
          if (p + kPrefetch < L) {
            const int64_t ahead = idx[p + kPrefetch];
            if (ahead >= begin && ahead < end) prefetch_row(gw + ahead * D, D);
          }
          const int64_t k = idx[p];
          if (k == padding_idx || k < begin || k >= end) continue;
          T* dst = gw + k * D;
          if (psw) {
            const T s = psw[p];
            for (int64_t j = 0; j < D; ++j) dst[j] = dst[j] + gb[j] * s;
          } else {
            for (int64_t j = 0; j < D; ++j) dst[j] = dst[j] + gb[j];
          }
        }
      }
    });
  });
}

}  // namespace ditto::cpu
