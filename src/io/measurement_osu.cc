// The OSU Micro-Benchmarks and Intel MPI Benchmarks readers of measurement.h.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "measurement_text.h"
#include "scalewall/base/error.h"
#include "scalewall/base/utf8.h"
#include "scalewall/base/setting.h"
#include "scalewall/io/measurement.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/scaling.h"

namespace scalewall::measurement_text {
namespace {
// ---------------------------------------------------------------------------------------
// OSU Micro-Benchmarks

enum class OsuKind { kLatency, kBandwidth, kCollective, kSkipped };

// Bytes per element of an MPI datatype named in a log ("MPI_CHAR", "MPI_FLOAT."); 0 for a
// name not known here.
double mpi_type_bytes(std::string_view name) {
  while (!name.empty() && (name.back() == '.' || name.back() == ' ')) name.remove_suffix(1);
  static constexpr std::pair<std::string_view, double> kTypes[] = {
      {"MPI_CHAR", 1},         {"MPI_BYTE", 1},          {"MPI_SIGNED_CHAR", 1},
      {"MPI_UNSIGNED_CHAR", 1}, {"MPI_INT8_T", 1},        {"MPI_UINT8_T", 1},
      {"MPI_SHORT", 2},        {"MPI_INT16_T", 2},       {"MPI_INT", 4},
      {"MPI_UNSIGNED", 4},     {"MPI_INT32_T", 4},       {"MPI_UINT32_T", 4},
      {"MPI_FLOAT", 4},        {"MPI_LONG", 8},          {"MPI_UNSIGNED_LONG", 8},
      {"MPI_LONG_LONG", 8},    {"MPI_LONG_LONG_INT", 8}, {"MPI_INT64_T", 8},
      {"MPI_UINT64_T", 8},     {"MPI_DOUBLE", 8}};
  for (const auto& [type, bytes] : kTypes) {
    if (type == name) return bytes;
  }
  return 0;
}

struct OsuTable {
  OsuKind kind = OsuKind::kLatency;
  std::string title;            // "OSU MPI Latency Test v7.3"
  std::string benchmark;        // "osu_latency"
  Op op = Op::kAllreduce;       // kCollective only
  bool per_peer = false;        // the Size is what one rank sends each other one (all-to-all)
  double element_bytes = 0;     // of its "# Datatype:" line (OSU 7); 0 when it has none
  std::int64_t title_line = 0;
  std::vector<std::string> columns;  // normalised: "size", "latency(us)", ...
  struct Row {
    std::int64_t line = 0;
    std::vector<std::string_view> cells;  // of the log's text
  };
  std::vector<Row> rows;
};

std::string normalise_column(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c != ' ') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// "# Size       Avg Latency(us)   Min Latency(us)" -> size, avglatency(us), minlatency(us).
// Columns are separated by two or more spaces; OSU 2.x printed "# Size Latency (us)" with
// single spaces, where "Size" is split off the rest.
std::vector<std::string> osu_columns(std::string_view header) {
  std::vector<std::string> names;
  std::string_view rest = trim(header.substr(1));
  while (!rest.empty()) {
    std::size_t gap = rest.find("  ");
    std::size_t tab = rest.find('\t');
    if (tab != std::string_view::npos && (gap == std::string_view::npos || tab < gap)) gap = tab;
    names.push_back(normalise_column(rest.substr(0, gap)));
    if (gap == std::string_view::npos) break;
    rest = trim(rest.substr(gap));
  }
  if (!names.empty() && names.front().starts_with("size") && names.front() != "size") {
    names.front() = names.front().substr(4);
    names.insert(names.begin(), "size");
  }
  return names;
}

constexpr const char* kOsuRead =
    "osu_latency, osu_multi_lat, osu_bw, osu_bibw, osu_mbw_mr, osu_allreduce, osu_reduce, "
    "osu_bcast, osu_alltoall";

// A title's middle words (between "OSU MPI[-X]" and "Test") and what they name.
struct OsuTest {
  std::vector<std::string_view> middle;
  OsuKind kind;
  std::string_view benchmark;
  Op op = Op::kAllreduce;
  bool per_peer = false;
};

const std::vector<OsuTest>& osu_tests() {
  static const std::vector<OsuTest> tests = {
      {{"Latency"}, OsuKind::kLatency, "osu_latency"},
      {{"Multi", "Latency"}, OsuKind::kLatency, "osu_multi_lat"},
      {{"Bandwidth"}, OsuKind::kBandwidth, "osu_bw"},
      {{"Bi-Directional", "Bandwidth"}, OsuKind::kBandwidth, "osu_bibw"},
      {{"Multiple", "Bandwidth", "/", "Message", "Rate"}, OsuKind::kBandwidth, "osu_mbw_mr"},
      {{"Allreduce", "Latency"}, OsuKind::kCollective, "osu_allreduce", Op::kAllreduce},
      {{"Reduce", "Latency"}, OsuKind::kCollective, "osu_reduce", Op::kReduce},
      {{"Broadcast", "Latency"}, OsuKind::kCollective, "osu_bcast", Op::kBroadcast},
      {{"Bcast", "Latency"}, OsuKind::kCollective, "osu_bcast", Op::kBroadcast},
      {{"All-to-All", "Personalized", "Exchange", "Latency"}, OsuKind::kCollective,
       "osu_alltoall", Op::kAlltoall, true},
      {{"Alltoall", "Latency"}, OsuKind::kCollective, "osu_alltoall", Op::kAlltoall, true},
  };
  return tests;
}

// Reads the title line "OSU MPI[-X] <words> Test ..." into the table's kind, benchmark and
// collective; a test scalewall does not read is kSkipped.
void read_osu_title(std::string_view body, OsuTable& table) {
  table.title = std::string(body);
  const auto words = split_words(body);
  std::vector<std::string_view> middle;
  for (std::size_t i = 2; i < words.size() && words[i] != "Test"; ++i) middle.push_back(words[i]);
  table.kind = OsuKind::kSkipped;
  table.benchmark = std::string(body);
  // "OSU MPI ..." or "OSU MPI-CUDA ...": the one-sided tests ("OSU MPI_Put Latency Test")
  // and the NCCL ones time something else under the same words.
  if (words.size() < 2 || !(words[1] == "MPI" || words[1].starts_with("MPI-"))) return;
  for (const OsuTest& t : osu_tests()) {
    if (t.middle != middle) continue;
    table.kind = t.kind;
    table.benchmark = std::string(t.benchmark);
    table.op = t.op;
    table.per_peer = t.per_peer;
  }
}

// The tables of an OSU log: a title line starts one, and so does a second '# Size' header
// after rows (a test run again without its title). Tables of tests scalewall does not read
// are kept as kSkipped, without rows.
std::vector<OsuTable> read_osu_tables(const std::string& path, const Lines& lines) {
  std::vector<OsuTable> tables;
  std::int64_t rows = 0;
  for (const Line& line : lines) {
    const std::string_view text = trim(line.text);
    if (text.empty()) continue;
    const std::string place = at(path, line.number);
    if (text.starts_with('#')) {
      const std::string_view body = trim(text.substr(1));
      if (body.starts_with("OSU ")) {
        tables.emplace_back();
        tables.back().title_line = line.number;
        read_osu_title(body, tables.back());
      } else if (body.starts_with("Datatype:") && !tables.empty()) {
        tables.back().element_bytes = mpi_type_bytes(trim(body.substr(9)));
      } else if (body.starts_with("Size") && !tables.empty()) {
        if (!tables.back().rows.empty()) {
          OsuTable again = tables.back();
          again.rows.clear();
          again.title_line = line.number;
          tables.push_back(std::move(again));
        }
        tables.back().columns = osu_columns(text);
      }
      continue;
    }
    const auto words = split_words(text);
    if (!starts_row(words, tables.empty() ? 0 : tables.back().columns.size())) continue;
    count_row(rows, place);
    if (tables.empty() || tables.back().columns.empty()) {
      if (!tables.empty() && tables.back().kind == OsuKind::kSkipped) continue;
      throw InputError(fmt::format("{}: a table row before the OSU title and '# Size' header",
                                   place));
    }
    OsuTable& table = tables.back();
    if (table.kind == OsuKind::kSkipped) continue;
    if (words.size() != table.columns.size()) {
      throw InputError(row_width_error(place, words.size(), table.columns, "OSU"));
    }
    table.rows.push_back({line.number, words});
  }
  return tables;
}

// The tables that are read: those of known tests with rows. Throws when there is none,
// naming a skipped test when that is why.
std::vector<const OsuTable*> read_tables(const std::string& path,
                                         const std::vector<OsuTable>& tables) {
  std::vector<const OsuTable*> read;
  const OsuTable* skipped = nullptr;
  const OsuTable* empty = nullptr;
  for (const OsuTable& t : tables) {
    if (t.kind == OsuKind::kSkipped) {
      if (skipped == nullptr) skipped = &t;
    } else if (t.rows.empty()) {
      if (empty == nullptr) empty = &t;
    } else {
      read.push_back(&t);
    }
  }
  if (!read.empty()) return read;
  if (tables.empty()) {
    throw InputError(fmt::format("{}: no '# OSU MPI ... Test' title line", path));
  }
  if (empty != nullptr) {
    throw InputError(fmt::format("{}: an OSU log ({}) with no result rows", path, empty->title));
  }
  throw InputError(fmt::format("{}: '{}' is an OSU benchmark scalewall does not read "
                               "(it reads {})",
                               at(path, skipped->title_line), skipped->title, kOsuRead));
}

std::optional<std::size_t> column_of(const OsuTable& table, std::string_view name) {
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    if (table.columns[i] == name) return i;
  }
  return std::nullopt;
}

std::size_t require_column(const OsuTable& table, const std::string& path,
                           std::initializer_list<std::string_view> names) {
  for (const auto name : names) {
    if (const auto c = column_of(table, name)) return *c;
  }
  std::vector<std::string> wanted;
  for (const auto name : names) wanted.emplace_back(name);
  throw InputError(fmt::format("{}: the '# Size' header has no {} column (it has: {})",
                               at(path, table.title_line), join_words(wanted, " or "),
                               join_words(table.columns, ", ")));
}

bool osu_row_passed(const OsuTable& table, const OsuTable::Row& row) {
  const auto v = column_of(table, "validation");
  return !v || ascii_lower(row.cells[*v]) != "fail";
}

void read_osu_latency(const std::string& path, const OsuTable& table, std::size_t series,
                      MeasurementSet& set) {
  const std::size_t size_col = require_column(table, path, {"size"});
  const std::size_t t_col = require_column(table, path, {"latency(us)", "avglatency(us)"});
  for (const auto& row : table.rows) {
    const std::string place = at(path, row.line);
    PingPongPoint p;
    p.series = series;
    p.bytes = read_size(row.cells[size_col], place, "Size");
    const double t = read_us(row.cells[t_col], place, "Latency (us)");
    p.one_way_min_s = p.one_way_median_s = p.one_way_max_s = t;
    if (!timed(t, place, "the latency", set)) continue;
    if (!osu_row_passed(table, row)) {
      set.warnings.push_back(fmt::format("{}: OSU validation failed at this size", place));
    }
    set.pingpong.push_back(p);
  }
}

void read_osu_collective(const std::string& path, const OsuTable& table, std::size_t series,
                         MeasurementSet& set) {
  const std::size_t size_col = require_column(table, path, {"size"});
  const std::size_t avg_col = require_column(table, path, {"avglatency(us)", "latency(us)"});
  const auto min_col = column_of(table, "minlatency(us)");
  const auto max_col = column_of(table, "maxlatency(us)");
  const auto iter_col = column_of(table, "iterations");
  const std::int64_t ranks = set.series[series].ranks;
  if (ranks == 0) {
    set.warnings.push_back(fmt::format(
        "{}: {} does not print its rank count and the file holds no mpirun command line "
        "(give {})",
        at(path, table.title_line), table.benchmark, setting_words(Setting::kRankCount)));
  }
  for (const auto& row : table.rows) {
    const std::string place = at(path, row.line);
    const double size = read_size(row.cells[size_col], place, "Size");
    const double avg = read_us(row.cells[avg_col], place, "Avg Latency(us)");
    const double lo = min_col ? read_us(row.cells[*min_col], place, "Min Latency(us)") : avg;
    const double hi = max_col ? read_us(row.cells[*max_col], place, "Max Latency(us)") : avg;
    const std::int64_t iters = iter_col ? read_whole(row.cells[*iter_col], place, "Iterations") : 0;
    if (!timed(avg, place, "the average latency", set)) continue;
    // All-to-all's Size is per peer; nccl-tests' size is what one rank sends in all.
    const double bytes =
        table.per_peer && ranks > 0 ? measured_size(size * static_cast<double>(ranks), place, "Size x ranks") : size;
    CollectivePoint p = collective_point(table.op, ranks, bytes, iters, std::min(lo, avg), avg,
                                         std::max(hi, avg), osu_row_passed(table, row));
    p.series = series;
    p.bytes_per_peer = table.per_peer && ranks == 0;
    p.element_bytes = table.element_bytes;
    set.collectives.push_back(p);
  }
}

// What the source line says of a table.
std::string osu_table_words(const OsuTable& t) {
  if (t.kind != OsuKind::kBandwidth) return t.benchmark;
  return t.benchmark + ": streaming bandwidth, no ping-pong or collective times";
}

// The warning that names the tables of tests scalewall does not read.
void warn_skipped(const std::string& path, const std::vector<OsuTable>& tables,
                  MeasurementSet& set) {
  std::vector<std::string> skipped;
  for (const OsuTable& t : tables) {
    if (t.kind == OsuKind::kSkipped) skipped.push_back(fmt::format("'{}' (line {})", t.title, t.title_line));
  }
  if (skipped.empty()) return;
  set.warnings.push_back(fmt::format("{}: OSU test(s) {} skipped (scalewall reads {})", path,
                                     join_words(skipped, ", "), kOsuRead));
}

// ---------------------------------------------------------------------------------------
// Intel MPI Benchmarks

enum class ImbKind { kPingPong, kCollective, kSkipped };

// Where a pass over an IMB log stands: the section being read and what was read so far.
struct ImbLog {
  std::string section;
  std::int64_t section_line = 0;
  ImbKind kind = ImbKind::kSkipped;
  Op op = Op::kAllreduce;
  std::int64_t processes = 0;
  std::vector<std::string> columns;
  std::optional<std::size_t> series;  // of the table being read; a new one per section and
                                      // per "#processes" line
  std::vector<LauncherLine> launchers;
  std::string path;
  std::vector<std::string> read_sections;
  std::vector<std::string> skipped_sections;
  std::size_t points = 0;
  double element_bytes = 0;            // "# MPI_Datatype : MPI_BYTE"; 0 when not given
  double reduction_element_bytes = 0;  // "# MPI_Datatype for reductions : MPI_FLOAT"
};

// Appends name to names unless it is there already.
void add_once(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

// Starts the section of a "# Benchmarking <name>" line: what it times, or that it is skipped.
void start_imb_section(std::string_view name, std::int64_t line, ImbLog& log) {
  log.section = std::string(name);
  log.section_line = line;
  log.processes = 0;
  log.columns.clear();
  log.series.reset();
  const std::string& section = log.section;
  if (section == "PingPong" || section == "PingPongSpecificSource" ||
      section == "PingPongAnySource") {
    log.kind = ImbKind::kPingPong;
  } else if (section == "Allreduce" || section == "Reduce" || section == "Bcast" ||
             section == "Barrier" || section == "Alltoall") {
    log.kind = ImbKind::kCollective;
    log.op = section == "Allreduce" ? Op::kAllreduce
             : section == "Reduce"  ? Op::kReduce
             : section == "Bcast"   ? Op::kBroadcast
             : section == "Alltoall" ? Op::kAlltoall
                                    : Op::kBarrier;
  } else {
    log.kind = ImbKind::kSkipped;
    add_once(log.skipped_sections, section);
  }
  if (log.kind != ImbKind::kSkipped) add_once(log.read_sections, section);
}

// Reads the N of a "# #processes = N" line.
std::int64_t read_imb_processes(std::string_view body, const std::string& place) {
  const auto eq = body.find('=');
  const std::string_view n = eq == std::string_view::npos ? "" : trim(body.substr(eq + 1));
  const std::int64_t processes = read_whole(n, place, "#processes");
  if (processes > kMaxRanks) {
    throw InputError(fmt::format("{}: #processes = {} is above the limit of 2^40", place,
                                 processes));
  }
  return processes;
}

// Reads one '#' line of an IMB log: a column header, a section start or its process count.
void read_imb_comment(std::string_view text, const Line& line, const std::string& place,
                      ImbLog& log) {
  if (text.starts_with("#bytes") || text.starts_with("#repetitions")) {
    log.columns.clear();
    for (const auto w : split_words(text)) log.columns.emplace_back(w);
    return;
  }
  const std::string_view body = trim(text.substr(1));
  if (body.starts_with("Benchmarking ")) {
    start_imb_section(trim(body.substr(std::string_view("Benchmarking ").size())), line.number,
                      log);
  } else if (body.starts_with("#processes")) {
    log.processes = read_imb_processes(body, place);
    log.series.reset();
  } else if (body.starts_with("MPI_Datatype")) {
    const auto colon = body.find(':');
    if (colon != std::string_view::npos) {
      const double bytes = mpi_type_bytes(trim(body.substr(colon + 1)));
      const bool reductions = body.find("reductions") != std::string_view::npos;
      (reductions ? log.reduction_element_bytes : log.element_bytes) = bytes;
    }
  }
}

// One IMB table row's values, by column.
struct ImbRow {
  double bytes = 0;
  std::int64_t repetitions = 0;
  std::optional<double> t;
  std::optional<double> t_min;
  std::optional<double> t_max;
  std::optional<double> t_avg;
  bool defects = false;
};

// Reads one table row's fields by the header's column names; the others are checked as
// numbers and not used.
ImbRow read_imb_row(const std::vector<std::string_view>& words,
                    const std::vector<std::string>& columns, const std::string& place) {
  ImbRow row;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const std::string& name = columns[c];
    const std::string_view w = words[c];
    if (name == "#bytes") {
      row.bytes = read_size(w, place, "#bytes");
    } else if (name == "#repetitions") {
      row.repetitions = read_whole(w, place, "#repetitions");
    } else if (name == "t[usec]") {
      row.t = read_us(w, place, "t[usec]");
    } else if (name == "t_min[usec]") {
      row.t_min = read_us(w, place, "t_min[usec]");
    } else if (name == "t_max[usec]") {
      row.t_max = read_us(w, place, "t_max[usec]");
    } else if (name == "t_avg[usec]") {
      row.t_avg = read_us(w, place, "t_avg[usec]");
    } else if (name == "defects") {
      row.defects = read_number(w, place, "defects") > 0;
    } else if (name == "Mbytes/sec") {
      read_rate(w, 1e6, "MB/s", place, name);  // checked, not used
    } else {
      read_number(w, place, name);  // Mbytes/sec and the like: checked, not used
    }
  }
  return row;
}

// Adds a row of a section read to the ping-pong or collective points.
void add_imb_point(const ImbRow& row, const ImbLog& log, const std::string& place,
                   MeasurementSet& set) {
  switch (log.kind) {
    case ImbKind::kPingPong: {
      if (!row.t) {
        throw InputError(fmt::format("{}: section '{}' has no t[usec] column", place,
                                     log.section));
      }
      PingPongPoint p;
      p.series = *log.series;
      p.bytes = row.bytes;
      p.iterations = row.repetitions;
      p.one_way_min_s = p.one_way_median_s = p.one_way_max_s = *row.t;
      if (timed(*row.t, place, "t[usec]", set)) set.pingpong.push_back(p);
      break;
    }
    case ImbKind::kCollective: {
      if (!row.t_avg) {
        throw InputError(fmt::format("{}: section '{}' has no t_avg[usec] column", place,
                                     log.section));
      }
      const double avg = *row.t_avg;
      if (!timed(avg, place, "t_avg[usec]", set)) break;
      // Alltoall's #bytes is what one process sends each other one; nccl-tests' size is
      // what it sends in all.
      const double bytes =
          log.op == Op::kAlltoall
              ? measured_size(row.bytes * static_cast<double>(log.processes), place,
                              "#bytes x #processes")
              : row.bytes;
      CollectivePoint p = collective_point(
          log.op, log.processes, bytes, row.repetitions, std::min(row.t_min.value_or(avg), avg),
          avg, std::max(row.t_max.value_or(avg), avg), !row.defects);
      p.series = *log.series;
      const bool reduces = log.op == Op::kAllreduce || log.op == Op::kReduce ||
                           log.op == Op::kReduceScatter;
      p.element_bytes = reduces ? log.reduction_element_bytes : log.element_bytes;
      set.collectives.push_back(p);
      break;
    }
    case ImbKind::kSkipped:
      break;
  }
}

// Reads one table row: checks it against its section and header, and adds it unless its
// section is skipped.
void read_imb_table_row(const std::vector<std::string_view>& words, const Line& line,
                        const std::string& place, ImbLog& log, MeasurementSet& set) {
  if (log.section.empty()) {
    throw InputError(fmt::format("{}: a table row before any '# Benchmarking' header", place));
  }
  if (log.columns.empty()) {
    throw InputError(fmt::format("{}: a table row before the '#bytes #repetitions ...' header",
                                 place));
  }
  if (words.size() != log.columns.size()) {
    throw InputError(row_width_error(place, words.size(), log.columns, "IMB"));
  }
  if (log.kind == ImbKind::kSkipped) return;
  if (log.processes == 0) {
    throw InputError(fmt::format("{}: section '{}' (line {}) has no '# #processes = N' line",
                                 place, log.section, log.section_line));
  }
  if (!log.series) {
    log.series = begin_series(set, log.path, "IMB " + log.section, line.number);
    MeasurementSeries& s = set.series[*log.series];
    if (log.kind == ImbKind::kCollective) s.ranks = log.processes;
    if (const auto l = launcher_for(log.launchers, line.number)) {
      s.nodes = l->nodes;
      s.ranks_per_node = l->ranks_per_node;
    }
    complete_layout(s);
  }
  add_imb_point(read_imb_row(words, log.columns, place), log, place, set);
  ++log.points;
}

}  // namespace

