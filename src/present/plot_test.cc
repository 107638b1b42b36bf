// Tests of scalewall/present/plot.h: each figure's gnuplot script line by line (gnuplot itself
// drawing them: platform/gnuplot_test.cc).
#include "scalewall/present/plot.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "scalewall/base/error.h"
#include "scalewall/model/link.h"
#include "present/plot_fixtures.h"

namespace scalewall {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The index of the first line equal to `expected`, or -1.
int FindLine(const std::vector<std::string>& lines, const std::string& expected) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == expected) return static_cast<int>(i);
  }
  return -1;
}

// The number of lines matching `pattern` (whole line).
int CountMatching(const std::vector<std::string>& lines, const std::string& pattern) {
  const std::regex re(pattern);
  int n = 0;
  for (const std::string& line : lines) n += std::regex_match(line, re) ? 1 : 0;
  return n;
}

#define EXPECT_LINE(lines, text) \
  EXPECT_GE(FindLine(lines, text), 0) << "no line: " << (text)
#define EXPECT_MATCH(lines, pattern) \
  EXPECT_GE(CountMatching(lines, pattern), 1) << "no line matches: " << (pattern)

using testing_fixtures::Row;
using testing_fixtures::StrongPrediction;


TEST(Plot, KindTitles) {
  EXPECT_EQ(kind_title(Kind::kModel), "MODEL");
  EXPECT_EQ(kind_title(Kind::kSimulation), "SIMULATION");
  EXPECT_EQ(kind_title(Kind::kMeasurement), "MEASUREMENT");
}

