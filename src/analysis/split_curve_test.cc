// Tests of scalewall/analysis/split_curve.h on examples/llama3.1-70b-h100.toml (tp 4 x pp 8 x
// dp 4 on 128 H100s) and examples/gpt3-175b-a100-plan.toml (degrees open): the job and the
// split at each count, speedup and efficiency in closed form, the base, the lost time, and
// the rows where nothing runs.
#include "scalewall/analysis/split_curve.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scalewall/analysis/split_search.h"
#include "scalewall/io/scenario_file.h"
#include "test_support.h"

namespace scalewall {
namespace {

SplitCurveSetup ExampleSetup(const std::string& example, ScalingMode mode = ScalingMode::kStrong) {
  const ScenarioFile file =
      load_scenario_file(std::string(SCALEWALL_SOURCE_DIR) + "/examples/" + example + ".toml");
  const TransformerScenario& t = *file.transformer;
  return {t.job, t.parallel, t.gpus, mode};
}

TEST(SplitCurve, FixedDegreesScaleInDataParallelismAndWeakScalingGrowsTheBatch) {
  const SplitCurveSetup strong = ExampleSetup("llama3.1-70b-h100");
  const CountSetup at512 = setup_at(strong, 512);
  EXPECT_TRUE(at512.why.empty());
  EXPECT_EQ(at512.constraints.dp, 16);
  EXPECT_EQ(at512.constraints.tp, 4);
  EXPECT_EQ(at512.job.training.global_batch, 512);
  EXPECT_EQ(setup_at(strong, 80).why, "tp x pp = 4 x 8 = 32 does not divide 80 GPUs");
  EXPECT_TRUE(setup_at(strong, 80).batch_whole);

  const SplitCurveSetup weak = ExampleSetup("llama3.1-70b-h100", ScalingMode::kWeak);
  EXPECT_EQ(setup_at(weak, 512).job.training.global_batch, 2048);  // 512 x 512 / 128
  EXPECT_EQ(setup_at(weak, 32).job.training.global_batch, 128);
  SplitCurveSetup weak500 = weak;
  weak500.job.training.global_batch = 500;
  const CountSetup odd = setup_at(weak500, 48);
  EXPECT_FALSE(odd.batch_whole);
  EXPECT_EQ(odd.why,
            "weak scaling's global batch, 500 x 48 / 128 GPUs, is not a whole number of "
            "sequences");
  EXPECT_EQ(setup_at(weak500, 64).job.training.global_batch, 250);
}

TEST(SplitCurve, SpeedupAndEfficiencyAreAgainstTheSmallestCountThatFits) {
  const SplitCurveSetup setup = ExampleSetup("llama3.1-70b-h100");
  const std::vector<std::int64_t> grid = {32, 64, 128, 256, 1024};
  const SplitCurve curve = split_curve(setup, grid);
  ASSERT_EQ(curve.rows.size(), grid.size());
  EXPECT_TRUE(curve.degrees_fixed);
  // 32 and 64 GPUs (dp 1 and 2) do not fit an H100: the base is 128.
  EXPECT_FALSE(curve.rows[0].fits());
  EXPECT_FALSE(curve.rows[1].fits());
  EXPECT_FALSE(curve.rows[1].speedup);
  ASSERT_EQ(curve.base_gpus, 128);
  const SplitStep& base = *curve.rows[2].step;
  // The base is the scenario's own split, evaluated as predict does.
  const SplitStep own = evaluate_split(setup.job, setup.constraints.defaults(setup.job.framework));
  EXPECT_EQ(base.step_s, own.step_s);
  for (std::size_t i = 2; i < curve.rows.size(); ++i) {
    const SplitCurveRow& row = curve.rows[i];
    ASSERT_TRUE(row.fits());
    EXPECT_EQ(row.step->split.dp, row.gpus / 32);
    EXPECT_DOUBLE_EQ(*row.speedup, base.step_s / row.step->step_s);
    EXPECT_DOUBLE_EQ(*row.efficiency, *row.speedup * 128 / static_cast<double>(row.gpus));
    // What the binding weighs adds up to the step less compute, recompute and optimizer.
    const SplitStep& s = *row.step;
    EXPECT_NEAR(lost_time(s).total(), s.step_s - s.compute_s - s.recompute_s - s.optimizer_s,
                1e-9 * s.step_s);
  }
  EXPECT_EQ(*curve.rows[2].efficiency, 1.0);
  EXPECT_FALSE(curve.knee_gpus);
}

TEST(SplitCurve, OpenDegreesTakeTheBestSplitAtEachCount) {
  const SplitCurveSetup setup = ExampleSetup("gpt3-175b-a100-plan");
  const std::vector<std::int64_t> grid = {12, 256, 512};
  const SplitCurve curve = split_curve(setup, grid);
  EXPECT_FALSE(curve.degrees_fixed);
  // 12 GPUs fill no whole node of 8: the row says why, as plan would.
  EXPECT_FALSE(curve.rows[0].step);
  EXPECT_EQ(curve.rows[0].why, "the 12 GPUs do not fill whole nodes of 8");
  for (std::size_t i = 1; i < grid.size(); ++i) {
    const SplitSearch best = search_splits(setup.job, grid[i], setup.constraints, 1);
    ASSERT_FALSE(best.ranked.empty());
    EXPECT_EQ(curve.rows[i].step->step_s, best.ranked.front().step_s);
  }
  EXPECT_EQ(curve.base_gpus, 256);
}

TEST(SplitCurve, AGridMustAscend) {
  const SplitCurveSetup setup = ExampleSetup("llama3.1-70b-h100");
  const std::vector<std::int64_t> down = {256, 128};
  EXPECT_EQ(input_error_of([&] { split_curve(setup, down); }),
            "GPU counts must ascend: 128 follows 256");
  EXPECT_EQ(input_error_of([&] { split_curve(setup, {}); }), "no GPU counts to predict");
}

}  // namespace
}  // namespace scalewall
