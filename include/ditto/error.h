#pragma once
// Errors raised at the API boundary. Messages start with the op in brackets:
// "[mm] shapes (4x2) and (3x1) cannot be multiplied".
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ditto {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Raised by the dispatcher when deterministic mode refuses a kernel (see determinism.h).
class NondeterministicError : public Error {
 public:
  using Error::Error;
};

namespace detail {
template <class... Args>
[[noreturn]] void fail(std::string_view op, const Args&... args) {
  std::ostringstream s;
  s << '[' << op << "] ";
  (s << ... << args);
  throw Error(s.str());
}
}  // namespace detail

}  // namespace ditto

// DITTO_CHECK(cond, "op", message parts...): throws ditto::Error "[op] message" when cond is false.
#define DITTO_CHECK(cond, op, ...)                       \
  do {                                                   \
    if (!(cond)) ::ditto::detail::fail(op, __VA_ARGS__); \
  } while (0)