TEST(Plot, FormatFromPath) {
  EXPECT_EQ(plot_format_for_path("a/b.svg"), PlotFormat::kSvg);
  EXPECT_EQ(plot_format_for_path("B.SVG"), PlotFormat::kSvg);
  EXPECT_EQ(plot_format_for_path("curve.png"), PlotFormat::kPng);
  for (const char* bad : {"curve.pdf", "curve", "svg", "dir.svg/curve"}) {
    try {
      plot_format_for_path(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(plot_format_name(PlotFormat::kSvg), "svg");
  EXPECT_EQ(plot_format_name(PlotFormat::kPng), "png");
}

TEST(Plot, ScriptFramesThePlotForSvg) {
  Plot plot;
  plot.title = "MODEL: a \"quoted\" title";
  plot.subtitle = "a subtitle";
  plot.data = "$d << EOD\n1 2\nEOD\n";
  plot.commands = "plot $d using 1:2 with points\n";
  const auto lines = Lines(gnuplot_script(plot, PlotFormat::kSvg, "/tmp/it's.svg"));
  ASSERT_GE(lines.size(), 9u);
  EXPECT_EQ(lines[0], "# MODEL: a \"quoted\" title");
  EXPECT_EQ(lines[1],
            "set terminal svg size 960,600 fixed noenhanced font 'DejaVu Sans,12' background "
            "rgb 'white'");
  EXPECT_EQ(lines[2], "set output '/tmp/it''s.svg'");
  EXPECT_EQ(lines[3], "set encoding utf8");
  EXPECT_EQ(lines[4], "$d << EOD");
  EXPECT_EQ(lines[5], "1 2");
  EXPECT_EQ(lines[6], "EOD");
  EXPECT_EQ(lines[7], "set title 'MODEL: a \"quoted\" title'.\"\\n\".'a subtitle' font ',13'");
  EXPECT_EQ(lines[8], "plot $d using 1:2 with points");
  EXPECT_EQ(lines.back(), "unset output");
}

TEST(Plot, ScriptPrefersPngcairoAndFallsBackToPng) {
  Plot plot;
  plot.title = "MEASUREMENT: x";
  plot.width_px = 640;
  plot.height_px = 480;
  const auto lines = Lines(gnuplot_script(plot, PlotFormat::kPng, "out.png"));
  EXPECT_EQ(lines[1], "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {");
  EXPECT_EQ(lines[2],
            "  set terminal pngcairo size 640,480 noenhanced font 'DejaVu Sans,10' background "
            "rgb 'white'");
  EXPECT_EQ(lines[3], "} else {");
  EXPECT_EQ(lines[4],
            "  set terminal png size 640,480 noenhanced font 'DejaVu Sans,10' background rgb "
            "'white'");
  EXPECT_EQ(lines[5], "}");
  EXPECT_EQ(lines[6], "set output 'out.png'");
  EXPECT_LINE(lines, "set title 'MEASUREMENT: x' font ',13'");
}

TEST(Plot, LongSubtitlesWrapAtSemicolons) {
  Plot plot;
  plot.title = "MODEL: t";
  plot.subtitle = std::string(60, 'a') + "; " + std::string(60, 'b') + "; c";
  const auto lines = Lines(gnuplot_script(plot, PlotFormat::kSvg, "o.svg"));
  EXPECT_LINE(lines, "set title 'MODEL: t'.\"\\n\".'" + std::string(60, 'a') + "'.\"\\n\".'" +
                         std::string(60, 'b') + "; c' font ',13'");
}

TEST(Plot, ScalingCurveStrong) {
  const Plot plot = scaling_plot(StrongPrediction(), "demo", "busbw 50 GB/s");
  EXPECT_EQ(plot.kind, Kind::kModel);
  EXPECT_EQ(plot.name, "scaling");
  EXPECT_EQ(plot.title, "MODEL: STRONG scaling of demo");
  EXPECT_EQ(plot.subtitle,
            "busbw 50 GB/s; knee at 3 ranks; efficiency >= 50% up to 4 ranks");
  const auto data = Lines(plot.data);
  ASSERT_EQ(data.size(), 7u) << plot.data;
  EXPECT_EQ(data[0], "$scaling << EOD");
  EXPECT_EQ(data[1], "# ranks speedup efficiency_percent ideal_speedup");
  EXPECT_EQ(data[2], "1 1 100 1");
  EXPECT_EQ(data[3], "2 1.5 75 2");
  EXPECT_EQ(data[4], "4 2 50 4");
  EXPECT_EQ(data[5], "8 3 37.5 8");
  EXPECT_EQ(data[6], "EOD");

  const auto c = Lines(plot.commands);
  EXPECT_LINE(c, "set logscale x 2");
  EXPECT_LINE(c, "set logscale y 2");
  EXPECT_LINE(c, "set xlabel 'ranks N (log2 scale)'");
  EXPECT_LINE(c, "set ylabel 'speedup T1 / T(N) (log2 scale)'");
  EXPECT_LINE(c, "set y2label 'parallel efficiency (%)'");
  EXPECT_LINE(c, "set y2range [0:105]");
  EXPECT_LINE(c, "set format y2 '%g%%'");
  EXPECT_LINE(c, "set xtics ('1' 1, '2' 2, '4' 4, '8' 8)");
  // The knee and the target rank count: a vertical line and a label each.
  EXPECT_LINE(c, "set arrow from 3, graph 0 to 3, graph 1 nohead dt 2 lw 1.5 lc rgb '#2ca02c' "
                 "front");
  EXPECT_MATCH(c, R"re(set label 'knee: 3 ranks' at 3, graph 0\.95 .*)re");
  EXPECT_LINE(c, "set arrow from 4, graph 0 to 4, graph 1 nohead dt 3 lw 1.5 lc rgb '#9467bd' "
                 "front");
  EXPECT_MATCH(c, R"re(set label 'efficiency >= 50% up to 4 ranks' at 4, graph 0\.87 .*)re");
  // The target efficiency as a horizontal line on the efficiency axis.
  EXPECT_MATCH(c, R"re(set arrow from graph 0, second 50 to graph 1, second 50 nohead .*)re");
  EXPECT_MATCH(c, R"re(set label 'target efficiency 50%' at graph 0\.99, second 50 .*)re");
  // The ideal line, the speedup and the efficiency (right axis), in that order.
  const int plot_line = CountMatching(c, R"re(plot \$scaling using 1:4 with lines .*title 'ideal speedup \(= N\)', \\)re");
  EXPECT_EQ(plot_line, 1);
  EXPECT_MATCH(c, R"re( +\$scaling using 1:2 with linespoints .*title 'speedup \(left axis\)', \\)re");
  EXPECT_MATCH(c, R"re( +\$scaling using 1:3 axes x1y2 with linespoints .*title 'efficiency \(right axis\)')re");
}

TEST(Plot, ScalingCurveWeakWithoutKnee) {
  Prediction p = StrongPrediction();
  p.mode = ScalingMode::kWeak;
  p.knee_ranks.reset();
  const Plot plot = scaling_plot(p, "w", "net");
  EXPECT_EQ(plot.title, "MODEL: WEAK scaling of w");
  EXPECT_EQ(plot.subtitle, "net; no knee up to 8 ranks; efficiency >= 50% up to 4 ranks");
  const auto c = Lines(plot.commands);
  EXPECT_EQ(CountMatching(c, R"re(set label 'knee.*)re"), 0);
  EXPECT_LINE(c, "set ylabel 'scaled speedup, Gustafson (log2 scale)'");
  EXPECT_MATCH(c, R"re(.*title 'scaled speedup \(left axis\)'.*)re");
}

TEST(Plot, ScalingLabelsMoveLeftOfLinesNearTheRightEdge) {
  Prediction p = StrongPrediction();
  p.knee_ranks = 8;
  p.max_ranks_at_target = 2;
  const auto c = Lines(scaling_plot(p, "d", "n").commands);
  EXPECT_MATCH(c, R"re(set label 'knee: 8 ranks' at 8, graph 0\.95 right offset character -0\.5, 0 .*)re");
  EXPECT_MATCH(c, R"re(set label 'efficiency >= 50% up to 2 ranks' at 2, graph 0\.87 left offset character 0\.5, 0 .*)re");
}

TEST(Plot, EmptyPredictionIsAnInputError) {
  EXPECT_THROW(scaling_plot(Prediction{}, "x", "y"), InputError);
  EXPECT_THROW(breakdown_plot(Prediction{}, "x", "y"), InputError);
}

TEST(Plot, BreakdownStacksEveryNonZeroMechanism) {
  const Plot plot = breakdown_plot(StrongPrediction(), "demo", "busbw 50 GB/s");
  EXPECT_EQ(plot.title, "MODEL: step time by mechanism, STRONG scaling of demo");
  EXPECT_EQ(plot.subtitle,
            "busbw 50 GB/s; zero at every rank count: serial, variance, checkpoint");
  const auto data = Lines(plot.data);
  ASSERT_EQ(data.size(), 7u) << plot.data;
  EXPECT_EQ(data[1], "# ranks compute_percent latency_percent bandwidth_percent ideal_s step_s");
  // Each part as a share of its step: 1.2 / 1.7, 0.25 / 1.7, ...
  EXPECT_EQ(data[2], "\"1\" 100 0 0 2.4 2.4");
  EXPECT_EQ(data[5], "\"8\" 37.5 31.25 31.25 0.3 0.8");
  const auto c = Lines(plot.commands);
  EXPECT_LINE(c, "set style histogram rowstacked");
  EXPECT_LINE(c, "set ylabel 'share of the step (%)'");
  EXPECT_LINE(c, "set y2label 'time per step (s), log scale'");
  EXPECT_LINE(c, "set logscale y2 10");
  EXPECT_LINE(c, "set xlabel 'ranks N'");
  EXPECT_LINE(c, "plot $breakdown using 2:xtic(1) title 'compute' lc rgb '#4c72b0', \\");
  EXPECT_LINE(c, "     $breakdown using 3 title 'latency (alpha)' lc rgb '#dd8452', \\");
  EXPECT_LINE(c, "     $breakdown using 4 title 'bandwidth (bytes)' lc rgb '#c44e52', \\");
  EXPECT_MATCH(c, R"re( +\$breakdown using 0:6 axes x1y2 with linespoints .*title 'step time \(right axis\)', \\)re");
  EXPECT_MATCH(c, R"re( +\$breakdown using 0:5 axes x1y2 with lines .*title 'ideal step T1 / N \(right axis\)')re");
}

// A strong-scaling curve to 4096 ranks: the step falls from seconds to milliseconds, and on a
// linear time axis every bar past 64 ranks was a sliver. As shares of the step every bar is
// full height, and the step itself is on a log axis that spans its whole range.
TEST(Plot, BreakdownOfALongStrongCurveKeepsEveryBarVisible) {
  Prediction p;
  p.mode = ScalingMode::kStrong;
  for (std::int64_t n = 1; n <= 4096; n *= 2) {
    const double compute = 10.0 / static_cast<double>(n);
    const double comm = 0.002 * std::log2(static_cast<double>(2 * n));
    p.rows.push_back(Row(n, compute, comm, comm / 2, comm, 10.0 / static_cast<double>(n), 1, 1));
  }
  const Plot plot = breakdown_plot(p, "long", "n");
  const auto data = Lines(plot.data);
  ASSERT_EQ(data.size(), 16u) << plot.data;
  for (std::size_t row = 2; row + 1 < data.size(); ++row) {
    std::istringstream in(data[row]);
    std::string label;
    double compute = 0, latency = 0, bandwidth = 0, ideal = 0, step = 0;
    in >> label >> compute >> latency >> bandwidth >> ideal >> step;
    EXPECT_NEAR(compute + latency + bandwidth, 100.0, 1e-9) << data[row];  // a full bar
  }
  const auto c = Lines(plot.commands);
  EXPECT_LINE(c, "set yrange [0:104]");
  // 4096 ranks: step 10/4096 + 0.026 = 28.4 ms; 1 rank: 10.002 s; unit s, log axis padded.
  EXPECT_MATCH(c, R"re(set y2range \[0\.00187[0-9]*:13\.0[0-9]*\])re");
}

TEST(Plot, BreakdownStackIsTheStepForEveryMechanism) {
  Prediction p = StrongPrediction();
  for (StepTime& t : p.rows) {
    t.serial_s = 0.001;
    t.compression_s = 0.002;
    t.variance_s = 0.003;
    t.checkpoint_s = 0.004;
    t.step_s = t.compute_s + t.serial_s + t.compression_s + t.exposed_communication_s +
               t.variance_s + t.checkpoint_s;
  }
  const Plot plot = breakdown_plot(p, "d", "n");
  EXPECT_EQ(plot.subtitle, "n");
  const auto data = Lines(plot.data);
  EXPECT_EQ(data[1],
            "# ranks compute_percent serial_percent latency_percent bandwidth_percent "
            "variance_percent checkpoint_percent ideal_s step_s");
  for (std::size_t row = 2; row + 1 < data.size(); ++row) {
    std::istringstream in(data[row]);
    std::string label;
    double parts[8];
    in >> label;
    for (double& v : parts) in >> v;
    const double stack = parts[0] + parts[1] + parts[2] + parts[3] + parts[4] + parts[5];
    EXPECT_NEAR(stack, 100.0, 1e-9) << data[row];
  }
}

TEST(Plot, BreakdownPicksATimeUnit) {
  Prediction p = StrongPrediction();
  for (StepTime& t : p.rows) {
    t.compute_s /= 1000;
    t.communication_s /= 1000;
    t.communication_latency_s /= 1000;
    t.exposed_communication_s /= 1000;
    t.step_s /= 1000;
    t.ideal_step_s /= 1000;
  }
  const Plot plot = breakdown_plot(p, "d", "n");
  EXPECT_LINE(Lines(plot.commands), "set y2label 'time per step (ms), log scale'");
  EXPECT_EQ(Lines(plot.data)[1],
            "# ranks compute_percent latency_percent bandwidth_percent ideal_ms step_ms");
}

// The breakdown's key sits below the plot, so the centred title and subtitle have the
// picture's whole width; a subtitle part longer than a line is broken at its commas.
TEST(Plot, BreakdownLayoutLeavesTheSubtitleWholeWidth) {
  const Plot plot = breakdown_plot(StrongPrediction(), "demo", "n");
  EXPECT_LINE(Lines(plot.commands), "set key outside below center horizontal");
  Plot p;
  p.title = "MODEL: t";
  p.subtitle = "fabric x (16 nodes x 8 ranks, 8 NICs per node, intra 2 us at 450 GB/s, inter 3 us "
               "at 50 GB/s, packed, nominal); zero at every rank count: serial, checkpoint";
  const std::string script = gnuplot_script(p, PlotFormat::kSvg, "o.svg");
  const auto lines = Lines(script);
  EXPECT_LINE(lines,
              "set title 'MODEL: t'.\"\\n\".'fabric x (16 nodes x 8 ranks, 8 NICs per node, intra "
              "2 us at 450 GB/s'.\"\\n\".'inter 3 us at 50 GB/s, packed, nominal); zero at every "
              "rank count: serial, checkpoint' font ',13'");
}

TEST(Plot, LinkCostLinesOfAFabric) {
  Topology t;
  t.name = "two-level";
  t.nodes = 4;
  t.ranks_per_node = 8;
  t.nics_per_node = 2;
  t.intra = Link{2e-6, 450e9};
  t.inter = Link{3e-6, 50e9};
  const auto lines = link_cost_lines(t);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].label, "intra-node (2 us, 450 GB/s)");
  EXPECT_EQ(lines[1].label, "inter-node (3 us, 50 GB/s)");
  EXPECT_EQ(lines[2].label, "inter-node, 8 ranks of a node crossing at once (3 us, 12.5 GB/s)");
  // Eight ranks share two NICs: a quarter of the rate each.
  EXPECT_DOUBLE_EQ(lines[2].bandwidth_Bps, 12.5e9);
  EXPECT_DOUBLE_EQ(lines[2].latency_s, 3e-6);

  const auto flat = link_cost_lines(flat_topology(16, kDefaultLink));
  ASSERT_EQ(flat.size(), 1u);
  EXPECT_EQ(flat[0].label, "link (2.5 us, 25 GB/s)");
}

// The kind of a topology, not its name, decides how it is drawn: a two-level fabric that a
// fabric file calls "flat" still has its intra-node and inter-node links.
TEST(Plot, AFabricNamedFlatIsDrawnAsAFabric) {
  Topology t;
  t.name = "flat";
  t.nodes = 4;
  t.ranks_per_node = 8;
  t.nics_per_node = 8;
  t.intra = Link{2e-6, 450e9};
  t.inter = Link{3e-6, 50e9};
  ASSERT_EQ(t.kind, TopologyKind::kFabric);
  const auto lines = link_cost_lines(t);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].label, "intra-node (2 us, 450 GB/s)");
  EXPECT_EQ(lines[1].label, "inter-node (3 us, 50 GB/s)");
  // And a flat link drawn as one link whatever it is called.
  Topology renamed = flat_topology(16, kDefaultLink);
  renamed.name = "fabric";
  ASSERT_EQ(link_cost_lines(renamed).size(), 1u);
  EXPECT_EQ(link_cost_lines(renamed)[0].label, "link (2.5 us, 25 GB/s)");
}

