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
#include "scalewall/base/setting.h"
#include "scalewall/io/file_format.h"
#include "scalewall/io/input_file.h"
#include "json_input.h"
#include "scalewall/model/scaling.h"

namespace scalewall {
namespace {

struct Line {
  std::int64_t number = 0;  // 1-based
  std::string text;         // without the tag-output prefix and trailing blanks
};

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

// Removes Open MPI's --tag-output prefix "[1,0]<stdout>:" (or <stderr>).
std::string_view strip_tag(std::string_view text) {
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

// A table row starts with a whole number, the size; a signed one ("-8") is a row too, so
// that a negative size is refused rather than skipped as a line of text.
bool starts_row(const std::vector<std::string_view>& words) {
  if (words.empty()) return false;
  const std::string_view w = words[0];
  if (all_digits(w)) return true;
  return w.size() > 1 && (w[0] == '-' || w[0] == '+') && all_digits(w.substr(1));
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The text's lines, tag prefixes removed; none when it holds nothing but blanks.
std::vector<Line> lines_or_none(std::string_view text) {
  std::vector<Line> lines;
  bool any_content = false;
  std::int64_t number = 0;
  for (std::string_view view; next_line(text, view);) {
    ++number;
    if (number == 1 && view.starts_with("\xEF\xBB\xBF")) view.remove_prefix(3);
    view = strip_tag(view);
    while (!view.empty() && (view.back() == '\r' || view.back() == ' ' || view.back() == '\t')) {
      view.remove_suffix(1);
    }
    if (!trim(view).empty()) any_content = true;
    lines.push_back({number, std::string(view)});
  }
  if (!any_content) lines.clear();
  return lines;
}

// The same, throwing InputError when the text holds nothing but blanks.
std::vector<Line> split_lines(std::string_view text, const std::string& path) {
  std::vector<Line> lines = lines_or_none(text);
  if (lines.empty()) throw InputError(fmt::format("measurement file '{}' is empty", path));
  return lines;
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
                     bool fitted = true) {
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

// A size column (a whole number of bytes) and a time column in microseconds.
double read_size(std::string_view word, const std::string& place, std::string_view column) {
  return measured_size(static_cast<double>(read_whole(word, place, column)), place, column);
}
double read_us(std::string_view word, const std::string& place, std::string_view column) {
  return measured_time(read_number(word, place, column) * 1e-6, place, column);
}

std::string join_words(const std::vector<std::string>& words, std::string_view separator) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += separator;
    out += w;
  }
  return out;
}

// The rank count of an mpirun/mpiexec/srun command line in the file ("-np 4", "-n 4",
// "--np 4", "--ntasks=4"), or 0. A count above 2^40 is an InputError naming the line.
std::int64_t launcher_ranks(const std::string& path, const std::vector<Line>& lines) {
  for (const Line& line : lines) {
    const auto checked = [&](std::string_view digits) {
      std::int64_t n = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
      if (ec == std::errc::result_out_of_range || n > kMaxRanks) {
        throw InputError(fmt::format("{}: the launcher's rank count {} is above the limit of 2^40",
                                     at(path, line.number), digits));
      }
      return n;
    };
    const auto words = split_words(line.text);
    bool launcher = false;
    for (std::size_t i = 0; i < words.size(); ++i) {
      const std::string_view w = words[i];
      const std::string_view base = w.substr(w.rfind('/') == std::string_view::npos
                                                 ? 0
                                                 : w.rfind('/') + 1);
      if (base == "mpirun" || base == "mpiexec" || base == "srun" || base == "mpiexec.hydra") {
        launcher = true;
        continue;
      }
      if (!launcher) continue;
      for (std::string_view flag : {"-np", "-n", "--np", "--n", "--ntasks", "-ntasks"}) {
        if (w == flag && i + 1 < words.size() && all_digits(words[i + 1])) {
          const std::int64_t n = checked(words[i + 1]);
          if (n >= 1) return n;
        }
        const std::string with_eq = std::string(flag) + "=";
        if (w.starts_with(with_eq) && all_digits(w.substr(with_eq.size()))) {
          const std::int64_t n = checked(w.substr(with_eq.size()));
          if (n >= 1) return n;
        }
      }
    }
  }
  return 0;
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
void read_pingpong_record(const RecordReader& r, const std::string& place, MeasurementSet& set) {
  PingPongPoint p;
  p.from = r.whole("from", 0, kMaxRanks - 1);
  p.to = r.whole("to", 0, kMaxRanks - 1);
  p.from_host = r.optional_text("from_host");
  p.to_host = r.optional_text("to_host");
  p.bytes = r.size("bytes");
  p.iterations = r.whole("iterations", 0, std::numeric_limits<std::int64_t>::max());
  r.min_median_max("one_way", p.one_way_min_s, p.one_way_median_s, p.one_way_max_s);
  if (timed(p.one_way_median_s, place, "one_way_median_s", set)) set.pingpong.push_back(p);
}

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

void read_reduction_record(const RecordReader& r, const std::string& place,
                           MeasurementSet& set) {
  ReductionPoint p;
  p.bytes = r.size("bytes");
  p.ranks = r.whole("ranks", 1, kMaxRanks);
  p.iterations = r.whole("iterations", 0, std::numeric_limits<std::int64_t>::max());
  r.min_median_max("time", p.time_min_s, p.time_median_s, p.time_max_s);
  p.slowest_rank_median_s = r.seconds("slowest_rank_median_s");
  if (timed(p.time_median_s, place, "time_median_s", set)) set.reductions.push_back(p);
}

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
  return run;
}

void read_scalewall_mpi(const std::string& path, const std::vector<Line>& lines,
                        std::size_t first, const Json& envelope, MeasurementSet& set) {
  const std::string envelope_place = at(path, lines[first].number);
  const std::string command = optional_json_string(envelope, "command", "?", envelope_place);
  const auto kind_field = envelope.find("kind");
  if (kind_field != envelope.end() && *kind_field != "measurement") {
    throw InputError(fmt::format("{}: the envelope's kind is {}, not \"measurement\"",
                                 envelope_place, json_shown(*kind_field)));
  }
  set.sources.push_back(fmt::format("{} (scalewall-mpi {})", path, command));
  set.runs.push_back(scalewall_mpi_run(set.sources.back(), command, envelope));
  std::int64_t records = 0;
  bool ended = false;
  std::set<std::string> unknown_kinds;
  for (std::size_t i = first + 1; i < lines.size(); ++i) {
    const std::string_view text = trim(lines[i].text);
    if (text.empty()) continue;
    const std::string place = at(path, lines[i].number);
    if (ended) {
      throw InputError(fmt::format("{}: a record after the end record", place));
    }
    const Json j = parse_json_input(
        text, path, lines[i].number,
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
    const RecordReader r(j, place);
    if (kind == "pingpong") {
      read_pingpong_record(r, place, set);
    } else if (kind == "collective") {
      read_collective_record(r, place, set);
    } else if (kind == "arrival") {
      read_arrival_record(r, set);
    } else if (kind == "step") {
      read_step_record(r, set);
    } else if (kind == "reduction") {
      read_reduction_record(r, place, set);
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
    ++records;
  }
  if (!ended) {
    set.warnings.push_back(fmt::format(
        "{}: incomplete (no end record: the run stopped early); {} record(s) read", path,
        records));
  }
}

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

bool is_nccl_header(std::string_view text) {
  if (!text.starts_with('#')) return false;
  const auto words = split_words(text.substr(1));
  const auto has = [&](std::string_view w) {
    return std::find(words.begin(), words.end(), w) != words.end();
  };
  return has("size") && has("count") && has("type") && (has("time") || has("cputime")) &&
         has("algbw") && has("busbw");
}

struct NcclRow {
  std::int64_t line = 0;
  double bytes = 0;
  double time_a_s = 0;  // out-of-place
  std::optional<double> time_b_s;  // in-place
  double printed_algbw = 0;
  double printed_busbw = 0;
  std::string redop;
  std::int64_t root = -1;
  bool wrong = false;
};

// What a pass over an nccl-tests log collects: its comment lines' facts and its table rows.
struct NcclLog {
  std::string program;
  std::int64_t program_line = 0;
  std::int64_t iterations = 0;
  std::set<std::int64_t> rank_ids;
  std::vector<std::string> columns;  // header words after '#'
  std::vector<NcclRow> rows;
};

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

// Reads one '#' line of an nccl-tests log: the program, iterations, a rank, the column
// header or a wrong-results report.
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
    }
  } else if (body.starts_with("Rank")) {
    const auto words = split_words(body);
    if (words.size() >= 2 && all_digits(words[1])) {
      log.rank_ids.insert(read_whole(words[1], place, "Rank"));
    }
  } else if (is_nccl_header(text)) {
    log.columns.clear();
    for (const auto w : split_words(text.substr(1))) log.columns.emplace_back(w);
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
                      const std::string& place) {
  NcclRow row;
  row.line = line.number;
  int time_seen = 0;
  int wrong_seen = 0;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const std::string& name = columns[c];
    const std::string_view w = words[c];
    if (name == "size") {
      row.bytes = read_size(w, place, "size");
    } else if (name == "count") {
      read_whole(w, place, "count");
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
      const double v = read_number(w, place, "algbw");
      if (row.printed_algbw == 0) row.printed_algbw = v;
    } else if (name == "busbw") {
      const double v = read_number(w, place, "busbw");
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

// Reads an nccl-tests log's lines into its facts and rows; throws when it has no rows.
NcclLog scan_nccl_log(const std::string& path, const std::vector<Line>& lines,
                      MeasurementSet& set) {
  NcclLog log;
  for (const Line& line : lines) {
    const std::string_view text = trim(line.text);
    const std::string place = at(path, line.number);
    if (text.starts_with('#')) {
      read_nccl_comment(text, line, place, log, set);
      continue;
    }
    const auto words = split_words(text);
    if (!starts_row(words)) continue;  // NCCL INFO lines and the like
    if (log.columns.empty()) {
      throw InputError(fmt::format("{}: a table row before the column header", place));
    }
    if (words.size() != log.columns.size()) {
      throw InputError(fmt::format(
          "{}: truncated table row: {} field(s), expected {} ({})", place, words.size(),
          log.columns.size(), join_words(log.columns, " ")));
    }
    log.rows.push_back(read_nccl_row(words, log.columns, line, place));
  }
  if (log.rows.empty()) {
    throw InputError(fmt::format(
        "{}: an nccl-tests log with no result rows (did the run fail before its table?)", path));
  }
  return log;
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

// busbw / algbw as printed, from the row where both are largest (least rounding); 0 when no
// row prints a bandwidth.
double nccl_bus_factor(const std::vector<NcclRow>& rows) {
  const NcclRow* best = nullptr;
  for (const NcclRow& r : rows) {
    if (r.printed_algbw > 0 && (best == nullptr || r.printed_algbw > best->printed_algbw)) {
      best = &r;
    }
  }
  return best != nullptr ? best->printed_busbw / best->printed_algbw : 0;
}

// The bus-bandwidth factor above which a reducing log with no root is all_reduce_perf:
// all-reduce's factor 2(N-1)/N is >= 1 for N >= 2, reduce-scatter's (N-1)/N is below 1; the
// margin below 1 absorbs the rounding of the printed bandwidths.
constexpr double kAllreduceFactorFloor = 0.99;

// The collective read from the columns (a root, a reduction operator) and the bus-bandwidth
// factor, for a log with no program line.
Op nccl_op_from_columns(const std::string& path, const NcclRow& first, double factor) {
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

// The rank count: the '#  Rank' lines counted, else inferred from the bus-bandwidth factor
// with a warning, else 0 with a warning.
std::int64_t nccl_ranks(const std::string& path, const NcclLog& log, Op op, double factor,
                        MeasurementSet& set) {
  std::int64_t ranks = static_cast<std::int64_t>(log.rank_ids.size());
  if (ranks != 0) return ranks;
  if (const auto inferred = ranks_from_factor(op, factor)) {
    ranks = *inferred;
    set.warnings.push_back(fmt::format(
        "{}: no '#  Rank' lines; {} ranks inferred from busbw/algbw = {:.3g}", path, ranks,
        factor));
  } else {
    set.warnings.push_back(fmt::format(
        "{}: no '#  Rank' lines: the rank count is unknown (give {})", path,
        setting_words(Setting::kRankCount)));
  }
  return ranks;
}

void read_nccl_tests(const std::string& path, const std::vector<Line>& lines,
                     MeasurementSet& set) {
  const NcclLog log = scan_nccl_log(path, lines, set);
  const double factor = nccl_bus_factor(log.rows);
  std::optional<Op> op = nccl_program_op(path, log);
  if (!op) op = nccl_op_from_columns(path, log.rows.front(), factor);
  const std::int64_t ranks = nccl_ranks(path, log, *op, factor, set);
  for (const NcclRow& r : log.rows) {
    const double a = r.time_a_s;
    const double b = r.time_b_s.value_or(a);
    const char* which = a == 0 ? "the out-of-place time" : "the in-place time";
    if (!timed(std::min(a, b), at(path, r.line), which, set)) continue;
    set.collectives.push_back(collective_point(*op, ranks, r.bytes, log.iterations,
                                               std::min(a, b), (a + b) / 2.0, std::max(a, b),
                                               !r.wrong));
  }
  set.sources.push_back(fmt::format(
      "{} (nccl-tests {})", path,
      log.program.empty() ? fmt::format("{}, op read from its columns", op_name(*op))
                          : log.program));
}

// ---------------------------------------------------------------------------------------
// OSU Micro-Benchmarks

enum class OsuKind { kLatency, kBandwidth, kCollective };

struct OsuTable {
  OsuKind kind = OsuKind::kLatency;
  std::string title;            // "OSU MPI Latency Test v7.3"
  std::string benchmark;        // "osu_latency"
  Op op = Op::kAllreduce;       // kCollective only
  std::vector<std::string> columns;  // normalised: "size", "latency(us)", ...
  struct Row {
    std::int64_t line = 0;
    std::vector<std::string> cells;
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
    "osu_latency, osu_bw, osu_allreduce, osu_reduce, osu_bcast";

// Reads the title line "OSU MPI[-X] <words> Test ..." into the table's kind, benchmark and
// collective; throws for a benchmark scalewall does not read.
void read_osu_title(std::string_view body, const std::string& place, OsuTable& table) {
  table.title = std::string(body);
  std::vector<std::string> words;
  for (const auto w : split_words(body)) words.emplace_back(w);
  // Words between "OSU MPI[-X]" and "Test": "Latency", "Bandwidth", "Allreduce Latency".
  std::vector<std::string> middle;
  for (std::size_t i = 2; i < words.size() && words[i] != "Test"; ++i) {
    middle.push_back(words[i]);
  }
  const auto has = [&](std::string_view w) {
    return std::find(middle.begin(), middle.end(), w) != middle.end();
  };
  if (middle == std::vector<std::string>{"Latency"}) {
    table.kind = OsuKind::kLatency;
    table.benchmark = "osu_latency";
  } else if (middle == std::vector<std::string>{"Bandwidth"}) {
    table.kind = OsuKind::kBandwidth;
    table.benchmark = "osu_bw";
  } else if (middle == std::vector<std::string>{"Allreduce", "Latency"}) {
    table.kind = OsuKind::kCollective;
    table.op = Op::kAllreduce;
    table.benchmark = "osu_allreduce";
  } else if (middle == std::vector<std::string>{"Reduce", "Latency"}) {
    table.kind = OsuKind::kCollective;
    table.op = Op::kReduce;
    table.benchmark = "osu_reduce";
  } else if ((has("Broadcast") || has("Bcast")) && has("Latency") && middle.size() == 2) {
    table.kind = OsuKind::kCollective;
    table.op = Op::kBroadcast;
    table.benchmark = "osu_bcast";
  } else {
    throw InputError(fmt::format("{}: '{}' is an OSU benchmark scalewall does not read "
                                 "(it reads {})",
                                 place, body, kOsuRead));
  }
}

// Reads a '# Size' header into the table's columns.
void read_osu_header(std::string_view text, const std::string& place, OsuTable& table) {
  std::vector<std::string> columns = osu_columns(text);
  // Rows already read belong to the columns they were read with: a header that changes
  // them starts another table, which this reader does not take.
  if (!table.rows.empty() && columns != table.columns) {
    throw InputError(fmt::format(
        "{}: a second OSU table (a '# Size' header with other columns after rows of the "
        "first); give each table in a file of its own",
        place));
  }
  table.columns = std::move(columns);
}

OsuTable read_osu_table(const std::string& path, const std::vector<Line>& lines) {
  OsuTable table;
  std::int64_t title_line = 0;
  for (const Line& line : lines) {
    const std::string_view text = trim(line.text);
    const std::string place = at(path, line.number);
    if (text.starts_with('#')) {
      const std::string_view body = trim(text.substr(1));
      if (body.starts_with("OSU ") && title_line == 0) {
        title_line = line.number;
        read_osu_title(body, place, table);
      } else if (body.starts_with("Size")) {
        read_osu_header(text, place, table);
      }
      continue;
    }
    const auto words = split_words(text);
    if (!starts_row(words)) continue;
    if (title_line == 0 || table.columns.empty()) {
      throw InputError(fmt::format("{}: a table row before the OSU title and '# Size' header",
                                   place));
    }
    if (words.size() != table.columns.size()) {
      throw InputError(fmt::format("{}: truncated table row: {} field(s), expected {} ({})",
                                   place, words.size(), table.columns.size(),
                                   join_words(table.columns, ", ")));
    }
    OsuTable::Row row;
    row.line = line.number;
    for (const auto w : words) row.cells.emplace_back(w);
    table.rows.push_back(std::move(row));
  }
  if (title_line == 0) {
    throw InputError(fmt::format("{}: no '# OSU MPI ... Test' title line", path));
  }
  if (table.rows.empty()) {
    throw InputError(fmt::format("{}: an OSU log ({}) with no result rows", path, table.title));
  }
  return table;
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
  throw InputError(fmt::format("{}: the '# Size' header has no {} column (it has: {})", path,
                               join_words(wanted, " or "), join_words(table.columns, ", ")));
}

bool osu_row_passed(const OsuTable& table, const OsuTable::Row& row) {
  const auto v = column_of(table, "validation");
  return !v || lower(row.cells[*v]) != "fail";
}

void read_osu(const std::string& path, const std::vector<Line>& lines, MeasurementSet& set) {
  const OsuTable table = read_osu_table(path, lines);
  const std::size_t size_col = require_column(table, path, {"size"});
  switch (table.kind) {
    case OsuKind::kLatency: {
      const std::size_t t_col = require_column(table, path, {"latency(us)", "avglatency(us)"});
      for (const auto& row : table.rows) {
        const std::string place = at(path, row.line);
        PingPongPoint p;
        p.bytes = read_size(row.cells[size_col], place, "Size");
        const double t = read_us(row.cells[t_col], place, "Latency (us)");
        p.one_way_min_s = p.one_way_median_s = p.one_way_max_s = t;
        if (!timed(t, place, "the latency", set)) continue;
        if (!osu_row_passed(table, row)) {
          set.warnings.push_back(fmt::format("{}: OSU validation failed at this size", place));
        }
        set.pingpong.push_back(p);
      }
      break;
    }
    case OsuKind::kBandwidth:
      // A stream of messages, not a ping-pong: no record here; read_stream_points reads it
      // for the LogGP gap, and the source line says what it is.
      break;
    case OsuKind::kCollective: {
      const std::size_t avg_col = require_column(table, path, {"avglatency(us)", "latency(us)"});
      const auto min_col = column_of(table, "minlatency(us)");
      const auto max_col = column_of(table, "maxlatency(us)");
      const auto iter_col = column_of(table, "iterations");
      const std::int64_t ranks = launcher_ranks(path, lines);
      if (ranks == 0) {
        set.warnings.push_back(fmt::format(
            "{}: {} does not print its rank count and the file holds no mpirun command line "
            "(give {})",
            path, table.benchmark, setting_words(Setting::kRankCount)));
      }
      for (const auto& row : table.rows) {
        const std::string place = at(path, row.line);
        const double bytes = read_size(row.cells[size_col], place, "Size");
        const double avg = read_us(row.cells[avg_col], place, "Avg Latency(us)");
        const double lo = min_col ? read_us(row.cells[*min_col], place, "Min Latency(us)") : avg;
        const double hi = max_col ? read_us(row.cells[*max_col], place, "Max Latency(us)") : avg;
        const std::int64_t iters = iter_col ? read_whole(row.cells[*iter_col], place, "Iterations") : 0;
        if (!timed(avg, place, "the average latency", set)) continue;
        set.collectives.push_back(collective_point(table.op, ranks, bytes, iters, std::min(lo, avg),
                                                   avg, std::max(hi, avg),
                                                   osu_row_passed(table, row)));
      }
      break;
    }
  }
  set.sources.push_back(fmt::format(
      "{} ({}{})", path, table.benchmark,
      table.kind == OsuKind::kBandwidth ? ": streaming bandwidth, no ping-pong or collective times"
                                        : ""));
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
  std::vector<std::string> read_sections;
  std::vector<std::string> skipped_sections;
  std::size_t points = 0;
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
  const std::string& section = log.section;
  if (section == "PingPong" || section == "PingPongSpecificSource" ||
      section == "PingPongAnySource") {
    log.kind = ImbKind::kPingPong;
  } else if (section == "Allreduce" || section == "Reduce" || section == "Bcast" ||
             section == "Barrier") {
    log.kind = ImbKind::kCollective;
    log.op = section == "Allreduce" ? Op::kAllreduce
             : section == "Reduce"  ? Op::kReduce
             : section == "Bcast"   ? Op::kBroadcast
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
      set.collectives.push_back(collective_point(
          log.op, log.processes, row.bytes, row.repetitions,
          std::min(row.t_min.value_or(avg), avg), avg, std::max(row.t_max.value_or(avg), avg),
          !row.defects));
      break;
    }
    case ImbKind::kSkipped:
      break;
  }
}

// Reads one table row: checks it against its section and header, and adds it unless its
// section is skipped.
void read_imb_table_row(const std::vector<std::string_view>& words, const std::string& place,
                        ImbLog& log, MeasurementSet& set) {
  if (log.section.empty()) {
    throw InputError(fmt::format("{}: a table row before any '# Benchmarking' header", place));
  }
  if (log.columns.empty()) {
    throw InputError(fmt::format("{}: a table row before the '#bytes #repetitions ...' header",
                                 place));
  }
  if (words.size() != log.columns.size()) {
    throw InputError(fmt::format("{}: truncated table row: {} field(s), expected {} ({})",
                                 place, words.size(), log.columns.size(),
                                 join_words(log.columns, " ")));
  }
  if (log.kind == ImbKind::kSkipped) return;
  if (log.processes == 0) {
    throw InputError(fmt::format("{}: section '{}' (line {}) has no '# #processes = N' line",
                                 place, log.section, log.section_line));
  }
  add_imb_point(read_imb_row(words, log.columns, place), log, place, set);
  ++log.points;
}

void read_imb(const std::string& path, const std::vector<Line>& lines, MeasurementSet& set) {
  ImbLog log;
  for (const Line& line : lines) {
    const std::string_view text = trim(line.text);
    const std::string place = at(path, line.number);
    if (text.starts_with('#')) {
      read_imb_comment(text, line, place, log);
      continue;
    }
    const auto words = split_words(text);
    if (starts_row(words)) read_imb_table_row(words, place, log, set);
  }
  if (!log.skipped_sections.empty()) {
    set.warnings.push_back(fmt::format(
        "{}: IMB section(s) {} skipped (scalewall reads PingPong, Allreduce, Reduce, Bcast, "
        "Barrier)",
        path, join_words(log.skipped_sections, ", ")));
  }
  if (log.points == 0) {
    throw InputError(fmt::format(
        "{}: an Intel MPI Benchmarks log with no rows scalewall reads", path));
  }
  set.sources.push_back(fmt::format("{} (IMB {})", path, join_words(log.read_sections, ", ")));
}

// ---------------------------------------------------------------------------------------

// The TOML files: the sections among the first lines decide (a scenario may name its fabric
// file, never hold one).
constexpr std::size_t kTomlLinesLooked = 4000;  // far more than any scenario's preamble

std::optional<FileFormat> toml_format(const std::vector<Line>& lines) {
  bool fabric = false;
  for (std::size_t i = 0; i < lines.size() && i < kTomlLinesLooked; ++i) {
    std::string_view t = lines[i].text;
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
    if (t.starts_with("[workload]") || t.starts_with("[model]")) return FileFormat::kScenario;
    if (t.starts_with("[inter]") || t.starts_with("[intra]")) fabric = true;
  }
  if (fabric) return FileFormat::kFabric;
  return std::nullopt;
}

// A scaling table: its first line that is not blank or a comment opens JSON rows or is a CSV
// header naming `ranks`.
std::optional<FileFormat> scaling_table_format(const std::vector<Line>& lines) {
  for (const Line& l : lines) {
    const std::string_view line = trim(l.text);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '{') {
      if (line.find("scalewall-mpi") != std::string_view::npos) return std::nullopt;
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
FileFormat log_format(const std::vector<Line>& lines, std::size_t first) {
  if (trim(lines[first].text).starts_with('{')) return FileFormat::kScalewallMpi;
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

std::size_t first_content(const std::vector<Line>& lines) {
  std::size_t first = 0;
  while (first < lines.size() && trim(lines[first].text).empty()) ++first;
  SCALEWALL_CHECK(first < lines.size());  // split_lines refused an empty file
  return first;
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
  const std::vector<Line> lines = split_lines(text, path);
  const std::size_t first = first_content(lines);
  // A benchmark log's run is only its file (scalewall-mpi's reader records its context).
  const auto log_run = [&] { set.runs.push_back({set.sources.back(), "", {}, {}, {}, ""}); };
  switch (log_format(lines, first)) {
    case FileFormat::kScalewallMpi:
      read_scalewall_mpi(path, lines, first, scalewall_mpi_envelope(path, lines[first]), set);
      return;
    case FileFormat::kNcclTests:
      read_nccl_tests(path, lines, set);
      log_run();
      return;
    case FileFormat::kOsu:
      read_osu(path, lines, set);
      log_run();
      return;
    case FileFormat::kImb:
      read_imb(path, lines, set);
      log_run();
      return;
    default:
      break;
  }
  throw InputError(fmt::format(
      "{}:{}: unknown measurement format: expected scalewall-mpi JSON Lines, an nccl-tests "
      "log, an OSU Micro-Benchmarks log or an Intel MPI Benchmarks log",
      path, lines[first].number));
}

std::vector<StreamPoint> read_stream_points(const std::string& path) {
  return parse_stream_points(read_input_file(path, "measurement file"), path);
}

std::vector<StreamPoint> parse_stream_points(std::string_view text, const std::string& path) {
  const std::vector<Line> lines = split_lines(text, path);
  const std::size_t first = first_content(lines);
  if (log_format(lines, first) != FileFormat::kOsu) return {};
  const OsuTable table = read_osu_table(path, lines);
  if (table.kind != OsuKind::kBandwidth) return {};
  const std::size_t size_col = require_column(table, path, {"size"});
  const std::size_t bw_col = require_column(table, path, {"bandwidth(mb/s)"});
  std::vector<StreamPoint> points;
  for (const auto& row : table.rows) {
    const std::string place = at(path, row.line);
    StreamPoint p;
    p.bytes = read_size(row.cells[size_col], place, "Size");
    p.bandwidth_Bps =
        measured_rate(read_number(row.cells[bw_col], place, "Bandwidth (MB/s)") * 1e6, place,
                      "Bandwidth (MB/s)");
    points.push_back(p);
  }
  return points;
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
  const std::vector<Line> lines = lines_or_none(text);
  if (lines.empty()) return FileFormat::kUnknown;
  if (const auto toml = toml_format(lines)) return *toml;
  if (const auto table = scaling_table_format(lines)) return *table;
  return log_format(lines, first_content(lines));
}

}  // namespace scalewall
