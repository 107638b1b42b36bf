// End-to-end tests of the scalewall executable: the global contract (help, version, exit
// codes, envelope) and the scaling command.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

TEST(Cli, VersionAndHelp) {
  const CliResult v = run_scalewall({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out, std::string(SCALEWALL_VERSION_TEXT) + "\n");
  const CliResult h = run_scalewall({"--help"});
  EXPECT_EQ(h.exit_code, 0);
  for (const char* command : {"scaling", "message", "collective", "straggler"}) {
    EXPECT_NE(h.out.find(command), std::string::npos) << command << " missing from --help";
  }
  const CliResult sh = run_scalewall({"scaling", "--help"});
  EXPECT_EQ(sh.exit_code, 0);
  EXPECT_NE(sh.out.find("--serial-fraction"), std::string::npos);
  EXPECT_NE(sh.out.find("Example"), std::string::npos);
}

TEST(Cli, NoCommandOrUnknownCommandIsAnInputError) {
  expect_input_error({}, "subcommand");
  expect_input_error({"frobnicate"}, "frobnicate");
  expect_input_error({"scaling", "--serial-fraction", "0.1", "--ranks", "8", "--bogus"},
                   "--bogus");
  expect_input_error({"scaling", "--serial-fraction", "0.1", "--ranks", "8", "--format", "xml"},
                   "'xml'");
}

TEST(ScalingCli, JsonEnvelopeAndRows) {
  const auto j = run_json({"scaling", "--serial-fraction", "0.02", "--ranks", "1024"});
  EXPECT_EQ(j["tool"], "scalewall");
  EXPECT_EQ(j["version"], SCALEWALL_VERSION_TEXT);
  EXPECT_EQ(j["command"], "scaling");
  EXPECT_EQ(j["kind"], "model");
  EXPECT_EQ(j["inputs"]["serial_fraction"], 0.02);
  EXPECT_EQ(j["inputs"]["ranks"], 1024);
  EXPECT_EQ(j["inputs"]["target_efficiency"], 0.5);
  EXPECT_DOUBLE_EQ(j["ceiling_speedup"].get<double>(), 50.0);
  EXPECT_EQ(j["max_ranks_at_target"], 51);  // seed Lab 1
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 11u);  // 1, 2, 4, ..., 1024
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double n = std::ldexp(1.0, static_cast<int>(i));
    EXPECT_EQ(rows[i]["ranks"].get<double>(), n);
    EXPECT_DOUBLE_EQ(rows[i]["amdahl_speedup"].get<double>(), 1 / (0.02 + 0.98 / n));
    EXPECT_DOUBLE_EQ(rows[i]["amdahl_efficiency"].get<double>(), 1 / (0.02 + 0.98 / n) / n);
    EXPECT_DOUBLE_EQ(rows[i]["gustafson_speedup"].get<double>(), n - 0.02 * (n - 1));
  }
}

TEST(ScalingCli, RankCountNotAPowerOfTwoEndsTheTable) {
  const auto j = run_json({"scaling", "-s", "5%", "-n", "1000"});
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 11u);  // 1..512, then 1000
  EXPECT_EQ(rows[9]["ranks"], 512);
  EXPECT_EQ(rows[10]["ranks"], 1000);
  EXPECT_NEAR(rows[10]["amdahl_speedup"].get<double>(), 19.6, 0.05);  // seed section 2.2
  const auto one = run_json({"scaling", "-s", "0.3", "-n", "1"});
  ASSERT_EQ(one["rows"].size(), 1u);
  EXPECT_EQ(one["rows"][0]["amdahl_speedup"], 1.0);
}

TEST(ScalingCli, SeedSection22Table) {
  // s = 0.1%: 506x and 49.4% at 1024 ranks; 60.2x at 64 (the seed prints 60.5x, a misprint:
  // 1 / (0.001 + 0.999/64) = 60.21).
  const auto j = run_json({"scaling", "--serial-fraction", "0.001", "--ranks", "1024"});
  EXPECT_NEAR(j["rows"][6]["amdahl_speedup"].get<double>(), 60.21, 0.005);
  EXPECT_NEAR(j["rows"][10]["amdahl_speedup"].get<double>(), 506.2, 0.05);
  EXPECT_NEAR(j["rows"][10]["amdahl_efficiency"].get<double>(), 0.494, 0.0005);
  EXPECT_EQ(j["max_ranks_at_target"], 1001);
}

