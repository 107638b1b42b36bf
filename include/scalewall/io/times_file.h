// scalewall/io/times_file.h: reading per-rank step times from a text file.
//
// Accepted layouts:
//   * one number per line (seconds, or with a unit: "1.02", "1020ms");
//   * CSV with a header row: the column named by `column`, or, when `column` is empty, the
//     only column, or the first column whose header is one of step_s, time_s, seconds, t_s.
// Blank lines and lines starting with '#' are skipped. The same header-less CSV with several
// columns needs `column` as a 1-based index ("2").
//
// Errors (InputError, naming the file and the 1-based line): the file is missing or
// unreadable, holds no times, a value is not a time, is negative or not finite, the named
// column is absent, a row is short, more than kMaxTimes times.
#ifndef SCALEWALL_TIMES_FILE_H_
#define SCALEWALL_TIMES_FILE_H_

#include <string>
#include <string_view>
#include <vector>

namespace scalewall {

// The most times a file holds: one per rank, as many as a measurement log's rows (its
// per-rank table is printed whole, so the largest is read and shown in seconds).
inline constexpr std::int64_t kMaxTimes = 1'000'000;

// Returns the times in seconds, in file order (rank 0 first).
std::vector<double> read_times_file(const std::string& path, const std::string& column = "");

// The same for text already read, `source_name` standing for the file in messages.
std::vector<double> parse_times_text(std::string_view text, const std::string& source_name,
                                     const std::string& column = "");

}  // namespace scalewall

#endif  // SCALEWALL_TIMES_FILE_H_
