// tests/fuzz/fuzz_target.h: what every fuzz target shares.
//
// A target feeds the fuzzer's bytes to one parser (and to what the command-line tool does
// with its result). An InputError is the expected answer to bad input and ends the run
// quietly; any other exception is a finding: it is printed and the process aborts, which
// libFuzzer records as a crash. Aborts (SCALEWALL_CHECK), sanitizer reports, timeouts and
// running out of memory are findings by themselves.
#ifndef SCALEWALL_TESTS_FUZZ_FUZZ_TARGET_H_
#define SCALEWALL_TESTS_FUZZ_FUZZ_TARGET_H_

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

#include "scalewall/base/error.h"

namespace scalewall::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Aborts with `what`: a broken promise of the parser (a finding, not bad input).
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// Runs `body`; an InputError is fine, anything else thrown is a finding.
template <typename F>
void guarded(F&& body) {
  try {
    body();
  } catch (const InputError&) {
    // bad input, reported as the library promises
  } catch (const std::exception& e) {
    finding(std::string("uncaught ") + typeid(e).name() + ": " + e.what());
  } catch (...) {
    finding("uncaught exception of unknown type");
  }
}

// A value the library computed from input must be a finite number (and not negative when
// `non_negative`): anything else would reach the output as a wrong number.
inline void require_finite(double value, const char* what, bool non_negative = true) {
  if (!std::isfinite(value) || (non_negative && value < 0)) {
    finding(std::string(what) + " = " + std::to_string(value));
  }
}

}  // namespace scalewall::fuzz

#endif  // SCALEWALL_TESTS_FUZZ_FUZZ_TARGET_H_
