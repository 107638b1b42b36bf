// Implementation of scalewall/io/scaling_table.h.
#include "scalewall/io/scaling_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "json_input.h"
#include "scalewall/base/error.h"
#include "scalewall/base/units.h"
#include "scalewall/io/csv_table.h"
#include "scalewall/io/input_file.h"
#include "scalewall/model/scaling.h"

namespace scalewall {
namespace {

double positive_number(const std::string& text, const std::string& where,
                       const std::string& column) {
  double v = 0;
  try {
    v = parse_number(text);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}: {}", where, column, e.what()));
  }
  if (!(v > 0)) {
    throw InputError(fmt::format("{}: {} = {} must be above zero", where, column, text));
  }
  return v;
}

// A measured step time is at most 1e6 s (about 11.6 days), as in every measurement log.
constexpr double kMaxStepSeconds = 1e6;

double step_time(double seconds, std::string_view written, const std::string& where) {
  if (seconds > kMaxStepSeconds) {
    throw InputError(fmt::format("{}: step_s = {} is outside the range of a measured step time "
                                 "(above 0, at most 1e6 s)",
                                 where, written));
  }
  return seconds;
}

struct RawRow {
  std::int64_t ranks;
  std::optional<double> step_s;
  std::optional<double> throughput;
  std::optional<double> problem_size;
  std::int64_t line;
};

InputError too_many_rows(const std::string& where) {
  return InputError(fmt::format("{}: more than {} rows (the limit for a scaling table: one row "
                                "per rank count)",
                                where, kMaxScalingRows));
}

std::vector<RawRow> read_csv_rows(const std::string& path, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::int64_t number = 0;
  std::vector<std::string> header;
  std::vector<RawRow> rows;
  while (std::getline(in, line)) {
    ++number;
    const std::string t = trim_cell(line);
    if (t.empty() || t[0] == '#') continue;
    const auto cells = split_csv_line(t);
    if (header.empty()) {
      header = cells;
      continue;
    }
    const std::string where = fmt::format("{}:{}", path, number);
    if (cells.size() != header.size()) {
      throw InputError(fmt::format("{}: {} fields, but the header has {}", where, cells.size(),
                                   header.size()));
    }
    RawRow r{0, std::nullopt, std::nullopt, std::nullopt, number};
    bool has_ranks = false;
    for (std::size_t i = 0; i < header.size(); ++i) {
      const std::string& key = header[i];
      if (key == "ranks") {
        try {
          r.ranks = parse_count(cells[i], 1, kMaxRanks);
        } catch (const InputError& e) {
          throw InputError(fmt::format("{}: ranks: {}", where, e.what()));
        }
        has_ranks = true;
      } else if (key == "step_s") {
        r.step_s = step_time(positive_number(cells[i], where, key), cells[i], where);
      } else if (key == "throughput") {
        r.throughput = positive_number(cells[i], where, key);
      } else if (key == "problem_size") {
        r.problem_size = positive_number(cells[i], where, key);
      }
    }
    if (!has_ranks) break;  // reported below with the header
    if (static_cast<std::int64_t>(rows.size()) == kMaxScalingRows) throw too_many_rows(where);
    rows.push_back(r);
  }
  if (header.empty()) throw InputError(fmt::format("{}: no header row and no data", path));
  if (std::find(header.begin(), header.end(), "ranks") == header.end()) {
    throw InputError(fmt::format("{}:1: the header has no 'ranks' column", path));
  }
  return rows;
}

std::vector<RawRow> read_json_rows(const std::string& path, std::string_view text) {
  const nlohmann::json j = parse_json_input(text, path);
  const nlohmann::json* rows = &j;
  if (j.is_object()) {
    const auto it = j.find("rows");
    if (it == j.end() || !it->is_array()) {
      throw InputError(fmt::format("{}: a JSON object needs a \"rows\" array", path));
    }
    rows = &*it;
  }
  if (!rows->is_array()) throw InputError(fmt::format("{}: expected an array of rows", path));
  if (rows->size() > static_cast<std::size_t>(kMaxScalingRows)) {
    throw too_many_rows(fmt::format("{}: row {}", path, kMaxScalingRows + 1));
  }
  std::vector<RawRow> out;
  std::int64_t index = 0;
  for (const auto& row : *rows) {
    ++index;
    const std::string where = fmt::format("{}: row {}", path, index);
    if (!row.is_object()) {
      throw InputError(fmt::format("{}: must be an object, not {}", where, json_type_words(row)));
    }
    RawRow r{0, std::nullopt, std::nullopt, std::nullopt, index};
    const auto ranks = row.find("ranks");
    if (ranks == row.end()) throw InputError(fmt::format("{}: field \"ranks\" is missing", where));
    if (!ranks->is_number_integer()) {
      throw InputError(fmt::format("{}: field \"ranks\" must be a whole number, not {}", where,
                                   ranks->is_number() ? json_shown(*ranks) : json_type_words(*ranks)));
    }
    // An unsigned value above 2^63 would wrap as a signed one: compare it unsigned.
    const bool in_range =
        ranks->is_number_unsigned()
            ? ranks->get<std::uint64_t>() >= 1 &&
                  ranks->get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxRanks)
            : ranks->get<std::int64_t>() >= 1 && ranks->get<std::int64_t>() <= kMaxRanks;
    if (!in_range) {
      throw InputError(fmt::format("{}: ranks = {} is out of range", where, json_shown(*ranks)));
    }
    r.ranks = ranks->get<std::int64_t>();
    const auto number = [&](const char* key) -> std::optional<double> {
      const auto it = row.find(key);
      if (it == row.end()) return std::nullopt;
      if (!it->is_number()) {
        throw InputError(fmt::format("{}: field \"{}\" must be a number, not {}", where, key,
                                     json_type_words(*it)));
      }
      const double v = it->get<double>();
      if (!(v > 0) || !std::isfinite(v)) {
        throw InputError(fmt::format("{}: {} = {} must be above zero", where, key, json_shown(*it)));
      }
      return v;
    };
    r.step_s = number("step_s");
    if (r.step_s) step_time(*r.step_s, json_shown(row["step_s"]), where);
    r.throughput = number("throughput");
    r.problem_size = number("problem_size");
    out.push_back(r);
  }
  return out;
}

}  // namespace