void read_imb(const std::string& path, const Lines& lines, MeasurementSet& set) {
  ImbLog log;
  log.path = path;
  log.launchers = launcher_lines(path, lines);
  const std::size_t first = set.series.size();
  std::int64_t rows = 0;
  for (const Line& line : lines) {
    const std::string_view text = trim(line.text);
    if (text.empty()) continue;
    const std::string place = at(path, line.number);
    if (text.starts_with('#')) {
      read_imb_comment(text, line, place, log);
      continue;
    }
    const auto words = split_words(text);
    if (!starts_row(words, log.columns.size())) continue;
    count_row(rows, place);
    read_imb_table_row(words, line, place, log, set);
  }
  if (!log.skipped_sections.empty()) {
    set.warnings.push_back(fmt::format(
        "{}: IMB section(s) {} skipped (scalewall reads PingPong, Allreduce, Reduce, Bcast, "
        "Barrier, Alltoall)",
        path, join_words(log.skipped_sections, ", ")));
  }
  if (log.points == 0) {
    throw InputError(fmt::format(
        "{}: an Intel MPI Benchmarks log with no rows scalewall reads{}", path,
        log.skipped_sections.empty()
            ? std::string()
            : fmt::format(" (section(s) {} skipped (scalewall reads PingPong, Allreduce, "
                          "Reduce, Bcast, Barrier, Alltoall): run IMB-MPI1 with one of those)",
                          join_words(log.skipped_sections, ", "))));
  }
  label_series(set, first);
  set.sources.push_back(fmt::format("{} (IMB {})", path, join_words(log.read_sections, ", ")));
}


