// scalewall validate: the model's prediction for every measured collective point beside the
// measurement, the relative error, and its median and worst per algorithm, per rank count and
// per regime: the figure published for the model's accuracy.
//
// --plot FILE also draws each point's measured time against its prediction (validation_plot).
//
// The fabric is --fabric, or else a flat link calibrated from the same files' ping-pong
// times (as `scalewall calibrate` fits it). The report's kind is "measurement": every row is
// anchored on a measured time.
#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/common.h"
#include "scalewall/analysis/calibrate.h"
#include "scalewall/analysis/select.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/nccl.h"
#include "scalewall/io/fabric_file.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/io/measurement.h"
#include "scalewall/model/scaling.h"
#include "scalewall/base/units.h"
#include "scalewall/platform/gnuplot.h"
#include "scalewall/present/plot.h"

namespace scalewall::cli {
namespace {

struct ValidateFlags {
  std::vector<std::string> files;
  FabricFlags network;  // --fabric and its overrides
  std::string ranks;
  std::string gamma;  // empty: the fabric's gamma, or one fitted to the files' reductions
  std::string regimes = "auto";  // of the link calibrated from the files
  std::string format = "table";
  std::string plot;   // empty: no figure
  std::string selector = "auto";  // how the library's call is priced
  bool pool = false;
};

// --selector: auto, nccl, mpi, ompi (openmpi, open-mpi) or mpich.
ValidationSelector validation_selector(const std::string& text) {
  if (text == "auto") return ValidationSelector::kAuto;
  if (text == "nccl") return ValidationSelector::kNccl;
  if (text == "mpi") return ValidationSelector::kMpi;
  if (text == "ompi" || text == "openmpi" || text == "open-mpi") {
    return ValidationSelector::kOpenMpi;
  }
  if (text == "mpich") return ValidationSelector::kMpich;
  throw InputError(
      fmt::format("--selector: '{}' is not auto, nccl, mpi, ompi or mpich", text));
}

std::string files_text(const std::vector<std::string>& files) {
  return files.size() == 1 ? files.front() : fmt::format("{} files", files.size());
}

// The fabric in a few words, for the report's title and the plot's subtitle.
std::string fabric_text(const Topology& fabric, const std::optional<PiecewiseFit>& fit,
                        const std::string& origin) {
  // A two-level fabric (pairs inside and across nodes fitted apart) is described as such.
  if (!fit || fabric.ranks_per_node > 1) {
    return fmt::format("fabric: {} ({})", describe_topology(fabric), origin);
  }
  if (fit->regimes.size() > 1) {
    return fmt::format("fabric: flat link of {} size regimes ({}; {})", fit->regimes.size(),
                       origin, fit->rule);
  }
  return fmt::format("fabric: flat link alpha {}, bandwidth {} ({}, R^2 {:.4f})",
                     format_seconds(fit->single.alpha_s), format_rate(fit->single.bandwidth_Bps),
                     origin, fit->single.r_squared);
}

// --plot: measured against predicted, never over one of the run's input files.
void draw_validation(const ValidateFlags& flags, const Validation& v, const Topology& fabric,
                     const std::optional<PiecewiseFit>& fit, const std::string& origin) {
  RenderOptions options;
  options.inputs = flags.files;
  if (!flags.network.fabric.empty()) options.inputs.push_back(flags.network.fabric);
  const std::string subject =
      fmt::format("{}; {}", files_text(flags.files), fabric_text(fabric, fit, origin));
  with_output_flag("--plot", [&] { return render_plot(validation_plot(v, subject), flags.plot, options); });
}

// "2 nodes x 32" when the series' log gives its layout, "as the fabric" otherwise.
std::string layout_words(const MeasurementSet& set, std::size_t series, std::int64_t ranks) {
  if (series >= set.series.size() || !set.series[series].ranks_per_node) return "as the fabric";
  const std::int64_t per_node = std::min(*set.series[series].ranks_per_node, ranks);
  return fmt::format("{} node{} x {}", ranks / per_node, ranks / per_node == 1 ? "" : "s",
                     per_node);
}

Report run_validate(const ValidateFlags& flags) {
  if (!flags.plot.empty()) with_flag("--plot", [&] { return plot_format_for_path(flags.plot); });
  std::optional<std::int64_t> ranks;
  if (!flags.ranks.empty()) ranks = flag_count("--ranks", flags.ranks, 1, kMaxRanks);
  CostOptions options;

  MeasurementSet set;
  for (const std::string& path : flags.files) read_measurement_file(path, set);
  if (ranks) assign_unknown_ranks(set, *ranks);
  // --ranks-per-node lays out every series so, in place of what its log says (and the
  // fabric file's, when there is one); it needs no fabric file here.
  FabricFlags network = flags.network;
  if (!network.ranks_per_node.empty()) {
    assign_ranks_per_node(set, flag_count("--ranks-per-node", network.ranks_per_node, 1, kMaxRanks));
    if (network.fabric.empty()) network.ranks_per_node.clear();
  }
  std::vector<std::string> warnings = set.warnings;
  const std::vector<std::string> pooled = pool_or_warn(set, flags.pool, warnings);
  if (set.collectives.empty()) {
    throw InputError(fmt::format(
        "no collective measurements in {} to validate against (validate needs collective "
        "times: scalewall-mpi collective, nccl-tests, osu_allreduce, IMB Allreduce)",
        files_text(flags.files)));
  }

  Topology fabric;
  std::optional<PiecewiseFit> fit;
  const std::optional<std::size_t> regime_count = flag_regimes(flags.regimes);
  std::string fabric_origin;
  if (std::optional<Topology> file = resolve_fabric_file(network)) {
    fabric = std::move(*file);
    fabric_origin = flags.network.fabric;
  } else {
    if (set.pingpong.empty()) {
      throw InputError(fmt::format(
          "no fabric to validate against: give --fabric FILE, or include ping-pong "
          "measurements (scalewall-mpi pingpong, osu_latency, IMB PingPong) among the files "
          "to calibrate one from"));
    }
    const std::vector<PingPongPoint> link = with_flag("--pool", [&] { return link_points(set); });
    const std::vector<PingPongPoint> exchanges =
        with_flag("--pool", [&] { return exchange_points(set); });
    // Pairs inside a node and across nodes: a two-level fabric, each link fitted to its own
    // pairs, and the exchanges split the same way.
    LinkFits links = fit_links(
        link, exchanges, true,
        [&](std::span<const PingPongPoint> points, const std::string& what) {
          try {
            return fit_piecewise(points, {}, regime_count);
          } catch (const InputError& e) {
            if (what.starts_with("the exchange times")) {
              throw InputError(fmt::format("the exchange times in {} do not fit ({})",
                                           files_text(flags.files), e.what()));
            }
            throw InputError(fmt::format(
                "no fabric to validate against: the ping-pong data in {} does not calibrate one "
                "({}); give --fabric FILE",
                files_text(flags.files), e.what()));
          }
        });
    const bool two_level = links.two_level;
    fit = links.link;
    std::optional<PiecewiseFit>& intra = links.intra;
    if (two_level) {
      const auto [nodes, per_node] = placed_layout(link, set.runs);
      fabric = calibrated_two_level(*intra, *fit, std::nullopt, nodes, per_node, "calibrated");
      for (const auto* one : {&*fit, &*intra}) {
        const char* where = one == &*intra ? "ping-pong inside a node" : "ping-pong across nodes";
        if (const auto w = spread_warning(where, fit_spreads(*one))) warnings.push_back(*w);
      }
    } else {
      fabric = calibrated_topology(*fit, std::nullopt, 2, "calibrated");
      if (const auto w = spread_warning("ping-pong", fit_spreads(*fit))) warnings.push_back(*w);
    }
    fabric_origin = two_level ? "calibrated from the files' ping-pong times, inside a node and "
                                "across nodes"
                              : "calibrated from the files' ping-pong times";
    const LocalRateFits local = fit_local_rates(set);
    fabric = with_local_rates(fabric, local);
    for (const auto& [present, what] :
         {std::pair{local.gamma.has_value(), "reduction"}, std::pair{local.copy.has_value(), "copy"},
          std::pair{local.alloc.has_value(), "allocation"},
          std::pair{local.sent_reduction.has_value(), "sent-buffer reduction"},
          std::pair{local.sent_exchange.has_value(), "sent-buffer exchange"}}) {
      if (present) fabric_origin += fmt::format(" and {} times", what);
    }
    if (!exchanges.empty()) {
      // Exchange pairs inside and across nodes beside a ping-pong of one kind: one fit over
      // both prices neither, and their samples disagree by design, which this names.
      std::optional<std::string> placement;
      if (!two_level) placement = placement_warning("exchange", exchanges);
      if (placement) warnings.push_back(*placement);
      for (const auto& [one, where] :
           {std::pair{&links.intra_exchange, "inside a node: "},
            std::pair{&links.exchange, two_level ? "across nodes: " : ""}}) {
        if (!one->has_value()) continue;
        for (const std::string& w : exchange_fit_warnings(**one)) {
          warnings.push_back(where + w);
        }
        if (placement) continue;
        if (const auto w = spread_warning("exchange", fit_spreads(**one))) {
          warnings.push_back(where + *w);
        }
      }
      fabric = with_exchange_fits(fabric, links);
      fabric_origin += " and exchange times";
    }
  }
  use_local_costs(options, fabric, flags.gamma);

  // The NCCL release that picks: --nccl-version's for every series; else the one each log
  // states, and the fabric's nccl_version for the series that state none.
  Topology priced = fabric;
  std::vector<MeasurementSeries> priced_series = set.series;
  const bool release_flag = !flags.network.nccl_version.empty();
  if (!release_flag && fabric.gpu.nccl_release) {
    priced.gpu.nccl_release.reset();
    for (MeasurementSeries& s : priced_series) {
      if (!series_nccl_release(s)) s.nccl_version = nccl_release_name(*fabric.gpu.nccl_release);
    }
  }
  const ValidationSelector selector = validation_selector(flags.selector);
  // Points the fabric cannot price are the fabric's fault, unless --selector nccl asked
  // NCCL to price a fabric or an op it does not choose for.
  const std::string blame =
      flags.selector == "nccl" ? std::string("--selector") : fabric_blame(flags.network);
  const Validation v = with_blame(blame, [&] {
    return validate_collectives(set.collectives, priced, options, priced_series, selector);
  });
  if (const auto w = spread_warning("collective", validation_spreads(v))) warnings.push_back(*w);
  if (!flags.plot.empty()) draw_validation(flags, v, fabric, fit, fabric_origin);

  Report report;
  report.command = "validate";
  report.kind = Kind::kMeasurement;
  report.banner = measurement_banner(fmt::format(
      "{} measured collective point{} against the model's predictions",
      v.points.size(), v.points.size() == 1 ? "" : "s"));
  report.title = fabric_text(fabric, fit, fabric_origin);
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const auto& f : flags.files) files.push_back(f);
  report.inputs["files"] = std::move(files);
  report.inputs["fabric"] = flags.network.fabric.empty()
                               ? nlohmann::ordered_json(nullptr)
                               : nlohmann::ordered_json(flags.network.fabric);
  if (fit) {
    nlohmann::ordered_json link;
    link["calibrated"] = true;
    link["alpha_s"] = fit->regimes.front().fit.alpha_s;
    link["bandwidth_Bps"] = fit->regimes.front().fit.bandwidth_Bps;
    link["r_squared"] = fit->regimes.front().fit.r_squared;
    link["regime_rule"] = fit->rule;
    nlohmann::ordered_json regimes = nlohmann::ordered_json::array();
    for (const RegimeFit& r : fit->regimes) {
      regimes.push_back({{"from_bytes", r.from_bytes},
                         {"alpha_s", r.fit.alpha_s},
                         {"bandwidth_Bps", r.fit.bandwidth_Bps},
                         {"r_squared", r.fit.r_squared},
                         {"sizes", r.fit.points.size()}});
    }
    link["regimes"] = std::move(regimes);
    report.inputs["fabric_used"] = std::move(link);
  } else {
    report.inputs["fabric_used"] = topology_inputs(fabric);
  }
  report.inputs["ranks"] = ranks ? nlohmann::ordered_json(*ranks) : nullptr;
  report.inputs["pool"] = flags.pool;
  report.inputs["gamma_s_per_byte"] = options.gamma_s_per_byte;
  report.inputs["selector"] = flags.selector;

