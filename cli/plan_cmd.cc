// scalewall plan: the capacity-planning answer for N ranks in plain language and JSON; and,
// with --observed, which mechanisms could explain an efficiency drop between two rank counts
// (seed D01 sections 5.2, 7 and its interview drill 5).
#include <fmt/format.h>

#include <memory>

#include "cli/common.h"
#include "scalewall/present/prediction_tables.h"
#include "cli/next_measurement.h"
#include "cli/scenario_flags.h"
#include "cli/transformer_reports.h"
#include "scalewall/analysis/efficiency_drop.h"
#include "scalewall/analysis/predict.h"
#include "scalewall/model/scaling.h"
#include "scalewall/base/units.h"

namespace scalewall::cli {
namespace {

struct PlanFlags {
  ScenarioFlags scenario;
  std::string ranks;
  std::string observed;
  std::string format = "table";
};

struct Observation {
  std::int64_t ranks;
  double efficiency;
};

// "128:0.94,1024:61%"
std::vector<Observation> read_observed(const std::string& text) {
  std::vector<Observation> out;
  std::string_view rest = text;
  for (;;) {
    const std::size_t comma = rest.find(',');
    const std::string item(rest.substr(0, comma));
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos) {
      throw InputError(fmt::format(
          "--observed: '{}' is not RANKS:EFFICIENCY (write 128:0.94,1024:61%)", item));
    }
    out.push_back({flag_count("--observed", item.substr(0, colon), 1, kMaxRanks),
                   flag_fraction("--observed", item.substr(colon + 1))});
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (out.size() != 2) {
    throw InputError(fmt::format("--observed: '{}' gives {} observations; give exactly two",
                                 text, out.size()));
  }
  return out;
}

// "1. what: run, then run (purpose)" per stage of the measurement order.
std::vector<std::string> order_lines(const std::vector<OrderedMeasurement>& order) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const OrderedMeasurement& m = order[i];
    NextMeasurement runs;
    runs.runs = m.runs;
    lines.push_back(fmt::format("{}. {}: {}{}{}", i + 1, m.what,
                                m.runs.empty() ? "" : render_next_measurement(runs),
                                m.runs.empty() ? "" : "; ", m.look_at));
  }
  return lines;
}

// "1. overlap ...: cuts bandwidth, latency (can explain this drop); costs: ..." per remedy.
std::vector<std::string> remedy_lines(const std::vector<RankedRemedy>& remedies) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < remedies.size(); ++i) {
    const RankedRemedy& r = remedies[i];
    std::string cuts;
    for (const Mechanism m : r.addresses) {
      cuts += (cuts.empty() ? "" : ", ") + std::string(mechanism_name(m));
    }
    lines.push_back(fmt::format("{}. {}: cuts {}{}; costs: {}", i + 1, r.remedy, cuts,
                                r.addresses_a_fit ? " (a mechanism that fits this drop)" : "",
                                r.cost));
  }
  return lines;
}

Report observed_report(const PlanFlags& flags) {
  const std::vector<Observation> obs = read_observed(flags.observed);
  const EfficiencyDropAnswer answer = with_flag("--observed", [&] {
    return answer_efficiency_drop(obs[0].ranks, obs[0].efficiency, obs[1].ranks,
                                  obs[1].efficiency);
  });
  Report report = model_report("plan");
  report.title = fmt::format(
      "Efficiency {} at {} ranks and {} at {}, same problem: which mechanisms could "
      "explain the drop",
      format_percent(obs[0].efficiency), obs[0].ranks, format_percent(obs[1].efficiency),
      obs[1].ranks);
  nlohmann::ordered_json o = nlohmann::ordered_json::array();
  for (const Observation& x : obs) o.push_back({{"ranks", x.ranks}, {"efficiency", x.efficiency}});
  report.inputs["observed"] = o;
  Table table{"explanations",
              {{"mechanism", "mechanism", Unit::kText},
               {"shape", "cost grows as", Unit::kText},
               {"can_explain", "fits", Unit::kText},
               {"implied", "implied", Unit::kText},
               {"measurement", "measurement that tells it apart", Unit::kText}},
              {},
              {}};
  std::string fitting;
  for (const Explanation& e : answer.explanations) {
    table.add_row({std::string(mechanism_name(e.mechanism)), e.shape, e.can_explain,
                   e.can_explain ? e.implied : std::string("-"),
                   render_next_measurement(e.measurement, PurposeStyle::kColon)});
    if (e.can_explain) {
      const std::string name(mechanism_name(e.mechanism));
      if (fitting.find(name) == std::string::npos) fitting += (fitting.empty() ? "" : ", ") + name;
    }
  }
  report.tables.push_back(std::move(table));
  report.add_field("mechanisms_that_fit", "mechanisms that fit", Unit::kText, fitting,
                   "none of the simple shapes fits both points");
  report.add_field("next_measurement", "run next", Unit::kText,
                   render_next_measurement(answer.next_measurement));
  // Lists reach every format (table and CSV as "# label: item" lines, JSON as arrays).
  report.add_list("measurement_order", "measure", order_lines(answer.order));
  report.add_list("intra_vs_inter_node", "intra- vs inter-node", {answer.asymmetry});
  report.add_list("remedies", "remedy", remedy_lines(answer.remedies));
  report.notes.push_back(
      "Two points fit any two-parameter shape: the fit says what could explain the drop, not "
      "what does. Measure in the order above: the step split first, then the collective alone "
      "and its variance, then the per-rank distribution, then placement.");
  return report;
}

