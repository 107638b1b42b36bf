// cli/transformer_reports.h: predict and plan on a transformer scenario ([model]): one split's
// breakdown, the best split's scaling curve, and the search of the splits.
//
// Layer: cli/. Includes the public library headers only.
#ifndef SCALEWALL_CLI_TRANSFORMER_REPORTS_H_
#define SCALEWALL_CLI_TRANSFORMER_REPORTS_H_

#include <string>

#include "scalewall/io/scenario_file.h"
#include "scalewall/present/report.h"

namespace scalewall::cli {

// predict: with tp, pp and dp fixed, the split's breakdown and memory; otherwise the best split
// at every GPU count of the sweep (powers of two up to the scenario's GPUs), with the regime of
// the scale-boundary table each count is in. `ranks_text`: predict's --ranks, or "".
Report transformer_predict_report(const ScenarioFile& file, const std::string& path,
                                  const std::string& ranks_text);

// plan: the best splits for the scenario's GPUs, in rank order, with the best one's breakdown,
// why the runners-up lose, and how pure data parallelism and pure ZeRO-3 compare.
Report transformer_plan_report(const ScenarioFile& file, const std::string& path);

}  // namespace scalewall::cli

#endif  // SCALEWALL_CLI_TRANSFORMER_REPORTS_H_
