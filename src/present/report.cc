// Implementation of scalewall/present/report.h. The reporters see only finished Reports; no command
// logic lives here.
#include "scalewall/present/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <utility>

#include "scalewall/base/error.h"
#include "scalewall/base/units.h"
#include "scalewall/base/utf8.h"

namespace scalewall {

namespace {

double require_finite(double value, std::string_view key) {
  SCALEWALL_CHECK_DETAIL(std::isfinite(value),
                         fmt::format("non-finite value in output key '{}'", key));
  return value;
}

nlohmann::ordered_json value_to_json(const Value& value, std::string_view key) {
  return std::visit(
      [&](const auto& v) -> nlohmann::ordered_json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, double>) {
          return require_finite(v, key);
        } else {
          return v;
        }
      },
      value);
}

std::string csv_escape(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_cell(const Value& value, std::string_view key) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "";
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return fmt::format("{}", v);
        } else if constexpr (std::is_same_v<T, double>) {
          return fmt::format("{}", require_finite(v, key));  // shortest round-trip form
        } else {
          return csv_escape(v);
        }
      },
      value);
}

bool right_aligned(Unit unit) { return unit != Unit::kText; }

void check_table_shape(const Table& table) {
  for (const auto& row : table.rows) {
    SCALEWALL_CHECK(row.size() == table.columns.size());
  }
  SCALEWALL_CHECK(table.marks.empty() || table.marks.size() == table.rows.size());
}

// The lists as "# label: item" lines (table and CSV formats).
void write_list_lines(const Report& report, std::ostream& out) {
  for (const TextList& list : report.lists) {
    for (const std::string& item : list.items) {
      out << "# " << visible(list.label) << ": " << visible(item) << "\n";
    }
  }
}

void write_csv_table(const Table& table, std::ostream& out) {
  check_table_shape(table);
  std::string header;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (c) header += ",";
    header += csv_escape(table.columns[c].key);
  }
  out << header << "\n";
  for (const auto& row : table.rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c) line += ",";
      line += csv_cell(row[c], table.columns[c].key);
    }
    out << line << "\n";
  }
}

}  // namespace

void Table::add_row(std::vector<Value> row, std::string mark) {
  SCALEWALL_CHECK(row.size() == columns.size());
  if (!mark.empty() && marks.size() < rows.size()) marks.resize(rows.size());
  rows.push_back(std::move(row));
  if (!marks.empty() || !mark.empty()) {
    marks.resize(rows.size());
    marks.back() = std::move(mark);
  }
}

void Report::add_field(std::string key, std::string title_text, Unit unit, Value value,
                       std::string null_text) {
  fields.push_back(Field{std::move(key), std::move(title_text), unit, std::move(value),
                         std::move(null_text)});
}

void Report::add_list(std::string key, std::string label, std::vector<std::string> items) {
  lists.push_back(TextList{std::move(key), std::move(label), std::move(items)});
}

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::kModel:
      return "model";
    case Kind::kSimulation:
      return "simulation";
    case Kind::kMeasurement:
      return "measurement";
  }
  SCALEWALL_CHECK(false && "unknown Kind");
  return {};
}

Report model_report(std::string command) {
  Report report;
  report.command = std::move(command);
  report.kind = Kind::kModel;
  report.banner = model_banner();
  return report;
}

std::string model_banner() { return "MODEL: analytic prediction, not a measurement"; }

std::string simulation_banner(std::uint64_t seed) {
  return fmt::format("SIMULATION (seed {}): Monte Carlo estimate, not a measurement", seed);
}

std::string measurement_banner(std::string_view what) {
  return fmt::format("MEASUREMENT: {}", what);
}

Format parse_format(std::string_view text) {
  if (text == "table") return Format::kTable;
  if (text == "csv") return Format::kCsv;
  if (text == "json") return Format::kJson;
  throw InputError(fmt::format("unknown format '{}' (expected table, csv or json)", text));
}

std::string format_cell(const Value& value, Unit unit) {
  if (std::holds_alternative<std::monostate>(value)) return "-";
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "yes" : "no";
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  const double v = std::holds_alternative<std::int64_t>(value)
                       ? static_cast<double>(std::get<std::int64_t>(value))
                       : require_finite(std::get<double>(value), "table cell");
  switch (unit) {
    case Unit::kPlain:
      return fmt::format("{:.4g}", v);
    case Unit::kCount:
      if (const auto* i = std::get_if<std::int64_t>(&value)) return fmt::format("{}", *i);
      // Whole below 1e15 (a double is exact to there); a larger count in four digits, so a
      // huge value never prints as hundreds of digits.
      return std::fabs(v) < 1e15 ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v);
    case Unit::kRatio:
      return fmt::format("{:.4g}x", v);
    case Unit::kFraction:
      return format_percent(v);
    case Unit::kBytes:
      return format_bytes(v);
    case Unit::kSeconds:
      return format_seconds(v);
    case Unit::kRate:
      return format_rate(v);
    case Unit::kText:
      return fmt::format("{}", v);
  }
  SCALEWALL_CHECK(false && "unknown Unit");
  return {};
}

