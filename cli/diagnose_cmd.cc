// scalewall diagnose: the step model run backwards. From a measured scaling table: strong or
// weak, efficiency against the best baseline, which mechanisms explain the loss and what the
// data cannot separate. From scalewall-mpi output: compute, communication and wait per rank,
// the ranks, hosts and links that stand out, and the next measurement to run.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <sstream>

#include "cli/common.h"
#include "cli/next_measurement.h"
#include "scalewall/analysis/diagnose.h"
#include "scalewall/io/fabric_file.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/io/file_format.h"
#include "scalewall/io/input_file.h"
#include "scalewall/io/measurement.h"
#include "scalewall/platform/gnuplot.h"
#include "scalewall/present/plot.h"
#include "scalewall/analysis/predict.h"
#include "scalewall/io/scenario_file.h"
#include "scalewall/base/units.h"

namespace scalewall::cli {
namespace {

struct DiagnoseFlags {
  std::vector<std::string> files;
  FabricFlags network;  // --fabric and its overrides
  std::string scenario;
  std::string plot;
  std::string format = "table";
};

// Every file the run reads: a plot never replaces one of them.
RenderOptions plot_options(const DiagnoseFlags& flags) {
  RenderOptions options;
  options.inputs = flags.files;
  if (!flags.network.fabric.empty()) options.inputs.push_back(flags.network.fabric);
  if (!flags.scenario.empty()) options.inputs.push_back(flags.scenario);
  return options;
}

// A scaling table is CSV whose header names `ranks`, or JSON rows (io/file_format.h); everything else goes to the
// measurement reader, which recognises its formats by content.
bool is_scaling_table(std::string_view text) {
  const FileFormat format = detect_file_format(text);
  return format == FileFormat::kScalingTableCsv || format == FileFormat::kScalingTableJson;
}

Value optional_seconds(const std::optional<double>& v) { return v ? Value{*v} : Value{}; }

// An input file, read once: its path and its text.
struct InputText {
  std::string path;
  std::string text;
};

Report scaling_report(const DiagnoseFlags& flags, const InputText& input) {
  const std::string& path = input.path;
  const ScalingTable table = parse_scaling_table(input.text, path);
  const ScalingDiagnosis d = diagnose_scaling(table);
  std::optional<Prediction> prediction;
  std::string scenario_name;
  if (!flags.scenario.empty()) {
    const ScenarioFile file = with_flag("--scenario", [&] { return load_scenario_file(flags.scenario); });
    scenario_name = file.scenario.name;
    if (file.transformer) {
      throw InputError(fmt::format("--scenario: {} is a transformer scenario ([model]); diagnose "
                                   "compares a data-parallel one ([workload])",
                                   flags.scenario));
    }
    if (file.scenario.workload.mode != d.mode) {
      throw InputError(fmt::format(
          "--scenario: {} describes {} scaling, but {} is {} scaling ({})", flags.scenario,
          scaling_mode_name(file.scenario.workload.mode), path, scaling_mode_name(d.mode),
          d.mode_reason));
    }
    std::vector<std::int64_t> ranks;
    for (const auto& row : d.rows) ranks.push_back(row.ranks);
    prediction = with_flag("--scenario", [&] { return predict(file.scenario, ranks); });
  }

  Report report;
  report.command = "diagnose";
  report.kind = Kind::kMeasurement;
  report.banner = measurement_banner(fmt::format(
      "scaling table {} (measured), with a fitted model of its mechanisms", path));
  report.title = fmt::format("{} scaling ({}); efficiency against {} rank{}",
                             d.mode == ScalingMode::kStrong ? "STRONG" : "WEAK", d.mode_reason,
                             d.baseline_ranks, d.baseline_ranks == 1 ? "" : "s");
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  files.push_back(path);
  report.inputs["files"] = files;
  if (!flags.scenario.empty()) report.inputs["scenario"] = flags.scenario;

  std::vector<Column> columns = {{"ranks", "ranks", Unit::kCount},
                                 {"step_s", "step", Unit::kSeconds},
                                 {"efficiency", "efficiency", Unit::kFraction},
                                 {"fitted_step_s", "fitted", Unit::kSeconds},
                                 {"residual", "residual", Unit::kFraction}};
  if (prediction) columns.push_back({"predicted_efficiency", "predicted eff.", Unit::kFraction});
  Table rows{"rows", columns, {}, {}};
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    const auto& r = d.rows[i];
    std::vector<Value> row = {r.ranks, r.step_s, r.efficiency, r.fitted_step_s, r.residual};
    if (prediction) row.push_back(prediction->rows[i].efficiency);
    rows.add_row(row, r.ranks == d.baseline_ranks ? "<-- baseline" : "");
  }
  report.tables.push_back(std::move(rows));
  Table mechanisms{"mechanisms",
                   {{"mechanism", "mechanism", Unit::kText},
                    {"coefficient", "coefficient", Unit::kPlain},
                    {"lost_s", "lost at largest", Unit::kSeconds},
                    {"share", "share of loss", Unit::kFraction}},
                   {},
                   {}};
  for (const MechanismShare& m : d.mechanisms) {
    const std::string name = d.mode == ScalingMode::kStrong && m.mechanism == Mechanism::kSerial
                                 ? "serial (or bandwidth)"
                                 : std::string(mechanism_name(m.mechanism));
    mechanisms.add_row({name, m.coefficient, m.lost_s, m.share});
  }
  report.tables.push_back(std::move(mechanisms));

