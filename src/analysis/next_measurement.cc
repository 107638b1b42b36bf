// Implementation of scalewall/analysis/next_measurement.h's measurement order.
#include "scalewall/analysis/next_measurement.h"

#include <fmt/format.h>

#include <algorithm>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

// A thousand iterations: enough barriers for the tail of the arrival spread, not only its
// mean (the slowest of N ranks is a tail quantity).
constexpr std::int64_t kSpreadIterations = 1000;

}  // namespace

std::vector<OrderedMeasurement> measurement_order(std::int64_t ranks,
                                                  std::int64_t ranks_per_node) {
  if (ranks < 1 || ranks_per_node < 1) {
    throw InputError(fmt::format("a measurement order needs at least one rank (got {} ranks, "
                                 "{} per node)",
                                 ranks, ranks_per_node));
  }
  std::vector<OrderedMeasurement> order;
  order.push_back({MeasurementStage::kStepSplit,
                   "the step split into compute, communication and wait",
                   {harness_run(HarnessMode::kStep, ranks,
                                "compute, communication and wait per rank and step")},
                   "which of the three grew with the rank count; a share that is invisible in "
                   "utilisation shows here"});
  HarnessRun arrival = harness_run(HarnessMode::kArrival, ranks,
                                   "the zero-byte collective (latency) and the per-rank "
                                   "arrival spread (variance)");
  arrival.iterations = kSpreadIterations;
  order.push_back(
      {MeasurementStage::kCollective,
       "the collective's time alone, then its variance",
       {harness_run(HarnessMode::kCollective, ranks, "the collective alone, against 2m/busbw"),
        arrival},
       "bandwidth if the collective alone is near 2m/busbw; latency if the zero-byte collective "
       "grew with the rank count; variance if the arrival spread exceeds it"});
  order.push_back({MeasurementStage::kPerRank,
                   "the per-rank distribution",
                   {},
                   "the per-rank step and arrival times of the runs above: every barrier waits "
                   "for the slowest rank, so a slow rank or host (and the tail of the "
                   "distribution, sampled deeper as ranks double) sets the step"});
  const std::int64_t group = std::min(ranks, ranks_per_node);
  HarnessRun inside = harness_run(HarnessMode::kCollective, group, "inside one node");
  inside.placement = RankPlacement::kOneNode;
  HarnessRun across = harness_run(HarnessMode::kCollective, group, "one rank per node");
  across.placement = RankPlacement::kOneRankPerNode;
  order.push_back({MeasurementStage::kPlacement, "placement", {inside, across},
                   "the ratio of the two is the intra- vs inter-node asymmetry"});
  return order;
}

NextMeasurement order_runs(const std::vector<OrderedMeasurement>& order) {
  NextMeasurement next;
  for (const OrderedMeasurement& m : order) {
    next.runs.insert(next.runs.end(), m.runs.begin(), m.runs.end());
  }
  return next;
}

std::string placement_asymmetry_words(std::int64_t ranks_per_node) {
  return fmt::format(
      "compare the collective at {0} ranks inside one node with the same collective at {0} "
      "ranks one per node: their ratio is the intra- vs inter-node asymmetry (intra-node "
      "links are about an order of magnitude faster), and doubling the node count puts more "
      "of the traffic on the slow path even when nothing else changes",
      ranks_per_node);
}

}  // namespace scalewall
