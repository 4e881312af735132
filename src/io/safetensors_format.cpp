#include "io/safetensors_format.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "ditto/error.h"

namespace ditto::io {

namespace {
struct DtypeInfo {
  FileDtype dtype;
  const char* name;
  std::size_t size;
};
constexpr DtypeInfo kDtypes[] = {
    {FileDtype::F32, "F32", 4},   {FileDtype::F64, "F64", 8}, {FileDtype::I64, "I64", 8},   {FileDtype::I32, "I32", 4},
    {FileDtype::BOOL, "BOOL", 1}, {FileDtype::F16, "F16", 2}, {FileDtype::BF16, "BF16", 2},
};
// The format's other dtypes, named so that the error says ditto has no such type (not that the
// file is corrupt).
constexpr const char* kOtherDtypes[] = {"U8", "I8", "I16", "U16", "U32", "U64", "F8_E5M2", "F8_E4M3"};

const DtypeInfo& info(FileDtype d) {
  for (const DtypeInfo& i : kDtypes)
    if (i.dtype == d) return i;
  return kDtypes[0];  // unreachable: every FileDtype is in kDtypes
}

using json = nlohmann::json;

// Parses the header's JSON; duplicate keys (which nlohmann's DOM would silently merge) and
// nesting deeper than a header has are errors.
json parse_header_json(const char* first, const char* last, std::string_view file) {
  std::vector<std::set<std::string>> keys;  // one set per open object
  const auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > 3) detail::fail(file, "header: nested deeper than a safetensors header is");
    if (event == json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      keys.pop_back();
    } else if (event == json::parse_event_t::key) {
      const std::string& k = parsed.get_ref<const std::string&>();
      if (!keys.back().insert(k).second) detail::fail(file, "header: duplicate key \"", k, "\"");
    }
    return true;
  };
  try {
    return json::parse(first, last, callback);
  } catch (const json::exception& e) {
    detail::fail(file, "header is not valid JSON: ", e.what());
  }
}

uint64_t to_u64(const json& v, std::string_view file, const std::string& name, const char* what) {
  if (!v.is_number_unsigned()) detail::fail(file, "tensor \"", name, "\": ", what, " must be non-negative integers");
  return v.get<uint64_t>();
}

FileTensor parse_entry(const std::string& name, const json& v, uint64_t data_size, std::string_view file) {
  if (!v.is_object()) detail::fail(file, "tensor \"", name, "\": expected an object with dtype, shape, data_offsets");
  for (const char* field : {"dtype", "shape", "data_offsets"})
    if (!v.contains(field)) detail::fail(file, "tensor \"", name, "\": no \"", field, "\"");
  FileTensor t;
  t.name = name;
  const json& dt = v["dtype"];
  if (!dt.is_string()) detail::fail(file, "tensor \"", name, "\": dtype must be a string");
  const std::string& dts = dt.get_ref<const std::string&>();
  const DtypeInfo* found = nullptr;
  for (const DtypeInfo& i : kDtypes)
    if (dts == i.name) found = &i;
  if (found == nullptr) {
    for (const char* other : kOtherDtypes)
      if (dts == other)
        detail::fail(file, "tensor \"", name, "\": dtype ", dts,
                     " is not one ditto reads (F32, F64, I64, I32, BOOL; F16 and BF16 into float32)");
    detail::fail(file, "tensor \"", name, "\": unknown dtype \"", dts, "\"");
  }
  t.dtype = found->dtype;
  const json& shape = v["shape"];
  if (!shape.is_array()) detail::fail(file, "tensor \"", name, "\": shape must be an array");
  uint64_t numel = 1;
  bool overflow = false;
  for (const json& d : shape) {
    const uint64_t n = to_u64(d, file, name, "shape's sizes");
    if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      detail::fail(file, "tensor \"", name, "\": size ", n, " is too large");
    t.shape.push_back(static_cast<int64_t>(n));
    overflow = overflow || __builtin_mul_overflow(numel, n, &numel);
  }
  if (std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end()) {
    numel = 0;  // an empty tensor: a dim's overflow elsewhere does not matter
    overflow = false;
  }
  uint64_t nbytes = 0;
  if (overflow || __builtin_mul_overflow(numel, found->size, &nbytes) ||
      numel > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    detail::fail(file, "tensor \"", name, "\": the element count of shape ", shape.dump(), " overflows");
  const json& off = v["data_offsets"];
  if (!off.is_array() || off.size() != 2)
    detail::fail(file, "tensor \"", name, "\": data_offsets must be [begin, end]");
  t.begin = to_u64(off[0], file, name, "data_offsets");
  t.end = to_u64(off[1], file, name, "data_offsets");
  if (t.begin > t.end || t.end > data_size)
    detail::fail(file, "tensor \"", name, "\": data_offsets [", t.begin, ", ", t.end,
                 ") lie outside the data section of ", data_size, " bytes");
  if (t.end - t.begin != nbytes)
    detail::fail(file, "tensor \"", name, "\": shape ", shape.dump(), " of ", dts, " takes ", nbytes,
                 " bytes, data_offsets give ", t.end - t.begin);
  return t;
}
}  // namespace

