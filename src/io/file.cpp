#include "io/file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "ditto/error.h"

namespace ditto::io {

namespace {
mode_t process_umask() {
  mode_t mask = 022;
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f) != nullptr) {
      unsigned m = 0;
      if (std::sscanf(line, "Umask: %o", &m) == 1) {
        mask = static_cast<mode_t>(m);
        break;
      }
    }
    std::fclose(f);
  }
  return mask;
}
}  // namespace

AtomicFile::AtomicFile(std::string path, const char* op) : path_(std::move(path)), op_(op) {
  tmp_ = path_ + ".tmp-XXXXXX";
  std::vector<char> name(tmp_.begin(), tmp_.end());
  name.push_back('\0');
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0) {
    const int err = errno;
    tmp_.clear();
    fail("cannot create a temporary file beside it", err);
  }
  tmp_.assign(name.data());
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void AtomicFile::fail(const char* what, int err) { detail::fail(op_, path_, ": ", what, ": ", std::strerror(err)); }

void AtomicFile::write(const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail("write failed", errno);
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void AtomicFile::commit() {
  // mkstemp makes the file 0600; a saved file gets the permissions a new file would (0666 less
  // the umask, read without umask()'s set-and-restore, which would race with other threads).
  if (::fchmod(fd_, 0666 & ~process_umask()) != 0) fail("chmod failed", errno);
  if (::fsync(fd_) != 0) fail("fsync failed", errno);
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail("close failed", errno);
  }
  fd_ = -1;
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) fail("rename failed", errno);
  tmp_.clear();
  // The rename itself is durable once the directory is synced.
  const std::size_t slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path_.substr(0, slash));
  const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    ::fsync(d);
    ::close(d);
  }
}

}  // namespace ditto::io
