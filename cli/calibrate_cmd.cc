// scalewall calibrate: fit the link's alpha and bandwidth (and the LogGP gap where the data
// allow) to measured ping-pong times, fit bus bandwidth per size to measured collectives, and
// optionally write the fitted link as a fabric file that collective, select, predict and
// scenario files accept.
//
// The figures are fits to measurements, so the report's kind is "measurement" (DESIGN.md:
// model | simulation | measurement): a fitted alpha is a summary of measured times, not an
// analytic prediction.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cli/common.h"
#include "scalewall/analysis/calibrate.h"
#include "scalewall/model/collective.h"
#include "scalewall/io/input_file.h"
#include "scalewall/io/measurement.h"
#include "scalewall/platform/output_file.h"
#include "scalewall/model/scaling.h"
#include "scalewall/base/units.h"

namespace scalewall::cli {
namespace {

struct CalibrateFlags {
  std::vector<std::string> files;
  std::string out;
  std::string min_bytes;
  std::string max_bytes;
  std::string ranks;
  std::string name = "calibrated";
  std::string weighting = "relative";
  std::string regimes = "auto";
  std::string format = "table";
  bool pool = false;
  bool ring_equivalent = false;  // fit the link to a collective series' ring steps
};

// The points one link is fitted to: the ping-pong's, or with --ring-equivalent a collective
// series' ring steps; none when neither is there.
std::vector<PingPongPoint> link_input(const CalibrateFlags& flags, const MeasurementSet& set) {
  if (!flags.ring_equivalent) {
    if (set.pingpong.empty()) return {};
    return with_flag("--pool", [&] { return link_points(set); });
  }
  if (!set.pingpong.empty()) {
    throw InputError(
        "--ring-equivalent: the files hold ping-pong times; the link is fitted to those (give "
        "only the collective log to fit its ring-equivalent link)");
  }
  return with_flag("--ring-equivalent", [&] { return ring_equivalent_points(set); });
}


// One row per size regime of the fitted link, with its own line and quality.
Table regimes_table(const PiecewiseFit& fit) {
  Table t{"regimes",
          {{"regime", "regime", Unit::kCount},
           {"from_bytes", "from", Unit::kBytes},
           {"sizes", "sizes", Unit::kCount},
           {"min_bytes", "smallest", Unit::kBytes},
           {"max_bytes", "largest", Unit::kBytes},
           {"alpha_s", "alpha", Unit::kSeconds},
           {"bandwidth_Bps", "bandwidth", Unit::kRate},
           {"r_squared", "R^2", Unit::kPlain},
           {"worst_relative_residual", "worst residual", Unit::kFraction}},
          {},
          {}};
  for (std::size_t i = 0; i < fit.regimes.size(); ++i) {
    const HockneyFit& r = fit.regimes[i].fit;
    double worst = 0;
    for (const FitPoint& p : r.points) {
      if (std::fabs(p.relative_residual) > std::fabs(worst)) worst = p.relative_residual;
    }
    t.add_row({static_cast<std::int64_t>(i + 1), fit.regimes[i].from_bytes,
               static_cast<std::int64_t>(r.points.size()), r.min_bytes, r.max_bytes, r.alpha_s,
               r.bandwidth_Bps, r.r_squared, worst},
              r.points.size() > kMinRegimeSizes ? ""
              : std::fabs(worst) < 1e-6        ? "two sizes: the line passes through both"
                                               : "two sizes, alpha held at its 1 ns floor");
  }
  return t;
}

// Each size's residual against the line of its own regime.
Table residuals_table(const PiecewiseFit& fit) {
  Table residuals{"residuals",
                  {{"bytes", "size", Unit::kBytes},
                   {"samples", "samples", Unit::kCount},
                   {"measured_s", "measured", Unit::kSeconds},
                   {"fitted_s", "fitted", Unit::kSeconds},
                   {"residual_s", "residual", Unit::kSeconds},
                   {"relative_residual", "relative", Unit::kFraction},
                   {"regime", "regime", Unit::kCount}},
                  {},
                  {}};
  const double m_star = crossover_bytes(fit.link());
  std::vector<std::pair<const FitPoint*, std::int64_t>> rows;
  for (std::size_t i = 0; i < fit.regimes.size(); ++i) {
    for (const FitPoint& p : fit.regimes[i].fit.points) {
      rows.emplace_back(&p, static_cast<std::int64_t>(i + 1));
    }
  }
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const FitPoint& p = *rows[k].first;
    const bool at_crossover =
        p.bytes <= m_star && (k + 1 == rows.size() || rows[k + 1].first->bytes > m_star);
    residuals.add_row({p.bytes, p.samples, p.measured_s, p.fitted_s, p.residual_s,
                       p.relative_residual, rows[k].second},
                      at_crossover ? "<-- crossover m* above this size" : "");
  }
  return residuals;
}

// A local rate's fields: `<key>_s_per_byte` ("<words> cost per byte"; `missing` without a fit)
// and, with a fit, its rate, R^2 and regime rule.
void add_local_rate_fields(Report& report, const std::optional<GammaFit>& fit,
                           const std::string& key, const std::string& words,
                           const std::string& missing) {
  report.add_field(key + "_s_per_byte", words + " cost per byte", Unit::kSeconds,
                   fit ? Value{fit->gamma_s_per_byte} : Value{}, missing);
  if (!fit) return;
  report.add_field(key + "_rate_Bps", words + " rate", Unit::kRate, fit->rate_Bps);
  report.add_field(key + "_r_squared", words + " fit R^2", Unit::kPlain, fit->r_squared);
  report.add_field(key + "_regime_rule", words + " rates", Unit::kText, fit->rule);
}

// A local rate's two tables: <key> (each size, measured against the fit) and <key>_regimes
// (the rates by size). `done`: what happens to the bytes ("reduced"); `rate`: the rate's name.
void add_rate_tables(Report& report, const GammaFit& fit, const std::string& key,
                     const std::string& done, const std::string& rate) {
  Table points{key,
               {{"bytes", done, Unit::kBytes},
                {"samples", "samples", Unit::kCount},
                {"measured_s", "measured", Unit::kSeconds},
                {"fitted_s", rate + " x size", Unit::kSeconds},
                {"relative_residual", "relative", Unit::kFraction}},
               {},
               {}};
  for (const FitPoint& p : fit.points) {
    points.add_row({p.bytes, p.samples, p.measured_s, p.fitted_s, p.relative_residual});
  }
  report.tables.push_back(std::move(points));
  const bool gamma = rate == "gamma";
  Table rates{key + "_regimes",
              {{"from_bytes", "from", Unit::kBytes},
               {"sizes", "sizes", Unit::kCount},
               {"min_bytes", "smallest", Unit::kBytes},
               {"max_bytes", "largest", Unit::kBytes},
               {gamma ? "gamma_s_per_byte" : "s_per_byte", gamma ? "gamma" : "per byte",
                Unit::kSeconds},
               {"rate_Bps", gamma ? "rate 1/gamma" : "rate", Unit::kRate}},
              {},
              {}};
  for (const GammaRegimeFit& r : fit.regimes) {
    rates.add_row({r.from_bytes, static_cast<std::int64_t>(r.sizes), r.min_bytes, r.max_bytes,
                   r.gamma_s_per_byte, 1.0 / r.gamma_s_per_byte});
  }
  report.tables.push_back(std::move(rates));
}

// The input files for a message: "a.txt, b.jsonl".
std::string joined(const std::vector<std::string>& files) {
  std::string text;
  for (const std::string& f : files) text += (text.empty() ? "" : ", ") + f;
  return text;
}

Report run_calibrate(const CalibrateFlags& flags) {
  FitOptions options;
  if (!flags.min_bytes.empty()) options.min_bytes = flag_bytes("--min-bytes", flags.min_bytes);
  if (!flags.max_bytes.empty()) options.max_bytes = flag_bytes("--max-bytes", flags.max_bytes);
  if (options.min_bytes > options.max_bytes) {
    throw InputError(fmt::format("--min-bytes {} is above --max-bytes {}", flags.min_bytes,
                                 flags.max_bytes));
  }
  options.weighting = with_flag("--weighting", [&] { return parse_weighting(flags.weighting); });
  std::optional<std::int64_t> ranks;
  if (!flags.ranks.empty()) ranks = flag_count("--ranks", flags.ranks, 1, kMaxRanks);
  if (flags.name.empty()) throw InputError("--name: the fabric's name must not be empty");
  const std::optional<std::size_t> regime_count = flag_regimes(flags.regimes);

  MeasurementSet set;
  std::vector<StreamPoint> stream;  // osu_bw's, one direction: the gap is fitted to them
  for (const std::string& path : flags.files) {
    const std::string text = read_input_file(path, "measurement file");
    parse_measurement_text(text, path, set);
    for (const StreamPoint& p : parse_stream_points(text, path)) {
      if (p.benchmark == "osu_bw") stream.push_back(p);
    }
  }
  if (ranks) assign_unknown_ranks(set, *ranks);
  std::vector<std::string> warnings = set.warnings;
  const std::vector<std::string> pooled = pool_or_warn(set, flags.pool, warnings);

  const std::vector<PingPongPoint> link = link_input(flags, set);
  const std::vector<PingPongPoint> exchanges =
      with_flag("--pool", [&] { return exchange_points(set); });
  // Pairs inside a node and across nodes: two links, fitted apart (the network's is the main
  // fit; the node's is `intra`), and the exchanges likewise. A flat ping-pong's errors are
  // its own; every other set's name what failed.
  LinkFits links = fit_links(
      link, exchanges, !flags.ring_equivalent,
      [&](std::span<const PingPongPoint> points, const std::string& what) {
        return with_flag("--regimes", [&] {
          try {
            return fit_piecewise(points, options, regime_count);
          } catch (const InputError& e) {
            if (what == "the ping-pong") throw;
            throw InputError(fmt::format("{}: {}", what, e.what()));
          }
        });
      });
  const bool two_level = links.two_level;
  std::optional<PiecewiseFit>& piecewise = links.link;
  std::optional<PiecewiseFit>& intra = links.intra;
  std::optional<PiecewiseFit>& exchange = links.exchange;
  std::optional<PiecewiseFit>& intra_exchange = links.intra_exchange;
  const HockneyFit* fit = piecewise ? &piecewise->single : nullptr;  // one line, every size
  std::optional<LogGPFit> loggp;
  if (fit) loggp = fit_loggp(*fit, stream);
  // The local rates' fits (reduction, copy, allocation, sent-buffer reduction). A figure no
  // fabric holds is refused before anything is written.
  const LocalRateFits local = fit_local_rates(set);
  with_flag(joined(flags.files), [&] { require_fabric_figures(links, loggp, local); });
  for (const auto* one : {&exchange, &intra_exchange}) {
    if (!one->has_value()) continue;
    for (const std::string& w : exchange_fit_warnings(**one)) {
      const std::string text = one == &intra_exchange ? "inside a node: " + w : w;
      warn(text);
      warnings.push_back(text);
    }
  }
  const std::vector<BusBandwidthFit> busbw =
      fit_bus_bandwidth(set.collectives, options, &warnings);
  // The local rates' warnings on stderr and in the report.
  for (const std::optional<GammaFit>* one :
       {&local.gamma, &local.copy, &local.alloc, &local.sent_reduction, &local.sent_exchange}) {
    if (!one->has_value()) continue;
    for (const std::string& w : gamma_fit_warnings(**one)) {
      warn(w);
      warnings.push_back(w);
    }
  }
  const std::optional<GammaFit>& gamma = local.gamma;
  const std::optional<GammaFit>& copy = local.copy;
  const std::optional<GammaFit>& alloc = local.alloc;
  const std::optional<GammaFit>& sent = local.sent_reduction;
  const std::optional<GammaFit>& sent_exchange = local.sent_exchange;
  if (!fit && busbw.empty() && !gamma && !copy && !alloc && !sent && !sent_exchange) {
    const bool unknown_ranks =
        std::any_of(set.collectives.begin(), set.collectives.end(),
                    [](const CollectivePoint& p) { return p.ranks == 0; });
    throw InputError(fmt::format(
        "nothing to calibrate in {}: no ping-pong times (for alpha and bandwidth) and no "
        "collective times of 2 or more ranks (for bus bandwidth), no reduction times (for "
        "gamma){}{}",
        flags.files.size() == 1 ? flags.files.front() : fmt::format("{} files", flags.files.size()),
        unknown_ranks ? "; its collective times have no rank count (the log prints none and "
                        "holds no mpirun -np line): pass --ranks N, the count they ran on"
                      : "",
        stream.empty() ? "" : "; osu_bw streams alone fit nothing without osu_latency"));
  }
  if (fit) {
    // A poor fit still gives figures, but a fabric written from it misprices messages: say so
    // on stderr as well as in the report (and the fabric file's comments).
    for (const std::string& w : piecewise_fit_warnings(*piecewise)) {
      const std::string text = two_level ? "across nodes: " + w : w;
      warn(text);
      warnings.push_back(text);
    }
    if (intra) {
      for (const std::string& w : piecewise_fit_warnings(*intra)) {
        warn("inside a node: " + w);
        warnings.push_back("inside a node: " + w);
      }
    }
  }
  // Exchange pairs inside and across nodes beside a ping-pong of one kind (files of different
  // runs pooled): one fit over both prices neither, and their samples disagree by design. (A
  // ping-pong of both kinds was fitted as two links above; ring-equivalent points name no
  // hosts.)
  std::optional<std::string> exchange_placement;  // also written into the fabric file
  if (!two_level) exchange_placement = placement_warning("exchange", exchanges);
  if (exchange_placement) {
    warn(*exchange_placement);
    warnings.push_back(*exchange_placement);
  }
  // Pooled files whose samples of one size disagree: the machine changed between them.
  for (const auto& [what, one] :
       {std::pair{"ping-pong", &piecewise},
        std::pair{"exchange", exchange_placement ? nullptr : &exchange},
        std::pair{"ping-pong inside a node", &intra},
        std::pair{"exchange inside a node", &intra_exchange}}) {
    if (one == nullptr || !one->has_value()) continue;
    if (const auto w = spread_warning(what, fit_spreads(**one))) {
      warn(*w);
      warnings.push_back(*w);
    }
  }
  if (!fit && !stream.empty()) {
    warnings.push_back(
        "osu_bw streaming data was read but not used: the LogGP gap needs a ping-pong fit "
        "(osu_latency) beside it");
  }

  std::optional<Topology> fabric;
  if (!flags.out.empty()) {
    if (!fit) {
      throw InputError(fmt::format(
          "--out {}: no ping-pong measurements to fit a link from (bus bandwidth alone does "
          "not give alpha)",
          flags.out));
    }
    const std::optional<double> gap = loggp ? loggp->gap_s : std::nullopt;
    if (two_level) {
      const auto [nodes, per_node] = placed_layout(link, set.runs);
      fabric = calibrated_two_level(*intra, *piecewise, gap, nodes, per_node, flags.name);
    } else {
      std::int64_t nodes = 2;
      for (const PingPongPoint& p : set.pingpong) nodes = std::max({nodes, p.from + 1, p.to + 1});
      for (const CollectivePoint& p : set.collectives) nodes = std::max(nodes, p.ranks);
      fabric = calibrated_topology(*piecewise, gap, nodes, flags.name);
    }
    fabric = with_exchange_fits(with_local_rates(*fabric, local), links);
    std::string toml =
        fabric_toml(*fabric, *piecewise, set.sources, gamma ? &*gamma : nullptr,
                    exchange ? &*exchange : nullptr, copy ? &*copy : nullptr,
                    alloc ? &*alloc : nullptr, sent ? &*sent : nullptr,
                    sent_exchange ? &*sent_exchange : nullptr, intra ? &*intra : nullptr,
                    intra_exchange ? &*intra_exchange : nullptr);
    if (exchange_placement) {  // after the first comment line, which says it is calibrated
      toml.insert(toml.find('\n') + 1, "# WARNING: " + *exchange_placement + "\n");
    }
    with_output_flag("--out", [&] { write_output_file(flags.out, toml, flags.files); });
  }

  Report report;
  report.command = "calibrate";
  report.kind = Kind::kMeasurement;
  const std::string what = fit && !busbw.empty() ? "alpha, bandwidth and bus bandwidth"
                           : fit                 ? "alpha and bandwidth"
                           : !busbw.empty()      ? "bus bandwidth"
                           : gamma               ? "the reduction cost"
                           : copy                ? "the copy cost"
                           : alloc               ? "the allocation cost"
                                                 : "the sent-buffer reduction cost";
  report.banner = measurement_banner(fmt::format("fit of {} from {} file{}", what,
                                                 flags.files.size(),
                                                 flags.files.size() == 1 ? "" : "s"));
  if (fit) {
    report.title = fmt::format(
        "Hockney fit T(m) = alpha + m / bandwidth, {} least squares over the median one-way "
        "time of {} sizes ({} .. {}){}",
        options.weighting == Weighting::kRelative ? "relative (1/T^2-weighted)" : "ordinary",
        fit->points.size(), format_bytes(fit->min_bytes), format_bytes(fit->max_bytes),
        flags.ring_equivalent ? " of the collective's ring steps (--ring-equivalent)"
        : two_level           ? " of the pairs across nodes"
                              : "");
    if (two_level) {
      report.notes.push_back(
          "The ping-pong's pairs lie inside a node and across nodes (by their hosts): two links, "
          "fitted apart. The residuals and regimes above are the network's (pairs across "
          "nodes); the intra_regimes table and the fields 'inside a node' are the node's. "
          "--out writes a two-level fabric: its [intra] and [inter] links, the ranks per node "
          "the hosts held, and one NIC per node (a node with more: --nics-per-node where the "
          "fabric is used).");
    }
    if (flags.ring_equivalent) {
      report.notes.push_back(
          "--ring-equivalent: each collective size m on N ranks is read as a ring's 2(N-1) steps "
          "(N-1 for reduce-scatter and all-gather) of one message of m/N, so 'size' is m/N and "
          "'one-way' the time per step; the link prices that ring as measured and is not a "
          "ping-pong's (other algorithms and rank counts priced on it inherit the ring's "
          "protocol choices).");
    }
  } else {
    report.title = "Bus bandwidth per size (nccl-tests convention); no ping-pong times to fit a "
                   "link";
  }
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const auto& f : flags.files) files.push_back(f);
  report.inputs["files"] = std::move(files);
  report.inputs["min_bytes"] = options.min_bytes;
  report.inputs["max_bytes"] =
      std::isfinite(options.max_bytes) ? nlohmann::ordered_json(options.max_bytes) : nullptr;
  report.inputs["weighting"] = std::string(weighting_name(options.weighting));
  report.inputs["ranks"] = ranks ? nlohmann::ordered_json(*ranks) : nullptr;
  report.inputs["out"] = flags.out.empty() ? nlohmann::ordered_json(nullptr)
                                           : nlohmann::ordered_json(flags.out);
  report.inputs["name"] = flags.name;
  report.inputs["regimes"] = regime_count ? nlohmann::ordered_json(*regime_count)
                                          : nlohmann::ordered_json("auto");

