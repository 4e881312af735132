// Joining and indexing kernels. Indices were checked by the public ops.
#include "cpu/decl/index.h"

#include <cstring>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/parallel.h"
#include "core/views.h"
#include "cpu/decl/elementwise.h"
#include "cpu/loops.h"
#include "ditto/factory.h"

namespace ditto::cpu {

void cat(const TensorBase& out, const std::vector<Tensor>& inputs, int64_t dim) {
  int64_t offset = 0;
  for (const Tensor& t : inputs) {
    if (t.dim() == 1 && t.numel() == 0 && out.dim() != 1) continue;  // legacy empty inputs are skipped
    const int64_t len = t.size(dim);
    if (t.numel() > 0)
      copy(views::slice(out, dim, offset, offset + len, 1), t);  // (an empty slice's offset may be huge)
    offset += len;
  }
}

void index_select(const TensorBase& out, const TensorBase& in, int64_t dim, const TensorBase& index) {
  const int64_t n = index.numel();
  with_index(index, [&]<class I>() {
    const Tensor idx = Tensor(index).contiguous();
    const I* ip = idx.data_ptr<I>();
    if (!in.is_contiguous()) {  // strided input: one strided copy per selected slice
      for (int64_t k = 0; k < n; ++k) copy(views::select(out, dim, k), views::select(in, dim, ip[k]));
      return;
    }
    // in as (A, N, B) rows around dim, out (contiguous) as (A, n, B): out row (a, k) is in row
    // (a, ip[k]); every output row is written once.
    int64_t A = 1, B = 1;
    for (int64_t d = 0; d < dim; ++d) A *= in.size(d);
    for (int64_t d = dim + 1; d < in.dim(); ++d) B *= in.size(d);
    const int64_t N = in.size(dim);
    const std::size_t row = static_cast<std::size_t>(B) * in.element_size();
    const char* src = static_cast<const char*>(in.raw_data());
    char* dst = static_cast<char*>(out.raw_data());
    detail::parallel_for(A * n, B, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const int64_t a = t / n, j = static_cast<int64_t>(ip[t % n]);
        std::memcpy(dst + static_cast<std::size_t>(t) * row, src + static_cast<std::size_t>(a * N + j) * row, row);
      }
    });
  });
}

// The coordinates of in's nonzero elements in row-major order: parts of the input counted side by
// side, their offsets summed in part order, then each part writes its own rows. Exact, so the
// split changes nothing.
Tensor nonzero(const TensorBase& in) {
  const int64_t n = in.numel(), d = in.dim();
  return core::dispatch_dtype(in.dtype(), [&]<class T>() {
    const T* p = in.data_ptr<T>();
    constexpr int64_t kPart = 1 << 16;
    const int64_t parts = (n + kPart - 1) / kPart;
    std::vector<int64_t> start(static_cast<std::size_t>(parts + 1), 0);
    detail::parallel_for(parts, kPart, [&](int64_t b, int64_t e) {
      for (int64_t q = b; q < e; ++q) {
        int64_t c = 0;
        for (int64_t i = q * kPart, end = std::min(n, (q + 1) * kPart); i < end; ++i) c += p[i] != T(0);
        start[q + 1] = c;
      }
    });
    for (int64_t q = 0; q < parts; ++q) start[q + 1] += start[q];
    Tensor out = empty({start[parts], d}, kInt64);
    int64_t* o = out.data_ptr<int64_t>();
    const Shape& sizes = in.sizes();
    detail::parallel_for(parts, kPart, [&](int64_t b, int64_t e) {
      std::vector<int64_t> coord(static_cast<std::size_t>(d));
      for (int64_t q = b; q < e; ++q) {
        int64_t row = start[q];
        for (int64_t i = q * kPart, end = std::min(n, (q + 1) * kPart); i < end; ++i) {
          if (!(p[i] != T(0))) continue;
          for (int64_t k = d - 1, r = i; k >= 0; --k) {  // the row-major coordinates of i
            coord[k] = r % sizes[k];
            r /= sizes[k];
          }
          std::copy(coord.begin(), coord.end(), o + row++ * d);
        }
      }
    });
    return out;
  });
}

}  // namespace ditto::cpu
