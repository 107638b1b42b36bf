// predict and plan on a transformer scenario; see cli/transformer_reports.h.
#include "cli/transformer_reports.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "cli/common.h"
#include "cli/flags.h"
#include "cli/scenario_flags.h"
#include "scalewall/analysis/split_curve.h"
#include "scalewall/analysis/split_search.h"
#include "scalewall/analysis/time_to_train.h"
#include "scalewall/analysis/predict.h"
#include "scalewall/base/units.h"
#include "scalewall/model/scaling.h"
#include "scalewall/platform/gnuplot.h"
#include "scalewall/present/prediction_tables.h"
#include "scalewall/present/split_plots.h"
#include "scalewall/present/split_tables.h"
#include "scalewall/present/train_tables.h"

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

// "llama3.1-70b-h100: 70.6B parameters on h100-sxm GPUs (bf16), fabric ...": the job without
// a GPU count, for a report of another count than the scenario's or of several.
std::string model_words(const ScenarioFile& file) {
  const TransformerScenario& t = *file.transformer;
  return fmt::format("{}: {:.3g}B parameters on {} GPUs ({}), {}", file.scenario.name,
                     model_parameters(t.job.model) / 1e9, t.job.gpu.name,
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

// Whether the scenario says anything of the run beside its step: training.tokens,
// system.gpu_hour_cost, [checkpoint], [failures], a bad node or a bad link.
bool describes_run(const TransformerScenario& t) {
  return t.run.any() || t.job.bad_node_slowdown > 1.0 || t.job.bad_link_bandwidth_Bps > 0;
}

// The run of `step` (time_to_train.h) where the scenario describes one; nothing otherwise.
void add_run(Report& report, const TransformerScenario& t, const SplitStep& step) {
  if (!describes_run(t)) return;
  add_time_to_train(report, time_to_train(t.job, t.run, step));
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
  add_run(report, t, step);
  add_model_notes(report);
  return report;
}

SplitCurveSetup curve_setup(const TransformerScenario& t) {
  return {t.job, t.parallel, t.gpus, t.scaling};
}

// "STRONG scaling over 64 to 2048 GPUs (6 counts): the global batch is fixed at 512
// sequences; llama3.1-70b-h100: 70.6B parameters on h100-sxm GPUs (bf16), fabric ...".
std::string curve_title(const ScenarioFile& file, const std::vector<std::int64_t>& grid) {
  const TransformerScenario& t = *file.transformer;
  const std::string counts =
      grid.size() == 1 ? fmt::format("{} GPUs", grid.front())
                       : fmt::format("{} to {} GPUs ({} counts)", grid.front(), grid.back(),
                                     grid.size());
  const std::int64_t b = t.job.training.global_batch;
  const std::string batch =
      t.scaling == ScalingMode::kStrong
          ? fmt::format("the global batch is fixed at {} sequences", b)
          : fmt::format("the batch per data-parallel rank is fixed: the global batch is {} at "
                        "the scenario's {} GPUs and grows with N",
                        b, t.gpus);
  return fmt::format("{} scaling over {}: {}; {}",
                     t.scaling == ScalingMode::kStrong ? "STRONG" : "WEAK", counts, batch,
                     model_words(file));
}

// "the scenario's, scaled in data parallelism: tp 4, pp 8, dp = N / 32" or "the best at each
// count".
std::string split_choice_text(const SplitConstraints& c) {
  if (!c.degrees_fixed()) return "the best at each count (plan's search, dp open)";
  return fmt::format("the scenario's, scaled in data parallelism: tp {}, pp {}, dp = N / {}, "
                     "its other choices as predict takes them",
                     *c.tp, *c.pp, *c.tp * *c.pp);
}

// The lost time of `step` by mechanism: "pipeline bubble 1.35 s (86%), latency ...".
std::string lost_text(const SplitStep& step) {
  const SplitLoss lost = lost_time(step);
  const double total = lost.total();
  const auto share = [&](double part) {
    return total > 0 ? fmt::format("{} ({})", format_seconds(part), format_percent(part / total))
                     : format_seconds(part);
  };
  return fmt::format("pipeline bubble {}, latency {}, bandwidth {}, variance {}, serial {}",
                     share(lost.bubble_s), share(lost.latency_s), share(lost.bandwidth_s),
                     share(lost.variance_s), share(lost.serial_s));
}

// The fields under the curve: its scaling, the split at each count, the base, the knee, what
// binds at the largest count that fits and what it loses, and the cliffs.
void add_curve_fields(Report& report, const SplitCurve& curve, const SplitConstraints& c) {
  report.add_field("scaling", "scaling", Unit::kText, std::string(scaling_mode_name(curve.mode)));
  report.add_field("split_at_each_count", "split at each count", Unit::kText,
                   split_choice_text(c));
  report.add_field("base_gpus", "speedup and efficiency against", Unit::kCount,
                   curve.base_gpus ? Value{*curve.base_gpus} : Value{}, "no count fits");
  const SplitCurveRow* last = nullptr;
  for (const SplitCurveRow& row : curve.rows) {
    if (row.fits()) last = &row;
  }
  report.add_field("knee_gpus", "knee (exposed comm = compute)", Unit::kCount,
                   curve.knee_gpus ? Value{*curve.knee_gpus} : Value{},
                   last ? fmt::format("not reached up to {} GPUs", last->gpus)
                        : std::string("no count fits"));
  if (last != nullptr) {
    report.add_field("binding_at_max", fmt::format("binding at {} GPUs", last->gpus), Unit::kText,
                     std::string(split_binding_name(last->step->binding)));
    report.add_field("lost_at_max",
                     fmt::format("lost at {} GPUs ({} of {})", last->gpus,
                                 format_seconds(lost_time(*last->step).total()),
                                 format_seconds(last->step->step_s)),
                     Unit::kText, lost_text(*last->step));
  }
  report.add_list("cliffs", "cliff", split_cliff_lines(curve));
  report.extra["cliff_rows"] = cliffs_json(curve.cliffs);
}

void add_curve_notes(Report& report) {
  report.notes.push_back(
      "speedup and efficiency are against N0, the smallest count whose split fits: speedup = "
      "step(N0) / step(N) under strong scaling, tokens/s(N) / tokens/s(N0) under weak; "
      "efficiency = speedup x N0 / N, the throughput per GPU against N0's.");
  report.notes.push_back(
      "knee: where exposed communication (tp, cp and ep comm, pp transfer, dp comm) first "
      "reaches the "
      "compute (with recomputation), at a count that is no cliff (seed section 5.1); a cliff is "
      "a count less efficient than the next regular count. lost: the time lost against pure "
      "compute by the mechanisms the binding weighs.");
}

// Runs the curve of `grid`; refuses it when no count can run a split.
SplitCurve run_curve(const TransformerScenario& t, const std::vector<std::int64_t>& grid,
                     const std::string& blame) {
  SplitCurve curve = with_blame(blame, [&] { return split_curve(curve_setup(t), grid); });
  const bool any = std::any_of(curve.rows.begin(), curve.rows.end(),
                               [](const SplitCurveRow& r) { return r.step.has_value(); });
  if (!any) {
    const SplitCurveRow& first = curve.rows.front();
    throw InputError(fmt::format(
        "{}: no split runs at any of the {} GPU count{} ({} to {}); at {} GPUs: {}", blame,
        grid.size(), grid.size() == 1 ? "" : "s", grid.front(), grid.back(), first.gpus,
        first.why));
  }
  return curve;
}

Report curve_report(const ScenarioFile& file, const std::string& path,
                    const CurveRequest& request) {
  const TransformerScenario& t = *file.transformer;
  const std::vector<std::int64_t> grid = request.gpus.empty()
                                             ? default_curve_grid(t, t.gpus)
                                             : flag_rank_range(request.flag, request.gpus);
  const Progress progress("predict");
  progress.say(fmt::format("evaluating the splits at {} GPU counts", grid.size()));
  const SplitCurve curve = run_curve(t, grid, request.gpus.empty() ? path : request.flag);
  if (!request.plot.empty()) {
    with_output_flag("--plot", [&] {
      RenderOptions options;
      options.inputs = {path};
      return render_plot(
          split_curve_plot(curve, file.scenario.name, file.network_description), request.plot,
          options);
    });
  }
  Report report = base_report("predict", file, path);
  report.title = curve_title(file, grid);
  report.inputs["gpus"] = grid;
  report.tables.push_back(split_curve_table(curve, TableWords::kTerminal));
  add_curve_fields(report, curve, t.parallel);
  add_curve_notes(report);
  add_model_notes(report);
  return report;
}

}  // namespace

std::vector<std::int64_t> default_curve_grid(const TransformerScenario& t, std::int64_t top) {
  const SplitConstraints& c = t.parallel;
  const std::int64_t first = c.degrees_fixed() ? *c.tp * *c.pp : 1;
  const std::int64_t g = t.job.fabric.ranks_per_node;
  std::vector<std::int64_t> grid;
  for (std::int64_t n = first; n <= top; n *= 2) {
    if (n < g || n % g == 0) grid.push_back(n);
    if (n > top / 2) break;
  }
  grid.push_back(t.gpus);
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  return grid;
}

Report transformer_predict_report(const ScenarioFile& file, const std::string& path,
                                  const CurveRequest& request) {
  // One count is the scenario at that count (load_scenario made it system.gpus).
  const bool one_count = request.gpus.find_first_of(",.") == std::string::npos;
  if (file.transformer->parallel.degrees_fixed() && one_count && request.plot.empty()) {
    return split_report(file, path);
  }
  return curve_report(file, path, request);
}

Report transformer_what_if_report(const ScenarioFile& file, const std::string& path,
                                  const std::string& at_text) {
  const TransformerScenario& t = *file.transformer;
  const std::int64_t gpus = at_text.empty() ? t.gpus : flag_count("--at", at_text, 1, kMaxRanks);
  // The job and the degrees at that count as predict's curve has them: its baseline is the
  // split predict evaluates there.
  const CountSetup at = setup_at(curve_setup(t), gpus);
  if (!at.batch_whole) throw InputError(fmt::format("--at: {}", at.why));
  const Decomposition d =
      change_decomposition(at.job, gpus, at.why.empty() ? at.constraints : t.parallel);
  Report report = base_report("predict", file, path);
  report.title = fmt::format("What changing the decomposition buys at {} GPUs of {}", gpus,
                             model_words(file));
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
  add_run(report, t, best);
  report.add_field("evaluated", "splits evaluated", Unit::kCount, search.evaluated);
  report.add_field("fitting", "splits that fit", Unit::kCount, search.fitting);
  report.add_list("runners_up", "runner-up", runner_up_lines(search));
  // Where the search tried several context-parallel degrees, the best split at each.
  if (std::vector<std::string> cp = cp_choice_lines(search); !cp.empty()) {
    report.add_list("cp_choices", "cp", std::move(cp));
  }
  // Where it tried several expert-parallel degrees (a mixture of experts), the best at each.
  if (std::vector<std::string> ep = ep_choice_lines(search); !ep.empty()) {
    report.add_list("ep_choices", "ep", std::move(ep));
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

namespace {

// The curve's part of report's section: the curve and the step by mechanism at each count
// that fits, as figures, and the curve's table; a paragraph when no count fits.
void add_curve_blocks(const ScenarioFile& file, const std::string& path, std::int64_t top,
                      const FigureDrawer& draw, std::vector<HtmlBlock>& blocks) {
  const TransformerScenario& t = *file.transformer;
  const std::vector<std::int64_t> grid = default_curve_grid(t, std::max(top, t.gpus));
  const SplitCurve curve = run_curve(t, grid, path);
  const std::string network = file.network_description;
  const std::string title = curve_title(file, grid);
  if (!curve.base_gpus) {
    blocks.push_back(HtmlParagraph{fmt::format("{}: no count's split fits.", title)});
  } else {
    blocks.push_back(draw(split_curve_plot(curve, file.scenario.name, network),
                          "Speedup and efficiency against GPUs, each against the smallest count "
                          "whose split fits, with the ideal line and the knee."));
    std::vector<SplitStep> bars;
    std::vector<std::string> labels;
    for (const SplitCurveRow& row : curve.rows) {
      if (!row.fits()) continue;
      bars.push_back(*row.step);
      labels.push_back(fmt::format("{} GPUs (tp {} pp {} dp {})", row.gpus, row.step->split.tp,
                                   row.step->split.pp, row.step->split.dp));
    }
    Plot steps = split_breakdown_plot(bars, file.scenario.name, network, labels);
    steps.name = "curve-breakdown";
    steps.title = fmt::format("MODEL: step time by mechanism at each GPU count of {}",
                              file.scenario.name);
    blocks.push_back(draw(steps, "The step time at each GPU count of the curve by mechanism, "
                                 "in seconds; the label over a bar is its step time."));
  }
  blocks.push_back(HtmlTable{title, split_curve_table(curve, TableWords::kPage)});
}

}  // namespace

HtmlSection transformer_report_section(const ScenarioFile& file, const std::string& path,
                                       const std::string& stem, std::int64_t top,
                                       const FigureDrawer& draw) {
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
  add_curve_blocks(file, path, top, draw, section.blocks);
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
