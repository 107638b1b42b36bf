// scalewall/io/scaling_table.h: a measured scaling curve (rank counts with step times or
// throughputs) as CSV or JSON, the input of diagnose_scaling (analysis/diagnose.h).
#ifndef SCALEWALL_IO_SCALING_TABLE_H_
#define SCALEWALL_IO_SCALING_TABLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scalewall {

struct ScalingPoint {
  std::int64_t ranks = 1;
  double step_s = 0;                   // per step (from throughput when only that is given)
  std::optional<double> problem_size;  // as given, any unit
  std::int64_t line = 0;               // 1-based line (CSV) or row index + 1 (JSON)
};

struct ScalingTable {
  std::string source;
  bool from_throughput = false;  // step times derived from a throughput column
  std::vector<ScalingPoint> points;  // in file order
};

// The most rows a scaling table holds: each is a distinct rank count, and diagnosing one
// costs tens of microseconds, so that the largest table is diagnosed in seconds.
inline constexpr std::int64_t kMaxScalingRows = 100'000;

// Reads a CSV with a header row (`ranks` and `step_s` or `throughput`, optional
// `problem_size`; other columns ignored; `#` comments) or JSON (an array of such objects, or
// an object with a "rows" array, e.g. the output of `scalewall predict --format json`).
// With only a throughput, step time is taken as 1/throughput, or as N/throughput when the
// problem grows with N (weak). Throws InputError naming the file and line for a missing,
// empty or malformed file, a missing column, a non-numeric, negative or zero value, a rank
// count given twice, or more than kMaxScalingRows rows.
ScalingTable read_scaling_table(const std::string& path);

// The same for text already read, `source_name` standing for the file in messages.
ScalingTable parse_scaling_table(std::string_view text, const std::string& source_name);

}  // namespace scalewall

#endif  // SCALEWALL_IO_SCALING_TABLE_H_