TEST(Plot, BusBandwidthCostLines) {
  Network n;
  n.busbw_Bps = 50e9;
  n.busbw_alpha_s = 1e-6;
  const std::int64_t ranks[] = {1, 2, 8};
  const auto lines = busbw_cost_lines(n, ranks);
  ASSERT_EQ(lines.size(), 2u);  // one rank exchanges nothing
  EXPECT_EQ(lines[0].label, "all-reduce, 2 ranks");
  // 2(N-1) alpha and N busbw / (2(N-1)).
  EXPECT_DOUBLE_EQ(lines[0].latency_s, 2e-6);
  EXPECT_DOUBLE_EQ(lines[0].bandwidth_Bps, 50e9);
  EXPECT_DOUBLE_EQ(lines[1].latency_s, 14e-6);
  EXPECT_DOUBLE_EQ(lines[1].bandwidth_Bps, 8 * 50e9 / 14);
  EXPECT_THROW(busbw_cost_lines(Network{}, ranks), InputError);
}

TEST(Plot, MessageCostMarksEveryCrossover) {
  const CostLine lines[] = {{"fast (1 us, 100 GB/s)", 1e-6, 100e9},
                            {"no latency", 0.0, 10e9}};
  const SizeMark marks[] = {{"gradient 14 GB", 14e9}};
  const Plot plot = message_cost_plot(lines, "message cost against size, per link", "net", marks);
  EXPECT_EQ(plot.title, "MODEL: message cost against size, per link");
  EXPECT_EQ(plot.subtitle, "net");
  const auto data = Lines(plot.data);
  // Sizes in quarter octaves from 1 B to 32 GiB (the first power of two above 2 x 14 GB).
  EXPECT_EQ(data[0], "$cost << EOD");
  EXPECT_EQ(data[1], "# bytes total_s_1 total_s_2");
  EXPECT_EQ(data[2], "1 1.00001e-06 1e-10");
  EXPECT_EQ(FindLine(data, "$crossovers << EOD"), 4 * 35 + 1 + 3);
  // m* = alpha x bandwidth = 100 KB, drawn at twice alpha; the line without latency has none.
  EXPECT_LINE(data, "100000 2e-06 \"m* 100 KB\"");
  EXPECT_EQ(data.back(), "EOD");
  const auto c = Lines(plot.commands);
  EXPECT_LINE(c, "set logscale x 2");
  EXPECT_LINE(c, "set xlabel 'message size m (bytes), log2 scale'");
  EXPECT_LINE(c, "set logscale y 10");
  EXPECT_LINE(c, "set ylabel 'time (s), log scale'");
  EXPECT_LINE(c, "set xrange [1:34359738368]");
  // A tic every 16x: at most 11 over the 35 octaves.
  EXPECT_LINE(c, "set xtics ('1 B' 1, '16 B' 16, '256 B' 256, '4 KiB' 4096, "
                 "'64 KiB' 65536, '1 MiB' 1048576, '16 MiB' 16777216, '256 MiB' "
                 "268435456, '4 GiB' 4294967296)");
  EXPECT_LINE(c, "set arrow from 14000000000, graph 0 to 14000000000, graph 1 nohead dt 3 lw "
                 "1.5 lc rgb '#555555' back");
  EXPECT_MATCH(c, R"re(set label 'gradient 14 GB' at 14000000000, graph 0\.03 rotate by 90 .*)re");
  EXPECT_LINE(c, "plot $cost using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fast (1 us, "
                 "100 GB/s)', \\");
  EXPECT_LINE(c, "     $cost using 1:3 with lines lw 2 lc rgb '#ff7f0e' title 'no latency', "
                 "\\");
  EXPECT_MATCH(c, R"re( +\$crossovers using 1:2 with points .*title 'crossover m\* \(latency term = bandwidth term\)', \\)re");
  EXPECT_MATCH(c, R"re( +\$crossovers using 1:2:3 with labels .*)re");
}

