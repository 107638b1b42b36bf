// scalewall/present/train_tables.h: a training run of one split (time_to_train.h) as report
// fields and a table, for `predict` and `plan` on a transformer scenario with training.tokens,
// [checkpoint], [failures], system.gpu_hour_cost or a bad node or link.
//
// The JSON names are a contract: step_ideal_s, step_with_variance_s, goodput, days, gpu_hours,
// cost (only with gpu_hour_cost), best_checkpoint_interval_s, checkpoint_stall_s,
// expected_failures; beside them tokens, steps, checkpoint_bytes, checkpoint_write_s,
// checkpoint_interval_steps, checkpoint_interval_s, job_mtbf_s, checkpoint_stalls_total_s and
// failure_loss_total_s. A figure the scenario cannot give is null (days without tokens, the
// best interval without failures) and its line says what it needs.
#ifndef SCALEWALL_TRAIN_TABLES_H_
#define SCALEWALL_TRAIN_TABLES_H_

#include "scalewall/analysis/time_to_train.h"
#include "scalewall/present/report.h"

namespace scalewall {

// Table "run": one row per stage, the ideal step, the step with variance and the wall time
// with checkpoints and failures, each with its time per step, days, GPU-hours (and cost).
Table run_table(const TimeToTrain& run);

// The table, the fields above and a note on how the three stages differ.
void add_time_to_train(Report& report, const TimeToTrain& run);

}  // namespace scalewall

#endif  // SCALEWALL_TRAIN_TABLES_H_
