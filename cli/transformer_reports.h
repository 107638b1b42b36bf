// cli/transformer_reports.h: predict and plan on a transformer scenario ([model]): one split's
// breakdown, the best split's scaling curve, and the search of the splits.
//
// Layer: cli/. Includes the public library headers only.
#ifndef SCALEWALL_CLI_TRANSFORMER_REPORTS_H_
#define SCALEWALL_CLI_TRANSFORMER_REPORTS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "scalewall/io/scenario_file.h"
#include "scalewall/present/html_page.h"
#include "scalewall/present/plot.h"
#include "scalewall/present/report.h"

namespace scalewall::cli {

// What predict asks of a transformer scenario: the GPU counts of its curve and a figure.
struct CurveRequest {
  std::string flag;   // the flag that gave `gpus`: "--gpus" or "--ranks"
  std::string gpus;   // a list or a range A..B as written; "" for the default counts
  std::string plot;   // --plot FILE, or ""
};

// predict: with tp, pp and dp fixed, no figure and at most one GPU count asked for (which
// load_scenario made the scenario's), the split's breakdown and memory; otherwise the scaling
// curve (split_curve.h) over the GPU counts asked for, or by default the scenario's: with fixed
// degrees tp pp 2^k up to its GPUs, else powers of two up to them (default_curve_grid).
Report transformer_predict_report(const ScenarioFile& file, const std::string& path,
                                  const CurveRequest& request);

// The default GPU counts of a transformer scenario's curve up to `top`: tp pp 2^k with fixed
// degrees, else 2^k, each that fills whole nodes (or is below one node), and the scenario's
// own GPUs.
std::vector<std::int64_t> default_curve_grid(const TransformerScenario& t, std::int64_t top);

// predict --what-if: "change the decomposition" at `at_text` GPUs (--at; "" for the scenario's):
// the best split beside the baseline, the split predict evaluates at that count (the
// scenario's degrees scaled in data parallelism, the job as training.scaling grows it) where
// its degrees are fixed and tp pp divides the count, else pure data parallelism; and pure
// ZeRO-3, with the gain of each against the baseline.
Report transformer_what_if_report(const ScenarioFile& file, const std::string& path,
                                  const std::string& at_text);

// plan: the best splits for the scenario's GPUs, in rank order, with the best one's breakdown,
// why the runners-up lose, and how pure data parallelism and pure ZeRO-3 compare.
Report transformer_plan_report(const ScenarioFile& file, const std::string& path);

// report: the section of a transformer scenario: the scaling curve up to `top` GPUs (or the
// scenario's, when more) as a figure and a table, the step time by mechanism at each count;
// then the search's table (the best splits with their degrees and keys), the best split's
// breakdown and memory tables, and two figures, the step time by mechanism and the memory per
// GPU by part against the GPU's capacity, of the best splits and of pure data parallelism and
// pure ZeRO-3 where they can run. `draw` renders a figure and returns it for the page; `stem`
// is the section's file stem (its anchor).
using FigureDrawer = std::function<HtmlFigure(const Plot&, std::string caption)>;
HtmlSection transformer_report_section(const ScenarioFile& file, const std::string& path,
                                       const std::string& stem, std::int64_t top,
                                       const FigureDrawer& draw);

}  // namespace scalewall::cli

#endif  // SCALEWALL_CLI_TRANSFORMER_REPORTS_H_
