// The nccl-tests reader of measurement.h (text and -J JSON output).
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

#include "json_input.h"
#include "measurement_text.h"
#include <nlohmann/json.hpp>
#include "scalewall/base/error.h"
#include "scalewall/base/setting.h"
#include "scalewall/io/measurement.h"
#include "scalewall/base/units.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/nccl.h"
#include "scalewall/model/scaling.h"

namespace scalewall::measurement_text {
namespace {
// ---------------------------------------------------------------------------------------
// nccl-tests

struct NcclProgram {
  std::string_view program;
  Op op;
};
constexpr NcclProgram kNcclPrograms[] = {
    {"all_reduce_perf", Op::kAllreduce},   {"all_gather_perf", Op::kAllgather},
    {"reduce_scatter_perf", Op::kReduceScatter}, {"broadcast_perf", Op::kBroadcast},
    {"reduce_perf", Op::kReduce},           {"alltoall_perf", Op::kAlltoall},
};

std::string nccl_program_list() {
  std::vector<std::string> names;
  for (const auto& p : kNcclPrograms) names.emplace_back(p.program);
  return join_words(names, ", ");
}

struct NcclRow {
  std::int64_t line = 0;
  double bytes = 0;
  double time_a_s = 0;  // out-of-place
  std::optional<double> time_b_s;  // in-place
  double printed_algbw = 0;
  double printed_busbw = 0;
  std::string redop;
  bool redop_blank = false;  // the redop column is there but the row leaves it blank (old
                             // alltoall_perf)
  std::int64_t root = -1;
  bool wrong = false;
  double element_bytes = 0;  // of the type column's type; 0 for a type not known here
};

// Bytes per element of an nccl-tests type name (its -d values, as the type column and the
// JSON "type" print them); 0 for a name not known here.
double nccl_type_bytes(std::string_view type) {
  static constexpr std::pair<std::string_view, double> kTypes[] = {
      {"int8", 1},    {"uint8", 1},   {"char", 1},    {"f8e4m3", 1},   {"f8e5m2", 1},
      {"half", 2},    {"bfloat16", 2}, {"int32", 4},  {"uint32", 4},   {"int", 4},
      {"float", 4},   {"int64", 8},   {"uint64", 8},  {"double", 8}};
  for (const auto& [name, bytes] : kTypes) {
    if (name == type) return bytes;
  }
  return 0;
}

// One run of an nccl-tests log: its comment lines' facts and its table rows. A file holds
// several when a program line, a '# nThread' line, a '#  Rank' line or a column header comes
// after rows: each run is a series of its own.
struct NcclLog {
  std::string program;
  std::int64_t program_line = 0;
  std::int64_t first_line = 0;
  std::int64_t iterations = 0;
  std::int64_t gpus_per_thread = 0;        // the '# nThread' line's nGpus (nccl-tests -g)
  std::int64_t gpus_line = 0;              // that line
  std::string nccl_version;                // "2.23.4", where the log states it
  std::set<std::int64_t> rank_ids;
  std::set<std::string> hosts;             // from the '#  Rank ... on HOST' lines
  std::map<std::string, std::int64_t> ranks_on_host;
  bool ranks_inherited = false;            // no Rank lines of its own: the previous run's
  std::vector<std::string> columns;        // header words after '#'
  std::vector<NcclRow> rows;
};

// The word after "on" of a '#  Rank N ... on HOST device D' line; empty when there is none.
std::string rank_host(const std::vector<std::string_view>& words) {
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "on") return std::string(words[i + 1]);
  }
  return {};
}

// The program name from "# Collective test starting: PATH/all_reduce_perf_mpi": the last path
// part, without the MPI build's "_mpi" suffix.
std::string nccl_program_name(std::string_view body) {
  std::string_view name = trim(body.substr(std::string_view("Collective test starting:").size()));
  if (const auto slash = name.rfind('/'); slash != std::string_view::npos) {
    name.remove_prefix(slash + 1);
  }
  if (name.ends_with("_mpi")) name.remove_suffix(4);
  return std::string(name);
}

