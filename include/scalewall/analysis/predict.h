// scalewall/analysis/predict.h: a scaling curve, its knee and what bends it; what each remedy buys;
// and the capacity-planning answer (seed D01 sections 2.4, 2.5, 5 and 6; the
// collective-cost note).
//
// All of it is the step model of step_model.h evaluated at several rank counts: a model,
// not a measurement.
#ifndef SCALEWALL_PREDICT_H_
#define SCALEWALL_PREDICT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/analysis/curve_shape.h"
#include "scalewall/analysis/next_measurement.h"
#include "scalewall/model/step_model.h"

namespace scalewall {

// A rank count that does worse than a larger, regular one is a Cliff (curve_shape.h): the
// chosen algorithm folds (or otherwise pays for) a count that is not a power of two, so that
// the step at `ranks` is less efficient than at `regular_ranks`, the next power of two at or
// above it that the network takes (with a fabric whose ranks per node g is not a power of
// two, g times one). A cliff is a property of that one count, not of the curve: it is
// flagged, never called the knee.

// The step at one rank count under each all-reduce algorithm the automatic choice considers
// (the ones a library could pick), most efficient first.
struct AlgorithmOutcome {
  AlgorithmSpec algorithm;
  double step_s = 0;
  double efficiency = 0;
  bool chosen = false;  // the scenario's own choice (automatic or fixed)
};

struct Prediction {
  ScalingMode mode = ScalingMode::kStrong;
  std::vector<StepTime> rows;                // one per requested rank count, ascending
  // The smallest rank count at which exposed communication reaches the per-rank compute:
  // the knee of section 5.1, found on the grid and refined to the exact count by bisection.
  // A cliff (above) is not a knee: the knee is the smallest count past the threshold that is
  // no cliff. Empty when it is not reached up to the largest rank count.
  std::optional<std::int64_t> knee_ranks;
  std::vector<Cliff> cliffs;                 // requested rows that are cliffs, ascending
  // At the largest rank count, every algorithm's outcome (empty with a given bus bandwidth,
  // which already includes the library's choice, or at one rank).
  std::vector<AlgorithmOutcome> algorithm_spread;
  double target_efficiency = 0.5;
  // The largest rank count (up to the largest requested, one rank included) whose
  // efficiency is at or above the target, refined by bisection towards the next requested
  // count. Empty when no count reaches it (without checkpoints one rank always does: it is
  // 100% efficient).
  std::optional<std::int64_t> max_ranks_at_target;
  double best_bucket_bytes = 0;              // at the largest rank count, with overlap on
};

// REQUIRES: ranks non-empty, ascending, each valid for the scenario; 0 < target <= 1.
Prediction predict(const Scenario& scenario, std::span<const std::int64_t> ranks,
                   double target_efficiency = 0.5);

// The default grid: powers of two from 1 up to max_ranks, plus max_ranks itself; with a
// fabric, rank counts that do not fill whole nodes are left out.
std::vector<std::int64_t> default_rank_grid(const Scenario& scenario, std::int64_t max_ranks);

// The bucket the overlap remedy uses when the job sends one fused all-reduce: PyTorch DDP's
// default bucket_cap_mb of 25.
inline constexpr double kDefaultBucketBytes = 25e6;

// A gain below 1% is reported as none: the model is not that precise, and with overlap the
// last bucket always leaves a sliver of communication that any change can shave.
inline constexpr double kNegligibleGain = 0.01;

struct Remedy {
  std::string name;        // "overlap", "larger buckets" (or "smaller buckets"),
                           // "hierarchical", "packed placement",
                           // "compression", "accumulation", "bigger batch",
                           // "async checkpoint", "drain bad node", "all together"
  std::string change;      // what was changed, in words ("bucket 25 MB -> 256 MB")
  bool applicable = true;  // false when the scenario already has it or it cannot apply
  StepTime step;
  double time_per_work_s = 0;  // step_s / work: what a gain compares
  double gain = 1.0;           // baseline time per work / this time per work
};

struct WhatIf {
  std::int64_t ranks = 1;
  Remedy baseline;
  std::vector<Remedy> remedies;  // each alone, then "all together"; ranked by gain, highest
                                 // first (inapplicable ones last)
  // On a GPU fabric, the baseline under each selector ("selector nccl", "selector mpi"),
  // its gain against the baseline: a comparison of the two models, not a remedy. Empty
  // elsewhere.
  std::vector<Remedy> selectors;
  // "change the decomposition" (tensor, pipeline and sharded data parallelism): a data-parallel
  // scenario gives its compute as a time and carries neither the model's shape nor the GPU,
  // which the split search needs (split_search.h), so here the remedy never applies: its
  // `change` says what to add (a transformer scenario; predict --what-if on it ranks the
  // decomposition). Not among `remedies`: "all together" cannot include it.
  Remedy decomposition;
};

// The name of the decomposition remedy, and what a data-parallel scenario lacks for it.
inline constexpr std::string_view kChangeDecomposition = "change the decomposition";
inline constexpr std::string_view kDecompositionNeeds =
    "not applicable: needs the model's shape and the GPU (a transformer scenario, "
    "docs/scenarios.md); predict --what-if on one ranks the splits";

WhatIf what_if(const Scenario& scenario, std::int64_t ranks, const WhatIfOptions& options = {});

// The name of the remedy that applies every other at once (the last of WhatIf::remedies).
inline constexpr std::string_view kAllTogether = "all together";

// Whether `r` gains something: it applies and cuts the time per unit of work by at least
// kNegligibleGain.
inline bool gains(const Remedy& r) { return r.applicable && r.gain >= 1.0 + kNegligibleGain; }

// The first remedy to try: the highest-ranked single remedy (not "all together") that gains
// something; nullptr when none does.
inline const Remedy* first_remedy(const WhatIf& w) {
  for (const Remedy& r : w.remedies) {
    if (r.name != kAllTogether && gains(r)) return &r;
  }
  return nullptr;
}

// Whether `r` is a single remedy that applies but gains less than kNegligibleGain.
inline bool gains_nothing(const Remedy& r) {
  return r.name != kAllTogether && r.applicable && !gains(r);
}

// The capacity-planning answer at N ranks.
struct Plan {
  ScalingMode mode = ScalingMode::kStrong;
  StepTime at;                               // the step at N
  Prediction curve;                          // the sweep up to N (default grid)
  std::optional<std::int64_t> knee_ranks;
  std::int64_t ranks_at_90pct_best = 1;      // the smallest rank count in the sweep reaching
                                             // 90% of the best throughput (work per second)
  double best_throughput = 0;                // work per second, best in the sweep
  double idle_hours_per_1000_steps = 0;      // at N: N x step x (1 - efficiency) x 1000 / 3600
  double idle_hours_per_1000_steps_at_90pct = 0;
  NextMeasurement confirm_measurement;       // the run that would confirm the binding
                                             // mechanism
};

Plan plan(const Scenario& scenario, std::int64_t ranks);

// The seed's interview question: efficiency E1 at N1 and E2 at N2, same problem. For each
// mechanism, the two-parameter model 1/(N E(N)) = a/N + b f(N) through both points, with
// f = 1 (serial: Amdahl), f = log2 N (latency of a tree-like collective), f = 2(N-1) (latency
// of a ring), f = 2(N-1)/N (bandwidth), f = E[M_N] (variance). A mechanism can explain the
// drop when both a > 0 and b > 0; its implied parameter is reported in words.
struct Explanation {
  Mechanism mechanism = Mechanism::kSerial;
  std::string shape;           // the f(N) used, in words
  bool can_explain = false;
  double a = 0;
  double b = 0;
  std::string implied;         // "serial fraction 0.05%", ...
  NextMeasurement measurement;  // the run that would tell it apart (none for compute and
                                // checkpoint)
};

// REQUIRES: 1 <= N1 < N2, 0 < E <= 1.5 (throws InputError).
std::vector<Explanation> explain_efficiency_drop(std::int64_t n1, double e1, std::int64_t n2,
                                                 double e2);

}  // namespace scalewall

#endif  // SCALEWALL_PREDICT_H_