  report.add_field("scaling", "scaling", Unit::kText, std::string(scaling_mode_name(d.mode)));
  report.add_field("mode_reason", "because", Unit::kText, d.mode_reason);
  report.add_field("baseline_ranks", "baseline", Unit::kCount, d.baseline_ranks);
  report.add_field("largest_ranks", "largest", Unit::kCount, d.largest_ranks);
  report.add_field("efficiency_at_largest", "efficiency at largest", Unit::kFraction,
                   d.efficiency_at_largest);
  report.add_field("compute_coefficient_s", "fitted compute (a)", Unit::kSeconds,
                   d.compute_coefficient);
  report.add_field("rms_relative_residual", "fit residual (rms)", Unit::kFraction,
                   d.rms_relative_residual);
  report.add_field("binding", "binding mechanism", Unit::kText,
                   d.binding ? Value{std::string(mechanism_name(*d.binding))} : Value{},
                   "cannot be named from this table");
  nlohmann::ordered_json candidates = nlohmann::ordered_json::array();
  std::string candidate_text;
  for (const Mechanism m : d.binding_candidates) {
    candidates.push_back(std::string(mechanism_name(m)));
    candidate_text += (candidate_text.empty() ? "" : ", ") + std::string(mechanism_name(m));
  }
  report.extra["binding_candidates"] = candidates;
  report.add_list("cannot_separate", "cannot separate", d.cannot_separate);
  report.add_list("warnings", "warning", d.warnings);
  report.add_field("candidates", "could be binding", Unit::kText, candidate_text, "-");
  report.add_field("next_measurement", "run next", Unit::kText,
                   render_next_measurement(d.next_measurement));
  if (!flags.plot.empty()) {
    // The main figure: measured efficiency against the fitted model's.
    MeasuredSeries series;
    series.what = "parallel efficiency";
    series.subject = fmt::format("{} ({} scaling); model: the fitted mechanisms", path,
                                 scaling_mode_name(d.mode));
    series.x_label = "ranks";
    series.x_quantity = Quantity::kCount;
    series.x_scale = AxisScale::kLog2;
    series.y_label = "efficiency";
    series.y_quantity = Quantity::kFraction;
    series.predicted_label = "fitted model";
    for (const auto& r : d.rows) {
      series.x.push_back(static_cast<double>(r.ranks));
      series.measured.push_back(r.efficiency);
      series.predicted.push_back(r.efficiency * r.step_s / r.fitted_step_s);
    }
    with_output_flag("--plot", [&] { return render_plot(measured_vs_predicted_plot(series), flags.plot, plot_options(flags)); });
  }
  if (prediction) {
    report.notes.push_back(fmt::format("predicted efficiency: scenario {} (a model)", scenario_name));
  }
  report.notes.push_back(
      "fit: step = a g(N) + s + l log2 N + b 2(N-1)/N + v E[M_N], coefficients >= 0, "
      "g = 1/N (strong) or 1 (weak); residual = (measured - fitted) / measured.");
  return report;
}

// The main figure: the per-rank distribution of wait (step records) or of arrival time
// (arrival records), of the first run that has either.
void plot_measurements(const DiagnoseFlags& flags, const std::vector<MeasurementSet>& runs) {
  const auto drawn = std::find_if(runs.begin(), runs.end(), [](const MeasurementSet& r) {
    return !r.steps.empty() || !r.arrivals.empty();
  });
  if (drawn == runs.end()) {
    throw InputError("--plot: draws per-rank wait or arrival times; these files hold neither "
                     "step nor arrival records");
  }
  const MeasurementSet& set = *drawn;
  std::map<std::int64_t, std::vector<double>> samples;
  std::string quantity;
  if (!set.steps.empty()) {
    quantity = "wait";
    for (const StepPoint& p : set.steps) samples[p.rank].push_back(p.wait_s);
  } else {
    quantity = "arrival";
    for (const ArrivalPoint& p : set.arrivals) samples[p.rank].push_back(p.arrival_s);
  }
  std::vector<std::int64_t> ranks;
  std::vector<std::vector<double>> values;
  for (auto& [rank, v] : samples) {
    ranks.push_back(rank);
    values.push_back(std::move(v));
  }
  std::string subject;
  for (const MeasurementRun& r : set.runs) subject += (subject.empty() ? "" : ", ") + r.source;
  with_output_flag("--plot", [&] {
    return render_plot(per_rank_distribution_plot(ranks, values, quantity, subject), flags.plot,
                       plot_options(flags));
  });
}

std::string joined(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

// Per run: what it is and its verdict (one row each), and its records' tables, each row
// keyed by its run.
void add_run_tables(const std::vector<RunDiagnosis>& runs, Report& report) {
  Table summary{"runs",
                {{"run", "run", Unit::kCount},
                 {"files", "files", Unit::kText},
                 {"identity", "job", Unit::kText},
                 {"binding", "binding", Unit::kText},
                 {"verdict", "verdict", Unit::kText},
                 {"next_measurement", "run next", Unit::kText}},
                {},
                {}};
  Table ranks{"ranks",
              {{"run", "run", Unit::kCount},
               {"rank", "rank", Unit::kCount},
               {"host", "host", Unit::kText},
               {"steps", "steps", Unit::kCount},
               {"compute_s", "compute", Unit::kSeconds},
               {"communication_s", "comm", Unit::kSeconds},
               {"wait_s", "wait", Unit::kSeconds},
               {"step_s", "step", Unit::kSeconds}},
              {},
              {}};
  Table outliers{"outliers",
                 {{"run", "run", Unit::kCount},
                  {"what", "stands out", Unit::kText},
                  {"evidence", "evidence", Unit::kText}},
                 {},
                 {}};
  Table collectives{"collectives",
                    {{"run", "run", Unit::kCount},
                     {"op", "op", Unit::kText},
                     {"algorithm", "algorithm", Unit::kText},
                     {"ranks", "ranks", Unit::kCount},
                     {"bytes", "size", Unit::kBytes},
                     {"measured_s", "measured", Unit::kSeconds},
                     {"model_s", "model", Unit::kSeconds},
                     {"bandwidth_model_s", "bytes/bandwidth", Unit::kSeconds}},
                    {},
                    {}};
  Table links{"links",
              {{"run", "run", Unit::kCount},
               {"from", "from", Unit::kCount},
               {"to", "to", Unit::kCount},
               {"from_host", "from host", Unit::kText},
               {"to_host", "to host", Unit::kText},
               {"same_host", "same host", Unit::kText},
               {"sizes", "sizes", Unit::kCount},
               {"smallest_one_way_s", "one-way, smallest", Unit::kSeconds},
               {"largest_bytes", "largest size", Unit::kBytes},
               {"largest_one_way_s", "one-way, largest", Unit::kSeconds},
               {"alpha_s", "fitted alpha", Unit::kSeconds},
               {"bandwidth_Bps", "fitted bandwidth", Unit::kRate},
               {"r_squared", "R^2", Unit::kPlain}},
              {},
              {}};
  const auto text_or_null = [](const std::string& t) { return t.empty() ? Value{} : Value{t}; };
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto run = static_cast<std::int64_t>(i + 1);
    const MeasurementDiagnosis& d = runs[i].diagnosis;
    summary.add_row({run, joined(runs[i].sources, ", "), runs[i].identity,
                     d.binding ? Value{std::string(mechanism_name(*d.binding))} : Value{},
                     d.verdict, render_next_measurement(d.next_measurement)});
    for (const RankSplit& r : d.ranks) {
      ranks.add_row({run, r.rank, r.host, r.steps, r.compute_s, r.communication_s, r.wait_s,
                     r.step_s});
    }
    for (const Outlier& o : d.outliers) outliers.add_row({run, o.what, o.evidence});
    for (const auto& c : d.collectives) {
      collectives.add_row({run, std::string(op_name(c.op)), c.algorithm.name(), c.ranks, c.bytes,
                           c.measured_s, optional_seconds(c.model_s),
                           optional_seconds(c.bandwidth_model_s)});
    }
    for (const LinkFit& l : d.links) {
      const std::optional<bool> same = l.same_host();
      links.add_row({run, l.from, l.to, text_or_null(l.from_host), text_or_null(l.to_host),
                     same ? Value{std::string(*same ? "yes" : "no")} : Value{}, l.sizes,
                     l.smallest_s, l.largest_bytes, l.largest_s, optional_seconds(l.alpha_s),
                     l.bandwidth_Bps ? Value{*l.bandwidth_Bps} : Value{},
                     l.r_squared ? Value{*l.r_squared} : Value{}});
    }
  }
  report.tables.push_back(std::move(ranks));
  report.tables.push_back(std::move(summary));
  report.tables.push_back(std::move(outliers));
  report.tables.push_back(std::move(collectives));
  report.tables.push_back(std::move(links));
}

// The one run's figures as top-level fields.
void add_single_run_fields(const MeasurementDiagnosis& d, Report& report) {
  if (!d.ranks.empty()) {
    report.add_field("compute_s", "compute per step", Unit::kSeconds, d.compute_s);
    report.add_field("communication_s", "communication per step", Unit::kSeconds,
                     d.communication_s);
    report.add_field("wait_s", "wait per step", Unit::kSeconds, d.wait_s);
    report.add_field("step_s", "step", Unit::kSeconds, d.step_s);
  }
  report.add_field("arrival_spread_s", "arrival spread (median)", Unit::kSeconds,
                   optional_seconds(d.arrival_spread_s), "no arrival records");
  report.add_field("zero_byte_collective_s", "zero-byte collective", Unit::kSeconds,
                   optional_seconds(d.zero_byte_collective_s), "no arrival records");
  report.add_field("binding", "binding mechanism", Unit::kText,
                   d.binding ? Value{std::string(mechanism_name(*d.binding))} : Value{},
                   "not decided by these records");
  report.add_field("verdict", "verdict", Unit::kText, d.verdict);
  report.add_field("next_measurement", "run next", Unit::kText,
                   render_next_measurement(d.next_measurement));
}

Report measurement_report(const DiagnoseFlags& flags, const std::vector<InputText>& inputs) {
  std::vector<MeasurementSet> files;
  for (const InputText& input : inputs) {
    files.emplace_back();
    parse_measurement_text(input.text, input.path, files.back());
  }
  const std::optional<Topology> fabric = resolve_fabric_file(flags.network);
  const std::vector<RunDiagnosis> runs = diagnose_runs(files, fabric);
  if (!flags.plot.empty()) plot_measurements(flags, files);

  Report report;
  report.command = "diagnose";
  report.kind = Kind::kMeasurement;
  report.banner = measurement_banner(fmt::format("{} file{} of scalewall-mpi or benchmark output",
                                                 flags.files.size(),
                                                 flags.files.size() == 1 ? "" : "s"));
  report.inputs["files"] = flags.files;
  if (fabric) report.inputs["fabric"] = topology_inputs(*fabric);
  add_run_tables(runs, report);
  std::vector<std::string> sources;
  std::vector<std::string> warnings;
  std::vector<std::string> verdicts;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const MeasurementDiagnosis& d = runs[i].diagnosis;
    sources.insert(sources.end(), d.sources.begin(), d.sources.end());
    warnings.insert(warnings.end(), d.warnings.begin(), d.warnings.end());
    verdicts.push_back(fmt::format(
        "run {} ({}; {}): binding {}; {}", i + 1, joined(runs[i].sources, ", "), runs[i].identity,
        d.binding ? mechanism_name(*d.binding) : std::string_view("not decided"), d.verdict));
  }
  if (runs.size() == 1) {
    report.title = runs.front().diagnosis.verdict;
    add_single_run_fields(runs.front().diagnosis, report);
  } else {
    report.title = fmt::format("{} runs, diagnosed apart (not the same job): see each run's "
                               "verdict",
                               runs.size());
    report.add_field("binding", "binding mechanism", Unit::kText, Value{},
                     "one per run (see runs)");
    report.add_field("verdict", "verdict", Unit::kText,
                     fmt::format("{} runs, diagnosed apart", runs.size()));
  }
  report.add_list("verdicts", "verdict", verdicts);
  report.add_list("sources", "source", sources);
  report.add_list("warnings", "warning", warnings);
  return report;
}

}  // namespace

