// End-to-end tests of `scalewall message` (seed D01 Lab 2): the real executable, its output
// formats and its exit codes.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(MessageCli, JsonEnvelopeAndDefaults) {
  const auto j = run_json({"message"});
  EXPECT_EQ(j["tool"], "scalewall");
  EXPECT_TRUE(j["version"].is_string());
  EXPECT_EQ(j["command"], "message");
  EXPECT_EQ(j["kind"], "model");
  ASSERT_TRUE(j["inputs"].is_object());
  EXPECT_NEAR(j["inputs"]["alpha_s"].get<double>(), 2.5e-6, 1e-18);
  EXPECT_DOUBLE_EQ(j["inputs"]["bandwidth_Bps"].get<double>(), 25e9);
  EXPECT_DOUBLE_EQ(j["inputs"]["min_bytes"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["inputs"]["max_bytes"].get<double>(), 1e9);
  EXPECT_FALSE(j.contains("regime")) << "a sweep has no single regime";
}

// Lab 2, first link: 2.5 us and 25 GB/s put m* at 62,500 B. One row per decade from 1 B to
// 1 GB (ten rows) plus the crossover row between 10 KB and 100 KB.
TEST(MessageCli, Lab2RdmaLinkCrossover) {
  const auto j = run_json({"message", "--alpha", "2.5us", "--bandwidth", "25GB/s"});
  EXPECT_NEAR(j["crossover_bytes"].get<double>(), 62500.0, 1e-6);
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 11u);
  const std::vector<double> expected = {1, 10, 100, 1e3, 1e4, 62500, 1e5, 1e6, 1e7, 1e8, 1e9};
  int crossovers = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_NEAR(rows[i]["bytes"].get<double>(), expected[i], 1e-6) << "row " << i;
    const double total = rows[i]["total_s"].get<double>();
    EXPECT_DOUBLE_EQ(total,
                     rows[i]["latency_s"].get<double>() + rows[i]["bandwidth_s"].get<double>());
    if (rows[i]["crossover"].get<bool>()) {
      ++crossovers;
      EXPECT_EQ(i, 5u);
      EXPECT_EQ(rows[i]["regime"], "balanced");
      EXPECT_NEAR(rows[i]["bandwidth_s"].get<double>(), rows[i]["latency_s"].get<double>(),
                  1e-18);
    }
  }
  EXPECT_EQ(crossovers, 1);
  EXPECT_EQ(rows[0]["regime"], "latency-bound");
  EXPECT_EQ(rows[4]["regime"], "latency-bound");   // 10 KB < 31.25 KB
  EXPECT_EQ(rows[6]["regime"], "balanced");        // 100 KB <= 125 KB
  EXPECT_EQ(rows[7]["regime"], "bandwidth-bound");  // 1 MB
}

// Lab 2, second link: 30 us and 0.125 GB/s (1 GbE class) put m* at 3,750 B, more than a
// decade below the first, so a 64 KB message is bandwidth-bound on it.
TEST(MessageCli, Lab2GigabitLinkCrossoverIsMoreThanADecadeLower) {
  const auto fast = run_json({"message", "--alpha", "2.5us", "--bandwidth", "25GB/s"});
  const auto slow = run_json({"message", "--alpha", "30us", "--bandwidth", "0.125GB/s"});
  const double m_slow = slow["crossover_bytes"].get<double>();
  EXPECT_NEAR(m_slow, 3750.0, 1e-6);
  EXPECT_GT(fast["crossover_bytes"].get<double>() / m_slow, 10.0);
  // 1 Gb/s in bits is the same link.
  const auto bits = run_json({"message", "--alpha", "30us", "--bandwidth", "1Gb/s"});
  EXPECT_NEAR(bits["crossover_bytes"].get<double>(), 3750.0, 1e-6);

  const auto one = run_json({"message", "--alpha", "30us", "--bandwidth", "0.125GB/s",
                             "--bytes", "64KB"});
  EXPECT_EQ(one["regime"], "bandwidth-bound");
  const auto on_fast = run_json({"message", "--bytes", "64KB"});
  EXPECT_EQ(on_fast["regime"], "balanced");
}

