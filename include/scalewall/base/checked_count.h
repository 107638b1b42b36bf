// scalewall/base/checked_count.h: products and sums of whole counts (ranks, degrees, batch
// sizes, model dimensions) that never wrap around. Each count a scenario or a flag gives is at
// most 2^40, but a product of two or three of them is not: tp 2^32 x pp 2^32 is past the
// largest 64-bit integer, and wrapped it would read as a small, plausible count.
#ifndef SCALEWALL_CHECKED_COUNT_H_
#define SCALEWALL_CHECKED_COUNT_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace scalewall {

// a x b and a + b, or nothing when the exact result does not fit in an int64_t.
std::optional<std::int64_t> try_mul(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> try_add(std::int64_t a, std::int64_t b);

// The same, throwing InputError when the result does not fit:
// "<what> = 4294967296 x 4294967296 is past the largest count (2^63 - 1)".
std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view what);
std::int64_t checked_add(std::int64_t a, std::int64_t b, std::string_view what);

}  // namespace scalewall

#endif  // SCALEWALL_CHECKED_COUNT_H_
