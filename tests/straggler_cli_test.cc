// End-to-end tests of `scalewall straggler`: seed D01 section 3.4's table through the real
// executable, the envelope and banners, the seeded simulation's determinism, measured
// per-rank times from a file, and every input error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

const std::vector<std::string> kSeedTable = {"straggler", "--ranks", "8,64,1024,16384",
                                             "--sigma", "0.02"};

TEST(StragglerCli, SeedTableExact) {
  const auto j = run_json(kSeedTable);
  EXPECT_EQ(j["tool"], "scalewall");
  EXPECT_TRUE(j["version"].is_string());
  EXPECT_FALSE(j["version"].get<std::string>().empty());
  EXPECT_EQ(j["command"], "straggler");
  EXPECT_EQ(j["kind"], "model");
  EXPECT_EQ(j["inputs"]["ranks"], nlohmann::json::array({8, 64, 1024, 16384}));
  EXPECT_EQ(j["inputs"]["sigma"], 0.02);
  EXPECT_EQ(j["inputs"]["method"], "exact");
  EXPECT_FALSE(j["inputs"].contains("trials"));  // no simulation, so no trials or seed
  EXPECT_FALSE(j["inputs"].contains("seed"));
  // 1 + 0.02 E[M_N] and 1 - 1/that (see src/straggler_test.cc for the seed's rounding).
  const double ratio[] = {1.028472006121, 1.046874669302, 1.064964792028, 1.079427011406};
  const double lost[] = {0.027683792997, 0.044775817656, 0.061001821388, 0.073582567942};
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(rows[i]["ranks"], j["inputs"]["ranks"][i]);
    EXPECT_NEAR(rows[i]["expected_slowest_over_mean"].get<double>(), ratio[i], 1e-9);
    EXPECT_NEAR(rows[i]["throughput_lost"].get<double>(), lost[i], 1e-9);
    EXPECT_NEAR(rows[i]["expected_max_z"].get<double>(), (ratio[i] - 1.0) / 0.02, 1e-7);
  }
}

TEST(StragglerCli, SigmaAsPercentIsTheSame) {
  const auto a = run_json(kSeedTable);
  const auto b = run_json({"straggler", "--ranks", "8,64,1024,16384", "--sigma", "2%"});
  EXPECT_EQ(a, b);
}

TEST(StragglerCli, TableBannersAndCsvHeaders) {
  const CliResult model = run_scalewall(kSeedTable);
  ASSERT_EQ(model.exit_code, 0) << model.err;
  EXPECT_TRUE(StartsWith(model.out, "# MODEL")) << model.out;
  EXPECT_TRUE(model.err.empty()) << model.err;
  EXPECT_NE(model.out.find("1.079x"), std::string::npos) << model.out;
  EXPECT_NE(model.out.find("7.36%"), std::string::npos) << model.out;

  std::vector<std::string> args = kSeedTable;
  args.insert(args.end(), {"--method", "monte-carlo", "--trials", "50", "--seed", "7"});
  const CliResult sim = run_scalewall(args);
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_TRUE(StartsWith(sim.out, "# SIMULATION (seed 7)")) << sim.out;

  args.insert(args.end(), {"--format", "csv"});
  const CliResult csv = run_scalewall(args);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_TRUE(StartsWith(csv.out,
                         "ranks,expected_slowest_over_mean,standard_error,throughput_lost\n"))
      << csv.out;
  EXPECT_TRUE(StartsWith(csv.out.substr(csv.out.find('\n') + 1), "8,")) << csv.out;

  std::vector<std::string> exact_csv = kSeedTable;
  exact_csv.insert(exact_csv.end(), {"--format", "csv"});
  const CliResult e = run_scalewall(exact_csv);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_TRUE(StartsWith(
      e.out, "ranks,expected_max_z,expected_slowest_over_mean,throughput_lost\n"))
      << e.out;
  EXPECT_EQ(std::count(e.out.begin(), e.out.end(), '\n'), 5);  // header + 4 rows
}

