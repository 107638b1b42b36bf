// Implementation of scalewall/base/units.h. Parsing splits the text into a number and a unit
// suffix, then looks the suffix up in a small table per quantity; the tables are the single
// place where a unit is defined.
#include "scalewall/base/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <span>

#include "scalewall/base/error.h"

namespace scalewall {

namespace {

struct Suffix {
  std::string_view text;
  double factor;         // multiply the number by this ...
  double divisor = 1.0;  // ... and divide by this to get the SI base unit. Sub-unit prefixes
                         // divide by an exact power of ten ("2.5us" is 2.5 / 1e6), which is
                         // correctly rounded, where multiplying by the inexact 1e-6 is not.
};

constexpr double kKi = 1024.0;
constexpr std::array kByteSuffixes = {
    Suffix{"", 1.0},           Suffix{"B", 1.0},
    Suffix{"KB", 1e3},         Suffix{"kB", 1e3},
    Suffix{"MB", 1e6},         Suffix{"GB", 1e9},
    Suffix{"TB", 1e12},        Suffix{"PB", 1e15},
    Suffix{"EB", 1e18},
    Suffix{"KiB", kKi},        Suffix{"MiB", kKi * kKi},
    Suffix{"GiB", kKi * kKi * kKi}, Suffix{"TiB", kKi * kKi * kKi * kKi},
    Suffix{"PiB", kKi * kKi * kKi * kKi * kKi},
    Suffix{"EiB", kKi * kKi * kKi * kKi * kKi * kKi},
};

constexpr std::array kSecondSuffixes = {
    Suffix{"", 1.0},          Suffix{"s", 1.0},            Suffix{"ms", 1.0, 1e3},
    Suffix{"us", 1.0, 1e6},   Suffix{"\u00b5s", 1.0, 1e6}, Suffix{"\u03bcs", 1.0, 1e6},
    Suffix{"ns", 1.0, 1e9},   Suffix{"min", 60.0},         Suffix{"h", 3600.0},
};

// Rates: bytes per second with "/s" or "ps", bits per second with a lower-case b.
constexpr std::array kRateSuffixes = {
    Suffix{"", 1.0},
    Suffix{"B/s", 1.0},          Suffix{"Bps", 1.0},
    Suffix{"KB/s", 1e3},         Suffix{"kB/s", 1e3},      Suffix{"KBps", 1e3},
    Suffix{"MB/s", 1e6},         Suffix{"MBps", 1e6},
    Suffix{"GB/s", 1e9},         Suffix{"GBps", 1e9},
    Suffix{"TB/s", 1e12},        Suffix{"TBps", 1e12},
    Suffix{"PB/s", 1e15},        Suffix{"PBps", 1e15},
    Suffix{"EB/s", 1e18},        Suffix{"EBps", 1e18},
    Suffix{"KiB/s", kKi},        Suffix{"MiB/s", kKi * kKi},
    Suffix{"GiB/s", kKi * kKi * kKi}, Suffix{"TiB/s", kKi * kKi * kKi * kKi},
    Suffix{"PiB/s", kKi * kKi * kKi * kKi * kKi},
    Suffix{"EiB/s", kKi * kKi * kKi * kKi * kKi * kKi},
    Suffix{"b/s", 1.0, 8.0},      Suffix{"bps", 1.0, 8.0},
    Suffix{"Kb/s", 1e3, 8.0},     Suffix{"kb/s", 1e3, 8.0},  Suffix{"Kbps", 1e3, 8.0},
    Suffix{"kbps", 1e3, 8.0},
    Suffix{"Mb/s", 1e6, 8.0},     Suffix{"Mbps", 1e6, 8.0},
    Suffix{"Gb/s", 1e9, 8.0},     Suffix{"Gbps", 1e9, 8.0},
    Suffix{"Tb/s", 1e12, 8.0},    Suffix{"Tbps", 1e12, 8.0},
    Suffix{"Gib/s", kKi * kKi * kKi, 8.0},
};

// Counts: decimal SI multipliers, and B for a billion (token and parameter counts).
constexpr std::array kCountSuffixes = {
    Suffix{"", 1.0},   Suffix{"k", 1e3},  Suffix{"K", 1e3},  Suffix{"M", 1e6},
    Suffix{"G", 1e9},  Suffix{"B", 1e9},  Suffix{"T", 1e12}, Suffix{"P", 1e15},
};

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::string quoted(std::string_view text) { return fmt::format("'{}'", text); }

// Splits "14 GB" into 14 and "GB". `what` names the quantity for messages.
double leading_number(std::string_view text, std::string_view what, std::string_view* rest) {
  const std::string_view original = text;
  text = trim(text);
  if (text.empty()) {
    throw InputError(fmt::format("empty {} (expected a number{})", what,
                                 what == "number" ? "" : " with an optional unit"));
  }
  if (text.front() == '-') {
    throw InputError(fmt::format("negative {} {} is not allowed", what, quoted(original)));
  }
  if (text.front() == '+') {
    text.remove_prefix(1);
    // from_chars reads a '-' of its own: "+-5" would be -5. After the '+' only the number.
    if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text.front())) ||
                          text.front() == '.' || text.front() == 'i' || text.front() == 'I' ||
                          text.front() == 'n' || text.front() == 'N')) {
      throw InputError(fmt::format("cannot read a {} from {}: the '+' is not followed by a number",
                                   what, quoted(original)));
    }
  }
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    throw InputError(fmt::format("{} {} is out of range", what, quoted(original)));
  }
  if (ec != std::errc() || end == text.data()) {
    throw InputError(fmt::format("cannot read a {} from {}: it does not start with a number",
                                 what, quoted(original)));
  }
  if (!std::isfinite(value)) {
    throw InputError(fmt::format("{} {} is not a finite number", what, quoted(original)));
  }
  *rest = trim(std::string_view(end, static_cast<std::size_t>(text.data() + text.size() - end)));
  return value;
}

