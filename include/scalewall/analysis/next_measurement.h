// scalewall/analysis/next_measurement.h: a measurement that diagnosis, planning or an
// efficiency-drop explanation suggests running next, as a typed value. The command-line tool
// renders it as `mpirun -np N scalewall-mpi <mode> ...` lines; the library names no program
// and no flag.
#ifndef SCALEWALL_NEXT_MEASUREMENT_H_
#define SCALEWALL_NEXT_MEASUREMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scalewall/model/collective.h"

namespace scalewall {

// The measurement harness's modes (scalewall-mpi's subcommands).
enum class HarnessMode {
  kStep,        // compute, communication and wait per rank and step
  kArrival,     // a zero-byte collective and per-rank arrival times
  kCollective,  // one collective timed alone over a size sweep
  kPingPong,    // one-way times between pairs of ranks
};

// Where the launcher puts a run's ranks.
enum class RankPlacement {
  kAny,             // the launcher's default
  kOneNode,         // every rank on one node: only the intra-node link
  kOneRankPerNode,  // each rank on its own node: every message crosses the fabric
};

// One run of the harness at `ranks` ranks.
struct HarnessRun {
  HarnessMode mode = HarnessMode::kStep;
  std::int64_t ranks = 1;
  RankPlacement placement = RankPlacement::kAny;
  // kCollective: the op, timed with the MPI library's own algorithm choice.
  Op op = Op::kAllreduce;
  // kCollective: a sweep of this one size only (the smallest and largest size both), instead
  // of the harness's default sweep.
  std::optional<double> bytes;
  // kArrival: iterations instead of the harness's default.
  std::optional<std::int64_t> iterations;
  // kPingPong: every pair of ranks instead of one pair.
  bool all_pairs = false;
  std::string purpose;  // what the run shows, in words
};

// A run of `mode` at `ranks` ranks, for `purpose`, with the harness's defaults otherwise.
inline HarnessRun harness_run(HarnessMode mode, std::int64_t ranks, std::string purpose) {
  HarnessRun run;
  run.mode = mode;
  run.ranks = ranks;
  run.purpose = std::move(purpose);
  return run;
}

// Runs to make in order; when there are none, `otherwise` says what to do instead (or that
// nothing is left to measure; empty when there is nothing to say).
struct NextMeasurement {
  std::vector<HarnessRun> runs;
  std::string otherwise;
};

// ---- The measurement order ----
//
// What to measure, in order, when a job's efficiency falls as ranks are added (the
// collective-cost note's measurement order, its interview question's strong answer):
//   1. the step split into compute, communication and wait (which of the three grew);
//   2. the collective alone, against 2m/busbw (bandwidth), and its variance: the zero-byte
//      collective (latency) and the per-rank arrival spread at the barrier;
//   3. the per-rank distribution of step and arrival times: the slowest ranks and hosts,
//      which every barrier waits for (no new run: the records of 1 and 2 hold it);
//   4. placement: the same collective inside one node and with one rank per node; their
//      ratio is the intra- vs inter-node asymmetry, which more nodes put on the path of
//      more of the traffic.

enum class MeasurementStage { kStepSplit, kCollective, kPerRank, kPlacement };

struct OrderedMeasurement {
  MeasurementStage stage = MeasurementStage::kStepSplit;
  std::string what;               // "the step split into compute, communication and wait"
  std::vector<HarnessRun> runs;   // the runs that show it; empty for kPerRank
  std::string look_at;            // what to read in the results, in words
};

// The ranks per node assumed where none is known: the 8 accelerators of a common training
// node (the DGX example fabric). The placement comparison needs a count that fits in one
// node and spans several when spread one per node; any node's count does.
inline constexpr std::int64_t kTypicalRanksPerNode = 8;

// The four stages at `ranks` ranks; the placement runs use `ranks_per_node` ranks (at most
// `ranks`). REQUIRES: ranks >= 1, ranks_per_node >= 1.
std::vector<OrderedMeasurement> measurement_order(
    std::int64_t ranks, std::int64_t ranks_per_node = kTypicalRanksPerNode);

// Every run of `order`, in order.
NextMeasurement order_runs(const std::vector<OrderedMeasurement>& order);

// What the placement stage compares, in words: the intra- vs inter-node asymmetry.
std::string placement_asymmetry_words(std::int64_t ranks_per_node);

}  // namespace scalewall

#endif  // SCALEWALL_NEXT_MEASUREMENT_H_
