// scalewall/base/error.h: the library's two failure kinds.
//
// The written policy is in docs/errors.md. In short:
//   * InputError: the caller gave a value the library cannot use (a malformed size, a negative
//     rank count, a serial fraction above 1). The message names the bad value. Every public
//     function that validates input throws it; the command-line tool turns it into
//     "error: <message>" on stderr and exit status 2.
//   * A broken internal invariant (a cost that came out negative, a non-finite result) is a bug,
//     not bad input: SCALEWALL_CHECK aborts loudly with the failed condition and its location.
#ifndef SCALEWALL_ERROR_H_
#define SCALEWALL_ERROR_H_

#include <stdexcept>
#include <string>
#include <string_view>

namespace scalewall {

// Bad input, reported at the boundary with the bad value named in what().
class InputError : public std::invalid_argument {
 public:
  explicit InputError(const std::string& message) : std::invalid_argument(message) {}
};

// Prints "scalewall: internal check failed: <condition> at <file>:<line>" (then ": <detail>"
// when one is given) on stderr and aborts. The one way a broken invariant ends a run.
[[noreturn]] void check_failed(const char* condition, const char* file, int line,
                               std::string_view detail = {});

}  // namespace scalewall

// Aborts when `condition` is false. For invariants only, never for user input.
#define SCALEWALL_CHECK(condition)                                   \
  do {                                                               \
    if (!(condition)) {                                              \
      ::scalewall::check_failed(#condition, __FILE__, __LINE__);     \
    }                                                                \
  } while (false)

// The same, with `detail` (a string expression, evaluated only when the check fails) saying
// which value broke it.
#define SCALEWALL_CHECK_DETAIL(condition, detail)                          \
  do {                                                                     \
    if (!(condition)) {                                                    \
      ::scalewall::check_failed(#condition, __FILE__, __LINE__, (detail)); \
    }                                                                      \
  } while (false)

#endif  // SCALEWALL_ERROR_H_
