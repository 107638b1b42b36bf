// scalewall/present/compare_report.h: a Comparison as the Report of `scalewall compare`:
// one table of rows, one per measurement, size and later input (its time beside the first
// input's, the ratio, the two spreads and the verdict), a second table of the calibrations'
// parameters, the geometric mean ratio of each later input as fields, and the notes (inputs
// without spread, points only some inputs have) as a list that every format carries. CSV
// writes the first table: the rows.
#ifndef SCALEWALL_COMPARE_REPORT_H_
#define SCALEWALL_COMPARE_REPORT_H_

#include "scalewall/analysis/compare.h"
#include "scalewall/present/report.h"

namespace scalewall {

Report compare_report(const Comparison& comparison);

}  // namespace scalewall

#endif  // SCALEWALL_COMPARE_REPORT_H_
