// End-to-end tests of `scalewall compare`: runs side by side with exact ratios on files the
// test writes (times that are powers of two, so that every ratio is exact in binary), the
// verdict against the runs' spread, a log without spread, calibrations (fabric files and
// calibrate's JSON report), the three formats, and refused inputs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string envelope(const std::string& command) {
  return fmt::format(
      R"({{"tool":"scalewall-mpi","version":"0.1.0","command":"{}","kind":"measurement",)"
      R"("format":"jsonl","inputs":{{}},"context":{{"mpi_library":"Open MPI v4.1.4",)"
      R"("mpi_version":"3.1","ranks":4,"ranks_per_host":4,"hosts":["node1"],)"
      R"("date":"2026-11-30T05:00:00Z"}}}})",
      command);
}

std::string pingpong(double bytes, double min_s, double median_s, double max_s) {
  return fmt::format(
      R"({{"record":"pingpong","from":0,"to":1,"bytes":{},"iterations":10,)"
      R"("one_way_min_s":{:.17g},"one_way_median_s":{:.17g},"one_way_max_s":{:.17g}}})",
      bytes, min_s, median_s, max_s);
}

std::string allreduce(double bytes, double min_s, double median_s, double max_s) {
  return fmt::format(
      R"({{"record":"collective","op":"allreduce","algorithm":"ring","ranks":4,"bytes":{},)"
      R"("iterations":10,"time_min_s":{:.17g},"time_median_s":{:.17g},"time_max_s":{:.17g},)"
      R"("algbw_Bps":1,"busbw_Bps":1,"verified":true}})",
      bytes, min_s, median_s, max_s);
}

std::string run_file(const std::string& name, const std::vector<std::string>& records) {
  std::string text = envelope("collective") + "\n";
  for (const std::string& r : records) text += r + "\n";
  text += fmt::format(R"({{"record":"end","status":"complete","records":{}}})", records.size());
  return write_temp_file(name, text + "\n");
}

// 2^-k seconds.
double p2(int k) { return std::ldexp(1.0, -k); }

struct TwoRuns {
  std::string a;
  std::string b;
};

// Run B: the ping-pong 1.5x slower inside A's spread, the all-reduce 2x slower beyond it,
// the 4 KiB all-reduce 0.5x (faster beyond it), and one size A does not have.
TwoRuns two_runs() {
  const std::string a = run_file(
      "compare_a.jsonl",
      {pingpong(8, p2(21), p2(20), p2(17)), allreduce(1024, p2(14), p2(13), 3 * p2(14)),
       allreduce(4096, 3 * p2(13), p2(11), p2(10))});
  const std::string b = run_file(
      "compare_b.jsonl",
      {pingpong(8, p2(20), 3 * p2(21), p2(18)), allreduce(1024, 7 * p2(15), p2(12), p2(11)),
       allreduce(4096, p2(14), p2(12), 5 * p2(14)), allreduce(65536, p2(8), p2(7), p2(6))});
  return {a, b};
}

TEST(CompareCli, TwoRunsRatiosAndVerdictsAreExact) {
  const TwoRuns runs = two_runs();
  const auto j = run_json({"compare", runs.a, runs.b});
  EXPECT_EQ(j["command"], "compare");
  EXPECT_EQ(j["kind"], "measurement");
  EXPECT_EQ(j["inputs"]["files"][0], runs.a);
  EXPECT_EQ(j["inputs"]["inputs_are"], "runs");
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 3u) << j.dump();
  EXPECT_EQ(rows[0]["measurement"], "pingpong");
  EXPECT_EQ(rows[0]["variant"], "0->1");
  EXPECT_EQ(rows[0]["ranks"], 2);
  EXPECT_EQ(rows[0]["bytes"], 8);
  EXPECT_EQ(rows[0]["run"], runs.b);
  EXPECT_EQ(rows[0]["baseline_s"].get<double>(), p2(20));
  EXPECT_EQ(rows[0]["time_s"].get<double>(), 3 * p2(21));
  EXPECT_EQ(rows[0]["ratio"].get<double>(), 1.5);
  EXPECT_EQ(rows[0]["baseline_min_s"].get<double>(), p2(21));
  EXPECT_EQ(rows[0]["max_s"].get<double>(), p2(18));
  EXPECT_EQ(rows[0]["verdict"], "within spread");
  EXPECT_EQ(rows[1]["measurement"], "allreduce");
  EXPECT_EQ(rows[1]["variant"], "ring");
  EXPECT_EQ(rows[1]["ranks"], 4);
  EXPECT_EQ(rows[1]["ratio"].get<double>(), 2.0);
  EXPECT_EQ(rows[1]["verdict"], "slower beyond spread");  // B's min 7/2^15 > A's max 3/2^14
  EXPECT_EQ(rows[2]["bytes"], 4096);
  EXPECT_EQ(rows[2]["ratio"].get<double>(), 0.5);
  EXPECT_EQ(rows[2]["verdict"], "faster beyond spread");  // B's max 5/2^14 < A's min 3/2^13
  // The geometric mean of 1.5, 2 and 0.5 is the cube root of 1.5.
  EXPECT_DOUBLE_EQ(j["geomean_ratio"].get<double>(), std::cbrt(1.5));
  ASSERT_EQ(j["notes"].size(), 1u) << j.dump();
  EXPECT_EQ(j["notes"][0], runs.b + ": 1 point(s) are not in " + runs.a + " and are left out");
}