// NCCL's version code (NCCL_VERSION_CODE, as nccl-tests prints "nccl-library=21903" and -J
// writes "nccl_version": 21903) as "2.19.3": major x 10000 + minor x 100 + patch from NCCL 2.9,
// major x 1000 + minor x 100 + patch before. Empty for a code that is neither.
std::string nccl_version_of_code(std::int64_t code) {
  if (code >= 20900 && code < 1000000) {
    return fmt::format("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100);
  }
  if (code >= 2000 && code < 2900) {
    return fmt::format("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100);
  }
  return {};
}

// The version an NCCL_DEBUG=INFO line states ("... NCCL INFO NCCL version 2.23.4+cuda12.5",
// "NCCL version 2.9.9+cuda11.2"): its digits and dots; empty when the line states none.
std::string nccl_version_of_line(std::string_view text) {
  constexpr std::string_view kKey = "NCCL version ";
  const auto at = text.find(kKey);
  if (at == std::string_view::npos) return {};
  // Three dot-separated numbers, up to what follows them ("+cuda12.5", or a sentence's dot).
  std::string_view v = text.substr(at + kKey.size());
  v = v.substr(0, v.find_first_not_of("0123456789."));
  if (v.ends_with('.')) v.remove_suffix(1);
  if (v.empty() || v.size() > 16 || v.starts_with('.') ||
      v.find("..") != std::string_view::npos || std::count(v.begin(), v.end(), '.') != 2) {
    return {};
  }
  return std::string(v);
}

// The '# nThread' line's nGpus: the GPUs each thread drives, 1 to 2^40.
std::int64_t read_gpus_per_thread(std::string_view word, const std::string& place) {
  if (!all_digits(word) || word.size() > 13 || read_whole(word, place, "nGpus") < 1 ||
      read_whole(word, place, "nGpus") > kMaxRanks) {
    throw InputError(fmt::format("{}: nGpus {} is not a number of GPUs (a whole number from 1 "
                                 "to 2^40)",
                                 place, word));
  }
  return read_whole(word, place, "nGpus");
}

// Reads one '#' line of an nccl-tests log: the program, iterations, a rank, the column
// header, the NCCL version or a wrong-results report.
void read_nccl_comment(std::string_view text, const Line& line, const std::string& place,
                       NcclLog& log, MeasurementSet& set) {
  const std::string_view body = trim(text.substr(1));
  if (body.starts_with("Collective test starting:")) {
    log.program = nccl_program_name(body);
    log.program_line = line.number;
  } else if (body.starts_with("nThread")) {
    const auto words = split_words(body);
    for (std::size_t i = 0; i + 1 < words.size(); ++i) {
      if (words[i] == "iters:" && (i == 0 || words[i - 1] != "agg") &&
          (i == 0 || words[i - 1] != "warmup")) {
        if (all_digits(words[i + 1])) log.iterations = read_whole(words[i + 1], place, "iters");
      }
      if (words[i] == "nGpus") {
        log.gpus_per_thread = read_gpus_per_thread(words[i + 1], place);
        log.gpus_line = line.number;
      }
    }
  } else if (body.starts_with("Rank")) {
    const auto words = split_words(body);
    if (words.size() >= 2 && all_digits(words[1])) {
      if (log.rank_ids.insert(read_whole(words[1], place, "Rank")).second) {
        const std::string host = rank_host(words);
        if (!host.empty()) {
          log.hosts.insert(host);
          ++log.ranks_on_host[host];
        }
      }
    }
  } else if (is_nccl_header(text)) {
    log.columns.clear();
    for (const auto w : split_words(text.substr(1))) log.columns.emplace_back(w);
  } else if (body.starts_with("nccl-tests version")) {
    for (const auto w : split_words(body)) {
      constexpr std::string_view kLibrary = "nccl-library=";
      if (!w.starts_with(kLibrary) || !all_digits(w.substr(kLibrary.size()))) continue;
      const std::string_view digits = w.substr(kLibrary.size());
      if (digits.size() > 7) continue;
      log.nccl_version = nccl_version_of_code(read_whole(digits, place, "nccl-library"));
    }
  } else if (body.starts_with("Out of bounds values") &&
             body.find("FAILED") != std::string_view::npos) {
    set.warnings.push_back(fmt::format("{}: nccl-tests reports wrong results: {}", place, body));
  }
}

// Reads the root column's value, -1 or a rank.
std::int64_t read_nccl_root(std::string_view w, const std::string& place) {
  std::int64_t root = -1;
  const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), root);
  if (ec != std::errc() || end != w.data() + w.size()) {
    throw InputError(fmt::format("{}: '{}' in the root column is not a whole number",
                                 place, w));
  }
  return root;
}

