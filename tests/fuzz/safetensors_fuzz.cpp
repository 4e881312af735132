// libFuzzer target for the safetensors reader's untrusted-input layer (src/io/safetensors_format.cpp):
// any bytes either parse into a header whose every tensor lies inside the buffer and matches its
// shape, or raise ditto::Error; nothing else (no crash, no other exception, no sanitizer report).
// Built and run by reader_fuzz.cmake (CTest Fuzz.SafetensorsReader) with Debian's clang.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "ditto/error.h"
#include "io/safetensors_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const ditto::io::FileHeader h = ditto::io::parse_safetensors(data, size, "fuzz");
    uint64_t at = 0;
    for (const ditto::io::FileTensor& t : h.tensors) {
      uint64_t numel = 1;
      for (int64_t d : t.shape) numel *= static_cast<uint64_t>(d);
      if (t.begin != at || t.end < t.begin || h.data_start + t.end > size ||
          t.end - t.begin != numel * ditto::io::file_dtype_size(t.dtype))
        std::abort();
      at = t.end;
    }
    if (h.data_start + at != size) std::abort();
  } catch (const ditto::Error&) {
  }
  return 0;
}
