#pragma once
// Asserts that fn throws a ditto::Error (not a NondeterministicError) whose message starts with
// prefix (the "[op]" tag) and contains part.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "ditto/ditto.h"

namespace ditto::testing {

inline void expect_error(const std::function<void()>& fn, const std::string& prefix, const std::string& part) {
  try {
    fn();
    ADD_FAILURE() << "expected ditto::Error starting with " << prefix;
  } catch (const NondeterministicError& e) {
    ADD_FAILURE() << "unexpected NondeterministicError: " << e.what();
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(prefix, 0), 0u) << m;
    EXPECT_NE(m.find(part), std::string::npos) << m;
  }
}

}  // namespace ditto::testing
