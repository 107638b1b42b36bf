// scalewall/analysis/efficiency_drop.h: the whole answer to an efficiency drop between two
// rank counts of the same problem (the collective-cost note's interview question, seed D01's
// drill 5): which mechanisms could explain it (explain_efficiency_drop, predict.h), what to
// measure in which order (next_measurement.h's measurement order), the intra- vs inter-node
// comparison, and the remedies ranked, communication-computation overlap first.
#ifndef SCALEWALL_EFFICIENCY_DROP_H_
#define SCALEWALL_EFFICIENCY_DROP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "scalewall/analysis/next_measurement.h"
#include "scalewall/analysis/predict.h"
#include "scalewall/model/step_model.h"

namespace scalewall {

// One remedy, with the mechanisms whose cost it cuts and what it costs in turn.
struct RankedRemedy {
  std::string remedy;                // what to do, in words
  std::vector<Mechanism> addresses;  // the mechanisms whose cost it cuts
  std::string cost;                  // its own price
  bool addresses_a_fit = false;      // it cuts a mechanism that can explain this drop
};

// The remedies in the note's rank order, whatever the drop: overlap first (the single
// highest-value change in most jobs), then hierarchical collectives, placement, a larger
// per-device batch, uniform ranks, compression, and a change of decomposition.
std::vector<RankedRemedy> ranked_remedies(const std::vector<Explanation>& explanations);

struct EfficiencyDropAnswer {
  std::vector<Explanation> explanations;   // explain_efficiency_drop's, one per shape
  std::vector<OrderedMeasurement> order;   // measurement_order at the larger rank count
  std::string asymmetry;                   // what to compare inside a node and across nodes
  std::vector<RankedRemedy> remedies;      // ranked_remedies(explanations)
  NextMeasurement next_measurement;        // order_runs(order)
};

// REQUIRES: as explain_efficiency_drop (throws InputError).
EfficiencyDropAnswer answer_efficiency_drop(std::int64_t n1, double e1, std::int64_t n2,
                                            double e2);

}  // namespace scalewall

#endif  // SCALEWALL_EFFICIENCY_DROP_H_