std::string suffix_list(std::span<const Suffix> suffixes) {
  std::string out;
  for (const Suffix& s : suffixes) {
    if (s.text.empty()) continue;
    if (!out.empty()) out += ", ";
    out += s.text;
  }
  return out;
}

// The number times its unit: a product past the largest double, or a non-zero number that
// comes out as zero, is refused rather than returned as infinity or 0.
double checked_product(double result, double number, std::string_view text,
                       std::string_view what, std::string_view base) {
  if (!std::isfinite(result)) {
    throw InputError(fmt::format("{} {} is out of range (at most {:.3g}{}{})", what,
                                 quoted(trim(text)), std::numeric_limits<double>::max(),
                                 base.empty() ? "" : " ", base));
  }
  if (result == 0.0 && number != 0.0) {
    throw InputError(fmt::format("{} {} is out of range (a non-zero {} is at least {:.3g}{}{})",
                                 what, quoted(trim(text)), what,
                                 std::numeric_limits<double>::denorm_min(),
                                 base.empty() ? "" : " ", base));
  }
  return result;
}

double parse_with(std::string_view text, std::string_view what, std::string_view base,
                  std::span<const Suffix> suffixes, std::string_view hint) {
  std::string_view unit;
  const double value = leading_number(text, what, &unit);
  for (const Suffix& s : suffixes) {
    if (s.text == unit) {
      return checked_product(value * s.factor / s.divisor, value, text, what, base);
    }
  }
  throw InputError(fmt::format("unknown unit {} in {} {} (expected {}{})", quoted(unit), what,
                               quoted(trim(text)), suffix_list(suffixes), hint));
}

// Integer digits printed in full before a number switches to an exponent.
constexpr double kMaxIntegerDigits = 9;

// Three significant digits in the largest prefix that keeps the number at or above 1.
std::string format_scaled(double value, int digits, std::span<const Suffix> units,
                          std::string_view fallback_unit) {
  SCALEWALL_CHECK(std::isfinite(value));
  SCALEWALL_CHECK(digits >= 1 && digits <= 17);
  if (value == 0.0) return fmt::format("0 {}", fallback_unit);
  const double magnitude = std::fabs(value);
  // units are ordered from the smallest factor to the largest.
  std::size_t pick = 0;
  for (std::size_t i = 0; i < units.size(); ++i) {
    if (magnitude >= units[i].factor) pick = i;
  }
  for (;;) {
    const double scaled = value / units[pick].factor;
    // Keep every integer digit: 3600 s prints as "3600 s", not "3.6e+03 s". Past the
    // largest unit the number is bounded: from 1e9 of it on it prints as "1.5e+12 s".
    int shown = digits;
    const double int_digits = std::floor(std::log10(std::fabs(scaled))) + 1;
    if (int_digits > shown && int_digits <= kMaxIntegerDigits) {
      shown = static_cast<int>(int_digits);
    }
    std::string number = fmt::format("{:.{}g}", scaled, shown);
    // Rounding can carry into the next prefix: 999.7 KB prints as "1 MB".
    const double shown_value = std::strtod(number.c_str(), nullptr);
    if (pick + 1 < units.size() && std::fabs(shown_value) * units[pick].factor >=
                                       units[pick + 1].factor) {
      ++pick;
      continue;
    }
    return fmt::format("{} {}", number, units[pick].text);
  }
}

