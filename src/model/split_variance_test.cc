// Tests of scalewall/model/split_variance.h: a bad node's and a degraded link's time in a
// transformer's step against the data-parallel model's closed form.
#include "scalewall/model/split_variance.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "scalewall/model/straggler.h"
#include "test_support.h"

namespace scalewall {
namespace {

TEST(SplitVariance, NoBadNodeOrLinkLeavesTheStepAlone) {
  TransformerJob job = gpt_1p7b_on_a100();
  job.sigma = 0.02;
  const SplitStep r = evaluate_split(job, tp2_pp4_dp4_full_recompute());
  const double compute = r.compute_s + r.recompute_s;
  EXPECT_DOUBLE_EQ(r.variance_s, 0.02 * expected_max_standard_normal(32) * compute);
  SplitStep again = r;
  add_slow_node(job, again);
  EXPECT_EQ(again.step_s, r.step_s);
  EXPECT_EQ(again.variance_s, r.variance_s);
}

TEST(SplitVariance, ABadNodeCostsItsSlowdownOfTheCompute) {
  const TransformerJob healthy = gpt_1p7b_on_a100();
  const SplitStep base = evaluate_split(healthy, tp2_pp4_dp4_full_recompute());
  TransformerJob job = healthy;
  job.bad_node_slowdown = 1.15;
  const SplitStep r = evaluate_split(job, tp2_pp4_dp4_full_recompute());
  const double compute = r.compute_s + r.recompute_s;
  // sigma 0: (f - 1) (compute + recompute), and the step grows by exactly that.
  EXPECT_DOUBLE_EQ(r.variance_s, 0.15 * compute);
  EXPECT_NEAR(r.step_s, base.step_s + 0.15 * compute, 1e-12 * base.step_s);
  EXPECT_LT(r.mfu, base.mfu);
  EXPECT_LT(r.tokens_per_s, base.tokens_per_s);
}

TEST(SplitVariance, TheLargerOfJitterAndTheBadNodeIsCharged) {
  TransformerJob job = gpt_1p7b_on_a100();
  job.sigma = 0.05;
  const double e_n = expected_max_standard_normal(32);
  const double e_g = expected_max_standard_normal(8);
  for (const double f : {1.01, 1.05, 1.3}) {
    job.bad_node_slowdown = f;
    const SplitStep r = evaluate_split(job, tp2_pp4_dp4_full_recompute());
    const double c = r.compute_s + r.recompute_s;
    const double expected = std::max(0.05 * e_n * c, (f - 1.0) * c + f * 0.05 * e_g * c);
    EXPECT_NEAR(r.variance_s, expected, 1e-12 * c) << f;
  }
}

TEST(SplitVariance, ADegradedLinkPacesTheCollectivesThatCrossIt) {
  const TransformerJob healthy = gpt_1p7b_on_a100();
  const SplitStep base = evaluate_split(healthy, tp2_pp4_dp4_full_recompute());
  TransformerJob job = healthy;
  job.bad_link_bandwidth_Bps = 2.5e9;  // a tenth of the 25 GB/s NIC
  const SplitStep r = evaluate_split(job, tp2_pp4_dp4_full_recompute());
  EXPECT_GT(r.variance_s, 0.0);
  EXPECT_NEAR(r.step_s - base.step_s, r.variance_s, 1e-12 * base.step_s);
  // A link no slower than the fabric's costs nothing.
  job.bad_link_bandwidth_Bps = 1e12;
  EXPECT_EQ(evaluate_split(job, tp2_pp4_dp4_full_recompute()).step_s, base.step_s);
}

TEST(SplitVariance, OneGpuHasNoBarrierToWaitAt) {
  TransformerJob job = gpt_1p7b_on_a100();
  job.bad_node_slowdown = 2.0;
  job.bad_link_bandwidth_Bps = 1e9;
  ParallelSplit s;
  s.recompute = Recompute::kFull;
  EXPECT_EQ(evaluate_split(job, s).variance_s, 0.0);
}

}  // namespace
}  // namespace scalewall
