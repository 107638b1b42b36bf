// Implementation of scalewall/io/measurement.h (read_stream_points shares the OSU table
// reader): one reader per format, chosen by the file's content.
//
// Detection, first match wins:
//   scalewall-mpi  the first non-blank line parses as a JSON object with "tool":"scalewall-mpi"
//   nccl-tests     a line "# Collective test starting:", "# nThread N nGpus", or a comment
//                  table header naming size, count, type, time, algbw and busbw
//   OSU            a title line "# OSU MPI... Test"
//   IMB            a line "# Benchmarking <name>" or "Intel(R) MPI Benchmarks"
// Text logs captured through `mpirun --tag-output` carry a "[1,0]<stdout>:" prefix on every
// line; it is removed before anything else looks at the line.
//
// What each text format's columns become (times in the logs are microseconds):
//   nccl-tests  size (B) -> bytes; the out-of-place and in-place times are two samples:
//               time_min/max are the smaller and larger, time_median their mean (the median
//               of two); #wrong > 0 -> verified = false. nccl-tests' time is itself a mean
//               over its iterations (rank 0's by default).
//   OSU         osu_latency "Latency (us)" (one-way, averaged) -> one_way_*; osu_allreduce
//               "Avg Latency(us)" -> time_median (and Min/Max/Iterations with -f).
//   IMB         PingPong "t[usec]" (one-way) -> one_way_*; Allreduce, Reduce, Bcast,
//               Barrier t_min/t_max/t_avg -> time_min/max/median; "# #processes = N" -> ranks.
// algbw and busbw are recomputed from the median time (the logs print them rounded).
// A collective's rank count that a log does not record (OSU prints none) is taken from an
// mpirun/mpiexec/srun command line in the file when there is one, else left 0 with a warning.
#include "scalewall/io/measurement.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <utility>

#include "scalewall/model/collective.h"
#include "scalewall/base/error.h"
#include "scalewall/base/utf8.h"
#include "scalewall/base/setting.h"
#include "scalewall/io/file_format.h"
#include "scalewall/io/input_file.h"
#include "json_input.h"
#include "scalewall/model/scaling.h"
#include "measurement_text.h"

namespace scalewall {
namespace measurement_text {


std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
  };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
    const std::size_t start = i;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) == 0) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

// Removes a launcher's prefix: Open MPI's --tag-output "[1,0]<stdout>:" (or <stderr>), and
// srun -l's task number "0: " (blanks may pad the number).
std::string_view strip_tag(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] == ' ') ++digits;
  const std::size_t number = digits;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits > number && text.substr(digits).starts_with(": ")) {
    return text.substr(digits + 2);
  }
  if (digits > number && text.substr(digits) == ":") return {};
  if (text.empty() || text.front() != '[') return text;
  const std::size_t close = text.find(']');
  if (close == std::string_view::npos) return text;
  std::string_view rest = text.substr(close + 1);
  for (std::string_view tag : {"<stdout>:", "<stderr>:"}) {
    if (rest.starts_with(tag)) return rest.substr(tag.size());
  }
  return text;
}

bool all_digits(std::string_view word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
}

// Open MPI's aggregated help notices, which mpirun prints between a program's lines (even in
// the middle of a table): "8 more processes have sent help message help-mtl-ofi.txt / OFI call
// fail", "1 more process has sent help message ...", and the "Set MCA parameter
// "orte_base_help_aggregate" to 0 to see all help / error messages" line after them.
bool launcher_notice(std::string_view line) {
  const std::string_view t = trim(line);
  if (t.starts_with("Set MCA parameter ") && t.find("help_aggregate") != std::string_view::npos) {
    return true;
  }
  std::size_t digits = 0;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  if (digits == 0) return false;
  const std::string_view rest = t.substr(digits);
  return (rest.starts_with(" more processes have sent help message ") ||
          rest.starts_with(" more process has sent help message "));
}

namespace {

// A word that starts like a number: a digit, or a sign or point before one, or nan or inf.
bool starts_like_number(std::string_view w) {
  if (!w.empty() && (w[0] == '-' || w[0] == '+')) w.remove_prefix(1);
  if (w.empty()) return false;
  if (w[0] >= '0' && w[0] <= '9') return true;
  if (w.size() > 1 && w[0] == '.' && w[1] >= '0' && w[1] <= '9') return true;
  const std::string l = ascii_lower(w);
  return l == "nan" || l == "inf" || l == "infinity";
}

}  // namespace

// A table row starts with a whole number, the size; a signed one ("-8") is a row too, so
// that a negative size is refused rather than skipped as a line of text, and so is a line of
// the table's width that starts with another number, so that its size is refused.
bool starts_row(const std::vector<std::string_view>& words, std::size_t columns) {
  if (words.empty()) return false;
  const std::string_view w = words[0];
  if (all_digits(w)) return true;
  if (w.size() > 1 && (w[0] == '-' || w[0] == '+') && all_digits(w.substr(1))) return true;
  return words.size() == columns && starts_like_number(w);
}

// A line as the readers see it: without a byte order mark (line 1), the launcher's prefix
// and trailing blanks; empty for a launcher's notice.
std::string_view clean_line(std::string_view view, std::int64_t number) {
  if (number == 1 && view.starts_with("\xEF\xBB\xBF")) view.remove_prefix(3);
  view = strip_tag(view);
  if (launcher_notice(view)) view = {};
  while (!view.empty() && (view.back() == '\r' || view.back() == ' ' || view.back() == '\t')) {
    view.remove_suffix(1);
  }
  return view;
}

Lines::Lines(std::string_view text) : text_(text) {}

Lines::Iterator::Iterator(std::string_view rest, std::int64_t number)
    : rest_(rest), line_{number, {}}, done_(false) {
  read();
}