TEST(Plot, MessageCostRejectsBadLines) {
  const CostLine zero_bandwidth[] = {{"x", 1e-6, 0.0}};
  EXPECT_THROW(message_cost_plot(zero_bandwidth, "w", "s"), InputError);
  const CostLine negative[] = {{"x", -1e-6, 1e9}};
  EXPECT_THROW(message_cost_plot(negative, "w", "s"), InputError);
  EXPECT_THROW(message_cost_plot({}, "w", "s"), InputError);
  const CostLine ok[] = {{"x", 1e-6, 1e9}};
  const SizeMark bad_mark[] = {{"m", 0.0}};
  EXPECT_THROW(message_cost_plot(ok, "w", "s", bad_mark), InputError);
}

TEST(Plot, SelectionMapColoursWinnersAndMarksSwitches) {
  const std::int64_t ranks[] = {1, 4, 64};
  std::vector<double> bytes;
  for (double m = 1; m <= std::ldexp(1.0, 30); m *= 4) bytes.push_back(m);
  const SelectionMap map = selection_map(
      Op::kAllreduce, ranks, bytes, [](std::int64_t n) { return flat_topology(n, kDefaultLink); });
  const SizeMark marks[] = {{"bucket 25 MB", 25e6}};
  const Plot plot = selection_map_plot(map, "flat link", marks);
  EXPECT_EQ(plot.title, "MODEL: cheapest allreduce algorithm by ranks and message size");
  EXPECT_EQ(plot.subtitle, "flat link");
  const auto data = Lines(plot.data);
  EXPECT_EQ(data[0], "$cells << EOD");
  // One line per cell and a blank line after each row of the map.
  const int cells_end = FindLine(data, "EOD");
  EXPECT_EQ(cells_end, 2 + static_cast<int>(3 * (bytes.size() + 1)));
  // N = 1 is grey.
  EXPECT_EQ(data[2], "0 0 217 217 217");
  const auto c = Lines(plot.commands);
  EXPECT_LINE(c, "set xlabel 'message size m per rank (bytes, nccl-tests convention)'");
  EXPECT_LINE(c, "set ylabel 'ranks N'");
  EXPECT_LINE(c, "set ytics ('1' 0, '4' 1, '64' 2) nomirror");
  EXPECT_MATCH(c, R"re(set xtics \('1 B' 0, '4 B' 1, .*'1 GiB' 15\) rotate by 45 right nomirror)re");
  EXPECT_LINE(c, "set xrange [-0.5:15.5]");
  EXPECT_LINE(c, "set yrange [-0.5:2.5]");
  EXPECT_LINE(c, "plot $cells using 1:2:3:4:5 with rgbimage notitle, \\");
  // The legend names each winner once, then N = 1 and the switches.
  int winners = 0;
  for (const char* name : {"ring", "recursive-doubling", "rabenseifner"}) {
    winners += CountMatching(c, std::string(R"re( +keyentry with boxes .* title ')re") + name +
                                    R"re(', \\)re");
  }
  EXPECT_GE(winners, 2);
  EXPECT_MATCH(c, R"re( +keyentry with boxes .* title 'none \(N = 1\)', \\)re");
  EXPECT_MATCH(c, R"re( +\$switches using 1:2 with points .*title 'exact switch size')re");
  // Each switch lies between the two grid cells it separates, on its row.
  const int first = FindLine(data, "$switches << EOD");
  ASSERT_GE(first, 0);
  int switches = 0;
  for (std::size_t i = static_cast<std::size_t>(first) + 2; data[i] != "EOD"; ++i) {
    std::istringstream in(data[i]);
    double x = 0;
    double row = 0;
    double at = 0;
    in >> x >> row >> at;
    const auto j = static_cast<std::size_t>(std::floor(x));
    EXPECT_LE(bytes[j], at) << data[i];
    EXPECT_LE(at, bytes[std::min(j + 1, bytes.size() - 1)]) << data[i];
    EXPECT_GE(row, 1);
    ++switches;
  }
  std::size_t expected = 0;
  for (const SelectionRow& r : map.rows) expected += r.switches.size();
  EXPECT_EQ(static_cast<std::size_t>(switches), expected);
  EXPECT_MATCH(c, R"re(set arrow from [0-9.]+, graph 0 to [0-9.]+, graph 1 nohead .*)re");
  EXPECT_MATCH(c, R"re(set label 'bucket 25 MB' at [0-9.]+, graph 0\.03 rotate by 90 .*)re");
}