void register_diagnose(CLI::App& app) {
  auto flags = std::make_shared<DiagnoseFlags>();
  const FlagGroup files = {
      {"files", &flags->files, "A scaling table, or scalewall-mpi / benchmark output", "FILE...",
       {}, FlagKind::kRequired},
  };
  const FlagGroup own = {
      {"--scenario", &flags->scenario,
       "Scenario file: show its predicted efficiency beside a measured scaling table", "FILE"},
      {"--plot", &flags->plot,
       "Also draw the main figure to FILE (.svg or .png; needs gnuplot): measured against "
       "fitted efficiency, or the per-rank wait distribution",
       "FILE", {}, FlagKind::kFileName},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "diagnose",
      "Run the model backwards from measurements. A scaling table (CSV: ranks and step_s or "
      "throughput, optional problem_size; or JSON rows) gives strong or weak, efficiency "
      "against the best baseline, the share of the loss each mechanism explains, and what the "
      "data cannot separate. scalewall-mpi output (step, arrival, collective, pingpong) gives "
      "compute, communication and wait per rank and the ranks, hosts and links that stand out. "
      "Both end with the next measurement to run.",
      {files,
       fabric_flags(&flags->network, FabricUse::kFabricOnly,
                    "compare measured collectives with the model (scalewall-mpi input)"),
       own},
      "Examples:\n"
      "  scalewall diagnose runs.csv                 (ranks,step_s,problem_size)\n"
      "  scalewall diagnose step.jsonl arrival.jsonl --fabric examples/fabrics/tcp-100gbe.toml"});
  cmd->callback([flags] {
    std::vector<InputText> tables;
    std::vector<InputText> measurements;
    for (const std::string& f : flags->files) {
      InputText input{f, read_input_file(f, "input file")};
      (is_scaling_table(input.text) ? tables : measurements).push_back(std::move(input));
    }
    if (!tables.empty() && (tables.size() > 1 || !measurements.empty())) {
      throw InputError(fmt::format(
          "diagnose one scaling table at a time, without measurement files (got {} table{} "
          "and {} other file{})",
          tables.size(), tables.size() == 1 ? "" : "s", measurements.size(),
          measurements.size() == 1 ? "" : "s"));
    }
    if (!tables.empty()) {
      if (!flags->network.fabric.empty() || has_fabric_overrides(flags->network)) {
        throw InputError(fmt::format(
            "{}: applies to scalewall-mpi measurements, not a scaling table",
            flags->network.fabric.empty() ? first_override(flags->network) : "--fabric"));
      }
      emit(scaling_report(*flags, tables.front()), flags->format);
    } else {
      if (!flags->scenario.empty()) {
        throw InputError("--scenario: applies to a scaling table, not scalewall-mpi records");
      }
      emit(measurement_report(*flags, measurements), flags->format);
    }
  });
}

}  // namespace scalewall::cli
