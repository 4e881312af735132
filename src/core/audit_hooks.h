#pragma once
// What the dispatcher, the autograd engine and modules call to feed ditto::audit's log
// (src/core/audit.cpp). When recording is off each hook costs one relaxed atomic load.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "ditto/scalar.h"
#include "ditto/tensor.h"

namespace ditto::detail {

extern std::atomic<bool> g_audit_on;  // declared for users in ditto/audit.h
inline bool audit_on() { return g_audit_on.load(std::memory_order_relaxed); }

// One dispatched kernel: collects its arguments, hashes the tensors before and after the call,
// and appends the record. Inactive (records nothing) on a thread that is already recording (the
// hashing's own copies) or when recording is off.
class AuditCall {
 public:
  AuditCall(const char* op, const char* kernel, const char* determinism);
  ~AuditCall();
  AuditCall(const AuditCall&) = delete;
  AuditCall& operator=(const AuditCall&) = delete;
  bool active() const { return active_; }

  void arg(const Tensor& t) { tensors_.push_back(&t); }
  void arg(const std::vector<Tensor>& ts) {
    for (const Tensor& t : ts) tensors_.push_back(&t);
  }
  void arg(const std::optional<Tensor>& t) {
    if (t) tensors_.push_back(&*t);
  }
  void arg(const Scalar& s) { mix(s.is_integral() || s.is_bool() ? static_cast<double>(s.to_int()) : s.to_double()); }
  void arg(const std::vector<int64_t>& v) {
    for (int64_t x : v) mix(x);
  }
  template <class T>
  void arg(const std::optional<T>& v) {
    mix(v.has_value());
    if (v) arg(*v);
  }
  template <class T>
  void arg(const T& v) {
    if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) mix(v);
    // other argument structs (conv, pool, ...) are not hashed: their tensors are what differs
  }

  void before();
  void after(const Tensor* result = nullptr);

 private:
  template <class T>
  void mix(const T& v) {
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T) < 8 ? sizeof(T) : 8);
    attrs_ = (attrs_ ^ b) * 0x100000001B3ULL + 0x9E3779B97F4A7C15ULL;
  }
  bool active_;
  const char *op_, *kernel_, *determinism_;
  std::vector<const Tensor*> tensors_;
  std::vector<uint64_t> before_;
  uint64_t attrs_ = 0;
};

// The autograd engine runs a node's backward in this scope: its records say backward and name it.
class AuditNodeScope {
 public:
  explicit AuditNodeScope(const std::string& node);
  ~AuditNodeScope();

 private:
  bool pushed_;
};

}  // namespace ditto::detail