  Table points{"points",
               {{"series", "series", Unit::kText},
                {"layout", "layout", Unit::kText},
                {"op", "op", Unit::kText},
                {"algorithm", "algorithm", Unit::kText},
                {"modelled_as", "modelled as", Unit::kText},
                {"ranks", "ranks", Unit::kCount},
                {"bytes", "size", Unit::kBytes},
                {"samples", "samples", Unit::kCount},
                {"spread", "spread", Unit::kRatio},
                {"measured_s", "measured", Unit::kSeconds},
                {"predicted_s", "predicted", Unit::kSeconds},
                {"relative_error", "error", Unit::kFraction},
                {"regime", "regime", Unit::kText}},
               {},
               {}};
  for (const ValidationPoint& p : v.points) {
    points.add_row({p.series_label, layout_words(set, p.series, p.ranks),
                    std::string(op_name(p.op)), p.algorithm.name(), p.modelled_name,
                    p.ranks, p.bytes, p.samples, p.spread, p.measured_s,
                    p.predicted_s, p.relative_error,
                    std::string(validation_regime_name(p.regime))});
  }
  report.tables.push_back(std::move(points));

  Table summary{"summary",
                {{"group", "group", Unit::kText},
                 {"name", "name", Unit::kText},
                 {"points", "points", Unit::kCount},
                 {"median_abs_error", "median |error|", Unit::kFraction},
                 {"worst_abs_error", "worst |error|", Unit::kFraction},
                 {"worst_error", "worst (signed)", Unit::kFraction},
                 {"worst_at", "worst at", Unit::kText}},
                {},
                {}};
  for (const ValidationSummary& s : v.summaries) {
    const ValidationPoint& w = v.points[s.worst_index];
    summary.add_row({s.group, s.name, s.points, s.median_abs_error, s.worst_abs_error,
                     s.worst_error,
                     fmt::format("{} {} N={} {}", op_name(w.op), w.algorithm.name(), w.ranks,
                                 format_bytes(w.bytes))});
  }
  report.tables.push_back(std::move(summary));

