// scalewall/analysis/split_curve.h: the scaling curve of a transformer scenario over several GPU
// counts: at each count one split (parallel_step.h), its step, throughput, speedup and
// efficiency against the smallest count that fits, its binding mechanism, and the curve's knee
// and cliffs (curve_shape.h).
//
// The split at N GPUs:
//   degrees fixed (tp, pp and dp given): the scenario's split scaled in data parallelism, tp and
//     pp as given, dp = N / (tp pp), every other open choice at its default
//     (SplitConstraints::defaults): at the scenario's own GPUs, the split predict evaluates;
//   otherwise: the best split of N GPUs (split_search.h) with dp open.
// The job at N GPUs (scaling):
//   strong: the global batch B as the scenario gives it;
//   weak:   B N / G, G the scenario's GPUs: the batch per data-parallel rank held where tp and
//           pp are (with fixed degrees always), the batch per GPU otherwise.
// speedup and efficiency, against the smallest count whose split fits (the base, N0):
//   strong: speedup = step(N0) / step(N)
//   weak:   speedup = tokens_per_s(N) / tokens_per_s(N0)
//   both:   efficiency = speedup N0 / N, the throughput per GPU against the base's.
// The knee: exposed communication (tp comm + pp transfer + dp comm, none of which the split
// model hides) at or above the compute (compute + recompute), at a count that is no cliff.
// Only counts whose split fits are points of the curve.
//
// Every figure is a model, not a measurement.
#ifndef SCALEWALL_SPLIT_CURVE_H_
#define SCALEWALL_SPLIT_CURVE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "scalewall/analysis/curve_shape.h"
#include "scalewall/model/parallel_step.h"
#include "scalewall/model/step_model.h"

namespace scalewall {

// What the curve holds: the scenario's job and choices at its own GPU count.
struct SplitCurveSetup {
  TransformerJob job;
  SplitConstraints constraints;
  std::int64_t gpus = 0;  // G, the scenario's GPUs (weak scaling's reference)
  ScalingMode mode = ScalingMode::kStrong;
};

// The job and the choices at N GPUs, or why nothing can run there before any split is tried
// ("the global batch 512 x 48 / 128 = 192 ..."): `why` is then not empty.
struct CountSetup {
  TransformerJob job;
  SplitConstraints constraints;  // with fixed degrees, dp = N / (tp pp); else dp open
  std::string why;
  // False when weak scaling's batch is not whole at N (`job` is then the scenario's); true
  // otherwise, also when `why` says tp pp does not divide N (`job` is then N's).
  bool batch_whole = true;
};
// REQUIRES: setup.gpus >= 1, gpus >= 1.
CountSetup setup_at(const SplitCurveSetup& setup, std::int64_t gpus);

struct SplitCurveRow {
  std::int64_t gpus = 0;
  std::int64_t global_batch = 0;   // the job's at this count (0 when not whole: see why)
  std::optional<SplitStep> step;   // empty when no split runs (why)
  std::string why;
  // Against the base (above); empty where the split does not fit or there is no base.
  std::optional<double> speedup;
  std::optional<double> efficiency;
  bool fits() const { return step && step->fits; }
};

struct SplitCurve {
  ScalingMode mode = ScalingMode::kStrong;
  bool degrees_fixed = false;
  std::vector<SplitCurveRow> rows;          // one per requested count, ascending
  std::optional<std::int64_t> base_gpus;    // N0; empty when no split fits
  std::optional<std::int64_t> knee_gpus;    // empty when not reached
  std::vector<Cliff> cliffs;                // rows that are cliffs, ascending
};

// The curve at `grid` (ascending, each >= 1). A count where no split runs is a row that says
// why. Throws InputError when the grid is empty or not ascending, and, for open degrees, when a
// search has more candidates than split_search.h allows (strong scaling: over the whole grid,
// as best_split_curve; weak: at each count, whose batch differs).
SplitCurve split_curve(const SplitCurveSetup& setup, std::span<const std::int64_t> grid);

// The time a split loses against pure compute, by the mechanisms its binding weighs
// (parallel_step.h's SplitBinding): serial, the latency and the bandwidth terms of its
// communication (tp comm + cp comm + ep comm + pp transfer + dp comm, the parts
// comm_latency_s takes its latency from), variance and the pipeline bubble.
struct SplitLoss {
  double serial_s = 0;
  double latency_s = 0;
  double bandwidth_s = 0;
  double variance_s = 0;
  double bubble_s = 0;
  double total() const { return serial_s + latency_s + bandwidth_s + variance_s + bubble_s; }
};
SplitLoss lost_time(const SplitStep& step);

// The exposed communication and the compute the knee compares (above).
double exposed_communication_s(const SplitStep& step);
double compute_time_s(const SplitStep& step);

}  // namespace scalewall

#endif  // SCALEWALL_SPLIT_CURVE_H_