TEST(ScalingCli, ZeroSerialFractionHasNoCeilingAndNoLimit) {
  const auto j = run_json({"scaling", "--serial-fraction", "0", "--ranks", "64"});
  EXPECT_TRUE(j["ceiling_speedup"].is_null());
  EXPECT_TRUE(j["max_ranks_at_target"].is_null());
  EXPECT_EQ(j["rows"][6]["amdahl_speedup"], 64.0);
  const CliResult t = run_scalewall({"scaling", "--serial-fraction", "0", "--ranks", "64"});
  EXPECT_NE(t.out.find("none (s = 0"), std::string::npos) << t.out;
}

TEST(ScalingCli, TableStartsWithTheModelBanner) {
  const CliResult r = run_scalewall({"scaling", "--serial-fraction", "0.02", "--ranks", "1024"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(StartsWith(r.out, "# MODEL: analytic prediction, not a measurement\n")) << r.out;
  EXPECT_NE(r.out.find("largest N at target:  51"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(ScalingCli, CsvIsHeaderAndRows) {
  const CliResult r =
      run_scalewall({"scaling", "--serial-fraction", "0.5", "--ranks", "4", "--format", "csv"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out,
            "ranks,amdahl_speedup,amdahl_efficiency,gustafson_speedup\n"
            "1,1,1,1\n"
            "2,1.3333333333333333,0.6666666666666666,1.5\n"
            "4,1.6,0.4,2.5\n");
}

TEST(ScalingCli, BadInputs) {
  expect_input_error({"scaling", "--ranks", "8"}, "--serial-fraction");
  expect_input_error({"scaling", "--serial-fraction", "0.1"}, "--ranks");
  expect_input_error({"scaling", "--serial-fraction", "1.5", "--ranks", "8"}, "1.5");
  expect_input_error({"scaling", "--serial-fraction", "-0.1", "--ranks", "8"}, "'-0.1'");
  expect_input_error({"scaling", "--serial-fraction", "abc", "--ranks", "8"}, "'abc'");
  expect_input_error({"scaling", "--serial-fraction", "nan", "--ranks", "8"}, "'nan'");
  expect_input_error({"scaling", "--serial-fraction", "0.1", "--ranks", "0"}, "--ranks");
  expect_input_error({"scaling", "--serial-fraction", "0.1", "--ranks", "-4"}, "'-4'");
  expect_input_error({"scaling", "--serial-fraction", "0.1", "--ranks", "2.5"}, "'2.5'");
  expect_input_error({"scaling", "--serial-fraction", "0.1", "--ranks", "2000000000000"},
                   "2000000000000");
  expect_input_error(
      {"scaling", "--serial-fraction", "0.1", "--ranks", "8", "--target-efficiency", "0"},
      "--target-efficiency");
  expect_input_error(
      {"scaling", "--serial-fraction", "0.1", "--ranks", "8", "--target-efficiency", "1.2"},
      "1.2");
}

// Every sweep and list has a stated maximum, and an output flag given an empty name is an
// error rather than "no output".
TEST(Limits, SweepsAndListsAreBoundedAndEmptyOutputNamesRefused) {
  // message: one row per power of ten, at most 64 rows.
  expect_input_error({"message", "--min-bytes", "1", "--max-bytes", "1e100"}, "--max-bytes");
  const CliResult ok = run_scalewall({"message", "--min-bytes", "1", "--max-bytes", "1e18"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  // A --ranks list holds at most 4096 rank counts.
  std::string many = "1";
  for (int i = 0; i < 4096; ++i) many += ",2";
  expect_input_error({"straggler", "--ranks", many, "--sigma", "2%"}, "more than 4096 rank counts");
  const std::string scenario = source_path("examples/seed-7b-bf16.toml");
  expect_input_error({"predict", scenario, "--plot", ""}, "--plot");
  expect_input_error({"select", "--op", "allreduce", "--ranks", "2..8", "--bytes", "1..1KB",
                    "--plot", ""},
                   "--plot");
  expect_input_error({"calibrate", source_path("tests/data/osu_latency.txt"), "--out", ""},
                   "--out");
  // An empty value of any flag is an error naming the flag, never "not given".
  const std::string transformer = source_path("examples/gpt3-175b-a100.toml");
  expect_input_error({"predict", transformer, "--tp", ""},
                     "error: --tp: the value is empty (leave the flag out for its default)");
  expect_input_error({"predict", transformer, "--nccl-version", ""},
                     "error: --nccl-version: the value is empty");
  expect_input_error({"scaling", "--serial-fraction", "0.1", "--ranks", ""},
                     "error: --ranks: the value is empty");
}

}  // namespace
}  // namespace scalewall::testing
