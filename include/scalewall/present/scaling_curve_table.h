// scalewall/present/scaling_curve_table.h: the scaling curve of a Prediction as a report
// table, one row per rank count with the knee marked, for `predict` and for the HTML page of
// `report`.
#ifndef SCALEWALL_SCALING_CURVE_TABLE_H_
#define SCALEWALL_SCALING_CURVE_TABLE_H_

#include "scalewall/analysis/predict.h"
#include "scalewall/present/report.h"

namespace scalewall {

// The words of the table: the same keys in both, the titles and the knee mark differ.
enum class CurveWords {
  kTerminal,  // short titles for a terminal ("comm", "ckpt"), mark "<-- knee at N ranks"
  kPage,      // full titles for a page ("all-reduce", "checkpoint"), mark "knee at N ranks"
};

// Table "rows": ranks, compute_s, serial_s, communication_s, exposed_communication_s,
// variance_s, checkpoint_s, step_s, speedup, efficiency, binding, algorithm; the first row
// at or above the knee carries the mark.
Table scaling_curve_table(const Prediction& prediction, CurveWords words);

}  // namespace scalewall

#endif  // SCALEWALL_SCALING_CURVE_TABLE_H_
