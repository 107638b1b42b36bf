// cli/transformer_reports.h: predict and plan on a transformer scenario ([model]): one split's
// breakdown, the best split's scaling curve, and the search of the splits.
//
// Layer: cli/. Includes the public library headers only.
#ifndef SCALEWALL_CLI_TRANSFORMER_REPORTS_H_
#define SCALEWALL_CLI_TRANSFORMER_REPORTS_H_

#include <functional>
#include <string>

#include "scalewall/io/scenario_file.h"
#include "scalewall/present/html_page.h"
#include "scalewall/present/plot.h"
#include "scalewall/present/report.h"

namespace scalewall::cli {

// predict: with tp, pp and dp fixed, the split's breakdown and memory; otherwise the best split
// at every GPU count of the sweep (powers of two up to the scenario's GPUs), with the regime of
// the scale-boundary table each count is in. `ranks_text`: predict's --ranks, or "".
Report transformer_predict_report(const ScenarioFile& file, const std::string& path,
                                  const std::string& ranks_text);

// predict --what-if: "change the decomposition" at `at_text` GPUs (--at; "" for the scenario's):
// the best split beside the scenario's own split (degrees fixed) or pure data parallelism, and
// pure ZeRO-3, with the gain of each against the baseline.
Report transformer_what_if_report(const ScenarioFile& file, const std::string& path,
                                  const std::string& at_text);

// plan: the best splits for the scenario's GPUs, in rank order, with the best one's breakdown,
// why the runners-up lose, and how pure data parallelism and pure ZeRO-3 compare.
Report transformer_plan_report(const ScenarioFile& file, const std::string& path);

// report: the section of a transformer scenario: the search's table (the best splits with their
// degrees and keys), the best split's breakdown and memory tables, and two figures, the step
// time by mechanism and the memory per GPU by part against the GPU's capacity, of the best
// splits and of pure data parallelism and pure ZeRO-3 where they can run. `draw` renders a
// figure and returns it for the page; `stem` is the section's file stem (its anchor).
using FigureDrawer = std::function<HtmlFigure(const Plot&, std::string caption)>;
HtmlSection transformer_report_section(const ScenarioFile& file, const std::string& path,
                                       const std::string& stem, const FigureDrawer& draw);

}  // namespace scalewall::cli

#endif  // SCALEWALL_CLI_TRANSFORMER_REPORTS_H_