void Lines::Iterator::read() {
  std::string_view view;
  if (!next_line(rest_, view)) {
    done_ = true;
    return;
  }
  ++line_.number;
  line_.text = clean_line(view, line_.number);
}

Lines::Iterator& Lines::Iterator::operator++() {
  read();
  return *this;
}

std::optional<Line> Lines::first_content() const {
  for (const Line& line : *this) {
    if (!trim(line.text).empty()) return line;
  }
  return std::nullopt;
}

// The first line that is not blank, or InputError when the text holds nothing but blanks.
Line first_line_of(const Lines& lines, const std::string& path) {
  const std::optional<Line> first = lines.first_content();
  if (!first) throw InputError(fmt::format("measurement file '{}' is empty", path));
  return *first;
}

std::string_view complete_lines(std::string_view text, const std::string& path,
                                MeasurementSet& set) {
  if (text.empty() || text.back() == '\n') return text;
  const std::size_t cut = text.rfind('\n') + 1;  // 0 when the text is one line
  const std::int64_t number =
      static_cast<std::int64_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(cut), '\n')) + 1;
  const std::string_view last = trim(clean_line(text.substr(cut), number));
  if (!last.empty() && !last.starts_with('#')) {
    set.warnings.push_back(fmt::format(
        "{}: incomplete last line '{}' (no line break at its end: the log was cut off while it "
        "was written); left out",
        at(path, number), last.size() > 60 ? std::string(last.substr(0, 60)) + "..." : std::string(last)));
  }
  return text.substr(0, cut);
}

void count_row(std::int64_t& rows, const std::string& place, std::string_view rows_are) {
  if (++rows > kMaxLogRows) {
    throw InputError(fmt::format("{}: more than {} {} (the limit for a measurement log)", place,
                                 kMaxLogRows, rows_are));
  }
}

std::string at(const std::string& path, std::int64_t line) {
  return fmt::format("{}:{}", path, line);
}

// A finite, non-negative decimal number filling the whole word.
double read_number(std::string_view word, const std::string& place, std::string_view column) {
  double value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size() || !std::isfinite(value)) {
    throw InputError(fmt::format("{}: '{}' in the {} column is not a number", place, word,
                                 column));
  }
  if (value < 0) {
    throw InputError(fmt::format("{}: {} in the {} column is negative", place, word, column));
  }
  return value;
}

std::int64_t read_whole(std::string_view word, const std::string& place, std::string_view column) {
  if (word.starts_with('-')) {
    throw InputError(fmt::format("{}: {} in the {} column is negative", place, word, column));
  }
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size() || value < 0) {
    throw InputError(fmt::format("{}: '{}' in the {} column is not a whole number", place,
                                 word, column));
  }
  return value;
}

// A time of 0 cannot be fitted or compared (no rate follows from it): the row is left out,
// with a warning naming its line. Returns whether the row is kept.
bool timed(double seconds, const std::string& place, std::string_view what,
           MeasurementSet& set) {
  if (seconds > 0) return true;
  set.warnings.push_back(
      fmt::format("{}: {} is 0, from which no time or rate follows; the row is left out", place,
                  what));
  return false;
}

// The ranges a measured value must lie in: sizes 0 or 1 B to 1 EB, times up to 1e6 s (a non-zero
// one at least 1e-12 s), rates up to 1e18 B/s. Beyond them a value measures no real fabric,
// and the fits' sums could not hold it.
constexpr double kMaxMeasuredBytes = 1e18;
constexpr double kMaxMeasuredSeconds = 1e6;
constexpr double kMinMeasuredSeconds = 1e-12;
constexpr double kMaxMeasuredRate = 1e18;

double measured_size(double bytes, const std::string& place, std::string_view what) {
  if (bytes > 0 && bytes < 1) {
    throw InputError(fmt::format("{}: {} of {:g} B is a fraction of a byte", place, what, bytes));
  }
  if (bytes > kMaxMeasuredBytes) {
    throw InputError(fmt::format("{}: {} of {:g} B is above the limit of 1 EB (1e18 B)", place,
                                 what, bytes));
  }
  return bytes;
}

// A time that is fitted (a ping-pong or collective time): 0, or 1e-12 s to 1e6 s. An arrival
// or a step's parts are differences of clock readings, where a few ulps above 0 are 0 in
// truth, so those are held to the upper limit only (`fitted` false).
double measured_time(double seconds, const std::string& place, std::string_view what,
                     bool fitted) {
  if (seconds > kMaxMeasuredSeconds ||
      (fitted && seconds > 0 && seconds < kMinMeasuredSeconds)) {
    throw InputError(fmt::format("{}: {} of {:g} s is outside the range of a measured time ({})",
                                 place, what, seconds,
                                 fitted ? "0, or 1e-12 s to 1e6 s" : "at most 1e6 s"));
  }
  return seconds;
}

double measured_rate(double bytes_per_second, const std::string& place, std::string_view what) {
  if (bytes_per_second > kMaxMeasuredRate) {
    throw InputError(fmt::format("{}: {} of {:g} B/s is above the limit of 1e18 B/s", place,
                                 what, bytes_per_second));
  }
  return bytes_per_second;
}

