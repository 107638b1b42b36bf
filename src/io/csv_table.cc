// Implementation of scalewall/io/csv_table.h.
#include "scalewall/io/csv_table.h"

#include <fmt/format.h>

#include <algorithm>

#include "scalewall/base/error.h"
#include "scalewall/io/input_file.h"

namespace scalewall {

std::string trim_cell(std::string_view text) {
  const auto b = text.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  const auto e = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(b, e - b + 1));
}

namespace {

// The cells of `line`; false when a quote is left open.
bool split_cells(std::string_view line, std::vector<std::string>& cells) {
  cells.clear();
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == ',' && !quoted) {
      cells.push_back(trim_cell(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(trim_cell(cell));
  return !quoted;
}

}  // namespace

std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> cells;
  split_cells(line, cells);
  return cells;
}

std::optional<std::size_t> CsvTable::column(std::string_view name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) return std::nullopt;
  return static_cast<std::size_t>(it - header.begin());
}

std::string CsvTable::cell(const CsvRow& row, std::string_view name) const {
  const std::optional<std::size_t> i = column(name);
  return i ? row.cells[*i] : std::string();
}

CsvTable parse_csv_table(std::string_view text, const std::string& path, std::int64_t max_rows) {
  CsvTable table;
  table.path = path;
  std::int64_t number = 0;
  std::vector<std::string> cells;
  for (std::string_view line; next_line(text, line);) {
    ++number;
    const std::string t = trim_cell(line);
    if (t.empty() || t[0] == '#') continue;
    if (!split_cells(t, cells)) {
      throw InputError(fmt::format("{}:{}: a quote is left open", path, number));
    }
    if (table.header.empty()) {
      table.header = cells;
      continue;
    }
    if (cells.size() != table.header.size()) {
      throw InputError(fmt::format("{}:{}: {} fields, but the header has {}", path, number,
                                   cells.size(), table.header.size()));
    }
    if (static_cast<std::int64_t>(table.rows.size()) == max_rows) {
      throw InputError(fmt::format("{}:{}: more than {} rows", path, number, max_rows));
    }
    table.rows.push_back({cells, number});
  }
  if (table.header.empty()) throw InputError(fmt::format("{}: no header row and no data", path));
  return table;
}

}  // namespace scalewall
