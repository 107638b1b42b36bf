// scalewall/model/step_model.h: the step time of a data-parallel training job at N ranks, split
// into the four mechanisms that bend a scaling curve (seed D01 sections 2.4, 3.4, 5; the
// collective-cost note).
//
// One optimizer step at N ranks costs
//   step = serial + compute + compression + exposed communication + variance + checkpoint
// where
//   compute        per-rank forward and backward: strong scaling (global batch fixed)
//                  C1 W / N with C1 the whole batch on one rank; weak scaling (per-rank batch
//                  fixed) C W. W = accumulation steps x batch scale is the work of one step
//                  in units of the scenario's base step.
//   communication  one all-reduce of the gradient (m / compression ratio bytes) per step, in
//                  buckets of b bytes: ceil(m'/b) calls, each paying its own latency term,
//                  each by the cheapest algorithm on the network (or a fixed one).
//   exposed        without overlap, all of it. With overlap, bucket i can start once the
//                  backward pass has produced it (backward produces gradients at an even
//                  rate, in order) and after bucket i-1 is done; what runs past the end of
//                  backward is exposed. With K equal buckets of cost c (the last c'), the
//                  last one ends at max(Tb/K + (K-1)c + c', Tb + c'), Tb the backward time
//                  of the last micro-batch.
//   variance       the barrier waits for the slowest rank: sigma E[M_N] compute, E[M_N] the
//                  expected largest of N standard normals (straggler.h); one bad node slowed
//                  by f costs (f-1) compute + f sigma E[M_g] compute (g ranks per node), and
//                  the larger of the two is charged; a degraded link's extra exposed
//                  communication is charged here too.
//   checkpoint     write time / interval, amortised; async: only what the write overruns
//                  the interval by.
// LogGP's o (the CPU overhead of sending and receiving, 2o per step of a collective, part of
// its alpha) is processor time that overlap cannot hide: with overlap, the o of the calls that
// run under the backward pass is exposed too.
// Efficiency is ideal over predicted: strong T1 / (N T(N)), weak T1 / T(N), with T1 the job's
// own work on one rank: serial + compute, with no communication, no variance and no
// checkpoint. Every other term is a cost, so efficiency is at most 1 at every N (below 1 even
// at N = 1 when the job writes checkpoints). The time lost against ideal splits into serial,
// latency, bandwidth, variance and checkpoint parts that sum to it exactly; the checkpoint
// part is the whole amortised checkpoint time, at every N and in both scaling modes.
//
// Every figure is a model, not a measurement.
#ifndef SCALEWALL_STEP_MODEL_H_
#define SCALEWALL_STEP_MODEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "scalewall/model/collective.h"
#include "scalewall/model/nccl.h"
#include "scalewall/model/topology.h"

