// scalewall report: every figure of a scenario, or of measurement files, drawn as SVG and PNG
// plots and gathered with their tables into one self-contained HTML page.
//
// Each FILE is read by what it holds, not by its name: a scenario (TOML with a [workload]
// section) gets its scaling curve, step-time breakdown, what-if table, message cost per link
// and selection map; anything else is read as measurements (scalewall-mpi JSON Lines,
// nccl-tests, OSU, IMB), all of them into one set, which gets measured bus bandwidth against
// size, one-way time against size, and the per-rank arrival and wait distributions.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cli/common.h"
#include "scalewall/base/utf8.h"
#include "cli/transformer_reports.h"
#include "scalewall/model/collective.h"
#include "scalewall/present/html_page.h"
#include "scalewall/io/file_format.h"
#include "scalewall/io/input_file.h"
#include "scalewall/io/measurement.h"
#include "scalewall/platform/output_file.h"
#include "scalewall/platform/staged_output.h"
#include "scalewall/platform/gnuplot.h"
#include "scalewall/present/plot.h"
#include "scalewall/present/prediction_tables.h"
#include "scalewall/present/record_names.h"
#include "scalewall/analysis/predict.h"
#include "scalewall/model/scaling.h"
#include "scalewall/io/scenario_file.h"
#include "scalewall/analysis/select.h"
#include "scalewall/analysis/calibrate.h"
#include "scalewall/base/units.h"

namespace scalewall::cli {
namespace {

namespace fs = std::filesystem;

struct ReportFlags {
  std::vector<std::string> files;
  std::string output;
  std::string max_ranks = "1024";
  std::string target_efficiency = "0.5";
  std::string ranks;  // for collective logs that give no rank count
  FabricFlags network;  // --fabric and its overrides: the model's line over the collectives
  std::string format = "table";
};

// One drawn figure, for the summary on stdout.
struct Drawn {
  Kind kind = Kind::kModel;
  std::string title;
  std::string svg;
  std::string png;
};

// Draws plots into the output directory under unique file names.
class Canvas {
 public:
  Canvas(fs::path dir, const Progress& progress) : dir_(std::move(dir)), progress_(progress) {}

  // A file stem not used yet: "seed-7b-bf16", then "seed-7b-bf16-2", ...
  std::string unique_stem(const std::string& wanted) {
    std::string stem;
    for (const char c : wanted) {
      const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
      const bool upper = c >= 'A' && c <= 'Z';
      stem += keep ? c : upper ? static_cast<char>(c - 'A' + 'a') : '-';
    }
    // A file name has a length limit (255 bytes on most file systems): a long scenario name
    // gives a stem of its first 48 characters.
    constexpr std::size_t kMaxStem = 48;
    if (stem.size() > kMaxStem) stem.resize(kMaxStem);
    while (!stem.empty() && stem.back() == '-') stem.pop_back();
    if (stem.empty()) stem = "figures";
    std::string candidate = stem;
    for (int k = 2; stems_.count(candidate) != 0; ++k) candidate = fmt::format("{}-{}", stem, k);
    stems_.insert(candidate);
    return candidate;
  }

  HtmlFigure draw(const Plot& plot, const std::string& stem, std::string caption) {
    const std::string svg = fmt::format("{}-{}.svg", stem, plot.name);
    const std::string png = fmt::format("{}-{}.png", stem, plot.name);
    progress_.say(fmt::format("drawing {} and {}", svg, png));
    render_plot(plot, (dir_ / svg).string());
    render_plot(plot, (dir_ / png).string());
    drawn_.push_back({plot.kind, plot.title, svg, png});
    HtmlFigure f;
    f.kind = plot.kind;
    f.image = svg;
    f.alternate = png;
    f.caption = std::move(caption);
    f.width_px = plot.width_px;
    f.height_px = plot.height_px;
    return f;
  }

  const std::vector<Drawn>& drawn() const { return drawn_; }

