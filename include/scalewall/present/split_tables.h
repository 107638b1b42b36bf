// scalewall/present/split_tables.h: one evaluated transformer split (parallel_step.h) and a
// search of them (split_search.h) as report fields and tables, for `predict` and `plan`.
//
// The JSON names are issue 14's contract: step_s, fits, memory_per_gpu_bytes, tflops_per_gpu
// (executed model FLOPs with recomputation, Narayanan's convention), mfu, tokens_per_s, and the
// breakdown as compute_s, recompute_s, tp_comm_s, pp_bubble_s, pp_transfer_s, dp_comm_s,
// optimizer_s, variance_s, serial_s; plan's "splits" rows carry the same keys with the degrees.
// Context parallelism adds cp (the degree), cp_comm (the exchange) and cp_comm_s (its exposed
// time): tables and plots show them where a split has cp > 1, JSON always has cp and
// cp_comm_s. Expert parallelism adds ep and etp (the experts' degrees) and ep_comm_s (the
// experts' dispatch and combine, exposed): shown where a split has its experts apart (ep > 1 or
// etp other than tp), JSON always has ep and ep_comm_s.
#ifndef SCALEWALL_SPLIT_TABLES_H_
#define SCALEWALL_SPLIT_TABLES_H_

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/analysis/split_curve.h"
#include "scalewall/analysis/split_search.h"
#include "scalewall/present/prediction_tables.h"
#include "scalewall/present/report.h"