TEST(Plot, SelectionMapNeedsCells) {
  EXPECT_THROW(selection_map_plot(SelectionMap{}, "s"), InputError);
}

TEST(Plot, MeasuredAgainstPredictedSortsByX) {
  MeasuredSeries s;
  s.what = "all-reduce bus bandwidth";
  s.subject = "run.jsonl";
  s.x_label = "message size m";
  s.y_label = "bus bandwidth";
  s.x = {4096, 1024, 65536};
  s.measured = {2e9, 1e9, 4e9};
  s.predicted = {2.5e9, 1.2e9, 4.5e9};
  const Plot plot = measured_vs_predicted_plot(s);
  EXPECT_EQ(plot.kind, Kind::kMeasurement);
  EXPECT_EQ(plot.title, "MEASUREMENT: all-reduce bus bandwidth against the model");
  EXPECT_EQ(plot.subtitle, "run.jsonl");
  const auto data = Lines(plot.data);
  ASSERT_EQ(data.size(), 6u);
  EXPECT_EQ(data[1], "# x measured predicted");
  // Rates in one unit, chosen from the largest value (4.5 GB/s: GB/s).
  EXPECT_EQ(data[2], "1024 1 1.2");
  EXPECT_EQ(data[3], "4096 2 2.5");
  EXPECT_EQ(data[4], "65536 4 4.5");
  const auto c = Lines(plot.commands);
  EXPECT_LINE(c, "set xlabel 'message size m (bytes), log2 scale'");
  EXPECT_LINE(c, "set ylabel 'bus bandwidth (GB/s)'");
  EXPECT_LINE(c, "set format y '%g'");
  EXPECT_LINE(c, "set yrange [0:*]");
  EXPECT_MATCH(c, R"re(set xtics \('1 KiB' 1024, '2 KiB' 2048, '4 KiB' 4096, .*'64 KiB' 65536\))re");
  EXPECT_MATCH(c, R"re(plot \$points using 1:3 with linespoints .*title 'model', \\)re");
  EXPECT_MATCH(c, R"re( +\$points using 1:2 with points .*title 'measured')re");
}

