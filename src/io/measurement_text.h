// The pieces the measurement readers share (measurement.cc, measurement_nccl.cc,
// measurement_osu.cc): the lines of a log, its words and numbers with their limits, the
// launcher lines' rank counts and layout, and the series every table becomes. Not a public
// header: only the readers include it.
#ifndef SCALEWALL_IO_MEASUREMENT_TEXT_H_
#define SCALEWALL_IO_MEASUREMENT_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/io/measurement.h"

namespace scalewall::measurement_text {

struct Line {
  std::int64_t number = 0;  // 1-based
  std::string_view text;    // without the launcher's prefix and trailing blanks
};

// The lines of a text, read one at a time as they are walked (a 256 MB log is never held a
// second time, line by line): each without the launcher's prefix and trailing blanks, and
// empty for a launcher's notice. Walking it twice reads the text twice.
class Lines {
 public:
  explicit Lines(std::string_view text);

  class Iterator {
   public:
    Iterator() = default;
    Iterator(std::string_view rest, std::int64_t number);
    const Line& operator*() const { return line_; }
    const Line* operator->() const { return &line_; }
    Iterator& operator++();
    bool operator==(const Iterator& other) const { return done_ == other.done_; }

   private:
    void read();
    std::string_view rest_;
    Line line_;
    bool done_ = true;
  };

  Iterator begin() const { return Iterator(text_, 0); }
  Iterator end() const { return {}; }
  // The first line that is not blank; none when the text holds nothing but blanks.
  std::optional<Line> first_content() const;

 private:
  std::string_view text_;
};

std::string_view trim(std::string_view text);
std::vector<std::string_view> split_words(std::string_view text);
bool all_digits(std::string_view word);
// A table row starts with a whole number, the size (or a signed one, refused later); a line
// with as many fields as the table has columns (`columns`) is a row when it starts with any
// other number too ("1e19", "1.5", "0x10", "1,000", "nan", "inf"), which the size's reader
// refuses, naming it.
bool starts_row(const std::vector<std::string_view>& words, std::size_t columns);
// A measurement log's text without its last line when that line has no line break at its
// end (the log was cut off while it was written): the line is left out, with a warning naming
// it when it held more than a comment.
std::string_view complete_lines(std::string_view text, const std::string& path,
                                MeasurementSet& set);
// The most table rows a measurement log may hold (every reader): no sweep comes near it, and
// each row costs memory and time in every fit.
inline constexpr std::int64_t kMaxLogRows = 1'000'000;
// Counts one more table row (or what `rows_are` names: "records"), at `place`; InputError past
// kMaxLogRows.
void count_row(std::int64_t& rows, const std::string& place,
               std::string_view rows_are = "table rows");
// "path:line".
std::string at(const std::string& path, std::int64_t line);
std::string join_words(const std::vector<std::string>& words, std::string_view separator);
// What is wrong with a row of `fields` fields in a `format` table of `columns`: fewer is a
// truncated row, more a row that is not the table's (another tool's output mixed in).
std::string row_width_error(const std::string& place, std::size_t fields,
                            const std::vector<std::string>& columns, std::string_view format);

// Numbers of a table, each checked against the range of a measured value (InputError naming
// the place and the column otherwise).
double read_number(std::string_view word, const std::string& place, std::string_view column);
std::int64_t read_whole(std::string_view word, const std::string& place, std::string_view column);
double read_size(std::string_view word, const std::string& place, std::string_view column);
double read_us(std::string_view word, const std::string& place, std::string_view column);
// A rate column in `unit` (unit_Bps B/s each: 1e9 for GB/s), at most 1e18 B/s.
double read_rate(std::string_view word, double unit_Bps, std::string_view unit,
                 const std::string& place, std::string_view column);
double measured_rate(double bytes_per_second, const std::string& place, std::string_view what);
double measured_size(double bytes, const std::string& place, std::string_view what);
double measured_time(double seconds, const std::string& place, std::string_view what,
                     bool fitted = true);
// False (with a warning naming the place) when `seconds` is 0: the row is left out.
bool timed(double seconds, const std::string& place, std::string_view what, MeasurementSet& set);

// A launcher's command line in the log (mpirun, mpiexec, srun, an #SBATCH line): the rank
// count and the layout it asks for, each 0 or empty when it does not say.
struct LauncherLine {
  std::int64_t line = 0;
  std::int64_t ranks = 0;
  std::optional<std::int64_t> nodes;
  std::optional<std::int64_t> ranks_per_node;
};
// Every launcher line of the log, in order. A count above 2^40 is an InputError naming the
// line.
std::vector<LauncherLine> launcher_lines(const std::string& path, const Lines& lines);
// The launcher line a table starting at `line` ran under: the last one before it, else the
// first of the file; nothing when the file has none.
std::optional<LauncherLine> launcher_for(const std::vector<LauncherLine>& launchers,
                                         std::int64_t line);
// Fills the series' nodes and ranks per node from what is known (ranks, and one of nodes and
// ranks per node, give the other when they divide).
void complete_layout(MeasurementSeries& series);

CollectivePoint collective_point(Op op, std::int64_t ranks, double bytes,
                                 std::int64_t iterations, double t_min, double t_median,
                                 double t_max, bool verified);

// Opens a series of `path` for the table that starts at `first_line`; returns its index.
std::size_t begin_series(MeasurementSet& set, const std::string& path, std::string benchmark,
                         std::int64_t first_line);
// Labels the series from `first` on (those of one file): "path: benchmark" when the file
// holds one, "path, table K: benchmark" when it holds several.
void label_series(MeasurementSet& set, std::size_t first);

// The readers of the text formats; each appends its series, points and one source line.
void read_nccl_tests(const std::string& path, const Lines& lines,
                     MeasurementSet& set);
void read_osu(const std::string& path, const Lines& lines, MeasurementSet& set);
void read_imb(const std::string& path, const Lines& lines, MeasurementSet& set);
std::vector<StreamPoint> read_osu_streams(const std::string& path, const Lines& lines);
bool is_nccl_header(std::string_view text);
// nccl-tests' -J document (one JSON object with "config" and "results"): read into `set` and
// true; false, with nothing read, when the text is no such document.
bool read_nccl_json(std::string_view text, const std::string& path, MeasurementSet& set);

}  // namespace scalewall::measurement_text

#endif  // SCALEWALL_IO_MEASUREMENT_TEXT_H_
