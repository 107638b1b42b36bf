// scalewall/analysis/time_to_train.h: a whole training run of one evaluated split: its steps,
// days, GPU-hours and cost, separated into the ideal step, the step with variance, and the
// wall time with checkpoints and failures (goodput.h). docs/models.md, "Time to train and
// goodput".
//
//   steps      ceil(tokens / (global batch x sequence))
//   ideal      the split's step without variance (step - variance_s)
//   variance   the step with jitter, the bad node and the bad link (split_variance.h)
//   goodput    useful time / wall time, with each checkpoint's stall and each failure's loss
//   days       wall / 86,400 s (= steps x step / 86,400 when nothing is lost)
//   GPU-hours  days x 24 x N;  cost  GPU-hours x the cost of one
// The checkpoint interval is a whole number of steps: the one given (a time rounded to whole
// steps, at least one), or else Daly's best interval so rounded; an asynchronous write must
// fit in its interval, so the best interval is at least the write.
//
// Every figure is a model, not a measurement.
#ifndef SCALEWALL_TIME_TO_TRAIN_H_
#define SCALEWALL_TIME_TO_TRAIN_H_

#include <cstdint>
#include <optional>

#include "scalewall/model/goodput.h"
#include "scalewall/model/parallel_step.h"

namespace scalewall {

// One stage of the run: its time per step and, with training.tokens, its days, GPU-hours and
// cost (with gpu_hour_cost).
struct RunStage {
  double step_s = 0;                  // wall time per step (goodput's: wall / steps)
  std::optional<double> days;
  std::optional<double> gpu_hours;
  std::optional<double> cost;
};

struct TimeToTrain {
  std::int64_t gpus = 0;
  std::optional<double> tokens;
  std::optional<double> gpu_hour_cost;  // as given: then every stage with days has a cost
  std::optional<double> steps;        // with tokens: whole steps
  double tokens_per_step = 0;         // global batch x sequence
  RunStage ideal;                     // the step without variance
  RunStage with_variance;             // the split's step
  RunStage with_goodput;              // wall time (empty days when the run never finishes)
  // Checkpoints (none: checkpoints false).
  bool checkpoints = false;
  bool bytes_derived = false;         // the size is parameters x 14 B, not given
  CheckpointCost checkpoint;          // bytes, the whole write, the stall without overrun
  std::int64_t interval_steps = 0;
  double interval_s = 0;              // interval_steps x the step with variance
  bool interval_is_best = false;      // no interval given: the best one, rounded to steps
  double checkpoint_stall_s = 0;      // each checkpoint's stall: the write, or async the host
                                      // copy and what the write overruns the interval by
  // Failures (none: failures false).
  bool failures = false;
  double job_mtbf_s = 0;
  std::optional<double> best_interval_s;   // Daly's, with failures and checkpoints
  std::optional<double> young_interval_s;  // Young's, beside it
  Goodput goodput;                    // goodput 1 with neither
};

// The run of `step` (evaluate_split's, for `job`) that `run` describes. Without tokens the
// goodput and the checkpoint figures stand and the days, GPU-hours, cost and expected failures
// are empty. REQUIRES: a step that can run (problem kNone); `run` valid as the scenario reader
// leaves it (positive rates, an interval or failures with checkpoints).
TimeToTrain time_to_train(const TransformerJob& job, const TrainingRun& run,
                          const SplitStep& step);

}  // namespace scalewall

#endif  // SCALEWALL_TIME_TO_TRAIN_H_