Report plan_report(const PlanFlags& flags) {
  ScenarioFile file = load_scenario(flags.scenario);
  if (file.transformer) {
    if (!flags.ranks.empty()) {
      file.transformer->gpus = flag_count("--ranks", flags.ranks, 1, kMaxRanks);
      const SplitConstraints& c = file.transformer->parallel;
      const std::int64_t cp = c.cp.value_or(1);
      if (c.degrees_fixed() && *c.tp * cp * *c.pp * *c.dp != file.transformer->gpus) {
        throw InputError(fmt::format("--ranks: {} GPUs is not the scenario's {} = {}",
                                     file.transformer->gpus,
                                     cp == 1 ? "tp x pp x dp" : "tp x cp x pp x dp",
                                     *c.tp * cp * *c.pp * *c.dp));
      }
    }
    return transformer_plan_report(file, flags.scenario.path);
  }
  const Scenario& s = file.scenario;
  if (flags.ranks.empty()) throw InputError("--ranks is required with a scenario");
  if (flags.ranks.find_first_of(",.") != std::string::npos) {
    throw InputError(fmt::format(
        "--ranks: plan answers for one rank count, and '{}' is a list or a range; give one "
        "count (predict --ranks {} gives the curve over several)",
        flags.ranks, flags.ranks));
  }
  const std::int64_t n = flag_count("--ranks", flags.ranks, 1, kMaxRanks);
  const Plan p = with_flag("--ranks", [&] { return plan(s, n); });
  const StepTime& at = p.at;

  Report report = model_report("plan");
  report.title = fmt::format("Capacity plan for {} ranks; scenario {} on {}", n, s.name,
                             file.network_description);
  report.inputs["scenario"] = flags.scenario.path;
  report.inputs["ranks"] = n;
  report.inputs["model"] = scenario_inputs(file);

  const std::string mode(scaling_mode_name(p.mode));
  report.add_field("scaling", "scaling", Unit::kText, mode);
  report.add_field("selector", "all-reduce priced by", Unit::kText, selector_used_text(file));
  report.add_field("ranks", "ranks", Unit::kCount, n);
  report.add_field("step_s", "step time", Unit::kSeconds, at.step_s);
  report.add_field("efficiency", "efficiency", Unit::kFraction, at.efficiency);
  report.add_field("speedup", "speedup", Unit::kRatio, at.speedup);
  report.add_field("knee_ranks", "knee", Unit::kCount,
                   p.knee_ranks ? Value{*p.knee_ranks} : Value{},
                   fmt::format("not reached up to {} ranks", n));
  report.add_field("binding", "binding mechanism", Unit::kText,
                   std::string(mechanism_name(at.binding)));
  report.add_field("scales_well", "scales well (90% or more)", Unit::kText,
                   at.scales_well ? "yes" : "no");
  if (!p.curve.algorithm_spread.empty()) {
    report.add_field("efficiency_by_algorithm", fmt::format("efficiency by algorithm at {}", n),
                     Unit::kText, algorithm_spread_text(p.curve));
    report.extra["algorithm_spread"] = algorithm_spread_json(p.curve);
  }
  const std::string confirm =
      render_next_measurement(p.confirm_measurement, PurposeStyle::kSpacedParenthesised);
  report.add_field("confirm_measurement", "measurement to confirm it", Unit::kText, confirm);
  report.add_field("ranks_at_90pct_best", "ranks for 90% of best throughput", Unit::kCount,
                   p.ranks_at_90pct_best);
  report.add_field("best_throughput_work_per_s", "best throughput (work/s)", Unit::kPlain,
                   p.best_throughput);
  report.add_field("idle_accelerator_hours_per_1000_steps",
                   fmt::format("idle accelerator-hours per 1000 steps at {} ranks", n),
                   Unit::kPlain, p.idle_hours_per_1000_steps);
  // At the 90%-of-best count: a line of its own only when that count is not the one planned
  // (the same count would print the same line twice); JSON always carries the key.
  const bool same_count = p.ranks_at_90pct_best == n;
  if (same_count) {
    report.extra["idle_accelerator_hours_per_1000_steps_at_90pct"] =
        p.idle_hours_per_1000_steps_at_90pct;
  } else {
    report.add_field("idle_accelerator_hours_per_1000_steps_at_90pct",
                     fmt::format("idle accelerator-hours per 1000 steps at {} ranks (90% of "
                                 "best)",
                                 p.ranks_at_90pct_best),
                     Unit::kPlain, p.idle_hours_per_1000_steps_at_90pct);
  }

  std::vector<std::string> summary;
  summary.push_back(fmt::format(
      "This is {} scaling: {}.", mode,
      p.mode == ScalingMode::kStrong ? "the global batch is fixed and each rank's share shrinks"
                                     : "each rank keeps its batch and the problem grows"));
  summary.push_back(fmt::format(
      "At {} ranks the model predicts {} efficiency (a step of {}, speedup {:.4g}x).", n,
      format_percent(at.efficiency), format_seconds(at.step_s), at.speedup));
  summary.push_back(p.knee_ranks
                        ? fmt::format("The knee, where exposed communication reaches the "
                                      "per-rank compute, is at {} ranks.",
                                      *p.knee_ranks)
                        : fmt::format("Communication stays below compute up to {} ranks: no "
                                      "knee yet.",
                                      n));
  summary.push_back(fmt::format("What binds at {} ranks: {}{}. To confirm it: {}", n,
                                mechanism_name(at.binding),
                                at.scales_well ? " (the largest loss; the job scales well)" : "",
                                confirm));
  summary.push_back(
      same_count
          ? fmt::format("{} ranks is the smallest count in the sweep that reaches 90% of the "
                        "best throughput; there the job leaves {:.4g} accelerator-hours idle "
                        "per 1000 steps.",
                        n, p.idle_hours_per_1000_steps)
          : fmt::format("{} ranks already reach 90% of the best throughput in the sweep; at {} "
                        "ranks the job leaves {:.4g} accelerator-hours idle per 1000 steps, "
                        "against {:.4g} at {}.",
                        p.ranks_at_90pct_best, n, p.idle_hours_per_1000_steps,
                        p.idle_hours_per_1000_steps_at_90pct, p.ranks_at_90pct_best));
  nlohmann::ordered_json lines = nlohmann::ordered_json::array();
  for (const std::string& line : summary) {
    lines.push_back(line);
    report.notes.push_back(line);
  }
  report.extra["summary"] = lines;
  return report;
}

}  // namespace