TEST(StragglerCli, MonteCarloIsSimulationAndAgreesWithExact) {
  const auto j = run_json({"straggler", "--ranks", "8,64,1024", "--sigma", "0.02", "--method",
                           "both", "--trials", "400", "--seed", "42"});
  EXPECT_EQ(j["kind"], "simulation");
  EXPECT_EQ(j["inputs"]["method"], "both");
  EXPECT_EQ(j["inputs"]["trials"], 400);
  EXPECT_EQ(j["inputs"]["seed"], 42);
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& row : rows) {
    SCOPED_TRACE(row.dump());
    const double exact = row["expected_slowest_over_mean"].get<double>();
    const double mc = row["mc_expected_slowest_over_mean"].get<double>();
    const double se = row["mc_standard_error"].get<double>();
    EXPECT_GT(se, 0.0);
    EXPECT_LE(std::fabs(mc - exact), 3.0 * se);
    EXPECT_NEAR(row["mc_minus_exact_in_se"].get<double>(), (mc - exact) / se, 1e-9);
    EXPECT_NEAR(row["mc_throughput_lost"].get<double>(), 1.0 - 1.0 / mc, 1e-12);
    EXPECT_TRUE(row.contains("throughput_lost"));
  }
}

TEST(StragglerCli, DefaultsAndDeterminism) {
  const std::vector<std::string> args = {"straggler", "--ranks", "13,24", "--sigma", "0.05",
                                         "--method", "monte-carlo", "--trials", "300"};
  const auto j = run_json(args);
  EXPECT_EQ(j["inputs"]["seed"], 42);  // the default seed
  EXPECT_EQ(j["inputs"]["trials"], 300);
  const CliResult a = run_scalewall(args);
  const CliResult b = run_scalewall(args);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);  // same seed: identical text, to the last digit
  std::vector<std::string> other = args;
  other.insert(other.end(), {"--seed", "43"});
  const CliResult c = run_scalewall(other);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(a.out, c.out);
  // A row depends only on its own rank count: 24 alone equals 24 in the list.
  const auto single = run_json({"straggler", "--ranks", "24", "--sigma", "0.05", "--method",
                                "monte-carlo", "--trials", "300"});
  EXPECT_EQ(single["rows"][0], j["rows"][1]);
  // The default trial count is 1000.
  const auto d = run_json({"straggler", "--ranks", "2", "--sigma", "0.05", "--method",
                           "monte-carlo"});
  EXPECT_EQ(d["inputs"]["trials"], 1000);
}

TEST(StragglerCli, MeasuredTimesFromAFile) {
  const std::string path = write_temp_file("times.txt", "# four ranks\n1\n1\n1\n2\n");
  const auto j = run_json({"straggler", "--times", path});
  EXPECT_EQ(j["command"], "straggler");
  EXPECT_EQ(j["kind"], "measurement");
  EXPECT_EQ(j["inputs"]["times_file"], path);
  EXPECT_EQ(j["ranks"], 4);
  EXPECT_EQ(j["step_s"], 2.0);
  EXPECT_EQ(j["mean_s"], 1.25);
  EXPECT_EQ(j["min_s"], 1.0);
  EXPECT_EQ(j["slowest_rank"], 3);
  EXPECT_EQ(j["wait_fraction"], 0.375);
  EXPECT_EQ(j["throughput_lost"], 0.375);
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(rows[i]["rank"], i);
    EXPECT_EQ(rows[i]["time_s"], i == 3 ? 2.0 : 1.0);
    EXPECT_EQ(rows[i]["wait_s"], i == 3 ? 0.0 : 1.0);
  }

  const CliResult table = run_scalewall({"straggler", "--times", path});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(StartsWith(table.out, "# MEASUREMENT: per-rank step times read from " + path))
      << table.out;
  EXPECT_NE(table.out.find("<-- slowest"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("37.5%"), std::string::npos) << table.out;

  const CliResult csv = run_scalewall({"straggler", "--times", path, "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out, "rank,time_s,wait_s\n0,1,1\n1,1,1\n2,1,1\n3,2,0\n");
}

TEST(StragglerCli, MeasuredTimesFromACsvColumn) {
  const std::string path =
      write_temp_file("ranks.csv", "rank,compute_s,step_s\n0,0.5,1020ms\n1,0.25,0.98\n");
  const auto j = run_json({"straggler", "--times", path});  // step_s found by name
  EXPECT_DOUBLE_EQ(j["step_s"].get<double>(), 1.02);
  EXPECT_EQ(j["slowest_rank"], 0);
  EXPECT_EQ(j["inputs"]["column"], nullptr);
  const auto c = run_json({"straggler", "--times", path, "--column", "compute_s"});
  EXPECT_EQ(c["step_s"], 0.5);
  EXPECT_EQ(c["inputs"]["column"], "compute_s");
  EXPECT_DOUBLE_EQ(c["wait_fraction"].get<double>(), 0.25);  // (0 + 0.25) / (2 x 0.5)
  const auto k = run_json({"straggler", "--times", path, "--column", "2"});
  EXPECT_EQ(k["step_s"], 0.5);
}

TEST(StragglerCli, BadModelInput) {
  expect_input_error({"straggler"}, "--times");  // neither mode
  expect_input_error({"straggler", "--sigma", "0.02"}, "--ranks");
  expect_input_error({"straggler", "--ranks", "8"}, "--sigma");
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "-0.02"}, "'-0.02'");
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "1.5"}, "1.5");
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "abc"}, "'abc'");
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "inf"}, "'inf'");
  expect_input_error({"straggler", "--ranks", "0", "--sigma", "0.02"}, "--ranks: count 0");
  expect_input_error({"straggler", "--ranks", "8,-3", "--sigma", "0.02"}, "'-3'");
  expect_input_error({"straggler", "--ranks", "1099511627777", "--sigma", "0.02"},
                   "1099511627777");
  expect_input_error({"straggler", "--ranks", "8,,64", "--sigma", "0.02"}, "--ranks");
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "0.02", "--method", "fast"},
                   "'fast'");
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "0.02", "--method", "both",
                    "--trials", "0"},
                   "--trials: count 0");
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "0.02", "--method", "both",
                    "--trials", "ten"},
                   "'ten'");
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "0.02", "--method", "both",
                    "--seed", "-1"},
                   "--seed");
  // Seeds and trials mean nothing to the exact method: refused rather than ignored.
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "0.02", "--trials", "10"},
                   "--trials");
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "0.02", "--seed", "1"}, "--seed");
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "0.02", "--format", "xml"},
                   "'xml'");
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "0.02", "--bogus"}, "--bogus");
}

