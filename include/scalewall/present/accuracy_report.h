// scalewall/present/accuracy_report.h: the report of `scalewall accuracy`: per group of
// published runs (GPU and precision) the count, median, 90th percentile and worst |error| of the
// predicted step time, and the bias; with every run's row on request; the runs not priced, each
// with its reason.
#ifndef SCALEWALL_PRESENT_ACCURACY_REPORT_H_
#define SCALEWALL_PRESENT_ACCURACY_REPORT_H_

#include "scalewall/analysis/published_accuracy.h"
#include "scalewall/present/report.h"

namespace scalewall {

// `rows`: the table of every priced run comes first (the CSV format writes it), then the groups.
Report accuracy_report(const PublishedAccuracy& accuracy, bool rows);

}  // namespace scalewall

#endif  // SCALEWALL_PRESENT_ACCURACY_REPORT_H_
