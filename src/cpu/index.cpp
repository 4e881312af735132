// Joining and indexing kernels. Indices were checked by the public ops.
#include "cpu/loops.h"
#include "ops/kernels.h"

namespace ditto::cpu {

void cat(const Tensor& out, const std::vector<Tensor>& inputs, int64_t dim) {
  int64_t offset = 0;
  for (const Tensor& t : inputs) {
    if (t.dim() == 1 && t.numel() == 0 && out.dim() != 1) continue;  // legacy empty inputs are skipped
    const int64_t len = t.size(dim);
    if (len == 0) continue;
    Tensor dst = views::slice(out, dim, offset, offset + len, 1);
    copy(dst, t);
    offset += len;
  }
}

void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  const int64_t n = index.numel();
  with_index(index, [&]<class I>() {
    const Tensor idx = index.contiguous();
    const I* ip = idx.data_ptr<I>();
    for (int64_t k = 0; k < n; ++k) copy(views::select(out, dim, k), views::select(in, dim, ip[k]));
  });
}

void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  with_index(index, [&]<class I>() {
    dispatch_dtype(in.dtype(), [&]<class T>() {
      const Shape& sz = out.sizes();
      const int64_t nd = out.dim();
      const int64_t n = out.numel();
      const T* src = in.data_ptr<T>();
      T* dst = out.data_ptr<T>();  // out is contiguous
      const I* ip = static_cast<const I*>(index.raw_data());
      detail::parallel_for(n, 4, [&](int64_t b, int64_t e) {
        Shape pos(nd);
        for (int64_t flat = b; flat < e; ++flat) {
          int64_t r = flat;
          for (int64_t d = nd - 1; d >= 0; --d) {
            pos[d] = r % sz[d];
            r /= sz[d];
          }
          int64_t ioff = 0, soff = 0;
          for (int64_t d = 0; d < nd; ++d) ioff += pos[d] * index.stride(d);
          const int64_t j = static_cast<int64_t>(ip[ioff]);
          for (int64_t d = 0; d < nd; ++d) soff += (d == dim ? j : pos[d]) * in.stride(d);
          dst[flat] = src[soff];
        }
      });
    });
  });
}

}  // namespace ditto::cpu
