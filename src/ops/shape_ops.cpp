// Shape ops made of other ops (no rows of their own: their determinism and gradients are those of
// the views, copies, cat and index_select they run): split, chunk, unbind, narrow, repeat, tile,
// flip, roll, movedim, swapaxes. Every one moves elements without arithmetic, so its results and
// gradients are exact.
#include <algorithm>
#include <numeric>
#include <string>

#include "core/checked.h"
#include "ops/common.h"

namespace ditto {
using detail::fail;

namespace {
// x.dim() for dim arguments: a 0-dim tensor takes dim 0 and -1 (PyTorch's wrap rule).
int64_t wrap(const Tensor& x, int64_t dim, const char* op) {
  return detail::wrap_dim(dim, std::max<int64_t>(x.dim(), 1), op);
}
// "[2, 3]", as PyTorch prints an int list in messages
std::string ints(const Shape& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
}  // namespace

std::vector<Tensor> split_with_sizes(const Tensor& x, const std::vector<int64_t>& split_sizes, int64_t dim) {
  detail::check_defined(x, "split_with_sizes");
  DITTO_CHECK(x.dim() > 0, "split_with_sizes", "split expects at least a 1-dimensional tensor");
  const int64_t d = detail::wrap_dim(dim, x.dim(), "split_with_sizes");
  const int64_t size = x.size(d);
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    DITTO_CHECK(
        s >= 0, "split_with_sizes",
        "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=", ints(split_sizes));
    total = detail::checked_add(total, s, "split_with_sizes", "the sum of split_sizes");
  }
  DITTO_CHECK(total == size, "split_with_sizes", "split_with_sizes expects split_sizes to sum exactly to ", size,
              " (input tensor's size at dimension ", d, "), but got split_sizes=", ints(split_sizes));
  std::vector<Tensor> out;
  out.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(x.narrow(d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  detail::check_defined(x, "split");
  DITTO_CHECK(x.dim() > 0, "split", "split expects at least a 1-dimensional tensor");
  DITTO_CHECK(split_size >= 0, "split", "split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t d = detail::wrap_dim(dim, x.dim(), "split");
  const int64_t size = x.size(d);
  DITTO_CHECK(split_size != 0 || size == 0, "split",
              "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  // PyTorch's count: at least one piece, even of an empty dim
  const int64_t pieces =
      split_size == 0 ? 1 : std::max<int64_t>(size / split_size + (size % split_size != 0), 1);  // no overflow
  std::vector<int64_t> sizes(static_cast<std::size_t>(pieces), split_size);
  sizes.back() = size - split_size * (pieces - 1);
  return split_with_sizes(x, sizes, d);
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  detail::check_defined(x, "chunk");
  DITTO_CHECK(x.dim() > 0, "chunk", "chunk expects at least a 1-dimensional tensor");
  DITTO_CHECK(chunks > 0, "chunk", "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = detail::wrap_dim(dim, x.dim(), "chunk");
  const int64_t size = x.size(d);
  const int64_t split_size = size / chunks + (size % chunks != 0);  // ceil, without overflow
  // An empty dim gives `chunks` empty pieces (PyTorch calls split_with_sizes for this case).
  if (size == 0) return split_with_sizes(x, std::vector<int64_t>(static_cast<std::size_t>(chunks), 0), d);
  return split(x, split_size, d);
}

std::vector<Tensor> unbind(const Tensor& x, int64_t dim) {
  detail::check_defined(x, "unbind");
  DITTO_CHECK(x.dim() > 0, "unbind", "Dimension specified as 0 but tensor has no dimensions");
  const int64_t d = detail::wrap_dim(dim, x.dim(), "unbind");
  std::vector<Tensor> out;
  out.reserve(static_cast<std::size_t>(x.size(d)));
  for (int64_t i = 0; i < x.size(d); ++i) out.push_back(x.select(d, i));
  return out;
}

Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) { return x.narrow(dim, start, length); }

Tensor repeat(const Tensor& x, const Shape& repeats) {
  detail::check_defined(x, "repeat");
  const int64_t nd = static_cast<int64_t>(repeats.size());
  DITTO_CHECK(nd >= x.dim(), "repeat",
              "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  // x seen as (1, s0, 1, s1, ...) after leading ones, expanded to (r0, s0, r1, s1, ...) and
  // copied to (r0 s0, r1 s1, ...): the expand's gradient sums the copies.
  Shape pairs, expanded, out_shape;
  int64_t numel = 1;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t r = repeats[static_cast<std::size_t>(i)];
    DITTO_CHECK(r >= 0, "repeat", "Trying to create tensor with negative dimension ", r, ": ", ints(repeats));
    const int64_t lead = nd - x.dim();
    const int64_t s = i < lead ? 1 : x.size(i - lead);
    pairs.insert(pairs.end(), {1, s});
    expanded.insert(expanded.end(), {r, s});
    out_shape.push_back(detail::checked_mul(r, s, "repeat", "the result's size"));
    numel = detail::checked_mul(numel, out_shape.back(), "repeat", "the result's number of elements");
    (void)numel;
  }
  const Tensor out = x.reshape(pairs).expand(expanded).reshape(out_shape);
  return out.storage() == x.storage() ? out.clone() : out;  // always a new tensor, as PyTorch's
}

Tensor tile(const Tensor& x, const Shape& reps) {
  detail::check_defined(x, "tile");
  Shape r = reps;
  if (static_cast<int64_t>(r.size()) < x.dim()) r.insert(r.begin(), static_cast<std::size_t>(x.dim()) - r.size(), 1);
  return repeat(x, r);
}

Tensor flip(const Tensor& x, const DimList& dims_in) {
  detail::check_defined(x, "flip");
  const Shape& given = dims_in;
  Shape dims;
  for (int64_t d : given) {
    const int64_t w = wrap(x, d, "flip");
    if (std::find(dims.begin(), dims.end(), w) == dims.end()) dims.push_back(w);
  }
  DITTO_CHECK(dims.size() == given.size(), "flip", "dims has duplicates, original flip dims size=", given.size(),
              ", but unique flip dims size=", dims.size());
  if (x.dim() == 0) return x.clone();
  Tensor out = x;
  for (int64_t d : dims) {
    const int64_t n = x.size(d);
    if (n <= 1) continue;
    out = index_select(out, d, arange(Scalar(n - 1), Scalar(-1), Scalar(-1)));
  }
  return dims.empty() || out.storage() == x.storage() ? x.clone() : out;
}

Tensor roll(const Tensor& x, const DimList& shifts_in, const DimList& dims_in) {
  detail::check_defined(x, "roll");
  const Shape &shifts = shifts_in, &dims = dims_in;
  DITTO_CHECK(!shifts.empty(), "roll", "`shifts` required");
  if (dims.empty()) {  // over the flattened x
    DITTO_CHECK(shifts.size() == 1, "roll", "shifts and dimensions must align. shifts: ", shifts.size(),
                ", dims:", dims.size());
    return roll(x.flatten(), shifts, {0}).view(x.sizes());
  }
  DITTO_CHECK(shifts.size() == dims.size(), "roll", "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  Tensor out = x;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap(x, dims[i], "roll");
    const int64_t n = x.dim() == 0 ? 1 : x.size(d);
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;  // in [0, n)
    if (s == 0) continue;
    // the last s elements first, then the rest
    out = cat({out.narrow(d, n - s, s), out.narrow(d, 0, n - s)}, d);
  }
  return out.storage() == x.storage() ? x.clone() : out;
}

Tensor movedim(const Tensor& x, const DimList& source_in, const DimList& destination_in) {
  detail::check_defined(x, "movedim");
  const Shape &src = source_in, &dst = destination_in;
  DITTO_CHECK(src.size() == dst.size(), "movedim", "movedim: Invalid source or destination dims: source (", ints(src),
              " dims) should contain the same number of dims as destination (", ints(dst), " dims)");
  const int64_t nd = x.dim();
  const int64_t n = std::max<int64_t>(nd, 1);
  std::vector<int64_t> perm(static_cast<std::size_t>(n), -1);
  std::vector<bool> used(static_cast<std::size_t>(n), false);
  for (std::size_t i = 0; i < src.size(); ++i) {
    const int64_t s = wrap(x, src[i], "movedim"), t = wrap(x, dst[i], "movedim");
    DITTO_CHECK(!used[static_cast<std::size_t>(s)], "movedim", "movedim: repeated dim in `source` (", ints(src), ")");
    DITTO_CHECK(perm[static_cast<std::size_t>(t)] < 0, "movedim", "movedim: repeated dim in `destination` (", ints(dst),
                ")");
    used[static_cast<std::size_t>(s)] = true;
    perm[static_cast<std::size_t>(t)] = s;
  }
  if (nd == 0) return x.view({});
  int64_t next = 0;  // the dims not moved fill the free places in order
  for (auto& p : perm) {
    if (p >= 0) continue;
    while (used[static_cast<std::size_t>(next)]) ++next;
    p = next++;
  }
  return x.permute(Shape(perm.begin(), perm.end()));
}

Tensor swapaxes(const Tensor& x, int64_t axis0, int64_t axis1) { return x.transpose(axis0, axis1); }

// --- Tensor methods
std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim) const {
  return ditto::split(*this, split_size, dim);
}
std::vector<Tensor> Tensor::split(const std::vector<int64_t>& split_sizes, int64_t dim) const {
  return ditto::split_with_sizes(*this, split_sizes, dim);
}
std::vector<Tensor> Tensor::split_with_sizes(const std::vector<int64_t>& split_sizes, int64_t dim) const {
  return ditto::split_with_sizes(*this, split_sizes, dim);
}
std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const { return ditto::chunk(*this, chunks, dim); }
std::vector<Tensor> Tensor::unbind(int64_t dim) const { return ditto::unbind(*this, dim); }
Tensor Tensor::movedim(const DimList& source, const DimList& destination) const {
  return ditto::movedim(*this, source, destination);
}
Tensor Tensor::swapaxes(int64_t axis0, int64_t axis1) const { return ditto::swapaxes(*this, axis0, axis1); }
Tensor Tensor::repeat(const Shape& repeats) const { return ditto::repeat(*this, repeats); }
Tensor Tensor::tile(const Shape& reps) const { return ditto::tile(*this, reps); }
Tensor Tensor::flip(const DimList& dims) const { return ditto::flip(*this, dims); }
Tensor Tensor::roll(const DimList& shifts, const DimList& dims) const { return ditto::roll(*this, shifts, dims); }

}  // namespace ditto
