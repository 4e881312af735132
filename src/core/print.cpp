#include "core/print.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace ditto::detail {
namespace {

// PyTorch's default print options.
constexpr int kPrecision = 4;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int64_t kLineWidth = 80;

// Python's '{:.Nf}' / '{:.Ne}': glibc's printf rounds the exact binary value the same way
// (half to even on exact ties); only nan differs (C may print "-nan", Python never does).
std::string py_format(double v, char conv, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char spec[8] = {'%', '.', 0, 0, 0, 0, 0, 0};
  std::snprintf(spec + 2, sizeof(spec) - 2, "%d%c", precision, conv);
  char buf[512];
  int n = std::snprintf(buf, sizeof(buf), spec, v);
  if (n < 0 || n >= static_cast<int>(sizeof(buf))) throw std::runtime_error("format_tensor: value too long");
  return std::string(buf, static_cast<size_t>(n));
}

const char* torch_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "torch.bool";
    case ScalarType::Int32: return "torch.int32";
    case ScalarType::Int64: return "torch.int64";
    case ScalarType::Float32: return "torch.float32";
    case ScalarType::Float64: return "torch.float64";
  }
  return "torch.unknown";
}

// torch._tensor_str._Formatter, built over the elements that will be shown.
class Formatter {
 public:
  Formatter(const PrintData& d, const std::vector<int64_t>& shown) : d_(d), floating_(is_floating(d.dtype)) {
    if (!floating_) {
      for (int64_t i : shown) max_width_ = std::max(max_width_, raw_int(i).size());
      return;
    }
    std::vector<double> vals;
    for (int64_t i : shown) {
      double v = d.floats[static_cast<size_t>(i)];
      if (std::isfinite(v) && v != 0.0) vals.push_back(v);
    }
    if (vals.empty()) return;
    double mn = INFINITY, mx = 0.0;
    for (double v : vals) {
      mn = std::min(mn, std::fabs(v));
      mx = std::max(mx, std::fabs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    // int mode skips the min < 1e-4 test: whole numbers are never that small.
    sci_mode_ = mx / mn > 1000.0 || mx > 1.0e8 || (!int_mode_ && mn < 1.0e-4);
    for (double v : vals) {
      size_t w;
      if (sci_mode_)
        w = py_format(v, 'e', kPrecision).size();
      else if (int_mode_)
        w = py_format(v, 'f', 0).size() + 1;
      else
        w = py_format(v, 'f', kPrecision).size();
      max_width_ = std::max(max_width_, w);
    }
  }

  size_t width() const { return max_width_; }

  // Element i formatted and right-aligned to the common width (never truncated).
  std::string format(int64_t i) const {
    std::string s;
    if (!floating_) {
      s = raw_int(i);
    } else {
      double v = d_.floats[static_cast<size_t>(i)];
      if (sci_mode_) {
        s = py_format(v, 'e', kPrecision);
      } else if (int_mode_) {
        s = py_format(v, 'f', 0);
        if (std::isfinite(v)) s += '.';
      } else {
        s = py_format(v, 'f', kPrecision);
      }
    }
    if (s.size() < max_width_) s.insert(0, max_width_ - s.size(), ' ');
    return s;
  }

 private:
  std::string raw_int(int64_t i) const {
    int64_t v = d_.ints[static_cast<size_t>(i)];
    if (d_.dtype == kBool) return v ? "True" : "False";
    return std::to_string(v);
  }

  const PrintData& d_;
  bool floating_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  size_t max_width_ = 1;
};

class Printer {
 public:
  explicit Printer(const PrintData& d) : d_(d) {
    const size_t nd = d.sizes.size();
    strides_.assign(nd, 1);
    shown_.resize(nd);
    numel_ = 1;
    for (int64_t s : d.sizes) numel_ *= s;  // a tensor's sizes multiply without overflow (checked_numel)
    if (numel_ == 0) return;                // printed as its size only: nothing to index (dims may be huge)
    for (size_t k = nd; k-- > 1;) strides_[k - 1] = strides_[k] * d.sizes[k];
    summarize_ = numel_ > kThreshold;
    // The shown indices of each dim do not depend on the enclosing indices.
    for (size_t k = 0; k < nd; ++k) shown_[k] = shown_indices(d.sizes[k]);
  }

  int64_t numel() const { return numel_; }

  std::string tensor_str(int64_t indent) {
    std::vector<int64_t> elems;
    collect(0, 0, elems);
    Formatter f(d_, elems);
    return recurse(0, 0, indent, f);
  }

 private:
  // Indices along a dim of size n; -1 marks the "..." gap.
  std::vector<int64_t> shown_indices(int64_t n) const {
    std::vector<int64_t> idx;
    if (summarize_ && n > 2 * kEdgeItems) {
      for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
      idx.push_back(-1);
      for (int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    }
    return idx;
  }

  // The formatter sees only the shown elements (get_summarized_data), in row-major order.
  void collect(size_t dim, int64_t offset, std::vector<int64_t>& out) const {
    if (dim == d_.sizes.size()) {
      out.push_back(offset);
      return;
    }
    for (int64_t i : shown_[dim])
      if (i >= 0) collect(dim + 1, offset + i * strides_[dim], out);
  }

  std::string recurse(size_t dim, int64_t offset, int64_t indent, const Formatter& f) const {
    const size_t nd = d_.sizes.size();
    if (nd == 0) return f.format(offset);
    if (dim + 1 == nd) return vector_str(offset, indent, f);
    std::string sep = "," + std::string(nd - dim - 1, '\n') + std::string(static_cast<size_t>(indent + 1), ' ');
    std::string out = "[";
    bool first = true;
    for (int64_t i : shown_[dim]) {
      if (!first) out += sep;
      first = false;
      out += i < 0 ? "..." : recurse(dim + 1, offset + i * strides_[dim], indent + 1, f);
    }
    return out + "]";
  }

  std::string vector_str(int64_t offset, int64_t indent, const Formatter& f) const {
    const size_t dim = d_.sizes.size() - 1;
    const int64_t element_length = static_cast<int64_t>(f.width()) + 2;
    // Python floors a true division; a negative quotient ends up at 1 either way.
    const int64_t per_line = std::max<int64_t>(1, (kLineWidth - indent) / element_length);
    std::string out = "[";
    const std::string line_sep = ",\n" + std::string(static_cast<size_t>(indent + 1), ' ');
    int64_t k = 0;
    for (int64_t i : shown_[dim]) {
      if (k > 0) out += (k % per_line == 0) ? line_sep : ", ";
      out += i < 0 ? " ..." : f.format(offset + i * strides_[dim]);
      ++k;
    }
    return out + "]";
  }

  const PrintData& d_;
  std::vector<int64_t> strides_;
  std::vector<std::vector<int64_t>> shown_;
  int64_t numel_ = 1;
  bool summarize_ = false;
};

std::string size_tuple(const std::vector<int64_t>& sizes) {
  std::string s = "(";
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (k) s += ", ";
    s += std::to_string(sizes[k]);
  }
  if (sizes.size() == 1) s += ",";
  return s + ")";
}

// torch._tensor_str._add_suffixes (including its +2 in the last line's length).
std::string add_suffixes(const std::string& tensor_str, const std::vector<std::string>& suffixes, int64_t indent) {
  std::string out = tensor_str;
  size_t nl = tensor_str.rfind('\n');
  int64_t last_line_len =
      static_cast<int64_t>(tensor_str.size()) - (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const std::string& suffix : suffixes) {
    const int64_t len = static_cast<int64_t>(suffix.size());
    if (last_line_len + len + 2 > kLineWidth) {
      out += ",\n" + std::string(static_cast<size_t>(indent), ' ') + suffix;
      last_line_len = indent + len;
    } else {
      out += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return out + ")";
}

}  // namespace

std::string format_tensor(const PrintData& d) {
  const std::string prefix = "tensor(";
  const int64_t indent = static_cast<int64_t>(prefix.size());
  Printer p(d);
  const size_t expected = static_cast<size_t>(p.numel());
  if ((is_floating(d.dtype) ? d.floats.size() : d.ints.size()) != expected)
    throw std::invalid_argument("format_tensor: value count does not match sizes");

  std::vector<std::string> suffixes;
  std::string body;
  if (p.numel() == 0) {
    // An empty tensor shows its shape unless 1-D, and any dtype but the default float32.
    if (d.sizes.size() != 1) suffixes.push_back("size=" + size_tuple(d.sizes));
    if (d.dtype != kFloat32) suffixes.push_back(std::string("dtype=") + torch_dtype(d.dtype));
    body = "[]";
  } else {
    if (d.dtype != kFloat32 && d.dtype != kInt64 && d.dtype != kBool)
      suffixes.push_back(std::string("dtype=") + torch_dtype(d.dtype));
    body = p.tensor_str(indent);
  }
  if (!d.grad_fn.empty())
    suffixes.push_back("grad_fn=<" + d.grad_fn + ">");
  else if (d.requires_grad)
    suffixes.push_back("requires_grad=True");
  return add_suffixes(prefix + body, suffixes, indent);
}

}  // namespace ditto::detail
