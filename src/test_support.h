// src/test_support.h: small helpers shared by the unit tests (src/*_test.cc); not installed.
#ifndef SCALEWALL_SRC_TEST_SUPPORT_H_
#define SCALEWALL_SRC_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <string>

#include "scalewall/base/error.h"

namespace scalewall {

// Runs `body`, requires an InputError, and returns its message (empty, with a test failure,
// when none is thrown).
template <typename F>
std::string input_error_of(F&& body) {
  try {
    body();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

// Whether `part` occurs in `text`.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace scalewall

#endif  // SCALEWALL_SRC_TEST_SUPPORT_H_
