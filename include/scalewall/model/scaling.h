// scalewall/model/scaling.h: Amdahl's and Gustafson's laws (seed D01, sections 2.2 and 2.3).
//
// Both laws assume free communication; the communication term comes in through link.h and
// collective.h. With serial fraction s (0 <= s <= 1) and N ranks:
//   Amdahl speedup      S(N) = 1 / (s + (1 - s) / N)        -> 1/s as N -> infinity
//   Amdahl efficiency   E(N) = S(N) / N = 1 / (s N + 1 - s)
//   Gustafson speedup   G(N) = s + (1 - s) N = N - s (N - 1)
// Amdahl answers "same problem, more ranks" (strong scaling); Gustafson answers "problem grown
// with the machine, same time" (weak scaling).
#ifndef SCALEWALL_SCALING_H_
#define SCALEWALL_SCALING_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace scalewall {

// The largest rank count any command accepts: 2^40. Beyond it a "rank count" is a typo.
inline constexpr std::int64_t kMaxRanks = std::int64_t{1} << 40;

// Throws InputError unless 0 <= serial_fraction <= 1 (and finite).
void require_serial_fraction(double serial_fraction);

// Throws InputError unless 1 <= ranks <= kMaxRanks. `ranks` is a double so that callers who
// hold a double (a fitted value, a sweep) are checked too.
void require_ranks(double ranks);

// Whether 1 <= ranks <= kMaxRanks: the one rank-range test behind every check below.
constexpr bool ranks_in_range(std::int64_t ranks) { return ranks >= 1 && ranks <= kMaxRanks; }

// Throws InputError unless ranks_in_range(ranks): "rank count N is below 1" or "... is above
// the limit of 2^40" (the integer printed as an integer).
void require_rank_count(std::int64_t ranks);

// Throws InputError unless ranks_in_range(ranks), as "<what> N is outside [1, 2^40]".
void require_rank_count(std::int64_t ranks, std::string_view what);

// Amdahl speedup 1 / (s + (1 - s)/N). REQUIRES: valid s and N (checked; throws InputError).
double amdahl_speedup(double serial_fraction, double ranks);

// Amdahl efficiency S(N)/N, in (0, 1]. Same requirements.
double amdahl_efficiency(double serial_fraction, double ranks);

// Gustafson scaled speedup N - s (N - 1). Same requirements.
double gustafson_speedup(double serial_fraction, double ranks);

// The Amdahl ceiling 1/s; empty when s == 0 (no ceiling).
std::optional<double> amdahl_ceiling(double serial_fraction);

// The largest whole rank count N (1 <= N <= kMaxRanks) whose Amdahl efficiency is at or above
// `target_efficiency`. Closed form: E(N) >= E  <=>  N <= (1/E - 1 + s) / s, floored, then
// checked against the linear form s N + 1 - s <= 1/E (relative slack 1e-12) so that a
// boundary the decimal inputs hit exactly is not lost to binary rounding.
// Returns empty when no rank count below kMaxRanks falls under the target (s == 0, or s so
// small that the bound exceeds kMaxRanks).
// REQUIRES: 0 < target_efficiency <= 1 (throws InputError otherwise).
std::optional<std::int64_t> max_ranks_at_efficiency(double serial_fraction,
                                                    double target_efficiency);

}  // namespace scalewall

#endif  // SCALEWALL_SCALING_H_