  const std::string no_fit = "no ping-pong data";
  const auto value_or_null = [&](auto get) -> Value {
    if (!fit) return Value{};
    return Value{get(*fit)};
  };
  report.add_field("alpha_s", "alpha", Unit::kSeconds,
                   value_or_null([](const HockneyFit& f) { return f.alpha_s; }), no_fit);
  report.add_field("bandwidth_Bps", "bandwidth", Unit::kRate,
                   value_or_null([](const HockneyFit& f) { return f.bandwidth_Bps; }), no_fit);
  report.add_field("crossover_bytes", "crossover m* = alpha x bandwidth", Unit::kBytes,
                   value_or_null([](const HockneyFit& f) { return f.crossover_bytes; }), no_fit);
  report.add_field("r_squared", "R^2", Unit::kPlain,
                   value_or_null([](const HockneyFit& f) { return f.r_squared; }), no_fit);
  report.add_field("weighting", "weighting", Unit::kText,
                   fit ? Value{std::string(weighting_name(fit->weighting))} : Value{}, no_fit);
  report.add_field("fit_min_bytes", "smallest size fitted", Unit::kBytes,
                   value_or_null([](const HockneyFit& f) { return f.min_bytes; }), no_fit);
  report.add_field("fit_max_bytes", "largest size fitted", Unit::kBytes,
                   value_or_null([](const HockneyFit& f) { return f.max_bytes; }), no_fit);
  report.add_field("fit_sizes", "sizes fitted", Unit::kCount,
                   fit ? Value{static_cast<std::int64_t>(fit->points.size())} : Value{}, no_fit);
  report.add_field("excluded_sizes", "sizes outside the range", Unit::kCount,
                   fit ? Value{fit->excluded_sizes} : Value{}, no_fit);
  report.add_field("regime_count", "size regimes of the link", Unit::kCount,
                   piecewise ? Value{static_cast<std::int64_t>(piecewise->regimes.size())}
                             : Value{},
                   no_fit);
  report.add_field("regime_rule", "regimes chosen", Unit::kText,
                   piecewise ? Value{piecewise->rule} : Value{}, no_fit);
  if (intra) {  // a two-level fit: the node's link beside the network's
    report.add_field("intra_alpha_s", "alpha inside a node", Unit::kSeconds,
                     intra->single.alpha_s);
    report.add_field("intra_bandwidth_Bps", "bandwidth inside a node", Unit::kRate,
                     intra->single.bandwidth_Bps);
    report.add_field("intra_regime_count", "size regimes inside a node", Unit::kCount,
                     static_cast<std::int64_t>(intra->regimes.size()));
  }
  report.add_field("gap_s", "LogGP g", Unit::kSeconds,
                   loggp && loggp->gap_s ? Value{*loggp->gap_s} : Value{},
                   loggp ? loggp->gap_note : no_fit);
  report.add_field("overhead_s", "LogGP o", Unit::kSeconds, Value{},
                   loggp ? loggp->overhead_note : no_fit);
  report.add_field("streaming_bandwidth_Bps", "largest streamed bandwidth", Unit::kRate,
                   loggp && loggp->streaming_bandwidth_Bps ? Value{*loggp->streaming_bandwidth_Bps}
                                                           : Value{},
                   "no streaming data");
  const std::string no_reduction = "no reduction data (scalewall-mpi reduce)";
  report.add_field("gamma_s_per_byte", "gamma (reduction cost per byte)", Unit::kSeconds,
                   gamma ? Value{gamma->gamma_s_per_byte} : Value{}, no_reduction);
  if (gamma) {
    report.add_field("reduction_rate_Bps", "reduction rate 1/gamma", Unit::kRate,
                     gamma->rate_Bps);
    report.add_field("reduction_r_squared", "reduction fit R^2", Unit::kPlain,
                     gamma->r_squared);
    report.add_field("reduction_regime_rule", "reduction rates", Unit::kText, gamma->rule);
  }
  add_local_rate_fields(report, copy, "copy", "copy", "no copy data (scalewall-mpi reduce)");
  add_local_rate_fields(report, alloc, "alloc", "allocation",
                        "no allocation data (scalewall-mpi reduce)");
  add_local_rate_fields(report, sent, "sent_reduction", "sent-buffer reduction",
                        "no sent-buffer reduction data (scalewall-mpi reduce, 2+ ranks)");
  add_local_rate_fields(report, sent_exchange, "sent_exchange", "sent-buffer exchange",
                        "no sent-buffer exchange data (scalewall-mpi reduce, 2+ ranks)");
  report.add_field("local_min_bytes", "smallest local pass", Unit::kBytes,
                   local.min_bytes > 0 ? Value{local.min_bytes} : Value{},
                   "no local passes (scalewall-mpi reduce)");
  report.add_field("working_set_ranks", "working-set ranks",
                   Unit::kCount,
                   local.ranks_per_host > 0 ? Value{local.ranks_per_host} : Value{},
                   "no local passes (scalewall-mpi reduce)");
  report.add_field("exchange_regime_count", "size regimes of the exchanges", Unit::kCount,
                   exchange ? Value{static_cast<std::int64_t>(exchange->regimes.size())} : Value{},
                   intra_exchange ? "no exchange data across nodes (those inside a node: "
                                    "intra_exchange_regimes)"
                                  : "no exchange data (scalewall-mpi exchange)");
  report.add_field("fabric_file", "fabric written to", Unit::kText,
                   flags.out.empty() ? Value{} : Value{flags.out}, "none (give --out)");