// Reads one table row's fields by the header's column names.
NcclRow read_nccl_row(const std::vector<std::string_view>& words,
                      const std::vector<std::string>& columns, const Line& line,
                      const std::string& place, bool redop_blank) {
  NcclRow row;
  row.line = line.number;
  row.redop_blank = redop_blank;
  int time_seen = 0;
  int wrong_seen = 0;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const std::string& name = columns[c];
    const std::string_view w = words[c];
    if (name == "size") {
      row.bytes = read_size(w, place, "size");
    } else if (name == "count") {
      read_whole(w, place, "count");
    } else if (name == "type") {
      row.element_bytes = nccl_type_bytes(w);
    } else if (name == "redop") {
      row.redop = std::string(w);
    } else if (name == "root") {
      row.root = read_nccl_root(w, place);
    } else if (name == "time" || name == "cputime") {
      const double t = read_us(w, place, time_seen == 0 ? "out-of-place time" : "in-place time");
      if (time_seen == 0) {
        row.time_a_s = t;
      } else {
        row.time_b_s = t;
      }
      ++time_seen;
    } else if (name == "algbw") {
      const double v = read_rate(w, 1e9, "GB/s", place, "algbw") / 1e9;
      if (row.printed_algbw == 0) row.printed_algbw = v;
    } else if (name == "busbw") {
      const double v = read_rate(w, 1e9, "GB/s", place, "busbw") / 1e9;
      if (row.printed_busbw == 0) row.printed_busbw = v;
    } else if (name == "#wrong") {
      const char* which = wrong_seen == 0 ? "out-of-place #wrong" : "in-place #wrong";
      if (w != "N/A" && read_whole(w, place, which) > 0) {
        row.wrong = true;
      }
      ++wrong_seen;
    }
  }
  return row;
}

// True for a comment line that starts a run's preamble: once rows were read, such a line
// starts the next run.
bool starts_nccl_run(std::string_view text) {
  const std::string_view body = trim(text.substr(1));
  return body.starts_with("Collective test starting:") || body.starts_with("nThread") ||
         body.starts_with("Rank") || is_nccl_header(text);
}

// The next run after `previous`: it keeps the previous run's program, iterations and columns
// until its own lines say otherwise.
NcclLog next_nccl_run(const NcclLog& previous, std::int64_t line) {
  NcclLog next;
  next.program = previous.program;
  next.program_line = previous.program_line;
  next.iterations = previous.iterations;
  next.columns = previous.columns;
  next.nccl_version = previous.nccl_version;
  next.first_line = line;
  return next;
}

// The row's words with an empty word where old alltoall_perf leaves its redop field blank
// (one field short, the header naming a redop column); the words as they are otherwise.
std::vector<std::string_view> nccl_row_words(std::vector<std::string_view> words,
                                             const std::vector<std::string>& columns,
                                             bool& redop_blank) {
  redop_blank = false;
  const auto redop = std::find(columns.begin(), columns.end(), "redop");
  if (words.size() + 1 != columns.size() || redop == columns.end()) return words;
  const auto at_redop = static_cast<std::ptrdiff_t>(redop - columns.begin());
  if (at_redop > static_cast<std::ptrdiff_t>(words.size())) return words;
  words.insert(words.begin() + at_redop, std::string_view());
  redop_blank = true;
  return words;
}

