// scalewall/present/plot.h: finished results as figures, drawn by gnuplot.
//
// Each *_plot function is pure: it takes a finished result (a Prediction, a SelectionMap, a
// set of cost lines, plain measured vectors) and returns a Plot, the text of a gnuplot script
// that draws it: the data as inline datablocks ($name << EOD ... EOD) and the commands that
// plot them, with every setting written out (no gnuplot defaults are relied on for labels,
// scales or ranges). gnuplot_script adds the terminal and the output file; render_plot runs
// gnuplot (Debian's gnuplot-nox) on that script to write an SVG or PNG file.
//
// Every plot's title starts with what it shows: "MODEL: ...", "SIMULATION: ..." or
// "MEASUREMENT: ..." (kind_title), so a figure cut out of a page still says whether it is a
// prediction or a measurement. The second title line (the subtitle) names the scenario or
// network. Text is drawn as written (gnuplot's "noenhanced" mode: no ^ or _ markup).
//
// Axes carry their units: times in s, ms, us or ns (one unit per axis, chosen from the
// largest value), sizes in bytes with binary prefixes (KiB, MiB, GiB), rates in B/s, rank
// counts as plain numbers on a log2 axis.
#ifndef SCALEWALL_PLOT_H_
#define SCALEWALL_PLOT_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/analysis/calibrate.h"
#include "scalewall/analysis/predict.h"
#include "scalewall/analysis/split_curve.h"
#include "scalewall/present/report.h"
#include "scalewall/analysis/select.h"
#include "scalewall/model/step_model.h"
#include "scalewall/model/topology.h"

