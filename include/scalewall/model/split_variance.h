// scalewall/model/split_variance.h: a bad node and a degraded link in a transformer's step
// (docs/models.md, "Variance, a bad node and a bad link in a split"), the data-parallel step
// model's variance (step_model.h) on a split.
//
// The step waits for its slowest rank. Per-GPU jitter sigma costs sigma E[M_N] C (parallel_step.h,
// C = compute + recompute of the slowest stage). One node whose GPUs run f >= 1 times slower
// costs (f - 1) C + f sigma E[M_g] C, g the GPUs of a node the job uses: its stage's micro-batch
// compute grows by f, and a 1F1B pipeline whose one stage is slower by d per micro-batch takes
// m d longer (the m micro-batches pass the slow stage one after another; the fill and drain
// pass it once), so the bubble does not grow with it. The larger of the two is charged (a bound
// on the expected maximum of the two groups). A degraded link, one node's link at a lower
// rate, paces every collective and transfer that crosses it: the split is priced again with
// the fabric's inter-node link (the intra-node link when the job holds one node) at that rate,
// and what the step gains is charged as variance too.
#ifndef SCALEWALL_SPLIT_VARIANCE_H_
#define SCALEWALL_SPLIT_VARIANCE_H_

#include "scalewall/model/parallel_step.h"

namespace scalewall {

// Adds the bad node's and the degraded link's time to `step`'s variance_s and step_s, as the
// header says, when job.bad_node_slowdown > 1 or job.bad_link_bandwidth_Bps > 0 (nothing
// otherwise). REQUIRES: `step` is evaluate_split's, before its throughput is derived from
// step_s; a job of at least 2 GPUs for any change.
void add_slow_node(const TransformerJob& job, SplitStep& step);

}  // namespace scalewall

#endif  // SCALEWALL_SPLIT_VARIANCE_H_
