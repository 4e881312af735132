#pragma once
// ditto::audit's log format (written by src/core/audit.cpp, read by src/core/audit_log.cpp).
//
// Little-endian: "DITTOAUD", u32 version (2), u32 n and n bytes of JSON header (the recorder, and
// for ditto's own the thread count and kernel level; the values kept), then records, each u32
// length and that many bytes: u8 kind; Op: u64 seq, str op, str kernel, str determinism,
// u8 backward, str node, str module, u64 attrs, i64 step, u16 nargs, per argument i8 dtype,
// u8 ndim, i64 sizes[ndim], u64 before, u64 after (core/audit_hash.h: XXH3 of the bits in logical
// order; 0 before for a result that did not exist), u8 has_values [u64 nbytes, bytes];
// Mark: u64 seq, str name, i64 value. A str is u16 length and its bytes. Everything after the
// header depends only on the program and its inputs, so two runs that agree write the same bytes.
#include <cstdint>

namespace ditto::audit {

inline constexpr char kLogMagic[8] = {'D', 'I', 'T', 'T', 'O', 'A', 'U', 'D'};
inline constexpr uint32_t kLogVersion = 2;

}  // namespace ditto::audit
