// Implementation of scalewall/analysis/time_to_train.h.
#include "scalewall/analysis/time_to_train.h"

#include <algorithm>
#include <cmath>

#include "scalewall/base/error.h"
#include "scalewall/model/transformer.h"

namespace scalewall {
namespace {

constexpr double kSecondsPerDay = 86400.0;
constexpr double kSecondsPerHour = 3600.0;

// The stage whose run takes `wall_s` in all, `steps` steps of it.
RunStage stage_of(double step_s, std::optional<double> wall_s, const TrainingRun& run,
                  std::int64_t gpus) {
  RunStage s;
  s.step_s = step_s;
  if (!wall_s) return s;
  s.days = *wall_s / kSecondsPerDay;
  s.gpu_hours = *wall_s / kSecondsPerHour * static_cast<double>(gpus);
  if (run.gpu_hour_cost) s.cost = *s.gpu_hours * *run.gpu_hour_cost;
  return s;
}

// A whole number of steps, at least one, nearest to `seconds` of steps of `step_s`.
std::int64_t steps_in(double seconds, double step_s) {
  const double k = std::round(seconds / step_s);
  return k < 1.0 ? 1 : static_cast<std::int64_t>(std::min(k, 1e15));
}

// The checkpoint's size, cost, interval and stall into `t`.
void price_checkpoints(const TransformerJob& job, const TrainingRun& run, double step_s,
                       TimeToTrain& t) {
  const CheckpointPlan& plan = run.checkpoint;
  t.checkpoints = true;
  t.bytes_derived = !plan.bytes;
  const double bytes =
      plan.bytes.value_or(kCheckpointBytesPerParameter * model_parameters(job.model));
  t.checkpoint = checkpoint_cost(plan, bytes, t.gpus, job.fabric.ranks_per_node);
  if (t.failures) {
    // The stall the best interval weighs: the write, or async the host copy alone.
    t.best_interval_s = daly_interval_s(t.checkpoint.stall_s, t.job_mtbf_s);
    t.young_interval_s = young_interval_s(t.checkpoint.stall_s, t.job_mtbf_s);
  }
  if (plan.interval_steps) {
    t.interval_steps = *plan.interval_steps;
  } else if (plan.interval_s) {
    t.interval_steps = steps_in(*plan.interval_s, step_s);
  } else {
    SCALEWALL_CHECK(t.failures);
    double best = *t.best_interval_s;
    // An asynchronous write must end before the next one starts.
    if (plan.async) best = std::max(best, t.checkpoint.write_s);
    t.interval_is_best = true;
    t.interval_steps = steps_in(best, step_s);
    if (plan.async && static_cast<double>(t.interval_steps) * step_s < t.checkpoint.write_s) {
      t.interval_steps += 1;
    }
  }
  t.interval_s = static_cast<double>(t.interval_steps) * step_s;
  const double overrun = plan.async ? std::max(0.0, t.checkpoint.write_s - t.interval_s) : 0.0;
  t.checkpoint_stall_s = t.checkpoint.stall_s + overrun;
}

}  // namespace

TimeToTrain time_to_train(const TransformerJob& job, const TrainingRun& run,
                          const SplitStep& step) {
  SCALEWALL_CHECK(step.problem == SplitProblem::kNone);
  TimeToTrain t;
  t.gpus = step.split.gpus();
  t.tokens = run.tokens;
  t.gpu_hour_cost = run.gpu_hour_cost;
  t.tokens_per_step =
      static_cast<double>(job.training.global_batch) * static_cast<double>(job.model.seq);
  if (run.tokens) t.steps = std::ceil(*run.tokens / t.tokens_per_step);
  const double ideal_s = step.step_s - step.variance_s;
  const double step_s = step.step_s;
  const double useful_s = t.steps.value_or(0.0) * step_s;

  GoodputInputs in;
  in.useful_s = useful_s;
  if (run.failures.given) {
    t.failures = true;
    t.job_mtbf_s = job_mtbf_s(run.failures.gpu_mtbf_s, t.gpus);
    in.mtbf_s = t.job_mtbf_s;
    in.restart_s = run.failures.restart_s;
  }
  if (run.checkpoint.given) {
    price_checkpoints(job, run, step_s, t);
    in.interval_s = t.interval_s;
    in.stall_s = t.checkpoint_stall_s;
    if (run.checkpoint.async) in.exposed_write_s = std::min(t.checkpoint.write_s, t.interval_s);
  }
  t.goodput = goodput_of(in);

  const auto wall = [&](double per_step_s) -> std::optional<double> {
    if (!t.steps) return std::nullopt;
    return *t.steps * per_step_s;
  };
  t.ideal = stage_of(ideal_s, wall(ideal_s), run, t.gpus);
  t.with_variance = stage_of(step_s, wall(step_s), run, t.gpus);
  const bool whole = t.steps && t.goodput.finishes;
  t.with_goodput = stage_of(t.goodput.finishes ? step_s / t.goodput.goodput : 0.0,
                            whole ? std::optional<double>(t.goodput.wall_s) : std::nullopt, run,
                            t.gpus);
  return t;
}

}  // namespace scalewall