TEST(Plot, MeasuredAloneAndItsErrors) {
  MeasuredSeries s;
  s.what = "step time";
  s.x_label = "ranks";
  s.x_quantity = Quantity::kCount;
  s.y_label = "step";
  s.y_quantity = Quantity::kSeconds;
  s.y_scale = AxisScale::kLog10;
  s.x = {8, 64};
  s.measured = {0.5, 0.7};
  const Plot plot = measured_vs_predicted_plot(s);
  EXPECT_EQ(plot.title, "MEASUREMENT: step time");
  EXPECT_EQ(Lines(plot.data)[1], "# x measured");
  EXPECT_EQ(Lines(plot.data)[2], "8 0.5");
  const auto c = Lines(plot.commands);
  // A log axis of times keeps seconds and names each decade.
  EXPECT_LINE(c, "set ylabel 'step (s), log scale'");
  EXPECT_LINE(c, "set format y '%.0s %cs'");
  EXPECT_LINE(c, "set xlabel 'ranks, log2 scale'");
  EXPECT_MATCH(c, R"re(plot \$points using 1:2 with points .*title 'measured')re");

  MeasuredSeries bad = s;
  bad.measured = {0.5};
  EXPECT_THROW(measured_vs_predicted_plot(bad), InputError);
  bad = s;
  bad.predicted = {1, 2, 3};
  EXPECT_THROW(measured_vs_predicted_plot(bad), InputError);
  bad = s;
  bad.measured = {0.5, 0.0};  // log y axis
  try {
    measured_vs_predicted_plot(bad);
    ADD_FAILURE() << "a zero on a log axis was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("step time: measured[1] = 0"), std::string::npos)
        << e.what();
  }
  bad = s;
  bad.x = {};
  bad.measured = {};
  EXPECT_THROW(measured_vs_predicted_plot(bad), InputError);
}

// validate's figure: one datablock per algorithm as measured, measured against predicted on
// equal log axes in seconds, the y = x line and the 10% band, the median and worst error in
// the title.
Validation TwoAlgorithmValidation() {
  Validation v;
  ValidationPoint p;
  p.algorithm = MeasuredAlgorithm::model({Algorithm::kRing, Algorithm::kRing});
  p.ranks = 4;
  p.measured_s = 2e-3;
  p.predicted_s = 2.2e-3;  // +10%
  v.points.push_back(p);
  p.measured_s = 1e-5;
  p.predicted_s = 9e-6;  // -10%
  v.points.push_back(p);
  p.algorithm = MeasuredAlgorithm::model({Algorithm::kRecursiveDoubling, Algorithm::kRing});
  p.measured_s = 4e-4;
  p.predicted_s = 5e-4;  // +25%
  v.points.push_back(p);
  ValidationSummary all;
  all.group = "all";
  all.name = "all";
  all.points = 3;
  all.median_abs_error = 0.10;
  all.worst_abs_error = 0.25;
  all.worst_error = 0.25;
  all.worst_index = 2;
  v.summaries.push_back(all);
  return v;
}

