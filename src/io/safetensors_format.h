#pragma once
// The safetensors format (Hugging Face's; https://github.com/huggingface/safetensors): an 8-byte
// little-endian header length N, N bytes of JSON (an object; tensor name -> {"dtype", "shape",
// "data_offsets": [begin, end)}, plus an optional "__metadata__" string -> string map; padded
// with spaces), then the data section, which the tensors cover whole, without holes or overlaps.
//
// This layer knows bytes only (no Tensor): parse_safetensors treats its input as untrusted and
// either returns a header whose every offset lies inside the buffer and matches its tensor's
// shape and dtype, or raises ditto::Error "[<file>] <what is wrong>". It is what the libFuzzer
// target (tests/fuzz/safetensors_fuzz.cpp) runs, compiled alone with clang.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ditto::io {

// The format's dtypes that ditto reads. F16 and BF16 are read into float32 (exactly: every value
// of either is a float32).
enum class FileDtype { F32, F64, I64, I32, BOOL, F16, BF16 };
const char* file_dtype_name(FileDtype d);
std::size_t file_dtype_size(FileDtype d);

struct FileTensor {
  std::string name;
  FileDtype dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // [begin, end) in the data section
};

struct FileHeader {
  std::vector<FileTensor> tensors;                            // in data order (by begin, then end)
  std::vector<std::pair<std::string, std::string>> metadata;  // "__metadata__", sorted by key
  uint64_t data_start = 0;                                    // 8 + N: where the data section begins
};

// The largest header read (the reference implementation's limit): 100 MB.
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;

// Parses and validates a whole file's bytes; `file` names it in errors.
FileHeader parse_safetensors(const unsigned char* data, std::size_t size, std::string_view file);

// The header's bytes (the 8-byte length, then the JSON padded with spaces to a multiple of 8),
// for tensors laid out one after another in the given order.
std::string safetensors_header(const std::vector<FileTensor>& tensors,
                               const std::vector<std::pair<std::string, std::string>>& metadata);

}  // namespace ditto::io