// Reads an nccl-tests log's lines into its runs, each with its facts and rows; throws when no
// run has rows.
std::vector<NcclLog> scan_nccl_log(const std::string& path, const Lines& lines,
                                   MeasurementSet& set) {
  std::vector<NcclLog> runs(1);
  std::int64_t rows = 0;
  for (const Line& line : lines) {
    const std::string_view text = trim(line.text);
    const std::string place = at(path, line.number);
    if (text.starts_with('#')) {
      if (!runs.back().rows.empty() && starts_nccl_run(text)) {
        runs.push_back(next_nccl_run(runs.back(), line.number));
      }
      if (runs.back().first_line == 0) runs.back().first_line = line.number;
      read_nccl_comment(text, line, place, runs.back(), set);
      continue;
    }
    NcclLog& log = runs.back();
    if (std::string version = nccl_version_of_line(text); !version.empty()) {
      log.nccl_version = std::move(version);
      continue;
    }
    bool redop_blank = false;
    const auto words = nccl_row_words(split_words(text), log.columns, redop_blank);
    if (!starts_row(words, log.columns.size())) continue;  // NCCL INFO lines and the like
    count_row(rows, place);
    if (log.columns.empty()) {
      throw InputError(fmt::format("{}: a table row before the column header", place));
    }
    if (words.size() != log.columns.size()) {
      throw InputError(row_width_error(place, words.size(), log.columns, "nccl-tests"));
    }
    if (log.first_line == 0) log.first_line = line.number;
    log.rows.push_back(read_nccl_row(words, log.columns, line, place, redop_blank));
  }
  std::erase_if(runs, [](const NcclLog& r) { return r.rows.empty(); });
  if (runs.empty()) {
    throw InputError(fmt::format(
        "{}: an nccl-tests log with no result rows (did the run fail before its table?)", path));
  }
  for (std::size_t i = 1; i < runs.size(); ++i) {
    if (runs[i].rank_ids.empty()) {
      runs[i].rank_ids = runs[i - 1].rank_ids;
      runs[i].hosts = runs[i - 1].hosts;
      runs[i].ranks_on_host = runs[i - 1].ranks_on_host;
      runs[i].ranks_inherited = !runs[i].rank_ids.empty();
    }
  }
  return runs;
}

// The collective named by the program line, when the log has one (nccl-tests 2.13 and later
// print it); throws for a program scalewall does not model.
std::optional<Op> nccl_program_op(const std::string& path, const NcclLog& log) {
  if (log.program.empty()) return std::nullopt;
  std::optional<Op> op;
  for (const auto& p : kNcclPrograms) {
    if (log.program == p.program) op = p.op;
  }
  if (!op) {
    throw InputError(fmt::format(
        "{}: nccl-tests program '{}' times a pattern scalewall does not model (it reads {})",
        at(path, log.program_line), log.program, nccl_program_list()));
  }
  return op;
}

// The row that prints the largest algbw (the least rounded), or null when none prints one.
const NcclRow* best_bandwidth_row(const std::vector<NcclRow>& rows) {
  const NcclRow* best = nullptr;
  for (const NcclRow& r : rows) {
    if (r.printed_algbw > 0 && (best == nullptr || r.printed_algbw > best->printed_algbw)) {
      best = &r;
    }
  }
  return best;
}

// busbw / algbw as printed, from the row where both are largest (least rounding); 0 when no
// row prints a bandwidth.
double nccl_bus_factor(const std::vector<NcclRow>& rows) {
  const NcclRow* best = best_bandwidth_row(rows);
  return best != nullptr ? best->printed_busbw / best->printed_algbw : 0;
}

// Half the last printed digit of a bandwidth (nccl-tests prints GB/s to two decimals), the
// most either printed figure is off by.
constexpr double kPrintedBandwidthRounding = 0.005;

// Whether `ranks` gives the busbw the log prints from its algbw, within the two figures'
// rounding: for large N the factor 2(N-1)/N lies too close to 2 for its inverse to tell N
// apart, but a wrong N still shows against the printed figures. True when no row prints a
// bandwidth (nothing to check against).
bool ranks_match_bandwidths(const std::vector<NcclRow>& rows, Op op, std::int64_t ranks) {
  const NcclRow* best = best_bandwidth_row(rows);
  if (best == nullptr) return true;
  const double factor = busbw_factor(op, ranks);
  const double expected = best->printed_algbw * factor;
  return std::fabs(best->printed_busbw - expected) <=
         kPrintedBandwidthRounding * (1.0 + factor) * (1.0 + 1e-9);
}

