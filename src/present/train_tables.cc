// Implementation of scalewall/present/train_tables.h.
#include "scalewall/present/train_tables.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "scalewall/base/units.h"

namespace scalewall {
namespace {

Value value_of(const std::optional<double>& v) { return v ? Value{*v} : Value{}; }

// "with checkpoints and failures (goodput 92.3%)", or what the run leaves out.
std::string goodput_stage_name(const TimeToTrain& t) {
  std::string losses;
  if (t.checkpoints && t.failures) {
    losses = "checkpoints and failures";
  } else if (t.checkpoints) {
    losses = "checkpoints";
  } else if (t.failures) {
    losses = "failures";
  } else {
    losses = "no checkpoints or failures";
  }
  if (!t.goodput.finishes) return fmt::format("with {} (never finishes)", losses);
  return fmt::format("with {} (goodput {})", losses, format_percent(t.goodput.goodput));
}

// What the days and GPU-hours lack when they are null.
std::string run_length_missing(const TimeToTrain& t) {
  if (!t.tokens) return "needs training.tokens";
  return "never: a failure loses its restart and half an interval, more than the job's MTBF";
}

}  // namespace

Table run_table(const TimeToTrain& t) {
  const bool cost = t.gpu_hour_cost.has_value();
  Table table{"run",
              {{"stage", "stage", Unit::kText},
               {"step_s", "time per step", Unit::kSeconds},
               {"days", "days", Unit::kPlain},
               {"gpu_hours", "GPU-hours", Unit::kCount}},
              {},
              {}};
  if (cost) table.columns.push_back({"cost", "cost", Unit::kCount});
  const auto add = [&](std::string name, const RunStage& s, bool has_step) {
    std::vector<Value> row = {std::move(name), has_step ? Value{s.step_s} : Value{},
                              value_of(s.days), value_of(s.gpu_hours)};
    if (cost) row.push_back(value_of(s.cost));
    table.add_row(std::move(row));
  };
  add("ideal (no variance)", t.ideal, true);
  add("with variance", t.with_variance, true);
  add(goodput_stage_name(t), t.with_goodput, t.goodput.finishes);
  return table;
}

void add_time_to_train(Report& r, const TimeToTrain& t) {
  r.tables.push_back(run_table(t));
  const std::string missing = run_length_missing(t);
  r.add_field("step_ideal_s", "ideal step (no variance)", Unit::kSeconds, t.ideal.step_s);
  r.add_field("step_with_variance_s", "step with variance", Unit::kSeconds,
              t.with_variance.step_s);
  r.add_field("goodput", "goodput (useful time / wall time)", Unit::kFraction,
              t.goodput.goodput);
  r.add_field("tokens", "tokens", Unit::kCount, value_of(t.tokens), "not given");
  r.add_field("steps", "steps to train", Unit::kCount, value_of(t.steps), "needs training.tokens");
  r.add_field("days", "days to train (wall clock)", Unit::kPlain, value_of(t.with_goodput.days),
              missing);
  r.add_field("gpu_hours", "GPU-hours", Unit::kCount, value_of(t.with_goodput.gpu_hours),
              missing);
  if (t.gpu_hour_cost) {
    r.add_field("cost", fmt::format("cost (at {:g} per GPU-hour)", *t.gpu_hour_cost),
                Unit::kCount, value_of(t.with_goodput.cost), missing);
  }
  const auto if_checkpoints = [&](double v) { return t.checkpoints ? Value{v} : Value{}; };
  r.add_field("checkpoint_bytes",
              t.bytes_derived ? "checkpoint size (14 B per parameter)" : "checkpoint size",
              Unit::kBytes, if_checkpoints(t.checkpoint.bytes), "no checkpoints");
  r.add_field("checkpoint_write_s", "checkpoint write", Unit::kSeconds,
              if_checkpoints(t.checkpoint.write_s), "no checkpoints");
  r.add_field("checkpoint_interval_steps",
              t.interval_is_best ? "checkpoint interval (the best, in steps)"
                                 : "checkpoint interval (steps)",
              Unit::kCount, t.checkpoints ? Value{t.interval_steps} : Value{}, "no checkpoints");
  r.add_field("checkpoint_interval_s", "checkpoint interval", Unit::kSeconds,
              if_checkpoints(t.interval_s), "no checkpoints");
  r.add_field("checkpoint_stall_s", "stall per checkpoint", Unit::kSeconds, t.checkpoint_stall_s);
  r.add_field("best_checkpoint_interval_s", "best checkpoint interval (Daly 2006)",
              Unit::kSeconds, value_of(t.best_interval_s), "needs [checkpoint] and [failures]");
  r.add_field("job_mtbf_s", "job MTBF (gpu_mtbf / GPUs)", Unit::kSeconds,
              t.failures ? Value{t.job_mtbf_s} : Value{}, "no failures");
  r.add_field("expected_failures", "expected failures", Unit::kPlain,
              t.steps && t.goodput.finishes ? Value{t.goodput.expected_failures} : Value{},
              missing);
  r.add_field("checkpoint_stalls_total_s", "all checkpoint stalls", Unit::kSeconds,
              t.steps ? Value{t.goodput.stall_total_s} : Value{}, "needs training.tokens");
  r.add_field("failure_loss_total_s", "all failures' losses", Unit::kSeconds,
              t.steps && t.goodput.finishes ? Value{t.goodput.failure_loss_s} : Value{},
              missing);
  r.notes.push_back(
      "run: the ideal step leaves out variance (jitter, a bad node, a bad link); the step with "
      "variance is the split's; goodput = useful time / wall time, the wall time adding each "
      "checkpoint's stall and each failure's restart and lost work (half an interval; an async "
      "write's time too). days = steps x time per step / 86,400; GPU-hours = days x 24 x GPUs.");
}

}  // namespace scalewall
