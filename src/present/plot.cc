// Implementation of scalewall/present/plot.h: gnuplot scripts for finished results (run by
// platform/gnuplot.h).
#include "scalewall/present/plot.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "scalewall/base/error.h"
#include "scalewall/base/stats.h"
#include "scalewall/base/units.h"
#include "plot_text.h"

namespace scalewall {
namespace {

// ---- gnuplot text ----

// A control character (below space, or DEL): in any gnuplot text it could end a command line
// or a datablock row, so every quoting below writes it as a space.
bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

// Text from input (a scenario, fabric or file name) never becomes gnuplot code: every string
// reaches gnuplot as a single-quoted literal, the one kind of string in which gnuplot expands
// nothing (no backquote command substitution, no @macro, no backslash escapes). A single
// quote is doubled; a newline, which a single-quoted string cannot hold, becomes the fixed
// expression '...'."\n".'...'; every other control character becomes a space, so no input
// can end the command line.
std::string gp_string(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "''";
    } else if (c == '\n') {
      out += "'.\"\\n\".'";
    } else if (is_control(c)) {
      out += ' ';
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

// A text column inside a datablock, where gnuplot expands nothing either: double-quoted, a
// double quote made single, every control character (a newline would end the row, or end the
// datablock) a space.
std::string data_text(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') {
      out += '\'';
    } else if (is_control(c)) {
      out += ' ';
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

// One line of a gnuplot comment: control characters become spaces, so the comment cannot
// end early and start a command.
std::string comment_text(std::string_view text) {
  std::string out;
  for (const char c : text) out += is_control(c) ? ' ' : c;
  return out;
}

std::string num(double x) {
  SCALEWALL_CHECK(std::isfinite(x));
  return fmt::format("{}", x);
}

template <typename... Args>
void put(std::string& out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
  out += '\n';
}

// A datablock: "$name << EOD", the lines, "EOD".
void datablock(std::string& out, std::string_view name, const std::vector<std::string>& lines) {
  put(out, "${} << EOD", name);
  for (const std::string& line : lines) put(out, "{}", line);
  put(out, "EOD");
}

// One unit for a time axis, chosen from its largest value.
struct TimeUnit {
  double per_second = 1;
  std::string_view name = "s";
};

TimeUnit time_unit(double max_s) {
  if (max_s >= 1.0) return {1.0, "s"};
  if (max_s >= 1e-3) return {1e3, "ms"};
  if (max_s >= 1e-6) return {1e6, "us"};
  return {1e9, "ns"};
}

// "1 B", "64 KiB", "1 GiB" for sizes that are whole binary multiples; else "14 GB".
std::string size_text(double bytes) {
  static constexpr std::array<std::string_view, 5> kPrefixes = {"TiB", "GiB", "MiB", "KiB", "B"};
  for (std::size_t i = 0; i < kPrefixes.size(); ++i) {
    const double unit = std::ldexp(1.0, 10 * static_cast<int>(kPrefixes.size() - 1 - i));
    if (bytes >= unit && std::fmod(bytes, unit) == 0.0) {
      return fmt::format("{} {}", bytes / unit, kPrefixes[i]);
    }
  }
  return format_bytes(bytes);
}

// At most `most` evenly spread indices of [0, n), always the first and the last.
std::vector<std::size_t> thin_indices(std::size_t n, std::size_t most) {
  std::vector<std::size_t> out;
  if (n == 0) return out;
  const std::size_t stride = n <= most ? 1 : (n + most - 2) / (most - 1);
  for (std::size_t i = 0; i < n; i += stride) out.push_back(i);
  if (out.back() != n - 1) {
    if (n - 1 - out.back() < stride / 2 + 1 && out.size() > 1) out.pop_back();
    out.push_back(n - 1);
  }
  return out;
}

// The multiplicative tic step of a log2 size axis from `lo` to `hi` bytes: the smallest of
// 2, 4, 16, 32, 1024 that leaves at most 11 tics.
double log2_tic_factor(double lo, double hi) {
  const double octaves = std::log2(hi / lo);
  for (const double f : {2.0, 4.0, 16.0, 32.0, 1024.0}) {
    if (octaves / std::log2(f) <= 10.0) return f;
  }
  return 1048576.0;
}

constexpr std::array<std::string_view, 15> kColours = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd"};

std::string_view colour(std::size_t i) { return kColours[i % kColours.size()]; }

constexpr std::string_view kMarkColour = "#555555";
constexpr std::string_view kKneeColour = "#2ca02c";
constexpr std::string_view kTargetColour = "#9467bd";

std::string_view mechanism_colour(Mechanism m) {
  switch (m) {
    case Mechanism::kCompute:
      return "#4c72b0";
    case Mechanism::kSerial:
      return "#8c8c8c";
    case Mechanism::kLatency:
      return "#dd8452";
    case Mechanism::kBandwidth:
      return "#c44e52";
    case Mechanism::kVariance:
      return "#8172b3";
    case Mechanism::kCheckpoint:
      return "#937860";
  }
  SCALEWALL_CHECK(false && "unknown Mechanism");
  return {};
}

// Labels drawn over data sit on an opaque white box.
constexpr std::string_view kTextBoxStyle = "set style textbox opaque fillcolor rgb 'white' noborder";

// A vertical line at x (first axis) across the plot, with its label near the top (at
// `height`, a fraction of the plot's height): right of the line, or left of it when the line
// is in the right part of the plot (`on_left`).
void vertical_mark(std::string& out, double x, std::string_view label, std::string_view rgb,
                   std::string_view dash, double height, bool on_left) {
  put(out, "set arrow from {}, graph 0 to {}, graph 1 nohead dt {} lw 1.5 lc rgb '{}' front",
      num(x), num(x), dash, rgb);
  put(out, "set label {} at {}, graph {} {} offset character {}, 0 boxed front tc rgb '{}'",
      gp_string(label), num(x), num(height), on_left ? "right" : "left",
      on_left ? "-0.5" : "0.5", rgb);
}

// Explicit tics for a log2 size axis from lo to hi bytes: powers of the tic factor, labelled
// "1 B", "16 KiB", "1 GiB".
std::string size_tics(double lo, double hi) {
  const double factor = log2_tic_factor(lo, hi);
  std::string tics;
  for (double m = std::exp2(std::ceil(std::log2(lo))); m <= hi * (1 + 1e-12); m *= 2) {
    const double steps = std::log2(m) / std::log2(factor);
    if (std::abs(steps - std::round(steps)) > 1e-9) continue;
    tics += fmt::format("{}{} {}", tics.empty() ? "" : ", ", gp_string(size_text(m)), num(m));
  }
  return tics;
}

// The subtitle broken at "; " into lines of at most kSubtitleWidth characters; a part longer
// than that is broken at ", " too (a piece longer still stays whole). The title is centred
// on the picture, so a line wider than the picture would be cut off at both sides.
// 90 characters of the 13-point title font fill about 800 of the default 960 pixels.
constexpr std::size_t kSubtitleWidth = 90;

std::string wrapped(std::string_view text) {
  // The pieces and the separator that follows each ("" after the last).
  std::vector<std::pair<std::string_view, std::string_view>> pieces;
  for (;;) {
    const std::size_t cut = text.find("; ");
    std::string_view part = text.substr(0, cut);
    while (part.size() > kSubtitleWidth && part.find(", ") != std::string_view::npos) {
      const std::size_t comma = part.rfind(", ", kSubtitleWidth);
      const std::size_t at = comma == std::string_view::npos ? part.find(", ") : comma;
      pieces.emplace_back(part.substr(0, at), ", ");
      part.remove_prefix(at + 2);
    }
    pieces.emplace_back(part, cut == std::string_view::npos ? "" : "; ");
    if (cut == std::string_view::npos) break;
    text.remove_prefix(cut + 2);
  }
  std::string out;
  std::size_t line = 0;
  std::string_view separator;
  for (const auto& [piece, next] : pieces) {
    if (line > 0 && line + separator.size() + piece.size() > kSubtitleWidth) {
      out.append("\n");  // a line break stands for the separator
      line = 0;
    } else {
      out.append(separator);
      line += separator.size();
    }
    out.append(piece);
    line += piece.size();
    separator = next;
  }
  return out;
}

std::string ranks_tics(const std::vector<std::int64_t>& ranks) {
  std::string tics;
  for (const std::size_t i : thin_indices(ranks.size(), 12)) {
    tics += fmt::format("{}'{}' {}", tics.empty() ? "" : ", ", ranks[i], ranks[i]);
  }
  return tics;
}

std::string scaling_word(ScalingMode mode) {
  switch (mode) {
    case ScalingMode::kStrong:
      return "STRONG";
    case ScalingMode::kWeak:
      return "WEAK";
  }
  SCALEWALL_CHECK(false && "unknown ScalingMode");
  return {};
}

std::string percent(double fraction) { return format_percent(fraction); }

// How an axis shows a quantity: values are multiplied by `factor` before they are written,
// the label carries `unit`, the tic labels use `format`. Log10 axes of times and rates keep
// SI values and name each decade with its prefix ("10 us", "1 GB/s"); log2 axes of sizes get
// explicit tics (size_tics); everything else is scaled to one unit chosen from the largest
// value, so the tic labels are plain numbers.
struct AxisUnit {
  double multiply = 1;            // value * multiply / divide is what the axis shows
  double divide = 1;
  std::string unit;               // for the axis label; empty: none
  std::string format = "%g";
  bool size_tics = false;
};

AxisUnit axis_unit(Quantity q, AxisScale scale, double max_abs) {
  const bool log10 = scale == AxisScale::kLog10;
  // Decimal prefixes for a linear axis: the largest power of 1000 not above max_abs.
  const auto decimal = [&](std::string_view base) {
    static constexpr std::array<std::string_view, 5> kPrefixes = {"", "K", "M", "G", "T"};
    std::size_t k = 0;
    while (k + 1 < kPrefixes.size() && max_abs >= std::pow(1000.0, static_cast<double>(k + 1))) ++k;
    return AxisUnit{1.0, std::pow(1000.0, static_cast<double>(k)),
                    fmt::format("{}{}", kPrefixes[k], base), "%g", false};
  };
  switch (q) {
    case Quantity::kPlain:
    case Quantity::kCount:
      return {};
    case Quantity::kFraction:
      return {100.0, 1.0, "%", "%g", false};
    case Quantity::kSeconds: {
      if (log10) return {1.0, 1.0, "s", "%.0s %cs", false};
      const TimeUnit t = time_unit(max_abs > 0 ? max_abs : 1.0);
      return {t.per_second, 1.0, std::string(t.name), "%g", false};
    }
    case Quantity::kBytes:
      if (scale == AxisScale::kLog2) return {1.0, 1.0, "bytes", "%g", true};
      if (log10) return {1.0, 1.0, "bytes", "%.0s %cB", false};
      return decimal("B");
    case Quantity::kRate:
      if (log10) return {1.0, 1.0, "B/s", "%.0s %cB/s", false};
      return decimal("B/s");
  }
  SCALEWALL_CHECK(false && "unknown Quantity");
  return {};
}

void axis_settings(std::string& out, std::string_view axis, std::string_view label,
                   const AxisUnit& unit, AxisScale scale) {
  const std::string text =
      unit.unit.empty() ? std::string(label) : fmt::format("{} ({})", label, unit.unit);
  switch (scale) {
    case AxisScale::kLinear:
      put(out, "set {}label {}", axis, gp_string(text));
      break;
    case AxisScale::kLog2:
      put(out, "set logscale {} 2", axis);
      put(out, "set {}label {}", axis, gp_string(text + ", log2 scale"));
      break;
    case AxisScale::kLog10:
      put(out, "set logscale {} 10", axis);
      put(out, "set {}label {}", axis, gp_string(text + ", log scale"));
      break;
  }
  if (!unit.size_tics) put(out, "set format {} {}", axis, gp_string(unit.format));
}

void require_finite(double x, std::string_view what, std::size_t index, bool positive) {
  if (!std::isfinite(x) || (positive && !(x > 0))) {
    throw InputError(fmt::format("{}[{}] = {} cannot be plotted{}", what, index, x,
                                 positive ? " on a log axis (it must be above zero)" : ""));
  }
}

}  // namespace

namespace plot_text {
std::string quoted(std::string_view text) { return gp_string(text); }
std::string data_column(std::string_view text) { return data_text(text); }
std::string number(double x) { return num(x); }
}  // namespace plot_text

std::string_view kind_title(Kind kind) {
  switch (kind) {
    case Kind::kModel:
      return "MODEL";
    case Kind::kSimulation:
      return "SIMULATION";
    case Kind::kMeasurement:
      return "MEASUREMENT";
  }
  SCALEWALL_CHECK(false && "unknown Kind");
  return {};
}

std::string_view plot_format_name(PlotFormat format) {
  switch (format) {
    case PlotFormat::kSvg:
      return "svg";
    case PlotFormat::kPng:
      return "png";
  }
  SCALEWALL_CHECK(false && "unknown PlotFormat");
  return {};
}

PlotFormat plot_format_for_path(std::string_view path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".svg") return PlotFormat::kSvg;
  if (ext == ".png") return PlotFormat::kPng;
  throw InputError(fmt::format(
      "plot file '{}' must end in .svg or .png (the extension picks the format)", path));
}

std::string gnuplot_script(const Plot& plot, PlotFormat format, std::string_view output_path) {
  std::string out;
  put(out, "# {}", comment_text(plot.title));
  switch (format) {
    case PlotFormat::kSvg:
      put(out,
          "set terminal svg size {},{} fixed noenhanced font 'DejaVu Sans,12' "
          "background rgb 'white'",
          plot.width_px, plot.height_px);
      break;
    case PlotFormat::kPng:
      put(out, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {{");
      put(out,
          "  set terminal pngcairo size {},{} noenhanced font 'DejaVu Sans,10' "
          "background rgb 'white'",
          plot.width_px, plot.height_px);
      put(out, "}} else {{");
      put(out,
          "  set terminal png size {},{} noenhanced font 'DejaVu Sans,10' "
          "background rgb 'white'",
          plot.width_px, plot.height_px);
      put(out, "}}");
      break;
  }
  put(out, "set output {}", gp_string(output_path));
  put(out, "set encoding utf8");
  out += plot.data;
  const std::string title =
      plot.subtitle.empty() ? plot.title : plot.title + "\n" + wrapped(plot.subtitle);
  put(out, "set title {} font ',13'", gp_string(title));
  out += plot.commands;
  put(out, "unset output");
  return out;
}

// ---- the step model ----

namespace {

// A log axis reaches this factor beyond its outermost points, so that no point or line end
// sits on the frame.
constexpr double kLogAxisPadding = 1.3;

// The breakdown's stacks are shares of the step, so every bar is 100% tall; the share axis
// reaches this far above it so the top of the stack stays clear of the frame.
constexpr double kShareAxisTopPercent = 104;

// A label goes left of its vertical line past this fraction of the (log) rank axis: there is
// not room for the text to its right.
constexpr double kLabelLeftFrom = 0.6;

// A scaling curve as drawn: the data-parallel curve of a Prediction (against one rank) or the
// transformer curve of a SplitCurve (against its smallest count that fits).
struct CurveFigure {
  ScalingMode mode = ScalingMode::kStrong;
  std::string_view count_word = "ranks";  // the x axis's counts: "ranks" or "GPUs"
  std::string_view count_key = "ranks";   // their datablock column
  std::vector<std::int64_t> counts;
  std::vector<double> speedup;
  std::vector<double> efficiency;
  std::vector<double> ideal;
  std::optional<std::int64_t> knee;
  std::optional<double> target;           // the target efficiency, with the count holding it
  std::optional<std::int64_t> max_at_target;
  std::string speedup_label;              // the left axis
  std::string speedup_title;              // the key's entries
  std::string ideal_title;
  std::string against;                    // the subtitle's last part ("" for none)
};

// The subtitle of the scaling curve: the network, then the knee (or its absence) and the
// largest count at the target efficiency.
std::string scaling_subtitle(const CurveFigure& f, std::string_view network) {
  std::string marks;
  if (f.knee) {
    marks = fmt::format("knee at {} {}", *f.knee, f.count_word);
  } else {
    marks = fmt::format("no knee up to {} {}", f.counts.back(), f.count_word);
  }
  if (f.target && f.max_at_target) {
    marks += fmt::format("; efficiency >= {} up to {} {}", percent(*f.target), *f.max_at_target,
                         f.count_word);
  }
  if (!f.against.empty()) marks += "; " + f.against;
  return fmt::format("{}; {}", network, marks);
}

// The extent of a scaling curve's speedup axis (ideal included).
struct ScalingExtent {
  double top = 1;
  double bottom = 1;
};

// Writes the $scaling datablock (count, speedup, efficiency in %, ideal speedup) and returns
// the speedup axis's extent.
ScalingExtent scaling_data(const CurveFigure& f, std::string& out) {
  std::vector<std::string> lines = {
      fmt::format("# {} speedup efficiency_percent ideal_speedup", f.count_key)};
  ScalingExtent e;
  for (std::size_t i = 0; i < f.counts.size(); ++i) {
    lines.push_back(fmt::format("{} {} {} {}", f.counts[i], num(f.speedup[i]),
                                num(100.0 * f.efficiency[i]), num(f.ideal[i])));
    e.top = std::max({e.top, f.speedup[i], f.ideal[i]});
    e.bottom = std::min(e.bottom, f.speedup[i]);
  }
  datablock(out, "scaling", lines);
  return e;
}

// The key, grid, scales, ranges, tics and labels of the scaling curve's three axes.
void scaling_axes(std::string& c, const CurveFigure& f, const ScalingExtent& e) {
  put(c, "{}", kTextBoxStyle);
  put(c, "set key below height 1");
  put(c, "set grid xtics ytics lc rgb '#dddddd'");
  put(c, "set logscale x 2");
  put(c, "set logscale y 2");
  put(c, "set xrange [{}:{}]", num(static_cast<double>(f.counts.front()) / kLogAxisPadding),
      num(static_cast<double>(f.counts.back()) * kLogAxisPadding));
  put(c, "set yrange [{}:{}]", num(e.bottom / kLogAxisPadding), num(e.top * kLogAxisPadding));
  put(c, "set y2range [0:105]");
  put(c, "set xtics ({})", ranks_tics(f.counts));
  put(c, "set ytics nomirror");
  put(c, "set format y '%g'");
  put(c, "set y2tics 0, 20, 100 nomirror");
  put(c, "set format y2 '%g%%'");
  put(c, "set xlabel {}", gp_string(fmt::format("{} N (log2 scale)", f.count_word)));
  put(c, "set ylabel {}", gp_string(f.speedup_label));
  put(c, "set y2label 'parallel efficiency (%)'");
}

// The knee and the largest count at the target efficiency as vertical lines, the target
// efficiency as a horizontal line on the efficiency axis.
void scaling_marks(std::string& c, const CurveFigure& f) {
  const double x_lo = std::log2(static_cast<double>(f.counts.front()) / kLogAxisPadding);
  const double x_hi = std::log2(static_cast<double>(f.counts.back()) * kLogAxisPadding);
  const auto on_left = [&](std::int64_t n) {
    return (std::log2(static_cast<double>(n)) - x_lo) / (x_hi - x_lo) > kLabelLeftFrom;
  };
  if (f.knee) {
    vertical_mark(c, static_cast<double>(*f.knee),
                  fmt::format("knee: {} {}", *f.knee, f.count_word), kKneeColour, "2", 0.95,
                  on_left(*f.knee));
  }
  if (!f.target) return;
  if (f.max_at_target) {
    vertical_mark(c, static_cast<double>(*f.max_at_target),
                  fmt::format("efficiency >= {} up to {} {}", percent(*f.target),
                              *f.max_at_target, f.count_word),
                  kTargetColour, "3", 0.87, on_left(*f.max_at_target));
  }
  put(c,
      "set arrow from graph 0, second {} to graph 1, second {} nohead dt 3 lw 1 lc rgb '{}' "
      "back",
      num(100.0 * *f.target), num(100.0 * *f.target), kTargetColour);
  put(c,
      "set label {} at graph 0.99, second {} right offset character 0, 0.6 boxed front tc "
      "rgb '{}'",
      gp_string(fmt::format("target efficiency {}", percent(*f.target))),
      num(100.0 * *f.target), kTargetColour);
}

// The plot command: the ideal line, the speedup and the efficiency (right axis).
void scaling_plot_command(std::string& c, const CurveFigure& f) {
  put(c, "plot $scaling using 1:4 with lines dt 2 lw 1.5 lc rgb '#7f7f7f' title {}, \\",
      gp_string(f.ideal_title));
  put(c, "     $scaling using 1:2 with linespoints pt 7 ps 1.1 lw 2 lc rgb '#1f77b4' title {}, \\",
      gp_string(f.speedup_title));
  put(c,
      "     $scaling using 1:3 axes x1y2 with linespoints pt 5 ps 1.0 lw 2 lc rgb '#d62728' "
      "title 'efficiency (right axis)'");
}

// The figure of a curve, titled "MODEL: <MODE> scaling of <subject>".
Plot curve_plot(const CurveFigure& f, std::string_view subject, std::string_view network) {
  Plot plot;
  plot.kind = Kind::kModel;
  plot.name = "scaling";
  plot.title = fmt::format("MODEL: {} scaling of {}", scaling_word(f.mode), subject);
  plot.subtitle = scaling_subtitle(f, network);
  const ScalingExtent extent = scaling_data(f, plot.data);
  scaling_axes(plot.commands, f, extent);
  scaling_marks(plot.commands, f);
  scaling_plot_command(plot.commands, f);
  return plot;
}

// One mechanism's slice of the breakdown stack: its time at each rank count.
struct BreakdownPart {
  Mechanism mechanism;
  std::string title;
  std::vector<double> values;
};

// The stacked mechanisms of a breakdown, in stacking order, and the tallest step or ideal.
struct BreakdownParts {
  std::vector<BreakdownPart> parts;
  double max_s = 0;  // the longest step or ideal step
  double min_s = 0;  // the shortest (above zero), for the log time axis
};

// Every mechanism's time at each rank count, exposed communication split into its latency
// and bandwidth shares.
BreakdownParts breakdown_parts(const Prediction& p) {
  BreakdownParts b;
  b.parts = {
      {Mechanism::kCompute, "compute", {}},
      {Mechanism::kSerial, "serial", {}},
      {Mechanism::kLatency, "latency (alpha)", {}},
      {Mechanism::kBandwidth, "bandwidth (bytes)", {}},
      {Mechanism::kVariance, "variance", {}},
      {Mechanism::kCheckpoint, "checkpoint", {}},
  };
  for (const StepTime& t : p.rows) {
    const ExposedSplit split = split_exposed_communication(t);
    b.parts[0].values.push_back(t.compute_s);
    b.parts[1].values.push_back(t.serial_s);
    b.parts[2].values.push_back(split.latency_s);
    b.parts[3].values.push_back(split.bandwidth_s);
    b.parts[4].values.push_back(t.variance_s);
    b.parts[5].values.push_back(t.checkpoint_s);
    b.max_s = std::max({b.max_s, t.step_s, t.ideal_step_s});
    for (const double v : {t.step_s, t.ideal_step_s}) {
      if (v > 0 && (b.min_s == 0 || v < b.min_s)) b.min_s = v;
    }
  }
  return b;
}

// Keeps the parts that are above zero somewhere (compute always) and returns the names of
// the mechanisms left out.
std::vector<std::string> drop_zero_parts(std::vector<BreakdownPart>& parts) {
  std::vector<std::string> zero;
  std::vector<BreakdownPart> shown;
  for (BreakdownPart& part : parts) {
    const bool any = std::any_of(part.values.begin(), part.values.end(),
                                 [](double v) { return v > 0; });
    if (any || part.mechanism == Mechanism::kCompute) {
      shown.push_back(std::move(part));
    } else {
      zero.push_back(std::string(mechanism_name(part.mechanism)));
    }
  }
  parts = std::move(shown);
  return zero;
}

// Writes the $breakdown datablock: the rank count as a text column, each shown part as a
// share of that rank count's step in percent, then the ideal and the predicted step in
// `unit`.
void breakdown_data(const Prediction& p, const std::vector<BreakdownPart>& shown,
                    const TimeUnit& unit, std::string& out) {
  std::string header = "# ranks";
  for (const BreakdownPart& part : shown) {
    header += fmt::format(" {}_percent", mechanism_name(part.mechanism));
  }
  header += fmt::format(" ideal_{} step_{}", unit.name, unit.name);
  std::vector<std::string> lines = {header};
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const double step = p.rows[i].step_s;
    std::string line = data_text(fmt::format("{}", p.rows[i].ranks));
    for (const BreakdownPart& part : shown) {
      line.append(" ").append(num(step > 0 ? 100.0 * part.values[i] / step : 0.0));
    }
    line.append(" ").append(num(p.rows[i].ideal_step_s * unit.per_second));
    line.append(" ").append(num(step * unit.per_second));
    lines.push_back(std::move(line));
  }
  datablock(out, "breakdown", lines);
}

// The histogram style, the key below the plot (the title then has the picture's whole width),
// the share axis on the left and the log time axis on the right.
void breakdown_axes(std::string& c, const TimeUnit& unit, double min_s, double max_s) {
  put(c, "set style data histograms");
  put(c, "set style histogram rowstacked");
  put(c, "set style fill solid 0.9 border rgb '#404040'");
  put(c, "set boxwidth 0.7 relative");
  put(c, "set key outside below center horizontal");
  put(c, "set grid ytics lc rgb '#dddddd'");
  put(c, "set xlabel 'ranks N'");
  put(c, "set ylabel 'share of the step (%)'");
  put(c, "set yrange [0:{}]", num(kShareAxisTopPercent));
  put(c, "set ytics 0,20,100 nomirror");
  put(c, "set format y '%g%%'");
  put(c, "set xtics nomirror");
  put(c, "set y2label {}",
      gp_string(fmt::format("time per step ({}), log scale", unit.name)));
  put(c, "set logscale y2 10");
  const double lo = (min_s > 0 ? min_s : max_s) * unit.per_second / kLogAxisPadding;
  put(c, "set y2range [{}:{}]", num(lo), num(max_s * unit.per_second * kLogAxisPadding));
  put(c, "set y2tics nomirror");
  put(c, "set format y2 '%g'");
}

// The plot command: one stacked column per shown part (its share of the step), then the
// predicted and the ideal step as lines on the right axis.
void breakdown_plot_command(std::string& c, const std::vector<BreakdownPart>& shown,
                            ScalingMode mode) {
  std::string plot_line = "plot ";
  for (std::size_t k = 0; k < shown.size(); ++k) {
    const int column = static_cast<int>(k) + 2;
    plot_line += fmt::format("$breakdown using {}{} title {} lc rgb '{}', \\\n     ", column,
                             k == 0 ? ":xtic(1)" : "", gp_string(shown[k].title),
                             mechanism_colour(shown[k].mechanism));
  }
  const int ideal_column = static_cast<int>(shown.size()) + 2;
  plot_line += fmt::format(
      "$breakdown using 0:{} axes x1y2 with linespoints pt 7 ps 0.9 lw 2 lc rgb 'black' "
      "title 'step time (right axis)', \\\n     ",
      ideal_column + 1);
  plot_line += fmt::format(
      "$breakdown using 0:{} axes x1y2 with lines dt 2 lw 1.5 lc rgb '#7f7f7f' title {}",
      ideal_column,
      gp_string(mode == ScalingMode::kStrong ? "ideal step T1 / N (right axis)"
                                             : "ideal step T1 (right axis)"));
  put(c, "{}", plot_line);
}

}  // namespace

Plot scaling_plot(const Prediction& p, std::string_view subject, std::string_view network) {
  if (p.rows.empty()) throw InputError("scaling plot: the prediction has no rows");
  CurveFigure f;
  f.mode = p.mode;
  for (const StepTime& t : p.rows) {
    f.counts.push_back(t.ranks);
    f.speedup.push_back(t.speedup);
    f.efficiency.push_back(t.efficiency);
    f.ideal.push_back(static_cast<double>(t.ranks));
  }
  f.knee = p.knee_ranks;
  f.target = p.target_efficiency;
  f.max_at_target = p.max_ranks_at_target;
  const bool strong = p.mode == ScalingMode::kStrong;
  f.speedup_label = strong ? "speedup T1 / T(N) (log2 scale)"
                           : "scaled speedup, Gustafson (log2 scale)";
  f.speedup_title = strong ? "speedup (left axis)" : "scaled speedup (left axis)";
  f.ideal_title = "ideal speedup (= N)";
  return curve_plot(f, subject, network);
}

Plot split_curve_plot(const SplitCurve& curve, std::string_view subject,
                      std::string_view network) {
  if (!curve.base_gpus) throw InputError("scaling plot: no GPU count of the curve fits");
  CurveFigure f;
  f.mode = curve.mode;
  f.count_word = "GPUs";
  f.count_key = "gpus";
  const auto n0 = static_cast<double>(*curve.base_gpus);
  for (const SplitCurveRow& row : curve.rows) {
    if (!row.speedup || !row.efficiency) continue;
    f.counts.push_back(row.gpus);
    f.speedup.push_back(*row.speedup);
    f.efficiency.push_back(*row.efficiency);
    f.ideal.push_back(static_cast<double>(row.gpus) / n0);
  }
  f.knee = curve.knee_gpus;
  f.speedup_label = curve.mode == ScalingMode::kStrong
                        ? "speedup T(N0) / T(N) (log2 scale)"
                        : "speedup, tokens/s over N0's (log2 scale)";
  f.speedup_title = "speedup (left axis)";
  f.ideal_title = "ideal speedup (= N / N0)";
  f.against = fmt::format("speedup and efficiency against N0 = {} GPUs", *curve.base_gpus);
  return curve_plot(f, subject, network);
}

Plot breakdown_plot(const Prediction& p, std::string_view subject, std::string_view network) {
  if (p.rows.empty()) throw InputError("breakdown plot: the prediction has no rows");
  BreakdownParts b = breakdown_parts(p);
  const std::vector<std::string> zero = drop_zero_parts(b.parts);
  const TimeUnit unit = time_unit(b.max_s);

  Plot plot;
  plot.kind = Kind::kModel;
  plot.name = "breakdown";
  plot.title = fmt::format("MODEL: step time by mechanism, {} scaling of {}",
                           scaling_word(p.mode), subject);
  plot.subtitle = std::string(network);
  if (!zero.empty()) {
    std::string list;
    for (const std::string& z : zero) list += (list.empty() ? "" : ", ") + z;
    plot.subtitle += fmt::format("; zero at every rank count: {}", list);
  }
  breakdown_data(p, b.parts, unit, plot.data);
  breakdown_axes(plot.commands, unit, b.min_s, b.max_s);
  breakdown_plot_command(plot.commands, b.parts, p.mode);
  return plot;
}

// ---- message cost ----

std::vector<CostLine> link_cost_lines(const Topology& t) {
  const auto described = [](std::string_view name, const Link& l) {
    return CostLine{fmt::format("{} ({}, {})", name, format_seconds(l.alpha_s),
                                format_rate(l.bandwidth_Bps)),
                    l.alpha_s, l.bandwidth_Bps};
  };
  if (t.kind == TopologyKind::kFlatLink) return {described("link", t.inter)};
  std::vector<CostLine> lines;
  if (t.ranks_per_node > 1) lines.push_back(described("intra-node", t.intra));
  lines.push_back(described("inter-node", t.inter));
  if (t.ranks_per_node > t.nics_per_node || t.oversubscription > 1) {
    lines.push_back(described(
        fmt::format("inter-node, {} ranks of a node crossing at once", t.ranks_per_node),
        t.shared_inter(t.ranks_per_node)));
  }
  return lines;
}

std::vector<CostLine> busbw_cost_lines(const Network& network,
                                       std::span<const std::int64_t> ranks) {
  if (!(network.busbw_Bps > 0) || !std::isfinite(network.busbw_Bps)) {
    throw InputError(fmt::format("bus bandwidth {} B/s cannot be plotted", network.busbw_Bps));
  }
  std::vector<CostLine> lines;
  for (const std::int64_t r : ranks) {
    if (r < 2) continue;
    const BusBandwidthAllreduce call = busbw_allreduce(r, network.busbw_Bps, network.busbw_alpha_s);
    lines.push_back({fmt::format("all-reduce, {} ranks", r), call.latency_s,
                     call.line_bandwidth_Bps});
  }
  return lines;
}

namespace {

// Below this, the size axis of a message cost plot still reaches 1 GiB: sizes up to there are
// the ones collectives move in practice.
constexpr double kSmallestCostRange = 1073741824.0;

// The size axis reaches this multiple of the largest crossover, so each line shows its
// bandwidth-bound part well past the crossover.
constexpr double kPastCrossover = 64.0;

// Checks every cost line and mark and returns the top of the size axis as a power of two
// (its exponent): the smallest at or above max_bytes, or without it the largest of 1 GiB,
// 64 x the largest crossover and 2 x the largest mark.
int cost_size_top(std::span<const CostLine> lines, std::span<const SizeMark> marks,
                  double max_bytes) {
  double largest = kSmallestCostRange;
  for (const CostLine& l : lines) {
    if (!std::isfinite(l.latency_s) || l.latency_s < 0 || !std::isfinite(l.bandwidth_Bps) ||
        !(l.bandwidth_Bps > 0)) {
      throw InputError(fmt::format("message cost plot: line '{}' has latency {} s and bandwidth "
                                   "{} B/s (latency >= 0 and bandwidth > 0 required)",
                                   l.label, l.latency_s, l.bandwidth_Bps));
    }
    largest = std::max(largest, kPastCrossover * l.latency_s * l.bandwidth_Bps);
  }
  for (const SizeMark& m : marks) {
    if (!std::isfinite(m.bytes) || !(m.bytes > 0)) {
      throw InputError(fmt::format("message cost plot: mark '{}' at {} B", m.label, m.bytes));
    }
    largest = std::max(largest, 2.0 * m.bytes);
  }
  if (max_bytes > 0) {
    if (!std::isfinite(max_bytes)) throw InputError("message cost plot: infinite size range");
    largest = max_bytes;
  }
  return static_cast<int>(std::ceil(std::log2(largest)));
}

// The least and greatest time of a cost plot.
struct TimeRange {
  double t_min = 0;
  double t_max = 0;
};

// Writes the $cost datablock, each line's time at sizes in quarter octaves from 1 B to
// 2^top B, and returns the range of the times.
TimeRange cost_data(std::span<const CostLine> lines, int top, std::string& out) {
  std::string header = "# bytes";
  for (std::size_t i = 0; i < lines.size(); ++i) header += fmt::format(" total_s_{}", i + 1);
  std::vector<std::string> rows = {header};
  TimeRange r;
  for (int q = 0; q <= 4 * top; ++q) {
    const double m = std::exp2(q / 4.0);
    std::string row = num(m);
    for (const CostLine& l : lines) {
      const double t = l.latency_s + m / l.bandwidth_Bps;
      row.append(" ").append(num(t));
      r.t_min = (r.t_min == 0) ? t : std::min(r.t_min, t);
      r.t_max = std::max(r.t_max, t);
    }
    rows.push_back(std::move(row));
  }
  datablock(out, "cost", rows);
  return r;
}

// Writes the $crossovers datablock (the size where each line's two terms are equal, at twice
// its latency, with a label) when a line has one; returns whether one did.
bool crossover_data(std::span<const CostLine> lines, std::string& out) {
  std::vector<std::string> crossings = {"# crossover_bytes total_s label"};
  for (const CostLine& l : lines) {
    if (l.latency_s > 0) {
      const double m = l.latency_s * l.bandwidth_Bps;
      crossings.push_back(fmt::format("{} {} {}", num(m), num(2.0 * l.latency_s),
                                      data_text(fmt::format("m* {}", format_bytes(m)))));
    }
  }
  const bool any_crossover = crossings.size() > 1;
  if (any_crossover) datablock(out, "crossovers", crossings);
  return any_crossover;
}

// The key, grid, log-log axes and ranges of a cost plot up to `hi` bytes.
void cost_axes(std::string& c, double hi, const TimeRange& r) {
  put(c, "{}", kTextBoxStyle);
  put(c, "set key top left opaque box");
  put(c, "set grid xtics ytics mxtics mytics lc rgb '#e5e5e5'");
  axis_settings(c, "x", "message size m", axis_unit(Quantity::kBytes, AxisScale::kLog2, hi),
                AxisScale::kLog2);
  axis_settings(c, "y", "time", axis_unit(Quantity::kSeconds, AxisScale::kLog10, r.t_max),
                AxisScale::kLog10);
  put(c, "set xrange [1:{}]", num(hi));
  put(c, "set yrange [{}:{}]", num(r.t_min / 2.0), num(r.t_max * 2.0));
  put(c, "set xtics ({})", size_tics(1.0, hi));
}

// Each mark up to `hi` bytes as a dotted vertical line with its label along it.
void cost_marks(std::string& c, std::span<const SizeMark> marks, double hi) {
  for (const SizeMark& m : marks) {
    if (m.bytes > hi) continue;
    put(c, "set arrow from {}, graph 0 to {}, graph 1 nohead dt 3 lw 1.5 lc rgb '{}' back",
        num(m.bytes), num(m.bytes), kMarkColour);
    put(c,
        "set label {} at {}, graph 0.03 rotate by 90 left offset character -1.8, 0 boxed "
        "front tc rgb '{}'",
        gp_string(m.label), num(m.bytes), kMarkColour);
  }
}

// The plot command: one curve per line, then the crossovers as points with their labels.
void cost_plot_command(std::string& c, std::span<const CostLine> lines, bool any_crossover) {
  std::string plot_line = "plot ";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    plot_line += fmt::format("$cost using 1:{} with lines lw 2 lc rgb '{}' title {}", i + 2,
                             colour(i), gp_string(lines[i].label));
    if (i + 1 < lines.size() || any_crossover) plot_line += ", \\\n     ";
  }
  if (any_crossover) {
    plot_line +=
        "$crossovers using 1:2 with points pt 7 ps 1.3 lc rgb 'black' "
        "title 'crossover m* (latency term = bandwidth term)', \\\n     "
        "$crossovers using 1:2:3 with labels right offset character -0.8, 0.8 notitle";
  }
  put(c, "{}", plot_line);
}

}  // namespace

Plot message_cost_plot(std::span<const CostLine> lines, std::string_view what,
                       std::string_view subject, std::span<const SizeMark> marks,
                       double max_bytes) {
  if (lines.empty()) throw InputError("message cost plot: no cost lines");
  const int top = cost_size_top(lines, marks, max_bytes);
  const double hi = std::ldexp(1.0, top);

  Plot plot;
  plot.kind = Kind::kModel;
  plot.name = "message-cost";
  plot.title = fmt::format("MODEL: {}", what);
  plot.subtitle = std::string(subject);
  const TimeRange range = cost_data(lines, top, plot.data);
  const bool any_crossover = crossover_data(lines, plot.data);
  cost_axes(plot.commands, hi, range);
  cost_marks(plot.commands, marks, hi);
  cost_plot_command(plot.commands, lines, any_crossover);
  return plot;
}

// ---- selection map ----

namespace {

// The colour of the cells where nothing wins (N = 1: nothing to exchange).
constexpr std::string_view kNoneColour = "#d9d9d9";

// The algorithms that win some cell of the map, in the enum's order (stable across maps),
// and whether the map has a row with N = 1.
struct MapWinners {
  std::vector<AlgorithmSpec> winners;
  bool single_rank = false;
};

MapWinners map_winners(const SelectionMap& map) {
  MapWinners w;
  for (const SelectionRow& row : map.rows) {
    if (row.ranks == 1) {
      w.single_rank = true;
      continue;
    }
    for (const AlgorithmSpec& a : row.winner) {
      if (std::find(w.winners.begin(), w.winners.end(), a) == w.winners.end()) {
        w.winners.push_back(a);
      }
    }
  }
  std::sort(w.winners.begin(), w.winners.end(),
            [](const AlgorithmSpec& a, const AlgorithmSpec& b) {
              const auto key = [](const AlgorithmSpec& s) {
                return std::pair{static_cast<int>(s.algorithm),
                                 s.algorithm == Algorithm::kHierarchical
                                     ? static_cast<int>(s.inter)
                                     : -1};
              };
              return key(a) < key(b);
            });
  return w;
}

// "#rrggbb" as gnuplot's rgbimage columns: "r g b", each 0 to 255.
std::string rgb_columns(std::string_view hex) {
  const unsigned long v = std::strtoul(std::string(hex.substr(1)).c_str(), nullptr, 16);
  return fmt::format("{} {} {}", (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
}

// Writes the $cells datablock: each cell's size and ranks index and its winner's colour, a
// blank line after each row.
void cell_data(const SelectionMap& map, const std::vector<AlgorithmSpec>& winners,
               std::string& out) {
  std::vector<std::string> cells = {"# size_index ranks_index red green blue"};
  for (std::size_t i = 0; i < map.rows.size(); ++i) {
    const SelectionRow& row = map.rows[i];
    SCALEWALL_CHECK(row.winner.size() == map.bytes.size());
    for (std::size_t j = 0; j < map.bytes.size(); ++j) {
      std::string_view hex = kNoneColour;
      if (row.ranks != 1) {
        const auto at = std::find(winners.begin(), winners.end(), row.winner[j]);
        hex = colour(static_cast<std::size_t>(at - winners.begin()));
      }
      cells.push_back(fmt::format("{} {} {}", j, i, rgb_columns(hex)));
    }
    cells.push_back("");
  }
  datablock(out, "cells", cells);
}

// A size's position on the index axis: cell j's centre is at j, log-interpolated between;
// none outside the map's sizes.
std::optional<double> size_position(const SelectionMap& map, double bytes) {
  const std::size_t nx = map.bytes.size();
  if (bytes < map.bytes.front() || bytes > map.bytes.back()) return std::nullopt;
  if (nx == 1) return 0.0;
  std::size_t j = 0;
  while (j + 2 < nx && map.bytes[j + 1] <= bytes) ++j;
  const double lo = map.bytes[j];
  const double hi = map.bytes[j + 1];
  if (lo <= 0) return static_cast<double>(j) + (bytes > lo ? 1.0 : 0.0);
  const double f = bytes <= lo ? 0.0 : std::log(bytes / lo) / std::log(hi / lo);
  return static_cast<double>(j) + std::clamp(f, 0.0, 1.0);
}

// Writes the $switches datablock (each exact switch size at its position on its row) when
// the map has one; returns whether it did.
bool switch_data(const SelectionMap& map, std::string& out) {
  std::vector<std::string> switches = {"# size_position ranks_index bytes"};
  for (std::size_t i = 0; i < map.rows.size(); ++i) {
    for (const SelectionRow::Switch& s : map.rows[i].switches) {
      if (const auto x = size_position(map, s.bytes)) {
        switches.push_back(fmt::format("{} {} {}", num(*x), i, num(s.bytes)));
      }
    }
  }
  const bool any_switch = switches.size() > 1;
  if (any_switch) datablock(out, "switches", switches);
  return any_switch;
}

// The key, ranges, tics (sizes and rank counts placed by index) and labels of the map.
void map_axes(std::string& c, const SelectionMap& map) {
  const std::size_t nx = map.bytes.size();
  const std::size_t ny = map.rows.size();
  put(c, "{}", kTextBoxStyle);
  put(c, "set key outside right top vertical title 'cheapest algorithm' left");
  put(c, "set xrange [-0.5:{}]", num(static_cast<double>(nx) - 0.5));
  put(c, "set yrange [-0.5:{}]", num(static_cast<double>(ny) - 0.5));
  std::string xtics;
  for (const std::size_t j : thin_indices(nx, 16)) {
    xtics += fmt::format("{}{} {}", xtics.empty() ? "" : ", ", gp_string(size_text(map.bytes[j])),
                         j);
  }
  put(c, "set xtics ({}) rotate by 45 right nomirror", xtics);
  std::string ytics;
  for (const std::size_t i : thin_indices(ny, 20)) {
    ytics += fmt::format("{}'{}' {}", ytics.empty() ? "" : ", ", map.rows[i].ranks, i);
  }
  put(c, "set ytics ({}) nomirror", ytics);
  put(c, "set xlabel 'message size m per rank (bytes, nccl-tests convention)'");
  put(c, "set ylabel 'ranks N'");
  put(c, "set tics front");
}

// Each mark inside the map's sizes as a dashed vertical line with its label along it.
void map_marks(std::string& c, const SelectionMap& map, std::span<const SizeMark> marks) {
  for (const SizeMark& m : marks) {
    if (const auto x = size_position(map, m.bytes)) {
      put(c, "set arrow from {}, graph 0 to {}, graph 1 nohead dt 2 lw 2 lc rgb 'black' front",
          num(*x), num(*x));
      put(c,
          "set label {} at {}, graph 0.03 rotate by 90 left offset character -1.8, 0 boxed "
          "front",
          gp_string(m.label), num(*x));
    }
  }
}

// The plot command: the cells as an image, a key entry per winner (and for N = 1), the
// switches as crosses.
void map_plot_command(std::string& c, const MapWinners& w, bool any_switch) {
  std::string plot_line = "plot $cells using 1:2:3:4:5 with rgbimage notitle";
  for (std::size_t k = 0; k < w.winners.size(); ++k) {
    plot_line += fmt::format(", \\\n     keyentry with boxes fs solid 1.0 lc rgb '{}' title {}",
                             colour(k), gp_string(algorithm_name(w.winners[k])));
  }
  if (w.single_rank) {
    plot_line += fmt::format(
        ", \\\n     keyentry with boxes fs solid 1.0 lc rgb '{}' title 'none (N = 1)'",
        kNoneColour);
  }
  if (any_switch) {
    plot_line +=
        ", \\\n     $switches using 1:2 with points pt 2 ps 1.4 lw 2 lc rgb 'black' "
        "title 'exact switch size'";
  }
  put(c, "{}", plot_line);
}

}  // namespace

Plot selection_map_plot(const SelectionMap& map, std::string_view subject,
                        std::span<const SizeMark> marks) {
  if (map.rows.empty() || map.bytes.empty()) {
    throw InputError("selection map plot: the map has no rows or no sizes");
  }
  const MapWinners winners = map_winners(map);

  Plot plot;
  plot.kind = Kind::kModel;
  plot.name = "selection-map";
  plot.title =
      fmt::format("MODEL: cheapest {} algorithm by ranks and message size", op_name(map.op));
  plot.subtitle = std::string(subject);
  plot.width_px = 1060;
  cell_data(map, winners.winners, plot.data);
  const bool any_switch = switch_data(map, plot.data);
  map_axes(plot.commands, map);
  map_marks(plot.commands, map, marks);
  map_plot_command(plot.commands, winners, any_switch);
  return plot;
}

// ---- measurements ----

namespace {

// Throws InputError unless the series has points, a measured (and any predicted) value for
// each, and every value finite and, on a log axis, above zero.
void check_series(const MeasuredSeries& s) {
  if (s.x.empty()) throw InputError(fmt::format("{}: no points to plot", s.what));
  if (s.measured.size() != s.x.size()) {
    throw InputError(fmt::format("{}: {} measured values for {} points", s.what,
                                 s.measured.size(), s.x.size()));
  }
  const bool with_model = !s.predicted.empty();
  if (with_model && s.predicted.size() != s.x.size()) {
    throw InputError(fmt::format("{}: {} predicted values for {} points", s.what,
                                 s.predicted.size(), s.x.size()));
  }
  const bool log_x = s.x_scale != AxisScale::kLinear;
  const bool log_y = s.y_scale != AxisScale::kLinear;
  for (std::size_t i = 0; i < s.x.size(); ++i) {
    require_finite(s.x[i], s.what + ": x", i, log_x);
    require_finite(s.measured[i], s.what + ": measured", i, log_y);
    if (with_model) require_finite(s.predicted[i], s.what + ": predicted", i, log_y);
  }
}

// The indices of the series' points in increasing x, ties in their order.
std::vector<std::size_t> order_by_x(const MeasuredSeries& s) {
  std::vector<std::size_t> order(s.x.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
  return order;
}

// The series' x and y axes, each unit chosen from the axis's largest magnitude.
struct SeriesUnits {
  AxisUnit x;
  AxisUnit y;
};

SeriesUnits series_units(const MeasuredSeries& s) {
  double x_max = 0;
  double y_max = 0;
  for (std::size_t i = 0; i < s.x.size(); ++i) {
    x_max = std::max(x_max, std::abs(s.x[i]));
    y_max = std::max(y_max, std::abs(s.measured[i]));
    if (!s.predicted.empty()) y_max = std::max(y_max, std::abs(s.predicted[i]));
  }
  return {axis_unit(s.x_quantity, s.x_scale, x_max), axis_unit(s.y_quantity, s.y_scale, y_max)};
}

// Writes the $points datablock: x, measured and (when given) predicted, in the axes' units,
// in increasing x.
void series_data(const MeasuredSeries& s, const std::vector<std::size_t>& order,
                 const SeriesUnits& u, std::string& out) {
  const bool with_model = !s.predicted.empty();
  std::vector<std::string> rows = {with_model ? "# x measured predicted" : "# x measured"};
  for (const std::size_t i : order) {
    std::string row =
        fmt::format("{} {}", num(s.x[i] * u.x.multiply / u.x.divide),
                    num(s.measured[i] * u.y.multiply / u.y.divide));
    if (with_model) row.append(" ").append(num(s.predicted[i] * u.y.multiply / u.y.divide));
    rows.push_back(std::move(row));
  }
  datablock(out, "points", rows);
}

// The key, grid, axes and ranges of the series: a log2 x axis padded past its outermost
// points with its tics, any other x axis offset from the frame; a linear y axis from zero.
void series_axes(std::string& c, const MeasuredSeries& s, const std::vector<std::size_t>& order,
                 const SeriesUnits& u) {
  put(c, "set key top left opaque box");
  put(c, "set grid xtics ytics lc rgb '#e5e5e5'");
  axis_settings(c, "x", s.x_label, u.x, s.x_scale);
  axis_settings(c, "y", s.y_label, u.y, s.y_scale);
  if (s.x_scale == AxisScale::kLog2) {
    const double lo = s.x[order.front()] * u.x.multiply / u.x.divide;
    const double hi = s.x[order.back()] * u.x.multiply / u.x.divide;
    put(c, "set xrange [{}:{}]", num(lo / kLogAxisPadding), num(hi * kLogAxisPadding));
    if (u.x.size_tics) {
      put(c, "set xtics ({})", size_tics(lo / kLogAxisPadding, hi * kLogAxisPadding));
    } else if (hi > lo) {
      put(c, "set xtics {}", num(log2_tic_factor(lo, hi)));
    }
  } else {
    put(c, "set offsets graph 0.03, graph 0.03, 0, 0");
  }
  if (s.y_scale == AxisScale::kLinear) put(c, "set yrange [0:*]");
}

// The plot command: the model as a line (when given), the measured points over it.
void series_plot_command(std::string& c, const MeasuredSeries& s) {
  std::string plot_line;
  if (!s.predicted.empty()) {
    plot_line += fmt::format(
        "plot $points using 1:3 with linespoints pt 6 ps 0.8 lw 2 lc rgb '#1f77b4' title {}, \\\n"
        "     ",
        gp_string(s.predicted_label));
  } else {
    plot_line += "plot ";
  }
  plot_line += fmt::format(
      "$points using 1:2 with points pt 7 ps 1.2 lc rgb '#d62728' title {}",
      gp_string(s.measured_label));
  put(c, "{}", plot_line);
}

}  // namespace

Plot measured_vs_predicted_plot(const MeasuredSeries& s) {
  check_series(s);
  const std::vector<std::size_t> order = order_by_x(s);

  Plot plot;
  plot.kind = Kind::kMeasurement;
  plot.name = "measured-vs-predicted";
  plot.title = !s.predicted.empty() ? fmt::format("MEASUREMENT: {} against the model", s.what)
                                    : fmt::format("MEASUREMENT: {}", s.what);
  plot.subtitle = s.subject;
  const SeriesUnits units = series_units(s);
  series_data(s, order, units, plot.data);
  series_axes(plot.commands, s, order, units);
  series_plot_command(plot.commands, s);
  return plot;
}

namespace {

// The overlay's axes' units, from the largest magnitude over every line.
SeriesUnits overlay_units(const MeasuredOverlay& o) {
  double x_max = 0;
  double y_max = 0;
  for (const MeasuredLine& l : o.lines) {
    for (const double x : l.x) x_max = std::max(x_max, std::abs(x));
    for (const double y : l.y) y_max = std::max(y_max, std::abs(y));
  }
  return {axis_unit(o.x_quantity, o.x_scale, x_max), axis_unit(o.y_quantity, o.y_scale, y_max)};
}

// Checks every line: points to draw, as many y as x, every value finite (and above zero on a
// log axis). Throws InputError naming the line and the index otherwise.
void check_overlay(const MeasuredOverlay& o) {
  if (o.lines.empty()) throw InputError(fmt::format("{}: no series to plot", o.what));
  for (const MeasuredLine& l : o.lines) {
    if (l.x.empty() || l.x.size() != l.y.size()) {
      throw InputError(fmt::format("{}: series '{}' has {} x and {} y values", o.what, l.label,
                                   l.x.size(), l.y.size()));
    }
    for (std::size_t i = 0; i < l.x.size(); ++i) {
      require_finite(l.x[i], o.what + ": " + l.label + ": x", i, o.x_scale != AxisScale::kLinear);
      require_finite(l.y[i], o.what + ": " + l.label + ": y", i, o.y_scale != AxisScale::kLinear);
    }
  }
}

}  // namespace

// The height one line of the overlay's key takes: a 12-point line of text and its spacing.
constexpr int kOverlayKeyLinePx = 18;

Plot measured_overlay_plot(const MeasuredOverlay& o) {
  check_overlay(o);
  const SeriesUnits u = overlay_units(o);
  Plot plot;
  plot.kind = Kind::kMeasurement;
  plot.name = "measured-overlay";
  plot.title = fmt::format("MEASUREMENT: {}", o.what);
  plot.subtitle = o.subject;
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0;
  std::string command = "plot ";
  std::size_t measured = 0;  // measured lines so far: a model line takes the last one's colour
  for (std::size_t k = 0; k < o.lines.size(); ++k) {
    const MeasuredLine& l = o.lines[k];
    const std::size_t hue = l.model ? (measured == 0 ? 0 : measured - 1) : measured++;
    std::vector<std::size_t> order(l.x.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return l.x[a] < l.x[b]; });
    std::vector<std::string> rows = {"# x y"};
    for (const std::size_t i : order) {
      const double x = l.x[i] * u.x.multiply / u.x.divide;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      rows.push_back(fmt::format("{} {}", num(x), num(l.y[i] * u.y.multiply / u.y.divide)));
    }
    datablock(plot.data, fmt::format("line{}", k), rows);
    command += fmt::format(
        "{}$line{} using 1:2 with {} lw 2 lc rgb '{}' title {}", k == 0 ? "" : ", \\\n     ", k,
        l.model ? "lines dt 2" : "linespoints pt 7 ps 0.8", colour(hue),
        gp_string(l.model ? std::string(kModelLineWords) + l.label : l.label));
  }
  std::string& c = plot.commands;
  // The key under the plot, one series a line: the labels name files and tables, too long to
  // sit beside one another or inside the plot; the picture grows by a line per series.
  put(c, "set key below left Left reverse vertical maxcols 1");
  plot.height_px += kOverlayKeyLinePx * static_cast<int>(o.lines.size());
  put(c, "set grid xtics ytics lc rgb '#e5e5e5'");
  axis_settings(c, "x", o.x_label, u.x, o.x_scale);
  axis_settings(c, "y", o.y_label, u.y, o.y_scale);
  if (o.x_scale == AxisScale::kLog2) {
    put(c, "set xrange [{}:{}]", num(lo / kLogAxisPadding), num(hi * kLogAxisPadding));
    if (u.x.size_tics) {
      put(c, "set xtics ({})", size_tics(lo / kLogAxisPadding, hi * kLogAxisPadding));
    } else if (hi > lo) {
      put(c, "set xtics {}", num(log2_tic_factor(lo, hi)));
    }
  }
  if (o.y_scale == AxisScale::kLinear) put(c, "set yrange [0:*]");
  put(c, "{}", command);
  return plot;
}

namespace {

// Each rank's samples sorted, all samples together sorted, and the largest sample.
struct RankSamples {
  std::vector<std::vector<double>> sorted;
  std::vector<double> all;
  double max_s = 0;
};

// Checks that every rank has samples, each finite and >= 0 (throws InputError naming the
// rank), and sorts them.
RankSamples sorted_samples(std::span<const std::int64_t> ranks,
                           std::span<const std::vector<double>> samples_s,
                           std::string_view quantity) {
  RankSamples r;
  r.sorted.assign(samples_s.begin(), samples_s.end());
  for (std::size_t i = 0; i < r.sorted.size(); ++i) {
    if (r.sorted[i].empty()) {
      throw InputError(fmt::format("per-rank {}: rank {} has no samples", quantity, ranks[i]));
    }
    for (const double v : r.sorted[i]) {
      if (!std::isfinite(v) || v < 0) {
        throw InputError(fmt::format("per-rank {}: rank {} has a sample of {} s (finite and "
                                     ">= 0 required)",
                                     quantity, ranks[i], v));
      }
      r.max_s = std::max(r.max_s, v);
    }
    std::sort(r.sorted[i].begin(), r.sorted[i].end());
    r.all.insert(r.all.end(), r.sorted[i].begin(), r.sorted[i].end());
  }
  std::sort(r.all.begin(), r.all.end());
  return r;
}

}  // namespace

Plot per_rank_distribution_plot(std::span<const std::int64_t> ranks,
                                std::span<const std::vector<double>> samples_s,
                                std::string_view quantity, std::string_view subject) {
  if (ranks.empty()) throw InputError(fmt::format("per-rank {}: no ranks to plot", quantity));
  if (ranks.size() != samples_s.size()) {
    throw InputError(fmt::format("per-rank {}: {} ranks but {} sample sets", quantity,
                                 ranks.size(), samples_s.size()));
  }
  const RankSamples r = sorted_samples(ranks, samples_s, quantity);
  const std::vector<std::vector<double>>& sorted = r.sorted;
  const std::vector<double>& all = r.all;
  const double max_s = r.max_s;
  const TimeUnit unit = time_unit(max_s > 0 ? max_s : 1.0);
  const auto scaled = [&](double v) { return num(v * unit.per_second); };

  Plot plot;
  plot.kind = Kind::kMeasurement;
  plot.name = fmt::format("per-rank-{}", quantity);
  plot.title = fmt::format("MEASUREMENT: per-rank {} distribution", quantity);
  plot.subtitle = fmt::format("{}{}{} ranks, {} samples", subject, subject.empty() ? "" : "; ",
                              ranks.size(), all.size());
  std::vector<std::string> rows = {
      fmt::format("# rank min_{0} q25_{0} median_{0} q75_{0} max_{0}", unit.name)};
  std::int64_t lo = ranks[0];
  std::int64_t hi = ranks[0];
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const std::vector<double>& v = sorted[i];
    rows.push_back(fmt::format("{} {} {} {} {} {}", ranks[i], scaled(v.front()),
                               scaled(quantile(v, 0.25)), scaled(quantile(v, 0.5)),
                               scaled(quantile(v, 0.75)), scaled(v.back())));
    lo = std::min(lo, ranks[i]);
    hi = std::max(hi, ranks[i]);
  }
  datablock(plot.data, "ranks", rows);

  std::string& c = plot.commands;
  put(c, "set key top center horizontal opaque box");
  put(c, "set grid ytics lc rgb '#e5e5e5'");
  put(c, "set xlabel 'rank'");
  put(c, "set ylabel {}", gp_string(fmt::format("{} ({})", quantity, unit.name)));
  put(c, "set xrange [{}:{}]", num(static_cast<double>(lo) - 0.75),
      num(static_cast<double>(hi) + 0.75));
  // Headroom above the tallest whisker for the key.
  put(c, "set yrange [0:{}]", num(max_s > 0 ? max_s * unit.per_second * 1.4 : 1.0));
  put(c, "set format y '%g'");
  if (hi - lo <= 32) put(c, "set xtics 1");
  put(c, "set boxwidth 0.6 absolute");
  put(c, "set style fill solid 0.35 border");
  put(c,
      "plot $ranks using 1:3:2:6:5 with candlesticks whiskerbars lw 1.5 lc rgb '#4c72b0' "
      "title '25th-75th percentile, whiskers min to max', \\");
  put(c,
      "     $ranks using 1:4:4:4:4 with candlesticks lw 2.5 lc rgb 'black' title 'median of "
      "the rank', \\");
  put(c, "     {} with lines dt 2 lw 1.5 lc rgb '#d62728' title {}",
      scaled(quantile(all, 0.5)),
      gp_string(fmt::format("median over all ranks ({:.4g} {})",
                            quantile(all, 0.5) * unit.per_second, unit.name)));
  return plot;
}


// ---- Validation: measured against predicted (analysis/calibrate.h) ----

namespace {

// The share either side of y = x drawn as a band: the accuracy the model aims at (a worst
// error of 10%).
constexpr double kValidationBand = 0.10;

// The points' indices per algorithm as measured, algorithms in order of first appearance.
std::vector<std::pair<std::string, std::vector<std::size_t>>> points_by_algorithm(
    const Validation& v) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;
  for (std::size_t i = 0; i < v.points.size(); ++i) {
    const std::string name = v.points[i].algorithm.name();
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == name; });
    if (it == groups.end()) it = groups.insert(groups.end(), {name, {}});
    it->second.push_back(i);
  }
  return groups;
}

}  // namespace

Plot validation_plot(const Validation& v, std::string_view subject) {
  if (v.points.empty() || v.summaries.empty()) {
    throw InputError("validation: no points to plot");
  }
  double lo = 0;
  double hi = 0;
  for (std::size_t i = 0; i < v.points.size(); ++i) {
    const ValidationPoint& p = v.points[i];
    require_finite(p.measured_s, "validation: measured", i, true);
    require_finite(p.predicted_s, "validation: predicted", i, true);
    const double small = std::min(p.measured_s, p.predicted_s);
    const double large = std::max(p.measured_s, p.predicted_s);
    lo = i == 0 ? small : std::min(lo, small);
    hi = std::max(hi, large);
  }
  const ValidationSummary& all = v.summaries.front();
  Plot plot;
  plot.kind = Kind::kMeasurement;
  plot.name = "measured-vs-predicted";
  plot.title = fmt::format("MEASUREMENT: the model's prediction against {} measured point{}",
                           all.points, all.points == 1 ? "" : "s");
  plot.subtitle = fmt::format("median |error| {}, worst {}; {}", percent(all.median_abs_error),
                              percent(all.worst_abs_error), subject);
  plot.width_px = 900;
  plot.height_px = 800;

  const auto groups = points_by_algorithm(v);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::vector<std::string> rows = {"# predicted_s measured_s"};
    for (const std::size_t i : groups[g].second) {
      rows.push_back(fmt::format("{} {}", num(v.points[i].predicted_s), num(v.points[i].measured_s)));
    }
    datablock(plot.data, fmt::format("algorithm{}", g), rows);
  }
  std::string& c = plot.commands;
  put(c, "set key top left opaque box");
  put(c, "set grid xtics ytics lc rgb '#e5e5e5'");
  put(c, "set size square");
  const AxisUnit unit = axis_unit(Quantity::kSeconds, AxisScale::kLog10, hi);
  axis_settings(c, "x", "predicted time", unit, AxisScale::kLog10);
  axis_settings(c, "y", "measured time", unit, AxisScale::kLog10);
  put(c, "set xrange [{}:{}]", num(lo / kLogAxisPadding), num(hi * kLogAxisPadding));
  put(c, "set yrange [{}:{}]", num(lo / kLogAxisPadding), num(hi * kLogAxisPadding));
  std::string line = fmt::format(
      "plot x with lines dt 1 lw 1.5 lc rgb '#333333' title 'measured = predicted', \\\n"
      "     x * {} with lines dt 2 lc rgb '#999999' title {}, \\\n"
      "     x * {} with lines dt 2 lc rgb '#999999' notitle",
      num(1 + kValidationBand), gp_string(fmt::format("error +/- {}", percent(kValidationBand))),
      num(1 / (1 + kValidationBand)));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    line += fmt::format(", \\\n     $algorithm{} using 1:2 with points pt 7 ps 0.9 lc rgb '{}' "
                        "title {}",
                        g, colour(g), gp_string(fmt::format("{} ({} point{})", groups[g].first,
                                                            groups[g].second.size(),
                                                            groups[g].second.size() == 1 ? "" : "s")));
  }
  put(c, "{}", line);
  return plot;
}

}  // namespace scalewall