// The bus-bandwidth factor above which a reducing log with no root is all_reduce_perf:
// all-reduce's factor 2(N-1)/N is >= 1 for N >= 2, reduce-scatter's (N-1)/N is below 1; the
// margin below 1 absorbs the rounding of the printed bandwidths.
constexpr double kAllreduceFactorFloor = 0.99;

// The collective read from the columns (a root, a reduction operator) and the bus-bandwidth
// factor, for a log with no program line. Without a root: old all_gather_perf prints no redop
// column, old alltoall_perf one it leaves blank; a log with "none" there names neither.
Op nccl_op_from_columns(const std::string& path, const NcclLog& log, double factor) {
  const NcclRow& first = log.rows.front();
  const bool reducing = !first.redop.empty() && first.redop != "none";
  if (first.root >= 0) return reducing ? Op::kReduce : Op::kBroadcast;
  if (reducing) {
    if (factor == 0) {
      throw InputError(fmt::format(
          "{}: cannot tell all_reduce_perf from reduce_scatter_perf: the log has no "
          "'# Collective test starting:' line and no bandwidth to tell them by", path));
    }
    return factor > kAllreduceFactorFloor ? Op::kAllreduce : Op::kReduceScatter;
  }
  if (std::find(log.columns.begin(), log.columns.end(), "redop") == log.columns.end()) {
    return Op::kAllgather;
  }
  if (first.redop_blank) return Op::kAlltoall;
  throw InputError(fmt::format(
      "{}: cannot tell all_gather_perf from alltoall_perf: the log has no "
      "'# Collective test starting:' line (keep nccl-tests' header with its table)", path));
}

// The rank counts a bus-bandwidth factor is believed for: from 2 (1.5 rounds up to it) to
// below 1e6, past which the factor lies too close to its limit for the printed digits to
// tell one N from the next.
constexpr double kMinInferredRanks = 1.5;
constexpr double kMaxInferredRanks = 1e6;
// How far from a whole number, as a fraction of it, an inverted factor may lie: the printed
// bandwidths are rounded to two decimals.
constexpr double kInferredRanksTolerance = 0.05;

// The rank count that inverts the bus-bandwidth factor (2(N-1)/N or (N-1)/N), when the
// collective's factor depends on N and the inverse is near a whole number.
std::optional<std::int64_t> ranks_from_factor(Op op, double factor) {
  if (!(factor > 0)) return std::nullopt;
  double n = 0;
  switch (op) {
    case Op::kAllreduce:
      n = factor < 2 ? 2.0 / (2.0 - factor) : 0;
      break;
    case Op::kReduceScatter:
    case Op::kAllgather:
    case Op::kAlltoall:
      n = factor < 1 ? 1.0 / (1.0 - factor) : 0;
      break;
    case Op::kBroadcast:
    case Op::kReduce:
    case Op::kBarrier:
      n = 0;  // factor 1 at every N
      break;
  }
  if (n >= kMinInferredRanks && n < kMaxInferredRanks &&
      std::fabs(n - std::round(n)) < kInferredRanksTolerance * n) {
    return static_cast<std::int64_t>(std::round(n));
  }
  return std::nullopt;
}

// The rank count: the '#  Rank' lines counted, checked against the bus-bandwidth factor
// (which nccl-tests computes from the true count: a Rank line that lost its '#' is not
// counted), else inferred from the factor with a warning, else 0 with a warning. `where`
// names the run in warnings.
std::int64_t nccl_ranks(const std::string& where, const NcclLog& log, Op op, double factor,
                        MeasurementSet& set) {
  const auto counted = static_cast<std::int64_t>(log.rank_ids.size());
  const std::optional<std::int64_t> inferred = ranks_from_factor(op, factor);
  if (counted != 0 && inferred && *inferred != counted &&
      !ranks_match_bandwidths(log.rows, op, counted)) {
    set.warnings.push_back(fmt::format(
        "{}: {} '#  Rank' line(s), but busbw/algbw = {:.3g} gives {} ranks; {} taken (a Rank "
        "line may have lost its '#')",
        where, counted, factor, *inferred, *inferred));
    return *inferred;
  }
  if (counted != 0) return counted;
  if (inferred) {
    set.warnings.push_back(fmt::format(
        "{}: no '#  Rank' lines; {} ranks inferred from busbw/algbw = {:.3g}", where, *inferred,
        factor));
    return *inferred;
  }
  set.warnings.push_back(fmt::format(
      "{}: no '#  Rank' lines: the rank count is unknown (give {})", where,
      setting_words(Setting::kRankCount)));
  return 0;
}