const char* file_dtype_name(FileDtype d) { return info(d).name; }
std::size_t file_dtype_size(FileDtype d) { return info(d).size; }

FileHeader parse_safetensors(const unsigned char* data, std::size_t size, std::string_view file) {
  if (size < 8) detail::fail(file, "not a safetensors file: ", size, " bytes, shorter than the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | data[i];
  if (n > kMaxHeaderBytes) detail::fail(file, "header length ", n, " is over the limit of ", kMaxHeaderBytes, " bytes");
  if (n > size - 8) detail::fail(file, "header length ", n, " runs past the end of the file (", size, " bytes)");
  const char* h = reinterpret_cast<const char*>(data + 8);
  if (n == 0 || h[0] != '{') detail::fail(file, "header does not start with '{'");
  const json header = parse_header_json(h, h + n, file);
  if (!header.is_object()) detail::fail(file, "header is not a JSON object");
  FileHeader out;
  out.data_start = 8 + n;
  const uint64_t data_size = size - out.data_start;
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) detail::fail(file, "__metadata__ must map strings to strings");
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string()) detail::fail(file, "__metadata__ must map strings to strings (\"", k, "\" does not)");
        out.metadata.emplace_back(k, v.get<std::string>());
      }
      continue;
    }
    out.tensors.push_back(parse_entry(key, value, data_size, file));
  }
  std::sort(out.tensors.begin(), out.tensors.end(), [](const FileTensor& a, const FileTensor& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  // The tensors cover the data section whole, one after another (the format allows no holes).
  uint64_t at = 0;
  for (const FileTensor& t : out.tensors) {
    if (t.begin != at)
      detail::fail(file, "tensor \"", t.name, "\" starts at byte ", t.begin, " of the data section, expected ", at,
                   t.begin < at ? " (it overlaps the tensor before it)" : " (a hole before it)");
    at = t.end;
  }
  if (at != data_size)
    detail::fail(file, "the tensors end at byte ", at, " of a data section of ", data_size, " bytes");
  // A bool is one byte, 0 or 1; any other byte is not a bool (and reading it as one is undefined).
  for (const FileTensor& t : out.tensors) {
    if (t.dtype != FileDtype::BOOL) continue;
    const unsigned char* p = data + out.data_start + t.begin;
    for (uint64_t i = 0; i < t.end - t.begin; ++i)
      if (p[i] > 1) detail::fail(file, "tensor \"", t.name, "\": BOOL element ", i, " is ", int{p[i]}, ", not 0 or 1");
  }
  return out;
}

std::string safetensors_header(const std::vector<FileTensor>& tensors,
                               const std::vector<std::pair<std::string, std::string>>& metadata) {
  nlohmann::ordered_json h = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) m[k] = v;
    h["__metadata__"] = m;
  }
  for (const FileTensor& t : tensors)
    h[t.name] = {{"dtype", file_dtype_name(t.dtype)}, {"shape", t.shape}, {"data_offsets", {t.begin, t.end}}};
  std::string j = h.dump();
  j.append((8 - j.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  uint64_t n = j.size();
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + j;
}

}  // namespace ditto::io