namespace scalewall {

// "MODEL", "SIMULATION", "MEASUREMENT": the first word of every plot title.
std::string_view kind_title(Kind kind);

// A figure as gnuplot text.
struct Plot {
  Kind kind = Kind::kModel;
  std::string name;      // short stem for file names: "scaling", "breakdown", "message-cost",
                         // "selection-map", "measured-vs-predicted", "per-rank-wait"
  std::string title;     // first title line; starts with kind_title(kind) + ": "
  std::string subtitle;  // second title line (the scenario, network or source); may be empty
  std::string data;      // gnuplot datablocks, each "$name << EOD\n...\nEOD\n"
  std::string commands;  // settings and the plot command; read only the datablocks above
  int width_px = 960;    // size of the picture. Default: 960 x 600.
  int height_px = 600;
};

enum class PlotFormat { kSvg, kPng };

// "svg", "png".
std::string_view plot_format_name(PlotFormat format);

// The format named by the path's extension, .svg or .png (either case). Throws InputError
// naming the path otherwise.
PlotFormat plot_format_for_path(std::string_view path);

// The whole script that writes `plot` to `output_path`:
//   SVG: set terminal svg size W,H fixed noenhanced font 'DejaVu Sans,12' background white
//   PNG: set terminal pngcairo (cairo, anti-aliased; in gnuplot-nox), or, where this gnuplot
//        lacks it, the libgd png terminal, chosen by the script itself from GPVAL_TERMINALS
// then "set output '<path>'", the data, the title, the commands and "unset output".
std::string gnuplot_script(const Plot& plot, PlotFormat format, std::string_view output_path);

// ---- Figures of the step model (predict.h) ----

// The scaling curve: speedup (strong: T1/T(N); weak: Gustafson's scaled speedup) and
// efficiency (right axis, %) against ranks, both axes log2 for speedup; the ideal line
// (speedup = N); the knee and the largest rank count at the target efficiency marked by
// vertical lines, the target efficiency by a horizontal one. Title: "MODEL: STRONG scaling of
// <subject>" or "MODEL: WEAK scaling of <subject>". `network` is the subtitle.
// REQUIRES: prediction.rows not empty (throws InputError).
Plot scaling_plot(const Prediction& prediction, std::string_view subject,
                  std::string_view network);

// The scaling curve of a transformer scenario (split_curve.h) as scaling_plot draws the
// data-parallel one: speedup and efficiency against GPUs, each against the smallest count
// that fits (N0), the ideal line N / N0, the knee marked; only counts whose split fits are
// drawn. Title "MODEL: STRONG scaling of <subject>" (or WEAK). REQUIRES: a count that fits
// (throws InputError).
Plot split_curve_plot(const SplitCurve& curve, std::string_view subject,
                      std::string_view network);

// The step time per rank count, split by mechanism: compute, serial, latency, bandwidth,
// variance, checkpoint, where latency and bandwidth split the exposed communication in the
// proportion of its alpha terms to the rest (and bandwidth also carries compression). Each bar
// stacks the mechanisms' shares of its step, in percent of the predicted step (left axis, 0
// to 100%), so that a strong-scaling curve whose step falls a thousandfold keeps every bar
// readable; the predicted step and the ideal step (strong T1/N, weak T1) are lines on a log
// time axis at the right. The key sits below the plot, leaving the title the picture's width.
// Mechanisms that are zero at every rank count are left out of the stack and named in the
// subtitle. REQUIRES: prediction.rows not empty.
Plot breakdown_plot(const Prediction& prediction, std::string_view subject,
                    std::string_view network);

// ---- Message cost against size (link.h) ----

// One affine cost line T(m) = latency_s + m / bandwidth_Bps: a point-to-point link (alpha,
// bandwidth), or an all-reduce at a bus bandwidth with N ranks (latency 2(N-1) alpha,
// bandwidth N busbw / (2(N-1))). Its crossover, where the two terms are equal, is
// latency_s x bandwidth_Bps (none when latency_s is 0).
struct CostLine {
  std::string label;        // legend text: "intra-node (2 us, 450 GB/s)"
  double latency_s = 0;     // >= 0
  double bandwidth_Bps = 0; // > 0
};

// The links of a topology: a flat network's one link ("link"); a fabric's intra-node and
// inter-node links, and, when a node's ranks outnumber its NICs, the inter-node link as each
// rank sees it when all of them cross at once (shared_inter). LogGP links use alpha = L + 2o
// and 1/G.
std::vector<CostLine> link_cost_lines(const Topology& topology);

// An all-reduce at the network's bus bandwidth, one line per rank count (each >= 2):
// 2(N-1) alpha + 2(N-1)/N m / busbw. REQUIRES: network.busbw_Bps > 0.
std::vector<CostLine> busbw_cost_lines(const Network& network,
                                       std::span<const std::int64_t> ranks);

// A size to mark with a vertical line: "gradient 14 GB", "bucket 25 MB".
struct SizeMark {
  std::string label;
  double bytes = 0;  // > 0
};

// Cost against size, log-log, one curve per line, each line's crossover marked with a point
// and its size. Sizes run over powers of two from 1 B to max_bytes (0: the smallest power of
// two at or above the largest of 1 GiB, 64 x the largest crossover and 2 x the largest mark).
// The title is "MODEL: <what>" ("MODEL: message cost against size, per link"). REQUIRES: lines not
// empty, each with latency_s >= 0 and bandwidth_Bps > 0, all finite; marks > 0.
Plot message_cost_plot(std::span<const CostLine> lines, std::string_view what,
                       std::string_view subject, std::span<const SizeMark> marks = {},
                       double max_bytes = 0);

// ---- The selection map (select.h) ----

// The cheapest algorithm in each cell of the map as a coloured image over (size, ranks), one
// colour per algorithm that wins somewhere, named on the colour box; the exact switch sizes
// as black crosses between the cells they separate; rows with N = 1 (nothing to exchange)
// grey. Sizes and rank counts are placed by index (each grid is logarithmic), labelled with
// their values. REQUIRES: a map with at least one row and one size.
Plot selection_map_plot(const SelectionMap& map, std::string_view subject,
                        std::span<const SizeMark> marks = {});

// ---- Measurements (calibrate, validate and diagnose draw these) ----

enum class AxisScale { kLinear, kLog2, kLog10 };
enum class Quantity { kPlain, kCount, kSeconds, kBytes, kRate, kFraction };

// Measured points against what the model predicts for them. Title: "MEASUREMENT: <what>
// against the model" ("MEASUREMENT: <what>" without a prediction).
struct MeasuredSeries {
  std::string what;             // "all-reduce bus bandwidth"
  std::string subject;          // subtitle: the source file, the fabric
  std::string x_label;          // "message size m"; the unit is added
  Quantity x_quantity = Quantity::kBytes;
  AxisScale x_scale = AxisScale::kLog2;
  std::string y_label;          // "bus bandwidth"; the unit is added
  Quantity y_quantity = Quantity::kRate;
  AxisScale y_scale = AxisScale::kLinear;
  std::vector<double> x;
  std::vector<double> measured;       // one per x
  std::vector<double> predicted;      // empty, or one per x
  std::string measured_label = "measured";
  std::string predicted_label = "model";
};

// REQUIRES: x not empty; measured (and predicted, when given) as long as x; every value
// finite, and > 0 on a log axis (throws InputError naming the series and index).
Plot measured_vs_predicted_plot(const MeasuredSeries& series);

// Several measured series on one figure, one line each in its own colour, named by its label
// in the key: every table of every file drawn, none pooled. Title "MEASUREMENT: <what>".
struct MeasuredLine {
  std::string label;  // "run.txt: all_reduce_perf, library, 8 ranks"
  std::vector<double> x;
  std::vector<double> y;
  // A line of the model's, not measured (a prediction at the measured sizes, a fitted
  // regime): drawn dashed without points, in the colour of the measured line before it, its
  // key entry starting with kModelLineWords.
  bool model = false;
};

// How a model line's key entry starts: it is no measurement.
inline constexpr std::string_view kModelLineWords = "model (not a measurement): ";

struct MeasuredOverlay {
  std::string what;
  std::string subject;
  std::string x_label;
  Quantity x_quantity = Quantity::kBytes;
  AxisScale x_scale = AxisScale::kLog2;
  std::string y_label;
  Quantity y_quantity = Quantity::kRate;
  AxisScale y_scale = AxisScale::kLinear;
  std::vector<MeasuredLine> lines;
};

// REQUIRES: at least one line; each with as many y as x, at least one point, every value
// finite and > 0 on a log axis (throws InputError naming the line and index). Name:
// "measured-overlay".
Plot measured_overlay_plot(const MeasuredOverlay& overlay);

// validate's figure: each point's measured time against the model's prediction for it, log-log
// in seconds on equal axes, one colour per algorithm as measured (in order of first
// appearance, each named with its point count), the line measured = predicted and dashed
// lines 10% either side of it. Title: "MEASUREMENT: the model's prediction against N
// measured points"; subtitle "median |error| X, worst Y; <subject>" (the "all" summary, then
// the files and the fabric). Name: "measured-vs-predicted".
// REQUIRES: at least one point and its summaries; every time finite and above zero (throws
// InputError naming the point's index).
Plot validation_plot(const Validation& v, std::string_view subject);

// The distribution of a per-rank time (wait, arrival, step) over iterations: for each rank a
// box from the 25th to the 75th percentile with the median across it and whiskers to the
// least and greatest sample; the median over all samples as a dashed line. Title:
// "MEASUREMENT: per-rank <quantity> distribution". Quantiles interpolate linearly between
// order statistics (type 7, as numpy's default).
// REQUIRES: ranks and samples_s of one length, not empty; every rank's samples not empty,
// finite and >= 0 (throws InputError naming the rank).
Plot per_rank_distribution_plot(std::span<const std::int64_t> ranks,
                                std::span<const std::vector<double>> samples_s,
                                std::string_view quantity, std::string_view subject);

}  // namespace scalewall

#endif  // SCALEWALL_PLOT_H_