  if (piecewise) {
    report.tables.push_back(residuals_table(*piecewise));
    report.tables.push_back(regimes_table(*piecewise));
  }
  if (intra) {
    Table t = regimes_table(*intra);
    t.key = "intra_regimes";
    report.tables.push_back(std::move(t));
  }
  if (exchange) {
    Table t = regimes_table(*exchange);
    t.key = "exchange_regimes";
    report.tables.push_back(std::move(t));
  }
  if (intra_exchange) {
    Table t = regimes_table(*intra_exchange);
    t.key = "intra_exchange_regimes";
    report.tables.push_back(std::move(t));
  }
  if (gamma) add_rate_tables(report, *gamma, "reduction", "reduced", "gamma");
  if (copy) add_rate_tables(report, *copy, "copy", "copied", "copy");
  if (alloc) add_rate_tables(report, *alloc, "alloc", "allocated", "alloc");
  if (sent) add_rate_tables(report, *sent, "sent_reduction", "reduced", "sent reduction");
  if (sent_exchange) {
    add_rate_tables(report, *sent_exchange, "sent_exchange", "received", "sent exchange");
  }
  if (!busbw.empty()) {
    Table points{"busbw",
                 {{"series", "series", Unit::kText},
                  {"op", "op", Unit::kText},
                  {"algorithm", "algorithm", Unit::kText},
                  {"ranks", "ranks", Unit::kCount},
                  {"bytes", "size", Unit::kBytes},
                  {"samples", "samples", Unit::kCount},
                  {"time_s", "time", Unit::kSeconds},
                  {"algbw_Bps", "algbw", Unit::kRate},
                  {"busbw_Bps", "busbw", Unit::kRate}},
                 {},
                 {}};
    Table asymptotes{"busbw_asymptotes",
                     {{"series", "series", Unit::kText},
                      {"op", "op", Unit::kText},
                      {"algorithm", "algorithm", Unit::kText},
                      {"ranks", "ranks", Unit::kCount},
                      {"sizes", "sizes", Unit::kCount},
                      {"asymptote_Bps", "large-message busbw", Unit::kRate},
                      {"method", "from", Unit::kText}},
                     {},
                     {}};
    for (const BusBandwidthFit& b : busbw) {
      for (const BusBandwidthPoint& p : b.points) {
        points.add_row({series_label(set, b.series), std::string(op_name(b.op)),
                        b.algorithm.name(), b.ranks, p.bytes, p.samples, p.time_s, p.algbw_Bps,
                        p.busbw_Bps});
      }
      asymptotes.add_row({series_label(set, b.series), std::string(op_name(b.op)),
                          b.algorithm.name(), b.ranks,
                          static_cast<std::int64_t>(b.points.size()),
                          b.asymptote_Bps ? Value{*b.asymptote_Bps} : Value{},
                          b.asymptote_method.empty() ? Value{} : Value{b.asymptote_method}});
    }
    report.tables.push_back(std::move(points));
    report.tables.push_back(std::move(asymptotes));
  }

