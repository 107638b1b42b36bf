// scalewall/model/goodput.h: what a training run loses beside its steps, to checkpoints and to
// failures, and the checkpoint interval that loses least (docs/models.md, "Time to train and
// goodput").
//
// A run of W seconds of useful steps writes a checkpoint after every tau seconds of them; each
// stalls the job for delta (a synchronous write: the whole write; an asynchronous one: the copy
// to host memory, and what the background write overruns the interval by). The job fails at
// the rate 1/M, M = the job's mean time between failures (one GPU's, with its share of the
// node, over the GPUs: failures of independent parts add their rates). A failure loses the
// restart R and the work since the last complete checkpoint: tau/2 on average, and with an
// asynchronous write also the write time w (a failure during the write falls back one more
// checkpoint: (1/tau) (integral_0^w (x + tau) dx + integral_w^tau x dx) = tau/2 + w). With
// wall the run's wall-clock time and F = wall / M its expected failures,
//   wall = W (1 + delta/tau) + F (R + tau/2 [+ w])
//        = W (1 + delta/tau) / (1 - (R + tau/2 [+ w]) / M)
//   goodput = W / wall = (1 - (R + tau/2 [+ w]) / M) / (1 + delta/tau)
// in (0, 1], 1 without checkpoints and failures; no finite wall when R + tau/2 [+ w] >= M
// (the job fails before it gets back to where it was).
//
// The interval that maximises it: to first order in delta/M, Young (1974)'s
//   tau = sqrt(2 delta M)
// and Daly (2006)'s higher-order estimate, for an exponential failure law,
//   tau = sqrt(2 delta M) (1 + sqrt(delta / (2M)) / 3 + (delta / (2M)) / 9) - delta,  delta < 2M
//   tau = M,                                                                           delta >= 2M
// which is the one used.
//
// Every figure is a model, not a measurement.
#ifndef SCALEWALL_GOODPUT_H_
#define SCALEWALL_GOODPUT_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace scalewall {

// The bytes of one checkpoint per parameter, as Megatron-Core's distributed checkpoint saves a
// mixed-precision Adam run: the model's bf16 (or fp16) weights, 2 B, and the distributed
// optimizer's fp32 main parameter, exp_avg and exp_avg_sq, 12 B (megatron/core/optimizer/
// distrib_optimizer.py, _get_main_param_and_optimizer_states). Gradients are not saved.
inline constexpr double kCheckpointBytesPerParameter = 2.0 + 12.0;

// The rate one GPU copies its share of an asynchronous checkpoint to host memory, by default:
// PCIe Gen5 x16 in one direction, 64 GB/s (the H100 and H200 SXM datasheets' "PCIe Gen5:
// 128 GB/s", both directions together).
inline constexpr double kDefaultHostCopyBps = 64e9;

// What write_bandwidth is the rate of: each node's (its share written at that rate, all nodes
// at once), each GPU's, or the whole job's (one shared file system's aggregate rate).
enum class WriteScope { kNode, kGpu, kJob };
// "node", "gpu", "job".
std::string_view write_scope_name(WriteScope scope);
// The scope `name` spells, or none.
std::optional<WriteScope> parse_write_scope(std::string_view name);

// A transformer scenario's [checkpoint].
struct CheckpointPlan {
  bool given = false;                  // false: the run writes no checkpoints
  std::optional<double> bytes;         // one checkpoint; none: parameters x 14 B
  double write_bandwidth_Bps = 0;      // > 0 when given
  WriteScope write_scope = WriteScope::kNode;
  // The interval: a whole number of steps, or a time (rounded to whole steps, at least one);
  // neither: the best interval (daly_interval_s), which needs [failures].
  std::optional<std::int64_t> interval_steps;
  std::optional<double> interval_s;
  bool async = false;
  double host_copy_Bps = kDefaultHostCopyBps;  // async: one GPU's copy to host memory
};

// A transformer scenario's [failures].
struct FailurePlan {
  bool given = false;
  double gpu_mtbf_s = 0;   // one GPU's mean time between failures, with its share of the node
  double restart_s = 0;    // from a failure to the job running again from its checkpoint
};

// What a transformer scenario says of the whole run beside its step.
struct TrainingRun {
  std::optional<double> tokens;         // training.tokens
  std::optional<double> gpu_hour_cost;  // system.gpu_hour_cost, money per GPU-hour
  CheckpointPlan checkpoint;
  FailurePlan failures;
  // Whether any of them is given.
  bool any() const {
    return tokens || gpu_hour_cost || checkpoint.given || failures.given;
  }
};

// Young (1974): sqrt(2 delta M). REQUIRES: delta >= 0, M > 0.
double young_interval_s(double stall_s, double mtbf_s);

// Daly (2006), above. REQUIRES: delta >= 0, M > 0.
double daly_interval_s(double stall_s, double mtbf_s);

// The job's mean time between failures: gpu_mtbf / gpus. REQUIRES: gpus >= 1.
double job_mtbf_s(double gpu_mtbf_s, std::int64_t gpus);

// What one checkpoint costs the job.
struct CheckpointCost {
  double bytes = 0;     // the whole checkpoint
  double write_s = 0;   // the whole job's write: bytes / (writers x write bandwidth)
  double stall_s = 0;   // what the steps wait for: write_s, or async the host copy alone
                        // (without the overrun, which depends on the interval)
};

// One checkpoint of `bytes` written by `gpus` GPUs, `gpus_per_node` to a node, each writing an
// equal share (Megatron-Core's fully parallel save spreads the replicated shards over the
// data-parallel ranks: megatron/core/dist_checkpointing/strategies/fully_parallel.py): the
// write takes bytes / (writers x rate), writers the nodes, the GPUs or one (WriteScope).
// Asynchronous: the steps wait only for each GPU's copy of its share, bytes / gpus, to host
// memory at plan.host_copy_Bps (Megatron-Core's async save copies device to host synchronously
// and writes from host memory in the background: dist_checkpointing/strategies/
// filesystem_async.py; PyTorch's torch.distributed.checkpoint.async_save likewise stages the
// state to CPU memory first). REQUIRES: bytes >= 0, rates > 0, gpus >= 1, gpus_per_node >= 1.
CheckpointCost checkpoint_cost(const CheckpointPlan& plan, double bytes, std::int64_t gpus,
                               std::int64_t gpus_per_node);

// The inputs of the goodput above.
struct GoodputInputs {
  double useful_s = 0;      // W: the steps' time
  double interval_s = 0;    // tau; 0: no checkpoints
  double stall_s = 0;       // delta, each checkpoint's stall
  double exposed_write_s = 0;  // w, async only: the background write a failure can interrupt
  double mtbf_s = 0;        // M; 0: no failures
  double restart_s = 0;     // R
};

struct Goodput {
  double goodput = 1;           // W / wall, in (0, 1]; 0 when the run never finishes
  double wall_s = 0;            // the run's wall-clock time; 0 when it never finishes
  double checkpoints = 0;       // W / tau
  double stall_total_s = 0;     // checkpoints x delta
  double expected_failures = 0; // wall / M
  double failure_loss_s = 0;    // expected_failures x (R + tau/2 [+ w])
  bool finishes = true;         // false: R + tau/2 [+ w] >= M
};

// The run's wall time and goodput. Without failures (mtbf 0) the loss per failure is not
// needed; without checkpoints (interval 0) a failure loses the work since the start, taken as
// W/2. REQUIRES: every input finite and >= 0.
Goodput goodput_of(const GoodputInputs& in);

}  // namespace scalewall

#endif  // SCALEWALL_GOODPUT_H_