// The run's layout from its Rank lines' hosts (nodes, and ranks per node when every host has
// as many), else from the file's launcher line.
void nccl_layout(const NcclLog& log, const std::vector<LauncherLine>& launchers,
                 MeasurementSeries& series) {
  if (!log.hosts.empty() && static_cast<std::int64_t>(log.rank_ids.size()) == series.ranks) {
    series.nodes = static_cast<std::int64_t>(log.hosts.size());
    const std::int64_t first = log.ranks_on_host.begin()->second;
    const bool even = std::all_of(log.ranks_on_host.begin(), log.ranks_on_host.end(),
                                  [&](const auto& h) { return h.second == first; });
    if (even) series.ranks_per_node = first;
  } else if (const auto l = launcher_for(launchers, log.first_line)) {
    series.nodes = l->nodes;
    series.ranks_per_node = l->ranks_per_node;
  }
  complete_layout(series);
}

// The program a run's op is timed by, for its label when the log does not name it.
std::string nccl_program_of(Op op) {
  for (const auto& p : kNcclPrograms) {
    if (p.op == op) return std::string(p.program);
  }
  return std::string(op_name(op));
}

// nccl-tests times one size twice, out of place and in place, each the mean of its
// iterations: the two agree within a few percent unless one run was disturbed (a slow first
// call, another job's burst), which a mean over 20 iterations carries whole. Beyond this ratio
// the row's typical time is the faster run's. The XE9680 log of nccl-tests issue 309: 68.5
// and 24.7 us at 8 B (its first size), 94.4 and 25.9 us at 256 B, where every size from 16 B
// to 2 KiB takes 25-28 us.
constexpr double kDisturbedRunRatio = 1.5;

// One run's rows as collective points of a series of their own.
void add_nccl_run(const std::string& path, const NcclLog& log, std::size_t runs,
                  const std::vector<LauncherLine>& launchers, MeasurementSet& set) {
  const double factor = nccl_bus_factor(log.rows);
  std::optional<Op> op = nccl_program_op(path, log);
  if (!op) op = nccl_op_from_columns(path, log, factor);
  const std::size_t index = begin_series(
      set, path, log.program.empty() ? nccl_program_of(*op) : log.program, log.first_line);
  const std::string where =
      runs == 1 ? path : fmt::format("{} (the run from line {})", path, log.first_line);
  const std::int64_t ranks = nccl_ranks(where, log, *op, factor, set);
  set.series[index].ranks = ranks;
  nccl_layout(log, launchers, set.series[index]);
  set.series[index].nccl_version = log.nccl_version;
  if (ranks > 0 && log.gpus_per_thread > ranks) {
    throw InputError(fmt::format("{}: nGpus {} is more than the run's {} ranks (every GPU of a "
                                 "thread is a rank)",
                                 at(path, log.gpus_line), log.gpus_per_thread, ranks));
  }
  if (log.gpus_per_thread > 1) {
    set.series[index].gpus_per_thread = log.gpus_per_thread;
    set.warnings.push_back(fmt::format(
        "{0}: nGpus {1}: each thread of the run drives {1} GPUs and launches their kernels in "
        "turn; the NCCL model adds {2} launches of {3} to every call, an estimate from public "
        "one-node A100 logs (docs/models.md), where one GPU per process (mpirun -np G ... -g 1) "
        "measures what NCCL's tables price",
        where, log.gpus_per_thread, log.gpus_per_thread - 1,
        format_seconds(kNcclGroupLaunchPerGpu_s)));
  }
  std::vector<std::string> disturbed;
  for (const NcclRow& r : log.rows) {
    const double a = r.time_a_s;
    const double b = r.time_b_s.value_or(a);
    const char* which = a == 0 ? "the out-of-place time" : "the in-place time";
    if (!timed(std::min(a, b), at(path, r.line), which, set)) continue;
    double typical = (a + b) / 2.0;
    if (std::max(a, b) > kDisturbedRunRatio * std::min(a, b)) {
      typical = std::min(a, b);
      disturbed.push_back(fmt::format("{} (line {}: {} and {})", format_bytes(r.bytes), r.line,
                                      format_seconds(a), format_seconds(b)));
    }
    CollectivePoint p = collective_point(*op, ranks, r.bytes, log.iterations, std::min(a, b),
                                         typical, std::max(a, b), !r.wrong);
    p.series = index;
    p.element_bytes = r.element_bytes;
    set.collectives.push_back(p);
  }
  if (!disturbed.empty()) {
    std::string sizes;
    for (const std::string& d : disturbed) sizes += (sizes.empty() ? "" : ", ") + d;
    set.warnings.push_back(fmt::format(
        "{}: the out-of-place and in-place times differ by more than {}x at {}: one run was "
        "disturbed, and the faster time is taken there (elsewhere the mean of the two)",
        where, kDisturbedRunRatio, sizes));
  }
}