constexpr std::array kBytePrint = {
    Suffix{"B", 1.0},   Suffix{"KB", 1e3},  Suffix{"MB", 1e6},  Suffix{"GB", 1e9},
    Suffix{"TB", 1e12}, Suffix{"PB", 1e15}, Suffix{"EB", 1e18},
};
constexpr std::array kSecondPrint = {
    Suffix{"ns", 1e-9}, Suffix{"us", 1e-6}, Suffix{"ms", 1e-3}, Suffix{"s", 1.0},
};
constexpr std::array kRatePrint = {
    Suffix{"B/s", 1.0},   Suffix{"KB/s", 1e3},  Suffix{"MB/s", 1e6},
    Suffix{"GB/s", 1e9},  Suffix{"TB/s", 1e12}, Suffix{"PB/s", 1e15},
};

}  // namespace

double parse_bytes(std::string_view text) {
  return parse_with(text, "size", "B", kByteSuffixes,
                    "; sizes are bytes, so write GB rather than Gb");
}

double parse_seconds(std::string_view text) {
  return parse_with(text, "time", "s", kSecondSuffixes, "; a plain number is seconds");
}

double parse_rate(std::string_view text) {
  return parse_with(text, "rate", "B/s", kRateSuffixes,
                    "; upper-case B is bytes, lower-case b is bits");
}

double parse_si_count(std::string_view text) {
  return parse_with(text, "count", "", kCountSuffixes, "; B is a billion, T a trillion");
}

double parse_number(std::string_view text) {
  std::string_view rest;
  const double value = leading_number(text, "number", &rest);
  if (!rest.empty()) {
    throw InputError(fmt::format("cannot read a number from {}: unexpected {}",
                                 quoted(trim(text)), quoted(rest)));
  }
  return value;
}

double parse_ratio(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return parse_number(text);
  const double a = parse_number(text.substr(0, colon));
  const double b = parse_number(text.substr(colon + 1));
  if (!(b > 0)) throw InputError(fmt::format("ratio '{}' divides by zero", text));
  return a / b;
}

double parse_fraction(std::string_view text) {
  std::string_view rest;
  const double value = leading_number(text, "fraction", &rest);
  if (rest.empty()) return value;
  if (rest == "%") return checked_product(value / 100.0, value, text, "fraction", "");
  throw InputError(fmt::format("cannot read a fraction from {}: unexpected {} (write 0.05 or 5%)",
                               quoted(trim(text)), quoted(rest)));
}

std::int64_t parse_count(std::string_view text, std::int64_t min_value, std::int64_t max_value) {
  const std::string_view t = trim(text);
  if (t.empty()) throw InputError("empty count (expected a whole number)");
  if (t.front() == '-') {
    throw InputError(fmt::format("negative count {} is not allowed", quoted(t)));
  }
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec == std::errc::result_out_of_range) {
    throw InputError(fmt::format("count {} is out of range (at most {})", quoted(t), max_value));
  }
  if (ec != std::errc() || end != t.data() + t.size()) {
    throw InputError(fmt::format("{} is not a whole number", quoted(t)));
  }
  if (value < min_value || value > max_value) {
    throw InputError(fmt::format("count {} is outside [{}, {}]", value, min_value, max_value));
  }
  return value;
}

std::string format_bytes(double bytes, int digits) {
  return format_scaled(bytes, digits, kBytePrint, "B");
}
std::string format_seconds(double seconds, int digits) {
  return format_scaled(seconds, digits, kSecondPrint, "s");
}
std::string format_rate(double bytes_per_second, int digits) {
  return format_scaled(bytes_per_second, digits, kRatePrint, "B/s");
}
std::string format_percent(double fraction) {
  // Three significant digits are what a share of time or an error needs; below a millionth
  // of a percent the digits are noise of the model's arithmetic, and above a billion percent
  // (a model off by seven orders of magnitude) the exponent is the readable form.
  constexpr int kDigits = 3;
  constexpr double kSmallestPercent = 1e-6;
  constexpr double kLargestPlainPercent = 1e9;
  const double p = 100.0 * fraction;
  if (!std::isfinite(p)) return fmt::format("{}%", p);
  if (p == 0) return "0%";
  const double a = std::fabs(p);
  if (a < kSmallestPercent) return p > 0 ? "< 0.000001%" : "> -0.000001%";
  if (a >= kLargestPlainPercent) return fmt::format("{:.{}g}%", p, kDigits);
  const int magnitude = static_cast<int>(std::floor(std::log10(a)));
  const int decimals = std::max(0, kDigits - 1 - magnitude);
  // From 1000% on the digits past the third are rounded away too: 2110%, not 2110.4%.
  const double rounded =
      magnitude >= kDigits ? std::round(p / std::pow(10.0, magnitude - (kDigits - 1))) *
                                 std::pow(10.0, magnitude - (kDigits - 1))
                           : p;
  std::string text = fmt::format("{:.{}f}", rounded, decimals);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text + "%";
}

std::string format_bytes(double bytes) { return format_bytes(bytes, 3); }
std::string format_seconds(double seconds) { return format_seconds(seconds, 3); }
std::string format_rate(double bytes_per_second) { return format_rate(bytes_per_second, 3); }

}  // namespace scalewall
