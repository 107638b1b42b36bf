// Implementation of scalewall/analysis/efficiency_drop.h.
#include "scalewall/analysis/efficiency_drop.h"

#include <algorithm>

namespace scalewall {

std::vector<RankedRemedy> ranked_remedies(const std::vector<Explanation>& explanations) {
  using M = Mechanism;
  std::vector<RankedRemedy> remedies = {
      {"overlap communication with computation: bucket the gradients so that the layers "
       "whose gradients are ready are reduced while the backward pass is still running",
       {M::kBandwidth, M::kLatency},
       "complicates the training loop and the memory profile"},
      {"hierarchical collectives: reduce inside each node over the fast link, then across "
       "nodes, so one reduced payload per node crosses the fabric",
       {M::kBandwidth, M::kLatency},
       "configuration and a dependency on the topology"},
      {"topology-aware placement: keep each reduction group inside a node, ranks in whole "
       "nodes",
       {M::kBandwidth, M::kLatency},
       "cluster utilisation: reserved whole nodes leave fragments idle"},
      {"a larger per-device batch or gradient accumulation: more compute per byte and per "
       "collective",
       {M::kSerial, M::kBandwidth, M::kLatency},
       "changes the optimisation problem; the learning rate may need re-tuning"},
      {"uniform ranks: health checks before the job, pinned clocks, isolated cores, slow "
       "nodes drained",
       {M::kVariance},
       "operations work, and nodes taken out of the pool"},
      {"compress the reduction or lower its precision",
       {M::kBandwidth},
       "touches the numerics: validate against convergence"},
      {"change the decomposition: tensor or pipeline parallelism moves the communication to a "
       "smaller boundary",
       {M::kBandwidth, M::kLatency},
       "a new parallel layout to build, balance and tune"},
  };
  for (RankedRemedy& r : remedies) {
    for (const Explanation& e : explanations) {
      if (e.can_explain && std::find(r.addresses.begin(), r.addresses.end(), e.mechanism) !=
                               r.addresses.end()) {
        r.addresses_a_fit = true;
      }
    }
  }
  return remedies;
}

EfficiencyDropAnswer answer_efficiency_drop(std::int64_t n1, double e1, std::int64_t n2,
                                            double e2) {
  EfficiencyDropAnswer a;
  a.explanations = explain_efficiency_drop(n1, e1, n2, e2);
  a.order = measurement_order(n2);
  a.asymmetry = placement_asymmetry_words(std::min(n2, kTypicalRanksPerNode));
  a.remedies = ranked_remedies(a.explanations);
  a.next_measurement = order_runs(a.order);
  return a;
}

}  // namespace scalewall
