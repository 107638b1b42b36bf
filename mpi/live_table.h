// mpi/live_table.h: the human-readable table scalewall-mpi prints on stderr while it runs,
// one row per measurement as soon as it is taken, in nccl-tests' layout: a '#' title line,
// two '#' header lines (the column names, then each column's unit in parentheses), then
// right-aligned rows, each flushed as it is written. The JSON Lines (world.h's RecordWriter)
// stay the record; this table is for the person watching the run.
//
// Layer: mpi/. MPI-free: the mode decides which rank prints (rank 0) and whether (--quiet).
#ifndef SCALEWALL_MPI_LIVE_TABLE_H_
#define SCALEWALL_MPI_LIVE_TABLE_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace scalewall::mpi {

struct LiveColumn {
  std::string name;  // "size", "algbw"
  std::string unit;  // "B", "GB/s"; empty for a column without one ("type", "#wrong")
  int width = 8;     // characters, at least the name's and the unit's "(unit)"
};

class LiveTable {
 public:
  // `out` null: every call prints nothing (ranks other than 0, or --quiet).
  LiveTable(std::ostream* out, std::vector<LiveColumn> columns);

  // "# text".
  void title(const std::string& text);
  // The two header lines.
  void header();
  // One row; REQUIRES: one cell per column.
  void row(const std::vector<std::string>& cells);

  bool active() const { return out_ != nullptr; }

 private:
  void line(char lead, const std::vector<std::string>& cells);

  std::ostream* out_;
  std::vector<LiveColumn> columns_;
};

// Cells as nccl-tests prints them: a time in microseconds with two decimals ("18.54"), a
// rate in GB/s (1e9 B/s) with two decimals, a whole number.
std::string us_cell(double seconds);
std::string gbps_cell(double bytes_per_second);
std::string count_cell(std::int64_t n);

}  // namespace scalewall::mpi

#endif  // SCALEWALL_MPI_LIVE_TABLE_H_
