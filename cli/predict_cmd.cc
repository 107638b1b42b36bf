// scalewall predict: the scaling curve of a data-parallel job, its knee and the mechanism
// that bends it; with --what-if, what each remedy buys at one rank count (seed D01 sections
// 2.4, 2.5, 5; the collective-cost note).
#include <fmt/format.h>

#include <memory>

#include "cli/common.h"
#include "cli/scenario_flags.h"
#include "cli/transformer_reports.h"
#include "scalewall/platform/gnuplot.h"
#include "scalewall/present/plot.h"
#include "scalewall/present/prediction_tables.h"
#include "scalewall/present/record_names.h"
#include "scalewall/analysis/predict.h"
#include "scalewall/model/scaling.h"
#include "scalewall/base/units.h"

namespace scalewall::cli {
namespace {

struct PredictFlags {
  ScenarioFlags scenario;
  std::string ranks;
  std::string max_ranks;
  std::string target_efficiency = "0.5";
  bool what_if = false;
  std::string at;
  std::string plot;
  std::string format = "table";
};

std::string mode_banner(ScalingMode mode) {
  return mode == ScalingMode::kStrong
             ? "STRONG scaling: the global batch is fixed, per-rank compute falls as 1/N"
             : "WEAK scaling: the per-rank batch is fixed, the problem grows with N";
}

// The scenario flags, --gpus described as predict takes it.
FlagGroup predict_scenario_flags(ScenarioFlags* flags) {
  FlagGroup group = scenario_flags(flags);
  for (FlagSpec& f : group) {
    if (f.names != "--gpus") continue;
    f.help = "Transformer scenarios: the GPU counts of the scaling curve, a list (64,128,512) "
             "or a range A..B (--ranks is another name)";
    f.type_name = "LIST";
  }
  return group;
}

// The most rows a --ranks list may ask for (a range of powers of two holds at most 41).
constexpr std::size_t kMaxPredictRows = 1024;

Value optional_count(const std::optional<std::int64_t>& v) { return v ? Value{*v} : Value{}; }

Report predict_report(const PredictFlags& flags, const ScenarioFile& file) {
  const Scenario& s = file.scenario;
  std::vector<std::int64_t> grid;
  if (!flags.ranks.empty() && !flags.max_ranks.empty()) {
    throw InputError("--ranks and --max-ranks: give one (a list, or the largest of a sweep)");
  }
  if (!flags.ranks.empty()) {
    grid = flag_rank_range("--ranks", flags.ranks);
    if (grid.size() > kMaxPredictRows) {
      throw InputError(fmt::format("--ranks: the list holds {} rank counts; at most {} rows fit "
                                   "a prediction",
                                   grid.size(), kMaxPredictRows));
    }
  } else {
    const std::int64_t max =
        flags.max_ranks.empty() ? 1024 : flag_count("--max-ranks", flags.max_ranks, 1, kMaxRanks);
    grid = with_blame(flags.max_ranks.empty() ? flags.scenario.path : "--max-ranks",
                      [&] { return default_rank_grid(s, max); });
  }
  const double target = flag_fraction("--target-efficiency", flags.target_efficiency);
  const Progress progress("predict");
  progress.say(fmt::format("predicting {} rank counts", grid.size()));
  const Prediction p =
      with_blame(!flags.ranks.empty()       ? "--ranks"
                 : !flags.max_ranks.empty() ? "--max-ranks"
                                            : flags.scenario.path,
                 [&] { return predict(s, grid, target); });
  if (!flags.plot.empty()) {
    with_output_flag("--plot", [&] {
      RenderOptions options;
      options.inputs = {flags.scenario.path};
      return render_plot(scaling_plot(p, s.name, file.network_description), flags.plot,
                         options);
    });
  }

  Report report = model_report("predict");
  report.title = fmt::format("{}; scenario {} on {}", mode_banner(p.mode), s.name,
                             file.network_description);
  report.inputs["scenario"] = flags.scenario.path;
  report.inputs["ranks"] = grid;
  report.inputs["target_efficiency"] = target;
  report.inputs["model"] = scenario_inputs(file);

  report.tables.push_back(scaling_curve_table(p, TableWords::kTerminal));

  const StepTime& last = p.rows.back();
  report.add_field("scaling", "scaling", Unit::kText, std::string(scaling_mode_name(p.mode)));
  report.add_field("selector", "all-reduce priced by", Unit::kText, selector_used_text(file));
  report.add_field("knee_ranks", "knee (exposed comm = compute)", Unit::kCount,
                   optional_count(p.knee_ranks),
                   fmt::format("not reached up to {} ranks", last.ranks));
  report.add_field("target_efficiency", "target efficiency", Unit::kFraction, target);
  report.add_field("max_ranks_at_target", "largest N at target", Unit::kCount,
                   optional_count(p.max_ranks_at_target), "none: below the target from the start");
  report.add_field("best_bucket_bytes", "best bucket (overlap on)", Unit::kBytes,
                   p.best_bucket_bytes);
  report.add_field("binding_at_max", fmt::format("binding at {} ranks", last.ranks), Unit::kText,
                   std::string(mechanism_name(last.binding)));
  report.add_field("scales_well_at_max", fmt::format("scales well at {} ranks", last.ranks),
                   Unit::kText, last.scales_well ? "yes" : "no");
  if (!p.algorithm_spread.empty()) {
    report.add_field("efficiency_by_algorithm_at_max",
                     fmt::format("efficiency by algorithm at {} ranks", last.ranks), Unit::kText,
                     algorithm_spread_text(p));
    report.extra["algorithm_spread"] = algorithm_spread_json(p);
  }
  report.add_list("cliffs", "cliff", cliff_lines(p));
  report.extra["cliff_rows"] = cliffs_json(p.cliffs);
  const LostTime& lost = last.lost;
  const double total_lost = lost.total();
  nlohmann::ordered_json breakdown;
  breakdown["ranks"] = last.ranks;
  breakdown["step_s"] = last.step_s;
  breakdown["ideal_step_s"] = last.ideal_step_s;
  breakdown["lost_s"] = total_lost;
  breakdown["serial_s"] = lost.serial_s;
  breakdown["latency_s"] = lost.latency_s;
  breakdown["bandwidth_s"] = lost.bandwidth_s;
  breakdown["variance_s"] = lost.variance_s;
  breakdown["checkpoint_s"] = lost.checkpoint_s;
  report.extra["lost_time_at_max"] = breakdown;
  const auto share = [&](double part) {
    return total_lost > 0 ? fmt::format("{} ({})", format_seconds(part),
                                        format_percent(part / total_lost))
                          : format_seconds(part);
  };
  report.add_field("lost_breakdown",
                   fmt::format("lost at {} ranks ({} of {})", last.ranks,
                               format_seconds(total_lost), format_seconds(last.step_s)),
                   Unit::kText,
                   fmt::format("serial {}, latency {}, bandwidth {}, variance {}, checkpoint {}",
                               share(lost.serial_s), share(lost.latency_s),
                               share(lost.bandwidth_s), share(lost.variance_s),
                               share(lost.checkpoint_s)));
  report.notes.push_back(
      "efficiency = ideal / predicted step time (strong: T1/(N T(N)); weak: T1/T(N)), T1 the "
      "job's own work on one rank (no communication, variance or checkpoint); binding = the "
      "mechanism losing the most time (compute when nothing is lost); a count at 90% "
      "efficiency or more scales well whatever binds it.");
  report.notes.push_back(
      "knee: where exposed communication first reaches the per-rank compute, at a count that "
      "is no cliff (seed section 5.1); a cliff is a count less efficient than the next power "
      "of two.");
  if (s.network.fabric && s.network.fabric->nominal) {
    report.notes.push_back("The fabric's link figures are nominal, not measured.");
  }
  return report;
}

Report what_if_report(const PredictFlags& flags, const ScenarioFile& file) {
  const Scenario& s = file.scenario;
  std::int64_t ranks = 0;
  if (!flags.at.empty()) {
    ranks = flag_count("--at", flags.at, 1, kMaxRanks);
  } else if (!flags.ranks.empty()) {
    ranks = flag_rank_range("--ranks", flags.ranks).back();
  } else {
    ranks = flags.max_ranks.empty() ? 1024 : flag_count("--max-ranks", flags.max_ranks, 1, kMaxRanks);
  }
  const WhatIf w = with_flag("--at", [&] { return what_if(s, ranks, file.what_if); });

  Report report = model_report("predict");
  report.title = fmt::format("What each remedy buys at {} ranks; {}; scenario {} on {}", ranks,
                             mode_banner(s.workload.mode), s.name, file.network_description);
  report.inputs["scenario"] = flags.scenario.path;
  report.inputs["what_if_ranks"] = ranks;
  report.inputs["model"] = scenario_inputs(file);

  report.tables.push_back(what_if_table(w, TableWords::kTerminal));
  report.add_field("scaling", "scaling", Unit::kText,
                   std::string(scaling_mode_name(s.workload.mode)));
  report.add_field("ranks", "ranks", Unit::kCount, ranks);
  report.add_field("baseline_step_s", "baseline step", Unit::kSeconds, w.baseline.step.step_s);
  report.add_field("baseline_efficiency", "baseline efficiency", Unit::kFraction,
                   w.baseline.step.efficiency);
  report.add_field("baseline_binding", "baseline binds on", Unit::kText,
                   std::string(mechanism_name(w.baseline.step.binding)));
  const Remedy* first = first_remedy(w);
  report.add_field("top_remedy", "first remedy to try", Unit::kText,
                   first ? Value{first->name} : Value{}, "none gains 1% or more");
  report.add_field("selector", "all-reduce priced by", Unit::kText, selector_used_text(file));
  if (!w.selectors.empty()) {
    report.notes.push_back(
        "selector rows: the baseline priced by NCCL's choice and by the cheapest MPI algorithm, "
        "a comparison of the two models (--selector picks one), not a remedy.");
  }
  report.notes.push_back(
      "gain = baseline time per unit of work / the remedy's (accumulation and a bigger batch do "
      "more work per step); below 1% counts as no gain.");
  if (!w.decomposition.name.empty() && !w.decomposition.applicable) {
    report.notes.push_back(
        "change the decomposition (tensor, pipeline, sharded data parallelism) needs the job as "
        "a transformer scenario: [model] hidden, heads, layers, seq, vocab; [training] "
        "global_batch; [system] gpu, fabric, gpus (examples/gpt3-175b-a100-plan.toml).");
  }
  return report;
}

// predict on a transformer scenario: --gpus (or --ranks) the GPU counts of its curve.
Report transformer_report(const PredictFlags& flags, const ScenarioFile& file) {
  const std::string& gpus = flags.scenario.transformer.gpus;
  if (!flags.max_ranks.empty()) {
    throw InputError("--max-ranks: a transformer scenario takes --gpus A..B (or a list) for the "
                     "GPU counts of its curve");
  }
  if (!gpus.empty() && !flags.ranks.empty()) {
    throw InputError("--gpus and --ranks: give one (on a transformer scenario --ranks is "
                     "another name for --gpus)");
  }
  const std::string& counts = gpus.empty() ? flags.ranks : gpus;
  if (flags.what_if) {
    if (counts.find_first_of(",.") != std::string::npos) {
      throw InputError(fmt::format("{}: --what-if ranks the decomposition at one GPU count (--at "
                                   "N), not a list or a range",
                                   gpus.empty() ? "--ranks" : "--gpus"));
    }
    return transformer_what_if_report(file, flags.scenario.path, flags.at);
  }
  CurveRequest request;
  request.flag = gpus.empty() && !flags.ranks.empty() ? "--ranks" : "--gpus";
  request.gpus = gpus.empty() ? flags.ranks : gpus;
  request.plot = flags.plot;
  return transformer_predict_report(file, flags.scenario.path, request);
}

}  // namespace

void register_predict(CLI::App& app) {
  auto flags = std::make_shared<PredictFlags>();
  const FlagGroup own = {
      {"--ranks,-n", &flags->ranks,
       "Rank counts: a list (8,64,512) or a range A..B: A, the powers of two between, and B "
       "(8..4096); on a transformer scenario, another name for --gpus",
       "LIST"},
      {"--max-ranks", &flags->max_ranks, "Sweep powers of two up to N, plus N (default 1024)",
       "N"},
      {"--target-efficiency", &flags->target_efficiency,
       "Efficiency to hold for the largest-N answer (default 0.5)", "E"},
      {"--what-if", &flags->what_if,
       "Rank the remedies (overlap, buckets, hierarchical, placement, compression, "
       "accumulation, bigger batch, async checkpoint, draining a bad node) at one N"},
      {"--at", &flags->at, "Rank count for --what-if (default: the largest)", "N"},
      {"--plot", &flags->plot,
       "Also draw the scaling curve to FILE (.svg or .png; needs gnuplot)", "FILE", {},
       FlagKind::kFileName},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "predict",
      "Predict a job's scaling curve from a scenario: for a data-parallel job, the step time "
      "split into compute, serial, communication, variance and checkpoint per rank count, "
      "efficiency, the knee, and the mechanism that binds; for a transformer ([model]), the "
      "split at each GPU count (--gpus), its step, throughput, speedup, efficiency, binding "
      "and lost time, and the knee. --what-if ranks the remedies at one rank count.",
      {predict_scenario_flags(&flags->scenario), own},
      "Examples:\n"
      "  scalewall predict examples/seed-7b-bf16.toml --ranks 8,64,512\n"
      "      the seed's worked example: the all-reduce, not the compute, sets the step\n"
      "  scalewall predict examples/bandwidth-bound-1.3b-100gbe.toml --what-if --at 64\n"
      "  scalewall predict examples/dgx-llm-weak.toml --max-ranks 1024 --format json\n"
      "  scalewall predict examples/gpt3-175b-a100.toml\n"
      "      a transformer scenario with a fixed split: its step by mechanism and its memory\n"
      "  scalewall predict examples/llama3.1-70b-h100.toml --gpus 64..2048\n"
      "      its scaling curve: the split scaled in data parallelism at each GPU count"});
  cmd->callback([flags] {
    if (!flags->at.empty() && !flags->what_if) {
      throw InputError("--at: only with --what-if (the rank count the remedies are ranked at)");
    }
    if (!flags->plot.empty()) {
      if (flags->what_if) throw InputError("--plot: draws the scaling curve, not --what-if");
      with_flag("--plot", [&] { return plot_format_for_path(flags->plot); });
    }
    // On a transformer scenario --gpus (or --ranks) gives the curve's GPU counts.
    ScenarioFlags scenario = flags->scenario;
    scenario.ranks_alias = flags->ranks;
    scenario.gpus_curve = true;
    const ScenarioFile file = load_scenario(scenario);
    if (file.transformer) {
      emit(transformer_report(*flags, file), flags->format);
      return;
    }
    emit(flags->what_if ? what_if_report(*flags, file) : predict_report(*flags, file),
         flags->format);
  });
}

}  // namespace scalewall::cli
