// predict and plan on a transformer scenario; see cli/transformer_reports.h.
#include "cli/transformer_reports.h"

#include <fmt/format.h>

#include <vector>

#include "cli/common.h"
#include "cli/flags.h"
#include "cli/scenario_flags.h"
#include "scalewall/analysis/split_search.h"
#include "scalewall/analysis/predict.h"
#include "scalewall/base/units.h"
#include "scalewall/model/scaling.h"
#include "scalewall/present/split_plots.h"
#include "scalewall/present/split_tables.h"

namespace scalewall::cli {
namespace {

// How many splits plan lists: the best and four runners-up.
constexpr std::size_t kPlanSplits = 5;

std::string job_title(const ScenarioFile& file) {
  const TransformerScenario& t = *file.transformer;
  const std::string active =
      is_moe(t.job.model)
          ? fmt::format(" ({:.3g}B active)", active_parameters(t.job.model) / 1e9)
          : std::string();
  return fmt::format("{}: {:.3g}B parameters{} on {} x {} ({}), {}", file.scenario.name,
                     model_parameters(t.job.model) / 1e9, active, t.gpus, t.job.gpu.name,
                     dtype_name(t.job.training.dtype), file.network_description);
}

Report base_report(const std::string& command, const ScenarioFile& file, const std::string& path) {
  Report report = model_report(command);
  report.inputs["scenario"] = path;
  report.inputs["model"] = transformer_inputs(file);
  return report;
}

void add_model_notes(Report& report) {
  report.notes.push_back(
      "tflops_per_gpu counts the FLOPs executed (forward, backward and recomputation: Narayanan "
      "et al. 2021's convention); mfu counts forward and backward only, against the dtype's "
      "dense peak. Memory per GPU is the pipeline stage's that holds the most, the first (the "
      "most micro-batches in flight) or the last (the logits): its label, and JSON's "
      "memory_stage, say which.");
  report.notes.push_back(
      "binding: the largest part lost against pure compute when it is 10% of the step or more "
      "(serial, latency, bandwidth, variance, pipeline bubble), memory when the split does not "
      "fit, compute otherwise.");
}

Report split_report(const ScenarioFile& file, const std::string& path) {
  const TransformerScenario& t = *file.transformer;
  const ParallelSplit split = t.parallel.defaults(t.job.framework);
  const SplitStep step = evaluate_split(t.job, split);
  if (step.problem != SplitProblem::kNone) {
    throw InputError(fmt::format("{}: the split {} cannot run: {}", path, split_text(split),
                                 split_problem_detail(t.job, split, step.problem)));
  }
  Report report = base_report("predict", file, path);
  report.title = fmt::format("One training step of {}", job_title(file));
  report.tables.push_back(split_breakdown_table(step));
  report.tables.push_back(split_memory_table(step));
  add_split_fields(report, step);
  const ScaleRegime regime = scale_regime(t.gpus);
  report.add_field("regime", "scale regime (seed 3.5)", Unit::kText,
                   fmt::format("{} GPUs: {} binds first", regime.ranks, regime.binds));
  add_model_notes(report);
  return report;
}

std::vector<std::int64_t> curve_grid(const TransformerScenario& t, const std::string& ranks_text) {
  if (!ranks_text.empty()) return flag_rank_range("--ranks", ranks_text);
  std::vector<std::int64_t> grid;
  const std::int64_t g = t.job.fabric.ranks_per_node;
  for (std::int64_t n = 1; n < t.gpus; n *= 2) {
    if (n < g || n % g == 0) grid.push_back(n);
  }
  grid.push_back(t.gpus);
  return grid;
}

Report curve_report(const ScenarioFile& file, const std::string& path,
                    const std::string& ranks_text) {
  const TransformerScenario& t = *file.transformer;
  const std::vector<std::int64_t> grid = curve_grid(t, ranks_text);
  const Progress progress("predict");
  progress.say(fmt::format("searching the splits at {} GPU counts", grid.size()));
  const std::vector<SplitSearch> curve = best_split_curve(t.job, grid, t.parallel);
  Report report = base_report("predict", file, path);
  report.title = fmt::format("The best split at each GPU count of {}", job_title(file));
  report.inputs["gpus"] = grid;
  report.tables.push_back(split_curve_table(curve));
  const SplitSearch& last = curve.back();
  if (!last.ranked.empty()) add_split_fields(report, last.ranked.front());
  report.notes.push_back(
      "Each row is the best split found at that count (plan lists the runners-up); the "
      "regime is seed D01 section 3.5's row for the count.");
  add_model_notes(report);
  return report;
}

}  // namespace

Report transformer_predict_report(const ScenarioFile& file, const std::string& path,
                                  const std::string& ranks_text) {
  if (file.transformer->parallel.degrees_fixed() && ranks_text.empty()) {
    return split_report(file, path);
  }
  return curve_report(file, path, ranks_text);
}

Report transformer_what_if_report(const ScenarioFile& file, const std::string& path,
                                  const std::string& at_text) {
  const TransformerScenario& t = *file.transformer;
  const std::int64_t gpus = at_text.empty() ? t.gpus : flag_count("--at", at_text, 1, kMaxRanks);
  const Decomposition d = change_decomposition(t.job, gpus, t.parallel);
  Report report = base_report("predict", file, path);
  report.title = fmt::format("What changing the decomposition buys at {} GPUs of {}", gpus,
                             job_title(file));
  report.inputs["what_if_gpus"] = gpus;
  report.tables.push_back(decomposition_table(d));
  report.add_field("ranks", "GPUs", Unit::kCount, gpus);
  report.add_field("baseline", "baseline", Unit::kText, d.baseline_name);
  const auto step_of = [](const std::optional<SplitStep>& s) {
    return s && s->fits ? Value{s->step_s} : Value{};
  };
  report.add_field("baseline_step_s", "baseline step", Unit::kSeconds, step_of(d.baseline),
                   d.baseline ? "does not fit" : "cannot run");
  report.add_field("best_step_s", "best split's step", Unit::kSeconds, step_of(d.best),
                   "no split fits");
  report.add_field("gain", "gain of the best split", Unit::kRatio,
                   d.gain ? Value{*d.gain} : Value{},
                   d.best && d.best->fits ? "the baseline cannot run: the best split can"
                                          : "no split fits");
  const bool helps = d.best && d.best->fits &&
                     (!d.gain || *d.gain >= 1.0 + kNegligibleGain);
  report.add_field("top_remedy", "first remedy to try", Unit::kText,
                   helps ? Value{std::string(kChangeDecomposition)} : Value{},
                   "none gains 1% or more");
  if (d.best) add_split_fields(report, *d.best);
  report.notes.push_back(
      "gain = the baseline's step / the row's, both in the split model (the same global batch, "
      "so the same work per step); a split that does not fit cannot run and has no gain.");
  add_model_notes(report);
  return report;
}

Report transformer_plan_report(const ScenarioFile& file, const std::string& path) {
  const TransformerScenario& t = *file.transformer;
  const SplitSearch search = search_splits(t.job, t.gpus, t.parallel, kPlanSplits);
  if (search.ranked.empty()) {
    throw InputError(fmt::format("{}: no split of {} GPUs can run this model: {}", path, t.gpus,
                                 why_no_split(t.job, t.gpus, t.parallel)));
  }
  Report report = base_report("plan", file, path);
  report.title = fmt::format("The best splits of {}", job_title(file));
  report.tables.push_back(splits_table(search));
  const SplitStep& best = search.ranked.front();
  report.tables.push_back(split_breakdown_table(best));
  report.tables.push_back(split_memory_table(best));
  add_split_fields(report, best);
  report.add_field("evaluated", "splits evaluated", Unit::kCount, search.evaluated);
  report.add_field("fitting", "splits that fit", Unit::kCount, search.fitting);
  const ScaleRegime regime = scale_regime(t.gpus);
  report.add_field("regime", "scale regime (seed 3.5)", Unit::kText,
                   fmt::format("{} GPUs: {} binds first", regime.ranks, regime.binds));
  report.add_list("runners_up", "runner-up", runner_up_lines(search));
  // Where the search tried several context-parallel degrees, the best split at each.
  if (std::vector<std::string> cp = cp_choice_lines(search); !cp.empty()) {
    report.add_list("cp_choices", "cp", std::move(cp));
  }
  std::vector<std::string> others;
  for (const NamedSplit& n : pure_alternatives(t.job, t.gpus, t.parallel)) {
    others.push_back(n.best ? alternative_line(n.name, *n.best, best)
                            : fmt::format("{}: cannot run ({})", n.name,
                                          split_problem_text(n.problem)));
  }
  report.add_list("alternatives", "alternative", others);
  if (!best.fits) {
    report.notes.push_back("No split fits in memory: the one listed first lacks the least.");
  }
  add_model_notes(report);
  return report;
}

namespace {

// The bars of report's figures: the best splits ("#1 tp 8 pp 8 dp 16"), then pure data
// parallelism and pure ZeRO-3 when they can run and are not among them.
void add_alternative_bars(const TransformerScenario& t, std::vector<SplitStep>& bars,
                          std::vector<std::string>& labels) {
  for (const NamedSplit& n : pure_alternatives(t.job, t.gpus, t.parallel)) {
    if (!n.best) continue;
    const ParallelSplit& p = n.best->split;
    labels.push_back(fmt::format("{} ({})", n.name, degrees_label(p)));
    bars.push_back(*n.best);
  }
}

}  // namespace

HtmlSection transformer_report_section(const ScenarioFile& file, const std::string& path,
                                       const std::string& stem, const FigureDrawer& draw) {
  const TransformerScenario& t = *file.transformer;
  HtmlSection section;
  section.heading = fmt::format("Scenario {} ({})", file.scenario.name, path);
  section.kind = Kind::kModel;
  section.id = "scenario-" + stem;
  const auto add = [&](HtmlBlock b) { section.blocks.push_back(std::move(b)); };
  if (!file.description.empty()) add(HtmlParagraph{file.description});
  add(HtmlParagraph{fmt::format("{}. Every figure and table in this section is an analytic "
                                "prediction of the split model, not a measurement.",
                                job_title(file))});
  const SplitSearch search = search_splits(t.job, t.gpus, t.parallel, kPlanSplits);
  if (search.ranked.empty()) {
    add(HtmlParagraph{fmt::format("No split of {} GPUs can run this model: {}.", t.gpus,
                                  why_no_split(t.job, t.gpus, t.parallel))});
    return section;
  }
  const SplitStep& best = search.ranked.front();
  std::vector<SplitStep> bars = search.ranked;
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < bars.size(); ++i) {
    labels.push_back(fmt::format("#{} {}", i + 1, degrees_label(bars[i].split)));
  }
  add_alternative_bars(t, bars, labels);
  const std::string network = file.network_description;
  add(draw(split_breakdown_plot(bars, file.scenario.name, network, labels),
           "The step time of each split by mechanism, in seconds: the best splits in rank "
           "order, then the best pure data-parallel and pure ZeRO-3 splits. The label over "
           "a bar is its step time."));
  add(draw(split_memory_plot(bars, file.scenario.name, network, labels),
           "Memory per GPU of each split (its pipeline stage that holds the most, the first or "
           "the last) by part; the dashed line is the GPU's memory. A split above it does not fit and "
           "cannot run, whatever its step time."));
  add(HtmlTable{fmt::format("The best splits of {} GPUs ({} evaluated, {} fit)", t.gpus,
                            search.evaluated, search.fitting),
                splits_table(search)});
  add(HtmlTable{fmt::format("Step time of the best split ({})", split_text(best.split)),
                split_breakdown_table(best)});
  add(HtmlTable{"Memory per GPU of the best split", split_memory_table(best)});
  return section;
}

}  // namespace scalewall::cli
