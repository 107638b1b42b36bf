// cli/flags.h: flag values read through the library's unit parsers, the flag's name in front
// of every error ("--alpha: unknown unit 'xs' in time '2.5xs' (...)"). Shared by both
// executables, scalewall (cli/) and scalewall-mpi (mpi/), as the static library
// scalewall_flags.
//
// Layer: beside cli/ and mpi/; includes only base and model headers.
#ifndef SCALEWALL_CLI_FLAGS_H_
#define SCALEWALL_CLI_FLAGS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/base/error.h"
#include "scalewall/model/step_model.h"

namespace scalewall {

// Runs `body` and rethrows an InputError from it prefixed with the flag's name.
template <typename F>
auto with_flag(std::string_view flag, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const InputError& e) {
    throw InputError(std::string(flag) + ": " + e.what());
  }
}

// Each parses `text` with the matching units.h parser; an InputError is rethrown with the
// flag's name in front.
double flag_bytes(std::string_view flag, const std::string& text);
double flag_seconds(std::string_view flag, const std::string& text);
double flag_rate(std::string_view flag, const std::string& text);
double flag_fraction(std::string_view flag, const std::string& text);
double flag_number(std::string_view flag, const std::string& text);
std::int64_t flag_count(std::string_view flag, const std::string& text, std::int64_t min_value,
                        std::int64_t max_value);

// `value`, read from `text`, unless it lies outside `range`: then InputError "<flag>: <what>
// '<text>' is outside the range <range>" ("--alpha: latency '1e300s' is outside the range
// 1e-12 s to 1e+06 s").
double flag_within(std::string_view flag, std::string_view what, const std::string& text,
                   double value, const ValueRange& range);

// A link's latency and bandwidth (--alpha, --bandwidth), held to a fabric file's ranges for
// its links: 1e-12 s to 1e6 s (kLinkLatency), 1 B/s to 1 PB/s (kScenarioRate).
double flag_link_latency(std::string_view flag, const std::string& text);
double flag_link_rate(std::string_view flag, const std::string& text);

// A comma-separated list of rank counts, "8,64,1024"; each in [1, 2^40]; at least one.
// The most rank counts a --ranks list may hold.
inline constexpr std::size_t kMaxRankListItems = 4096;
std::vector<std::int64_t> flag_rank_list(std::string_view flag, const std::string& text);

// A comma-separated list of rank counts or an inclusive range "A..B": A, every power of two
// between A and B, and B ("8..100" is 8,16,32,64,100; "3..20" is 3,4,8,16,20; "8..64" is
// 8,16,32,64). Both ends are always rows.
std::vector<std::int64_t> flag_rank_range(std::string_view flag, const std::string& text);

// Splits "a,b,c" at commas, trimming blanks; an empty item is kept (and rejected by the
// caller's parser).
std::vector<std::string> split_list(std::string_view text);

// A comma-separated list of sizes ("0,8,1MiB,3000"), each through parse_bytes, in the given
// order (blanks around an item trimmed). Throws InputError prefixed with `flag`.
std::vector<double> flag_size_list(std::string_view flag, const std::string& text);

}  // namespace scalewall

#endif  // SCALEWALL_CLI_FLAGS_H_