TEST(Plot, ValidationDrawsMeasuredAgainstPredictedPerAlgorithm) {
  const Plot plot = validation_plot(TwoAlgorithmValidation(), "ring.jsonl; fabric: flat");
  EXPECT_EQ(plot.kind, Kind::kMeasurement);
  EXPECT_EQ(plot.name, "measured-vs-predicted");
  EXPECT_EQ(plot.title, "MEASUREMENT: the model's prediction against 3 measured points");
  EXPECT_EQ(plot.subtitle, "median |error| 10%, worst 25%; ring.jsonl; fabric: flat");
  const auto data = Lines(plot.data);
  ASSERT_EQ(data.size(), 9u);
  EXPECT_EQ(data[0], "$algorithm0 << EOD");
  EXPECT_EQ(data[1], "# predicted_s measured_s");
  EXPECT_EQ(data[2], "0.0022 0.002");
  EXPECT_EQ(data[3], "9e-06 1e-05");
  EXPECT_EQ(data[5], "$algorithm1 << EOD");
  EXPECT_EQ(data[7], "0.0005 0.0004");
  const auto c = Lines(plot.commands);
  EXPECT_LINE(c, "set xlabel 'predicted time (s), log scale'");
  EXPECT_LINE(c, "set ylabel 'measured time (s), log scale'");
  EXPECT_LINE(c, "set format x '%.0s %cs'");
  // Both axes span the smallest to the largest time of either kind, padded by 1.3.
  const std::string range = fmt::format("[{}:{}]", 9e-6 / 1.3, 2.2e-3 * 1.3);
  EXPECT_LINE(c, "set xrange " + range);
  EXPECT_LINE(c, "set yrange " + range);
  EXPECT_LINE(c, "plot x with lines dt 1 lw 1.5 lc rgb '#333333' title 'measured = predicted', \\");
  EXPECT_MATCH(c, R"re( +x \* 1\.1 with lines dt 2 .*title 'error \+/- 10%', \\)re");
  EXPECT_MATCH(c, R"re( +\$algorithm0 using 1:2 with points .*title 'ring \(2 points\)', \\)re");
  EXPECT_MATCH(c, R"re( +\$algorithm1 using 1:2 with points .*title 'recursive-doubling \(1 point\)')re");
}

// A model line over measured points: drawn dashed without points, in the colour of the
// measured line before it, its key saying it is no measurement; its values as given.
TEST(Plot, OverlayDrawsModelLinesDashedInTheirSeriesColour) {
  MeasuredOverlay o;
  o.what = "allreduce bus bandwidth, 2 series";
  o.subject = "run.jsonl";
  o.x_label = "message size m per rank";
  o.y_label = "bus bandwidth";
  o.lines.push_back({"run.jsonl: ring, 4 ranks", {1024, 4096}, {1e9, 2e9}, false});
  o.lines.push_back({"run.jsonl: ring, 4 ranks on flat", {4096, 1024}, {2.5e9, 1.5e9}, true});
  o.lines.push_back({"run.jsonl: library, 4 ranks", {1024}, {3e9}, false});
  o.lines.push_back({"run.jsonl: library, 4 ranks on flat", {1024}, {3.5e9}, true});
  const Plot plot = measured_overlay_plot(o);
  const auto data = Lines(plot.data);
  // line1: the model's, in ascending size, in GB/s as the measured ones.
  const int at = FindLine(data, "$line1 << EOD");
  ASSERT_GE(at, 0);
  EXPECT_EQ(data[static_cast<std::size_t>(at) + 2], "1024 1.5");
  EXPECT_EQ(data[static_cast<std::size_t>(at) + 3], "4096 2.5");
  const auto c = Lines(plot.commands);
  EXPECT_MATCH(c, R"re(plot \$line0 using 1:2 with linespoints pt 7 ps 0\.8 lw 2 lc rgb '#1f77b4' title 'run\.jsonl: ring, 4 ranks', \\)re");
  EXPECT_MATCH(c, R"re( +\$line1 using 1:2 with lines dt 2 lw 2 lc rgb '#1f77b4' title 'model \(not a measurement\): run\.jsonl: ring, 4 ranks on flat', \\)re");
  EXPECT_MATCH(c, R"re( +\$line2 using 1:2 with linespoints pt 7 ps 0\.8 lw 2 lc rgb '#ff7f0e' .*)re");
  EXPECT_MATCH(c, R"re( +\$line3 using 1:2 with lines dt 2 lw 2 lc rgb '#ff7f0e' title 'model \(not a measurement\): run\.jsonl: library, 4 ranks on flat')re");
}

TEST(Plot, ValidationRefusesNothingAndNonPositiveTimes) {
  EXPECT_THROW(validation_plot(Validation{}, "x"), InputError);
  Validation v = TwoAlgorithmValidation();
  v.points[1].measured_s = 0;
  try {
    validation_plot(v, "x");
    ADD_FAILURE() << "a zero time was drawn on a log axis";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("validation: measured[1] = 0"), std::string::npos)
        << e.what();
  }
}

TEST(Plot, PerRankDistributionQuartiles) {
  const std::int64_t ranks[] = {0, 1, 2};
  const std::vector<double> samples[] = {
      {0.004, 0.0, 0.001, 0.003, 0.002},  // quartiles 1, 2, 3 ms (type 7)
      {0.010},
      {0.0, 0.0}};
  const Plot plot = per_rank_distribution_plot(ranks, samples, "wait", "step.jsonl");
  EXPECT_EQ(plot.kind, Kind::kMeasurement);
  EXPECT_EQ(plot.name, "per-rank-wait");
  EXPECT_EQ(plot.title, "MEASUREMENT: per-rank wait distribution");
  EXPECT_EQ(plot.subtitle, "step.jsonl; 3 ranks, 8 samples");
  const auto data = Lines(plot.data);
  ASSERT_EQ(data.size(), 6u);
  EXPECT_EQ(data[1], "# rank min_ms q25_ms median_ms q75_ms max_ms");
  EXPECT_EQ(data[2], "0 0 1 2 3 4");
  EXPECT_EQ(data[3], "1 10 10 10 10 10");
  EXPECT_EQ(data[4], "2 0 0 0 0 0");
  const auto c = Lines(plot.commands);
  EXPECT_LINE(c, "set xlabel 'rank'");
  EXPECT_LINE(c, "set ylabel 'wait (ms)'");
  EXPECT_MATCH(c, R"re(plot \$ranks using 1:3:2:6:5 with candlesticks whiskerbars .*)re");
  EXPECT_MATCH(c, R"re( +\$ranks using 1:4:4:4:4 with candlesticks .*)re");
  // The median of all eight samples {0,0,0,1,2,3,4,10} ms is 1.5 ms.
  EXPECT_MATCH(c, R"re( +1\.5 with lines dt 2 .*title 'median over all ranks \(1\.5 ms\)')re");
}