 private:
  fs::path dir_;
  const Progress& progress_;
  std::set<std::string> stems_;
  std::vector<Drawn> drawn_;
};

// ---- a scenario ----

Table cost_line_table(const std::vector<CostLine>& lines) {
  Table t{"links",
          {{"label", "line", Unit::kText},
           {"latency_s", "latency", Unit::kSeconds},
           {"bandwidth_Bps", "bandwidth", Unit::kRate},
           {"crossover_bytes", "crossover m*", Unit::kBytes}},
          {},
          {}};
  for (const CostLine& l : lines) {
    t.add_row({l.label, l.latency_s, l.bandwidth_Bps,
               l.latency_s > 0 ? Value{l.latency_s * l.bandwidth_Bps} : Value{}});
  }
  return t;
}

// Powers of four from 1 B to the first at or above `largest` (at most 64 sizes).
std::vector<double> map_sizes(double largest) {
  std::vector<double> sizes;
  for (double m = 1; sizes.size() < 64; m *= 4) {
    sizes.push_back(m);
    if (m >= largest) break;
  }
  return sizes;
}

// The network in a few words, for plot subtitles.
std::string short_network(const ScenarioFile& file) {
  const Scenario& s = file.scenario;
  if (!s.network.fabric) return file.network_description;
  const Topology& t = *s.network.fabric;
  return fmt::format("fabric {}, {} ranks per node{}", t.name, t.ranks_per_node,
                     t.nominal ? ", nominal figures" : "");
}

HtmlSection scenario_section(const std::string& path, const ScenarioFile& file,
                             std::int64_t max_ranks, double target, Canvas& canvas,
                             const Progress& progress) {
  const Scenario& s = file.scenario;
  const std::string stem = canvas.unique_stem(s.name);
  HtmlSection section;
  section.heading = fmt::format("Scenario {} ({})", s.name, path);
  section.kind = Kind::kModel;
  section.id = "scenario-" + stem;
  const auto add = [&](HtmlBlock b) { section.blocks.push_back(std::move(b)); };

  if (!file.description.empty()) add(HtmlParagraph{file.description});
  add(HtmlParagraph{fmt::format("Network: {}.", file.network_description)});
  add(HtmlParagraph{
      "Every figure and table in this section is an analytic prediction of the step model, "
      "not a measurement."});

  progress.say(fmt::format("{}: predicting up to {} ranks", s.name, max_ranks));
  const std::vector<std::int64_t> grid =
      with_flag("--max-ranks", [&] { return default_rank_grid(s, max_ranks); });
  const Prediction p = with_flag("--max-ranks", [&] { return predict(s, grid, target); });
  const StepTime& last = p.rows.back();

  std::vector<Field> fields;
  const auto field = [&](std::string title, Unit unit, Value value, std::string null_text) {
    fields.push_back({"", std::move(title), unit, std::move(value), std::move(null_text)});
  };
  field("scaling", Unit::kText, std::string(scaling_mode_name(p.mode)), "");
  field("knee (exposed all-reduce = compute)", Unit::kCount,
        p.knee_ranks ? Value{*p.knee_ranks} : Value{},
        fmt::format("not reached up to {} ranks", last.ranks));
  field(fmt::format("largest N at {} efficiency", format_cell(target, Unit::kFraction)),
        Unit::kCount, p.max_ranks_at_target ? Value{*p.max_ranks_at_target} : Value{},
        "none: below the target from the start");
  field(fmt::format("efficiency at {} ranks", last.ranks), Unit::kFraction, last.efficiency, "");
  field(fmt::format("binding at {} ranks", last.ranks), Unit::kText,
        std::string(mechanism_name(last.binding)), "");
  field("best bucket with overlap", Unit::kBytes, p.best_bucket_bytes, "");
  add(HtmlFields{fields});

  add(canvas.draw(scaling_plot(p, s.name, short_network(file)), stem,
                  "Speedup and efficiency against ranks, with the ideal line, the knee and the "
                  "largest rank count that holds the target efficiency."));
  add(HtmlTable{"The scaling curve", scaling_curve_table(p, TableWords::kPage)});
  add(canvas.draw(breakdown_plot(p, s.name, short_network(file)), stem,
                  "Where each step's time goes, by mechanism: each bar is one rank count's "
                  "step, split into its mechanisms' shares (left axis, so that a short step "
                  "at many ranks reads as well as a long one); the predicted and the ideal step "
                  "time are the lines, on the log axis at the right."));

  progress.say(fmt::format("{}: what-if at {} ranks", s.name, last.ranks));
  const WhatIf w = what_if(s, last.ranks, file.what_if);
  add(HtmlTable{fmt::format("What each remedy buys at {} ranks (gain = time per unit of work, "
                            "baseline over remedy)",
                            last.ranks),
                what_if_table(w, TableWords::kPage)});

  // The sizes worth marking: the gradient and, when it is split, the bytes of one call.
  std::vector<SizeMark> marks;
  const double m = s.workload.gradient_bytes / s.settings.compression_ratio;
  if (last.buckets > 1 && last.bucket_bytes > 0 && last.bucket_bytes < m) {
    marks.push_back({fmt::format("gradient {}", format_bytes(s.workload.gradient_bytes)),
                     s.workload.gradient_bytes});
    marks.push_back({fmt::format("one call {}", format_bytes(last.bucket_bytes)),
                     last.bucket_bytes});
  } else if (m > 0) {
    marks.push_back({fmt::format("gradient, one call: {}", format_bytes(m)), m});
  }

  progress.say(fmt::format("{}: message cost", s.name));
  if (s.network.fabric) {
    const Topology& t = *s.network.fabric;
    const std::vector<CostLine> lines = link_cost_lines(t);
    add(canvas.draw(message_cost_plot(lines, "message cost against size, per link of the fabric",
                                      short_network(file), marks),
                    stem,
                    "One message's cost alpha + m / bandwidth on each link of the fabric; below "
                    "its crossover m* a message pays mostly for being sent at all, above it for "
                    "its bytes."));
    add(HtmlTable{"Links", cost_line_table(lines)});

    progress.say(fmt::format("{}: selection map", s.name));
    std::vector<std::int64_t> ranks;
    for (const std::int64_t r : grid) {
      if (r >= 2) ranks.push_back(r);
    }
    if (!ranks.empty()) {
      const std::vector<double> sizes = map_sizes(std::max(m, 1.0));
      std::vector<AlgorithmSpec> candidates;
      for (const std::int64_t r : ranks) {
        for (const AlgorithmSpec& a : applicable_algorithms(Op::kAllreduce, scaled_topology(t, r))) {
          if ((a.algorithm != Algorithm::kHierarchical || s.settings.hierarchical) &&
              std::find(candidates.begin(), candidates.end(), a) == candidates.end()) {
            candidates.push_back(a);
          }
        }
      }
      const SelectionMap map = selection_map(
          Op::kAllreduce, ranks, sizes, [&](std::int64_t r) { return scaled_topology(t, r); },
          s.settings.cost, candidates);
      std::string caption =
          "The cheapest all-reduce algorithm for each rank count and message size on this "
          "fabric; crosses mark the exact sizes where the winner changes.";
      if (!s.settings.hierarchical) {
        caption += " Hierarchical algorithms are left out, as the scenario does (hierarchical "
                   "= false); the what-if table tries them.";
      }
      if (s.settings.algorithm) {
        caption += fmt::format(" The scenario fixes {} for its all-reduce.",
                               algorithm_name(*s.settings.algorithm));
      }
      add(canvas.draw(selection_map_plot(map, short_network(file), marks), stem,
                      caption));
      Table switches{"switches",
                     {{"ranks", "ranks", Unit::kCount},
                      {"from", "from", Unit::kText},
                      {"to", "to", Unit::kText},
                      {"bytes", "at", Unit::kBytes}},
                     {},
                     {}};
      for (const SelectionRow& row : map.rows) {
        for (const SelectionRow::Switch& sw : row.switches) {
          switches.add_row({row.ranks, algorithm_name(sw.from), algorithm_name(sw.to), sw.bytes});
        }
      }
      if (!switches.rows.empty()) {
        add(HtmlTable{"Where the cheapest algorithm changes (exact tie sizes)", switches});
      }
    }
  } else {
    std::vector<std::int64_t> at;
    for (const std::int64_t r : grid) {
      if (r >= 2) at.push_back(r);
    }
    // At most five rank counts, always the largest.
    std::vector<std::int64_t> shown;
    const std::size_t stride = at.size() <= 5 ? 1 : (at.size() + 3) / 4;
    for (std::size_t i = 0; i < at.size(); i += stride) shown.push_back(at[i]);
    if (!at.empty() && shown.back() != at.back()) shown.push_back(at.back());
    if (!shown.empty()) {
      const std::vector<CostLine> lines = busbw_cost_lines(s.network, shown);
      add(canvas.draw(
          message_cost_plot(lines, "all-reduce time against size at the bus bandwidth",
                            file.network_description, marks),
          stem,
          s.network.busbw_alpha_s > 0
              ? "An all-reduce of m bytes at the scenario's bus bandwidth, 2(N-1) alpha + "
                "2(N-1)/N m / busbw, for several rank counts; the crossover is where its two "
                "terms are equal."
              : "An all-reduce of m bytes at the scenario's bus bandwidth, 2(N-1)/N m / busbw, "
                "for several rank counts. With no latency term (alpha = 0) there is no "
                "crossover: every size is bandwidth-bound."));
      add(HtmlTable{"All-reduce cost lines", cost_line_table(lines)});
    }
    add(HtmlParagraph{
        "No link figures and no selection map: the scenario's network is a measured bus "
        "bandwidth, which already includes whatever algorithm the library chose. Give the "
        "scenario a fabric file ([network] fabric = ...) to compare algorithms."});
  }
  return section;
}

// ---- measurements ----

// What the page and stderr say about collective logs that give no rank count.
constexpr std::string_view kUnknownRanksWords =
    "A collective log here gives no rank count (ranks unknown: an OSU log without an mpirun "
    "-np line), so its bus bandwidth cannot be computed: its figure shows the algorithm "
    "bandwidth, size / median time. Run the report again with --ranks N (the rank count the "
    "benchmark ran on) to plot bus bandwidth, as nccl-tests defines it.";

// The line label of a measured series: its table, then the algorithm and rank count when
// the series holds several.
std::string line_label(const MeasurementSet& set, std::size_t series, const std::string& more) {
  const std::string label = series_label(set, series);
  return label.empty() ? more : fmt::format("{}, {}", label, more);
}

// The model's bus bandwidth at the measured sizes of each (series, op, algorithm, ranks), as
// validate prices them on --fabric: size / predicted time x busbw_factor(op, ranks).
using ModelKey = std::tuple<std::size_t, std::string, std::string, std::int64_t>;
struct ModelLines {
  std::string fabric;  // its name, for the lines' labels
  std::map<ModelKey, std::vector<std::pair<double, double>>> busbw;  // (bytes, busbw_Bps)
};

ModelLines model_lines(const Validation& v, const std::string& fabric) {
  ModelLines lines;
  lines.fabric = fabric;
  for (const ValidationPoint& p : v.points) {
    if (p.bytes <= 0 || !(p.predicted_s > 0)) continue;
    lines.busbw[{p.series, std::string(op_name(p.op)), p.algorithm.name(), p.ranks}].push_back(
        {p.bytes, p.bytes / p.predicted_s * busbw_factor(p.op, p.ranks)});
  }
  return lines;
}

// The model's line for one measured line, when --fabric prices it.
std::optional<MeasuredLine> model_line(const ModelLines* model, const ModelKey& key,
                                       const std::string& label) {
  if (model == nullptr) return std::nullopt;
  const auto it = model->busbw.find(key);
  if (it == model->busbw.end()) return std::nullopt;
  MeasuredLine line;
  line.model = true;
  line.label = fmt::format("{} on {}", label, model->fabric);
  for (const auto& [bytes, busbw] : it->second) {
    line.x.push_back(bytes);
    line.y.push_back(busbw);
  }
  return line;
}

// The collectives' figures: one per op, every series of it a line of its own (bus bandwidth
// against size), with the model's line after each that `model` prices; the series of an
// unknown rank count on a figure of their own, as algorithm bandwidth, called so.
void collective_figures(const MeasurementSet& set, const std::string& from,
                        const ModelLines* model,
                        const std::function<void(const Plot&, std::string)>& draw) {
  using Figure = std::pair<std::string, bool>;                      // op, ranks known
  using LineKey = std::tuple<std::size_t, std::string, std::int64_t>;  // series, algorithm, ranks
  std::map<Figure, std::map<LineKey, std::vector<const CollectivePoint*>>> figures;
  for (const CollectivePoint& c : set.collectives) {
    if (c.bytes <= 0) continue;
    figures[{std::string(op_name(c.op)), c.ranks > 0}][{c.series, c.algorithm.name(), c.ranks}]
        .push_back(&c);
  }
  for (const auto& [figure, lines] : figures) {
    const auto& [op, known] = figure;
    MeasuredOverlay o;
    o.subject = from;
    o.x_label = "message size m per rank";
    o.y_label = known ? "bus bandwidth" : "algorithm bandwidth (size / time)";
    o.what = known ? fmt::format("{} bus bandwidth, {} series", op, lines.size())
                   : fmt::format("{} algorithm bandwidth (ranks unknown), {} series", op,
                                 lines.size());
    for (const auto& [key, points] : lines) {
      const auto& [series, algorithm, ranks] = key;
      MeasuredLine line;
      line.label = line_label(set, series,
                              known ? fmt::format("{}, {} ranks", algorithm, ranks)
                                    : fmt::format("{}, ranks unknown", algorithm));
      for (const CollectivePoint* c : points) {
        line.x.push_back(c->bytes);
        line.y.push_back(known ? c->busbw_Bps : c->algbw_Bps);
      }
      std::optional<MeasuredLine> priced =
          known ? model_line(model, {series, op, algorithm, ranks}, line.label) : std::nullopt;
      o.lines.push_back(std::move(line));
      if (priced) o.lines.push_back(std::move(*priced));
    }
    Plot plot = measured_overlay_plot(o);
    plot.name = known ? fmt::format("busbw-{}", op) : fmt::format("algbw-{}-ranks-unknown", op);
    draw(plot, known ? fmt::format("Measured {} bus bandwidth (from the median time) against "
                                   "message size, one line per series (table of a file), "
                                   "algorithm and rank count (nccl-tests convention).{}",
                                   op,
                                   model == nullptr
                                       ? ""
                                       : " Dashed: the model's bus bandwidth at the same sizes "
                                         "on the fabric, as validate prices each point (a "
                                         "prediction, not a measurement).")
                     : fmt::format("Measured {} algorithm bandwidth (size / median time) "
                                   "against message size: the logs give no rank count, so no "
                                   "bus bandwidth; --ranks N gives it.",
                                   op));
  }
}

// One set of pairs' fitted regimes, labelled with `kind` ("", "inside a node", "across
// nodes").
std::vector<MeasuredLine> regime_lines_of(const MeasurementSet& set, std::size_t series,
                                          const std::string& kind,
                                          const std::vector<PingPongPoint>& points,
                                          std::vector<std::string>& notes) {
  std::optional<PiecewiseFit> fit;
  try {
    fit = fit_piecewise(points);
  } catch (const InputError& e) {
    notes.push_back(fmt::format("{}: no fitted regimes drawn{}: {}",
                                line_label(set, series, "ping-pong"),
                                kind.empty() ? "" : " " + kind, e.what()));
    return {};
  }
  std::vector<MeasuredLine> lines;
  for (std::size_t k = 0; k < fit->regimes.size(); ++k) {
    const HockneyFit& r = fit->regimes[k].fit;
    MeasuredLine line;
    line.model = true;
    line.label = line_label(
        set, series,
        fmt::format("{}fitted regime {} of {}, {} .. {}: alpha {}, bandwidth {}",
                    kind.empty() ? "" : kind + ", ", k + 1,
                    fit->regimes.size(), format_cell(r.min_bytes, Unit::kBytes),
                    format_cell(r.max_bytes, Unit::kBytes), format_cell(r.alpha_s, Unit::kSeconds),
                    format_cell(r.bandwidth_Bps, Unit::kRate)));
    // The log axis has no 0 B: the first regime starts at its smallest size above zero.
    double lo = r.max_bytes;
    for (const FitPoint& p : r.points) {
      if (p.bytes > 0) lo = std::min(lo, p.bytes);
    }
    for (const double m : {lo, r.max_bytes}) {
      if (m <= 0 || (!line.x.empty() && m == line.x.back())) continue;
      line.x.push_back(m);
      line.y.push_back(r.alpha_s + m / r.bandwidth_Bps);
    }
    if (!line.x.empty()) lines.push_back(std::move(line));
  }
  return lines;
}

// The fitted regimes of one series' ping-pong times (fit_piecewise, as calibrate fits them):
// one segment per regime over the sizes it was fitted to, alpha + m / bandwidth at each end;
// pairs inside a node and across nodes fitted apart, as calibrate fits them. Nothing, and a
// note, when a set of pairs does not fit.
std::vector<MeasuredLine> regime_lines(const MeasurementSet& set, std::size_t series,
                                       std::vector<std::string>& notes) {
  std::vector<PingPongPoint> points;
  for (const PingPongPoint& p : set.pingpong) {
    if (p.series == series) points.push_back(p);
  }
  std::vector<std::pair<std::string, std::vector<PingPongPoint>>> kinds;
  if (mixed_placement(points)) {
    kinds.emplace_back("inside a node", placed_points(points, PairPlacement::kInside));
    kinds.emplace_back("across nodes", placed_points(points, PairPlacement::kAcross));
  } else {
    kinds.emplace_back("", points);
  }
  std::vector<MeasuredLine> lines;
  for (const auto& [kind, kind_points] : kinds) {
    std::vector<MeasuredLine> more = regime_lines_of(set, series, kind, kind_points, notes);
    std::move(more.begin(), more.end(), std::back_inserter(lines));
  }
  return lines;
}

// The ping-pong figure: one-way time against size, one line per series and rank pair, and
// after each series its fitted regimes.
void pingpong_figure(const MeasurementSet& set, const std::string& from,
                     std::vector<std::string>& notes,
                     const std::function<void(const Plot&, std::string)>& draw) {
  using LineKey = std::tuple<std::size_t, std::int64_t, std::int64_t>;  // series, from, to
  std::map<LineKey, std::vector<const PingPongPoint*>> lines;
  for (const PingPongPoint& p : set.pingpong) {
    if (p.bytes > 0 && p.one_way_median_s > 0) lines[{p.series, p.from, p.to}].push_back(&p);
  }
  if (lines.empty()) return;
  MeasuredOverlay o;
  o.subject = from;
  o.what = fmt::format("one-way message time, {} series", lines.size());
  o.x_label = "message size m";
  o.y_label = "one-way time (median)";
  o.y_quantity = Quantity::kSeconds;
  o.y_scale = AxisScale::kLog10;
  for (auto it = lines.begin(); it != lines.end(); ++it) {
    const auto& [series, a, b] = it->first;
    MeasuredLine line;
    line.label = line_label(set, series, fmt::format("ranks {} and {}", a, b));
    for (const PingPongPoint* p : it->second) {
      line.x.push_back(p->bytes);
      line.y.push_back(p->one_way_median_s);
    }
    o.lines.push_back(std::move(line));
    const auto next = std::next(it);
    if (next == lines.end() || std::get<0>(next->first) != series) {
      for (MeasuredLine& r : regime_lines(set, series, notes)) o.lines.push_back(std::move(r));
    }
  }
  Plot plot = measured_overlay_plot(o);
  plot.name = "pingpong";
  draw(plot, "Measured one-way time (half the round trip) against message size, one line per "
             "series (table of a file) and rank pair; dashed, each series' fitted regimes "
             "(the piecewise link calibrate fits: alpha + m / bandwidth over each regime's "
             "sizes, a model, not a measurement).");
}

HtmlSection measurement_section(const MeasurementSet& set, const ModelLines* model,
                                const std::vector<std::string>& model_notes, Canvas& canvas) {
  HtmlSection section;
  section.heading = "Measurements";
  section.kind = Kind::kMeasurement;
  section.id = "measurements";
  const auto add = [&](HtmlBlock b) { section.blocks.push_back(std::move(b)); };
  std::string sources;
  for (const std::string& s : set.sources) sources += (sources.empty() ? "" : "; ") + s;
  add(HtmlParagraph{fmt::format("Read from {}. Every figure in this section shows measured "
                                "data.",
                                sources)});
  // The plots' subtitle: the file when there is one, else how many.
  const std::string from = set.sources.size() == 1
                               ? set.sources.front()
                               : fmt::format("measurements from {} files", set.sources.size());
  for (const std::string& w : set.warnings) add(HtmlParagraph{"Warning: " + w});
  for (const std::string& w : series_overlaps(set)) add(HtmlParagraph{"Note: " + w});
  const std::string stem = canvas.unique_stem("measured");
  const auto draw = [&](const Plot& plot, std::string caption) {
    add(canvas.draw(plot, stem, std::move(caption)));
  };

  for (const std::string& n : model_notes) add(HtmlParagraph{"Note: " + n});
  if (!set.collectives.empty()) {
    collective_figures(set, from, model, draw);
    if (std::any_of(set.collectives.begin(), set.collectives.end(),
                    [](const CollectivePoint& c) { return c.ranks == 0; })) {
      add(HtmlParagraph{std::string(kUnknownRanksWords)});
    }
    Table t{"collectives",
            {{"series", "series", Unit::kText},
             {"op", "op", Unit::kText},
             {"algorithm", "algorithm", Unit::kText},
             {"ranks", "ranks", Unit::kCount},
             {"bytes", "size", Unit::kBytes},
             {"time_median_s", "median time", Unit::kSeconds},
             {"algbw_Bps", "algbw", Unit::kRate},
             {"busbw_Bps", "busbw", Unit::kRate},
             {"verified", "verified", Unit::kText}},
            {},
            {}};
    for (const CollectivePoint& c : set.collectives) {
      const bool known = c.ranks > 0;
      t.add_row({series_label(set, c.series), std::string(op_name(c.op)), c.algorithm.name(),
                 known ? Value{c.ranks} : Value{std::string("unknown")}, c.bytes,
                 c.time_median_s, c.algbw_Bps, known ? Value{c.busbw_Bps} : Value{},
                 c.verified ? "yes" : "NO"});
    }
    add(HtmlTable{"Measured collectives", t});
  }

  if (!set.pingpong.empty()) {
    std::vector<std::string> notes;
    pingpong_figure(set, from, notes, draw);
    for (const std::string& n : notes) add(HtmlParagraph{"Note: " + n});
    Table t{"pingpong",
            {{"series", "series", Unit::kText},
             {"from", "from", Unit::kCount},
             {"to", "to", Unit::kCount},
             {"bytes", "size", Unit::kBytes},
             {"one_way_median_s", "one-way (median)", Unit::kSeconds},
             {"one_way_min_s", "min", Unit::kSeconds},
             {"one_way_max_s", "max", Unit::kSeconds}},
            {},
            {}};
    for (const PingPongPoint& p : set.pingpong) {
      t.add_row({series_label(set, p.series), p.from, p.to, p.bytes, p.one_way_median_s,
                 p.one_way_min_s, p.one_way_max_s});
    }
    add(HtmlTable{"Measured ping-pong", t});
  }

  // Per-rank distributions: arrival times, and the wait of each step.
  const auto per_rank = [&](const auto& records, auto value, std::string_view quantity,
                            std::string caption) {
    if (records.empty()) return;
    std::map<std::int64_t, std::vector<double>> by_rank;
    for (const auto& r : records) by_rank[r.rank].push_back(value(r));
    std::vector<std::int64_t> ranks;
    std::vector<std::vector<double>> samples;
    for (auto& [rank, v] : by_rank) {
      ranks.push_back(rank);
      samples.push_back(std::move(v));
    }
    add(canvas.draw(per_rank_distribution_plot(ranks, samples, quantity, from), stem,
                    std::move(caption)));
  };
  per_rank(set.arrivals, [](const ArrivalPoint& a) { return a.arrival_s; }, "arrival",
           "When each rank reached the collective, after the earliest rank of the same "
           "iteration, over all iterations: a rank whose box sits high arrives late.");
  per_rank(set.steps, [](const StepPoint& s) { return s.wait_s; }, "wait",
           "How long each rank waited in the all-reduce for the slowest one, over all steps: "
           "the ranks that wait least are the ones the others wait for.");
  if (set.collectives.empty() && set.pingpong.empty() && set.arrivals.empty() &&
      set.steps.empty()) {
    add(HtmlParagraph{"The files hold no records to plot."});
  }
  return section;
}

// ---- the command ----

// Runs `body`, a step of writing the -o directory, with "-o: " in front of its messages.
template <typename F>
auto on_output_flag(F&& body) -> decltype(body()) {
  try {
    return with_flag("-o", body);
  } catch (const OutputError& e) {
    throw OutputError(std::string("-o: ") + e.what());
  }
}

// The model's lines on --fabric over the measured collectives (none without --fabric); a note
// when validate can price none of them. Throws InputError for a bad fabric, or a fabric with
// no measurements to draw it over.
std::optional<ModelLines> fabric_model(const FabricFlags& network, bool measured,
                                       const MeasurementSet& set,
                                       std::vector<std::string>& notes) {
  const std::optional<Topology> fabric = resolve_fabric_file(network);
  if (!fabric) return std::nullopt;
  if (!measured) {
    throw InputError("--fabric draws the model over measured collectives; give measurement "
                     "files (a scenario names its own fabric)");
  }
  if (set.collectives.empty()) return std::nullopt;
  CostOptions options;  // as validate's without --gamma: the fabric's local costs
  use_fabric_local_costs(options, *fabric);
  try {
    return model_lines(validate_collectives(set.collectives, *fabric, options, set.series),
                       fabric->name);
  } catch (const InputError& e) {
    notes.push_back(fmt::format("no model line on {}: {}", fabric->name, e.what()));
    return std::nullopt;
  }
}

Report run_report(const ReportFlags& flags) {
  with_flag("--format", [&] { return parse_format(flags.format); });
  const std::int64_t max_ranks = flag_count("--max-ranks", flags.max_ranks, 1, kMaxRanks);
  const double target = flag_fraction("--target-efficiency", flags.target_efficiency);
  if (!(target > 0) || target > 1) {
    throw InputError(fmt::format("--target-efficiency: {} is outside (0, 1]",
                                 flags.target_efficiency));
  }
  // Read every input before writing anything, so that bad input leaves no files behind.
  std::vector<std::pair<std::string, ScenarioFile>> scenarios;
  std::vector<std::pair<std::string, std::string>> measurements;  // path, text
  for (const std::string& path : flags.files) {
    std::string text = read_input_file(path, "input file");
    switch (detect_file_format(text)) {
      case FileFormat::kScenario: {
        ScenarioFile file = parse_scenario(
            text, path, is_standard_input(path) ? "" : fs::path(path).parent_path().string());
        if (!file.transformer) {
          with_flag("--max-ranks", [&] { return default_rank_grid(file.scenario, max_ranks); });
        }
        scenarios.emplace_back(path, std::move(file));
        break;
      }
      case FileFormat::kFabric:
        throw InputError(fmt::format(
            "{}: is a fabric file; report takes a scenario that names it ([network] fabric = "
            "\"{}\") or measurement files",
            path, path));
      default:  // measurements: their reader names what is wrong with anything else
        measurements.emplace_back(path, std::move(text));
        break;
    }
  }
  std::optional<std::int64_t> ranks;
  if (!flags.ranks.empty()) ranks = flag_count("--ranks", flags.ranks, 1, kMaxRanks);
  const Progress progress("report");
  MeasurementSet measured_set;
  const auto unknown_ranks = [&] {
    return std::count_if(measured_set.collectives.begin(), measured_set.collectives.end(),
                         [](const CollectivePoint& c) { return c.ranks == 0; });
  };
  for (const auto& [path, text] : measurements) {
    progress.say(fmt::format("reading {}", path));
    const auto before = unknown_ranks();
    parse_measurement_text(text, path, measured_set);
    if (ranks) {
      assign_unknown_ranks(measured_set, *ranks);
    } else if (unknown_ranks() > before) {
      std::cerr << fmt::format(
          "report: {}: the log gives no rank count, so its collectives are plotted as "
          "algorithm bandwidth (ranks unknown); --ranks N gives their bus bandwidth\n",
          visible(path));
    }
  }
  // --fabric: the model's line over the collectives, priced as validate prices them.
  std::vector<std::string> model_notes;
  const std::optional<ModelLines> model =
      fabric_model(flags.network, !measurements.empty(), measured_set, model_notes);
  // The report is drawn into a staging directory beside DIR and moved into place only when
  // every figure and the page are written (platform/staged_output.h).
  std::optional<StagedOutput> staged;
  on_output_flag([&] { staged.emplace(flags.output); });
  const StagedOutput& output = *staged;
  // The page is the one file whose name does not come from a scenario: refuse at once, before
  // drawing, when it would replace an input.
  on_output_flag([&] {
    refuse_output_over_inputs((output.named() / "index.html").string(), flags.files);
  });
  const fs::path dir(flags.output);
  Canvas canvas(output.staging(), progress);

  HtmlPage page;
  page.title = "scalewall report";
  std::string inputs;
  for (const std::string& f : flags.files) inputs += (inputs.empty() ? "" : ", ") + f;
  page.intro.push_back(fmt::format("Figures and tables for {}.", inputs));
  page.intro.push_back(
      "Each figure and section says what it shows: MODEL (an analytic prediction), SIMULATION "
      "(a seeded Monte Carlo estimate) or MEASUREMENT (measured data). Every image is an SVG "
      "with a PNG of the same figure beside it.");
  page.footer = fmt::format("scalewall {}", SCALEWALL_VERSION);
  for (const auto& [path, file] : scenarios) {
    if (file.transformer) {
      progress.say(fmt::format("{}: searching the splits", file.scenario.name));
      const std::string stem = canvas.unique_stem(file.scenario.name);
      page.sections.push_back(transformer_report_section(
          file, path, stem, max_ranks,
          [&](const Plot& plot, std::string caption) {
            return canvas.draw(plot, stem, std::move(caption));
          }));
      continue;
    }
    page.sections.push_back(scenario_section(path, file, max_ranks, target, canvas, progress));
  }
  if (!measurements.empty()) {
    page.sections.push_back(
        measurement_section(measured_set, model ? &*model : nullptr, model_notes, canvas));
  }
  const fs::path index = dir / "index.html";
  progress.say(fmt::format("writing {}", index.string()));
  {
    const fs::path staged_index = output.staging() / "index.html";
    write_output_file(staged_index.string(), render_html(page));
  }
  on_output_flag([&] { staged->commit("index.html", flags.files); });

  Report report;
  report.command = "report";
  const bool measured = !measurements.empty();
  report.kind = measured ? Kind::kMeasurement : Kind::kModel;
  report.banner =
      measured ? measurement_banner(fmt::format(
                     "plots of {} measurement file{}{}", measurements.size(),
                     measurements.size() == 1 ? "" : "s",
                     scenarios.empty() ? "" : "; the scenario figures are MODEL predictions"))
               : model_banner();
  report.title = fmt::format("{} figures written to {}; open {}", canvas.drawn().size(),
                             dir.string(), index.string());
  report.inputs["files"] = flags.files;
  report.inputs["output"] = flags.output;
  report.inputs["max_ranks"] = max_ranks;
  report.inputs["target_efficiency"] = target;
  report.inputs["ranks"] = ranks ? nlohmann::ordered_json(*ranks) : nullptr;
  report.inputs["fabric"] =
      flags.network.fabric.empty() ? nullptr : nlohmann::ordered_json(flags.network.fabric);
  Table files{"figures",
              {{"kind", "kind", Unit::kText},
               {"svg", "svg", Unit::kText},
               {"png", "png", Unit::kText},
               {"title", "title", Unit::kText}},
              {},
              {}};
  for (const Drawn& d : canvas.drawn()) {
    files.add_row({std::string(kind_name(d.kind)), d.svg, d.png, d.title});
  }
  report.tables.push_back(std::move(files));
  report.add_field("index_html", "page", Unit::kText, index.string());
  report.add_field("figure_count", "figures", Unit::kCount,
                   static_cast<std::int64_t>(canvas.drawn().size()));
  return report;
}

}  // namespace

void register_report(CLI::App& app) {
  auto flags = std::make_shared<ReportFlags>();
  const FlagGroup own = {
      {"files", &flags->files,
       "Scenario files (TOML) and measurement files (scalewall-mpi JSON Lines, nccl-tests, OSU, "
       "IMB), told apart by content",
       "FILE", {}, FlagKind::kRequired},
      // --out/-o is the output path in every command: here a directory (calibrate's is a
      // file). --output is the same flag's older name.
      {"--out,--output,-o", &flags->output,
       "Output directory DIR: the figures and DIR/index.html (created when missing)", "DIR", {},
       FlagKind::kRequired},
      {"--max-ranks", &flags->max_ranks,
       "Largest rank count of a scenario's sweep (powers of two up to N, plus N)", "N", "1024"},
      {"--target-efficiency", &flags->target_efficiency,
       "Efficiency marked on the scaling curve (default 0.5)", "E", "0.5"},
      {"--ranks,-n", &flags->ranks,
       "Rank count of collective logs that do not record one (OSU's without an mpirun -np "
       "line): gives their bus bandwidth",
       "N"},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "report",
      "Draw every figure of a scenario (scaling curve, step-time breakdown, message cost per "
      "link, selection map, with the what-if table) or of measurement files (bus bandwidth and "
      "one-way time against size, per-rank arrival and wait) as SVG and PNG, and write a "
      "self-contained DIR/index.html that shows them with their tables. Needs gnuplot.",
      {own, fabric_flags(&flags->network, FabricUse::kFabricOnly,
                         "each measured collective figure gets the model's line on it, priced "
                         "as validate prices every measured point; without one, no model line")},
      "Examples:\n"
      "  scalewall report examples/seed-7b-bf16.toml -o report/\n"
      "  scalewall report examples/dgx-llm-weak.toml --max-ranks 4096 -o report-dgx/\n"
      "  scalewall report run-collective.jsonl run-step.jsonl -o measured/\n"
      "Progress goes to stderr when it is a terminal; the list of figures to stdout."});
  cmd->callback([flags] { emit(run_report(*flags), flags->format); });
}

}  // namespace scalewall::cli