TEST(MessageCli, TableMarksTheCrossoverRow) {
  const CliResult r = run_scalewall({"message", "--alpha", "30us", "--bandwidth", "0.125GB/s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "# MODEL: analytic prediction, not a measurement");
  int marked = 0;
  for (const std::string& line : lines) {
    if (line.find("<-- crossover m* = alpha x bandwidth") != std::string::npos) {
      ++marked;
      EXPECT_NE(line.find("3.75 KB"), std::string::npos) << line;
      EXPECT_NE(line.find("balanced"), std::string::npos) << line;
    }
  }
  EXPECT_EQ(marked, 1) << r.out;
  EXPECT_NE(r.out.find("crossover m* = alpha x bandwidth:  3.75 KB"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(MessageCli, BytesClassifiesOneMessage) {
  const auto small = run_json({"message", "--bytes", "4KB"});
  EXPECT_EQ(small["regime"], "latency-bound");
  ASSERT_EQ(small["rows"].size(), 1u);
  EXPECT_DOUBLE_EQ(small["rows"][0]["bytes"].get<double>(), 4000.0);
  EXPECT_EQ(small["rows"][0]["regime"], "latency-bound");
  EXPECT_DOUBLE_EQ(small["inputs"]["bytes"].get<double>(), 4000.0);
  EXPECT_FALSE(small["inputs"].contains("min_bytes"));
  // 4000 B: 2.5 us + 4000 / 25e9 s = 2.66 us.
  EXPECT_NEAR(small["rows"][0]["total_s"].get<double>(), 2.66e-6, 1e-15);

  EXPECT_EQ(run_json({"message", "--bytes", "100KB"})["regime"], "balanced");
  EXPECT_EQ(run_json({"message", "--bytes", "1GB"})["regime"], "bandwidth-bound");
  const auto zero = run_json({"message", "--bytes", "0"});
  EXPECT_EQ(zero["regime"], "latency-bound");
  EXPECT_EQ(zero["rows"][0]["bandwidth_s"].get<double>(), 0.0);

  const CliResult table = run_scalewall({"message", "--bytes", "64KB", "--alpha", "30us",
                                         "--bandwidth", "1Gb/s"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("regime of the message:"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("bandwidth-bound"), std::string::npos) << table.out;
}

TEST(MessageCli, SweepBoundsAndOffDecadeMax) {
  // From 0: a 0-byte row, then 1 B, 10 B, ..., and the off-decade max 5 KB itself.
  const auto j = run_json({"message", "--min-bytes", "0", "--max-bytes", "5000"});
  const auto& rows = j["rows"];
  const std::vector<double> expected = {0, 1, 10, 100, 1000, 5000};
  ASSERT_EQ(rows.size(), expected.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_DOUBLE_EQ(rows[i]["bytes"].get<double>(), expected[i]);
  }
  EXPECT_DOUBLE_EQ(rows[0]["total_s"].get<double>(), rows[0]["latency_s"].get<double>());
  // m* = 62.5 KB is outside [0, 5 KB]: no crossover row.
  for (const auto& row : rows) EXPECT_FALSE(row["crossover"].get<bool>());

  // An off-decade min starts the sweep; min == max is one row.
  const auto odd = run_json({"message", "--min-bytes", "3", "--max-bytes", "300"});
  ASSERT_EQ(odd["rows"].size(), 4u);
  EXPECT_DOUBLE_EQ(odd["rows"][0]["bytes"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(odd["rows"][3]["bytes"].get<double>(), 300.0);
  EXPECT_EQ(run_json({"message", "--min-bytes", "7", "--max-bytes", "7"})["rows"].size(), 1u);
}

TEST(MessageCli, CsvHasAHeaderRowOfKeys) {
  const CliResult r = run_scalewall({"message", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 12u) << r.out;  // header + 11 rows
  EXPECT_EQ(lines[0], "bytes,latency_s,bandwidth_s,total_s,regime,crossover");
  EXPECT_EQ(lines[1].rfind("1,", 0), 0u) << lines[1];
  EXPECT_NE(lines[6].find(",balanced,true"), std::string::npos) << lines[6];
}

TEST(MessageCli, HelpTeachesWithLab2) {
  const CliResult r = run_scalewall({"message", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--alpha 30us --bandwidth 0.125GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--alpha 2.5us --bandwidth 25GB/s"), std::string::npos) << r.out;
}

struct BadCase {
  std::vector<std::string> args;
  std::string named;  // text the error message must contain
};

TEST(MessageCli, BadInputExitsTwoNamingTheValue) {
  const std::vector<BadCase> cases = {
      {{"message", "--alpha", "0"}, "--alpha"},
      {{"message", "--alpha", "0us"}, "--alpha"},
      {{"message", "--alpha", "-2.5us"}, "--alpha"},
      {{"message", "--alpha", "2.5xs"}, "2.5xs"},
      {{"message", "--bandwidth", "0GB/s"}, "--bandwidth"},
      {{"message", "--bandwidth", "-25GB/s"}, "--bandwidth"},
      {{"message", "--bandwidth", "nan"}, "--bandwidth"},
      {{"message", "--bandwidth", "25GB"}, "25GB"},
      {{"message", "--min-bytes", "2KB", "--max-bytes", "1KB"}, "--min-bytes"},
      {{"message", "--min-bytes", "-1"}, "--min-bytes"},
      {{"message", "--max-bytes", "-5"}, "--max-bytes"},
      {{"message", "--bytes", "-1"}, "--bytes"},
      {{"message", "--bytes", "lots"}, "lots"},
      {{"message", "--bytes", "4KB", "--min-bytes", "1"}, "--bytes"},
      {{"message", "--bytes", "4KB", "--max-bytes", "1GB"}, "--max-bytes"},
      {{"message", "--format", "xml"}, "xml"},
      {{"message", "--latency", "2us"}, "--latency"},
  };
  for (const BadCase& c : cases) {
    const CliResult r = run_scalewall(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += " " + a;
    EXPECT_EQ(r.exit_code, 2) << joined << "\nstderr: " << r.err;
    EXPECT_EQ(r.err.rfind("error:", 0), 0u) << joined << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(c.named), std::string::npos) << joined << "\nstderr: " << r.err;
    EXPECT_TRUE(r.out.empty()) << joined << "\nstdout: " << r.out;
  }
}

}  // namespace
}  // namespace scalewall::testing
