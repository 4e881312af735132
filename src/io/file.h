#pragma once
// A file written whole or not at all: bytes go to a temporary file beside `path` (same directory,
// so the rename stays on one file system); commit() fsyncs it, renames it over `path` and fsyncs
// the directory. Destroyed without commit() (an exception half-way), the temporary file is removed
// and `path` is untouched. Errors raise ditto::Error "[op] <path>: ...".
#include <cstddef>
#include <string>

namespace ditto::io {

class AtomicFile {
 public:
  AtomicFile(std::string path, const char* op);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(const void* data, std::size_t n);
  void commit();

 private:
  [[noreturn]] void fail(const char* what, int err);
  std::string path_, tmp_;
  const char* op_;
  int fd_ = -1;
};

}  // namespace ditto::io