// A size column (a whole number of bytes) and a time column in microseconds. A size past
// 1 EB is refused naming that limit however it is written ("1e19", twenty digits).
double read_size(std::string_view word, const std::string& place, std::string_view column) {
  double value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec == std::errc() && end == word.data() + word.size() && std::isfinite(value)) {
    if (value > kMaxMeasuredBytes) measured_size(value, place, column);
  }
  return measured_size(static_cast<double>(read_whole(word, place, column)), place, column);
}
double read_us(std::string_view word, const std::string& place, std::string_view column) {
  const double us = read_number(word, place, column);
  const double seconds = us * 1e-6;
  if (us > 0 && seconds == 0) {
    throw InputError(fmt::format("{}: {} of {} us is outside the range of a measured time (0, "
                                 "or 1e-12 s to 1e6 s)",
                                 place, column, word));
  }
  return measured_time(seconds, place, column);
}
double read_rate(std::string_view word, double unit_Bps, std::string_view unit,
                 const std::string& place, std::string_view column) {
  const double bytes_per_second = read_number(word, place, column) * unit_Bps;
  if (bytes_per_second > kMaxMeasuredRate) {
    throw InputError(fmt::format("{}: {} of {} {} is above the limit of 1e18 B/s", place,
                                 column, word, unit));
  }
  return bytes_per_second;
}

std::string join_words(const std::vector<std::string>& words, std::string_view separator) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += separator;
    out += w;
  }
  return out;
}

std::string row_width_error(const std::string& place, std::size_t fields,
                            const std::vector<std::string>& columns, std::string_view format) {
  if (fields < columns.size()) {
    return fmt::format("{}: truncated table row: {} field(s), expected {} ({})", place, fields,
                       columns.size(), join_words(columns, ", "));
  }
  return fmt::format("{}: a row of {} fields does not belong to this {} table of {} columns "
                     "({}): is another benchmark's output mixed into the log?",
                     place, fields, format, columns.size(), join_words(columns, ", "));
}

namespace {

// A whole number of ranks, nodes or ranks per node on a launcher line, within 1 .. 2^40;
// nothing for 0 or text that is not digits. Above 2^40 is an InputError naming the line.
std::optional<std::int64_t> launcher_count(std::string_view digits, const std::string& place) {
  if (!all_digits(digits)) return std::nullopt;
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec == std::errc::result_out_of_range || n > kMaxRanks) {
    throw InputError(
        fmt::format("{}: the launcher's count {} is above the limit of 2^40", place, digits));
  }
  if (n < 1) return std::nullopt;
  return n;
}

// The value of a flag among `words` at i: "-n 4" (the next word) or "--ntasks=4"; empty when
// words[i] is not the flag.
std::optional<std::string_view> flag_value(const std::vector<std::string_view>& words,
                                           std::size_t i, std::string_view flag) {
  const std::string_view w = words[i];
  if (w == flag) {
    if (i + 1 < words.size()) return words[i + 1];
    return std::nullopt;
  }
  if (w.size() > flag.size() + 1 && w.starts_with(flag) && w[flag.size()] == '=') {
    return w.substr(flag.size() + 1);
  }
  // A one-letter flag takes its value attached too: srun -N2, mpirun -n64.
  if (flag.size() == 2 && w.size() > 2 && w.starts_with(flag) && all_digits(w.substr(2))) {
    return w.substr(2);
  }
  return std::nullopt;
}

// The K of Open MPI's "--map-by ppr:K:node".
std::optional<std::string_view> ppr_per_node(std::string_view value) {
  if (!value.starts_with("ppr:")) return std::nullopt;
  value.remove_prefix(4);
  const std::size_t colon = value.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view unit = value.substr(colon + 1);
  if (!unit.starts_with("node")) return std::nullopt;
  return value.substr(0, colon);
}

// Which launcher a word names; srun's and #SBATCH's -N is a node count, mpirun's a count per
// node.
enum class Launcher { kNone, kMpirun, kSrun };

Launcher launcher_of(std::string_view word) {
  const std::size_t slash = word.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? word : word.substr(slash + 1);
  if (base == "mpirun" || base == "mpiexec" || base == "mpiexec.hydra" || base == "orterun") {
    return Launcher::kMpirun;
  }
  if (base == "srun" || base == "#SBATCH") return Launcher::kSrun;
  return Launcher::kNone;
}

// The benchmark a launcher runs: nccl-tests' *_perf, OSU's osu_*, IMB-*.
bool is_benchmark_program(std::string_view word) {
  const std::size_t slash = word.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? word : word.substr(slash + 1);
  return base.starts_with("osu_") || base.starts_with("IMB-") || base.ends_with("_perf") ||
         base.ends_with("_perf_mpi");
}

// Reads the flags after the launcher's name into `out`.
void read_launcher_flags(const std::vector<std::string_view>& words, std::size_t from,
                         Launcher launcher, const std::string& place, LauncherLine& out) {
  constexpr std::string_view kRankFlags[] = {"-np", "-n", "--np", "--n", "--ntasks", "-ntasks"};
  constexpr std::string_view kPerNodeFlags[] = {"-ppn", "--ppn", "-npernode", "--npernode",
                                                "--ntasks-per-node", "-perhost"};
  const auto count_of = [&](std::optional<std::string_view> v, auto& into) {
    if (!v) return;
    if (const auto n = launcher_count(*v, place)) into = *n;
  };
  for (std::size_t i = from; i < words.size(); ++i) {
    if (is_benchmark_program(words[i])) break;  // its own flags follow (nccl-tests' -n ...)
    for (const std::string_view flag : kRankFlags) {
      if (out.ranks == 0) count_of(flag_value(words, i, flag), out.ranks);
    }
    for (const std::string_view flag : kPerNodeFlags) {
      count_of(flag_value(words, i, flag), out.ranks_per_node);
    }
    for (const std::string_view flag : {std::string_view("-N"), std::string_view("--nodes")}) {
      if (launcher == Launcher::kSrun || flag == "--nodes") {
        count_of(flag_value(words, i, flag), out.nodes);
      } else {
        count_of(flag_value(words, i, flag), out.ranks_per_node);
      }
    }
    if (const auto v = flag_value(words, i, "--map-by")) count_of(ppr_per_node(*v), out.ranks_per_node);
  }
}

