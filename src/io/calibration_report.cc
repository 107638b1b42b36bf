// calibrate's JSON report read back as a fabric; see scalewall/io/calibration_report.h.
#include "scalewall/io/calibration_report.h"

#include <fmt/format.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "scalewall/base/error.h"
#include "scalewall/model/link.h"
#include "fabric_ranges.h"
#include "json_input.h"

namespace scalewall {
namespace {

using Json = nlohmann::json;

double number_field(const Json& object, const char* key, const std::string& place) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) {
    throw InputError(fmt::format("{}: field \"{}\" must be a number, not {}", place, key,
                                 it == object.end() ? std::string("missing")
                                                    : json_type_words(*it)));
  }
  return it->get<double>();
}

// The number field `key` of `object`, refused outside `range` (fabric_ranges.h) with the
// field, its value and the range.
double figure_field(const Json& object, const char* key, const std::string& place,
                    const ValueRange& range) {
  const double value = number_field(object, key, place);
  if (!in_range(value, range)) {
    throw InputError(fmt::format("{}: field \"{}\": {} is outside the range {}", place, key,
                                 json_shown(object.at(key)), range_text(range)));
  }
  return value;
}

// The top-level alpha and bandwidth: one regime over every size. Checked whether or not a
// regimes table follows, which then prices the link.
LinkRegime top_level_regime(const Json& report, const std::string& source, bool required) {
  LinkRegime r;
  for (const auto& [key, range, value] :
       {std::tuple{"alpha_s", kFabricLatency, &r.alpha_s},
        std::tuple{"bandwidth_Bps", kFabricRate, &r.bandwidth_Bps}}) {
    const auto it = report.find(key);
    if (required || (it != report.end() && !it->is_null())) {
      *value = figure_field(report, key, source, range);
    }
  }
  return r;
}

const Json* rows(const Json& report, const char* key, const std::string& source) {
  const auto it = report.find(key);
  if (it == report.end() || it->is_null()) return nullptr;
  if (!it->is_array()) {
    throw InputError(fmt::format("{}: field \"{}\" must be an array of rows, not {}", source,
                                 key, json_type_words(*it)));
  }
  return &*it;
}

Link report_link(const Json& report, const std::string& source) {
  const Json* table = rows(report, "regimes", source);
  const LinkRegime single = top_level_regime(report, source, table == nullptr || table->empty());
  std::vector<LinkRegime> regimes;
  if (table != nullptr) {
    for (std::size_t i = 0; i < table->size(); ++i) {
      const std::string place = fmt::format("{}: regimes[{}]", source, i);
      const Json& row = (*table)[i];
      if (!row.is_object()) throw InputError(place + ": not an object");
      LinkRegime r;
      r.from_bytes = figure_field(row, "from_bytes", place, kFabricSize);
      r.alpha_s = figure_field(row, "alpha_s", place, kFabricLatency);
      r.bandwidth_Bps = figure_field(row, "bandwidth_Bps", place, kFabricRate);
      regimes.push_back(r);
    }
  }
  if (regimes.empty()) regimes.push_back(single);
  try {
    return piecewise_link(regimes);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", source, e.what()));
  }
}

// A local rate (gamma, the copy cost, the allocation cost): the top-level figure, then its
// regimes table if any.
// The table's first row is the rate from 0 B (the fabric's own, as calibrate --out writes it;
// the top-level figure is one rate over every size); the others start higher.
void read_rate(const Json& report, const char* key, const char* table_key, const char* row_key,
               const std::string& source_name, double& first, ReductionRegimes& above) {
  const auto it = report.find(key);
  if (it != report.end() && !it->is_null()) {
    first = figure_field(report, key, source_name, kFabricSecondsPerByte);
  }
  const Json* table = rows(report, table_key, source_name);
  if (table == nullptr) return;
  if (!table->empty()) {
    const std::string place = fmt::format("{}: {}[0]", source_name, table_key);
    if (!(*table)[0].is_object()) throw InputError(place + ": not an object");
    first = figure_field((*table)[0], row_key, place, kFabricSecondsPerByte);
  }
  for (std::size_t i = 1; i < table->size() && i < kMaxLinkRegimes; ++i) {
    const std::string place = fmt::format("{}: {}[{}]", source_name, table_key, i);
    const Json& row = (*table)[i];
    if (!row.is_object()) throw InputError(place + ": not an object");
    ReductionRegime& r = above.above[above.count++];
    r.from_bytes = figure_field(row, "from_bytes", place, kFabricSize);
    r.gamma_s_per_byte = figure_field(row, row_key, place, kFabricSecondsPerByte);
  }
}

}  // namespace

bool is_calibration_report(std::string_view text, const std::string& source_name) {
  const Json j = probe_json_input(text, source_name);
  if (!j.is_object()) return false;
  const auto tool = j.find("tool");
  const auto command = j.find("command");
  return tool != j.end() && *tool == "scalewall" && command != j.end() &&
         *command == "calibrate";
}

Topology parse_calibration_report(std::string_view text, const std::string& source_name) {
  const Json report = parse_json_input(text, source_name);
  if (!report.is_object()) {
    throw InputError(fmt::format("{}: not a calibrate report (expected a JSON object)",
                                 source_name));
  }
  Topology fabric = flat_topology(2, report_link(report, source_name));
  fabric.name = optional_json_string(report, "name", "calibrated", source_name);
  fabric.nominal = false;
  read_rate(report, "gamma_s_per_byte", "reduction_regimes", "gamma_s_per_byte", source_name,
            fabric.gamma_s_per_byte, fabric.gamma_above);
  read_rate(report, "copy_s_per_byte", "copy_regimes", "s_per_byte", source_name,
            fabric.copy.s_per_byte, fabric.copy.above);
  read_rate(report, "alloc_s_per_byte", "alloc_regimes", "s_per_byte", source_name,
            fabric.alloc.s_per_byte, fabric.alloc.above);
  read_rate(report, "sent_reduction_s_per_byte", "sent_reduction_regimes", "s_per_byte",
            source_name, fabric.sent_reduction.s_per_byte, fabric.sent_reduction.above);
  read_rate(report, "sent_exchange_s_per_byte", "sent_exchange_regimes", "s_per_byte",
            source_name, fabric.sent_exchange.s_per_byte, fabric.sent_exchange.above);
  if (const auto min = report.find("local_min_bytes"); min != report.end() && !min->is_null()) {
    fabric.local_min_bytes = figure_field(report, "local_min_bytes", source_name, kFabricSize);
  }
  if (const auto ranks = report.find("working_set_ranks");
      ranks != report.end() && !ranks->is_null()) {
    const double n = number_field(report, "working_set_ranks", source_name);
    if (!(n >= 0) || n != std::floor(n) || n > 1e12) {
      throw InputError(fmt::format("{}: working_set_ranks {} is not a rank count", source_name,
                                   n));
    }
    fabric.working_set_ranks = static_cast<std::int64_t>(n);
  }
  return fabric;
}

}  // namespace scalewall