void write_table(const Report& report, std::ostream& out) {
  out << "# " << visible(report.banner) << "\n";
  if (!report.title.empty()) out << "# " << visible(report.title) << "\n";
  for (const Table& table : report.tables) {
    check_table_shape(table);
    out << "\n";
    if (report.tables.size() > 1) out << "[" << visible(table.key) << "]\n";
    std::vector<std::size_t> width(table.columns.size());
    std::vector<std::vector<std::string>> cells;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      width[c] = visible(table.columns[c].title).size();
    }
    for (const auto& row : table.rows) {
      std::vector<std::string> line;
      for (std::size_t c = 0; c < row.size(); ++c) {
        line.push_back(visible(format_cell(row[c], table.columns[c].unit)));
        width[c] = std::max(width[c], line.back().size());
      }
      cells.push_back(std::move(line));
    }
    const auto pad = [&](const std::string& text, std::size_t c) {
      return right_aligned(table.columns[c].unit) ? fmt::format("{:>{}}", text, width[c])
                                                  : fmt::format("{:<{}}", text, width[c]);
    };
    std::string header;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      if (c) header += "  ";
      header += pad(visible(table.columns[c].title), c);
    }
    while (!header.empty() && header.back() == ' ') header.pop_back();
    out << header << "\n";
    for (std::size_t r = 0; r < cells.size(); ++r) {
      std::string line;
      for (std::size_t c = 0; c < cells[r].size(); ++c) {
        if (c) line += "  ";
        line += pad(cells[r][c], c);
      }
      if (!table.marks.empty() && !table.marks[r].empty()) line += "  " + visible(table.marks[r]);
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << "\n";
    }
  }
  if (!report.fields.empty()) {
    out << "\n";
    std::size_t title_width = 0;
    for (const Field& f : report.fields) {
      title_width = std::max(title_width, visible(f.title).size());
    }
    for (const Field& f : report.fields) {
      const std::string text = std::holds_alternative<std::monostate>(f.value)
                                   ? f.null_text
                                   : format_cell(f.value, f.unit);
      out << fmt::format("{:<{}}  {}\n", visible(f.title) + ":", title_width + 1, visible(text));
    }
  }
  const bool any_listed = std::any_of(report.lists.begin(), report.lists.end(),
                                      [](const TextList& l) { return !l.items.empty(); });
  if (any_listed || !report.notes.empty()) {
    out << "\n";
    write_list_lines(report, out);
    for (const std::string& note : report.notes) out << "# " << visible(note) << "\n";
  }
}

void write_csv(const Report& report, std::ostream& out) {
  if (!report.tables.empty()) write_csv_table(report.tables.front(), out);
  write_list_lines(report, out);
}


nlohmann::ordered_json to_json(const Report& report) {
  nlohmann::ordered_json j;
  j["tool"] = "scalewall";
  j["version"] = SCALEWALL_VERSION;
  j["command"] = report.command;
  j["kind"] = std::string(kind_name(report.kind));
  j["inputs"] = report.inputs;
  for (const Field& f : report.fields) {
    SCALEWALL_CHECK(!j.contains(f.key));
    j[f.key] = value_to_json(f.value, f.key);
  }
  for (const Table& table : report.tables) {
    check_table_shape(table);
    SCALEWALL_CHECK(!j.contains(table.key));
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& row : table.rows) {
      nlohmann::ordered_json object = nlohmann::ordered_json::object();
      for (std::size_t c = 0; c < row.size(); ++c) {
        object[table.columns[c].key] = value_to_json(row[c], table.columns[c].key);
      }
      rows.push_back(std::move(object));
    }
    j[table.key] = std::move(rows);
  }
  for (const auto& [key, value] : report.extra.items()) {
    SCALEWALL_CHECK(!j.contains(key));
    j[key] = value;
  }
  for (const TextList& list : report.lists) {
    SCALEWALL_CHECK(!j.contains(list.key));
    j[list.key] = list.items;
  }
  return j;
}

// Control characters are escaped by the JSON writer (\u001b); a byte that is not UTF-8 (a
// file name's) becomes U+FFFD, so the output is valid JSON whatever the inputs' names hold.
void write_json(const Report& report, std::ostream& out) {
  out << to_json(report).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
      << "\n";
}

void write_report(const Report& report, Format format, std::ostream& out) {
  switch (format) {
    case Format::kTable:
      write_table(report, out);
      return;
    case Format::kCsv:
      write_csv(report, out);
      return;
    case Format::kJson:
      write_json(report, out);
      return;
  }
  SCALEWALL_CHECK(false && "unknown Format");
}

}  // namespace scalewall
