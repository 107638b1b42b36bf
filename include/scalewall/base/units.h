// scalewall/base/units.h: one parser and one printer for sizes, times and rates.
//
// Every command reads its sizes, times and rates through these functions, so a value means
// the same thing everywhere. Units follow the seeds: decimal SI for bytes and rates
// (1 KB = 1e3 B, 1 GB = 1e9 B, 50 GB/s = 5e10 B/s), binary prefixes accepted where spelled
// out (1 KiB = 1024 B, 1 GiB = 2^30 B). In rates a lower-case b means bits (400 Gb/s and
// 400 Gbps are 5e10 B/s); an upper-case B means bytes.
//
// Accepted forms (a space between number and unit is allowed; the number may use an
// exponent, "1e9"):
//   sizes  "4096" (bytes), "14GB", "14 GB", "1.5GiB", "64KiB", "512 B"
//          suffixes B, KB (or kB), MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB
//   times  "0.3" (seconds), "2.5us", "2.5µs", "300ms", "40ns", "1.5s", "2min", "1h"
//   rates  "25e9" (bytes/s), "50GB/s", "50 GBps", "12.5GiB/s", "400Gb/s", "400Gbps", "100Mbps",
//          up to "1PB/s"
// Rejected with InputError naming the text: empty strings, negative numbers, a sign after a
// leading '+' ("+-5"), NaN and infinities, a number that its unit takes past the largest
// double ("1e308kB") or from non-zero to 0 ("1e-320ns"), unknown or missing-number suffixes,
// trailing garbage.
#ifndef SCALEWALL_UNITS_H_
#define SCALEWALL_UNITS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace scalewall {

// Returns the size in bytes. REQUIRES nothing; throws InputError on bad text.
double parse_bytes(std::string_view text);

// Returns the time in seconds. Throws InputError on bad text.
double parse_seconds(std::string_view text);

// Returns the rate in bytes per second. Throws InputError on bad text.
double parse_rate(std::string_view text);

// Parses a plain non-negative decimal number ("0.02", "1e-3"); no unit allowed.
// Throws InputError on bad text.
double parse_number(std::string_view text);

// Parses a ratio written as a number ("2") or as "a:b" ("2:1" is 2, "3:2" is 1.5), each part a
// plain number. Throws InputError on bad text, or when b is 0 ("ratio '1:0' divides by zero").
double parse_ratio(std::string_view text);

// Parses a fraction written as a number or a percentage: "0.05" and "5%" are both 0.05.
// No range check beyond non-negative (callers know their range). Throws InputError.
double parse_fraction(std::string_view text);

// Parses a count that may carry a decimal SI multiplier, as token and parameter counts are
// written: "15T" is 1.5e13, "300B" and "300G" are 3e11 (B, a billion, as in "70B parameters"),
// "2.5M" is 2.5e6, "4k" and "4K" are 4e3, "1P" is 1e15; a bare number ("4096", "1.5e13") is the
// count itself. The result need not be whole. Rejected as the other parsers reject (empty,
// negative, not finite, out of range, an unknown suffix), naming the text.
double parse_si_count(std::string_view text);

// Parses a whole count ("64", "16384", "1e3" is rejected). Throws InputError on bad text or
// on a value outside [min_value, max_value].
std::int64_t parse_count(std::string_view text, std::int64_t min_value, std::int64_t max_value);

// Human-readable forms with three significant digits and a decimal SI unit:
//   format_bytes(62500) == "62.5 KB", format_bytes(14e9) == "14 GB", format_bytes(1) == "1 B"
//   format_seconds(0.56) == "560 ms", format_seconds(2.5e-6) == "2.5 us"
//   format_rate(5e10) == "50 GB/s"
// Times use ASCII "us" so that every terminal shows them. Values must be finite.
std::string format_bytes(double bytes);
std::string format_seconds(double seconds);
std::string format_rate(double bytes_per_second);

// The same with `digits` significant digits (1..17).
std::string format_bytes(double bytes, int digits);
std::string format_seconds(double seconds, int digits);
std::string format_rate(double bytes_per_second, int digits);

// A fraction as a percentage in plain notation, never with an exponent, to three
// significant digits with trailing zeros dropped: format_percent(0.494) == "49.4%",
// format_percent(21.104) == "2110%", format_percent(2.65e-7) == "0.0000265%",
// format_percent(0.9999) == "100%". A share below a millionth of a percent prints as
// "< 0.000001%" ("> -0.000001%" below zero); above a billion percent an exponent is kept
// (as format_seconds does), so the text stays short. Every writer of a percentage (tables,
// notes, plot labels, verdicts) prints it through this function.
std::string format_percent(double fraction);

}  // namespace scalewall

#endif  // SCALEWALL_UNITS_H_