TEST(StragglerCli, AbsurdSimulationIsRefused) {
  // 2^40 ranks x 1000 trials is 1.1e15 draws: refused at once with a way out.
  const std::vector<std::string> args = {"straggler", "--ranks", "1099511627776", "--sigma",
                                         "0.02", "--method", "monte-carlo"};
  expect_input_error(args, "--method exact");
  expect_input_error(args, "fewer trials");
  // The exact method answers the same question instantly.
  const auto j = run_json({"straggler", "--ranks", "1099511627776", "--sigma", "0.02"});
  EXPECT_NEAR(j["rows"][0]["expected_max_z"].get<double>(), 7.125547743089896, 1e-9);
}

TEST(StragglerCli, BadTimesInput) {
  const std::string good = write_temp_file("good.txt", "1\n2\n");
  expect_input_error({"straggler", "--times", good, "--ranks", "8"}, "--ranks");
  expect_input_error({"straggler", "--times", good, "--sigma", "0.02"}, "--sigma");
  expect_input_error({"straggler", "--times", good, "--method", "both"}, "--method");
  expect_input_error({"straggler", "--ranks", "8", "--sigma", "0.02", "--column", "2"},
                   "--column");
  const std::string missing = good + ".missing";
  expect_input_error({"straggler", "--times", missing}, missing);
  const std::string empty = write_temp_file("empty.txt", "");
  expect_input_error({"straggler", "--times", empty}, "holds no times");
  const std::string comments = write_temp_file("comments.txt", "# nothing here\n\n");
  expect_input_error({"straggler", "--times", comments}, "holds no times");
  const std::string word = write_temp_file("word.txt", "1.0\nslow\n");
  expect_input_error({"straggler", "--times", word}, word + ":2:");
  expect_input_error({"straggler", "--times", word}, "'slow'");
  const std::string negative = write_temp_file("negative.txt", "1.0\n0.9\n-1\n");
  expect_input_error({"straggler", "--times", negative}, negative + ":3:");
  const std::string zeros = write_temp_file("zeros.txt", "0\n0\n");
  expect_input_error({"straggler", "--times", zeros}, "are 0");
  const std::string csv = write_temp_file("two.csv", "a,b\n1,2\n");
  expect_input_error({"straggler", "--times", csv}, "none named step_s");
  expect_input_error({"straggler", "--times", csv, "--column", "c"}, "'c'");
}

}  // namespace
}  // namespace scalewall::testing