  report.extra["gap_note"] = loggp ? nlohmann::ordered_json(loggp->gap_note) : nullptr;
  report.extra["overhead_note"] = loggp ? nlohmann::ordered_json(loggp->overhead_note) : nullptr;
  report.inputs["pool"] = flags.pool;
  report.inputs["ring_equivalent"] = flags.ring_equivalent;
  report.add_list("sources", "source", set.sources);
  std::vector<std::string> series;
  for (const MeasurementSeries& s : set.series) series.push_back(s.label);
  report.add_list("series", "series", series);
  if (flags.pool) report.add_list("pooled", "pooled", pooled);
  report.add_list("warnings", "warning", warnings);

  if (fit) {
    switch (options.weighting) {
      case Weighting::kRelative:
        report.notes.push_back(
            "Each size counts once, at the median of its samples, weighted by 1/T^2: the fit "
            "minimises relative residuals, so small sizes fit alpha and large ones the "
            "bandwidth. A protocol switch (eager to rendezvous) shows as a run of residuals "
            "of one sign; --regimes auto (the default) splits the sizes into regimes, "
            "--min-bytes/--max-bytes fit one range.");
        break;
      case Weighting::kOrdinary:
        report.notes.push_back(
            "Each size counts once, at the median of its samples, unweighted: the largest "
            "sizes pin the line and alpha is its intercept, sensitive to noise there.");
        break;
    }
  }
  if (piecewise && piecewise->regimes.size() > 1) {
    report.notes.push_back(fmt::format(
        "alpha, bandwidth, crossover and R^2 are those of one line over every size; the link "
        "is the {} regimes of the regimes table, each its own line over its sizes ({}), and "
        "--out writes those.",
        piecewise->regimes.size(), piecewise->rule));
  }
  if (fabric) {
    report.notes.push_back(fmt::format(
        "{} describes {}; commands scale it to any rank count.", flags.out,
        two_level ? fmt::format("a two-level fabric of {} nodes x {} ranks", fabric->nodes,
                                fabric->ranks_per_node)
                  : fmt::format("a flat fabric of {} ranks (one per node)", fabric->ranks())));
  }
  if (!busbw.empty()) {
    report.notes.push_back(
        "busbw = size / time x (2(N-1)/N all-reduce; (N-1)/N reduce-scatter, all-gather, "
        "all-to-all; 1 broadcast, reduce), from the median time per size.");
  }
  return report;
}

}  // namespace