  const ValidationSummary& all = v.summaries.front();
  report.add_field("median_abs_error", "median |error|", Unit::kFraction, all.median_abs_error);
  report.add_field("worst_abs_error", "worst |error|", Unit::kFraction, all.worst_abs_error);
  report.add_field("points_validated", "points validated", Unit::kCount, all.points);
  report.add_field("points_skipped", "points left out", Unit::kCount, v.points_skipped);

  report.add_list("sources", "source", set.sources);
  if (flags.pool) report.add_list("pooled", "pooled", pooled);
  // The NCCL release that picked each NCCL-priced series, and where that came from; a warning
  // where it is not the release the log states, or the model holds no tables for that one.
  std::set<std::size_t> nccl_series;
  for (const auto& p : v.points) {
    if (p.nccl && p.series < set.series.size()) nccl_series.insert(p.series);
  }
  std::vector<std::string> releases;
  for (const std::size_t i : nccl_series) {
    const std::string& version = set.series[i].nccl_version;
    const std::string& label = set.series[i].label;
    const std::optional<NcclRelease> stated = series_nccl_release(set.series[i]);
    const std::optional<NcclRelease> file_release = fabric.gpu.nccl_release;
    NcclRelease chosen = kNcclModelRelease;
    std::string origin;
    if (release_flag) {
      chosen = *fabric.gpu.nccl_release;
      origin = "--nccl-version";
      if (!version.empty() && stated != chosen) {
        warnings.push_back(fmt::format(
            "{}: NCCL {} ran it, but NCCL {}'s tables pick (--nccl-version); releases differ "
            "in what they pick near a crossover",
            label, version, nccl_release_name(chosen)));
      }
    } else if (stated) {
      chosen = *stated;
      origin = "the log's";
      if (file_release && *file_release != *stated) {
        origin += fmt::format(", not the fabric's nccl_version {}",
                              nccl_release_name(*file_release));
      }
    } else {
      if (!version.empty()) {
        warnings.push_back(fmt::format(
            "{}: it names NCCL '{}', which does not read as an NCCL 2 release", label, version));
      }
      chosen = file_release.value_or(kNcclModelRelease);
      origin = file_release ? "the fabric's nccl_version" : "the model's own";
      origin += version.empty() ? ": the log names none" : "";
    }
    const NcclRelease picking = nccl_tables_release(chosen);
    if (picking != chosen) {
      origin += fmt::format("; {} is outside the releases the model holds",
                            nccl_release_name(chosen));
      warnings.push_back(fmt::format(
          "{}: NCCL {} picks for it; the model holds the tuning tables of NCCL {} to {}, so "
          "{}'s pick its algorithms, and NCCL {} may pick another one near a crossover",
          label, nccl_release_name(chosen), nccl_release_name(kNcclOldestRelease),
          kNcclModelVersion, nccl_release_name(picking), nccl_release_name(chosen)));
    }
    if (fabric.gpu.generation == GpuGeneration::kBlackwell && picking != kNcclModelRelease) {
      warnings.push_back(fmt::format(
          "{}: on Blackwell the model picks by NCCL {}'s tables whatever the release "
          "(Blackwell's rows changed at most releases), so NCCL {} may pick another algorithm "
          "near a crossover",
          label, kNcclModelVersion, nccl_release_name(picking)));
    }
    releases.push_back(fmt::format("{}: NCCL {}'s tables pick ({}); NCCL {}'s price the pick",
                                   label, nccl_release_name(picking), origin, kNcclModelVersion));
  }
  report.add_list("nccl_releases", "NCCL release", releases);
  report.add_list("warnings", "warning", warnings);
  report.add_list("skipped", "left out", v.skipped);

