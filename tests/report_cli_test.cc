// End-to-end tests of `scalewall report` and of --plot on predict and select: the files
// written, the page that shows them, its errors; and the page loaded in headless Chromium.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> OnPath(const std::vector<std::string>& names) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/bin:/bin";
  for (;;) {
    const std::size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    for (const std::string& name : names) {
      const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (colon == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A fresh, empty directory for one test.
fs::path FreshDir(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::temp_directory_path() /
                       ("scalewall-report-test-" + std::to_string(::getpid())) /
                       (std::string(info->name()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// An SVG and a PNG that gnuplot drew: non-empty, the right magic, the kind word drawn.
void ExpectPlotFiles(const fs::path& svg, const fs::path& png, const std::string& kind_word) {
  ASSERT_TRUE(fs::exists(svg)) << svg;
  ASSERT_TRUE(fs::exists(png)) << png;
  EXPECT_GT(fs::file_size(svg), 1000u) << svg;
  EXPECT_GT(fs::file_size(png), 1000u) << png;
  const std::string svg_text = ReadFile(svg);
  EXPECT_TRUE(Contains(svg_text, "<svg")) << svg;
  EXPECT_TRUE(Contains(svg_text, kind_word + ":")) << svg << " has no " << kind_word << " title";
  EXPECT_EQ(ReadFile(png).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << png;
}

class ReportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!OnPath({"gnuplot"})) {
      GTEST_SKIP() << "gnuplot is not installed (Debian: gnuplot-nox; scripts/setup.sh "
                      "installs it)";
    }
  }
};

TEST_F(ReportCli, WorkedExampleRendersEveryPlot) {
  const fs::path out = FreshDir("seed") / "report";  // created by the command
  const CliResult r =
      run_scalewall({"report", source_path("examples/seed-7b-bf16.toml"), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Progress goes to stderr only when it is a terminal; here it is a pipe.
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("# MODEL: analytic prediction, not a measurement\n", 0), 0u) << r.out;
  EXPECT_TRUE(Contains(r.out, "3 figures written to " + out.string())) << r.out;
  const std::string html = ReadFile(out / "index.html");
  ASSERT_FALSE(html.empty());
  for (const char* name : {"scaling", "breakdown", "message-cost"}) {
    const std::string svg = std::string("seed-7b-bf16-") + name + ".svg";
    const std::string png = std::string("seed-7b-bf16-") + name + ".png";
    ExpectPlotFiles(out / svg, out / png, "MODEL");
    EXPECT_TRUE(Contains(html, "<img src=\"" + svg + "\"")) << svg;
    EXPECT_TRUE(Contains(html, "<a href=\"" + png + "\">")) << png;
    EXPECT_TRUE(Contains(r.out, svg)) << r.out;
  }
  // The strong-scaling curve says so in its title; the page labels every figure.
  EXPECT_TRUE(Contains(ReadFile(out / "seed-7b-bf16-scaling.svg"), "STRONG scaling"));
  const std::regex figure("<figcaption><span class=\"kind model\">MODEL</span>");
  EXPECT_EQ(std::distance(std::sregex_iterator(html.begin(), html.end(), figure),
                          std::sregex_iterator()),
            3);
  // The tables, as HTML tables; the busbw network has no selection map, and says why.
  EXPECT_TRUE(Contains(html, "<caption>The scaling curve</caption>"));
  EXPECT_TRUE(Contains(html, "<caption>What each remedy buys at 1024 ranks"));
  EXPECT_TRUE(Contains(html, "no selection map"));
  // Self-contained: nothing fetched from elsewhere.
  EXPECT_FALSE(Contains(html, "http://"));
  EXPECT_FALSE(Contains(html, "https://"));
  // Exactly the plots and the page, no temporary files left.
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(out)) {
    ++files;
    EXPECT_EQ(entry.path().filename().string().front() == '.', false) << entry.path();
  }
  EXPECT_EQ(files, 7u);
}

TEST_F(ReportCli, JsonListsTheFigures) {
  const fs::path out = FreshDir("json");
  const nlohmann::json j = run_json(
      {"report", source_path("examples/seed-7b-bf16.toml"), "-o", out.string(), "--max-ranks",
       "64"});
  EXPECT_EQ(j["command"], "report");
  EXPECT_EQ(j["kind"], "model");
  EXPECT_EQ(j["inputs"]["max_ranks"], 64);
  EXPECT_EQ(j["inputs"]["target_efficiency"], 0.5);
  EXPECT_EQ(j["index_html"], (out / "index.html").string());
  ASSERT_EQ(j["figures"].size(), 3u);
  EXPECT_EQ(j["figures"][0]["svg"], "seed-7b-bf16-scaling.svg");
  EXPECT_EQ(j["figures"][0]["png"], "seed-7b-bf16-scaling.png");
  EXPECT_EQ(j["figures"][0]["kind"], "model");
  EXPECT_EQ(j["figures"][0]["title"], "MODEL: STRONG scaling of seed-7b-bf16");
}

TEST_F(ReportCli, FabricScenarioAddsLinksAndTheSelectionMap) {
  const fs::path out = FreshDir("fabric");
  const CliResult r = run_scalewall({"report", source_path("examples/dgx-llm-weak.toml"), "-o",
                                     out.string(), "--max-ranks", "64"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadFile(out / "index.html");
  for (const char* name : {"scaling", "breakdown", "message-cost", "selection-map"}) {
    const std::string stem = std::string("dgx-llm-weak-") + name;
    ExpectPlotFiles(out / (stem + ".svg"), out / (stem + ".png"), "MODEL");
    EXPECT_TRUE(Contains(html, "<img src=\"" + stem + ".svg\"")) << stem;
  }
  EXPECT_TRUE(Contains(ReadFile(out / "dgx-llm-weak-scaling.svg"), "WEAK scaling"));
  EXPECT_TRUE(Contains(ReadFile(out / "dgx-llm-weak-message-cost.svg"), "intra-node"));
  EXPECT_TRUE(Contains(html, "<caption>Links</caption>"));
  EXPECT_TRUE(Contains(html, "<caption>Where the cheapest algorithm changes"));
}

// A scalewall-mpi JSON Lines file: the envelope of `command`, the records, the end record.
std::string MpiFile(const std::string& command, const std::vector<std::string>& records) {
  std::string text =
      "{\"tool\":\"scalewall-mpi\",\"version\":\"0.1.0\",\"command\":\"" + command +
      "\",\"kind\":\"measurement\",\"format\":\"jsonl\",\"inputs\":{},\"context\":{"
      "\"mpi_library\":\"Open MPI v4.1.4\",\"mpi_version\":\"3.1\",\"ranks\":4,"
      "\"ranks_per_host\":4,\"hosts\":[\"node1\"],\"date\":\"2026-11-30T05:00:00Z\"}}\n";
  for (const std::string& r : records) text += r + "\n";
  text += "{\"record\":\"end\",\"status\":\"complete\",\"records\":" +
          std::to_string(records.size()) + "}\n";
  return text;
}

TEST_F(ReportCli, MeasurementFilesAreToldApartByContentAndPlotted) {
  std::vector<std::string> steps;
  std::vector<std::string> arrivals;
  std::vector<std::string> collectives;
  for (int it = 0; it < 3; ++it) {
    for (int rank = 0; rank < 4; ++rank) {
      // Rank 2 is slow: it arrives last and waits least.
      const double wait = rank == 2 ? 0.0002 : 0.003 + 0.0005 * it;
      steps.push_back("{\"record\":\"step\",\"step\":" + std::to_string(it) + ",\"rank\":" +
                      std::to_string(rank) +
                      ",\"host\":\"node1\",\"compute_s\":0.01,\"communication_s\":0.002,"
                      "\"wait_s\":" + std::to_string(wait) + ",\"step_s\":0.015}");
      arrivals.push_back("{\"record\":\"arrival\",\"iteration\":" + std::to_string(it) +
                         ",\"rank\":" + std::to_string(rank) +
                         ",\"host\":\"node1\",\"arrival_s\":" +
                         std::to_string(rank == 2 ? 0.004 : 0.0001 * rank) +
                         ",\"injected_s\":0,\"collective_s\":2e-05}");
    }
  }
  for (int k = 0; k < 4; ++k) {
    const double bytes = 1024.0 * std::pow(16.0, k);
    const double t = 5e-6 + bytes / 4e9;
    collectives.push_back(
        "{\"record\":\"collective\",\"op\":\"allreduce\",\"algorithm\":\"ring\",\"ranks\":4,"
        "\"bytes\":" + std::to_string(bytes) + ",\"iterations\":20,\"time_min_s\":" +
        std::to_string(t) + ",\"time_median_s\":" + std::to_string(t) + ",\"time_max_s\":" +
        std::to_string(t) + ",\"algbw_Bps\":" + std::to_string(bytes / t) + ",\"busbw_Bps\":" +
        std::to_string(1.5 * bytes / t) + ",\"verified\":true}");
  }
  // Names that say nothing: the content decides.
  const std::string step = write_temp_file("one.toml", MpiFile("step", steps));
  const std::string arrival = write_temp_file("two.txt", MpiFile("arrival", arrivals));
  const std::string collective = write_temp_file("three", MpiFile("collective", collectives));
  const fs::path out = FreshDir("measured");
  const CliResult r = run_scalewall({"report", step, arrival, collective, "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("# MEASUREMENT: plots of 3 measurement files\n", 0), 0u) << r.out;
  const std::string html = ReadFile(out / "index.html");
  for (const char* name :
       {"measured-per-rank-wait", "measured-per-rank-arrival", "measured-busbw-allreduce"}) {
    ExpectPlotFiles(out / (std::string(name) + ".svg"), out / (std::string(name) + ".png"),
                    "MEASUREMENT");
    EXPECT_TRUE(Contains(html, "<img src=\"" + std::string(name) + ".svg\"")) << name;
  }
  EXPECT_TRUE(Contains(html, "<span class=\"kind measurement\">MEASUREMENT</span>"));
  EXPECT_TRUE(Contains(html, "<caption>Measured collectives</caption>"));
  const nlohmann::json j = run_json({"report", step, "-o", out.string()});
  EXPECT_EQ(j["kind"], "measurement");
}

TEST_F(ReportCli, ScenarioAndMeasurementsTogether) {
  std::vector<std::string> steps;
  for (int rank = 0; rank < 3; ++rank) {
    steps.push_back("{\"record\":\"step\",\"step\":0,\"rank\":" + std::to_string(rank) +
                    ",\"host\":\"n\",\"compute_s\":0.01,\"communication_s\":0.002,\"wait_s\":"
                    "0.001,\"step_s\":0.013}");
  }
  const std::string step = write_temp_file("step.jsonl", MpiFile("step", steps));
  const fs::path out = FreshDir("both");
  const CliResult r = run_scalewall(
      {"report", source_path("examples/seed-7b-bf16.toml"), step, "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "the scenario figures are MODEL predictions")) << r.out;
  const std::string html = ReadFile(out / "index.html");
  EXPECT_TRUE(Contains(html, "<section id=\"scenario-seed-7b-bf16\" class=\"model\">"));
  EXPECT_TRUE(Contains(html, "<section id=\"measurements\" class=\"measurement\">"));
}

// An OSU collective log without an mpirun -np line gives no rank count, so no bus bandwidth:
// the figure shows the algorithm bandwidth, called so, for "ranks unknown", and the page and
// stderr say that --ranks N gives the bus bandwidth. With --ranks the figure is busbw.
TEST_F(ReportCli, CollectiveLogWithoutRankCountPlotsAlgbwUntilRanksAreGiven) {
  std::string log = ReadFile(source_path("tests/data/osu_allreduce.txt"));
  ASSERT_TRUE(log.starts_with("$ mpirun -np 4"));
  log = log.substr(log.find('\n') + 1);
  const std::string file = write_temp_file("osu_allreduce_no_np.txt", log);

  const fs::path out = FreshDir("unknown");
  const CliResult r = run_scalewall({"report", file, "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadFile(out / "index.html");
  for (const std::string& text : {r.out, html}) {
    EXPECT_FALSE(Contains(text, "0 ranks")) << text;
    EXPECT_FALSE(Contains(text, "bus bandwidth (library")) << text;
    EXPECT_TRUE(Contains(text, "ranks unknown")) << text;
  }
  EXPECT_TRUE(Contains(html, "algorithm bandwidth")) << html;
  EXPECT_TRUE(Contains(html, "--ranks N")) << html;
  EXPECT_TRUE(Contains(r.err, "--ranks N")) << r.err;
  EXPECT_TRUE(Contains(r.err, file)) << r.err;
  bool algbw_figure = false;
  for (const auto& entry : fs::directory_iterator(out)) {
    const std::string name = entry.path().filename().string();
    EXPECT_FALSE(Contains(name, "busbw")) << name;
    if (Contains(name, "algbw") && name.ends_with(".svg")) {
      algbw_figure = true;
      EXPECT_TRUE(Contains(ReadFile(entry.path()), "algorithm bandwidth")) << name;
    }
  }
  EXPECT_TRUE(algbw_figure);

  const fs::path known = FreshDir("known");
  const CliResult k = run_scalewall({"report", file, "--ranks", "4", "-o", known.string()});
  ASSERT_EQ(k.exit_code, 0) << k.err;
  EXPECT_EQ(k.err, "");
  const std::string known_html = ReadFile(known / "index.html");
  EXPECT_TRUE(Contains(k.out, "allreduce bus bandwidth, 1 series")) << k.out;
  EXPECT_TRUE(Contains(ReadFile(known / "measured-busbw-allreduce.svg"),
                       "osu_allreduce, library, 4 ranks"));
  EXPECT_FALSE(Contains(known_html, "ranks unknown"));
  // The rank count fills in only what the log leaves out: a log that names its ranks keeps
  // them, so --ranks does not relabel the file that says "mpirun -np 4".
  const fs::path named = FreshDir("named");
  const CliResult n = run_scalewall({"report", source_path("tests/data/osu_allreduce.txt"),
                                     "--ranks", "16", "-o", named.string()});
  ASSERT_EQ(n.exit_code, 0) << n.err;
  EXPECT_TRUE(Contains(ReadFile(named / "measured-busbw-allreduce.svg"),
                       "osu_allreduce, library, 4 ranks"));
}

// Two nccl-tests logs of two clusters: one all-reduce figure, a line for each file labelled by
// it, and no series left out of the figures.
TEST_F(ReportCli, SeveralFilesAreLinesOfOneFigure) {
  const std::string a = source_path("tests/data/nccl/a100_2node_16gpu_oci-hpc-oke.txt");
  const std::string b = source_path("tests/data/nccl/h100_2node_16gpu_ocitutorials.txt");
  const std::string c = source_path("tests/data/constructed/nccl_two_runs_8rank_cscs+rccl.txt");
  const fs::path out = FreshDir("series");
  const CliResult r = run_scalewall({"report", a, b, c, "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "allreduce bus bandwidth, 4 series")) << r.out;
  const std::string svg = ReadFile(out / "measured-busbw-allreduce.svg");
  for (const std::string& label :
       {a + ": all_reduce_perf, library, 16 ranks", b + ": all_reduce_perf, library, 16 ranks",
        c + ", table 1: all_reduce_perf, library, 8 ranks",
        c + ", table 2: all_reduce_perf, library, 8 ranks"}) {
    EXPECT_TRUE(Contains(svg, label)) << label;
  }
  const std::string html = ReadFile(out / "index.html");
  EXPECT_FALSE(Contains(html, "in the table only"));
  EXPECT_TRUE(Contains(html, "kept apart as two series")) << "the overlap is noted";
}

// The rows of the datablock `$name` of the figure whose script sets `output_stem`: (x, y).
std::vector<std::pair<double, double>> Datablock(const std::string& scripts,
                                                 const std::string& output_stem,
                                                 const std::string& name) {
  const std::size_t output = scripts.find(output_stem);
  std::vector<std::pair<double, double>> rows;
  if (output == std::string::npos) return rows;
  const std::size_t at = scripts.find("$" + name + " << EOD\n", output);
  if (at == std::string::npos) return rows;
  std::istringstream in(scripts.substr(at));
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line) && line != "EOD") {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    double x = 0;
    double y = 0;
    row >> x >> y;
    rows.emplace_back(x, y);
  }
  return rows;
}

// report --fabric: each collective figure carries the model's line on that fabric at the
// measured sizes (ring all-reduce of m bytes on 4 ranks, one link of alpha and bandwidth:
// 6 alpha + 1.5 m / bandwidth, busbw 1.5 m / time), and the ping-pong figure its fitted
// regimes, each segment's ends at alpha + m / bandwidth.
TEST_F(ReportCli, FabricDrawsTheModelLineAndThePingPongRegimes) {
  const fs::path dir = FreshDir("model");
  const std::optional<std::string> real = OnPath({"gnuplot"});
  ASSERT_TRUE(real.has_value());
  const fs::path bin = dir / "bin";
  const fs::path log = dir / "scripts.gp";
  fs::create_directories(bin);
  std::ofstream(bin / "gnuplot") << "#!/bin/sh\ntee -a '" << log.string() << "' | exec "
                                 << *real << " \"$@\"\n";
  fs::permissions(bin / "gnuplot", fs::perms::owner_all);
  constexpr double kAlpha = 10e-6;
  constexpr double kBandwidth = 1e9;
  const std::string fabric = write_temp_file(
      "flat.toml", fmt::format("name = \"flat4\"\nnodes = 4\nranks_per_node = 1\n"
                               "[intra]\nalpha = {}\nbandwidth = {}\n"
                               "[inter]\nalpha = {}\nbandwidth = {}\n",
                               kAlpha, kBandwidth, kAlpha, kBandwidth));
  std::vector<std::string> collectives;
  std::vector<double> sizes;
  for (int k = 0; k < 4; ++k) {
    const double bytes = 1024.0 * std::pow(16.0, k);
    sizes.push_back(bytes);
    const double t = 5e-6 + bytes / 4e9;
    collectives.push_back(fmt::format(
        R"({{"record":"collective","op":"allreduce","algorithm":"ring","ranks":4,"bytes":{},)"
        R"("iterations":20,"time_min_s":{},"time_median_s":{},"time_max_s":{},"algbw_Bps":{},)"
        R"("busbw_Bps":{},"verified":true}})",
        bytes, t, t, t, bytes / t, 1.5 * bytes / t));
  }
  // Two regimes, no noise: 2 us and 5 GB/s to 4 KiB, 20 us and 10 GB/s from 16 KiB.
  std::vector<std::string> pingpong;
  for (int k = 0; k <= 20; k += 2) {
    const double bytes = std::pow(2.0, k);
    const double t = bytes <= 4096 ? 2e-6 + bytes / 5e9 : 20e-6 + bytes / 10e9;
    pingpong.push_back(fmt::format(
        R"({{"record":"pingpong","from":0,"to":1,"bytes":{},"iterations":100,)"
        R"("one_way_min_s":{},"one_way_median_s":{},"one_way_max_s":{}}})",
        bytes, t, t, t));
  }
  const std::string coll = write_temp_file("model-coll.jsonl", MpiFile("collective", collectives));
  const std::string pp = write_temp_file("model-pp.jsonl", MpiFile("pingpong", pingpong));
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path != nullptr ? old_path : "";
  ::setenv("PATH", (bin.string() + ":" + saved).c_str(), 1);
  const fs::path out = dir / "report";
  const CliResult r =
      run_scalewall({"report", coll, pp, "--fabric", fabric, "-o", out.string()});
  ::setenv("PATH", saved.c_str(), 1);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string scripts = ReadFile(log);
  const std::string svg = ReadFile(out / "measured-busbw-allreduce.svg");
  EXPECT_TRUE(Contains(svg, "model (not a measurement): " + coll +
                                ": scalewall-mpi collective, ring, 4 ranks on flat4"))
      << svg.substr(0, 2000);
  // line0 the measured ring, line1 its model, in GB/s.
  const auto model = Datablock(scripts, "measured-busbw-allreduce.svg", "line1");
  ASSERT_EQ(model.size(), sizes.size()) << scripts.substr(0, 3000);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double time_s = 6 * kAlpha + 1.5 * sizes[i] / kBandwidth;
    EXPECT_NEAR(model[i].second, 1.5 * sizes[i] / time_s / 1e9, 1e-6 * model[i].second) << i;
  }
  // The ping-pong figure: line0 measured, line1 and line2 the regimes, in seconds.
  const std::string pp_svg = ReadFile(out / "measured-pingpong.svg");
  EXPECT_TRUE(Contains(pp_svg, "model (not a measurement): " + pp +
                                   ": scalewall-mpi pingpong, fitted regime 1 of 2"))
      << pp_svg.substr(0, 2000);
  const auto first = Datablock(scripts, "measured-pingpong.svg", "line1");
  const auto second = Datablock(scripts, "measured-pingpong.svg", "line2");
  ASSERT_EQ(first.size(), 2u) << scripts;
  ASSERT_EQ(second.size(), 2u) << scripts;
  EXPECT_DOUBLE_EQ(first[0].first, 1.0);
  EXPECT_DOUBLE_EQ(first[1].first, 4096.0);
  EXPECT_NEAR(first[0].second, 2e-6 + 1 / 5e9, 1e-15);
  EXPECT_NEAR(first[1].second, 2e-6 + 4096 / 5e9, 1e-15);
  EXPECT_DOUBLE_EQ(second[0].first, 16384.0);
  EXPECT_DOUBLE_EQ(second[1].first, 1048576.0);
  EXPECT_NEAR(second[0].second, 20e-6 + 16384 / 10e9, 1e-15);
  EXPECT_NEAR(second[1].second, 20e-6 + 1048576 / 10e9, 1e-15);

  // Without measurements there is nothing to draw the model over.
  const CliResult bad = run_scalewall({"report", source_path("examples/seed-7b-bf16.toml"),
                                       "--fabric", fabric, "-o", (dir / "none").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Contains(bad.err, "--fabric draws the model over measured collectives")) << bad.err;
}

// Every line of a figure's title fits the picture: gnuplot centres the title on the plot
// area, so with the key beside the plot a long title or subtitle ran off the left edge. The
// breakdown of a strong-scaling curve with a long scenario name: each centred 13-point line
// of the SVG, at about 0.55 em a character, lies inside the 960-pixel picture.
TEST_F(ReportCli, BreakdownTitleLinesFitThePicture) {
  std::string scenario = ReadFile(source_path("examples/seed-7b-bf16.toml"));
  const std::string long_name =
      "a-strong-scaling-job-whose-name-is-long-enough-to-fill-most-of-a-title-line";
  const auto at = scenario.find("name = \"seed-7b-bf16\"");
  ASSERT_NE(at, std::string::npos);
  scenario.replace(at, std::string("name = \"seed-7b-bf16\"").size(),
                   "name = \"" + long_name + "\"");
  const std::string file = write_temp_file("long.toml", scenario);
  const fs::path out = FreshDir("long");
  const CliResult r = run_scalewall({"report", file, "--max-ranks", "4096", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string svg;  // the stem is the name cut short: find the file by its ending
  for (const auto& entry : fs::directory_iterator(out)) {
    if (entry.path().string().ends_with("-breakdown.svg")) svg = ReadFile(entry.path());
  }
  ASSERT_FALSE(svg.empty());
  static const std::regex kTitleLine(
      R"re(translate\(([0-9.]+),[0-9.]+\)[^>]*font-size="13\.00"[^>]*text-anchor="middle">\s*<text>([^<]*)</text>)re");
  constexpr double kWidthPx = 960;
  constexpr double kCharEm = 0.55;
  int lines = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kTitleLine);
       it != std::sregex_iterator(); ++it) {
    const double centre = std::stod((*it)[1].str());
    const double half = 0.5 * static_cast<double>((*it)[2].length()) * 13.0 * kCharEm;
    EXPECT_GE(centre - half, 0.0) << (*it)[2].str();
    EXPECT_LE(centre + half, kWidthPx) << (*it)[2].str();
    ++lines;
  }
  EXPECT_GE(lines, 2) << "no centred title lines found in the SVG";
}

TEST_F(ReportCli, ErrorsExitTwoNamingTheValue) {
  const fs::path dir = FreshDir("errors");
  const std::string scenario = source_path("examples/seed-7b-bf16.toml");

  CliResult r = run_scalewall({"report", scenario});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--out")) << r.err;

  const fs::path blocker = dir / "a-file";
  std::ofstream(blocker) << "x";
  const std::string under_file = (blocker / "out").string();
  r = run_scalewall({"report", scenario, "-o", under_file});
  EXPECT_EQ(r.exit_code, 1);  // a directory that cannot be made: a failed write
  EXPECT_TRUE(Contains(r.err, "error: -o: cannot create directory '" + under_file + "'")) << r.err;

  const std::string missing = (dir / "no-such.toml").string();
  r = run_scalewall({"report", missing, "-o", (dir / "out").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: cannot open input file '" + missing + "': no such file\n");
  // Bad input writes nothing.
  EXPECT_FALSE(fs::exists(dir / "out"));

  r = run_scalewall({"report", source_path("examples/fabrics/dgx-h100-ndr.toml"), "-o",
                     (dir / "out").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "is a fabric file")) << r.err;

  const std::string junk = write_temp_file("junk.txt", "hello\n");
  r = run_scalewall({"report", junk, "-o", (dir / "out").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, junk)) << r.err;

  r = run_scalewall({"report", scenario, "-o", (dir / "out").string(), "--max-ranks", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--max-ranks")) << r.err;

  r = run_scalewall({"report", scenario, "-o", (dir / "out").string(), "--target-efficiency",
                     "1.5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--target-efficiency")) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST_F(ReportCli, PredictPlotWritesTheScalingCurve) {
  const fs::path dir = FreshDir("predict");
  for (const char* name : {"curve.svg", "curve.png"}) {
    const fs::path file = dir / name;
    const CliResult r = run_scalewall(
        {"predict", source_path("examples/seed-7b-bf16.toml"), "--plot", file.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // The table still goes to stdout, unchanged.
    EXPECT_EQ(r.out.rfind("# MODEL: analytic prediction, not a measurement\n", 0), 0u);
    EXPECT_GT(fs::file_size(file), 1000u);
  }
  EXPECT_TRUE(Contains(ReadFile(dir / "curve.svg"), "MODEL: STRONG scaling of seed-7b-bf16"));
  EXPECT_EQ(ReadFile(dir / "curve.png").substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));

  CliResult r = run_scalewall(
      {"predict", source_path("examples/seed-7b-bf16.toml"), "--plot", (dir / "c.pdf").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "error: --plot: plot file '" + (dir / "c.pdf").string() + "'"))
      << r.err;
  r = run_scalewall({"predict", source_path("examples/seed-7b-bf16.toml"), "--what-if", "--plot",
                     (dir / "c.svg").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--plot")) << r.err;
  const std::string unwritable = (dir / "curve.svg" / "x.svg").string();
  r = run_scalewall(
      {"predict", source_path("examples/seed-7b-bf16.toml"), "--plot", unwritable});
  EXPECT_EQ(r.exit_code, 1);  // a failed write, not bad input
  EXPECT_TRUE(Contains(r.err, "error: --plot: cannot write plot '" + unwritable + "'")) << r.err;
  EXPECT_EQ(r.out, "");
}

// A plot that cannot be written is a failed write of --plot in every command that draws one:
// exit status 1 and the flag in front of the path and the reason.
TEST_F(ReportCli, AFailedPlotWriteNamesThePlotFlag) {
  const std::string plot = (FreshDir("missing") / "no-such-dir" / "x.svg").string();
  const std::string said = "error: --plot: cannot write plot '" + plot + "': no such directory\n";
  const std::string pingpong = source_path("tests/data/scalewall_pingpong.jsonl");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"predict", source_path("examples/seed-7b-bf16.toml")},
        std::vector<std::string>{"diagnose", source_path("examples/runs.csv")},
        std::vector<std::string>{"validate", pingpong,
                                 source_path("tests/data/scalewall_collective.jsonl")},
        std::vector<std::string>{"select", "--ranks", "2..16", "--bytes", "1..1MiB"}}) {
    std::vector<std::string> with_plot = args;
    with_plot.insert(with_plot.end(), {"--plot", plot});
    const CliResult r = run_scalewall(with_plot);
    EXPECT_EQ(r.exit_code, 1) << args.front() << ": " << r.err;
    EXPECT_EQ(r.err, said) << args.front();
    EXPECT_EQ(r.out, "") << args.front();
  }
}

TEST_F(ReportCli, SelectPlotWritesTheSelectionMap) {
  const fs::path file = FreshDir("select") / "map.svg";
  const CliResult r = run_scalewall({"select", "--ranks", "2..256", "--bytes", "1..1GiB",
                                     "--plot", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = ReadFile(file);
  EXPECT_TRUE(Contains(svg, "MODEL: cheapest allreduce algorithm by ranks and message size"));
  EXPECT_TRUE(Contains(svg, "recursive-doubling"));
  const CliResult bad = run_scalewall({"select", "--plot", "map.jpeg"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Contains(bad.err, "error: --plot: plot file 'map.jpeg'")) << bad.err;
}

// validate --plot: measured against predicted, the error figures in the title, one legend
// entry per algorithm; a bad extension or an input file as the plot is bad input.
TEST_F(ReportCli, ValidatePlotDrawsMeasuredAgainstPredicted) {
  const fs::path dir = FreshDir("validate");
  const std::string pingpong = source_path("tests/data/scalewall_pingpong.jsonl");
  const std::string collective = source_path("tests/data/scalewall_collective.jsonl");
  for (const char* name : {"v.svg", "v.png"}) {
    const fs::path file = dir / name;
    const CliResult r = run_scalewall({"validate", pingpong, collective, "--plot", file.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("# MEASUREMENT: 15 measured collective points", 0), 0u) << r.out;
    EXPECT_GT(fs::file_size(file), 1000u);
  }
  const std::string svg = ReadFile(dir / "v.svg");
  EXPECT_TRUE(Contains(svg, "prediction against 15 measured points")) << svg.substr(0, 2000);
  EXPECT_TRUE(Contains(svg, "median |error| 10.6%, worst 23.5%")) << svg.substr(0, 2000);
  EXPECT_TRUE(Contains(svg, "ring (5 points)"));
  EXPECT_TRUE(Contains(svg, "recursive-doubling (5 points)"));
  EXPECT_TRUE(Contains(svg, "library (5 points)"));
  EXPECT_TRUE(Contains(svg, "measured = predicted"));
  EXPECT_EQ(ReadFile(dir / "v.png").substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));

  CliResult r = run_scalewall(
      {"validate", pingpong, collective, "--plot", (dir / "v.pdf").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "error: --plot: plot file '" + (dir / "v.pdf").string() + "'"))
      << r.err;
  EXPECT_EQ(r.out, "");
  // A measurement file read by content, whatever its name: the plot never replaces it.
  const fs::path input = dir / "collective.svg";
  fs::copy_file(collective, input);
  const std::string before = ReadFile(input);
  r = run_scalewall({"validate", pingpong, input.string(), "--plot", input.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "it is the input file")) << r.err;
  EXPECT_EQ(ReadFile(input), before);
}

// ---- the page in a real browser ----

struct ProcessResult {
  int exit_code = -1;
  bool timed_out = false;
  std::string out;
  std::string err;
};

std::string Drain(int fd) {
  std::string text;
  std::array<char, 4096> buffer{};
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n <= 0) break;
    text.append(buffer.data(), static_cast<std::size_t>(n));
  }
  return text;
}

// Runs argv (no shell) in its own process group, killing the group after `timeout`.
ProcessResult RunWithTimeout(const std::vector<std::string>& args, std::chrono::seconds timeout) {
  int out_pipe[2];
  int err_pipe[2];
  ProcessResult result;
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) return result;
  std::vector<std::string> text = args;
  std::vector<char*> argv;
  for (auto& a : text) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  std::thread out_reader([&] { result.out = Drain(out_pipe[0]); });
  std::thread err_reader([&] { result.err = Drain(err_pipe[0]); });
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    if (::waitpid(pid, &status, WNOHANG) == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Helper processes of the browser may outlive it holding the pipes; end the group.
  ::kill(-pid, SIGKILL);
  out_reader.join();
  err_reader.join();
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

TEST_F(ReportCli, PageRendersInHeadlessChromium) {
  const std::optional<std::string> chromium =
      OnPath({"chromium", "chromium-browser", "google-chrome"});
  if (!chromium) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  const fs::path dir = FreshDir("chromium");
  const fs::path out = dir / "report";
  std::vector<std::string> steps;
  for (int rank = 0; rank < 4; ++rank) {
    steps.push_back("{\"record\":\"step\",\"step\":0,\"rank\":" + std::to_string(rank) +
                    ",\"host\":\"n\",\"compute_s\":0.01,\"communication_s\":0.002,\"wait_s\":" +
                    std::to_string(0.001 * (rank + 1)) + ",\"step_s\":0.013}");
  }
  const std::string step = write_temp_file("step.jsonl", MpiFile("step", steps));
  const CliResult r = run_scalewall({"report", source_path("examples/seed-7b-bf16.toml"),
                                     source_path("examples/dgx-llm-weak.toml"), step, "-o",
                                     out.string(), "--max-ranks", "64"});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const fs::path profile = dir / "profile";  // fresh: nothing from an earlier run
  fs::create_directories(profile);
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult page = RunWithTimeout(
      {*chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
       "--no-first-run", "--disable-background-networking", "--disable-component-update",
       "--disable-sync", "--user-data-dir=" + profile.string(), "--enable-logging=stderr",
       "--v=0", "--dump-dom", "file://" + (out / "index.html").string()},
      std::chrono::seconds(90));
  // A hang guard, not a speed target: a shared machine can be slow.
  ASSERT_FALSE(page.timed_out) << "chromium did not finish in 90 s; stderr:\n" << page.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(91));
  ASSERT_EQ(page.exit_code, 0) << page.err;

  // No console message at all: the page logs nothing, so any is an error.
  std::istringstream log(page.err);
  for (std::string line; std::getline(log, line);) {
    EXPECT_FALSE(Contains(line, ":CONSOLE")) << line;
  }
  // The page's own check, written into #selfcheck on load.
  const std::regex selfcheck("<pre id=\"selfcheck\"[^>]*>([^<]*)</pre>");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(page.out, m, selfcheck)) << page.out.substr(0, 2000);
  const std::string report = m[1].str();
  ASSERT_EQ(report.rfind("loaded\n", 0), 0u) << report;
  const std::regex counts("images ([0-9]+) rendered ([0-9]+)");
  std::smatch c;
  ASSERT_TRUE(std::regex_search(report, c, counts)) << report;
  // Seed (3) + fabric scenario (4) + the step file's per-rank wait (1).
  EXPECT_EQ(c[1].str(), "8") << report;
  EXPECT_EQ(c[2].str(), c[1].str()) << report;
  const std::regex image("img (\\S+) ([0-9]+)x([0-9]+)");
  int images = 0;
  for (auto it = std::sregex_iterator(report.begin(), report.end(), image);
       it != std::sregex_iterator(); ++it) {
    ++images;
    EXPECT_GT(std::stoi((*it)[2].str()), 0) << (*it)[1];
    EXPECT_GT(std::stoi((*it)[3].str()), 0) << (*it)[1];
    EXPECT_TRUE(fs::exists(out / (*it)[1].str())) << (*it)[1];
  }
  EXPECT_EQ(images, 8);
  EXPECT_TRUE(Contains(report, "\nerrors 0")) << report;
  // The same sizes in each image's data attributes.
  EXPECT_TRUE(Contains(page.out, "data-natural-width=\"960\"")) << page.out.substr(0, 2000);
}

// The files whose name starts with "pwned" anywhere under `dir`.
std::vector<std::string> Pwned(const fs::path& dir) {
  std::vector<std::string> made;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("pwned", 0) == 0) {
      made.push_back(entry.path().string());
    }
  }
  return made;
}

// A shared scenario, the fabric it names, or a measurement file's name, carrying text that
// gnuplot would run (backquotes, system(), a newline and gnuplot's ! shell escape): drawing
// any of them runs nothing.
TEST_F(ReportCli, NoNameFromInputRunsAsACommand) {
  const fs::path dir = FreshDir("hostile");
  const std::string at = dir.string();
  const auto hostile = [&](const std::string& slot) {
    return fmt::format("x`touch {0}/pwned-{1}-bq` system('touch {0}/pwned-{1}-sys') "
                       "$(touch {0}/pwned-{1}-sh) \"q\" 'q'\n!touch {0}/pwned-{1}-bang\n",
                       at, slot);
  };
  // TOML basic strings: escape backslash, quote and newline.
  const auto toml = [](const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
      if (c == '"' || c == '\\') out += '\\';
      out += c == '\n' ? std::string("\\n") : std::string(1, c);
    }
    return out + "\"";
  };
  std::string fabric = ReadFile(source_path("examples/fabrics/dgx-h100-ndr.toml"));
  fabric.replace(fabric.find("name = \"dgx-h100-ndr\""), std::string("name = \"dgx-h100-ndr\"").size(),
                 "name = " + toml(hostile("fabric")));
  std::ofstream(dir / "fabric.toml") << fabric;
  std::string scenario = ReadFile(source_path("examples/dgx-llm-weak.toml"));
  scenario.replace(scenario.find("fabric = \"fabrics/dgx-h100-ndr.toml\""),
                   std::string("fabric = \"fabrics/dgx-h100-ndr.toml\"").size(),
                   "fabric = \"fabric.toml\"");
  const std::size_t name_at = scenario.find("\nname = ");
  ASSERT_NE(name_at, std::string::npos);
  const std::size_t name_end = scenario.find('\n', name_at + 1);
  scenario.replace(name_at + 1, name_end - name_at - 1, "name = " + toml(hostile("scenario")));
  const fs::path scenario_path = dir / "scenario.toml";
  std::ofstream(scenario_path) << scenario;

  CliResult r = run_scalewall({"predict", scenario_path.string(), "--ranks", "8,64",
                               "--plot", (dir / "curve.svg").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "curve.svg"));
  EXPECT_TRUE(Contains(ReadFile(dir / "curve.svg"), "touch")) << "the name is drawn as text";
  r = run_scalewall({"select", "--fabric", (dir / "fabric.toml").string(), "--op", "allreduce",
                     "--ranks", "2..64", "--bytes", "1..1MB", "--plot", (dir / "map.svg").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A file name cannot hold a '/': this one touches a file in the current directory.
  const fs::path measured = dir / "a`touch pwned-by-file-name` $(touch x).txt";
  fs::copy_file(source_path("tests/data/nccl_all_reduce_perf.txt"), measured);
  r = run_scalewall({"report", scenario_path.string(), measured.string(), "-o",
                     (dir / "report").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "report" / "index.html"));
  const std::vector<std::string> made = Pwned(dir);
  EXPECT_TRUE(made.empty()) << "input text ran as a command and made " << made.front();
  EXPECT_FALSE(fs::exists("pwned-by-file-name")) << "a file name ran as a command";
}

// A report that fails part-way (here gnuplot fails on the second scenario's figures) leaves
// nothing half-made: no output directory when there was none, an existing one untouched, and
// no staging directory.
TEST_F(ReportCli, AFailedReportLeavesNothingHalfMade) {
  const fs::path dir = FreshDir("half");
  const std::optional<std::string> real = OnPath({"gnuplot"});
  ASSERT_TRUE(real.has_value());
  const fs::path bin = dir / "bin";
  fs::create_directories(bin);
  {
    std::ofstream fake(bin / "gnuplot");
    fake << "#!/bin/sh\nscript=$(cat)\ncase \"$script\" in *FAILS-HERE*) echo 'boom' >&2; "
            "exit 1;; esac\nprintf '%s\\n' \"$script\" | exec "
         << *real << " \"$@\"\n";
  }
  fs::permissions(bin / "gnuplot", fs::perms::owner_all);
  std::string second = ReadFile(source_path("examples/seed-7b-bf16.toml"));
  second.replace(second.find("name = \"seed-7b-bf16\""), std::string("name = \"seed-7b-bf16\"").size(),
                 "name = \"FAILS-HERE\"");
  std::ofstream(dir / "second.toml") << second;
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path != nullptr ? old_path : "";
  ::setenv("PATH", (bin.string() + ":" + saved).c_str(), 1);
  const fs::path out = dir / "report";
  const CliResult fresh = run_scalewall({"report", source_path("examples/seed-7b-bf16.toml"),
                                         (dir / "second.toml").string(), "-o", out.string()});
  fs::create_directories(dir / "old");
  std::ofstream(dir / "old" / "index.html") << "the previous report";
  const CliResult over = run_scalewall({"report", source_path("examples/seed-7b-bf16.toml"),
                                        (dir / "second.toml").string(), "-o",
                                        (dir / "old").string()});
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(fresh.exit_code, 1) << fresh.err;
  EXPECT_TRUE(Contains(fresh.err, "boom")) << fresh.err;
  EXPECT_FALSE(fs::exists(out)) << "a failed report made " << out;
  EXPECT_EQ(over.exit_code, 1) << over.err;
  EXPECT_EQ(ReadFile(dir / "old" / "index.html"), "the previous report");
  std::size_t in_old = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir / "old")) ++in_old;
  EXPECT_EQ(in_old, 1u);
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename().string().find("scalewall-report"), std::string::npos)
        << "left behind: " << entry.path();
  }
}

// A report stopped by SIGTERM while gnuplot draws (here a gnuplot that never finishes) removes
// its staging directory and still ends by SIGTERM; nothing of -o DIR is made.
TEST_F(ReportCli, AReportStoppedBySigtermLeavesNoStagingDirectory) {
  const fs::path dir = FreshDir("sigterm");
  const fs::path bin = dir / "bin";
  const fs::path drawing = dir / "drawing";
  fs::create_directories(bin);
  // Draws for ever; ends on its own once nobody reads its stderr.
  std::ofstream(bin / "gnuplot") << "#!/bin/sh\ncat >/dev/null\n: > '" << drawing.string()
                                 << "'\nwhile printf . >&2; do sleep 0.05; done\n";
  fs::permissions(bin / "gnuplot", fs::perms::owner_all);
  const fs::path out = dir / "report";
  std::string program = SCALEWALL_BIN;
  std::vector<std::string> args = {program, "report",
                                   source_path("examples/seed-7b-bf16.toml"), "-o", out.string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path != nullptr ? old_path : "";
  ::setenv("PATH", (bin.string() + ":" + saved).c_str(), 1);
  const pid_t child = ::fork();
  if (child == 0) {
    const int devnull = ::open("/dev/null", O_RDWR);
    ::dup2(devnull, STDIN_FILENO);
    ::dup2(devnull, STDOUT_FILENO);
    ::dup2(devnull, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setenv("PATH", saved.c_str(), 1);
  ASSERT_GT(child, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!fs::exists(drawing) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(fs::exists(drawing)) << "gnuplot never started";
  bool staged = false;
  for (const auto& entry : fs::directory_iterator(dir)) {
    staged = staged || Contains(entry.path().filename().string(), "scalewall-report");
  }
  EXPECT_TRUE(staged) << "no staging directory while drawing";
  ::kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_FALSE(Contains(entry.path().filename().string(), "scalewall-report"))
        << "left behind: " << entry.path();
  }
  EXPECT_FALSE(fs::exists(out));
}

// A staging directory left by a run that crashed (its PID no longer running) is removed by
// the next report to the same DIR; one of a running process is left alone.
TEST_F(ReportCli, TheNextReportRemovesAStagingDirectoryACrashLeft) {
  const fs::path dir = FreshDir("crashed");
  const pid_t dead = ::fork();
  ASSERT_GE(dead, 0);
  if (dead == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(dead, nullptr, 0), dead);
  const fs::path abandoned = dir / (".report.scalewall-report-" + std::to_string(dead));
  const fs::path running = dir / (".report.scalewall-report-" + std::to_string(::getpid()));
  for (const fs::path& staging : {abandoned, running}) {
    fs::create_directories(staging);
    std::ofstream(staging / "half.svg") << "<svg";
  }
  const CliResult r = run_scalewall(
      {"report", source_path("examples/seed-7b-bf16.toml"), "-o", (dir / "report").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(abandoned));
  EXPECT_TRUE(fs::exists(running / "half.svg"));
  EXPECT_TRUE(fs::exists(dir / "report" / "index.html"));
}

// A --plot path that names one of the run's inputs is refused before anything is drawn, and
// the input is left as it was.
TEST_F(ReportCli, APlotNeverReplacesAnInput) {
  const fs::path dir = FreshDir("plot-over-input");
  const fs::path scenario = dir / "scenario.svg";
  fs::copy_file(source_path("examples/seed-7b-bf16.toml"), scenario);
  const std::string before = ReadFile(scenario);
  CliResult r = run_scalewall({"predict", scenario.string(), "--plot", scenario.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, "it is the input file")) << r.err;
  EXPECT_EQ(ReadFile(scenario), before);
  const fs::path measured = dir / "runs.png";
  std::ofstream(measured) << "ranks,step_s,problem_size\n8,0.8,1\n64,0.6,1\n512,0.57,1\n";
  const std::string measured_before = ReadFile(measured);
  r = run_scalewall({"diagnose", measured.string(), "--plot", (dir / "." / "runs.png").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, "it is the input file")) << r.err;
  EXPECT_EQ(ReadFile(measured), measured_before);
}

// A copy of the example scenario `example` in `dir` whose fabric (data-parallel
// [network] fabric, or a transformer's [system] fabric) is `fabric_name`, a copy of
// examples/fabrics/dgx-h100-ndr.toml beside it. Returns the scenario's path.
fs::path ScenarioNamingFabric(const fs::path& dir, const std::string& example,
                              const std::string& fabric_name) {
  const std::string text = ReadFile(source_path("examples/" + example));
  const std::regex key("fabric = \"[^\"]*\"");
  EXPECT_TRUE(std::regex_search(text, key)) << example;
  const fs::path scenario = dir / example;
  std::ofstream(scenario) << std::regex_replace(text, key, "fabric = \"" + fabric_name + "\"");
  fs::copy_file(source_path("examples/fabrics/dgx-h100-ndr.toml"), dir / fabric_name);
  return scenario;
}

// The fabric file a scenario names is one of the run's inputs: report -o (a figure of the
// fabric's name), predict --plot and diagnose --scenario ... --plot never replace it, in
// both kinds of scenario. report names the figure under -o as written ("./NAME" for -o .).
TEST_F(ReportCli, NoOutputReplacesTheFabricAScenarioNames) {
  const fs::path dir = FreshDir("fabric");
  const fs::path data_parallel =
      ScenarioNamingFabric(dir, "serial-bound-io.toml", "serial-bound-io-scaling.svg");
  const fs::path transformer =
      ScenarioNamingFabric(dir, "gpt3-175b-a100.toml", "gpt3-175b-a100-memory.svg");
  const std::string fabric = ReadFile(dir / "serial-bound-io-scaling.svg");
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  const CliResult dp_report = run_scalewall({"report", "serial-bound-io.toml", "-o", "."});
  const CliResult tf_report = run_scalewall({"report", "gpt3-175b-a100.toml", "-o", "."});
  fs::current_path(cwd);
  EXPECT_EQ(dp_report.exit_code, 2) << dp_report.err;
  EXPECT_EQ(dp_report.err,
            "error: -o: cannot write './serial-bound-io-scaling.svg': it is the input file "
            "'serial-bound-io-scaling.svg' (an output never replaces an input)\n");
  EXPECT_EQ(tf_report.exit_code, 2) << tf_report.err;
  EXPECT_EQ(tf_report.err,
            "error: -o: cannot write './gpt3-175b-a100-memory.svg': it is the input file "
            "'gpt3-175b-a100-memory.svg' (an output never replaces an input)\n");
  const CliResult predict = run_scalewall(
      {"predict", data_parallel.string(), "--plot", (dir / "serial-bound-io-scaling.svg").string()});
  EXPECT_EQ(predict.exit_code, 2) << predict.err;
  EXPECT_TRUE(Contains(predict.err, "it is the input file '" +
                                        (dir / "serial-bound-io-scaling.svg").string() + "'"))
      << predict.err;
  const CliResult predict_transformer = run_scalewall(
      {"predict", transformer.string(), "--plot", (dir / "gpt3-175b-a100-memory.svg").string()});
  EXPECT_EQ(predict_transformer.exit_code, 2) << predict_transformer.err;
  std::ofstream(dir / "runs.csv") << "ranks,step_s,problem_size\n8,0.8,1\n64,0.6,1\n512,0.57,1\n";
  const CliResult diagnose =
      run_scalewall({"diagnose", (dir / "runs.csv").string(), "--scenario",
                     data_parallel.string(), "--plot", (dir / "serial-bound-io-scaling.svg").string()});
  EXPECT_EQ(diagnose.exit_code, 2) << diagnose.err;
  EXPECT_TRUE(Contains(diagnose.err, "error: --plot: cannot write")) << diagnose.err;
  EXPECT_EQ(ReadFile(dir / "serial-bound-io-scaling.svg"), fabric);
  EXPECT_EQ(ReadFile(dir / "gpt3-175b-a100-memory.svg"), fabric);
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename().string().find("scalewall-report"), std::string::npos)
        << "left behind: " << entry.path();
  }
}

// --plot onto a symbolic link replaces the file it points to and keeps the link, as --out
// does; a link to /dev/full is a failed write (exit 1, no space) that leaves the link. A hard
// link to an input is that input.
TEST_F(ReportCli, APlotFollowsASymbolicLink) {
  const fs::path dir = FreshDir("plot-link");
  const std::string scenario = source_path("examples/seed-7b-bf16.toml");
  std::ofstream(dir / "x.svg") << "old";
  fs::create_symlink("x.svg", dir / "link.svg");
  CliResult r = run_scalewall({"predict", scenario, "--plot", (dir / "link.svg").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.svg"));
  EXPECT_EQ(fs::read_symlink(dir / "link.svg"), "x.svg");
  EXPECT_TRUE(Contains(ReadFile(dir / "x.svg"), "</svg>"));
  // A link to a file not yet made: the file is made, the link stays.
  fs::create_directory(dir / "plots");
  fs::create_symlink("plots/new.svg", dir / "ahead.svg");
  r = run_scalewall({"predict", scenario, "--plot", (dir / "ahead.svg").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "ahead.svg"));
  EXPECT_TRUE(Contains(ReadFile(dir / "plots" / "new.svg"), "</svg>"));

  fs::create_symlink("/dev/full", dir / "full.svg");
  r = run_scalewall({"predict", scenario, "--plot", (dir / "full.svg").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(Contains(r.err, "cannot write '" + (dir / "full.svg").string() +
                                  "': no space left on the device"))
      << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "full.svg"));
  EXPECT_EQ(fs::read_symlink(dir / "full.svg"), "/dev/full");

  const fs::path input = dir / "scenario.toml";
  fs::copy_file(scenario, input);
  fs::create_hard_link(input, dir / "hard.svg");
  r = run_scalewall({"predict", input.string(), "--plot", (dir / "hard.svg").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, "it is the input file '" + input.string() + "'")) << r.err;
  EXPECT_EQ(ReadFile(dir / "hard.svg"), ReadFile(scenario));
}

}  // namespace
}  // namespace scalewall::testing