TEST(CompareCli, TableAndCsvCarryTheSameRows) {
  const TwoRuns runs = two_runs();
  const CliResult table = run_scalewall({"compare", runs.a, runs.b});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(contains(table.out, "# MEASUREMENT: 2 runs side by side")) << table.out;
  EXPECT_TRUE(contains(table.out, "slower beyond spread")) << table.out;
  EXPECT_TRUE(contains(table.out, "2x")) << table.out;
  EXPECT_TRUE(contains(table.out, "geometric mean ratio, " + runs.b)) << table.out;
  const CliResult csv = run_scalewall({"compare", runs.a, runs.b, "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_TRUE(contains(csv.out,
                       "measurement,variant,ranks,bytes,run,baseline_s,time_s,ratio,"
                       "baseline_min_s,baseline_max_s,min_s,max_s,verdict\n"))
      << csv.out;
  EXPECT_TRUE(contains(csv.out, ",2,")) << csv.out;
}

// Three runs: one row per later run, and one geometric mean each.
TEST(CompareCli, ThreeRunsGiveOneRowPerLaterRun) {
  const TwoRuns runs = two_runs();
  const auto j = run_json({"compare", runs.a, runs.b, runs.a});
  ASSERT_EQ(j["rows"].size(), 6u);
  EXPECT_EQ(j["rows"][1]["run"], runs.a);
  EXPECT_EQ(j["rows"][1]["ratio"].get<double>(), 1.0);
  EXPECT_EQ(j["rows"][1]["verdict"], "within spread");
  EXPECT_DOUBLE_EQ(j["geomean_ratio_1"].get<double>(), std::cbrt(1.5));
  EXPECT_EQ(j["geomean_ratio_2"].get<double>(), 1.0);
}

// A benchmark's log prints one time per size: the ratio, and no verdict.
TEST(CompareCli, ALogWithoutSpreadSaysSo) {
  const std::string log = source_path("tests/data/osu_latency.txt");
  const auto j = run_json({"compare", log, log});
  ASSERT_FALSE(j["rows"].empty());
  for (const auto& r : j["rows"]) {
    EXPECT_EQ(r["ratio"].get<double>(), 1.0) << r.dump();
    EXPECT_EQ(r["verdict"], "no spread") << r.dump();
    EXPECT_TRUE(r["min_s"].is_null()) << r.dump();
  }
  ASSERT_GE(j["notes"].size(), 1u);
  EXPECT_EQ(j["notes"][0], log + ": the file records one time per size and no spread (min and "
                                 "max): its differences are ratios only");
}

// A file of two runs (tests/data/constructed: GH200 then MI300X, all_reduce_perf on 8 ranks)
// compares as two columns, labelled by series, never as one run: the second table against
// the first at every size both have, medians of the out-of-place and in-place times.
TEST(CompareCli, AFileOfTwoRunsIsTwoColumns) {
  const std::string two = source_path("tests/data/constructed/nccl_two_runs_8rank_cscs+rccl.txt");
  const std::string first = two + ", table 1: all_reduce_perf";
  const std::string second = two + ", table 2: all_reduce_perf";
  const auto j = run_json({"compare", two});
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 25u) << j.dump();  // 8 B .. 128 MiB in both
  for (const auto& r : rows) {
    EXPECT_EQ(r["run"], second) << r.dump();
    EXPECT_EQ(r["measurement"], "allreduce");
    EXPECT_EQ(r["variant"], "library");
    EXPECT_EQ(r["ranks"], 8);
  }
  EXPECT_EQ(rows[0]["bytes"], 8);
  EXPECT_DOUBLE_EQ(rows[0]["baseline_s"].get<double>(), (17.93 + 17.72) / 2 * 1e-6);
  EXPECT_DOUBLE_EQ(rows[0]["time_s"].get<double>(), (19.28 + 17.24) / 2 * 1e-6);
  const auto& last = rows[24];
  EXPECT_EQ(last["bytes"], 134217728);
  EXPECT_DOUBLE_EQ(last["baseline_s"].get<double>(), (1916.4 + 1907.8) / 2 * 1e-6);
  EXPECT_DOUBLE_EQ(last["time_s"].get<double>(), (800.3 + 808.3) / 2 * 1e-6);
  EXPECT_NEAR(last["ratio"].get<double>(), 804.3 / 1912.1, 1e-12);
  bool left_out = false;
  for (const auto& n : j["notes"]) {
    left_out = left_out || n == second + ": 6 point(s) are not in " + first + " and are left out";
  }
  EXPECT_TRUE(left_out) << j["notes"].dump();

  // Beside a single-run file, each of its runs is a column of its own after it.
  const std::string one = source_path("tests/data/nccl_all_reduce_perf.txt");
  const auto k = run_json({"compare", one, two});
  std::set<std::string> runs;
  for (const auto& r : k["rows"]) runs.insert(r["run"].get<std::string>());
  EXPECT_EQ(runs, (std::set<std::string>{first, second}));
  // The runs as compared: the baseline file, then the two runs of the other.
  EXPECT_EQ(k["inputs"]["files"], (nlohmann::json{one, first, second}));
}