// ---- nccl-tests -J: one JSON document ----

using Json = nlohmann::json;

// A number of the document at `key` of `object`, or 0 when it is absent, null or not a
// number (nccl-tests writes "nan" as a string); negative or non-finite is an InputError.
double json_number(const Json& object, const char* key, const std::string& place) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return 0;
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0) {
    throw InputError(fmt::format("{}: \"{}\" = {} is not a measured value", place, key,
                                 json_shown(*it)));
  }
  return v;
}

// One result of the document as a table row: the out-of-place and in-place times.
NcclRow nccl_json_row(const Json& r, const std::string& place) {
  NcclRow row;
  row.line = 1;
  row.bytes = measured_size(json_number(r, "size", place), place, "size");
  row.redop = r.contains("redop") && r["redop"].is_string() ? r["redop"].get<std::string>() : "";
  if (r.contains("type") && r["type"].is_string()) {
    row.element_bytes = nccl_type_bytes(r["type"].get<std::string>());
  }
  if (const auto root = r.find("root"); root != r.end()) {
    const std::string text = root->is_string() ? std::string(trim(root->get<std::string>()))
                             : root->is_number_integer() ? std::to_string(root->get<std::int64_t>())
                                                         : "-1";
    row.root = text.empty() ? -1 : read_nccl_root(text, place);
  }
  int seen = 0;
  for (const char* key : {"out_of_place", "in_place"}) {
    const auto it = r.find(key);
    if (it == r.end() || !it->is_object()) continue;
    const double us = std::max(json_number(*it, "time", place), json_number(*it, "cpu_time", place));
    const double t = measured_time(us * 1e-6, place, fmt::format("{} time", key));
    if (seen++ == 0) {
      row.time_a_s = t;
      row.printed_algbw = json_number(*it, "alg_bw", place);
      row.printed_busbw = json_number(*it, "bus_bw", place);
    } else {
      row.time_b_s = t;
    }
    if (json_number(*it, "nwrong", place) > 0) row.wrong = true;
  }
  if (seen == 0) {
    throw InputError(fmt::format("{}: a result with neither \"out_of_place\" nor \"in_place\"",
                                 place));
  }
  return row;
}

// The program from the document's argv[0], as nccl_program_name reads it from the text.
std::string nccl_json_program(const Json& doc) {
  const auto args = doc.find("args");
  if (args == doc.end() || !args->is_array() || args->empty() || !(*args)[0].is_string()) return {};
  return nccl_program_name("Collective test starting: " + (*args)[0].get<std::string>());
}

