// scalewall/analysis/compare.h: two or more runs, or two or more calibrations, side by side:
// each measured (or modelled) time beside the first input's, their ratio, and whether the
// difference exceeds the runs' own spread, in the manner of google/benchmark's compare.py.
//
// Runs are measurement sets (io/measurement.h), one per file; a file of several series (two
// runs of one benchmark, or several tables: MeasurementSet::series) is one run per series,
// labelled by the series ("run.txt, table 2: all_reduce_perf"). A point is keyed by what was
// measured: the ping-pong pair, the collective's op, algorithm and rank count, or the local
// reduction's rank count; and by its size in bytes. A key of the first run that a later run
// also has gives one row per later run. The spread of a point is the [min, max] of its
// timed repetitions, which scalewall-mpi's records carry (over ranks and iterations); the
// benchmarks' logs print one time per size and carry none. A difference exceeds the spread
// when the two ranges do not overlap: every repetition of one run was faster than every
// repetition of the other. That is conservative (a shift inside the tails goes unnoticed)
// and needs no assumption about the distribution of the times.
//
// Calibrations are fabrics (a fabric file that calibrate writes, or calibrate's JSON
// report, both read into a Topology by the io layer). Their rows are the one-way message
// time T(m) of each link (intra, and inter where it differs) at a size grid, and their
// parameters (alpha, bandwidth, gamma) side by side; a calibration carries no spread.
#ifndef SCALEWALL_ANALYSIS_COMPARE_H_
#define SCALEWALL_ANALYSIS_COMPARE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scalewall/io/measurement.h"
#include "scalewall/model/topology.h"

namespace scalewall {

// One input: a run (measurements) or a calibration (a fabric).
struct CompareRun {
  std::string label;           // the file, as the user named it
  MeasurementSet measurements;  // a run: everything read from its file
  bool has_spread = false;     // a run: its records carry min and max (scalewall-mpi)
  std::optional<Topology> fabric;  // a calibration
};

// Where a later run's time stands against the first run's.
enum class Verdict {
  kFasterBeyondSpread,  // its slowest repetition beat the first run's fastest
  kSlowerBeyondSpread,  // its fastest repetition was slower than the first run's slowest
  kWithinSpread,        // the two ranges overlap
  kNoSpread,            // one of the two carries no spread: the ratio alone says it
};

// "faster beyond spread", "slower beyond spread", "within spread", "no spread".
std::string verdict_name(Verdict verdict);

struct CompareRow {
  std::string measurement;  // "pingpong", an op name ("allreduce"), "reduction", or a link
                            // of a calibration ("intra", "inter")
  std::string variant;      // the pair "0->1", the algorithm, or "" for none
  std::int64_t ranks = 0;   // the collective's or the reduction's ranks; 2 for a pair; 0 for
                            // a calibration
  double bytes = 0;
  std::size_t run = 1;      // which input, by index (the first is 0, the baseline)
  double baseline_s = 0;    // the first input's time (median of a run, T(m) of a link)
  double time_s = 0;        // this input's
  double ratio = 0;         // time_s / baseline_s; 0 when baseline_s is 0 (shown as none)
  std::optional<double> baseline_min_s, baseline_max_s;  // the spread, where known
  std::optional<double> min_s, max_s;
  Verdict verdict = Verdict::kNoSpread;
};

// One parameter of a calibration beside the first calibration's.
struct CompareParameter {
  std::string key;     // "inter_alpha_s", "inter_bandwidth_Bps", "gamma_s_per_byte", ...
  std::size_t run = 1;
  double baseline = 0;
  double value = 0;
  double ratio = 0;    // value / baseline; 0 when baseline is 0
};

struct Comparison {
  bool calibrations = false;  // true: the inputs are fabrics
  std::vector<std::string> labels;  // one per input, in order
  std::vector<CompareRow> rows;     // key by key in the first input's order, then by run
  std::vector<CompareParameter> parameters;  // calibrations only
  // Per later input: the geometric mean of its rows' ratios (over rows with a ratio); empty
  // when it has none. [0] is the baseline's and always empty.
  std::vector<std::optional<double>> geomean_ratio;
  std::vector<std::string> notes;  // inputs without spread, keys only some inputs have,
                                   // repeated keys in one file
};

// The sizes at which calibrations are compared: 0 and every power of 4 from 1 B to 1 GiB
// (16 sizes), from the latency-bound to the bandwidth-bound end of any link.
std::vector<double> calibration_sizes();

// REQUIRES nothing. Throws InputError when fewer than two runs (after splitting files into
// their series) or calibrations are given, when runs and calibrations are mixed, or when no
// key of the first run is in any later one.
Comparison compare_runs(const std::vector<CompareRun>& inputs);

}  // namespace scalewall

#endif  // SCALEWALL_ANALYSIS_COMPARE_H_
