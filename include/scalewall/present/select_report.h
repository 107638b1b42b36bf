// scalewall/present/select_report.h: a SelectionStudy as the Report of `scalewall select`,
// shaped for its format: JSON nests the rows (winners, switches, the library's picks with
// their rules), CSV has one line per cell, the table format draws the map with a two-letter
// code per cell, the switches, and the library's map with its counts.
#ifndef SCALEWALL_SELECT_REPORT_H_
#define SCALEWALL_SELECT_REPORT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "scalewall/analysis/select_compare.h"
#include "scalewall/present/report.h"

namespace scalewall {

// Two- to four-letter codes for the map cells: "RG" ring, "RD" recursive doubling, "H-RG"
// hierarchical over a ring, ...
std::string algorithm_code(AlgorithmSpec spec);

// A column title for a size: "64", "4Ki", "16Mi", "1Gi" (binary multiples), else the number.
std::string size_label(double bytes);

// What the report says of the call beyond the study.
struct SelectionCall {
  std::int64_t step = 4;                 // the factor between neighbouring sizes
  std::string network;                   // the network in one line, for the title
  nlohmann::ordered_json fabric_inputs;  // the fabric as JSON inputs, when on a fabric
};

Report selection_report(const SelectionStudy& study, Format format, const SelectionCall& call);

}  // namespace scalewall

#endif  // SCALEWALL_SELECT_REPORT_H_