TEST(Plot, PerRankDistributionErrorsNameTheRank) {
  const std::int64_t ranks[] = {3, 7};
  const std::vector<double> samples[] = {{0.1}, {}};
  try {
    per_rank_distribution_plot(ranks, samples, "wait", "");
    ADD_FAILURE() << "an empty rank was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 7 has no samples"), std::string::npos) << e.what();
  }
  const std::vector<double> negative[] = {{0.1}, {-0.5}};
  EXPECT_THROW(per_rank_distribution_plot(ranks, negative, "wait", ""), InputError);
  const std::vector<double> one[] = {{0.1}};
  EXPECT_THROW(per_rank_distribution_plot(ranks, one, "wait", ""), InputError);
  EXPECT_THROW(per_rank_distribution_plot({}, {}, "wait", ""), InputError);
}

TEST(Plot, ScriptQuotesInputOnlyAsSingleQuotedLiterals) {
  const std::string script = gnuplot_script(
      scaling_plot(StrongPrediction(), "a`b`'c\"d\ne\rf", "n"), PlotFormat::kSvg, "o'u`t`.svg");
  // No backquote outside a single-quoted string, and no line that starts with input text.
  for (const std::string& line : Lines(script)) {
    if (line.rfind("#", 0) == 0) continue;  // a comment, checked below
    bool in_single = false;
    for (const char c : line) {
      if (c == '\'') in_single = !in_single;
      if (c == '`') {
        EXPECT_TRUE(in_single) << line;
      }
    }
    EXPECT_FALSE(in_single) << "unterminated string: " << line;
    EXPECT_NE(line.rfind("e", 0), 0u) << line;
    EXPECT_NE(line.rfind("f", 0), 0u) << line;
  }
  EXPECT_NE(script.find("set output 'o''u`t`.svg'"), std::string::npos) << script;
  EXPECT_EQ(Lines(script).front(), "# MODEL: STRONG scaling of a`b`'c\"d e f");
  EXPECT_NE(script.find("a`b`''c\"d'.\"\\n\".'e f"), std::string::npos) << script;
}

}  // namespace
}  // namespace scalewall

namespace scalewall {
namespace {

// A transformer curve: 64 GPUs does not fit, 128 is the base, the knee at 256.
SplitCurve TransformerCurve() {
  SplitCurve c;
  const auto row = [](std::int64_t gpus, bool fits, double speedup) {
    SplitCurveRow r;
    r.gpus = gpus;
    r.step = SplitStep{};
    r.step->fits = fits;
    if (fits) {
      r.speedup = speedup;
      r.efficiency = speedup * 128 / static_cast<double>(gpus);
    }
    return r;
  };
  c.rows = {row(64, false, 0), row(128, true, 1), row(256, true, 1.5), row(512, true, 2)};
  c.base_gpus = 128;
  c.knee_gpus = 256;
  return c;
}

TEST(Plot, TransformerCurveIsAgainstItsSmallestCountThatFits) {
  const Plot plot = split_curve_plot(TransformerCurve(), "llama", "dgx-h100");
  EXPECT_EQ(plot.name, "scaling");
  EXPECT_EQ(plot.title, "MODEL: STRONG scaling of llama");
  EXPECT_EQ(plot.subtitle,
            "dgx-h100; knee at 256 GPUs; speedup and efficiency against N0 = 128 GPUs");
  const auto data = Lines(plot.data);
  ASSERT_EQ(data.size(), 6u) << plot.data;  // the 64-GPU row that does not fit is left out
  EXPECT_EQ(data[1], "# gpus speedup efficiency_percent ideal_speedup");
  EXPECT_EQ(data[2], "128 1 100 1");
  EXPECT_EQ(data[3], "256 1.5 75 2");
  EXPECT_EQ(data[4], "512 2 50 4");
  const auto c = Lines(plot.commands);
  EXPECT_LINE(c, "set xlabel 'GPUs N (log2 scale)'");
  EXPECT_LINE(c, "set ylabel 'speedup T(N0) / T(N) (log2 scale)'");
  EXPECT_MATCH(c, R"re(set label 'knee: 256 GPUs' at 256, graph 0\.95 .*)re");
  EXPECT_EQ(CountMatching(c, R"re(.*target efficiency.*)re"), 0);
  EXPECT_MATCH(c, R"re(plot \$scaling using 1:4 with lines .*title 'ideal speedup \(= N / N0\)', \\)re");
  SplitCurve none = TransformerCurve();
  none.base_gpus.reset();
  EXPECT_THROW(split_curve_plot(none, "x", "y"), InputError);
}

}  // namespace
}  // namespace scalewall
