// Implementation of scalewall/io/times_file.h.
//
// The first content line decides the layout: if any of its cells does not start like a
// number it is a header row and names the columns; otherwise every content line is data.
// Every value goes through parse_seconds, so "1.02" and "1020ms" read alike.
#include "scalewall/io/times_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

#include "scalewall/base/error.h"
#include "scalewall/io/input_file.h"
#include "scalewall/base/units.h"

namespace scalewall {
namespace {

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

// A header cell may be quoted ("step_s"); the quotes are not part of the name.
std::string_view unquote(std::string_view text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    return text.substr(1, text.size() - 2);
  }
  return text;
}

std::vector<std::string_view> split_cells(std::string_view line) {
  std::vector<std::string_view> cells;
  for (;;) {
    const std::size_t comma = line.find(',');
    cells.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return cells;
}

// A cell that starts like a number ("1.5", ".5", "-1", "+2", "inf", "nan") is data, even
// when the rest of it is wrong: "1.0x" or "nan" on the first line is a bad value, not a
// column name.
bool looks_numeric(std::string_view cell) {
  if (cell.empty()) return false;
  const char c = cell.front();
  if ((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+') return true;
  std::string head;
  for (std::size_t i = 0; i < cell.size() && i < 3; ++i) {
    const char ch = cell[i];
    head += (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
  }
  return head == "inf" || head == "nan";
}

// "2" -> 2 (a 1-based column index); anything else -> empty.
std::optional<std::size_t> column_index(std::string_view text) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1) return std::nullopt;
  return value;
}

std::string join(const std::vector<std::string_view>& names) {
  std::string out;
  for (const auto name : names) {
    if (!out.empty()) out += ", ";
    out += unquote(name);
  }
  return out;
}

constexpr std::array<std::string_view, 4> kTimeColumnNames = {"step_s", "time_s", "seconds",
                                                              "t_s"};

// The 0-based column to read, from a header row: the one named `wanted` (or its 1-based
// index), the only one, or the one with a time's name.
std::size_t column_from_header(const std::vector<std::string_view>& cells,
                               std::string_view wanted, const std::string& where) {
  if (!wanted.empty()) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (unquote(cells[c]) == wanted) return c;
    }
    const auto index = column_index(wanted);
    if (!index || *index > cells.size()) {
      throw InputError(fmt::format("{}: no column '{}' in the header ({})", where, wanted,
                                   join(cells)));
    }
    return *index - 1;
  }
  if (cells.size() == 1) return 0;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const auto name = unquote(cells[c]);
    if (std::find(kTimeColumnNames.begin(), kTimeColumnNames.end(), name) !=
        kTimeColumnNames.end()) {
      return c;
    }
  }
  throw InputError(fmt::format(
      "{}: several columns ({}) and none named step_s, time_s, seconds or t_s; name "
      "the column to read",
      where, join(cells)));
}

// The 0-based column to read when the first row is already data: `wanted` as a 1-based index,
// or the only column.
std::size_t column_without_header(const std::vector<std::string_view>& cells,
                                  std::string_view wanted, const std::string& where) {
  if (!wanted.empty()) {
    const auto index = column_index(wanted);
    if (!index) {
      throw InputError(fmt::format(
          "{}: the file has no header row, so the column must be a 1-based index, not '{}'",
          where, wanted));
    }
    if (*index > cells.size()) {
      throw InputError(fmt::format("{}: column {} asked for, but the row has {} column(s)",
                                   where, *index, cells.size()));
    }
    return *index - 1;
  }
  if (cells.size() == 1) return 0;
  throw InputError(fmt::format(
      "{}: {} columns and no header row; name the column to read by its 1-based index", where,
      cells.size()));
}

// The time in column `pick` of one data row.
double time_in_row(const std::vector<std::string_view>& cells, std::size_t pick,
                   std::size_t columns_seen, const std::string& where) {
  if (pick >= cells.size()) {
    throw InputError(fmt::format("{}: row is short: {} column(s), expected at least {} (the "
                                 "first row has {})",
                                 where, cells.size(), pick + 1, columns_seen));
  }
  try {
    return parse_seconds(cells[pick]);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", where, e.what()));
  }
}

}  // namespace

std::vector<double> read_times_file(const std::string& path, const std::string& column) {
  return parse_times_text(read_input_file(path, "times file"), path, column);
}

std::vector<double> parse_times_text(std::string_view content, const std::string& path,
                                     const std::string& column) {
  const std::string_view wanted = trim(column);

  std::vector<double> times;
  std::optional<std::size_t> pick;  // 0-based column, once the layout is known
  std::size_t columns_seen = 0;     // cells in the first content line
  std::int64_t line_number = 0;
  for (std::string_view text; next_line(content, text);) {
    ++line_number;
    if (line_number == 1 && text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // BOM
    text = trim(text);
    if (text.empty() || text.front() == '#') continue;
    const std::string where = fmt::format("{}:{}", path, line_number);
    const std::vector<std::string_view> cells = split_cells(text);

    if (!pick) {
      columns_seen = cells.size();
      const bool header = !std::all_of(cells.begin(), cells.end(), looks_numeric);
      if (header) {
        pick = column_from_header(cells, wanted, where);
        continue;  // the header holds no time
      }
      pick = column_without_header(cells, wanted, where);
    }
    if (static_cast<std::int64_t>(times.size()) == kMaxTimes) {
      throw InputError(fmt::format("{}: more than {} times (the limit for a times file: one "
                                   "per rank)",
                                   where, kMaxTimes));
    }
    times.push_back(time_in_row(cells, *pick, columns_seen, where));
  }
  if (times.empty()) {
    throw InputError(fmt::format("times file '{}' holds no times ({} line(s), all blank, "
                                 "comments or a header)",
                                 path, line_number));
  }
  return times;
}

}  // namespace scalewall
