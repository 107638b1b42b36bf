// Implementation of scalewall/model/split_variance.h.
#include "scalewall/model/split_variance.h"

#include <algorithm>

#include "scalewall/model/straggler.h"

namespace scalewall {

void add_slow_node(const TransformerJob& job, SplitStep& step) {
  const std::int64_t gpus = step.split.gpus();
  if (gpus < 2) return;
  const double before = step.variance_s;
  const double f = job.bad_node_slowdown;
  if (f > 1.0) {
    const double compute = step.compute_s + step.recompute_s;
    const std::int64_t g = std::min(gpus, job.fabric.ranks_per_node);
    const double bad = (f - 1.0) * compute +
                       f * job.sigma * expected_max_standard_normal(g) * compute;
    step.variance_s = std::max(step.variance_s, bad);
  }
  if (job.bad_link_bandwidth_Bps > 0) {
    TransformerJob slow = job;
    slow.sigma = 0;
    slow.bad_node_slowdown = 1.0;
    slow.bad_link_bandwidth_Bps = 0;
    const double rate = job.bad_link_bandwidth_Bps;
    const auto degrade = [rate](LinkRegime& r) {
      r.bandwidth_Bps = std::min(r.bandwidth_Bps, rate);
    };
    if (gpus > job.fabric.ranks_per_node) {
      slow.fabric.inter = slow.fabric.inter.each_regime(degrade);
    } else {
      slow.fabric.intra = slow.fabric.intra.each_regime(degrade);
    }
    const SplitStep degraded = evaluate_split(slow, step.split);
    const double healthy = step.step_s - before;  // the step without any variance
    step.variance_s += std::max(0.0, degraded.step_s - healthy);
  }
  step.step_s += step.variance_s - before;
}

}  // namespace scalewall
