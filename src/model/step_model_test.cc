// Tests of scalewall/model/step_model.h and scalewall/analysis/predict.h: the seed's worked example, strong
// against weak scaling, each mechanism binding in turn, the loss breakdown, overlap and
// buckets, the knee, the what-if ranking and the interview question.
#include "scalewall/model/step_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <variant>
#include <vector>

#include "scalewall/base/error.h"
#include "scalewall/analysis/predict.h"
#include "scalewall/model/scaling.h"
#include "scalewall/model/straggler.h"

namespace scalewall {
namespace {

// Seed D01 section 2.4: 7e9 parameters in bf16 (14 GB of gradient), 300 ms of compute per
// rank at 8 ranks, an all-reduce bus bandwidth of 50 GB/s, one fused all-reduce, no overlap.
Scenario WorkedExample() {
  Scenario s;
  s.name = "seed-7b";
  s.workload.gradient_bytes = 14e9;
  s.workload.compute_s = 0.3;
  s.workload.reference_ranks = 8;
  s.workload.mode = ScalingMode::kStrong;
  s.network.busbw_Bps = 50e9;
  s.settings.bucket_bytes = 0;
  return s;
}

TEST(StepModel, SeedWorkedExample) {
  const Scenario s = WorkedExample();
  // The seed's table: ranks, compute, all-reduce, total, efficiency. It rounds the ring factor
  // 2(N-1)/N to 2, so its all-reduce is 2 x 14 GB / 50 GB/s = 560 ms at every N; the model
  // keeps the factor, so its all-reduce is 560 ms x (N-1)/N.
  struct Row {
    std::int64_t n;
    double compute_ms, seed_allreduce_ms, seed_total_ms, seed_efficiency;
  };
  const Row rows[] = {{8, 300, 560, 860, 0.35}, {64, 37.5, 560, 598, 0.06},
                      {512, 4.7, 560, 565, 0.008}};
  for (const Row& r : rows) {
    const StepTime t = step_time(s, r.n);
    const auto n = static_cast<double>(r.n);
    EXPECT_NEAR(t.compute_s * 1e3, r.compute_ms, 0.05) << r.n;
    // The seed's figures, recomputed with the factor 2 the seed uses.
    EXPECT_NEAR(t.compute_s * 1e3 + 2 * 14e9 / 50e9 * 1e3, r.seed_total_ms, 0.5) << r.n;
    EXPECT_NEAR(2.4 / (n * (t.compute_s + 0.56)), r.seed_efficiency,
                r.seed_efficiency * 0.1 + 0.002)
        << r.n;
    // The model's exact figures.
    EXPECT_DOUBLE_EQ(t.communication_s, 0.56 * (n - 1) / n) << r.n;
    EXPECT_DOUBLE_EQ(t.exposed_communication_s, t.communication_s);
    EXPECT_DOUBLE_EQ(t.step_s, 2.4 / n + 0.56 * (n - 1) / n);
    EXPECT_DOUBLE_EQ(t.efficiency, 2.4 / (n * t.step_s));
    EXPECT_EQ(t.binding, Mechanism::kBandwidth) << r.n;
    EXPECT_EQ(t.algorithm, StepCollective{BusBandwidthGiven{}});
  }
  // 8 ranks: 300 ms + 490 ms = 790 ms, 38% (the seed's 860 ms and 35% use 560 ms).
  EXPECT_NEAR(step_time(s, 8).step_s, 0.790, 1e-12);
  EXPECT_NEAR(step_time(s, 8).efficiency, 2.4 / (8 * 0.79), 1e-12);
}

TEST(StepModel, OneRankIsIdeal) {
  const StepTime t = step_time(WorkedExample(), 1);
  EXPECT_EQ(t.communication_s, 0.0);
  EXPECT_EQ(t.variance_s, 0.0);
  EXPECT_DOUBLE_EQ(t.step_s, 2.4);
  EXPECT_DOUBLE_EQ(t.efficiency, 1.0);
  EXPECT_EQ(t.binding, Mechanism::kCompute);
}

TEST(StepModel, LossBreakdownSumsToTheLoss) {
  Scenario s = WorkedExample();
  s.workload.serial_s = 0.05;
  s.variance.sigma = 0.03;
  s.checkpoint = {100e9, 10e9, true, 50, false};
  s.settings.overlap = true;
  s.settings.bucket_bytes = 100e6;
  for (const std::int64_t n : {1, 2, 3, 8, 24, 64, 1000, 4096}) {
    const StepTime t = step_time(s, n);
    EXPECT_NEAR(t.lost.total(), t.step_s - t.ideal_step_s, 1e-12 * t.step_s) << n;
    EXPECT_GE(t.lost.serial_s, 0);
    EXPECT_GE(t.lost.latency_s, 0);
    EXPECT_GE(t.lost.bandwidth_s, 0);
    EXPECT_GE(t.lost.variance_s, 0);
  }
}

TEST(StepModel, WeakScalingWithFreeCommunicationIsGustafson) {
  Scenario s = WorkedExample();
  s.workload.mode = ScalingMode::kWeak;
  s.workload.gradient_bytes = 0;  // nothing to communicate
  s.workload.serial_s = 0.1;
  s.workload.compute_s = 0.9;
  s.workload.reference_ranks = 1;
  for (const std::int64_t n : {1, 2, 13, 1024}) {
    const StepTime t = step_time(s, n);
    const auto x = static_cast<double>(n);
    EXPECT_DOUBLE_EQ(t.step_s, 1.0);      // the per-rank work does not change
    EXPECT_DOUBLE_EQ(t.efficiency, 1.0);
    EXPECT_NEAR(t.speedup, x - 0.1 * (x - 1), 1e-9);  // Gustafson, s = 10%
  }
  // The same job under strong scaling follows Amdahl instead.
  s.workload.mode = ScalingMode::kStrong;
  EXPECT_NEAR(step_time(s, 1024).speedup, 1 / (0.1 + 0.9 / 1024), 1e-9);
}

TEST(StepModel, EachMechanismBindsInItsOwnScenario) {
  // Serial-bound: 1 s of serial work per step, little communication.
  Scenario serial = WorkedExample();
  serial.workload.serial_s = 1.0;
  serial.workload.gradient_bytes = 1e6;
  EXPECT_EQ(step_time(serial, 64).binding, Mechanism::kSerial);

  // Latency-bound: a 10 MB gradient in 64 KiB buckets on a flat 25 us link at 1024 ranks.
  Scenario latency;
  latency.workload = {10e6, 0.05, 1, 0.0, ScalingMode::kWeak, 2.0 / 3.0};
  latency.network.fabric = flat_topology(1, Link{25e-6, 12.5e9});
  latency.settings.bucket_bytes = 65536;
  EXPECT_EQ(step_time(latency, 1024).binding, Mechanism::kLatency);

  // Bandwidth-bound: the worked example.
  EXPECT_EQ(step_time(WorkedExample(), 64).binding, Mechanism::kBandwidth);

  // Variance-bound: 20% jitter, weak scaling, a tiny gradient.
  Scenario variance = WorkedExample();
  variance.workload.mode = ScalingMode::kWeak;
  variance.workload.gradient_bytes = 1e3;
  variance.variance.sigma = 0.2;
  const StepTime v = step_time(variance, 4096);
  EXPECT_EQ(v.binding, Mechanism::kVariance);
  EXPECT_NEAR(v.variance_s, 0.2 * expected_max_standard_normal(4096) * 0.3, 1e-12);

  // Checkpoint-bound: a 1 TB synchronous checkpoint every 10 steps at 2 GB/s, shared.
  Scenario checkpoint = WorkedExample();
  checkpoint.workload.mode = ScalingMode::kWeak;
  checkpoint.workload.gradient_bytes = 1e3;
  checkpoint.checkpoint = {1e12, 2e9, true, 10, false};
  const StepTime c = step_time(checkpoint, 64);
  EXPECT_DOUBLE_EQ(c.checkpoint_s, 1e12 / 2e9 / 10);  // 50 s amortised per step
  // Weak scaling: the stall is lost from every step, at every N...
  EXPECT_EQ(c.binding, Mechanism::kCheckpoint);
  EXPECT_DOUBLE_EQ(c.lost.checkpoint_s, c.checkpoint_s);
  // ...and under strong scaling too: the shared write does not shrink with N.
  checkpoint.workload.mode = ScalingMode::kStrong;
  EXPECT_EQ(step_time(checkpoint, 64).binding, Mechanism::kCheckpoint);
}

TEST(StepModel, OverlapNeverSlowerAndHidesWhatBackwardCovers) {
  for (const double bucket : {0.0, 1e6, 25e6, 1e9}) {
    for (const std::int64_t n : {2, 8, 64, 512}) {
      Scenario s = WorkedExample();
      s.settings.bucket_bytes = bucket;
      const StepTime off = step_time(s, n);
      s.settings.overlap = true;
      const StepTime on = step_time(s, n);
      EXPECT_LE(on.step_s, off.step_s) << bucket << " " << n;
      EXPECT_LE(on.exposed_communication_s, on.communication_s);
      EXPECT_DOUBLE_EQ(on.communication_s, off.communication_s);
    }
  }
  // Hand check: 8 ranks, 14 GB in 7 buckets of 2 GB, backward = 2/3 x 300 ms = 200 ms.
  // Each bucket costs 2 x 7/8 x 2 GB / 50 GB/s = 70 ms; the first is ready at 200/7 ms, so
  // the last ends at max(200/7 + 7 x 70, 200 + 70) ms and 318.57 ms runs past backward.
  Scenario s = WorkedExample();
  s.settings.overlap = true;
  s.settings.bucket_bytes = 2e9;
  const StepTime t = step_time(s, 8);
  EXPECT_EQ(t.buckets, 7);
  EXPECT_NEAR(t.communication_s, 0.49, 1e-12);
  EXPECT_NEAR(t.exposed_communication_s, 0.2 / 7 + 0.49 - 0.2, 1e-12);
}

TEST(StepModel, MoreBucketsPayMoreLatencyTerms) {
  Scenario s;
  s.workload = {100e6, 0.1, 1, 0.0, ScalingMode::kWeak, 2.0 / 3.0};
  s.network.fabric = flat_topology(1, Link{10e-6, 25e9});
  s.settings.algorithm = AlgorithmSpec{Algorithm::kRing, Algorithm::kRing};
  double previous = 0;
  for (const double bucket : {0.0, 50e6, 10e6, 1e6, 100e3}) {
    s.settings.bucket_bytes = bucket;
    const StepTime t = step_time(s, 64);
    EXPECT_GT(t.communication_latency_s, previous) << bucket;
    // Ring: 2(N-1) alpha per call.
    EXPECT_NEAR(t.communication_latency_s, static_cast<double>(t.buckets) * 126 * 10e-6, 1e-12);
    previous = t.communication_latency_s;
  }
}

// The step's collective is typed: none at one rank, the given bus bandwidth, or the cheapest
// model algorithm on a link (recursive doubling for a 1 KB gradient over 64 ranks: 6 steps of
// alpha against the ring's 126).
TEST(StepModel, TheStepsCollectiveIsNoneBusbwOrAnAlgorithm) {
  const Scenario busbw = WorkedExample();
  EXPECT_TRUE(std::holds_alternative<std::monostate>(step_time(busbw, 1).algorithm));
  EXPECT_EQ(step_time(busbw, 8).algorithm, StepCollective{BusBandwidthGiven{}});
  Scenario link;
  link.workload = {1e3, 0.1, 1, 0.0, ScalingMode::kWeak, 2.0 / 3.0};
  link.network.fabric = flat_topology(1, Link{10e-6, 25e9});
  const StepTime t = step_time(link, 64);
  ASSERT_TRUE(std::holds_alternative<AlgorithmSpec>(t.algorithm));
  EXPECT_EQ(std::get<AlgorithmSpec>(t.algorithm).algorithm, Algorithm::kRecursiveDoubling);
  link.settings.algorithm = AlgorithmSpec{Algorithm::kRing, Algorithm::kRing};
  const StepCollective ring = AlgorithmSpec{Algorithm::kRing, Algorithm::kRing};
  EXPECT_EQ(step_time(link, 64).algorithm, ring);
}

// A scaling mode's name and the parser read one list: each name parses back to its mode,
// and only the exact lower-case names parse.
TEST(StepModel, ScalingModeNamesParseBack) {
  EXPECT_EQ(scaling_mode_name(ScalingMode::kStrong), "strong");
  EXPECT_EQ(scaling_mode_name(ScalingMode::kWeak), "weak");
  for (ScalingMode mode : {ScalingMode::kStrong, ScalingMode::kWeak}) {
    EXPECT_EQ(parse_scaling_mode(scaling_mode_name(mode)), mode);
  }
  EXPECT_EQ(parse_scaling_mode("Strong"), std::nullopt);
  EXPECT_EQ(parse_scaling_mode(""), std::nullopt);
  EXPECT_EQ(parse_scaling_mode("weak "), std::nullopt);
}

TEST(Predict, KneeIsWhereExposedCommunicationReachesCompute) {
  // 2.4 s / N of compute against 0.56 (N-1)/N s of all-reduce: 2.4 <= 0.56 (N-1) first at
  // N = 6 (N = 5 gives 0.48 s against 0.448 s).
  const std::vector<std::int64_t> grid = {1, 2, 4, 8, 16};
  const Prediction p = predict(WorkedExample(), grid);
  ASSERT_TRUE(p.knee_ranks.has_value());
  EXPECT_EQ(*p.knee_ranks, 6);
  // Efficiency 2.4 / (2.4 + 0.56 (N-1)) >= 0.5 while N <= 1 + 2.4/0.56 = 5.29.
  ASSERT_TRUE(p.max_ranks_at_target.has_value());
  EXPECT_EQ(*p.max_ranks_at_target, 5);
  EXPECT_EQ(p.rows.size(), grid.size());
}

TEST(Predict, DefaultGridIsPowersOfTwoPlusTheMaximum) {
  EXPECT_EQ(default_rank_grid(WorkedExample(), 100),
            (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 100}));
  Scenario fabric = WorkedExample();
  Topology t = flat_topology(1, kDefaultLink);
  t.name = "two-level";
  t.ranks_per_node = 8;
  t.nodes = 4;
  fabric.network.fabric = t;
  EXPECT_EQ(default_rank_grid(fabric, 64), (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_THROW(default_rank_grid(fabric, 12), InputError);
}

TEST(WhatIf, BandwidthBoundJobGainsMostFromOverlap) {
  // Communication about as long as the backward pass: overlap hides most of it.
  Scenario s;
  s.workload = {2.6e9, 0.6, 1, 0.0, ScalingMode::kWeak, 2.0 / 3.0};
  s.network.busbw_Bps = 10e9;
  s.settings.bucket_bytes = 25e6;
  const WhatIf w = what_if(s, 64);
  EXPECT_EQ(w.baseline.step.binding, Mechanism::kBandwidth);
  ASSERT_FALSE(w.remedies.empty());
  EXPECT_EQ(w.remedies.front().name, "overlap");
  EXPECT_GT(w.remedies.front().gain, 1.2);
  EXPECT_EQ(w.remedies.back().name, "all together");
  EXPECT_GE(w.remedies.back().gain, w.remedies.front().gain);
}

TEST(WhatIf, LatencyBoundJobGainsMostFromLargerBuckets) {
  Scenario s;
  // 191 calls of 256 KB, each paying 10-20 latency steps of 25 us, against 20 ms of compute:
  // fusing them into a few large buckets removes most of the latency terms, where a bigger
  // batch or accumulation only amortises them.
  s.workload = {50e6, 0.02, 1, 0.0, ScalingMode::kWeak, 2.0 / 3.0};
  s.network.fabric = flat_topology(1, Link{25e-6, 12.5e9});
  s.settings.overlap = true;
  s.settings.bucket_bytes = 262144;
  const WhatIf w = what_if(s, 1024);
  EXPECT_EQ(w.baseline.step.binding, Mechanism::kLatency);
  EXPECT_EQ(w.remedies.front().name, "larger buckets");
}

// The last bucket can only start when the backward pass ends, so any communication leaves a
// sliver exposed and a smaller last bucket always shaves a little off; "no gain" is a gain
// below kNegligibleGain (1%).
TEST(WhatIf, SerialBoundJobGainsNothingFromTheFabric) {
  Scenario s;
  s.workload = {100e6, 0.3, 1, 0.2, ScalingMode::kStrong, 2.0 / 3.0};
  s.workload.reference_ranks = 8;
  s.network.busbw_Bps = 100e9;
  s.settings.overlap = true;
  s.settings.bucket_bytes = 25e6;
  const WhatIf w = what_if(s, 64);
  EXPECT_EQ(w.baseline.step.binding, Mechanism::kSerial);
  for (const Remedy& r : w.remedies) {
    if (r.name == "overlap" || r.name == "hierarchical" || r.name == "packed placement" ||
        r.name == "compression" || r.name == "larger buckets") {
      EXPECT_LT(r.gain, 1.0 + kNegligibleGain) << r.name;
    }
  }
}

TEST(Explain, SeedInterviewCase) {
  // 94% at 128 ranks, 61% at 1024, same problem.
  const auto all = explain_efficiency_drop(128, 0.94, 1024, 0.61);
  bool bandwidth = false;
  bool latency = false;
  bool variance = false;
  for (const Explanation& e : all) {
    // Each two-parameter model passes through both points.
    const double f1 = e.a / 128.0;
    EXPECT_GT(f1, 0) << e.shape;
    if (e.can_explain && e.mechanism == Mechanism::kBandwidth) bandwidth = true;
    if (e.can_explain && e.mechanism == Mechanism::kLatency) latency = true;
    if (e.can_explain && e.mechanism == Mechanism::kVariance) variance = true;
    ASSERT_EQ(e.measurement.runs.size(), 1u) << e.shape;  // one harness run tells it apart
    EXPECT_EQ(e.measurement.runs[0].ranks, 1024);
  }
  EXPECT_TRUE(bandwidth);
  EXPECT_TRUE(latency);
  EXPECT_TRUE(variance);
  // Serial: 1/(N E) = a/N + b through both points.
  const Explanation& serial = all.front();
  EXPECT_EQ(serial.mechanism, Mechanism::kSerial);
  EXPECT_NEAR(serial.a / 128 + serial.b, 1 / (128 * 0.94), 1e-12);
  EXPECT_NEAR(serial.a / 1024 + serial.b, 1 / (1024 * 0.61), 1e-12);
  EXPECT_THROW(explain_efficiency_drop(1024, 0.6, 128, 0.9), InputError);
  EXPECT_THROW(explain_efficiency_drop(128, 0.0, 1024, 0.6), InputError);
}

TEST(StepModel, RejectsBadScenarios) {
  Scenario s = WorkedExample();
  s.workload.gradient_bytes = -1;
  EXPECT_THROW(require_valid(s), InputError);
  s = WorkedExample();
  s.network.busbw_Bps = 0;
  EXPECT_THROW(require_valid(s), InputError);
  s = WorkedExample();
  s.settings.compression_ratio = 0.5;
  EXPECT_THROW(require_valid(s), InputError);
  s = WorkedExample();
  s.variance.bad_node_slowdown = 0.9;
  EXPECT_THROW(require_valid(s), InputError);
  s = WorkedExample();
  s.checkpoint.bytes = 1e9;
  s.checkpoint.write_bandwidth_Bps = 0;
  EXPECT_THROW(require_valid(s), InputError);
  EXPECT_THROW(step_time(WorkedExample(), 0), InputError);
}

// The values of the issue that once ended in an internal check failure: each is refused,
// naming the field and the range.
TEST(StepModel, ValuesOutsideTheStatedRangesAreRefused) {
  const auto refused = [](Scenario s, const std::string& must_mention) {
    try {
      require_valid(s);
      ADD_FAILURE() << "accepted; expected a message with '" << must_mention << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(must_mention), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("outside the range"), std::string::npos) << e.what();
    }
  };
  Scenario s = WorkedExample();
  s.network.busbw_Bps = 1e-300;
  refused(s, "network bus bandwidth 1e-300 B/s is outside the range 1 B/s to 1 PB/s");
  s = WorkedExample();
  s.settings.bucket_bytes = 1e-300;
  refused(s, "remedies bucket 1e-300 B is outside the range 1 B to 1 EB (or 0)");
  s = WorkedExample();
  s.settings.batch_scale = 1e308;
  refused(s, "remedies batch scale");
  s = WorkedExample();
  s.checkpoint.bytes = 1e300;
  s.checkpoint.write_bandwidth_Bps = 1e-300;
  refused(s, "checkpoint bytes");
  s = WorkedExample();
  s.checkpoint.bytes = 1e12;
  s.checkpoint.write_bandwidth_Bps = 1e-300;
  refused(s, "checkpoint write bandwidth");
  s = WorkedExample();
  s.variance.bad_node_slowdown = 1e308;
  refused(s, "variance bad node slowdown");
  s = WorkedExample();
  s.workload.compute_s = 4.9e-324;
  refused(s, "workload compute");
  s = WorkedExample();
  s.settings.compression_s_per_byte = 1e300;
  refused(s, "remedies compression cost");
  s = WorkedExample();
  s.network.busbw_Bps = 0;
  s.network.fabric = flat_topology(1, Link{1e-300, 1e10});
  refused(s, "network fabric intra-node link latency");
  s.network.fabric = flat_topology(1, Link{1e-6, 1e300});
  refused(s, "network fabric intra-node link bandwidth");
  s.network.fabric->inter.bandwidth_Bps = 1e-300;
  s.network.fabric->intra.bandwidth_Bps = 1e9;
  refused(s, "network fabric inter-node link bandwidth 1e-300 B/s");
}

// Every corner of the stated ranges computes: the largest costs stay finite (far below a
// double's limit) and the smallest never round a step to zero.
TEST(StepModel, EveryCornerOfTheRangesComputesFinitely) {
  for (const bool largest : {true, false}) {
    for (const bool fabric : {false, true}) {
      Scenario s;
      s.workload.gradient_bytes = largest ? kScenarioBytes.hi : kScenarioBytes.lo;
      s.workload.compute_s = largest ? kScenarioSeconds.hi : kScenarioSeconds.lo;
      s.workload.serial_s = largest ? kScenarioSeconds.hi : 0.0;
      s.workload.reference_ranks = largest ? kMaxRanks : 1;
      const double rate = largest ? kScenarioRate.lo : kScenarioRate.hi;  // slowest is largest
      if (fabric) {
        s.network.fabric = flat_topology(1, Link{largest ? kScenarioSeconds.hi : 1e-12, rate});
      } else {
        s.network.busbw_Bps = rate;
        s.network.busbw_alpha_s = largest ? kScenarioSeconds.hi : 0.0;
      }
      s.variance.sigma = largest ? 1.0 : 0.0;
      s.variance.bad_node_slowdown = largest ? kScenarioFactor.hi : 1.0;
      s.variance.bad_link_bandwidth_Bps = largest ? kScenarioRate.lo : 0.0;
      s.checkpoint.bytes = largest ? kScenarioBytes.hi : kScenarioBytes.lo;
      s.checkpoint.write_bandwidth_Bps = largest ? kScenarioRate.lo : kScenarioRate.hi;
      s.checkpoint.interval_steps = 1;
      s.checkpoint.shared = !largest;
      s.settings.overlap = largest;
      s.settings.bucket_bytes = 1.0;  // the most calls
      s.settings.compression_ratio = largest ? 1.0 : kScenarioFactor.hi;
      s.settings.compression_s_per_byte = largest ? kScenarioSecondsPerByte.hi : 0.0;
      s.settings.accumulation_steps = largest ? 1000000 : 1;
      s.settings.batch_scale = largest ? kScenarioBatchScale.hi : kScenarioBatchScale.lo;
      s.settings.cost.gamma_s_per_byte = largest ? kScenarioSecondsPerByte.hi : 0.0;
      ASSERT_NO_THROW(require_valid(s)) << largest << fabric;
      for (const std::int64_t ranks : {std::int64_t{1}, std::int64_t{2}, std::int64_t{1024},
                                       fabric ? std::int64_t{4096} : kMaxRanks}) {
        const StepTime t = step_time(s, ranks);
        for (const double v : {t.step_s, t.ideal_step_s, t.efficiency, t.speedup, t.compute_s,
                               t.communication_s, t.variance_s, t.checkpoint_s, t.lost.total()}) {
          EXPECT_TRUE(std::isfinite(v)) << largest << fabric << " " << ranks;
        }
        EXPECT_GT(t.step_s, 0.0);
        EXPECT_LT(t.step_s, 1e40);  // as step_model.h states
        EXPECT_GT(t.efficiency, 0.0);
      }
    }
  }
}

TEST(WhatIf, OptionsOutsideTheStatedRangesAreRefused) {
  WhatIfOptions o;
  o.compression_s_per_byte = 1e300;
  EXPECT_THROW(what_if(WorkedExample(), 64, o), InputError);
  o = WhatIfOptions{};
  o.batch_scale = 1e308;
  EXPECT_THROW(what_if(WorkedExample(), 64, o), InputError);
  o = WhatIfOptions{};
  o.compression_ratio = 1e308;
  EXPECT_THROW(what_if(WorkedExample(), 64, o), InputError);
}

TEST(StepModel, MechanismShapesInN) {
  EXPECT_EQ(mechanism_shape(Mechanism::kSerial, 64), 1.0);
  EXPECT_EQ(mechanism_shape(Mechanism::kLatency, 64), 6.0);
  EXPECT_DOUBLE_EQ(mechanism_shape(Mechanism::kBandwidth, 64), 2.0 * 63.0 / 64.0);
  EXPECT_EQ(mechanism_shape(Mechanism::kVariance, 1), 0.0);
  // E[max of 2 standard normals] = 1 / sqrt(pi).
  EXPECT_NEAR(mechanism_shape(Mechanism::kVariance, 2), 1.0 / std::sqrt(std::numbers::pi), 1e-9);
}

TEST(StepModel, ExposedCommunicationSplitsInTheCallsProportion) {
  StepTime t;
  t.communication_s = 4.0;
  t.communication_latency_s = 1.0;  // a quarter of the calls' time is alpha terms
  t.exposed_communication_s = 2.0;
  t.compression_s = 0.5;
  const ExposedSplit split = split_exposed_communication(t);
  EXPECT_DOUBLE_EQ(split.latency_s, 0.5);
  EXPECT_DOUBLE_EQ(split.bandwidth_s, 1.5 + 0.5);
  // No communication: compression alone, counted as bandwidth.
  StepTime quiet;
  quiet.compression_s = 0.25;
  EXPECT_EQ(split_exposed_communication(quiet).latency_s, 0.0);
  EXPECT_EQ(split_exposed_communication(quiet).bandwidth_s, 0.25);
  // step_time reports the same split as its lost latency and bandwidth.
  const StepTime at64 = step_time(WorkedExample(), 64);
  EXPECT_EQ(at64.lost.latency_s, split_exposed_communication(at64).latency_s);
  EXPECT_EQ(at64.lost.bandwidth_s, split_exposed_communication(at64).bandwidth_s);
}


// The DGX H100 example fabric (examples/fabrics/dgx-h100-ndr.toml): 16 nodes of 8, NVLink
// 2 us at 450 GB/s inside a node, eight NICs of 3 us at 50 GB/s per node.
Topology DgxFabric() {
  Topology t;
  t.name = "dgx-h100-ndr";
  t.nodes = 16;
  t.ranks_per_node = 8;
  t.intra = Link{2e-6, 450e9};
  t.inter = Link{3e-6, 50e9};
  t.nics_per_node = 8;
  return t;
}

// A 13e9-parameter bf16 model, 1.2 s of compute per rank, weak scaling, overlap on, on the
// DGX fabric, with a 182 GB checkpoint every 50 steps at 2 GB/s.
Scenario CheckpointedLlm(bool shared, bool async) {
  Scenario s;
  s.workload.gradient_bytes = 26e9;
  s.workload.compute_s = 1.2;
  s.workload.mode = ScalingMode::kWeak;
  s.network.fabric = DgxFabric();
  s.settings.overlap = true;
  s.checkpoint = {182e9, 2e9, shared, 50, async};
  return s;
}

// Every term of the model is a cost, so no rank count beats the one-rank baseline, which
// writes no checkpoint: with one writer per node (shared = false) the checkpoint shrinks with
// the node count but never turns into a gain.
TEST(StepModel, PerNodeCheckpointsNeverLiftEfficiencyAboveOne) {
  for (const ScalingMode mode : {ScalingMode::kWeak, ScalingMode::kStrong}) {
    Scenario s = CheckpointedLlm(false, false);
    s.workload.mode = mode;
    for (const std::int64_t n : {1, 8, 16, 128, 1024}) {
      const StepTime t = step_time(s, n);
      EXPECT_LE(t.efficiency, 1.0) << n;
      EXPECT_GE(t.lost.checkpoint_s, 0.0) << n;
      EXPECT_DOUBLE_EQ(t.lost.checkpoint_s, t.checkpoint_s) << n;
      EXPECT_NEAR(t.lost.total(), t.step_s - t.ideal_step_s, 1e-12 * t.step_s) << n;
    }
  }
  // One writer per node: 182 GB / (nodes x 2 GB/s) / 50 steps.
  const Scenario s = CheckpointedLlm(false, false);
  EXPECT_DOUBLE_EQ(step_time(s, 8).checkpoint_s, 182e9 / 2e9 / 50);
  EXPECT_DOUBLE_EQ(step_time(s, 128).checkpoint_s, 182e9 / (16 * 2e9) / 50);
  // The baseline is the job's own work on one rank: 1.2 s of compute, no checkpoint.
  EXPECT_DOUBLE_EQ(step_time(s, 128).ideal_step_s, 1.2);
}

// Seed: "checkpointing as a hidden collective ... stalling every rank". A synchronous write to
// a shared target takes the same time from every step at every N, weak scaling included, and
// is named when it is the largest loss.
TEST(StepModel, SynchronousCheckpointStallShowsAtEveryRankCount) {
  const Scenario s = CheckpointedLlm(true, false);
  for (const std::int64_t n : {1, 8, 128, 1024}) {
    const StepTime t = step_time(s, n);
    EXPECT_DOUBLE_EQ(t.checkpoint_s, 182e9 / 2e9 / 50) << n;  // 1.82 s
    EXPECT_DOUBLE_EQ(t.lost.checkpoint_s, t.checkpoint_s) << n;
    EXPECT_EQ(t.binding, Mechanism::kCheckpoint) << n;
    EXPECT_NEAR(t.efficiency, 1.2 / t.step_s, 1e-12) << n;
    EXPECT_LT(t.efficiency, 0.41) << n;  // 1.2 s of 3.02 s
  }
}

// Asynchronous: only the write's overrun past the interval is lost, and it is never negative.
TEST(StepModel, AsyncCheckpointLossIsTheOverrunAndNeverNegative) {
  const Scenario s = CheckpointedLlm(true, true);
  for (const std::int64_t n : {1, 8, 128, 1024}) {
    const StepTime t = step_time(s, n);
    const double before = t.step_s - t.checkpoint_s;
    EXPECT_NEAR(t.checkpoint_s, std::max(0.0, 91.0 - 50 * before) / 50, 1e-12) << n;
    EXPECT_GE(t.lost.checkpoint_s, 0.0) << n;
    EXPECT_DOUBLE_EQ(t.lost.checkpoint_s, t.checkpoint_s) << n;
  }
}

// The binding mechanism is the largest loss even when the job scales well; scales_well says
// the second thing.
TEST(StepModel, BindingIsTheLargestLossEvenAtHighEfficiency) {
  Scenario s = WorkedExample();
  s.workload.mode = ScalingMode::kWeak;
  s.workload.gradient_bytes = 1e3;
  s.variance.sigma = 0.02;
  const StepTime t = step_time(s, 65536);
  EXPECT_GE(t.efficiency, 0.9);
  EXPECT_GT(t.lost.variance_s, 0.99 * t.lost.total());
  EXPECT_EQ(t.binding, Mechanism::kVariance);
  EXPECT_TRUE(t.scales_well);
  const StepTime bound = step_time(WorkedExample(), 64);
  EXPECT_EQ(bound.binding, Mechanism::kBandwidth);
  EXPECT_FALSE(bound.scales_well);
  // Nothing lost: compute.
  EXPECT_EQ(step_time(WorkedExample(), 1).binding, Mechanism::kCompute);
  EXPECT_TRUE(step_time(WorkedExample(), 1).scales_well);
}

// Seed D01 section 3.2: LogP's o is processor time that "cannot be overlapped with anything".
// Three links with L + 2o = 25 us cost the same without overlap, but with overlap each hides
// less the more of its alpha is o: every call's 2o per step stays exposed.
TEST(StepModel, LogGpOverheadIsChargedUnderOverlap) {
  std::vector<double> exposed;
  for (const double o : {0.0, 5e-6, 12e-6}) {
    Scenario s;
    s.workload.gradient_bytes = 1e9;
    s.workload.compute_s = 1.0;
    s.workload.mode = ScalingMode::kWeak;
    s.network.fabric = flat_topology(64, link_from_loggp(25e-6 - 2 * o, o, 0.0, 12.5e9));
    s.settings.bucket_bytes = 1e6;
    const StepTime off = step_time(s, 64);
    s.settings.overlap = true;
    const StepTime on = step_time(s, 64);
    EXPECT_NEAR(off.communication_s, on.communication_s, 1e-15);
    // Without overlap every call is exposed, its o with it.
    EXPECT_DOUBLE_EQ(off.exposed_communication_s, off.communication_s);
    EXPECT_GE(on.exposed_communication_s, on.communication_overhead_s);
    EXPECT_LE(on.exposed_communication_s, on.communication_s);
    exposed.push_back(on.exposed_communication_s);
    if (o == 0.0) {
      EXPECT_EQ(on.communication_overhead_s, 0.0);
    } else {
      EXPECT_GT(on.communication_overhead_s, 0.0);
    }
  }
  EXPECT_LT(exposed[0], exposed[1]);
  EXPECT_LT(exposed[1], exposed[2]);
}

}  // namespace
}  // namespace scalewall
