// Tests of scalewall/analysis/diagnose.h: recovering the mechanism from synthetic scaling tables made
// with known serial, latency, bandwidth and variance terms (each dominant in turn), refusing
// what cannot be told apart, and naming a slow rank and a bad node in step measurements.
#include "scalewall/analysis/diagnose.h"
#include "scalewall/analysis/efficiency_drop.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>

#include "scalewall/base/error.h"
#include "test_support.h"
#include "scalewall/model/straggler.h"

namespace scalewall {
namespace {

std::string WriteFile(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("scalewall-diagnose-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

// A CSV of step times T(N) for N = 1, 2, 4, ..., max.
std::string Table(const std::function<double(double)>& step, std::int64_t max,
                  bool with_problem_size = false, bool weak = false) {
  std::string csv = with_problem_size ? "ranks,step_s,problem_size\n" : "ranks,step_s\n";
  for (std::int64_t n = 1; n <= max; n *= 2) {
    const auto x = static_cast<double>(n);
    csv += std::to_string(n) + "," + std::to_string(step(x));
    if (with_problem_size) csv += "," + std::to_string(weak ? 100.0 * x : 100.0);
    csv += "\n";
  }
  return csv;
}

double Shape(Mechanism m, double n) {
  switch (m) {
    case Mechanism::kSerial:
      return 1.0;
    case Mechanism::kLatency:
      return std::log2(n);
    case Mechanism::kBandwidth:
      return 2.0 * (n - 1.0) / n;
    case Mechanism::kVariance:
      return expected_max_standard_normal(static_cast<std::int64_t>(n));
    default:
      return 0.0;
  }
}

const MechanismShare& ShareOf(const ScalingDiagnosis& d, Mechanism m) {
  for (const MechanismShare& s : d.mechanisms) {
    if (s.mechanism == m) return s;
  }
  static MechanismShare none;
  ADD_FAILURE() << "no share for " << mechanism_name(m);
  return none;
}

struct Dominant {
  Mechanism mechanism;
  double coefficient;
};

// Each mechanism dominant in turn over a strong-scaling problem of 10 s on one rank, the
// others small; the fit recovers the dominant one and its coefficient.
TEST(DiagnoseScaling, RecoversEachDominantMechanismStrong) {
  // (Bandwidth is recovered under weak scaling below: under strong scaling it is exactly a
  // serial term plus compute, and the diagnosis says so.)
  const Dominant cases[] = {{Mechanism::kSerial, 0.05},
                            {Mechanism::kLatency, 0.004},
                            {Mechanism::kVariance, 0.02}};
  for (const Dominant& c : cases) {
    const auto step = [&](double n) { return 10.0 / n + c.coefficient * Shape(c.mechanism, n); };
    const auto path = WriteFile("strong.csv", Table(step, 4096, true, false));
    const ScalingDiagnosis d = diagnose_scaling(read_scaling_table(path));
    EXPECT_EQ(d.mode, ScalingMode::kStrong);
    EXPECT_EQ(d.baseline_ranks, 1);
    EXPECT_NEAR(d.compute_coefficient, 10.0, 1e-3) << mechanism_name(c.mechanism);
    EXPECT_NEAR(ShareOf(d, c.mechanism).coefficient, c.coefficient, c.coefficient * 1e-3)
        << mechanism_name(c.mechanism);
    EXPECT_GT(ShareOf(d, c.mechanism).share, 0.99) << mechanism_name(c.mechanism);
    EXPECT_LT(d.rms_relative_residual, 1e-4);
    ASSERT_FALSE(d.binding_candidates.empty());
    EXPECT_EQ(d.binding_candidates.front(), c.mechanism);
    if (c.mechanism == Mechanism::kSerial) {
      // Serial or bandwidth: a strong-scaling table cannot say which.
      EXPECT_EQ(d.binding_candidates.size(), 2u);
      EXPECT_FALSE(d.binding.has_value());
    } else {
      ASSERT_TRUE(d.binding.has_value()) << mechanism_name(c.mechanism);
      EXPECT_EQ(*d.binding, c.mechanism);
    }
    // Efficiency at the largest rank count against one rank: T1 / (N T(N)).
    EXPECT_NEAR(d.efficiency_at_largest, step(1.0) / (4096.0 * step(4096.0)), 1e-5);
  }
}

TEST(DiagnoseScaling, WeakScalingLatencyAgainstVariance) {
  for (const Dominant& c : {Dominant{Mechanism::kLatency, 0.01}, Dominant{Mechanism::kVariance, 0.03},
                            Dominant{Mechanism::kBandwidth, 0.2}}) {
    const auto step = [&](double n) { return 1.0 + c.coefficient * Shape(c.mechanism, n); };
    const auto path = WriteFile("weak.csv", Table(step, 16384, true, true));
    const ScalingDiagnosis d = diagnose_scaling(read_scaling_table(path));
    EXPECT_EQ(d.mode, ScalingMode::kWeak);
    EXPECT_GT(ShareOf(d, c.mechanism).share, 0.99) << mechanism_name(c.mechanism);
    EXPECT_NEAR(d.efficiency_at_largest, step(1.0) / step(16384.0), 1e-5);
  }
}

TEST(DiagnoseScaling, InfersTheModeFromStepTimes) {
  const auto strong = WriteFile("s.csv", Table([](double n) { return 8.0 / n + 0.01; }, 64));
  const ScalingDiagnosis s = diagnose_scaling(read_scaling_table(strong));
  EXPECT_EQ(s.mode, ScalingMode::kStrong);
  EXPECT_NE(s.mode_reason.find("inferred"), std::string::npos);
  const auto weak = WriteFile("w.csv", Table([](double n) { return 1.0 + 0.01 * std::log2(n); }, 64));
  EXPECT_EQ(diagnose_scaling(read_scaling_table(weak)).mode, ScalingMode::kWeak);
}

// Seed drill 5: 94% at 128 ranks and 61% at 1024, same problem. Two points cannot separate
// four mechanisms: the diagnosis says so and names the next measurement.
TEST(DiagnoseScaling, TwoPointsCannotSeparateThree) {
  const double t128 = 1.0 / (128 * 0.94);
  const double t1024 = 1.0 / (1024 * 0.61);
  const auto path = WriteFile("drill.csv", "ranks,step_s,problem_size\n128," +
                                               std::to_string(t128) + ",1\n1024," +
                                               std::to_string(t1024) + ",1\n");
  const ScalingDiagnosis d = diagnose_scaling(read_scaling_table(path));
  EXPECT_EQ(d.mode, ScalingMode::kStrong);
  bool said = false;
  for (const auto& c : d.cannot_separate) {
    if (c.find("2 points cannot separate") != std::string::npos) said = true;
  }
  EXPECT_TRUE(said);
  EXPECT_FALSE(d.binding.has_value());
  EXPECT_NEAR(d.efficiency_at_largest, 0.61 / 0.94, 1e-4);  // against the 128-rank baseline
  // The measurement order: the step split, the collective alone, its variance (arrival),
  // then placement: the collective inside one node and one rank per node.
  const auto& runs = d.next_measurement.runs;
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[0].mode, HarnessMode::kStep);
  EXPECT_EQ(runs[0].ranks, d.largest_ranks);
  EXPECT_EQ(runs[1].mode, HarnessMode::kCollective);
  EXPECT_EQ(runs[1].placement, RankPlacement::kAny);
  EXPECT_EQ(runs[2].mode, HarnessMode::kArrival);
  EXPECT_EQ(runs[2].ranks, d.largest_ranks);
  EXPECT_EQ(runs[3].mode, HarnessMode::kCollective);
  EXPECT_EQ(runs[3].placement, RankPlacement::kOneNode);
  EXPECT_EQ(runs[3].ranks, kTypicalRanksPerNode);
  EXPECT_EQ(runs[4].placement, RankPlacement::kOneRankPerNode);
  EXPECT_EQ(runs[4].ranks, kTypicalRanksPerNode);
  EXPECT_FALSE(d.warnings.empty());  // the baseline is 128 ranks, not one
}

TEST(DiagnoseScaling, StrongScalingCannotTellSerialFromBandwidth) {
  // 10/N + 0.03 x 2(N-1)/N is exactly 9.94/N + 0.06: a serial part of 60 ms.
  const auto step = [](double n) { return 10.0 / n + 0.03 * 2.0 * (n - 1.0) / n; };
  const auto path = WriteFile("sb.csv", Table(step, 1024, true, false));
  const ScalingDiagnosis d = diagnose_scaling(read_scaling_table(path));
  EXPECT_NEAR(d.compute_coefficient, 9.94, 1e-4);
  EXPECT_NEAR(ShareOf(d, Mechanism::kSerial).coefficient, 0.06, 1e-6);
  bool flagged = false;
  for (const auto& c : d.cannot_separate) {
    if (c.find("serial and bandwidth") != std::string::npos) flagged = true;
  }
  EXPECT_TRUE(flagged);
  EXPECT_FALSE(d.binding.has_value());
  EXPECT_EQ(d.binding_candidates,
            (std::vector<Mechanism>{Mechanism::kSerial, Mechanism::kBandwidth}));
}

TEST(DiagnoseScaling, LatencyAndVarianceLookAlikeOverANarrowRange) {
  // Over 256..1024 ranks log2 N and E[M_N] are both nearly flat and nearly proportional.
  std::string csv = "ranks,step_s,problem_size\n";
  for (int n = 256; n <= 1024; n *= 2) {
    csv += std::to_string(n) + "," + std::to_string(1.0 + 0.01 * std::log2(n)) + "," +
           std::to_string(n) + "\n";
  }
  const ScalingDiagnosis d = diagnose_scaling(read_scaling_table(WriteFile("lv.csv", csv)));
  EXPECT_EQ(d.mode, ScalingMode::kWeak);
  EXPECT_FALSE(d.cannot_separate.empty());
  EXPECT_FALSE(d.binding.has_value());
}

TEST(DiagnoseScaling, SuperlinearBaselineIsFlagged) {
  const auto path = WriteFile("super.csv",
                              "ranks,step_s,problem_size\n1,10,1\n2,4,1\n4,2.2,1\n8,1.3,1\n");
  const ScalingDiagnosis d = diagnose_scaling(read_scaling_table(path));
  EXPECT_EQ(d.baseline_ranks, 2);
  ASSERT_FALSE(d.warnings.empty());
  EXPECT_NE(d.warnings.front().find("superlinear"), std::string::npos);
}

TEST(DiagnoseScaling, JsonAndThroughput) {
  const auto path = WriteFile("t.json",
                              R"({"rows":[{"ranks":1,"throughput":100},{"ranks":4,"throughput":360},)"
                              R"({"ranks":16,"throughput":1100}]})");
  const ScalingTable t = read_scaling_table(path);
  EXPECT_TRUE(t.from_throughput);
  const ScalingDiagnosis d = diagnose_scaling(t);
  EXPECT_EQ(d.mode, ScalingMode::kStrong);  // assumed, and said
  EXPECT_NEAR(d.efficiency_at_largest, 1100.0 / (16 * 100.0), 1e-9);
}

void ExpectRejected(const std::string& name, const std::string& text, const std::string& mention) {
  const auto path = WriteFile(name, text);
  try {
    diagnose_scaling(read_scaling_table(path));
    ADD_FAILURE() << "accepted " << name;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
  }
}

TEST(DiagnoseScaling, BadTablesNameFileAndRow) {
  ExpectRejected("mixed.csv", "ranks,step_s,problem_size\n1,1,10\n2,0.5,10\n4,1,40\n",
                 "strong and weak scaling mixed");
  ExpectRejected("neither.csv", "ranks,step_s,problem_size\n1,1,10\n2,0.5,13\n", "line 3");
  ExpectRejected("noranks.csv", "nodes,step_s\n1,1\n", "'ranks'");
  ExpectRejected("nan.csv", "ranks,step_s\n1,1\n2,fast\n", "nan.csv:3");
  ExpectRejected("neg.csv", "ranks,step_s\n1,1\n2,-1\n", "neg.csv:3");
  ExpectRejected("dup.csv", "ranks,step_s\n2,1\n2,0.9\n", "already given at line 2");
  ExpectRejected("one.csv", "ranks,step_s\n2,1\n", "at least two");
  ExpectRejected("empty.csv", "", "empty");
  ExpectRejected("short.csv", "ranks,step_s\n1\n", "short.csv:2");
  ExpectRejected("missing.csv", "ranks,step_s,problem_size\n1,1,1\n2,0.5\n", "missing.csv:3");
  EXPECT_THROW(read_scaling_table("/no/such/table.csv"), InputError);
}

// A step time is a measured one: at most 1e6 s, however the table is written.
TEST(DiagnoseScaling, StepTimesAboveAMillionSecondsAreRefused) {
  for (const std::string step : {"1e308", "1e7", "1000001"}) {
    const std::string message = input_error_of(
        [&] { parse_scaling_table("ranks,step_s\n1," + step + "\n2,5\n", "r.csv"); });
    EXPECT_EQ(message, "r.csv:2: step_s = " + step +
                           " is outside the range of a measured step time (above 0, at most "
                           "1e6 s)");
  }
  EXPECT_EQ(input_error_of([] {
              parse_scaling_table("[{\"ranks\":1,\"step_s\":1e7},{\"ranks\":2,\"step_s\":5}]",
                                  "r.json");
            }),
            "r.json: row 1: step_s = 10000000.0 is outside the range of a measured step time "
            "(above 0, at most 1e6 s)");
  EXPECT_EQ(parse_scaling_table("ranks,step_s\n1,1e6\n2,5e5\n", "r.csv").points[0].step_s, 1e6);
}

// A scaling table holds one row per rank count, at most kMaxScalingRows of them, in CSV and
// JSON alike; the limit itself is read.
TEST(DiagnoseScaling, AScalingTableOfMoreRowsThanTheLimitIsRefused) {
  const auto csv = [](std::int64_t rows) {
    std::string text = "ranks,step_s\n";
    for (std::int64_t n = 1; n <= rows; ++n) text += std::to_string(n) + ",1\n";
    return text;
  };
  const auto json = [](std::int64_t rows) {
    std::string text = "[";
    for (std::int64_t n = 1; n <= rows; ++n) {
      text += (n > 1 ? "," : "") + std::string("{\"ranks\":") + std::to_string(n) +
              ",\"step_s\":1}";
    }
    return text + "]";
  };
  EXPECT_EQ(parse_scaling_table(csv(kMaxScalingRows), "t.csv").points.size(),
            static_cast<std::size_t>(kMaxScalingRows));
  EXPECT_EQ(input_error_of([&] { parse_scaling_table(csv(kMaxScalingRows + 1), "t.csv"); }),
            "t.csv:100002: more than 100000 rows (the limit for a scaling table: one row per "
            "rank count)");
  EXPECT_EQ(parse_scaling_table(json(kMaxScalingRows), "t.json").points.size(),
            static_cast<std::size_t>(kMaxScalingRows));
  EXPECT_EQ(input_error_of([&] { parse_scaling_table(json(kMaxScalingRows + 1), "t.json"); }),
            "t.json: row 100001: more than 100000 rows (the limit for a scaling table: one row "
            "per rank count)");
}

// JSON errors name the file, the line and the field, in the project's words.
std::string ScalingTableError(const std::string& text) {
  try {
    parse_scaling_table(text, "runs.json");
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted " << text;
  return {};
}

TEST(DiagnoseScaling, JsonErrorsNameFileLineAndField) {
  EXPECT_EQ(ScalingTableError("[{\"ranks\":1,\"step_s\":1},\n{\"ranks\":2,\n\"step_s\":1e400}]"),
            "runs.json:3: field \"step_s\": number 1e400 is out of range");
  EXPECT_EQ(ScalingTableError("[{\"ranks\":1,\"step_s\":\"fast\"}]"),
            "runs.json: row 1: field \"step_s\" must be a number, not a string");
  EXPECT_EQ(ScalingTableError("[{\"ranks\":{\"a\":1},\"step_s\":1}]"),
            "runs.json: row 1: field \"ranks\" must be a whole number, not an object");
  EXPECT_EQ(ScalingTableError("[{\"ranks\":18446744073709551615,\"step_s\":1}]"),
            "runs.json: row 1: ranks = 18446744073709551615 is out of range");
  EXPECT_EQ(ScalingTableError("[7]"), "runs.json: row 1: must be an object, not a number");
  EXPECT_EQ(ScalingTableError("\n" + std::string(100000, '[') + std::string(100000, ']')),
            "runs.json: JSON arrays and objects nested more than 64 deep");
  const std::string syntax = ScalingTableError("[{\"ranks\":1,\n\"step_s\":tru}]");
  EXPECT_EQ(syntax.rfind("runs.json:2: not valid JSON: syntax error", 0), 0U) << syntax;
  EXPECT_EQ(syntax.find("json.exception"), std::string::npos) << syntax;
}

TEST(DiagnoseScaling, TextAndFileReadersAgree) {
  const std::string text = "ranks,step_s\n1,1\n2,0.6\n4,0.4\n";
  const ScalingTable from_text = parse_scaling_table(text, "t.csv");
  const ScalingTable from_file = read_scaling_table(WriteFile("t.csv", text));
  ASSERT_EQ(from_text.points.size(), 3U);
  ASSERT_EQ(from_file.points.size(), 3U);
  EXPECT_EQ(from_text.points[1].step_s, 0.6);
  EXPECT_EQ(from_file.points[2].step_s, 0.4);
  EXPECT_EQ(from_text.source, "t.csv");
}

TEST(DiagnoseMeasurements, NamesASlowRankAndABadNode) {
  MeasurementSet set;
  // 8 ranks on 4 hosts; host "n2" (ranks 4 and 5) computes 30% slower; the others wait.
  for (std::int64_t step = 0; step < 5; ++step) {
    for (std::int64_t r = 0; r < 8; ++r) {
      const bool slow = r == 4 || r == 5;
      const double compute = slow ? 0.13 : 0.10;
      StepPoint p;
      p.step = step;
      p.rank = r;
      p.host = "n" + std::to_string(r / 2);
      p.compute_s = compute;
      p.communication_s = 0.01;
      p.wait_s = 0.13 - compute;
      p.step_s = p.compute_s + p.communication_s + p.wait_s;
      set.steps.push_back(p);
    }
  }
  const MeasurementDiagnosis d = diagnose_measurements(set, std::nullopt);
  ASSERT_EQ(d.ranks.size(), 8u);
  EXPECT_NEAR(d.compute_s, (6 * 0.10 + 2 * 0.13) / 8, 1e-12);
  EXPECT_NEAR(d.wait_s, 6 * 0.03 / 8, 1e-12);
  std::vector<std::string> names;
  for (const Outlier& o : d.outliers) names.push_back(o.what);
  EXPECT_NE(std::find(names.begin(), names.end(), "rank 4 (n2)"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "rank 5 (n2)"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "host n2"), names.end());
  EXPECT_EQ(names.size(), 3u);
  ASSERT_TRUE(d.binding.has_value());
  EXPECT_EQ(*d.binding, Mechanism::kVariance);  // wait 16% of the step, communication 7%
  ASSERT_EQ(d.next_measurement.runs.size(), 1u);
  EXPECT_EQ(d.next_measurement.runs[0].mode, HarnessMode::kArrival);
}

TEST(DiagnoseMeasurements, ArrivalSpreadAndASlowLink) {
  MeasurementSet set;
  for (std::int64_t it = 0; it < 3; ++it) {
    for (std::int64_t r = 0; r < 4; ++r) {
      ArrivalPoint a;
      a.iteration = it;
      a.rank = r;
      a.host = "h";
      a.arrival_s = r == 2 ? 500e-6 : 10e-6 * static_cast<double>(r);
      a.collective_s = r == 2 ? 20e-6 : 520e-6 - a.arrival_s;
      set.arrivals.push_back(a);
    }
  }
  // Ping-pong between every pair at 1 MB: 1->3 takes 4x as long.
  for (std::int64_t i = 0; i < 4; ++i) {
    for (std::int64_t j = i + 1; j < 4; ++j) {
      PingPongPoint p;
      p.from = i;
      p.to = j;
      p.bytes = 1e6;
      p.one_way_median_s = (i == 1 && j == 3) ? 400e-6 : 100e-6;
      set.pingpong.push_back(p);
    }
  }
  const MeasurementDiagnosis d = diagnose_measurements(set, std::nullopt);
  ASSERT_TRUE(d.arrival_spread_s.has_value());
  EXPECT_NEAR(*d.arrival_spread_s, 500e-6, 1e-12);
  ASSERT_TRUE(d.zero_byte_collective_s.has_value());
  EXPECT_NEAR(*d.zero_byte_collective_s, 20e-6, 1e-12);  // the last arrival waits for no one
  std::vector<std::string> names;
  for (const Outlier& o : d.outliers) names.push_back(o.what);
  EXPECT_NE(std::find(names.begin(), names.end(), "rank 2"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "link 1->3"), names.end());
  ASSERT_TRUE(d.binding.has_value());
  EXPECT_EQ(*d.binding, Mechanism::kVariance);  // spread 25x the zero-byte latency
}

// ---- the measurement order, the remedies, runs ----

TEST(MeasurementOrder, StepSplitFirstPlacementLast) {
  const std::vector<OrderedMeasurement> order = measurement_order(1024);
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[0].stage, MeasurementStage::kStepSplit);
  ASSERT_EQ(order[0].runs.size(), 1u);
  EXPECT_EQ(order[0].runs[0].mode, HarnessMode::kStep);
  EXPECT_EQ(order[0].runs[0].ranks, 1024);
  EXPECT_EQ(order[1].stage, MeasurementStage::kCollective);
  ASSERT_EQ(order[1].runs.size(), 2u);
  EXPECT_EQ(order[1].runs[0].mode, HarnessMode::kCollective);
  EXPECT_EQ(order[1].runs[1].mode, HarnessMode::kArrival);
  EXPECT_EQ(order[1].runs[1].iterations, 1000);
  EXPECT_EQ(order[2].stage, MeasurementStage::kPerRank);
  EXPECT_TRUE(order[2].runs.empty());
  EXPECT_FALSE(order[2].look_at.empty());
  EXPECT_EQ(order[3].stage, MeasurementStage::kPlacement);
  ASSERT_EQ(order[3].runs.size(), 2u);
  EXPECT_EQ(order[3].runs[0].placement, RankPlacement::kOneNode);
  EXPECT_EQ(order[3].runs[1].placement, RankPlacement::kOneRankPerNode);
  for (const HarnessRun& r : order[3].runs) EXPECT_EQ(r.ranks, kTypicalRanksPerNode);
  // Fewer ranks than a node: the placement runs use them all; 5 runs in all.
  const std::vector<OrderedMeasurement> small = measurement_order(3, 8);
  EXPECT_EQ(small[3].runs[0].ranks, 3);
  EXPECT_EQ(order_runs(small).runs.size(), 5u);
  EXPECT_THROW(measurement_order(0), InputError);
}

TEST(RankedRemedies, OverlapFirstAndMarkedByTheMechanismsThatFit) {
  Explanation variance;
  variance.mechanism = Mechanism::kVariance;
  variance.can_explain = true;
  Explanation bandwidth;
  bandwidth.mechanism = Mechanism::kBandwidth;
  bandwidth.can_explain = false;
  const std::vector<RankedRemedy> r = ranked_remedies({variance, bandwidth});
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r[0].remedy.rfind("overlap communication with computation", 0), 0u) << r[0].remedy;
  EXPECT_FALSE(r[0].addresses_a_fit);  // overlap cuts bandwidth and latency, not variance
  EXPECT_EQ(r[4].remedy.rfind("uniform ranks", 0), 0u) << r[4].remedy;
  EXPECT_TRUE(r[4].addresses_a_fit);
  // The seed's drill: every mechanism but checkpoint and compute fits, so overlap does too.
  const EfficiencyDropAnswer drill = answer_efficiency_drop(128, 0.94, 1024, 0.61);
  EXPECT_TRUE(drill.remedies[0].addresses_a_fit);
  EXPECT_EQ(drill.order.size(), 4u);
  EXPECT_EQ(drill.next_measurement.runs.front().mode, HarnessMode::kStep);
}

// A file whose run context is another job's (other hosts, or the same hosts days later) is
// diagnosed apart; the same job's files together.
TEST(DiagnoseRuns, SameJobTogetherOtherJobsApart) {
  const auto file = [](const std::string& name, std::vector<std::string> hosts,
                       const std::string& date) {
    MeasurementSet set;
    set.sources.push_back(name);
    set.runs.push_back({name, "step", 4, 2, std::move(hosts), date, ""});
    for (std::int64_t r = 0; r < 4; ++r) {
      StepPoint p;
      p.rank = r;
      p.host = set.runs[0].hosts[static_cast<std::size_t>(r / 2)];
      p.compute_s = 0.07;
      p.communication_s = 0.03;
      p.step_s = 0.1;
      set.steps.push_back(p);
    }
    return set;
  };
  const auto a = file("a", {"h0", "h1"}, "2026-11-30T05:00:00Z");
  const auto same = file("b", {"h0", "h1"}, "2026-11-30T23:00:00Z");
  const auto undated = file("c", {"h0", "h1"}, "");
  const auto later = file("d", {"h0", "h1"}, "2026-12-01T05:00:01Z");
  const auto elsewhere = file("e", {"x0", "x1"}, "2026-11-30T05:00:00Z");
  const std::vector<RunDiagnosis> runs =
      diagnose_runs({a, same, undated, later, elsewhere}, std::nullopt);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].sources, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(runs[0].diagnosis.ranks[0].steps, 3);
  EXPECT_EQ(runs[1].sources, std::vector<std::string>{"d"});
  EXPECT_EQ(runs[2].sources, std::vector<std::string>{"e"});
  EXPECT_EQ(runs[2].identity, "4 ranks on x0, x1 (2 per host), 2026-11-30T05:00:00Z");
  ASSERT_TRUE(runs[1].diagnosis.binding.has_value());
  EXPECT_EQ(*runs[1].diagnosis.binding, Mechanism::kBandwidth);
}

}  // namespace
}  // namespace scalewall