namespace scalewall {

// One part of a split's step-time breakdown: its JSON key ("tp_comm_s"), its title ("tp comm")
// and the SplitStep member that holds it.
struct StepPart {
  std::string_view key;
  std::string_view title;
  double SplitStep::*seconds;
};

// The breakdown's eleven parts, in the order every table, line and plot lists them.
inline constexpr std::array<StepPart, 11> kStepParts = {{
    {"compute_s", "compute", &SplitStep::compute_s},
    {"recompute_s", "recompute", &SplitStep::recompute_s},
    {"tp_comm_s", "tp comm", &SplitStep::tp_comm_s},
    {"cp_comm_s", "cp comm", &SplitStep::cp_comm_s},
    {"ep_comm_s", "ep comm", &SplitStep::ep_comm_s},
    {"pp_bubble_s", "pp bubble", &SplitStep::pp_bubble_s},
    {"pp_transfer_s", "pp transfer", &SplitStep::pp_transfer_s},
    {"dp_comm_s", "dp comm", &SplitStep::dp_comm_s},
    {"optimizer_s", "optimizer", &SplitStep::optimizer_s},
    {"variance_s", "variance", &SplitStep::variance_s},
    {"serial_s", "serial", &SplitStep::serial_s},
}};

// Whether any of `steps` splits the sequence (cp > 1).
bool any_context_parallel(std::span<const SplitStep> steps);
// Whether any of `steps` holds its experts apart (experts_apart: ep > 1 or etp other than tp).
bool any_expert_parallel(std::span<const SplitStep> steps);

// The parts a table or plot of `steps` lists: kStepParts, without "cp comm" unless one of them
// has cp > 1 and without "ep comm" unless one holds its experts apart (a job without them reads
// as it did before they were modelled).
std::vector<StepPart> shown_step_parts(std::span<const SplitStep> steps);

// One part of a split's memory per GPU, likewise.
struct MemoryPart {
  std::string_view key;
  std::string_view title;
  double SplitMemory::*bytes;
};

// The five parts of the memory per GPU, in the order the memory table and plot list them.
inline constexpr std::array<MemoryPart, 5> kMemoryParts = {{
    {"weights_bytes", "weights", &SplitMemory::weights_bytes},
    {"gradients_bytes", "gradients", &SplitMemory::gradients_bytes},
    {"optimizer_bytes", "optimizer state", &SplitMemory::optimizer_bytes},
    {"activations_bytes", "activations", &SplitMemory::activations_bytes},
    {"buffers_bytes", "buffers", &SplitMemory::buffers_bytes},
}};

// "tp 8, pp 8, dp 16, micro-batch 1, interleave 1, recompute full, zero 0, sequence parallel
// off, dp overlap on"; with cp > 1 "tp 8, cp 16 (p2p), pp 1, ..."; with the experts apart
// "..., dp 16, ep 8 (etp 1), micro-batch 1, ...".
std::string split_text(const ParallelSplit& split);

// The degrees alone, for a label: "tp 8 pp 8 dp 16", with cp > 1 "tp 8 cp 16 pp 1 dp 2", with
// the experts apart "tp 2 pp 8 dp 64 ep 64 etp 1".
std::string degrees_label(const ParallelSplit& split);

// The split's degrees and figures as report fields (the contract's keys at the top level).
void add_split_fields(Report& report, const SplitStep& step);

// Table "breakdown": mechanism, time_s, share (of the step), one row per mechanism.
Table split_breakdown_table(const SplitStep& step);

// Table "memory": part, bytes, one row per part and the total against the limit.
Table split_memory_table(const SplitStep& step);

// Table "splits": rank, the degrees and options, then the contract's keys, in rank order.
Table splits_table(const SplitSearch& search);

// One line per runner-up: how much slower than the best and the mechanisms that make up most of
// the difference ("tp 4 ...: 8.1% slower (+1.2 s pipeline bubble, +0.3 s tp comm)"), or how much
// memory it lacks.
std::vector<std::string> runner_up_lines(const SplitSearch& search);

// Why the best split's context-parallel degree beats the others the search tried: its own
// line ("cp 8, the best split's: cp comm 0 s (0% of the step), memory 70.4 GB of 72 GB"), then
// the best split at each other cp as alternative_line gives it ("best at cp 1 (...): does not
// fit, ..."; "best at cp 16 (...): step 57.5 s, 2.1% slower than the best (+2.1 s compute,
// ...)"). Empty where only one cp was tried.
std::vector<std::string> cp_choice_lines(const SplitSearch& search);

// The same for the expert-parallel degree of a mixture of experts: "ep 64, the best split's:
// ep comm 3.2 s (12% of the step), memory 61 GB of 72 GB", then the best split at each other ep
// tried. Empty where only one ep was tried.
std::vector<std::string> ep_choice_lines(const SplitSearch& search);

// predict --what-if on a transformer scenario: the baseline, then pure data parallelism and pure
// ZeRO-3 (when not the baseline), then "change the decomposition" (the best split), each with
// its degrees, step, memory per GPU and gain (the baseline's step over the row's, when both
// fit; empty otherwise). Table "remedies"; a row that cannot run or does not fit says so.
Table decomposition_table(const Decomposition& decomposition);

// predict on a transformer scenario over GPU counts (split_curve.h): table "rows", one row per
// count: gpus, global_batch, the split's degrees (tp, pp, dp, micro_batch, recompute, zero),
// step_s, tokens_per_s, mfu, speedup, efficiency, binding, fits, and the time lost against
// pure compute by mechanism (lost_bubble_s, lost_latency_s, lost_bandwidth_s,
// lost_variance_s, lost_serial_s), problem. A split that does not fit shows no time,
// throughput or loss and its problem says what it lacks; a count where none runs has only its
// count, batch and problem (why); the first fitting row at or past the knee and each cliff
// carry a mark.
Table split_curve_table(const SplitCurve& curve, TableWords words);

// One line per cliff of the curve: "96 GPUs: 80% efficient against 90% at 128 GPUs, ...".
std::vector<std::string> split_cliff_lines(const SplitCurve& curve);

// The same comparison of one named alternative ("pure data parallel") against `best`.
std::string alternative_line(const std::string& name, const SplitStep& alternative,
                             const SplitStep& best);

}  // namespace scalewall

#endif  // SCALEWALL_SPLIT_TABLES_H_
