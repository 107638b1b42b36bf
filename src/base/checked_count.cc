// Implementation of scalewall/base/checked_count.h.
#include "scalewall/base/checked_count.h"

#include <fmt/format.h>

#include "scalewall/base/error.h"

namespace scalewall {

std::optional<std::int64_t> try_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

std::optional<std::int64_t> try_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view what) {
  if (const std::optional<std::int64_t> out = try_mul(a, b)) return *out;
  throw InputError(
      fmt::format("{} = {} x {} is past the largest count (2^63 - 1)", what, a, b));
}

std::int64_t checked_add(std::int64_t a, std::int64_t b, std::string_view what) {
  if (const std::optional<std::int64_t> out = try_add(a, b)) return *out;
  throw InputError(
      fmt::format("{} = {} + {} is past the largest count (2^63 - 1)", what, a, b));
}

}  // namespace scalewall