  bool library = false;
  bool nccl = false;
  std::set<std::string> rules;
  for (const auto& p : v.points) {
    library = library || (p.algorithm.is_library() && !p.nccl && p.rules.empty());
    nccl = nccl || p.nccl.has_value();
    if (!p.rules.empty()) rules.insert(p.rules);
  }
  if (library) {
    report.notes.push_back(
        "\"library\" is the MPI library's (or NCCL's) own choice, which the measurement does "
        "not name: it is compared with the model's cheapest algorithm (\"modelled as\").");
  }
  for (const std::string& r : rules) {
    report.notes.push_back(fmt::format(
        "selector {}: the library's call is compared with the model's counterpart of what the "
        "{} pick for it (\"modelled as\"; scalewall select --selector {} shows the rule per "
        "size); --selector mpi compares it with the model's cheapest algorithm.",
        r, selector_description(parse_selector(r)), r));
  }
  if (nccl) {
    report.notes.push_back(
        "selector nccl: the library's call on this GPU fabric is compared with NCCL's "
        "algorithm x protocol pick (\"modelled as\", NCCL_ALGO/NCCL_PROTO names; "
        "docs/models.md); --selector mpi compares it with the model's cheapest MPI algorithm.");
  }
  report.notes.push_back(
      "error = (predicted - measured) / measured: positive when the model is pessimistic. "
      "latency-bound: the model's latency term exceeds its bandwidth term.");
  if (fit) {
    report.notes.push_back(
        "The link was fitted to ping-pong times and is tested here on collectives: a "
        "different measurement from the one it was fitted to.");
  }
  return report;
}

}  // namespace

