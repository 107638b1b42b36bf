// scalewall/present/prediction_tables.h: a Prediction's scaling curve and a WhatIf's remedies
// as report tables, for `predict` and for the HTML page of `report`.
#ifndef SCALEWALL_PREDICTION_TABLES_H_
#define SCALEWALL_PREDICTION_TABLES_H_

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
Table scaling_curve_table(const Prediction& prediction, TableWords words);

// Table "remedies": the baseline, then each remedy as ranked: name, applicable, step_s,
// time_per_work_s (terminal only), efficiency, gain, binding, change; the first remedy to try
// (first_remedy, predict.h) marked.
Table what_if_table(const WhatIf& what_if, TableWords words);

}  // namespace scalewall

#endif  // SCALEWALL_PREDICTION_TABLES_H_
