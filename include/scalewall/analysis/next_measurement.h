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

// One run of the harness at `ranks` ranks.
struct HarnessRun {
  HarnessMode mode = HarnessMode::kStep;
  std::int64_t ranks = 1;
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

}  // namespace scalewall

#endif  // SCALEWALL_NEXT_MEASUREMENT_H_
