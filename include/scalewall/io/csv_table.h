// scalewall/io/csv_table.h: a comma-separated table with a header row, as the project's tables
// of runs are written: lines starting with '#' (a source, a note) and blank lines are skipped;
// the first other line is the header; a cell may be quoted ("a, b"), a doubled quote inside
// quotes is one quote; cells are trimmed of spaces and tabs, and a '\r' before the newline is
// dropped. Every data row must have as many cells as the header.
#ifndef SCALEWALL_IO_CSV_TABLE_H_
#define SCALEWALL_IO_CSV_TABLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scalewall {

// The cells of one CSV line (quotes removed, each cell trimmed).
std::vector<std::string> split_csv_line(std::string_view line);

// `text` without the spaces, tabs, '\r' and '\n' at either end.
std::string trim_cell(std::string_view text);

struct CsvRow {
  std::vector<std::string> cells;  // one per header column
  std::int64_t line = 0;           // 1-based line in the file
};

struct CsvTable {
  std::string path;                 // names the table in errors
  std::vector<std::string> header;
  std::vector<CsvRow> rows;
  // The index of column `name`, or nullopt.
  std::optional<std::size_t> column(std::string_view name) const;
  // The cell of `row` in column `name`: "" when the table has no such column.
  std::string cell(const CsvRow& row, std::string_view name) const;
};

// Parses `text`; `path` names it in errors. Throws InputError naming path:line when a row's
// cell count differs from the header's or a quote is left open, and naming the path when the
// text has no header. `max_rows` bounds the data rows (an error beyond it).
CsvTable parse_csv_table(std::string_view text, const std::string& path,
                         std::int64_t max_rows = 100000);

}  // namespace scalewall

#endif  // SCALEWALL_IO_CSV_TABLE_H_
