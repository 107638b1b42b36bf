// scalewall/present/report.h: finished results and the reporters that write them.
//
// A command builds one Report: what kind of figure it is (model, simulation, measurement),
// every input after defaults, top-level fields, and tables of rows. The reporters turn it
// into the three output formats without knowing which command made it:
//   * table: a banner line ("# MODEL: analytic prediction, not a measurement"), then each
//            table with human units in every cell ("62.5 KB", "2.5 us", "35%"), then the
//            fields as "title: value" lines, then the lists as "# label: item" lines, then
//            notes as "# ..." lines;
//   * csv:   the first table, a header row of keys (which carry their unit: total_s, bytes)
//            and SI numbers in full precision, then the lists as "# label: item" comment
//            lines, so a script can read the rows and nothing said about them is lost;
//   * json:  exactly one object: {"tool":"scalewall","version":...,"command":...,"kind":...,
//            "inputs":{...}, then every field, then every table as an array of row objects,
//            then the JSON-only details, then every list as an array of strings}.
// Numbers are written in SI base units (s, B, B/s; fractions in 0..1). A non-finite number is
// a bug in the command that produced it: the writers stop at SCALEWALL_CHECK (abort, naming the
// key) rather than print it.
#ifndef SCALEWALL_REPORT_H_
#define SCALEWALL_REPORT_H_

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace scalewall {

enum class Kind { kModel, kSimulation, kMeasurement };

// "model", "simulation", "measurement": the envelope's "kind".
std::string_view kind_name(Kind kind);

// How a value is shown in the table format (JSON and CSV always carry SI numbers).
enum class Unit {
  kPlain,     // a number as is, 4 significant digits ("19.64")
  kCount,     // a whole number ("1024")
  kRatio,     // a multiplier ("19.6x")
  kFraction,  // 0..1 shown as a percentage ("49.4%")
  kBytes,     // "62.5 KB"
  kSeconds,   // "560 ms"
  kRate,      // "50 GB/s"
  kText,      // a string
};

// A cell or field value. monostate is JSON null (shown as "-" or the field's null_text).
using Value = std::variant<std::monostate, bool, std::int64_t, double, std::string>;

struct Column {
  std::string key;    // JSON/CSV key, unit in the name where not obvious: "total_s"
  std::string title;  // table header: "total"
  Unit unit = Unit::kPlain;
};

struct Table {
  std::string key;  // JSON key holding the rows: "rows", "algorithms"
  std::vector<Column> columns;
  std::vector<std::vector<Value>> rows;  // each row has one value per column
  std::vector<std::string> marks;        // optional, one per row: shown after the row in
                                         // table format only ("<-- crossover")
  void add_row(std::vector<Value> row, std::string mark = "");
};

struct Field {
  std::string key;    // JSON key: "crossover_bytes"
  std::string title;  // table line title: "crossover size m*"
  Unit unit = Unit::kPlain;
  Value value;
  std::string null_text = "none";  // table text for a null value
};

// Lines of text that every format carries: warnings, the files read, what the data cannot
// separate. Written even when empty in JSON (an empty array), not at all in the others.
struct TextList {
  std::string key;    // JSON key of the array: "warnings"
  std::string label;  // table and CSV line label: "warning" gives "# warning: ..."
  std::vector<std::string> items;
};

struct Report {
  std::string command;         // "scaling"
  Kind kind = Kind::kModel;
  std::string banner;          // table format's first line, without "# "; see *_banner below
  std::string title;           // one line under the banner describing the call
  nlohmann::ordered_json inputs = nlohmann::ordered_json::object();
  std::vector<Field> fields;
  std::vector<Table> tables;
  std::vector<TextList> lists;     // every format, in this order (see above)
  std::vector<std::string> notes;  // table format only, as "# " lines at the end: how to
                                   // read the figures, never a warning (that is a list)
  // JSON-only details that the other formats carry in another form (a field, a note, their
  // own tables): nested objects written after the tables.
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();

  void add_field(std::string key, std::string title, Unit unit, Value value,
                 std::string null_text = "none");
  void add_list(std::string key, std::string label, std::vector<std::string> items);
};

// "MODEL: analytic prediction, not a measurement"
std::string model_banner();

// An empty report of an analytic model for `command`: kind kModel, the model banner.
Report model_report(std::string command);
// "SIMULATION (seed 42): Monte Carlo estimate, not a measurement"
std::string simulation_banner(std::uint64_t seed);
// "MEASUREMENT: <what>"
std::string measurement_banner(std::string_view what);

enum class Format { kTable, kCsv, kJson };

// "table", "csv" or "json"; throws InputError naming anything else.
Format parse_format(std::string_view text);

// The text a table cell shows for `value` in `unit`.
std::string format_cell(const Value& value, Unit unit);

void write_table(const Report& report, std::ostream& out);
void write_csv(const Report& report, std::ostream& out);
void write_json(const Report& report, std::ostream& out);
void write_report(const Report& report, Format format, std::ostream& out);

// The JSON object write_json prints (for callers that embed or test it).
nlohmann::ordered_json to_json(const Report& report);

}  // namespace scalewall

#endif  // SCALEWALL_REPORT_H_