void register_validate(CLI::App& app) {
  auto flags = std::make_shared<ValidateFlags>();
  const FlagGroup files = {
      {"files", &flags->files,
       "Measurement files with collective times (and, without --fabric, ping-pong times to "
       "calibrate the link from); formats as for calibrate",
       "FILE", {}, FlagKind::kRequired},
  };
  const FlagGroup own = {
      {"--ranks,-n", &flags->ranks,
       "Rank count of collective logs that do not record one (OSU's)", "N"},
      {"--gamma", &flags->gamma,
       "Reduction arithmetic cost per byte reduced, for the predictions. Default: the fabric's "
       "gamma; calibrating from the files, one fitted to their reduction times (scalewall-mpi "
       "reduce); else 0",
       "G"},
      regimes_flag(&flags->regimes),
      {"--selector", &flags->selector,
       "What the library's own call (nccl-tests, osu_allreduce, IMB, scalewall-mpi "
       "--algorithm library) is compared with: nccl (NCCL's algorithm x protocol pick; the "
       "default on a fabric whose ranks are GPUs, such as --fabric dgx-h100), ompi or mpich "
       "(what Open MPI 4.1's or MPICH 3.2's fixed rules pick, as scalewall select shows it; the "
       "default for scalewall-mpi files that name that library), mpi (the model's cheapest MPI "
       "algorithm; the default otherwise), or auto",
       "SELECTOR", "auto"},
      {"--pool", &flags->pool,
       "Pool the series that agree in op, rank count and layout; without it each table of each "
       "file is validated apart, and a calibrated link needs one ping-pong series"},
      {"--plot", &flags->plot,
       "Also draw each point's measured time against its prediction to FILE (.svg or .png; "
       "needs gnuplot), one colour per algorithm, with the median and worst error in the title",
       "FILE", {}, FlagKind::kFileName},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "validate",
      "Compare the model's collective costs with measured ones: each point's relative error, "
      "and the median and worst per algorithm, per rank count and per regime.",
      {files,
       fabric_flags(&flags->network, FabricUse::kFabricOnly,
                    "without one, a flat link calibrated from the files' ping-pong times"),
       own},
      "Examples:\n"
      "  mpirun -np 2 scalewall-mpi pingpong > pingpong.jsonl\n"
      "  mpirun -np 4 scalewall-mpi collective --algorithm ring > ring.jsonl\n"
      "  scalewall validate pingpong.jsonl ring.jsonl\n"
      "  scalewall validate all_reduce_perf.log --fabric examples/fabrics/dgx-h100-ndr.toml"});
  cmd->callback([flags] { emit(run_validate(*flags), flags->format); });
}

}  // namespace scalewall::cli
