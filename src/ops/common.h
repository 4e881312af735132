#pragma once
// Helpers shared by the public ops.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "autograd/graph.h"
#include "core/dtype_dispatch.h"
#include "core/parallel.h"
#include "core/tensor_impl.h"
#include "cpu/reduce_kernels.h"
#include "ditto/factory.h"
#include "ditto/ops.h"
#include "ops/dispatch.h"
#include "ops/formulas.h"

namespace ditto::ops {

// The name PyTorch's dispatch macros give a dtype in "... not implemented for 'Long'".
inline const char* aten_type_name(ScalarType t) {
  switch (t) {
    case kBool: return "Bool";
    case kInt32: return "Int";
    case kInt64: return "Long";
    case kFloat32: return "Float";
    case kFloat64: return "Double";
  }
  return "?";
}

// The backward formula of op id and the state it takes, from its DITTO_BACKWARD row.
template <OpId id>
struct Formula;
#define DITTO_BACKWARD(id, node, fn, S, uses)              \
  template <>                                              \
  struct Formula<OpId::id> {                               \
    using State = autograd::formulas::S;                   \
    static constexpr auto value = &autograd::formulas::fn; \
  };
#include "ops/op_table.def"

// Whether op id has a DITTO_BACKWARD row.
template <OpId id>
concept Differentiable = requires {
  Formula<id>::value;
};

// Records op id's node (autograd::record_node): the op's name, node name and formula come from
// its row, and state is what the formula takes (a type mismatch does not compile). node_name
// overrides the row's (one op, several PyTorch names: clone/to/contiguous).
template <OpId id, class State>
void record(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs, State state,
            const char* node_name = nullptr) {
  static_assert(std::is_same_v<typename Formula<id>::State, State>,
                "the state passed to ops::record is not the one the op's DITTO_BACKWARD row names");
  const OpEntry& e = op_entry(id);
  autograd::record_node(e.name, node_name ? node_name : e.node_name,
                        std::make_unique<autograd::TypedSaved<State>>(std::move(state), Formula<id>::value), inputs,
                        outputs);
}

// record<id2> or, when spatial_dims is 3, record<id3> (the 2-D and 3-D rows of one op).
template <OpId id2, OpId id3, class State>
void record_by_dims(int spatial_dims, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                    State state) {
  if (spatial_dims == 3)
    record<id3>(inputs, outputs, std::move(state));
  else
    record<id2>(inputs, outputs, std::move(state));
}

// An in-place op computed out of place: result copied into self (whose version is bumped), and
// self's history rebased on result's, so self's grad_fn is the op's node (op names it in errors).
// Callers check autograd::check_inplace(self, op) before computing result.
inline Tensor& assign_inplace(Tensor& self, const Tensor& result, const char* op) {
  {
    NoGradGuard no_grad;
    call<OpId::copy_>(self.device(), self, result);
  }
  self.storage()->bump_version();
  autograd::rebase_history(self, result, op);
  return self;
}

// The smallest and largest of p[0, n), n > 0, in one pass: parts in parallel, then combined
// (exact, so the thread count changes nothing). Replaces amin + amax for index checks, which
// read the data twice.
template <class I>
std::pair<int64_t, int64_t> integer_range(const I* p, int64_t n) {
  const int64_t parts = std::clamp<int64_t>(n / 65536, 1, detail::num_threads());
  std::vector<std::pair<int64_t, int64_t>> r(static_cast<std::size_t>(parts));
  detail::parallel_for(parts, (n + parts - 1) / parts, [&](int64_t b, int64_t e) {
    for (int64_t q = b; q < e; ++q) {
      const int64_t lo = q * n / parts, hi = (q + 1) * n / parts;
      int64_t mn = static_cast<int64_t>(p[lo]), mx = mn;
      if constexpr (std::is_same_v<I, int64_t>) {
        cpu::range_chunk(p + lo, hi - lo, &mn, &mx);
      } else {
        for (int64_t i = lo + 1; i < hi; ++i) {
          const int64_t v = static_cast<int64_t>(p[i]);
          mn = v < mn ? v : mn;
          mx = v > mx ? v : mx;
        }
      }
      r[static_cast<std::size_t>(q)] = {mn, mx};
    }
  });
  std::pair<int64_t, int64_t> out = r[0];
  for (const auto& [mn, mx] : r) out = {std::min(out.first, mn), std::max(out.second, mx)};
  return out;
}

// The first of p[0, n) outside [0, size), or n when all are inside: one branch-free pass over
// slices in parallel (unsigned compare: negatives are huge), then, only when one failed, a serial
// search for the first, so the message does not depend on the threads.
template <class I>
int64_t first_out_of_range(const I* p, int64_t n, int64_t size) {
  std::atomic<bool> any_bad{false};
  detail::parallel_for(n, 1, [&](int64_t b, int64_t e) {
    bool bad = false;
    for (int64_t i = b; i < e; ++i)
      bad |= static_cast<uint64_t>(static_cast<int64_t>(p[i])) >= static_cast<uint64_t>(size);
    if (bad) any_bad.store(true, std::memory_order_relaxed);
  });
  if (!any_bad.load()) return n;
  int64_t i = 0;
  while (i < n && p[i] >= 0 && p[i] < size) ++i;
  return i;
}

// index (int32 or int64, any shape) as a contiguous 1-D int64 tensor, checked against
// [-size, size) (or [0, size)), negatives wrapped. bad(v) reports an index out of range (throws).
template <class Bad>
Tensor checked_index(const Tensor& index, int64_t size, bool allow_negative, Bad bad) {
  Tensor out = detail::new_tensor({index.numel()}, kInt64, "index");
  int64_t* o = out.data_ptr<int64_t>();
  const Tensor idx = index.detach().contiguous();
  core::dispatch_dtype(idx.dtype(), [&]<class I>() {
    if constexpr (std::is_same_v<I, int32_t> || std::is_same_v<I, int64_t>) {
      const I* p = idx.data_ptr<I>();
      for (int64_t i = 0, n = idx.numel(); i < n; ++i) {
        const int64_t v = static_cast<int64_t>(p[i]);
        if (v >= size || v < (allow_negative ? -size : 0)) bad(v);
        o[i] = v < 0 ? v + size : v;
      }
    }
  });
  return out;
}

// x (contiguous) viewed as (outer, n, inner) around dim d, the lines of the scans and softmax; a
// 0-dim tensor is one line of one.
inline Tensor lines(const Tensor& x, int64_t d) {
  if (x.dim() == 0) return x.view({1, 1, 1});
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= x.size(i);
  for (int64_t i = d + 1; i < x.dim(); ++i) inner *= x.size(i);
  return x.view({outer, x.size(d), inner});
}

}  // namespace ditto::ops

namespace ditto::detail {

inline int category(ScalarType t) { return is_floating(t) ? 2 : t == kBool ? 0 : 1; }
// t converted to dtype (t itself when it already has it).
Tensor cast(const Tensor& t, ScalarType dtype);
// A 0-dim tensor holding s with the given dtype.
Tensor wrap_scalar(const Scalar& s, ScalarType dtype);
// Normalised, sorted, unique dims; empty input means every dim.
Shape reduce_dims(const Shape& dims, int64_t ndim, const char* op);
void check_defined(const Tensor& t, const char* op, const char* what = "input");
// PyTorch's checked_convert: a scalar stored into dtype must fit it ("value cannot be converted
// to type int32 without overflow"); floating dtypes take inf and NaN, bool takes anything.
void check_fits(const Scalar& s, ScalarType dtype, const char* op);
// index_add for an index whose values were checked already (the backward of index_select, which
// saved it): every other argument is still checked.
Tensor index_add_checked_index(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
// Fills t with NaN (floating) or the dtype's largest value, as PyTorch's fill_uninitialized_memory.
void fill_uninitialized(const Tensor& t);

}  // namespace ditto::detail