namespace scalewall {

enum class ScalingMode { kStrong, kWeak };
// "strong", "weak".
std::string_view scaling_mode_name(ScalingMode mode);
// The mode `name` spells ("strong", "weak", exactly), or none.
std::optional<ScalingMode> parse_scaling_mode(std::string_view name);

struct Workload {
  double gradient_bytes = 0;          // m: parameters x bytes per gradient element
  double compute_s = 0;               // per-rank forward+backward of one step at reference_ranks
  std::int64_t reference_ranks = 1;   // the rank count compute_s was measured at (strong)
  double serial_s = 0;                // per-step time that does not parallelise
  ScalingMode mode = ScalingMode::kStrong;
  double backward_fraction = 2.0 / 3.0;  // share of compute that is the backward pass
};

// How the gradient all-reduce is costed.
struct Network {
  // Either a topology (flat link or fabric), with algorithm selection...
  std::optional<Topology> fabric;  // the fabric at its own size; scaled to each rank count
  // ...or a measured bus bandwidth as nccl-tests reports it: an all-reduce of m bytes then
  // takes 2(N-1) alpha + 2(N-1)/N m / busbw.
  double busbw_Bps = 0;            // used when fabric is empty
  double busbw_alpha_s = 0;        // per-step latency with busbw; 0 is allowed
};

struct Variance {
  double sigma = 0;                 // per-rank compute jitter, a fraction (0.02 = 2%)
  double bad_node_slowdown = 1.0;   // one node's ranks run this much slower (>= 1)
  double bad_link_bandwidth_Bps = 0;  // > 0: one node's inter-node link runs at this rate
};

struct Checkpoint {
  double bytes = 0;                 // 0: no checkpointing
  double write_bandwidth_Bps = 0;   // per node (shared = false) or for the whole job
  bool shared = true;               // true: one shared target; false: every node writes its
                                    // share at write_bandwidth_Bps
  std::int64_t interval_steps = 1000;
  bool async = false;
};

// The knobs of how the job runs: the remedies, each on or off.
// The algorithm choice a step's all-reduce calls are priced with.
enum class CallSelector { kAuto, kMpi, kNccl };

// "auto", "mpi", "nccl".
std::string_view call_selector_name(CallSelector selector);
// The inverse; throws InputError naming the text.
CallSelector parse_call_selector(std::string_view text);

struct Settings;
// Whether `settings` price the all-reduce calls on `topology` by NCCL's choice: kNccl, or
// kAuto on GPU ranks without a fixed algorithm.
bool prices_with_nccl(const Settings& settings, const Topology& topology);

struct Settings {
  bool overlap = false;
  double bucket_bytes = 25e6;       // 0: one fused call for the whole gradient
  bool hierarchical = false;        // allow hierarchical all-reduce algorithms
  double compression_ratio = 1.0;   // reduced bytes = m / ratio (>= 1)
  double compression_s_per_byte = 0;  // compute cost of compressing, per gradient byte
  std::int64_t accumulation_steps = 1;
  double batch_scale = 1.0;         // per-rank batch relative to the scenario's
  std::optional<AlgorithmSpec> algorithm;  // fixed algorithm; empty: the cheapest
  CostOptions cost;                 // gamma and the tree chunk
  // Which choice prices each all-reduce on a fabric: kAuto takes NCCL's (nccl.h) on a fabric
  // of GPU ranks and the MPI catalogue's cheapest otherwise. A fixed `algorithm` is an MPI
  // catalogue algorithm and wins over kAuto. Default: kAuto.
  CallSelector selector = CallSelector::kAuto;
};

struct Scenario {
  std::string name;
  Workload workload;
  Network network;
  Variance variance;
  Checkpoint checkpoint;
  Settings settings;
};

// The range a scenario value must lie in: wide enough for any real job, and narrow enough
// that no combination of values overflows a double or rounds a step time to zero (the worst
// legal step is under 1e40 s). docs/errors.md and docs/scenarios.md list them.
enum class RangeUnit { kBytes, kSeconds, kRate, kSecondsPerByte, kFactor };
struct ValueRange {
  RangeUnit unit;
  double lo;              // the smallest value allowed (or the smallest non-zero one)
  double hi;              // the largest value allowed
  bool zero_allowed;      // 0 is allowed besides [lo, hi] (none, off, no such term)
};
// Sizes: the gradient, the bucket (0: one fused call), a checkpoint: 0 or 1 B .. 1 EB.
inline constexpr ValueRange kScenarioBytes{RangeUnit::kBytes, 1.0, 1e18, true};
// The tree chunk: 1 B .. 1 EB.
inline constexpr ValueRange kScenarioChunkBytes{RangeUnit::kBytes, 1.0, 1e18, false};
// Rates: bus bandwidth, link bandwidths, a degraded link, checkpoint writes: 1 B/s .. 1 PB/s.
inline constexpr ValueRange kScenarioRate{RangeUnit::kRate, 1.0, 1e15, false};
// Times: compute, serial, latencies: 0 or 1 ps .. 1e6 s (about 11.6 days).
inline constexpr ValueRange kScenarioSeconds{RangeUnit::kSeconds, 1e-12, 1e6, true};
// A link's latency alpha (a fabric's links, --alpha): 1 ps .. 1e6 s, never 0.
inline constexpr ValueRange kLinkLatency{RangeUnit::kSeconds, 1e-12, 1e6, false};
// Costs per byte (reduction gamma, compression): 0 or 1e-15 .. 1 s/B (1 PB/s .. 1 B/s).
inline constexpr ValueRange kScenarioSecondsPerByte{RangeUnit::kSecondsPerByte, 1e-15, 1.0, true};
// Factors that multiply a cost or divide a size (compression ratio, bad node slowdown,
// oversubscription): 1 .. 1e6.
inline constexpr ValueRange kScenarioFactor{RangeUnit::kFactor, 1.0, 1e6, false};
// The per-rank batch relative to the scenario's: 1e-6 .. 1e6.
inline constexpr ValueRange kScenarioBatchScale{RangeUnit::kFactor, 1e-6, 1e6, false};

// Gradient accumulation: 1 .. 1e6 micro-steps per optimizer step.
inline constexpr std::int64_t kMaxAccumulationSteps = 1000000;

// Whether `value` lies in the range (NaN and infinities never do).
bool in_range(double value, const ValueRange& range);
// The range in words with units: "1 B/s to 1 PB/s", "1e-12 s to 1e+06 s (or 0)".
std::string range_text(const ValueRange& range);
// Throws InputError "<what> <value> is outside the range <range>" unless in_range.
void require_in_range(std::string_view what, double value, const ValueRange& range);

// Throws InputError naming the field and value for anything out of range (the ranges above;
// with a fabric, its links' latencies and bandwidths and its oversubscription too).
void require_valid(const Scenario& scenario);

enum class Mechanism { kSerial, kLatency, kBandwidth, kVariance, kCheckpoint, kCompute };
// "serial", "latency", "bandwidth", "variance", "checkpoint", "compute".
std::string_view mechanism_name(Mechanism mechanism);

// The shape of a mechanism's cost in the rank count N, per unit of its coefficient:
//   serial     1                 (a constant per step)
//   latency    log2 N            (a tree-like collective's step count)
//   bandwidth  2(N-1)/N          (a bandwidth-optimal all-reduce's bytes: busbw_factor)
//   variance   E[max of N standard normals]  (the slowest of N at a barrier)
// REQUIRES: one of those four (checkpoint and compute have no shape in N); 1 <= n <= 2^40.
double mechanism_shape(Mechanism mechanism, std::int64_t n);

// The time lost against ideal scaling, by mechanism; the parts sum to the whole.
struct LostTime {
  double serial_s = 0;
  double latency_s = 0;
  double bandwidth_s = 0;    // includes reduction arithmetic and compression compute
  double variance_s = 0;
  double checkpoint_s = 0;
  double total() const { return serial_s + latency_s + bandwidth_s + variance_s + checkpoint_s; }
};

// A scenario with a measured bus bandwidth instead of a fabric: its all-reduce is costed from
// that bandwidth, which already includes whatever algorithm the library chose.
struct BusBandwidthGiven {
  friend bool operator==(const BusBandwidthGiven&, const BusBandwidthGiven&) = default;
};

// NCCL's pick for a step's all-reduce (a GPU fabric under CallSelector kAuto or kNccl).
struct NcclPick {
  NcclAlgorithm algorithm = NcclAlgorithm::kRing;
  NcclProtocol protocol = NcclProtocol::kSimple;
  friend bool operator==(const NcclPick&, const NcclPick&) = default;
};

// The all-reduce a step is costed with: none (std::monostate: one rank, or nothing to
// reduce), a model algorithm (a fabric or a flat link), the given bus bandwidth, or NCCL's
// pick.
using StepCollective = std::variant<std::monostate, AlgorithmSpec, BusBandwidthGiven, NcclPick>;

struct StepTime {
  std::int64_t ranks = 1;
  double compute_s = 0;                 // per-rank forward + backward
  double serial_s = 0;
  double compression_s = 0;             // compressing the gradient (0 without compression)
  double communication_s = 0;           // full cost of the step's all-reduce calls
  double communication_latency_s = 0;   // its alpha terms
  double communication_overhead_s = 0;  // of those, the LogGP o (2o per step): CPU time that
                                        // overlap cannot hide
  double exposed_communication_s = 0;   // what overlap leaves on the critical path
  double variance_s = 0;
  double checkpoint_s = 0;              // amortised per step
  double step_s = 0;                    // the sum of the above (communication counted as
                                        // exposed)
  double work = 1;                      // base steps of work in this step (W)
  double ideal_step_s = 0;              // strong: T1 / N; weak: T1 (both for the same W)
  double speedup = 1;                   // strong: T1 / T(N); weak (Gustafson's scaled
                                        // speedup): (serial + N (T1 - serial)) / T(N)
  double efficiency = 1;                // ideal_step_s / step_s
  StepCollective algorithm;             // the all-reduce algorithm (per bucket), or busbw
  double bucket_bytes = 0;              // bytes per call
  std::int64_t buckets = 0;             // calls per step
  LostTime lost;                        // sums to step_s - ideal_step_s
  Mechanism binding = Mechanism::kCompute;  // the largest lost part; compute when nothing
                                            // is lost
  bool scales_well = true;              // efficiency >= kScalesWellEfficiency
};

// The efficiency from which a step counts as scaling well (its binding mechanism is still the
// largest loss): 90%, the seed's line between a job that scales and one that has hit a wall.
inline constexpr double kScalesWellEfficiency = 0.9;

// The exposed communication of a step split into its latency and bandwidth parts, in the
// proportion of the full calls' alpha terms to the rest (all bandwidth when there is no
// communication); compression compute counts as bandwidth. These are lost.latency_s and
// lost.bandwidth_s of step_time.
struct ExposedSplit {
  double latency_s = 0;
  double bandwidth_s = 0;
};
ExposedSplit split_exposed_communication(const StepTime& step);

// The step at `ranks` ranks. REQUIRES: a valid scenario; ranks in [1, 2^40] and, with a
// fabric, fitting it (scaled_topology). Throws InputError otherwise.
StepTime step_time(const Scenario& scenario, std::int64_t ranks);

// The bucket setting with the shortest step at `ranks` under the scenario's own settings
// (overlap on or off): 0 for one fused call, or a power of two from 64 KiB below the
// (compressed) gradient. A size must beat the best so far by more than rounding.
double best_bucket_setting(const Scenario& scenario, std::int64_t ranks);

// The bucket size (a power of two from 64 KiB, or the whole gradient) that minimises the step
// time at `ranks` with overlap on.
double best_bucket_bytes(const Scenario& scenario, std::int64_t ranks);

// The parameters of the what-if remedies (the scenario's [what_if] section).
struct WhatIfOptions {
  double compression_ratio = 2.0;        // e.g. bf16 -> fp8
  double compression_s_per_byte = 0.0;
  std::int64_t accumulation_steps = 4;
  double batch_scale = 2.0;
};

}  // namespace scalewall

#endif  // SCALEWALL_STEP_MODEL_H_
