// ditto::audit's tensor hash (core/audit_hash.h): the bits in logical order, read in place when the
// tensor is contiguous and otherwise gathered block by block into a small buffer.
#include "core/audit_hash.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/audit_xxh3_impl.h"
#include "core/transpose.h"
#include "ditto/capability.h"

namespace ditto::detail {

uint64_t audit_xxh3_scalar(HashSource src) { return xxh3_pieces(src); }

namespace {

constexpr std::size_t kBufferBytes = std::size_t{256} << 10;

// The kernel level in use, by its public name (core is below cpu/capability.h): 0 scalar, 1 AVX2,
// 2 AVX-512.
int level() {
  const char* name = cpu_capability_name();
  return name[0] == 's' ? 0 : std::strcmp(name, "avx2") == 0 ? 1 : 2;
}

// The pieces of a strided tensor, viewed as outer dims x rows x cols (the last two dims): blocks
// of whole rows (or, for rows longer than the buffer, pieces of one row) gathered into the buffer
// column by column, so that a transposed matrix is read along its columns.
template <std::size_t W>
struct Strided {
  const char* base;
  std::vector<int64_t> outer_sizes, outer_strides, index;  // bytes
  int64_t rows, cols, row_stride, col_stride;              // bytes
  int64_t row = 0, col = 0;                                // where the next piece starts
  bool done = false;
  bool transpose4;  // a transposed matrix of 4-byte elements, at a level with AVX2
  std::vector<char>& buf;

  Strided(const TensorBase& t, std::vector<char>& b, int lvl) : base(static_cast<const char*>(t.raw_data())), buf(b) {
    const int64_t nd = t.dim();
    const auto w = static_cast<int64_t>(W);
    rows = nd >= 2 ? t.size(nd - 2) : 1;
    cols = nd >= 1 ? t.size(nd - 1) : 1;
    row_stride = nd >= 2 ? t.strides()[static_cast<std::size_t>(nd - 2)] * w : 0;
    col_stride = nd >= 1 ? t.strides()[static_cast<std::size_t>(nd - 1)] * w : 0;
    for (int64_t d = 0; d + 2 < nd; ++d) {
      outer_sizes.push_back(t.size(d));
      outer_strides.push_back(t.strides()[static_cast<std::size_t>(d)] * w);
    }
    index.assign(outer_sizes.size(), 0);
    transpose4 = W == 4 && row_stride == 4 && lvl > 0;
  }

  const char* origin() const {
    const char* p = base;
    for (std::size_t d = 0; d < index.size(); ++d) p += index[d] * outer_strides[d];
    return p;
  }
  void advance_outer() {
    row = 0;
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < outer_sizes[d]) return;
      index[d] = 0;
    }
    done = true;
  }

  static std::size_t next(void* ctx, const void** out) {
    auto* s = static_cast<Strided*>(ctx);
    if (s->done) return 0;
    const auto cap = static_cast<int64_t>(kBufferBytes / W);
    const char* o = s->origin();
    char* dst = s->buf.data();
    std::size_t n = 0;
    if (s->cols > cap) {  // a piece of one row
      const int64_t c1 = std::min(s->cols, s->col + cap);
      const char* src = o + s->row * s->row_stride;
      for (int64_t c = s->col; c < c1; ++c) std::memcpy(dst + (c - s->col) * W, src + c * s->col_stride, W);
      n = static_cast<std::size_t>(c1 - s->col) * W;
      s->col = c1 == s->cols ? 0 : c1;
      if (s->col == 0 && ++s->row == s->rows) s->advance_outer();
    } else {  // whole rows
      const int64_t r1 = std::min(s->rows, s->row + cap / s->cols);
      const int64_t nr = r1 - s->row;
      if (s->col_stride == static_cast<int64_t>(W)) {
        for (int64_t r = 0; r < nr; ++r)
          std::memcpy(dst + r * s->cols * W, o + (s->row + r) * s->row_stride, static_cast<std::size_t>(s->cols) * W);
      } else if (s->transpose4) {
        transpose4_avx2(o + s->row * 4, s->col_stride, dst, s->cols * 4, nr, s->cols);
      } else {
        // tiles of 16 rows: the 16 elements of a column are near (one cache line when the matrix
        // is transposed), and the 16 rows they go to stay in L1
        constexpr int64_t kTile = 16;
        const auto w = static_cast<int64_t>(W);
        for (int64_t r0 = 0; r0 < nr; r0 += kTile) {
          const int64_t r1 = std::min(nr, r0 + kTile);
          const char* src = o + (s->row + r0) * s->row_stride;
          char* out = dst + r0 * s->cols * w;
          for (int64_t c = 0; c < s->cols; ++c)
            for (int64_t r = 0; r < r1 - r0; ++r)
              std::memcpy(out + (r * s->cols + c) * w, src + c * s->col_stride + r * s->row_stride, W);
        }
      }
      n = static_cast<std::size_t>(nr * s->cols) * W;
      s->row = r1;
      if (s->row == s->rows) s->advance_outer();
    }
    *out = s->buf.data();
    return n;
  }
};

uint64_t xxh3(HashSource src, int lvl) {
  switch (lvl) {
    case 2: return audit_xxh3_avx512(src);
    case 1: return audit_xxh3_avx2(src);
    default: return audit_xxh3_scalar(src);
  }
}

template <std::size_t W>
uint64_t hash_strided(const TensorBase& t, int lvl) {
  thread_local std::vector<char> buf(kBufferBytes);
  Strided<W> s(t, buf, lvl);
  return xxh3({nullptr, 0, &s, &Strided<W>::next}, lvl);
}

}  // namespace

uint64_t audit_hash(const TensorBase& t) {
  const std::size_t w = t.element_size();
  const int lvl = level();
  if (t.numel() == 0 || t.is_contiguous())
    return xxh3({t.numel() ? t.raw_data() : nullptr, static_cast<std::size_t>(t.numel()) * w, nullptr, nullptr}, lvl);
  switch (w) {
    case 1: return hash_strided<1>(t, lvl);
    case 2: return hash_strided<2>(t, lvl);
    case 4: return hash_strided<4>(t, lvl);
    default: return hash_strided<8>(t, lvl);
  }
}

}  // namespace ditto::detail
