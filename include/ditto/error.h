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

// An index or dim out of range, where PyTorch raises IndexError (dims, select, index_select,
// index_add_, index_copy_, index_put_, put_, embedding); Python sees an IndexError.
class IndexError : public Error {
 public:
  using Error::Error;
};

// Raised by the dispatcher when deterministic mode refuses a kernel (see determinism.h). op() is
// the refused op's name, for front ends that word the message their own way (Python).
class NondeterministicError : public Error {
 public:
  NondeterministicError(std::string op, const std::string& message) : Error(message), op_(std::move(op)) {}
  const std::string& op() const { return op_; }

 private:
  std::string op_;
};

namespace detail {
// Throws E("[op] " + args...).
template <class E, class... Args>
[[noreturn]] void fail_as(std::string_view op, const Args&... args) {
  std::ostringstream s;
  s << '[' << op << "] ";
  (s << ... << args);
  throw E(s.str());
}
template <class... Args>
[[noreturn]] void fail(std::string_view op, const Args&... args) {
  fail_as<Error>(op, args...);
}
template <class... Args>
[[noreturn]] void fail_index(std::string_view op, const Args&... args) {
  fail_as<IndexError>(op, args...);
}
}  // namespace detail

}  // namespace ditto

// DITTO_CHECK(cond, "op", message parts...): throws ditto::Error "[op] message" when cond is false.
#define DITTO_CHECK(cond, op, ...)                       \
  do {                                                   \
    if (!(cond)) ::ditto::detail::fail(op, __VA_ARGS__); \
  } while (0)