ScalingTable read_scaling_table(const std::string& path) {
  return parse_scaling_table(read_input_file(path, "scaling table"), path);
}

ScalingTable parse_scaling_table(std::string_view text, const std::string& path) {
  // The text is read where it is (a 256 MB table is not copied before it is parsed).
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) {
    throw InputError(fmt::format("scaling table '{}' is empty", path));
  }
  const std::vector<RawRow> rows = (text[start] == '[' || text[start] == '{')
                                       ? read_json_rows(path, text)
                                       : read_csv_rows(path, std::string(text));
  if (rows.empty()) throw InputError(fmt::format("{}: no rows after the header", path));
  ScalingTable table;
  table.source = path;
  const bool any_step = std::any_of(rows.begin(), rows.end(), [](const RawRow& r) { return r.step_s.has_value(); });
  const bool any_problem = std::any_of(rows.begin(), rows.end(), [](const RawRow& r) { return r.problem_size.has_value(); });
  table.from_throughput = !any_step;
  std::map<std::int64_t, std::int64_t> seen;
  for (const RawRow& r : rows) {
    const std::string where = fmt::format("{}:{}", path, r.line);
    if (seen.count(r.ranks) != 0) {
      throw InputError(fmt::format("{}: {} ranks already given at line {}", where, r.ranks,
                                   seen[r.ranks]));
    }
    seen[r.ranks] = r.line;
    ScalingPoint p;
    p.ranks = r.ranks;
    p.line = r.line;
    if (any_step) {
      if (!r.step_s) throw InputError(fmt::format("{}: step_s is missing", where));
      p.step_s = *r.step_s;
    } else {
      if (!r.throughput) {
        throw InputError(fmt::format("{}: needs step_s or throughput", where));
      }
      p.step_s = 1.0 / *r.throughput;  // per unit of work; diagnose_scaling scales by N if weak
    }
    if (any_problem && !r.problem_size) {
      throw InputError(fmt::format("{}: problem_size is missing (other rows give it)", where));
    }
    p.problem_size = r.problem_size;
    table.points.push_back(p);
  }
  std::sort(table.points.begin(), table.points.end(),
            [](const ScalingPoint& a, const ScalingPoint& b) { return a.ranks < b.ranks; });
  return table;
}

}  // namespace scalewall