// Whether a line may name a launcher (launcher_of's names), before its words are split: most
// lines of a log are table rows.
bool names_launcher(std::string_view text) {
  for (const std::string_view name : {"mpirun", "mpiexec", "orterun", "srun", "#SBATCH"}) {
    if (text.find(name) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

std::vector<LauncherLine> launcher_lines(const std::string& path, const Lines& lines) {
  std::vector<LauncherLine> found;
  for (const Line& line : lines) {
    if (!names_launcher(line.text)) continue;
    const auto words = split_words(line.text);
    for (std::size_t i = 0; i < words.size(); ++i) {
      const Launcher launcher = launcher_of(words[i]);
      if (launcher == Launcher::kNone) continue;
      LauncherLine l;
      l.line = line.number;
      read_launcher_flags(words, i + 1, launcher, at(path, line.number), l);
      if (l.ranks > 0 || l.nodes || l.ranks_per_node) found.push_back(l);
      break;
    }
  }
  return found;
}

std::optional<LauncherLine> launcher_for(const std::vector<LauncherLine>& launchers,
                                         std::int64_t line) {
  std::optional<LauncherLine> best;
  for (const LauncherLine& l : launchers) {
    if (l.line < line) best = l;
  }
  if (!best && !launchers.empty()) best = launchers.front();
  return best;
}

void complete_layout(MeasurementSeries& s) {
  if (s.ranks < 1) return;
  if (s.ranks_per_node && !s.nodes && s.ranks % *s.ranks_per_node == 0) {
    s.nodes = s.ranks / *s.ranks_per_node;
  }
  if (s.nodes && !s.ranks_per_node && s.ranks % *s.nodes == 0) {
    s.ranks_per_node = s.ranks / *s.nodes;
  }
  // A layout the rank count contradicts (more ranks per node than ranks) is no layout.
  if (s.ranks_per_node && *s.ranks_per_node > s.ranks) s.ranks_per_node.reset();
  if (s.nodes && *s.nodes > s.ranks) s.nodes.reset();
}


CollectivePoint collective_point(Op op, std::int64_t ranks, double bytes,
                                 std::int64_t iterations, double t_min, double t_median,
                                 double t_max, bool verified) {
  CollectivePoint p;
  p.op = op;
  p.algorithm = MeasuredAlgorithm::library();
  p.ranks = ranks;
  p.bytes = bytes;
  p.iterations = iterations;
  p.time_min_s = t_min;
  p.time_median_s = t_median;
  p.time_max_s = t_max;
  p.algbw_Bps = t_median > 0 ? bytes / t_median : 0.0;
  p.busbw_Bps = ranks >= 1 ? p.algbw_Bps * busbw_factor(op, ranks) : p.algbw_Bps;
  p.verified = verified;
  return p;
}


std::size_t begin_series(MeasurementSet& set, const std::string& path, std::string benchmark,
                         std::int64_t first_line) {
  MeasurementSeries s;
  s.source = path;
  s.benchmark = std::move(benchmark);
  s.first_line = first_line;
  set.series.push_back(std::move(s));
  return set.series.size() - 1;
}

void label_series(MeasurementSet& set, std::size_t first) {
  const std::size_t count = set.series.size() - first;
  for (std::size_t i = first; i < set.series.size(); ++i) {
    MeasurementSeries& s = set.series[i];
    s.table = static_cast<std::int64_t>(i - first + 1);
    s.label = count == 1 ? fmt::format("{}: {}", s.source, s.benchmark)
                         : fmt::format("{}, table {}: {}", s.source, s.table, s.benchmark);
  }
}


}  // namespace measurement_text

namespace {

using namespace measurement_text;

// ---------------------------------------------------------------------------------------
// scalewall-mpi JSON Lines

using Json = nlohmann::json;

class RecordReader {
 public:
  RecordReader(const Json& record, std::string place) : record_(record), place_(std::move(place)) {}

  const Json& field(const char* key) const {
    const auto it = record_.find(key);
    if (it == record_.end() || it->is_null()) {
      throw InputError(fmt::format("{}: {} record lacks \"{}\"", place_,
                                   optional_json_string(record_, "record", "?", place_), key));
    }
    return *it;
  }
  double number(const char* key) const {
    const Json& v = field(key);
    if (!v.is_number()) {
      throw InputError(fmt::format("{}: field \"{}\" must be a number, not {}: {}", place_, key,
                                   json_type_words(v), json_shown(v)));
    }
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0) {
      throw InputError(fmt::format("{}: field \"{}\" must be finite and >= 0, not {}", place_,
                                   key, json_shown(v)));
    }
    return d;
  }
  // A whole number in [lo, hi].
  std::int64_t whole(const char* key, std::int64_t lo, std::int64_t hi) const {
    const std::int64_t value = whole(key);
    if (value < lo || value > hi) {
      throw InputError(fmt::format("{}: \"{}\" = {} is outside [{}, {}]", place_, key, value, lo,
                                   hi));
    }
    return value;
  }
  double size(const char* key) const { return measured_size(number(key), place_, key); }
  double seconds(const char* key) const { return measured_time(number(key), place_, key); }
  double duration(const char* key) const {
    return measured_time(number(key), place_, key, false);
  }
  double rate(const char* key) const { return measured_rate(number(key), place_, key); }
  std::int64_t whole(const char* key) const {
    const Json& v = field(key);
    if (v.is_number_unsigned()) {
      if (v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return static_cast<std::int64_t>(v.get<std::uint64_t>());
      }
    } else if (v.is_number_integer()) {
      return v.get<std::int64_t>();
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) {
        return static_cast<std::int64_t>(d);
      }
    }
    throw InputError(fmt::format("{}: field \"{}\" is not a whole number: {}", place_, key,
                                 json_shown(v)));
  }
  std::string text(const char* key) const {
    const Json& v = field(key);
    if (!v.is_string()) {
      throw InputError(fmt::format("{}: field \"{}\" must be a string, not {}", place_, key,
                                   json_type_words(v)));
    }
    return v.get<std::string>();
  }
  // Whether the record has `key` (not null).
  bool has(const char* key) const {
    const auto it = record_.find(key);
    return it != record_.end() && !it->is_null();
  }
  // A string field that may be absent (or null): empty then.
  std::string optional_text(const char* key) const {
    return optional_json_string(record_, key, "", place_);
  }
  bool flag(const char* key) const {
    const Json& v = field(key);
    if (!v.is_boolean()) {
      throw InputError(fmt::format("{}: field \"{}\" must be true or false, not {}", place_,
                                   key, json_shown(v)));
    }
    return v.get<bool>();
  }
  // The times "<stem>_min_s", "<stem>_median_s" and "<stem>_max_s", in that order.
  void min_median_max(const std::string& stem, double& lo, double& mid, double& hi) const {
    const std::string lo_key = stem + "_min_s";
    const std::string mid_key = stem + "_median_s";
    const std::string hi_key = stem + "_max_s";
    lo = seconds(lo_key.c_str());
    mid = seconds(mid_key.c_str());
    hi = seconds(hi_key.c_str());
    if (!(lo <= mid && mid <= hi)) {
      throw InputError(fmt::format("{}: expected {} <= {} <= {}, got {} , {} , {}", place_,
                                   lo_key, mid_key, hi_key, lo, mid, hi));
    }
  }
  // The rank a per-rank record is of, and its host.
  void rank_and_host(RankRecord& p) const {
    p.rank = whole("rank");
    p.host = text("host");
  }

 private:
  const Json& record_;
  std::string place_;
};

std::optional<Json> parse_json_object(std::string_view text, const std::string& path,
                                      std::int64_t line) {
  Json j = parse_json_input(text, path, line,
                            "the first line starts like JSON but is not a JSON object "
                            "(scalewall-mpi writes one object per line)");
  if (!j.is_object()) return std::nullopt;
  return j;
}

// One record of each kind, appended to `set` (a pingpong or collective record with no time
// is left out, with a warning).
// The fields a pingpong and an exchange record share; the times are `stem`_min_s, _median_s
// and _max_s.
PingPongPoint read_pair_record(const RecordReader& r, const std::string& stem) {
  PingPongPoint p;
  p.from = r.whole("from", 0, kMaxRanks - 1);
  p.to = r.whole("to", 0, kMaxRanks - 1);
  p.from_host = r.optional_text("from_host");
  p.to_host = r.optional_text("to_host");
  p.bytes = r.size("bytes");
  p.iterations = r.whole("iterations", 0, std::numeric_limits<std::int64_t>::max());
  r.min_median_max(stem, p.one_way_min_s, p.one_way_median_s, p.one_way_max_s);
  return p;
}

void read_pingpong_record(const RecordReader& r, const std::string& place, MeasurementSet& set) {
  const PingPongPoint p = read_pair_record(r, "one_way");
  if (timed(p.one_way_median_s, place, "one_way_median_s", set)) set.pingpong.push_back(p);
}

// An exchange record: a pair's simultaneous send and receive of `bytes` each way.
void read_exchange_record(const RecordReader& r, const std::string& place, MeasurementSet& set) {
  const PingPongPoint p = read_pair_record(r, "exchange");
  if (timed(p.one_way_median_s, place, "exchange_median_s", set)) set.exchanges.push_back(p);
}

// The largest element_bytes a record may give: an MPI derived type can be large, but not
// beyond a page of one element.
constexpr std::int64_t kMaxElementBytes = 4096;

void read_collective_record(const RecordReader& r, const std::string& place,
                            MeasurementSet& set) {
  CollectivePoint p;
  const std::string op_text = r.text("op");
  try {
    p.op = parse_op(op_text);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", place, e.what()));
  }
  p.algorithm = parse_measured_algorithm(r.text("algorithm"));
  p.ranks = r.whole("ranks", 1, kMaxRanks);
  p.bytes = r.size("bytes");
  p.iterations = r.whole("iterations", 0, std::numeric_limits<std::int64_t>::max());
  r.min_median_max("time", p.time_min_s, p.time_median_s, p.time_max_s);
  p.algbw_Bps = r.rate("algbw_Bps");
  p.busbw_Bps = r.rate("busbw_Bps");
  p.verified = r.flag("verified");
  if (r.has("wrong")) p.wrong = r.whole("wrong", 0, std::numeric_limits<std::int64_t>::max());
  if (r.has("element_bytes")) {
    p.element_bytes = static_cast<double>(r.whole("element_bytes", 1, kMaxElementBytes));
  }
  if (timed(p.time_median_s, place, "time_median_s", set)) set.collectives.push_back(p);
}

// A per-rank record (arrival, step): its counter (the iteration or the step), its rank and
// host, then each of its durations under its key, read in that order.
template <typename Point>
Point read_per_rank(const RecordReader& r, const char* counter, std::int64_t Point::*count,
                    std::initializer_list<std::pair<const char*, double Point::*>> durations) {
  Point p;
  p.*count = r.whole(counter);
  r.rank_and_host(p);
  for (const auto& [key, field] : durations) p.*field = r.duration(key);
  return p;
}

void read_arrival_record(const RecordReader& r, MeasurementSet& set) {
  set.arrivals.push_back(read_per_rank<ArrivalPoint>(
      r, "iteration", &ArrivalPoint::iteration,
      {{"arrival_s", &ArrivalPoint::arrival_s}, {"injected_s", &ArrivalPoint::injected_s},
       {"collective_s", &ArrivalPoint::collective_s}}));
}

// A "reduction" record, or (into set.copies) a "copy" record, (into set.allocs) an "alloc"
// record, (into set.sent_reductions) a "sent_reduction" record or (into set.sent_exchanges)
// a "sent_exchange" record: the same fields.
void read_reduction_record(const RecordReader& r, const std::string& place,
                           MeasurementSet& set, std::vector<ReductionPoint>& into) {
  ReductionPoint p;
  p.bytes = r.size("bytes");
  p.ranks = r.whole("ranks", 1, kMaxRanks);
  p.iterations = r.whole("iterations", 0, std::numeric_limits<std::int64_t>::max());
  r.min_median_max("time", p.time_min_s, p.time_median_s, p.time_max_s);
  p.slowest_rank_median_s = r.seconds("slowest_rank_median_s");
  if (timed(p.time_median_s, place, "time_median_s", set)) into.push_back(p);
}

// The record kinds of scalewall-mpi reduce's local passes, and where each goes.
const std::map<std::string, std::vector<ReductionPoint> MeasurementSet::*, std::less<>>
    kLocalPassRecords = {{"reduction", &MeasurementSet::reductions},
                         {"copy", &MeasurementSet::copies},
                         {"alloc", &MeasurementSet::allocs},
                         {"sent_reduction", &MeasurementSet::sent_reductions},
                         {"sent_exchange", &MeasurementSet::sent_exchanges}};

void read_step_record(const RecordReader& r, MeasurementSet& set) {
  set.steps.push_back(read_per_rank<StepPoint>(
      r, "step", &StepPoint::step,
      {{"compute_s", &StepPoint::compute_s}, {"communication_s", &StepPoint::communication_s},
       {"wait_s", &StepPoint::wait_s}, {"step_s", &StepPoint::step_s}}));
}

// Reads the end record: a failed run's reason and the record count it declares, checked
// against the records read before it.
void read_end_record(const RecordReader& r, const Json& j, const std::string& place,
                     std::int64_t records, MeasurementSet& set) {
  const std::string status = r.text("status");
  if (status == "failed") {
    const std::string why = optional_json_string(j, "error", "no reason given", place);
    set.warnings.push_back(fmt::format("{}: the run failed ({}); {} record(s) before it "
                                       "were read",
                                       place, why, records));
  } else if (status != "complete") {
    throw InputError(fmt::format(
        "{}: end status \"{}\" is neither \"complete\" nor \"failed\"", place, status));
  }
  if (j.contains("records")) {
    const std::int64_t declared = r.whole("records");
    if (declared != records) {
      set.warnings.push_back(fmt::format(
          "{}: the end record counts {} record(s), the file holds {}", place, declared,
          records));
    }
  }
}

// The envelope's context as the file's run identity; a context field that is absent or of
// another type is left unknown (the records still read: the context is descriptive).
MeasurementRun scalewall_mpi_run(const std::string& source, const std::string& command,
                                 const Json& envelope) {
  MeasurementRun run;
  run.source = source;
  run.command = command;
  const auto context = envelope.find("context");
  if (context == envelope.end() || !context->is_object()) return run;
  const auto whole = [&](const char* key) -> std::optional<std::int64_t> {
    const auto it = context->find(key);
    if (it == context->end() || !it->is_number_integer()) return std::nullopt;
    return it->get<std::int64_t>();
  };
  run.ranks = whole("ranks");
  run.ranks_per_host = whole("ranks_per_host");
  if (const auto hosts = context->find("hosts"); hosts != context->end() && hosts->is_array()) {
    for (const Json& h : *hosts) {
      if (h.is_string()) run.hosts.push_back(h.get<std::string>());
    }
  }
  if (const auto date = context->find("date"); date != context->end() && date->is_string()) {
    run.date = date->get<std::string>();
  }
  if (const auto lib = context->find("mpi_library"); lib != context->end() && lib->is_string()) {
    run.mpi_library = lib->get<std::string>();
  }
  return run;
}

// The file's one series: its run's ranks and layout from the envelope's context.
std::size_t scalewall_mpi_series(const std::string& path, const std::string& command,
                                 const MeasurementRun& run, MeasurementSet& set) {
  const std::size_t index = begin_series(set, path, "scalewall-mpi " + command, 1);
  MeasurementSeries& s = set.series[index];
  if (run.ranks && *run.ranks >= 1 && *run.ranks <= kMaxRanks) s.ranks = *run.ranks;
  if (run.ranks_per_host && *run.ranks_per_host >= 1 && *run.ranks_per_host <= kMaxRanks) {
    s.ranks_per_node = *run.ranks_per_host;
  }
  if (!run.hosts.empty()) s.nodes = static_cast<std::int64_t>(run.hosts.size());
  s.mpi_library = run.mpi_library;
  complete_layout(s);
  label_series(set, index);
  return index;
}

void read_scalewall_mpi(const std::string& path, const Lines& lines,
                        const Line& first, const Json& envelope, MeasurementSet& set) {
  const std::string envelope_place = at(path, first.number);
  const std::string command = optional_json_string(envelope, "command", "?", envelope_place);
  const auto kind_field = envelope.find("kind");
  if (kind_field != envelope.end() && *kind_field != "measurement") {
    throw InputError(fmt::format("{}: the envelope's kind is {}, not \"measurement\"",
                                 envelope_place, json_shown(*kind_field)));
  }
  set.sources.push_back(fmt::format("{} (scalewall-mpi {})", path, command));
  set.runs.push_back(scalewall_mpi_run(set.sources.back(), command, envelope));
  const std::size_t series = scalewall_mpi_series(path, command, set.runs.back(), set);
  const std::size_t pingpong_before = set.pingpong.size();
  const std::size_t exchanges_before = set.exchanges.size();
  const std::size_t collectives_before = set.collectives.size();
  std::int64_t records = 0;
  bool ended = false;
  std::set<std::string> unknown_kinds;
  for (const Line& line : lines) {
    const std::string_view text = trim(line.text);
    if (line.number <= first.number || text.empty()) continue;
    const std::string place = at(path, line.number);
    if (ended) {
      throw InputError(fmt::format("{}: a record after the end record", place));
    }
    const Json j = parse_json_input(
        text, path, line.number,
        fmt::format("not a JSON object (a truncated or damaged record): '{}'",
                    text.size() > 60 ? std::string(text.substr(0, 60)) + "..." : std::string(text)));
    if (!j.is_object()) {
      throw InputError(fmt::format("{}: expected a JSON object, found {}", place, json_shown(j)));
    }
    const auto kind_it = j.find("record");
    if (kind_it == j.end() || !kind_it->is_string()) {
      throw InputError(fmt::format("{}: the object has no \"record\" kind", place));
    }
    const std::string kind = kind_it->get<std::string>();
    if (kind != "end") count_row(records, place, "records");
    const RecordReader r(j, place);
    if (kind == "pingpong") {
      read_pingpong_record(r, place, set);
    } else if (kind == "exchange") {
      read_exchange_record(r, place, set);
    } else if (kind == "collective") {
      read_collective_record(r, place, set);
    } else if (kind == "arrival") {
      read_arrival_record(r, set);
    } else if (kind == "step") {
      read_step_record(r, set);
    } else if (const auto local = kLocalPassRecords.find(kind); local != kLocalPassRecords.end()) {
      read_reduction_record(r, place, set, set.*(local->second));
    } else if (kind == "end") {
      ended = true;
      read_end_record(r, j, place, records, set);
      continue;
    } else {
      if (unknown_kinds.insert(kind).second) {
        set.warnings.push_back(
            fmt::format("{}: record kind \"{}\" is not one scalewall reads; skipped", place,
                        kind));
      }
    }
  }
  if (!ended) {
    set.warnings.push_back(fmt::format(
        "{}: incomplete (no end record: the run stopped early); {} record(s) read", path,
        records));
  }
  for (std::size_t i = pingpong_before; i < set.pingpong.size(); ++i) set.pingpong[i].series = series;
  for (std::size_t i = exchanges_before; i < set.exchanges.size(); ++i) {
    set.exchanges[i].series = series;
  }
  for (std::size_t i = collectives_before; i < set.collectives.size(); ++i) {
    set.collectives[i].series = series;
  }
}


// ---------------------------------------------------------------------------------------

// The TOML files: the sections among the first lines decide (a scenario may name its fabric
// file, never hold one).
constexpr std::size_t kTomlLinesLooked = 4000;  // far more than any scenario's preamble

std::optional<FileFormat> toml_format(const Lines& lines) {
  bool fabric = false;
  for (const Line& line : lines) {
    if (line.number > static_cast<std::int64_t>(kTomlLinesLooked)) break;
    std::string_view t = line.text;
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
    if (t.starts_with("[workload]") || t.starts_with("[model]")) return FileFormat::kScenario;
    if (t.starts_with("[inter]") || t.starts_with("[intra]")) fabric = true;
  }
  if (fabric) return FileFormat::kFabric;
  return std::nullopt;
}

// nccl-tests' -J document opens with its version and, on the same line (it writes no line
// breaks), its "nccl_version" and "results".
bool is_nccl_json_line(std::string_view line) {
  return line.find("\"nccl_version\"") != std::string_view::npos &&
         line.find("\"results\"") != std::string_view::npos;
}

// A scaling table: its first line that is not blank or a comment opens JSON rows or is a CSV
// header naming `ranks`.
std::optional<FileFormat> scaling_table_format(const Lines& lines) {
  for (const Line& l : lines) {
    const std::string_view line = trim(l.text);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '{') {
      if (line.find("scalewall-mpi") != std::string_view::npos || is_nccl_json_line(line)) {
        return std::nullopt;
      }
      return FileFormat::kScalingTableJson;
    }
    if (line.front() == '[') return FileFormat::kScalingTableJson;
    if (line.starts_with("ranks,") || line.find(",ranks") != std::string_view::npos ||
        line == "ranks") {
      return FileFormat::kScalingTableCsv;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// The measurement logs by their marks; `first` is the first non-blank line. A first line
// that opens a JSON object is scalewall-mpi's envelope, which its reader checks.
FileFormat log_format(const Lines& lines, const Line& first) {
  if (trim(first.text).starts_with('{')) {
    return is_nccl_json_line(first.text) ? FileFormat::kNcclTests : FileFormat::kScalewallMpi;
  }
  for (const Line& line : lines) {
    const std::string_view text = trim(line.text);
    if (!text.starts_with('#')) {
      if (text.find("Intel(R) MPI Benchmarks") != std::string_view::npos) return FileFormat::kImb;
      continue;
    }
    const std::string_view body = trim(text.substr(1));
    if (body.starts_with("Collective test starting:") || body.starts_with("nccl-tests version") ||
        (body.starts_with("nThread ") && body.find("nGpus") != std::string_view::npos) ||
        is_nccl_header(text)) {
      return FileFormat::kNcclTests;
    }
    if (body.starts_with("OSU ")) return FileFormat::kOsu;
    if (body.starts_with("Benchmarking ") ||
        body.find("Intel(R) MPI Benchmarks") != std::string_view::npos) {
      return FileFormat::kImb;
    }
  }
  return FileFormat::kUnknown;
}

// scalewall-mpi's envelope on the first non-blank line, or InputError naming what it is.
Json scalewall_mpi_envelope(const std::string& path, const Line& head) {
  const auto envelope = parse_json_object(trim(head.text), path, head.number);
  if (!envelope) {
    throw InputError(fmt::format(
        "{}: the first line starts like JSON but is not a JSON object (scalewall-mpi "
        "writes one object per line)", at(path, head.number)));
  }
  const auto tool = envelope->find("tool");
  if (tool == envelope->end() || *tool != "scalewall-mpi") {
    throw InputError(fmt::format(
        "{}: a JSON object from {}, not scalewall-mpi measurements (expected "
        "\"tool\":\"scalewall-mpi\" on the first line)",
        at(path, head.number),
        tool == envelope->end() ? std::string("an unknown tool") : json_shown(*tool)));
  }
  return *envelope;
}

}  // namespace

MeasuredAlgorithm MeasuredAlgorithm::model(AlgorithmSpec spec) {
  MeasuredAlgorithm a;
  a.kind_ = Kind::kModel;
  a.spec_ = spec;
  return a;
}

MeasuredAlgorithm MeasuredAlgorithm::unknown(std::string name) {
  MeasuredAlgorithm a;
  a.kind_ = Kind::kUnknown;
  a.unknown_ = std::move(name);
  return a;
}

std::optional<AlgorithmSpec> MeasuredAlgorithm::spec() const {
  if (kind_ == Kind::kModel) return spec_;
  return std::nullopt;
}

std::string MeasuredAlgorithm::name() const {
  switch (kind_) {
    case Kind::kLibrary:
      return std::string(kLibraryAlgorithmName);
    case Kind::kModel:
      return algorithm_name(spec_);
    case Kind::kUnknown:
      return unknown_;
  }
  SCALEWALL_CHECK(false && "unknown MeasuredAlgorithm kind");
  return {};
}

MeasuredAlgorithm parse_measured_algorithm(std::string_view text) {
  if (text == kLibraryAlgorithmName) return MeasuredAlgorithm::library();
  try {
    return MeasuredAlgorithm::model(parse_algorithm(text));
  } catch (const InputError&) {
    return MeasuredAlgorithm::unknown(std::string(text));
  }
}

void read_measurement_file(const std::string& path, MeasurementSet& set) {
  parse_measurement_text(read_input_file(path, "measurement file"), path, set);
}

void parse_measurement_text(std::string_view text, const std::string& path,
                            MeasurementSet& set) {
  const Lines lines(text);
  const Line first = first_line_of(lines, path);
  // A benchmark log's run is only its file (scalewall-mpi's reader records its context).
  const auto log_run = [&] { set.runs.push_back({set.sources.back(), "", {}, {}, {}, "", ""}); };
  // A text log's last line without a line break was cut off: left out, with a warning.
  const auto complete = [&] { return Lines(complete_lines(text, path, set)); };
  switch (log_format(lines, first)) {
    case FileFormat::kScalewallMpi:
      read_scalewall_mpi(path, lines, first, scalewall_mpi_envelope(path, first), set);
      return;
    case FileFormat::kNcclTests:
      if (trim(first.text).starts_with('{')) {
        if (!read_nccl_json(text, path, set)) {
          throw InputError(fmt::format(
              "{}: a JSON document naming \"nccl_version\" that is not nccl-tests' -J output "
              "(an object with \"config\" and a \"results\" list)",
              at(path, first.number)));
        }
      } else {
        read_nccl_tests(path, complete(), set);
      }
      log_run();
      return;
    case FileFormat::kOsu:
      read_osu(path, complete(), set);
      log_run();
      return;
    case FileFormat::kImb:
      read_imb(path, complete(), set);
      log_run();
      return;
    default:
      break;
  }
  throw InputError(fmt::format(
      "{}:{}: unknown measurement format: expected scalewall-mpi JSON Lines, an nccl-tests "
      "log, an OSU Micro-Benchmarks log or an Intel MPI Benchmarks log",
      path, first.number));
}

std::vector<StreamPoint> read_stream_points(const std::string& path) {
  return parse_stream_points(read_input_file(path, "measurement file"), path);
}

std::vector<StreamPoint> parse_stream_points(std::string_view text, const std::string& path) {
  const Lines lines(text);
  if (log_format(lines, first_line_of(lines, path)) != FileFormat::kOsu) return {};
  // parse_measurement_text warns of an incomplete last line.
  MeasurementSet unused;
  return read_osu_streams(path, Lines(complete_lines(text, path, unused)));
}

std::string series_label(const MeasurementSet& set, std::size_t index) {
  return index < set.series.size() ? set.series[index].label : std::string();
}

// ---- the file-format detector (file_format.h) ----

std::string_view file_format_name(FileFormat format) {
  switch (format) {
    case FileFormat::kScenario:
      return "scenario";
    case FileFormat::kFabric:
      return "fabric";
    case FileFormat::kScalingTableCsv:
      return "scaling table (CSV)";
    case FileFormat::kScalingTableJson:
      return "scaling table (JSON)";
    case FileFormat::kScalewallMpi:
      return "scalewall-mpi";
    case FileFormat::kNcclTests:
      return "nccl-tests";
    case FileFormat::kOsu:
      return "OSU";
    case FileFormat::kImb:
      return "IMB";
    case FileFormat::kUnknown:
      return "unknown";
  }
  SCALEWALL_CHECK(false && "unknown FileFormat");
  return {};
}

bool is_measurement_log(FileFormat format) {
  return format == FileFormat::kScalewallMpi || format == FileFormat::kNcclTests ||
         format == FileFormat::kOsu || format == FileFormat::kImb;
}

FileFormat detect_file_format(std::string_view text) {
  const Lines lines(text);
  const std::optional<Line> first = lines.first_content();
  if (!first) return FileFormat::kUnknown;
  if (const auto toml = toml_format(lines)) return *toml;
  if (const auto table = scaling_table_format(lines)) return *table;
  return log_format(lines, *first);
}

}  // namespace scalewall