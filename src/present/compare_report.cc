// The report of `scalewall compare`; see scalewall/present/compare_report.h.
#include "scalewall/present/compare_report.h"

#include <fmt/format.h>

namespace scalewall {
namespace {

Value optional_value(const std::optional<double>& v) {
  return v ? Value{*v} : Value{};
}

Value ratio_value(double ratio) { return ratio > 0 ? Value{ratio} : Value{}; }

// Runs: every column. Calibrations have no variant, ranks or spread: their rows are a link,
// a size and the two times.
Table rows_table(const Comparison& c) {
  Table t{"rows", {}, {}, {}};
  if (c.calibrations) {
    t.columns = {{"link", "link", Unit::kText},       {"bytes", "size", Unit::kBytes},
                 {"run", "run", Unit::kText},         {"baseline_s", "first", Unit::kSeconds},
                 {"time_s", "this", Unit::kSeconds},  {"ratio", "ratio", Unit::kRatio}};
    for (const CompareRow& r : c.rows) {
      t.add_row({r.measurement, r.bytes, c.labels[r.run], r.baseline_s, r.time_s,
                 ratio_value(r.ratio)});
    }
    return t;
  }
  t.columns = {{"measurement", "measurement", Unit::kText},
               {"variant", "variant", Unit::kText},
               {"ranks", "ranks", Unit::kCount},
               {"bytes", "size", Unit::kBytes},
               {"run", "run", Unit::kText},
               {"baseline_s", "first", Unit::kSeconds},
               {"time_s", "this", Unit::kSeconds},
               {"ratio", "ratio", Unit::kRatio},
               {"baseline_min_s", "first min", Unit::kSeconds},
               {"baseline_max_s", "first max", Unit::kSeconds},
               {"min_s", "min", Unit::kSeconds},
               {"max_s", "max", Unit::kSeconds},
               {"verdict", "verdict", Unit::kText}};
  for (const CompareRow& r : c.rows) {
    t.add_row({r.measurement, r.variant.empty() ? Value{} : Value{r.variant},
               r.ranks > 0 ? Value{r.ranks} : Value{}, r.bytes, c.labels[r.run], r.baseline_s,
               r.time_s, ratio_value(r.ratio), optional_value(r.baseline_min_s),
               optional_value(r.baseline_max_s), optional_value(r.min_s),
               optional_value(r.max_s), verdict_name(r.verdict)});
  }
  return t;
}

// A parameter's unit, from the end of its key.
Unit parameter_unit(const std::string& key) {
  if (key.ends_with("_Bps")) return Unit::kRate;
  if (key.ends_with("_s") || key.ends_with("_s_per_byte")) return Unit::kSeconds;
  return Unit::kCount;
}

Table parameters_table(const Comparison& c) {
  Table t{"parameters",
          {{"parameter", "parameter", Unit::kText},
           {"run", "run", Unit::kText},
           {"baseline", "first", Unit::kPlain},
           {"value", "this", Unit::kPlain},
           {"ratio", "ratio", Unit::kRatio}},
          {},
          {}};
  for (const CompareParameter& p : c.parameters) {
    // The table shows each value in its own unit; JSON and CSV keep the SI number, its unit
    // in the parameter's key.
    const Unit unit = parameter_unit(p.key);
    t.add_row({p.key, c.labels[p.run], format_cell(p.baseline, unit), format_cell(p.value, unit),
               ratio_value(p.ratio)});
  }
  return t;
}

}  // namespace

Report compare_report(const Comparison& c) {
  Report report;
  report.command = "compare";
  report.kind = c.calibrations ? Kind::kModel : Kind::kMeasurement;
  report.banner = c.calibrations
                      ? "MODEL: message times of calibrated links, side by side"
                      : measurement_banner(fmt::format("{} runs side by side", c.labels.size()));
  report.title = fmt::format("first (baseline): {}; ratio = this / first (below 1: faster)",
                             c.labels.front());
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const std::string& label : c.labels) files.push_back(label);
  report.inputs["files"] = std::move(files);
  report.inputs["inputs_are"] = c.calibrations ? "calibrations" : "runs";
  report.tables.push_back(rows_table(c));
  if (!c.parameters.empty()) report.tables.push_back(parameters_table(c));
  for (std::size_t i = 1; i < c.labels.size(); ++i) {
    const std::string key = c.labels.size() == 2 ? std::string("geomean_ratio")
                                                 : fmt::format("geomean_ratio_{}", i);
    report.add_field(key, fmt::format("geometric mean ratio, {}", c.labels[i]), Unit::kRatio,
                     optional_value(c.geomean_ratio[i]));
  }
  report.add_list("notes", "note", c.notes);
  report.notes.push_back(
      c.calibrations
          ? "Each row is one link's one-way time T(m) = alpha + m / bandwidth (by size "
            "regime) in this calibration and in the first."
          : "Times are medians; a difference is beyond the spread when the two [min, max] "
            "ranges do not overlap (every repetition of one run beat every repetition of the "
            "other).");
  return report;
}

}  // namespace scalewall