std::string fabric_file(const std::string& name, double alpha_s, double bandwidth_Bps) {
  return write_temp_file(
      name, fmt::format("name = \"{}\"\nnominal = false\nnodes = 2\nranks_per_node = 1\n"
                        "gamma = {:.17g}\n[intra]\nalpha = {:.17g}\nbandwidth = {:.17g}\n"
                        "[inter]\nalpha = {:.17g}\nbandwidth = {:.17g}\n",
                        name, p2(30), alpha_s, bandwidth_Bps, alpha_s, bandwidth_Bps));
}

// Two fabrics: T(m) = alpha + m / bandwidth at each size of the grid, and the parameters.
TEST(CompareCli, CalibrationsCompareByMessageTime) {
  const std::string a = fabric_file("compare_a.toml", p2(20), std::ldexp(1.0, 30));
  const std::string b = fabric_file("compare_b.toml", p2(19), std::ldexp(1.0, 29));
  const auto j = run_json({"compare", a, b});
  EXPECT_EQ(j["kind"], "model");
  EXPECT_EQ(j["inputs"]["inputs_are"], "calibrations");
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 17u);  // inter only (intra = inter), at 0 and 4^0 .. 4^15 B
  EXPECT_EQ(rows[0]["link"], "inter");
  EXPECT_EQ(rows[0]["bytes"], 0);
  EXPECT_EQ(rows[0]["ratio"].get<double>(), 2.0);  // alpha alone
  EXPECT_EQ(rows[16]["bytes"].get<double>(), std::ldexp(1.0, 30));
  // 2^-20 + 1 s against 2^-19 + 2 s.
  EXPECT_EQ(rows[16]["baseline_s"].get<double>(), 1.0 + p2(20));
  EXPECT_EQ(rows[16]["ratio"].get<double>(), (2.0 + p2(19)) / (1.0 + p2(20)));
  for (const auto& r : rows) EXPECT_FALSE(r.contains("verdict")) << r.dump();
  // Between 2^-20 s + m / 2^30 B/s and twice that: every ratio is 2.
  EXPECT_DOUBLE_EQ(j["geomean_ratio"].get<double>(), 2.0);
  const auto& parameters = j["parameters"];
  ASSERT_EQ(parameters.size(), 4u);
  EXPECT_EQ(parameters[0]["parameter"], "inter_alpha_s");
  EXPECT_EQ(parameters[0]["ratio"].get<double>(), 2.0);
  EXPECT_EQ(parameters[1]["parameter"], "inter_bandwidth_Bps");
  EXPECT_EQ(parameters[1]["ratio"].get<double>(), 0.5);
  EXPECT_EQ(parameters[3]["parameter"], "gamma_s_per_byte");
  EXPECT_EQ(parameters[3]["ratio"].get<double>(), 1.0);
}

// calibrate's JSON report reads back as the fabric its --out writes.
TEST(CompareCli, CalibrateJsonReportMatchesItsFabricFile) {
  const std::string fabric = write_temp_file("compare_calibrated.toml", "");
  const CliResult cal =
      run_scalewall({"calibrate", source_path("tests/data/scalewall_pingpong.jsonl"), "--out",
                     fabric, "--format", "json"});
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  const std::string report = write_temp_file("compare_calibrated.json", cal.out);
  const auto j = run_json({"compare", report, fabric});
  ASSERT_FALSE(j["rows"].empty());
  for (const auto& r : j["rows"]) EXPECT_NEAR(r["ratio"].get<double>(), 1.0, 1e-12) << r.dump();
  const nlohmann::json fit = nlohmann::json::parse(cal.out);
  EXPECT_NEAR(j["rows"][0]["baseline_s"].get<double>() / fit["alpha_s"].get<double>(), 1.0,
              1e-12);
}

