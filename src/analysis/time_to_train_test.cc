// Tests of scalewall/analysis/time_to_train.h: a run's steps, days, GPU-hours and cost in
// closed form, the checkpoint's size and interval, and the three stages it separates.
#include "scalewall/analysis/time_to_train.h"

#include <gtest/gtest.h>

#include <cmath>

#include "scalewall/model/transformer.h"
#include "test_support.h"

namespace scalewall {
namespace {

// The split tp 2 x pp 4 x dp 4 of `job`.
SplitStep step_of(const TransformerJob& job) {
  const SplitStep r = evaluate_split(job, tp2_pp4_dp4_full_recompute());
  EXPECT_EQ(r.problem, SplitProblem::kNone);
  return r;
}

// A run that writes checkpoints at `write_Bps` per node, nothing else given.
TrainingRun checkpointed(double write_Bps) {
  TrainingRun run;
  run.checkpoint.given = true;
  run.checkpoint.write_bandwidth_Bps = write_Bps;
  return run;
}

TEST(TimeToTrain, DaysAreStepsTimesTheStepWhenNothingIsLost) {
  TransformerJob job = gpt_1p7b_on_a100();
  job.sigma = 0.02;
  const SplitStep step = step_of(job);
  TrainingRun run;
  run.tokens = 300e9;
  run.gpu_hour_cost = 2.0;
  const TimeToTrain t = time_to_train(job, run, step);
  // 512 sequences of 2,048 tokens a step: ceil(300e9 / 1,048,576) = 286,103 steps.
  EXPECT_EQ(t.tokens_per_step, 1048576.0);
  EXPECT_EQ(*t.steps, 286103.0);
  EXPECT_EQ(t.gpus, 32);
  EXPECT_DOUBLE_EQ(t.ideal.step_s, step.step_s - step.variance_s);
  EXPECT_DOUBLE_EQ(t.with_variance.step_s, step.step_s);
  EXPECT_EQ(t.goodput.goodput, 1.0);
  EXPECT_DOUBLE_EQ(*t.with_goodput.days, 286103.0 * step.step_s / 86400.0);
  EXPECT_DOUBLE_EQ(*t.with_variance.days, *t.with_goodput.days);
  EXPECT_DOUBLE_EQ(*t.ideal.days, 286103.0 * t.ideal.step_s / 86400.0);
  EXPECT_DOUBLE_EQ(*t.with_goodput.gpu_hours, *t.with_goodput.days * 24.0 * 32.0);
  EXPECT_DOUBLE_EQ(*t.with_goodput.cost, *t.with_goodput.gpu_hours * 2.0);
  EXPECT_LT(*t.ideal.days, *t.with_variance.days);  // sigma 2% costs time
}

TEST(TimeToTrain, WithoutTokensThereAreNoDays) {
  const TransformerJob job = gpt_1p7b_on_a100();
  TrainingRun run = checkpointed(1e9);
  run.checkpoint.interval_steps = 100;
  const TimeToTrain t = time_to_train(job, run, step_of(job));
  EXPECT_FALSE(t.steps);
  EXPECT_FALSE(t.with_goodput.days);
  EXPECT_FALSE(t.with_goodput.gpu_hours);
  EXPECT_LT(t.goodput.goodput, 1.0);
  EXPECT_GT(t.goodput.goodput, 0.0);
}

TEST(TimeToTrain, TheCheckpointIsFourteenBytesAParameterUnlessGiven) {
  const TransformerJob job = gpt_1p7b_on_a100();
  const SplitStep step = step_of(job);
  TrainingRun run = checkpointed(1e9);  // per node: 4 nodes write
  run.tokens = 1e9;
  run.checkpoint.interval_steps = 50;
  TimeToTrain t = time_to_train(job, run, step);
  const double bytes = 14.0 * model_parameters(job.model);
  EXPECT_TRUE(t.bytes_derived);
  EXPECT_DOUBLE_EQ(t.checkpoint.bytes, bytes);
  EXPECT_DOUBLE_EQ(t.checkpoint.write_s, bytes / 4e9);
  EXPECT_DOUBLE_EQ(t.checkpoint_stall_s, bytes / 4e9);
  EXPECT_DOUBLE_EQ(t.interval_s, 50.0 * step.step_s);
  EXPECT_DOUBLE_EQ(t.goodput.goodput, 1.0 / (1.0 + t.checkpoint_stall_s / t.interval_s));
  run.checkpoint.bytes = 1e9;
  t = time_to_train(job, run, step);
  EXPECT_FALSE(t.bytes_derived);
  EXPECT_DOUBLE_EQ(t.checkpoint.write_s, 0.25);
}

TEST(TimeToTrain, AnIntervalInTimeIsRoundedToWholeSteps) {
  const TransformerJob job = gpt_1p7b_on_a100();
  const SplitStep step = step_of(job);
  TrainingRun run = checkpointed(1e9);
  run.checkpoint.interval_s = 10.4 * step.step_s;
  EXPECT_EQ(time_to_train(job, run, step).interval_steps, 10);
  run.checkpoint.interval_s = 0.1 * step.step_s;  // at least one step
  EXPECT_EQ(time_to_train(job, run, step).interval_steps, 1);
}

TEST(TimeToTrain, WithFailuresTheBestIntervalIsDalys) {
  const TransformerJob job = gpt_1p7b_on_a100();
  const SplitStep step = step_of(job);
  TrainingRun run = checkpointed(1e8);
  run.tokens = 1e12;
  run.failures.given = true;
  run.failures.gpu_mtbf_s = 50000.0 * 3600.0;
  run.failures.restart_s = 600;
  const TimeToTrain t = time_to_train(job, run, step);
  EXPECT_DOUBLE_EQ(t.job_mtbf_s, 50000.0 * 3600.0 / 32.0);
  EXPECT_DOUBLE_EQ(*t.best_interval_s, daly_interval_s(t.checkpoint.write_s, t.job_mtbf_s));
  EXPECT_DOUBLE_EQ(*t.young_interval_s, young_interval_s(t.checkpoint.write_s, t.job_mtbf_s));
  EXPECT_TRUE(t.interval_is_best);
  EXPECT_EQ(t.interval_steps, std::llround(*t.best_interval_s / step.step_s));
  EXPECT_GT(t.goodput.goodput, 0.0);
  EXPECT_LT(t.goodput.goodput, 1.0);
  EXPECT_DOUBLE_EQ(*t.with_goodput.days, *t.steps * step.step_s / t.goodput.goodput / 86400.0);
  EXPECT_DOUBLE_EQ(t.goodput.expected_failures, t.goodput.wall_s / t.job_mtbf_s);
}

TEST(TimeToTrain, AnAsyncCheckpointStallsForTheHostCopyAndWhatTheWriteOverruns) {
  const TransformerJob job = gpt_1p7b_on_a100();
  const SplitStep step = step_of(job);
  TrainingRun run = checkpointed(1e8);
  run.checkpoint.async = true;
  run.checkpoint.interval_steps = 1000000;
  TimeToTrain t = time_to_train(job, run, step);
  const double bytes = 14.0 * model_parameters(job.model);
  EXPECT_DOUBLE_EQ(t.checkpoint_stall_s, bytes / 32.0 / kDefaultHostCopyBps);
  run.checkpoint.interval_steps = 1;  // the write (about 60 s) overruns a step
  t = time_to_train(job, run, step);
  EXPECT_DOUBLE_EQ(t.checkpoint_stall_s, bytes / 32.0 / kDefaultHostCopyBps +
                                             (t.checkpoint.write_s - step.step_s));
  // The best interval of an async write leaves the write (about 580 s) time to finish: the
  // 11 ms host copy alone would give Daly's 260 s.
  run.checkpoint.interval_steps.reset();
  run.checkpoint.write_bandwidth_Bps = 1e7;
  run.failures.given = true;
  run.failures.gpu_mtbf_s = 1e8;
  run.failures.restart_s = 60;
  t = time_to_train(job, run, step);
  EXPECT_LT(*t.best_interval_s, t.checkpoint.write_s);
  EXPECT_GE(t.interval_s, t.checkpoint.write_s);
  EXPECT_LT(t.interval_s, t.checkpoint.write_s + step.step_s);
  EXPECT_DOUBLE_EQ(t.checkpoint_stall_s, t.checkpoint.stall_s);
}

TEST(TimeToTrain, ARunThatCannotCatchUpHasNoDays) {
  const TransformerJob job = gpt_1p7b_on_a100();
  TrainingRun run = checkpointed(1e9);
  run.tokens = 1e12;
  run.checkpoint.interval_steps = 100;
  run.failures.given = true;
  run.failures.gpu_mtbf_s = 3200;  // 100 s for the job's 32 GPUs
  run.failures.restart_s = 600;
  const TimeToTrain t = time_to_train(job, run, step_of(job));
  EXPECT_FALSE(t.goodput.finishes);
  EXPECT_EQ(t.goodput.goodput, 0.0);
  EXPECT_FALSE(t.with_goodput.days);
  EXPECT_TRUE(t.with_variance.days);
}

}  // namespace
}  // namespace scalewall