void register_calibrate(CLI::App& app) {
  auto flags = std::make_shared<CalibrateFlags>();
  const FlagGroup own = {
      {"files", &flags->files,
       "Measurement files ('-' for standard input): scalewall-mpi JSON Lines, nccl-tests logs "
       "and -J JSON, OSU Micro-Benchmarks logs (osu_latency, osu_multi_lat, osu_bw, osu_bibw, "
       "osu_mbw_mr, osu_allreduce, osu_reduce, osu_bcast, osu_alltoall), Intel MPI Benchmarks "
       "logs (PingPong, Allreduce, Reduce, Bcast, Barrier, Alltoall); the format is read from "
       "the content, and every table of every file is a series of its own",
       "FILE", {}, FlagKind::kRequired},
      {"--out,-o", &flags->out,
       "Write the fitted link as a fabric file (TOML) that collective, select, predict and "
       "scenario files accept",
       "FILE", {}, FlagKind::kFileName},
      {"--min-bytes", &flags->min_bytes, "Fit only sizes at or above this", "SIZE"},
      {"--max-bytes", &flags->max_bytes, "Fit only sizes at or below this", "SIZE"},
      {"--ranks,-n", &flags->ranks, "Rank count of collective logs that do not record one (OSU's)",
       "N"},
      {"--weighting", &flags->weighting,
       "Least-squares weighting: relative (1/T^2, minimises relative residuals) or ordinary "
       "(unweighted)",
       "relative|ordinary", "relative"},
      {"--name", &flags->name, "Name of the fabric written by --out", "NAME", "calibrated"},
      regimes_flag(&flags->regimes),
      {"--pool", &flags->pool,
       "Pool the series (every table of every file) that agree in op, rank count and layout "
       "into one; without it each is fitted apart, and one link needs one ping-pong series"},
      {"--ring-equivalent", &flags->ring_equivalent,
       "With no ping-pong times (an nccl-tests, osu_allreduce or IMB Allreduce log alone): fit "
       "the link to the collective series as ring steps, each size m on N ranks a message of "
       "m/N taking t / (2(N-1)) (all-reduce; N-1 steps for reduce-scatter and all-gather). "
       "The link prices that ring as measured; it is not a ping-pong's"},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "calibrate",
      "Fit alpha and bandwidth (and the LogGP gap where the data allow) to measured ping-pong "
      "times, and bus bandwidth to measured collectives; optionally write a fabric file.",
      {own},
      "Examples:\n"
      "  mpirun -np 2 scalewall-mpi pingpong > pingpong.jsonl\n"
      "  scalewall calibrate pingpong.jsonl --out fabric.toml\n"
      "  scalewall collective --fabric fabric.toml --ranks 64 --bytes 1MB\n"
      "  scalewall calibrate osu_latency.txt osu_bw.txt      (adds the LogGP gap)\n"
      "  scalewall calibrate all_reduce_perf.log             (bus bandwidth per size)"});
  cmd->callback([flags] { emit(run_calibrate(*flags), flags->format); });
}

}  // namespace scalewall::cli