// A calibration's figures lie in a fabric's ranges, in a fabric file and in calibrate's JSON
// report alike; the report's top-level alpha and bandwidth are checked whether or not a
// regimes table follows. Beyond them: exit 2, never an internal check failure.
TEST(CompareCli, CalibrationFiguresOutsideTheirRangesAreRefused) {
  const std::string base = fabric_file("compare_base.toml", 2e-6, 5e10);
  // 1e308 s made the ratio this/first infinite; 5e-324 s (a denormal) made it infinite the
  // other way round.
  expect_input_error({"compare", base, fabric_file("compare_huge.toml", 1e308, 5e10)},
                     "compare_huge.toml: [intra] alpha (line 7): 1e+308 is outside the range "
                     "1e-12 s to 1e+06 s");
  expect_input_error({"compare", fabric_file("compare_tiny.toml", 5e-324, 5e10), base},
                     "compare_tiny.toml: [intra] alpha (line 7): 5e-324 is outside the "
                     "range 1e-12 s to 1e+06 s");
  const CliResult cal = run_scalewall(
      {"calibrate", source_path("tests/data/osu_latency.txt"), "--format", "json"});
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  const nlohmann::json fit = nlohmann::json::parse(cal.out);
  ASSERT_FALSE(fit["regimes"].empty());
  const auto report = [&](const std::string& name, const std::string& key, double value,
                          bool empty_regimes) {
    nlohmann::json j = fit;
    j[key] = value;
    if (empty_regimes) j["regimes"] = nlohmann::json::array();
    return write_temp_file(name, j.dump());
  };
  const std::string good = write_temp_file("compare_fit.json", cal.out);
  expect_input_error({"compare", good, report("huge.json", "alpha_s", 1e308, true)},
                     "huge.json: field \"alpha_s\": 1e+308 is outside the range 1e-12 s to "
                     "1e+06 s");
  for (const bool empty : {false, true}) {
    expect_input_error({"compare", good, report("negative.json", "alpha_s", -1, empty)},
                       "negative.json: field \"alpha_s\": -1.0 is outside the range 1e-12 s to "
                       "1e+06 s");
    expect_input_error({"compare", good, report("zero.json", "bandwidth_Bps", 0, empty)},
                       "zero.json: field \"bandwidth_Bps\": 0.0 is outside the range 1 B/s to "
                       "1 PB/s");
  }
  expect_input_error({"compare", good, report("gamma.json", "gamma_s_per_byte", 5e-324, false)},
                     "gamma.json: field \"gamma_s_per_byte\": 5e-324 is outside the range "
                     "1e-15 s/B to 1 s/B (or 0)");
  nlohmann::json regime = fit;
  regime["regimes"][0]["alpha_s"] = 1e308;
  expect_input_error({"compare", good, write_temp_file("regime.json", regime.dump())},
                     "regime.json: regimes[0]: field \"alpha_s\": 1e+308 is outside the range");
}

TEST(CompareCli, RefusedInputs) {
  const TwoRuns runs = two_runs();
  expect_input_error({"compare", runs.a}, "compare needs two runs or more (two files, or a file of two tables); 1 given");
  const std::string fabric = fabric_file("compare_mixed.toml", p2(20), 1e9);
  expect_input_error({"compare", runs.a, fabric},
                     "compare takes runs or calibrations, not both: " + fabric +
                         " is a calibration and " + runs.a + " a run");
  const std::string other = run_file("compare_other.jsonl", {pingpong(16, 1, 1, 1)});
  expect_input_error({"compare", runs.a, other}, "nothing to compare: no measurement of " +
                                                     runs.a + " (the same kind, op, algorithm, "
                                                              "ranks and size) is in " +
                                                     other);
  expect_input_error({"compare", runs.a, runs.b, "--format", "xml"}, "xml");
}

// A calibrate report is read within the limits of every JSON file, when compare looks at what
// it is too.
TEST(CompareCli, AReportPastTheJsonValueLimitIsRefused) {
  std::string pad = "0";
  for (int i = 1; i <= 2'097'152; ++i) pad += ",0";
  const std::string report = write_temp_file(
      "compare_big_report.json",
      "{\"tool\":\"scalewall\",\"command\":\"calibrate\",\"pad\":[" + pad + "]}\n");
  const CliResult r = run_scalewall({"compare", report, report});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + report +
                       ":1: more than 2097152 JSON values (the limit for a JSON file or JSON "
                       "Lines record)\n");
}

}  // namespace
}  // namespace scalewall::testing