void register_plan(CLI::App& app) {
  auto flags = std::make_shared<PlanFlags>();
  const FlagGroup own = {
      {"--ranks,-n", &flags->ranks,
       "The one rank count to plan for (predict takes a list or a range)", "N"},
      {"--observed", &flags->observed,
       "Two measured efficiencies, RANKS:EFFICIENCY,RANKS:EFFICIENCY (no scenario needed): "
       "which mechanisms could explain the drop, what to measure in which order, and the "
       "remedies ranked",
       "N1:E1,N2:E2"},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "plan",
      "The capacity-planning answer for N ranks: strong or weak, efficiency, knee, the binding "
      "mechanism and the measurement that would confirm it, the rank count that reaches 90% of "
      "the best throughput, and the accelerator-hours left idle. With --observed, which "
      "mechanisms could explain an efficiency drop between two rank counts.",
      {scenario_flags(&flags->scenario, true), own},
      "Examples:\n"
      "  scalewall plan examples/seed-7b-bf16.toml --ranks 512\n"
      "  scalewall plan examples/gpt3-175b-a100.toml --tp 8 --pp 8\n"
      "      a transformer scenario: the best splits of 1024 A100s, and why the others lose\n"
      "  scalewall plan --observed 128:94%,1024:61%\n"
      "      the seed's interview question: bandwidth, latency or variance?"});
  cmd->callback([flags] {
    if (!flags->observed.empty()) {
      if (!flags->scenario.path.empty()) {
        throw InputError("--observed: answers from the two measurements alone; drop the "
                         "scenario file");
      }
      emit(observed_report(*flags), flags->format);
      return;
    }
    if (flags->scenario.path.empty()) {
      throw InputError("a scenario file is required (or --observed N1:E1,N2:E2)");
    }
    emit(plan_report(*flags), flags->format);
  });
}

}  // namespace scalewall::cli