void read_osu(const std::string& path, const Lines& lines, MeasurementSet& set) {
  const std::vector<OsuTable> tables = read_osu_tables(path, lines);
  const std::vector<const OsuTable*> read = read_tables(path, tables);
  const std::vector<LauncherLine> launchers = launcher_lines(path, lines);
  const std::size_t first = set.series.size();
  std::vector<std::string> words;
  for (const OsuTable* table : read) {
    const std::size_t index = begin_series(set, path, table->benchmark, table->title_line);
    if (const auto l = launcher_for(launchers, table->title_line)) {
      MeasurementSeries& s = set.series[index];
      s.ranks = table->kind == OsuKind::kCollective ? l->ranks : 0;
      s.nodes = l->nodes;
      s.ranks_per_node = l->ranks_per_node;
      complete_layout(s);
    }
    if (table->kind == OsuKind::kLatency) read_osu_latency(path, *table, index, set);
    if (table->kind == OsuKind::kCollective) read_osu_collective(path, *table, index, set);
    words.push_back(osu_table_words(*table));
  }
  label_series(set, first);
  warn_skipped(path, tables, set);
  set.sources.push_back(fmt::format("{} ({})", path, join_words(words, "; ")));
}

std::vector<StreamPoint> read_osu_streams(const std::string& path, const Lines& lines) {
  const std::vector<OsuTable> tables = read_osu_tables(path, lines);
  std::vector<StreamPoint> points;
  for (const OsuTable* table : read_tables(path, tables)) {
    if (table->kind != OsuKind::kBandwidth) continue;
    const std::size_t size_col = require_column(*table, path, {"size"});
    const std::size_t bw_col = require_column(*table, path, {"bandwidth(mb/s)", "mb/s"});
    for (const auto& row : table->rows) {
      const std::string place = at(path, row.line);
      StreamPoint p;
      p.benchmark = table->benchmark;
      p.bytes = read_size(row.cells[size_col], place, "Size");
      p.bandwidth_Bps = read_rate(row.cells[bw_col], 1e6, "MB/s", place, "Bandwidth");
      points.push_back(p);
    }
  }
  return points;
}

}  // namespace scalewall::measurement_text
