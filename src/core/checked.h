#pragma once
// Overflow-checked arithmetic for sizes, windows and offsets computed from user arguments: each
// helper raises "[op] <what> overflows" (a ditto::Error) where plain int64 arithmetic would wrap,
// which is undefined behaviour (docs/design.md: bad input never reaches undefined behaviour).
#include <cstdint>

#include "ditto/error.h"

namespace ditto::detail {

inline int64_t checked_add(int64_t a, int64_t b, const char* op, const char* what) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) fail(op, what, " overflows (", a, " + ", b, ")");
  return r;
}
inline int64_t checked_sub(int64_t a, int64_t b, const char* op, const char* what) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) fail(op, what, " overflows (", a, " - ", b, ")");
  return r;
}
inline int64_t checked_mul(int64_t a, int64_t b, const char* op, const char* what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) fail(op, what, " overflows (", a, " * ", b, ")");
  return r;
}

}  // namespace ditto::detail