// The document's run: its program, iterations, devices (ranks and hosts) and results.
NcclLog nccl_json_run(const Json& doc, const std::string& path) {
  NcclLog log;
  log.program = nccl_json_program(doc);
  log.program_line = 1;
  log.first_line = 1;
  log.columns = {"size", "count", "type", "redop", "root"};
  if (const auto v = doc.find("nccl_version"); v != doc.end() && v->is_number_integer()) {
    log.nccl_version = nccl_version_of_code(v->get<std::int64_t>());
  }
  const Json config = doc.value("config", Json::object());
  if (config.is_object()) {
    // A count of iterations: a whole number a double holds exactly (at most 2^53).
    const double iterations = json_number(config, "iterations", path);
    if (iterations != std::floor(iterations) || iterations > 9007199254740992.0) {
      throw InputError(fmt::format("{}: \"iterations\" = {} is not a whole number of iterations "
                                   "(at most 2^53)",
                                   path, json_shown(config["iterations"])));
    }
    log.iterations = static_cast<std::int64_t>(iterations);
    // nccl-tests' -g: GPUs per thread (0 when absent; a fraction is not a count).
    const double gpus = json_number(config, "ngpus", path);
    if (gpus >= 1 && gpus == std::floor(gpus) && gpus <= 1e6) {
      log.gpus_per_thread = static_cast<std::int64_t>(gpus);
    }
    const auto devices = config.find("devices");
    if (devices != config.end() && devices->is_array()) {
      for (const Json& d : *devices) {
        if (!d.is_object() || !d.contains("rank") || !d["rank"].is_number_integer()) continue;
        if (!log.rank_ids.insert(d["rank"].get<std::int64_t>()).second) continue;
        if (d.contains("hostname") && d["hostname"].is_string()) {
          const std::string host = d["hostname"].get<std::string>();
          log.hosts.insert(host);
          ++log.ranks_on_host[host];
        }
      }
    }
  }
  const Json& results = doc["results"];
  for (std::size_t i = 0; i < results.size(); ++i) {
    log.rows.push_back(nccl_json_row(results[i], fmt::format("{}: result {}", path, i + 1)));
  }
  if (log.rows.empty()) {
    throw InputError(fmt::format("{}: an nccl-tests JSON document with no results", path));
  }
  return log;
}

}  // namespace

bool is_nccl_header(std::string_view text) {
  if (!text.starts_with('#')) return false;
  const auto words = split_words(text.substr(1));
  const auto has = [&](std::string_view w) {
    return std::find(words.begin(), words.end(), w) != words.end();
  };
  return has("size") && has("count") && has("type") && (has("time") || has("cputime")) &&
         has("algbw") && has("busbw");
}

void read_nccl_tests(const std::string& path, const Lines& lines,
                     MeasurementSet& set) {
  const std::vector<NcclLog> runs = scan_nccl_log(path, lines, set);
  const std::vector<LauncherLine> launchers = launcher_lines(path, lines);
  const std::size_t first = set.series.size();
  for (const NcclLog& log : runs) add_nccl_run(path, log, runs.size(), launchers, set);
  label_series(set, first);
  const NcclLog& log = runs.front();
  const std::string what =
      log.program.empty()
          ? fmt::format("{}, op read from its columns", set.series[first].benchmark)
          : log.program;
  set.sources.push_back(runs.size() == 1
                            ? fmt::format("{} (nccl-tests {})", path, what)
                            : fmt::format("{} (nccl-tests {}, {} runs)", path, what, runs.size()));
}

// Whether `text` is nccl-tests' -J document: an object with "config" and a "results" list.
bool is_nccl_json(std::string_view text, const std::string& path) {
  const Json doc = probe_json_input(text, path);
  if (!doc.is_object()) return false;
  const auto results = doc.find("results");
  return results != doc.end() && results->is_array() && doc.contains("config");
}

bool read_nccl_json(std::string_view text, const std::string& path, MeasurementSet& set) {
  if (!is_nccl_json(text, path)) return false;
  // Parsed again through parse_json_input, which refuses what the readers of every JSON file
  // refuse (numbers out of range, duplicate keys).
  const Json doc = parse_json_input(text, path, 1, "not an nccl-tests JSON document");
  const NcclLog log = nccl_json_run(doc, path);
  const std::size_t first = set.series.size();
  add_nccl_run(path, log, 1, {}, set);
  label_series(set, first);
  set.sources.push_back(fmt::format("{} (nccl-tests {}, JSON)", path, set.series[first].benchmark));
  return true;
}

}  // namespace scalewall::measurement_text
