// Fuzz target: the unit parser (include/scalewall/base/units.h). The first byte picks the parser,
// the rest is the text. Every accepted value must be finite and not negative (the parsers'
// contract), and must print through the matching format_* function.
#include <cstdint>
#include <limits>
#include <string_view>

#include "scalewall/base/units.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scalewall;
  if (size == 0) return 0;
  const unsigned which = data[0] % 7U;
  const std::string_view text = fuzz::as_text(data + 1, size - 1);
  fuzz::guarded([&] {
    switch (which) {
      case 0: {
        const double v = parse_bytes(text);
        fuzz::require_finite(v, "parse_bytes");
        (void)format_bytes(v);
        (void)format_bytes(v, 17);
        break;
      }
      case 1: {
        const double v = parse_seconds(text);
        fuzz::require_finite(v, "parse_seconds");
        (void)format_seconds(v);
        (void)format_seconds(v, 17);
        break;
      }
      case 2: {
        const double v = parse_rate(text);
        fuzz::require_finite(v, "parse_rate");
        (void)format_rate(v);
        (void)format_rate(v, 17);
        break;
      }
      case 3:
        fuzz::require_finite(parse_number(text), "parse_number");
        break;
      case 4:
        fuzz::require_finite(parse_fraction(text), "parse_fraction");
        break;
      case 5: {
        const std::int64_t v = parse_count(text, 1, std::int64_t{1} << 40);
        if (v < 1 || v > (std::int64_t{1} << 40)) fuzz::finding("parse_count out of [1, 2^40]");
        break;
      }
      default: {
        const std::int64_t v =
            parse_count(text, std::numeric_limits<std::int64_t>::min(),
                        std::numeric_limits<std::int64_t>::max());
        (void)v;
        break;
      }
    }
  });
  return 0;
}
