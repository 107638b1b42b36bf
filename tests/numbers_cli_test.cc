// End-to-end tests of how numbers read: percentages in plain notation with sensible digits
// (never "2.11e+03%" or "2.65e-05%"), no line said twice, and ranges whose upper end is a row.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

std::string example(const std::string& name) { return source_path("examples/" + name); }

// The first percentage in `text` written with an exponent ("2.11e+03%"), or "".
std::string exponent_percent(const std::string& text) {
  static const std::regex kExponent("[0-9.]+e[+-][0-9]+ ?%");
  std::smatch m;
  return std::regex_search(text, m, kExponent) ? m.str() : std::string();
}

TEST(NumbersCli, ValidatePrintsLargeErrorsInPlainNotation) {
  // The model on a TCP fabric against NVLink-class measurements: errors of thousands of %.
  const CliResult r = run_scalewall({"validate", source_path("tests/data/nccl_all_reduce_perf.txt"),
                                     "--fabric", example("fabrics/tcp-100gbe.toml")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(exponent_percent(r.out), "") << r.out;
  // 370 us predicted against 19.9 us measured at 2.1 MB.
  EXPECT_NE(r.out.find("1760%"), std::string::npos) << r.out;
}

TEST(NumbersCli, PlanObservedPrintsTinyShareInPlainWords) {
  const CliResult r = run_scalewall({"plan", "--observed", "128:94%,1024:61%"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(exponent_percent(r.out), "") << r.out;
  EXPECT_NE(r.out.find("0.0000265%"), std::string::npos) << r.out;
}

// Every line title of the plan's table is said once: with the 90%-of-best count equal to the
// planned one, "idle accelerator-hours per 1000 steps at 256" was printed twice.
TEST(NumbersCli, PlanSaysEachLineOnce) {
  for (const char* ranks : {"256", "512"}) {
    const CliResult r = run_scalewall({"plan", example("dgx-llm-weak.toml"), "--ranks", ranks});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(r.out);
    std::set<std::string> values;
    std::string previous;
    for (std::string line; std::getline(lines, line);) {
      EXPECT_EQ(line.find("... at"), std::string::npos) << line;
      // Two consecutive lines with the same value and the same words but for "...".
      const auto colon = line.find(":  ");
      if (colon == std::string::npos || line.starts_with("#")) continue;
      const std::string title = line.substr(0, colon);
      EXPECT_TRUE(values.insert(title).second) << "said twice: " << title << "\n" << r.out;
    }
    EXPECT_NE(r.out.find("idle accelerator-hours per 1000 steps at " + std::string(ranks) +
                         " ranks"),
              std::string::npos)
        << r.out;
  }
  const auto j = run_json({"plan", example("dgx-llm-weak.toml"), "--ranks", "256"});
  EXPECT_EQ(j["ranks_at_90pct_best"], 256);
  EXPECT_DOUBLE_EQ(j["idle_accelerator_hours_per_1000_steps_at_90pct"].get<double>(),
                   j["idle_accelerator_hours_per_1000_steps"].get<double>());
}

TEST(NumbersCli, SelectSizeRangeEndsAtItsUpperEnd) {
  const auto j = run_json({"select", "--ranks", "64", "--bytes", "1..1GB"});
  const auto& bytes = j["bytes"];
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_DOUBLE_EQ(bytes.back().get<double>(), 1e9);
  EXPECT_DOUBLE_EQ(bytes[bytes.size() - 2].get<double>(), 268435456.0);  // 4^14 before it
  EXPECT_EQ(j["rows"][0]["winners"].size(), bytes.size());
  // A range that lands on a grid point holds it once.
  const auto k = run_json({"select", "--ranks", "64", "--bytes", "1..1MiB"});
  ASSERT_EQ(k["bytes"].size(), 11u);
  EXPECT_DOUBLE_EQ(k["bytes"].back().get<double>(), 1048576.0);
}

TEST(NumbersCli, RankRangeEndsAtItsUpperEnd) {
  const auto j = run_json({"predict", example("seed-7b-bf16.toml"), "--ranks", "8..100"});
  EXPECT_EQ(j["inputs"]["ranks"], nlohmann::json::parse("[8, 16, 32, 64, 100]"));
  const auto s = run_json({"select", "--ranks", "8..100", "--bytes", "1MiB"});
  EXPECT_EQ(s["inputs"]["ranks"], nlohmann::json::parse("[8, 16, 32, 64, 100]"));
  // Both ends given as powers of two: nothing added.
  const auto p = run_json({"select", "--ranks", "8..64", "--bytes", "1MiB"});
  EXPECT_EQ(p["inputs"]["ranks"], nlohmann::json::parse("[8, 16, 32, 64]"));
  // The lower end too is a row when it is not a power of two.
  const auto q = run_json({"select", "--ranks", "3..20", "--bytes", "1MiB"});
  EXPECT_EQ(q["inputs"]["ranks"], nlohmann::json::parse("[3, 4, 8, 16, 20]"));
}

}  // namespace
}  // namespace scalewall::testing
