// Tests of scalewall/platform/gnuplot.h: gnuplot itself drawing every figure as SVG and PNG
// (skipped where gnuplot is not installed), its failures, and input text that must never run.
#include "scalewall/platform/gnuplot.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "scalewall/base/error.h"
#include "scalewall/model/link.h"
#include "scalewall/platform/output_file.h"
#include "scalewall/present/plot.h"
#include "present/plot_fixtures.h"

namespace scalewall {
namespace {

namespace fs = std::filesystem;

using testing_fixtures::Row;
using testing_fixtures::StrongPrediction;


// ---- gnuplot itself ----

class Render : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!find_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (Debian: gnuplot-nox)";
    dir_ = fs::temp_directory_path() /
           fmt::format("scalewall-plot-test-{}-{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }

  std::string Read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  // Draws `plot` as SVG and PNG and checks both files.
  void DrawBoth(const Plot& plot) {
    const fs::path svg = dir_ / (plot.name + ".svg");
    const fs::path png = dir_ / (plot.name + ".png");
    EXPECT_EQ(render_plot(plot, svg.string()), "") << plot.name << " (svg): gnuplot warned";
    EXPECT_EQ(render_plot(plot, png.string()), "") << plot.name << " (png): gnuplot warned";
    const std::string svg_text = Read(svg);
    ASSERT_FALSE(svg_text.empty()) << svg;
    EXPECT_NE(svg_text.find("<svg"), std::string::npos);
    EXPECT_NE(svg_text.find(fmt::format("width=\"{}\" height=\"{}\"", plot.width_px,
                                        plot.height_px)),
              std::string::npos);
    // The title's kind word is drawn.
    EXPECT_NE(svg_text.find(std::string(kind_title(plot.kind)) + ":"), std::string::npos)
        << plot.name;
    const std::string png_bytes = Read(png);
    ASSERT_GT(png_bytes.size(), 8u) << png;
    EXPECT_EQ(png_bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    for (const auto& entry : fs::directory_iterator(dir_)) {
      EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos)
          << "left behind: " << entry.path();
    }
  }

  fs::path dir_;
};

TEST_F(Render, EveryFigureAsSvgAndPng) {
  DrawBoth(scaling_plot(StrongPrediction(), "demo", "busbw 50 GB/s"));
  DrawBoth(breakdown_plot(StrongPrediction(), "demo", "busbw 50 GB/s"));
  Topology t;
  t.name = "two-level";
  t.nodes = 4;
  t.ranks_per_node = 8;
  t.nics_per_node = 2;
  t.intra = Link{2e-6, 450e9};
  t.inter = Link{3e-6, 50e9};
  const SizeMark marks[] = {{"gradient 14 GB", 14e9}};
  DrawBoth(message_cost_plot(link_cost_lines(t), "message cost against size, per link",
                             "fabric two-level", marks));
  const std::int64_t ranks[] = {1, 8, 16, 32};
  const std::vector<double> bytes = {1, 64, 4096, 262144, 16777216, 1073741824};
  DrawBoth(selection_map_plot(
      selection_map(Op::kAllreduce, ranks, bytes,
                    [&](std::int64_t n) { return scaled_topology(t, n); }),
      "fabric two-level", marks));
  MeasuredSeries s;
  s.what = "all-reduce bus bandwidth";
  s.x_label = "message size m";
  s.y_label = "bus bandwidth";
  s.x = {1024, 65536, 4194304};
  s.measured = {1e8, 2e9, 5e9};
  s.predicted = {1.5e8, 2.5e9, 5.5e9};
  DrawBoth(measured_vs_predicted_plot(s));
  const std::int64_t waiting[] = {0, 1, 2, 3};
  const std::vector<double> samples[] = {{1e-3, 2e-3, 1.5e-3}, {0.1e-3}, {3e-3, 2e-3}, {0, 0}};
  DrawBoth(per_rank_distribution_plot(waiting, samples, "wait", "synthetic"));
}

TEST_F(Render, GnuplotFailureLeavesNoFile) {
  Plot plot;
  plot.title = "MODEL: broken";
  plot.commands = "plot no_such_function(x)\n";
  const fs::path out = dir_ / "broken.svg";
  try {
    render_plot(plot, out.string());
    ADD_FAILURE() << "a failing script was accepted";
  } catch (const PlotError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gnuplot failed drawing '" + out.string() + "'"), std::string::npos)
        << what;
    EXPECT_NE(what.find("no_such_function"), std::string::npos) << what;
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(Render, MissingGnuplotIsNamed) {
  RenderOptions options;
  options.gnuplot = (dir_ / "no-gnuplot-here").string();
  try {
    render_plot(scaling_plot(StrongPrediction(), "d", "n"), (dir_ / "a.svg").string(), options);
    ADD_FAILURE() << "a missing gnuplot was accepted";
  } catch (const PlotError& e) {
    EXPECT_NE(std::string(e.what()).find("gnuplot-nox"), std::string::npos) << e.what();
  }
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path != nullptr ? old_path : "";
  ::setenv("PATH", dir_.c_str(), 1);
  const auto found = find_gnuplot();
  std::string message;
  try {
    render_plot(scaling_plot(StrongPrediction(), "d", "n"), (dir_ / "a.svg").string());
  } catch (const PlotError& e) {
    message = e.what();
  }
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_FALSE(found.has_value());
  EXPECT_EQ(message, "gnuplot is not on PATH: plots need it (Debian: apt-get install gnuplot-nox)");
}

// An unwritable place is a failed write (exit 1); a bad extension is bad input (exit 2).
TEST_F(Render, UnwritablePathIsAnOutputErrorAndABadExtensionAnInputError) {
  const fs::path file = dir_ / "a-file";
  std::ofstream(file) << "x";
  const Plot plot = scaling_plot(StrongPrediction(), "d", "n");
  try {
    render_plot(plot, (file / "inside.svg").string());
    ADD_FAILURE() << "a path under a file was accepted";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write plot '" + (file / "inside.svg").string()),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(render_plot(plot, (dir_ / "a.pdf").string()), InputError);
}

// A gnuplot that exits 0 after writing only part of the file (as on a full disk): the plot is
// refused and nothing is left, for both formats.
TEST_F(Render, TruncatedOutputIsAFailureNotAPlot) {
  const fs::path fake = dir_ / "truncating-gnuplot";
  // Writes the first bytes of a real file of the format to the path of `set output '...'`.
  std::ofstream(fake) << "#!/bin/sh\n"
                         "out=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\")\n"
                         "case \"$out\" in\n"
                         "  *.svg*) printf '<?xml version=\"1.0\"?>\\n<svg width=\"10\"><g>' > \"$out\";;\n"
                         "  *) printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\rIHDR' > \"$out\";;\n"
                         "esac\nexit 0\n";
  fs::permissions(fake, fs::perms::owner_all);
  RenderOptions options;
  options.gnuplot = fake.string();
  for (const std::string name : {"cut.svg", "cut.png"}) {
    try {
      render_plot(scaling_plot(StrongPrediction(), "d", "n"), (dir_ / name).string(), options);
      ADD_FAILURE() << "a truncated " << name << " was accepted";
    } catch (const PlotError& e) {
      EXPECT_NE(std::string(e.what()).find("gnuplot wrote an incomplete"), std::string::npos)
          << e.what();
    }
    EXPECT_FALSE(fs::exists(dir_ / name));
  }
  std::size_t left = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    if (entry.path().filename().string().find(".tmp") != std::string::npos) ++left;
  }
  EXPECT_EQ(left, 0u);
}

TEST_F(Render, HungGnuplotIsKilledAtTheTimeout) {
  const fs::path fake = dir_ / "slow-gnuplot";
  std::ofstream(fake) << "#!/bin/sh\nexec sleep 30\n";
  fs::permissions(fake, fs::perms::owner_all);
  RenderOptions options;
  options.gnuplot = fake.string();
  options.timeout = std::chrono::seconds(1);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(render_plot(scaling_plot(StrongPrediction(), "d", "n"),
                           (dir_ / "slow.svg").string(), options),
               PlotError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_FALSE(fs::exists(dir_ / "slow.svg"));
}

}  // namespace
}  // namespace scalewall

namespace scalewall {
namespace {

// Text a shared scenario, fabric or file name can carry, aimed at every way gnuplot could run
// it: backquote command substitution, system(), shell $(...), an @macro, a quote that ends the
// string, a backslash escape, and newlines (and a carriage return) that would end the command
// line and start a new one, including gnuplot's `!` shell escape.
std::string Hostile(const fs::path& dir, std::string_view slot) {
  const std::string at = (dir / fmt::format("pwned-{}", slot)).string();
  return fmt::format(
      "{0} x`touch {1}-bq`y \"q\" 'q' $(touch {1}-sh) system(\"touch {1}-sys\") @cmd \\n \\"
      "\n!touch {1}-bang\r\nset output '{1}-out'\nprint system('touch {1}-sys2') ; `touch {1}-bq2`",
      slot, at);
}

TEST_F(Render, NoTextFromInputRunsAsACommandInAnyLabelSlot) {
  const fs::path out_dir = dir_ / "out`touch bad-dir` $(x) 'q\"";
  fs::create_directories(out_dir);
  std::vector<Plot> plots;
  plots.push_back(scaling_plot(StrongPrediction(), Hostile(dir_, "s-subject"),
                               Hostile(dir_, "s-network")));
  plots.push_back(breakdown_plot(StrongPrediction(), Hostile(dir_, "b-subject"),
                                 Hostile(dir_, "b-network")));
  Topology t;
  t.name = Hostile(dir_, "fabric-name");
  t.nodes = 4;
  t.ranks_per_node = 8;
  t.nics_per_node = 2;
  t.intra = Link{2e-6, 450e9};
  t.inter = Link{3e-6, 50e9};
  std::vector<CostLine> lines = link_cost_lines(t);
  lines.front().label = Hostile(dir_, "line");
  const SizeMark marks[] = {{Hostile(dir_, "mark"), 14e9}};
  plots.push_back(
      message_cost_plot(lines, Hostile(dir_, "m-what"), Hostile(dir_, "m-subject"), marks));
  const std::int64_t ranks[] = {1, 8, 16, 32};
  const std::vector<double> bytes = {1, 64, 4096, 262144, 16777216, 1073741824};
  plots.push_back(selection_map_plot(
      selection_map(Op::kAllreduce, ranks, bytes,
                    [&](std::int64_t n) { return scaled_topology(t, n); }),
      Hostile(dir_, "sel-subject"), marks));
  MeasuredSeries s;
  s.what = Hostile(dir_, "v-what");
  s.subject = Hostile(dir_, "v-subject");
  s.x_label = Hostile(dir_, "v-x");
  s.y_label = Hostile(dir_, "v-y");
  s.measured_label = Hostile(dir_, "v-measured");
  s.predicted_label = Hostile(dir_, "v-predicted");
  s.x = {1024, 65536, 4194304};
  s.measured = {1e8, 2e9, 5e9};
  s.predicted = {1.5e8, 2.5e9, 5.5e9};
  plots.push_back(measured_vs_predicted_plot(s));
  const std::int64_t waiting[] = {0, 1, 2};
  const std::vector<double> samples[] = {{1e-3, 2e-3}, {0.1e-3}, {3e-3, 2e-3}};
  plots.push_back(per_rank_distribution_plot(waiting, samples, Hostile(dir_, "r-quantity"),
                                             Hostile(dir_, "r-subject")));
  for (std::size_t i = 0; i < plots.size(); ++i) {
    const Plot& plot = plots[i];
    const std::string stem = fmt::format("plot{}`touch pwned-file{}`", i, i);
    for (const std::string_view ext : {".svg", ".png"}) {
      const fs::path path = out_dir / (stem + std::string(ext));
      EXPECT_NO_THROW(render_plot(plot, path.string())) << plot.name << ext;
      EXPECT_TRUE(fs::exists(path)) << path;
    }
    // The hostile text is drawn as text: the SVG holds it literally.
    const std::string svg = Read(out_dir / (stem + ".svg"));
    EXPECT_NE(svg.find("touch"), std::string::npos) << plot.name;
    EXPECT_NE(svg.find("system("), std::string::npos) << plot.name;
  }
  std::vector<std::string> made;
  for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("pwned", 0) == 0) made.push_back(entry.path().string());
  }
  for (const auto& entry : fs::directory_iterator(".")) {
    const std::string name = entry.path().filename().string();
    if (name.find("pwned") != std::string::npos) made.push_back(entry.path().string());
  }
  EXPECT_TRUE(made.empty()) << "input text ran as a command and made " << made.front();
}

}  // namespace
}  // namespace scalewall
