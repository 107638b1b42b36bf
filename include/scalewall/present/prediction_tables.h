// scalewall/present/prediction_tables.h: a Prediction's scaling curve and a WhatIf's remedies
// as report tables, for `predict` and for the HTML page of `report`.
#ifndef SCALEWALL_PREDICTION_TABLES_H_
#define SCALEWALL_PREDICTION_TABLES_H_

#include <nlohmann/json.hpp>

#include <span>
#include <string>
#include <vector>

#include "scalewall/analysis/predict.h"
#include "scalewall/present/report.h"

namespace scalewall {

// The words of a table: the same keys in both.
enum class TableWords {
  kTerminal,  // `predict`: short titles ("comm", "ckpt"), marks "<-- knee at N ranks",
              // "<-- first" and "(no gain)"
  kPage,      // the HTML page: full titles ("all-reduce", "checkpoint"), marks "knee at N
              // ranks" and "first to try"
};

// Table "rows": ranks, compute_s, serial_s, communication_s, exposed_communication_s,
// variance_s, checkpoint_s, step_s, speedup, efficiency, binding, algorithm; the first row
// at or above the knee carries the mark.
// A cliff row carries "cliff, not the knee" instead.
Table scaling_curve_table(const Prediction& prediction, TableWords words);

// One line per cliff: "2056 ranks: 10% efficient against 20% at 4096 ranks; ...".
std::vector<std::string> cliff_lines(const Prediction& prediction);
// Cliffs (of either curve) as JSON: [{ranks, efficiency, regular_ranks, regular_efficiency}].
nlohmann::ordered_json cliffs_json(std::span<const Cliff> cliffs);

// "rabenseifner 97% (chosen), double-binary-tree 67%, ring 50%": the efficiency at the
// largest rank count under each algorithm, most efficient first ("" when there is no spread).
std::string algorithm_spread_text(const Prediction& prediction);
// The same as JSON: [{algorithm, step_s, efficiency, chosen}].
nlohmann::ordered_json algorithm_spread_json(const Prediction& prediction);

// Table "remedies": the baseline, then each remedy as ranked: name, applicable, step_s,
// time_per_work_s (terminal only), efficiency, gain, binding, change; the first remedy to try
// (first_remedy, predict.h) marked.
Table what_if_table(const WhatIf& what_if, TableWords words);

}  // namespace scalewall

#endif  // SCALEWALL_PREDICTION_TABLES_H_
