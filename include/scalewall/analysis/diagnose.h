// scalewall/analysis/diagnose.h: the step model run backwards, from measurements to the mechanism
// (seed D01 sections 5.2 and 9; the collective-cost note's measurement order).
//
// Two kinds of evidence:
//  * a measured scaling table (rank counts with step times or throughputs): decide strong or
//    weak scaling, measure efficiency against the best baseline in the data, and fit the
//    mechanisms' shapes to the points;
//  * scalewall-mpi records (step, arrival, collective, pingpong): split time into compute,
//    communication and wait per rank, name outlier ranks, hosts and links, and compare the
//    measured collective with the model.
// Both end with the next measurement to run when the data leave the question open.
#ifndef SCALEWALL_DIAGNOSE_H_
#define SCALEWALL_DIAGNOSE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/analysis/next_measurement.h"
#include "scalewall/io/measurement.h"
#include "scalewall/io/scaling_table.h"
#include "scalewall/model/step_model.h"
#include "scalewall/model/topology.h"

namespace scalewall {

// ---- Scaling tables ----

// The shape each mechanism's cost takes in N, relative to the step at one rank:
//   compute    a / N (strong) or a (weak)
//   serial     s                      (strong only: in weak scaling it cannot be told from
//                                      compute)
//   latency    l log2 N               (a tree-like collective's step count)
//   bandwidth  b 2(N-1)/N             (a bandwidth-optimal all-reduce's bytes; weak only:
//                                      under strong scaling it is serial plus compute)
//   variance   v E[M_N]               (the slowest of N at a barrier, fixed per-step jitter)
struct MechanismShare {
  Mechanism mechanism = Mechanism::kSerial;
  double coefficient = 0;     // fitted, >= 0, in seconds per unit of its shape
  double lost_s = 0;          // its part of the time lost at the largest rank count
  double share = 0;           // lost_s / all lost time there, 0..1
};

struct ScalingDiagnosis {
  std::string source;
  ScalingMode mode = ScalingMode::kStrong;
  std::string mode_reason;              // how the mode was decided
  std::int64_t baseline_ranks = 1;      // the best baseline in the data
  std::int64_t largest_ranks = 1;
  double efficiency_at_largest = 1;     // against the baseline
  std::vector<std::string> warnings;    // superlinear points, a baseline above one rank, ...
  struct Row {
    std::int64_t ranks;
    double step_s;
    double efficiency;                  // against the baseline
    double fitted_step_s;
    double residual;                    // (measured - fitted) / measured
  };
  std::vector<Row> rows;
  double compute_coefficient = 0;       // a
  std::vector<MechanismShare> mechanisms;  // every mechanism the mode allows, fitted
  double rms_relative_residual = 0;
  // What the data cannot tell apart, in words: fewer points than parameters; shapes nearly
  // proportional over the measured rank counts; and, under strong scaling always, serial
  // against bandwidth (2(N-1)/N = 2 - 2/N is a constant plus a compute-like 1/N term, so a
  // bandwidth-optimal collective looks exactly like a serial part; the strong-scaling fit
  // reports both as "serial", and only timing the collective alone separates them).
  std::vector<std::string> cannot_separate;
  // The mechanisms that could be binding: the one with the largest share, with every
  // mechanism the data cannot tell from it. `binding` is set when that is a single one.
  std::vector<Mechanism> binding_candidates;
  std::optional<Mechanism> binding;
  NextMeasurement next_measurement;     // the measurement order at the largest N, step first
};

// REQUIRES: at least two points; all of one scaling mode (a table whose problem_size is
// neither constant nor proportional to N is refused, naming the rows that break the pattern).
ScalingDiagnosis diagnose_scaling(const ScalingTable& table);

// ---- scalewall-mpi measurements ----

struct RankSplit {
  std::int64_t rank = 0;
  std::string host;
  std::int64_t steps = 0;
  double compute_s = 0;        // mean per step
  double communication_s = 0;  // mean per step
  double wait_s = 0;           // mean per step
  double step_s = 0;           // mean per step
};

struct Outlier {
  std::string what;            // "rank 3", "host node7", "link 2->5"
  std::string evidence;        // "compute 1.31x the median rank's"
};

// One pair of ranks measured by ping-pong.
struct LinkFit {
  std::int64_t from = 0;
  std::int64_t to = 1;
  std::string from_host;              // empty when the records do not say
  std::string to_host;
  std::int64_t sizes = 0;             // distinct sizes measured
  double smallest_bytes = 0;          // the smallest size and its median one-way time
  double smallest_s = 0;
  double largest_bytes = 0;           // the largest size and its median one-way time
  double largest_s = 0;
  std::optional<double> alpha_s;      // the pair's Hockney fit (calibrate.h), when it has
  std::optional<double> bandwidth_Bps;  // 3 or more sizes and a line that describes a link
  std::optional<double> r_squared;
  // Inside one host, across hosts, or unknown (no host for one of the two ranks).
  std::optional<bool> same_host() const {
    if (from_host.empty() || to_host.empty()) return std::nullopt;
    return from_host == to_host;
  }
};

struct MeasurementDiagnosis {
  std::vector<std::string> sources;
  std::vector<std::string> warnings;
  // From step records.
  std::vector<RankSplit> ranks;
  double compute_s = 0;        // mean over ranks, per step
  double communication_s = 0;
  double wait_s = 0;
  double step_s = 0;
  // From arrival records.
  std::optional<double> arrival_spread_s;      // median over iterations of (latest - earliest)
  std::optional<double> zero_byte_collective_s;  // median time of the zero-byte collective
  // From collective records: measured against the model (when a fabric is given).
  struct CollectiveCheck {
    Op op;
    MeasuredAlgorithm algorithm;
    std::int64_t ranks;
    double bytes;
    double measured_s;
    std::optional<double> model_s;
    std::optional<double> bandwidth_model_s;  // 2(N-1)/N m / link bandwidth
  };
  std::vector<CollectiveCheck> collectives;
  // From pingpong records: each pair's one-way times and its own Hockney fit, and the
  // pairs much slower than the others of their kind (inside a node, across nodes).
  std::vector<LinkFit> links;
  std::vector<Outlier> outliers;             // ranks, hosts and links that stand out
  std::optional<Mechanism> binding;          // bandwidth, latency, variance, or compute
  std::string verdict;                       // one paragraph
  NextMeasurement next_measurement;          // the first kind of record still missing
};

// `fabric` (optional) is used to compare measured collectives with the model. The records
// are taken as one job's: diagnose_runs first splits files into runs.
MeasurementDiagnosis diagnose_measurements(const MeasurementSet& set,
                                           const std::optional<Topology>& fabric);

// ---- Several files: one diagnosis per run ----
//
// Files are one run, diagnosed together, when they are the same job: scalewall-mpi files
// whose contexts give the same rank count, ranks per host and hosts, dated within
// kSameJobWindow_s of each other. Any other file (a benchmark log, a file without that
// context, another job's file) is diagnosed apart, so that an unrelated run never changes a
// job's verdict.

// A batch allocation rarely outlives a day: files further apart are other jobs, even on the
// same hosts.
inline constexpr double kSameJobWindow_s = 24 * 3600.0;

struct RunDiagnosis {
  std::vector<std::string> sources;  // the run's files, as MeasurementSet::sources
  std::string identity;              // "6 ranks on n0, n1, n2 (2 per host), 2026-11-30T05:00Z"
  MeasurementDiagnosis diagnosis;
};

// One diagnosis per run, runs in the order of their first file.
// REQUIRES: one set per file, as parse_measurement_text reads it (each with its one run).
std::vector<RunDiagnosis> diagnose_runs(const std::vector<MeasurementSet>& files,
                                        const std::optional<Topology>& fabric);

}  // namespace scalewall

#endif  // SCALEWALL_DIAGNOSE_H_
