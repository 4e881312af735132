// Geometry of views: each returns a tensor sharing self's storage.
#include "core/views.h"

#include <algorithm>

#include "core/op_names.h"
#include "core/tensor_impl.h"

namespace ditto::views {
using detail::fail;
using detail::shape_str;
using detail::wrap_dim;

namespace {
// Strides for viewing (sizes, strides) as new_shape without copying, or nullopt when the
// memory layout does not allow it (PyTorch's computeStride).
std::optional<Shape> view_strides(const Shape& sizes, const Shape& strides, const Shape& new_shape) {
  Shape out(new_shape.size());
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (sizes.empty()) {
    std::fill(out.begin(), out.end(), 1);
    return out;
  }
  if (numel == 0) {
    if (sizes == new_shape) return strides;
    return detail::contiguous_strides(new_shape);
  }
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}
}  // namespace

// Resolves one -1 in shape against numel.
static Shape infer_shape(const Shape& shape, int64_t numel, const char* op) {
  Shape out = shape;
  int64_t known = 1, infer = -1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (infer >= 0) fail(op, "only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else if (out[i] < 0) {
      fail(op, "invalid shape dimension ", out[i]);
    } else if (__builtin_mul_overflow(known, out[i], &known)) {
      fail(op, "shape ", shape_str(shape), " overflows int64");
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      fail(op, "shape '", shape_str(shape), "' is invalid for input of size ", numel);
    out[infer] = numel / known;
  } else if (known != numel) {
    fail(op, "shape '", shape_str(shape), "' is invalid for input of size ", numel);
  }
  return out;
}

Tensor view(const TensorBase& self, const Shape& shape) {
  Shape s = infer_shape(shape, self.numel(), op_names::view);
  auto st = view_strides(self.sizes(), self.strides(), s);
  if (!st)
    fail(op_names::view,
         "size is not compatible with input tensor's size and stride (at least one dimension spans across "
         "two contiguous subspaces). Use .reshape(...) instead.");
  return detail::make_view(self, s, *st, self.storage_offset());
}

Tensor transpose(const TensorBase& self, int64_t d0, int64_t d1) {
  const int64_t n = self.dim();
  d0 = wrap_dim(d0, n, op_names::transpose);
  d1 = wrap_dim(d1, n, op_names::transpose);
  if (n == 0) return detail::make_view(self, self.sizes(), self.strides(), self.storage_offset());
  Shape sz = self.sizes(), st = self.strides();
  std::swap(sz[d0], sz[d1]);
  std::swap(st[d0], st[d1]);
  return detail::make_view(self, sz, st, self.storage_offset());
}

Tensor permute(const TensorBase& self, const Shape& dims) {
  const int64_t n = self.dim();
  if (static_cast<int64_t>(dims.size()) != n)
    fail(op_names::permute, "number of dims don't match in permute: got ", dims.size(), " dims for a tensor of ", n,
         " dims");
  Shape sz(n), st(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = wrap_dim(dims[i], n, op_names::permute);
    if (seen[d]) fail(op_names::permute, "repeated dim ", d, " in permutation ", shape_str(dims));
    seen[d] = true;
    sz[i] = self.sizes()[d];
    st[i] = self.strides()[d];
  }
  return detail::make_view(self, sz, st, self.storage_offset());
}

Tensor select(const TensorBase& self, int64_t dim, int64_t index) {
  if (self.dim() == 0) fail(op_names::select, "cannot be applied to a 0-dim tensor");
  dim = wrap_dim(dim, self.dim(), op_names::select);
  const int64_t size = self.sizes()[dim];
  if (index < -size || index >= size)
    detail::fail_index(op_names::select, "index ", index, " is out of bounds for dimension ", dim, " with size ", size);
  if (index < 0) index += size;
  Shape sz = self.sizes(), st = self.strides();
  const int64_t off = self.storage_offset() + index * st[dim];
  sz.erase(sz.begin() + dim);
  st.erase(st.begin() + dim);
  return detail::make_view(self, sz, st, off);
}

Tensor slice(const TensorBase& self, int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (self.dim() == 0) fail(op_names::slice, "cannot be applied to a 0-dim tensor");
  dim = wrap_dim(dim, self.dim(), op_names::slice);
  if (step <= 0) fail(op_names::slice, "step must be positive, got ", step);
  const int64_t size = self.sizes()[dim];
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  Shape sz = self.sizes(), st = self.strides();
  const int64_t off = self.storage_offset() + start * st[dim];
  sz[dim] = end == start ? 0 : 1 + (end - start - 1) / step;  // no overflow for any step
  // a huge step leaves at most one element, whose stride does not matter
  if (__builtin_mul_overflow(st[dim], step, &st[dim])) {
    if (sz[dim] > 1) fail(op_names::slice, "the stride of the result overflows (step ", step, ")");
    st[dim] = self.strides()[dim];
  }
  return detail::make_view(self, sz, st, off);
}

Tensor expand(const TensorBase& self, const Shape& shape) {
  const int64_t n = static_cast<int64_t>(shape.size()), m = self.dim();
  if (n < m)
    fail(op_names::expand, "the number of sizes provided (", n,
         ") must be greater or equal to the number of dimensions in the tensor (", m, ")");
  Shape sz(n), st(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t j = i - (n - m);
    int64_t target = shape[i];
    if (j < 0) {
      if (target < 0)
        fail(op_names::expand, "the expanded size of the tensor (", target,
             ") isn't allowed in a leading, non-existing dimension ", i);
      sz[i] = target;
      st[i] = 0;
      continue;
    }
    const int64_t cur = self.sizes()[j];
    if (target == -1) target = cur;
    if (cur == target) {
      sz[i] = cur;
      st[i] = self.strides()[j];
    } else if (cur == 1) {
      if (target < 0) fail(op_names::expand, "invalid size ", target);
      sz[i] = target;
      st[i] = 0;
    } else {
      fail(op_names::expand, "the expanded size of the tensor (", target, ") must match the existing size (", cur,
           ") at non-singleton dimension ", i, ".  Target sizes: ", shape_str(shape),
           ".  Tensor sizes: ", shape_str(self.sizes()));
    }
  }
  detail::checked_numel(sz, op_names::expand);  // a broadcast view can claim more elements than int64 counts
  return detail::make_view(self, sz, st, self.storage_offset());
}

Tensor squeeze(const TensorBase& self, std::optional<int64_t> dim) {
  Shape sz, st;
  const int64_t d = dim ? wrap_dim(*dim, self.dim(), op_names::squeeze) : -1;
  for (int64_t i = 0; i < self.dim(); ++i) {
    const bool drop = self.sizes()[i] == 1 && (d < 0 || d == i);
    if (!drop) {
      sz.push_back(self.sizes()[i]);
      st.push_back(self.strides()[i]);
    }
  }
  return detail::make_view(self, sz, st, self.storage_offset());
}

Tensor unsqueeze(const TensorBase& self, int64_t dim) {
  dim = wrap_dim(dim, self.dim() + 1, op_names::unsqueeze);
  Shape sz = self.sizes(), st = self.strides();
  const int64_t s = dim < self.dim() ? sz[dim] * st[dim] : 1;
  sz.insert(sz.begin() + dim, 1);
  st.insert(st.begin() + dim, s);
  return detail::make_view(self, sz, st, self.storage_offset());
}

}  // namespace ditto::views
