// scalewall/model/parallel_step.h: one training step of a transformer on N = tp x cp x pp x dp
// accelerators under one parallel split: its time by mechanism, its memory per GPU, MFU and
// throughput. docs/models.md ("The parallel execution of one split", "Context parallelism")
// has every term with its source.
//
// Ranks are laid out as Megatron-Core lays them (parallel_state.py's order "tp-cp-ep-dp-pp":
// tensor fastest, then context, then data, then pipeline): a TP group is t consecutive ranks
// (inside one node when t <= g, the GPUs per node); a CP group has stride t; a DP group stride
// t c, and the data-parallel group with context parallelism, which reduces the gradients and
// shards the optimizer, d c ranks of stride t; a PP group stride t c d. Each collective is
// priced on the fabric's links for the group's own shape (collective.h, or NCCL's choice,
// nccl.h, on a GPU fabric): its ranks per node, its nodes, and the NICs it gets when the
// node's other groups use theirs at once.
//
// Expert parallelism (a mixture of experts, ep > 1 or etp other than tp) lays Megatron-Core's
// expert grid over the same ranks of a stage, in its order etp-ep-edp: an expert-TP group of
// etp consecutive ranks, an EP group of ep ranks of stride etp, an expert data-parallel group
// of edp = tp cp dp / (etp ep) ranks of stride etp ep. Each rank holds E/ep experts over etp;
// the routed tokens reach them by the all-to-all dispatcher (ep_comm), the experts' gradients
// are reduced and their optimizer sharded over edp, and the heaviest EP rank's extra load is
// variance (docs/models.md, "Expert parallelism").
//
// Context parallelism (cp = c > 1) splits each sequence over c ranks: every per-token term
// below runs on b s/c tokens, the attention core on 1/c of the whole sequence's causal core
// (Megatron's load balancing: rank i holds chunks i and 2c - 1 - i of 2c), and the ranks
// exchange K and V (cp_comm: ring sends under the attention, or all-to-alls of Q, K, V and O)
// in cp_comm.
//
// The layers are laid out on the stages as the framework does it (stage_layout.h: first,
// middle and last stage each with its own layers; the first also the embedding, the last the
// logits). Per micro-batch, the slowest of them (on an even layout, the last) spends
//   compute      forward + backward GEMMs on the matmul curve (accelerator.h), plus the
//                memory-bound elementwise work (layer norms, softmax, dropout, GeLU) at HBM rate
//   recompute    the recomputed forward (full) or attention core (selective)
//   tp_comm      per layer 2 all-reduces of b s h in the forward, 2 in the backward, 2 more in
//                a fully recomputed forward (sequence parallel: each a reduce-scatter plus an
//                all-gather of the same buffer); none overlapped (Megatron-LM 2021). With
//                fewer KV heads than t, per layer one all-gather of the QKV output b s (h +
//                2 k d) in each forward and a reduce-scatter of it in the backward
//                (Megatron-Core's QKV sub-sharding)
//   ep_comm      with the experts apart, per MoE layer the dispatch and combine of the
//                routed tokens (ExpertDispatch), forward and backward, none overlapped
//   pp_transfer  2 v point-to-point sends of b s h (activation forward, gradient backward,
//                once per model chunk), divided by t when scattered across the TP ranks
// and the step is
//   step = m T_mb + (p - 1)/v T_mb + dp_comm + optimizer + variance + serial
// with m = B / (d b) micro-batches, T_mb the slowest stage's time per micro-batch, and
// (p - 1)/v T_mb the pipeline bubble (Narayanan et al. 2021, 1F1B and interleaved schedules).
// dp_comm is the exposed data-parallel (or ZeRO) traffic of the parameters of the stage that
// holds the most (hidden, with dp_overlap, under the slowest stage's backward): an
// all-reduce (zero 0), reduce-scatter + all-gather (zero 1; zero 2 reduce-scatters per
// micro-batch), or all-gathers of the weights in each forward and backward pass and a
// reduce-scatter of the gradients per micro-batch (zero 3, Rajbhandari et al. 2020). With
// dp_overlap, the gradient traffic runs in buckets under the last micro-batch's backward
// (step_model.h's overlap) and ZeRO-3's gathers under the micro-batch's compute.
//
// Parameters per GPU: the stage's layers and, on the first and the last stage, the larger of
// the two ends, the first stage's word embedding and position table or the last stage's
// output layer (tied: a copy of the word embedding; untied: its own matrix), over t; with one
// stage, all of them; a middle stage, its layers only.
// Memory per GPU (the fullest of the first, middle and last stages'): weights (2 B per
// parameter), gradients (2 B), Adam state and fp32 master weights (12 B) (Rajbhandari et al.
// 2020's 16 B per parameter), each divided by d c where the ZeRO stage shards it; activations
// over the stage's layers of the micro-batches it holds in flight: on the first stage p
// (1F1B; interleaved: times 1 + (p - 1)/(p v), Korthikanti et al. 2022), on stage 1 p - 1
// (interleaved: (2 (p - 2) + (v - 1) p + 1)/v, Megatron-LM's warm-up), on the last one
// (interleaved: ((v - 1) p + 1)/v, Megatron-LM's warm-up of the last rank) and its logits
// (4 s b V / t); and communication buffers (two DP buckets, the pipeline's send and receive
// buffers). With a large vocabulary the last stage holds the most. Under FP8 each linear
// layer's saved input is Transformer Engine's 1-byte cast: the two norms' outputs and FC2's
// input lose a byte per element, the projection's cast comes beside the fused attention's
// 2-byte output (docs/models.md, "Framework profiles", FP8).
//
// Every figure is a model, not a measurement.
#ifndef SCALEWALL_PARALLEL_STEP_H_
#define SCALEWALL_PARALLEL_STEP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "scalewall/model/accelerator.h"
#include "scalewall/model/framework.h"
#include "scalewall/model/stage_layout.h"
#include "scalewall/model/topology.h"
#include "scalewall/model/transformer.h"

namespace scalewall {

// The most GPUs a split may use: tp x cp x pp x dp is at most 2^40, as every rank count.
inline constexpr std::int64_t kMaxSplitGpus = std::int64_t{1} << 40;

struct ParallelSplit {
  std::int64_t tp = 1;
  std::int64_t pp = 1;
  std::int64_t dp = 1;
  std::int64_t micro_batch = 1;
  std::int64_t interleave = 1;    // v, model chunks per pipeline stage
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kNone;
  int zero = 0;                   // 0 .. 3 (3: FSDP-style full sharding)
  bool dp_overlap = false;          // Megatron-LM without --overlap-grad-reduce
  // TP all-gathers and reduce-scatters pipelined with their GEMMs (Transformer Engine's
  // userbuffers, --tp-comm-overlap); takes effect with sequence parallelism and a TP group
  // inside one node.
  bool tp_overlap = false;
  bool scatter_pp_transfers = true;  // send 1/t of each activation per TP rank (Narayanan 4.1)
  // Megatron-Core's uneven stages (stage_layout.h): the layers of the first and of the last
  // pipeline stage, the rest divided evenly over the others; 0: not given.
  std::int64_t first_stage_layers = 0;
  std::int64_t last_stage_layers = 0;
  // Megatron-Core's --account-for-embedding-in-pipeline-split and
  // --account-for-loss-in-pipeline-split (stage_layout.h): the embedding (the loss) counted
  // as one layer of the first (the last) stage.
  bool embedding_in_split = false;
  bool loss_in_split = false;
  // Context parallelism: each sequence split over cp ranks (Megatron-Core's
  // --context-parallel-size), which exchange K and V as cp_comm says; cp_a2a, the all-to-all
  // sub-group of a2a+p2p (Megatron-Core's hierarchical_context_parallel_sizes[0]; 0: the
  // default, cp_a2a_ranks).
  std::int64_t cp = 1;
  CpComm cp_comm = CpComm::kP2p;
  std::int64_t cp_a2a = 0;
  // Expert parallelism (Megatron-Core's --expert-model-parallel-size): each MoE layer's E
  // experts split over ep ranks, E/ep on each; etp, the experts' own tensor-parallel degree
  // (--expert-tensor-parallel-size), 0: tp, Megatron-Core's default. The experts' grid lies
  // over the same tp x cp x dp ranks of a stage (expert_dp).
  std::int64_t ep = 1;
  std::int64_t etp = 0;
  // tp x cp x pp x dp. REQUIRES: it fits in an int64_t (split_gpus checks it).
  std::int64_t gpus() const { return tp * cp * pp * dp; }
};

// The experts' tensor-parallel degree: etp, or tp where it is 0.
std::int64_t expert_tp(const ParallelSplit& split);
// Whether the experts lie on their own grid (ep > 1, or an etp other than tp): then their
// tokens are dispatched by all-to-all (ep_comm), their weights split over ep x etp and their
// gradients reduced over expert_dp ranks. Otherwise every GPU holds every expert of its
// layers over tp, as the dense weights are.
bool experts_apart(const ParallelSplit& split);
// The expert data-parallel degree, tp x cp x dp / (etp x ep) (Megatron-Core's
// expert_data_parallel_size, parallel_state.py). REQUIRES: etp x ep divides tp x cp x dp.
std::int64_t expert_dp(const ParallelSplit& split);

// What framework_refusal (framework.h) says of the choices `c` fixes.
struct SplitConstraints;
std::optional<FrameworkRefusal> framework_refusal(const FrameworkProfile& framework,
                                                  const SplitConstraints& c);

// tp x cp x pp x dp; throws InputError naming the degrees and their product when it is above
// kMaxSplitGpus (or past the largest 64-bit count): "tp x pp x dp = ..." when cp is 1, "tp x cp
// x pp x dp = ..." otherwise.
std::int64_t split_gpus(std::int64_t tp, std::int64_t pp, std::int64_t dp, std::int64_t cp = 1);

// A split with some of its choices open: a set field is fixed, an empty one is searched
// (split_search.h). What a scenario's [parallel] section and the --tp ... flags give.
struct SplitConstraints {
  std::optional<std::int64_t> tp, pp, dp, micro_batch, interleave;
  std::optional<bool> sequence_parallel;
  std::optional<Recompute> recompute;
  std::optional<int> zero;
  std::optional<bool> dp_overlap;
  std::optional<bool> tp_overlap;
  std::optional<std::int64_t> first_stage_layers, last_stage_layers;
  std::optional<bool> embedding_in_split, loss_in_split;
  std::optional<std::int64_t> cp;
  std::optional<CpComm> cp_comm;
  std::optional<std::int64_t> cp_a2a;
  std::optional<std::int64_t> ep, etp;
  // Whether the three degrees tp, pp and dp are given: then one split is evaluated, the open
  // choices (cp among them) taking their defaults (defaults()).
  bool degrees_fixed() const { return tp && pp && dp; }
  // The split with every open choice at its default: degrees 1 (cp too), micro-batch 1,
  // interleave 1, the framework's cp_comm and the default cp_a2a (0), ep 1 and etp 0 (tp),
  // and the framework's: sequence parallelism (with tp > 1), recomputation, ZeRO stage (with
  // dp > 1; at most 1 beside pipeline parallelism where the framework runs ZeRO-2/3 without
  // it only), dp_overlap and tp_overlap; the first and last stage layers not given (0); the
  // embedding and the loss not counted in the split.
  ParallelSplit defaults(const FrameworkProfile& framework) const;
};

// The default memory reserve: 10% of HBM, vLLM's default gpu_memory_utilization of 0.9 (the
// one published default of a framework for the share of a GPU's memory left to what its own
// accounting does not hold). docs/models.md ("Memory per GPU") has what it covers.
inline constexpr double kDefaultMemoryReserve = 0.10;

struct TransformerJob {
  TransformerShape model;
  TrainingSetup training;
  Accelerator gpu;
  Topology fabric;                // one node of the fabric (scaled to the job's GPUs)
  double dp_bucket_bytes = 25e6;  // gradient bucket with dp_overlap (PyTorch DDP's 25 MB)
  double sigma = 0;               // per-GPU compute jitter (step_model.h's variance)
  // One node's GPUs this many times slower (>= 1), and one node's link at this rate (0: none):
  // split_variance.h.
  double bad_node_slowdown = 1.0;
  double bad_link_bandwidth_Bps = 0;
  double serial_s = 0;            // per-step time that does not parallelise
  // What the training stack does (framework.h). Default: megatron-core, as a scenario's.
  FrameworkProfile framework = default_framework();
  // The fraction of HBM kept free of the model's memory: the CUDA context, NCCL's buffers and
  // the caching allocator's fragmentation. A split fits when its memory is at most
  // (1 - memory_reserve) x HBM. In [0, 1). Default kDefaultMemoryReserve.
  double memory_reserve = kDefaultMemoryReserve;
  // A mixture of experts' measured load imbalance under expert parallelism: the heaviest EP
  // rank's routed tokens over the mean (>= 1; at most ep is taken). 0: the expected heaviest
  // rank under balanced multinomial routing (expected_moe_imbalance).
  double moe_imbalance = 0;
};

// Why a split cannot run at all (as opposed to not fitting in memory).
enum class SplitProblem {
  kNone,
  kLayers,          // the framework cannot lay the layers out on pp stages (stage_layout.h):
                    // pp v does not divide them, or the given first/last stage layers or
                    // DeepSpeed's partition leave a stage that cannot run
  kHeads,           // tp does not divide the heads, or neither divides the KV heads nor
                    // is divided by them (Megatron-Core)
  kBatch,           // dp b does not divide the global batch
  kInterleave,      // v > 1 needs pp > 1 and m a multiple of pp
  kFabric,          // the GPUs do not fill whole nodes of the fabric
  kSequence,        // 2 cp does not divide the sequence (Megatron's causal load balancing)
  kCpHeads,         // the all-to-all of a2a or a2a+p2p: its ranks do not divide the heads or
                    // the KV heads a TP rank holds (Transformer Engine's requirement)
  kExperts,         // ep does not divide the experts, or etp x ep does not divide tp x cp x dp
                    // (Megatron-Core's expert grid over the same ranks)
};
// "", "layers", "heads", "batch", "interleave", "fabric", "sequence", "cp heads", "experts".
std::string_view split_problem_name(SplitProblem problem);
// The problem in words: "pp x interleave does not divide the layers", ...
std::string_view split_problem_text(SplitProblem problem);

// Why `split` cannot run `job` (kNone: it can), from divisibility alone, without costing it:
// what evaluate_split sets as its problem. Products of degrees past the largest 64-bit count
// are larger than any layer or batch count, so they do not divide it. REQUIRES: a valid model
// and split (evaluate_split's requirements).
SplitProblem split_problem(const TransformerJob& job, const ParallelSplit& split);
// The problem of `split` in words with its numbers: "pp x interleave does not divide the layers
// (8 x 5 = 40; 96 layers)"; for kLayers, stage_layout's reason, which names the keys that lay
// the stages out unevenly where the framework has them.
std::string split_problem_detail(const TransformerJob& job, const ParallelSplit& split,
                                 SplitProblem problem);

// The binding mechanism of a split: the largest part lost against pure compute, or memory.
enum class SplitBinding {
  kCompute, kSerial, kLatency, kBandwidth, kVariance, kPipelineBubble, kMemory
};
// "compute", "serial", "latency", "bandwidth", "variance", "pipeline bubble", "memory".
std::string_view split_binding_name(SplitBinding binding);

// A kind of pipeline stage: the only one (pp 1), the first (the embedding, the most
// micro-batches in flight), a middle one (stage 1, the fullest of them: p - 1 in flight), the
// last (the logits).
enum class PipelineStage { kOnly, kFirst, kMiddle, kLast };
// "only stage", "first stage", "middle stage", "last stage".
std::string_view pipeline_stage_name(PipelineStage stage);

struct SplitMemory {
  PipelineStage stage = PipelineStage::kOnly;  // the stage these figures are of
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double buffers_bytes = 0;
  double total() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + buffers_bytes;
  }
};

struct SplitStep {
  ParallelSplit split;
  SplitProblem problem = SplitProblem::kNone;  // not kNone: nothing below is filled in
  std::int64_t micro_batches = 0;              // m per pipeline
  double compute_s = 0;
  double recompute_s = 0;
  double tp_comm_s = 0;
  double cp_comm_s = 0;        // the context-parallel exchange, exposed
  double ep_comm_s = 0;        // the experts' token dispatch and combine, exposed
  double pp_bubble_s = 0;
  double pp_transfer_s = 0;
  double dp_comm_s = 0;        // exposed
  double optimizer_s = 0;
  double variance_s = 0;
  double serial_s = 0;
  double step_s = 0;           // the sum of the above
  double comm_latency_s = 0;   // of tp_comm + cp_comm + ep_comm + pp_transfer + dp_comm, the
                               // latency terms
  SplitMemory memory;          // the stage that holds the most, per GPU
  StageLayout layout;          // the layers each stage holds (stage_layout.h)
  PipelineStage slowest = PipelineStage::kOnly;  // the stage whose time per micro-batch paces it
  double memory_limit_bytes = 0;
  bool fits = false;
  double lacks_bytes = 0;      // memory - limit when it does not fit
  double executed_flops = 0;   // per step: forward, backward, recomputation (Narayanan's count)
  double model_flops = 0;      // per step: forward and backward only
  double tflops_per_gpu = 0;   // executed_flops / (step N) / 1e12
  double mfu = 0;              // model_flops / (step N peak)
  double tokens_per_s = 0;
  SplitBinding binding = SplitBinding::kCompute;
};

// A binding mechanism other than compute is named when what it loses is at least this share
// of the step: 10%, the seed's line between a job that scales well (90%) and one that does not.
inline constexpr double kSplitBindingShare = 0.10;

// The step of `job` under `split` on split.gpus() GPUs. A split that cannot run is returned
// with its problem set; one that does not fit is evaluated in full, with fits = false and
// binding kMemory. REQUIRES: a valid model (require_valid), tp, cp, pp, dp, b, v >= 1, zero in
// [0, 3], cp_a2a 0 or a divisor of cp, tp x cp x pp x dp at most kMaxSplitGpus (throws
// InputError naming the value).
SplitStep evaluate_split(const TransformerJob& job, const ParallelSplit& split);

// The ranks of the all-to-all sub-group of `split`'s context-parallel exchange: 1 for p2p, cp
// for a2a; for a2a+p2p split.cp_a2a, or by default the most ranks that divide cp and the heads
// and KV heads a TP rank holds and keep tp x cp_a2a inside one node (the all-to-all on NVLink,
// the ring across nodes, as Megatron-Core's description of a2a+p2p has it). 1 when cp is 1.
std::int64_t cp_a2a_ranks(const TransformerJob& job, const ParallelSplit& split);

// The context-parallel exchange of one layer and micro-batch on one rank, as Transformer
// Engine runs it (docs/models.md, "Context parallelism"): its all-to-all sub-group and its
// ring, the bytes each call moves (2-byte values; d = h/a the head dimension, k' the KV heads
// a TP rank holds) and the tokens each call of the attention kernel runs on. All-zero sizes
// and one rank each when cp is 1.
struct CpExchange {
  std::int64_t a2a_ranks = 1;   // cp_a2a_ranks
  std::int64_t ring_ranks = 1;  // cp / a2a_ranks
  double q_bytes = 0;      // one all-to-all of Q (and of O, dO, dQ): b (s/cp) (a/t) d x 2 B
  double kv_bytes = 0;     // one all-to-all of K (and of V, dK, dV): b (s/cp) k' d x 2 B
  double block_bytes = 0;  // one ring send, K and V of the tokens a rank holds after the
                           // all-to-all: 2 b (s/r) (k'/a2a) d x 2 B, r the ring's ranks
  double kernel_seq = 0;   // the sequence length each kernel call runs at: s / r
};
// REQUIRES: split_problem(job, split) is kNone.
CpExchange cp_exchange(const TransformerJob& job, const ParallelSplit& split);

// Why `split` cannot be priced for `job`'s experts, as an InputError's message naming the keys
// and values, or nullopt: ep above 1 on a dense model or under a framework without expert
// parallelism (framework.h), an etp below 0, an etp other than tp under such a framework, and,
// with the experts apart (experts_apart), ZeRO-3 (Megatron-FSDP's sharding of expert-parallel
// experts is not priced) or tp > 1 without sequence parallelism (Megatron-Core's MoE layer
// refuses it in training: moe_layer.py). evaluate_split throws it; the search skips such
// splits.
std::optional<std::string> expert_refusal(const TransformerJob& job, const ParallelSplit& split);

// One MoE layer's token dispatch on one rank per micro-batch, as Megatron-Core's all-to-all
// dispatcher runs it (docs/models.md, "Expert parallelism"): each rank routes the tokens of its
// sequence shard, T_l = b s / (cp tp), sends each routed copy to the EP rank holding its expert
// (all-to-all over ep ranks), then all-gathers what it received over the etp ranks of its
// expert-TP group; the experts of a rank run on the routed copies of T_g = etp ep T_l tokens.
// With the experts not apart (ep 1, etp tp) T_g is b s / cp, every token of the TP group, as
// before. 2-byte values; k' = c k routed copies of a token (routed_copies).
struct ExpertDispatch {
  double local_tokens = 0;       // T_l = b s / (cp tp)
  double group_tokens = 0;       // T_g = etp ep T_l
  double tokens_per_expert = 0;  // k T_g / E balanced (dropless), ceil(c k T_g / E) padded
  double alltoall_bytes = 0;     // k' T_l h x 2 B: one all-to-all's send buffer on a rank (of
                                 // which (ep - 1)/ep leave it)
  double probs_bytes = 0;        // k' T_l x 2 B: the routing probabilities' all-to-all
  double gather_bytes = 0;       // etp k' T_l h x 2 B: the expert-TP all-gather's output (and
                                 // the combine's reduce-scatter input)
  // The heaviest EP rank's routed tokens over the mean: of the T_g tokens its experts run on
  // (imbalance), and of the ep T_l tokens of one all-to-all (alltoall_imbalance; the same
  // with etp 1). 1 with ep 1 or a capacity factor (every expert padded to its capacity); the
  // job's moe_imbalance where it gives one (at most ep), else expected_moe_imbalance.
  double imbalance = 1;
  double alltoall_imbalance = 1;
};
// REQUIRES: a valid MoE model and split (evaluate_split's requirements).
ExpertDispatch expert_dispatch(const TransformerJob& job, const ParallelSplit& split);

// The expected heaviest of `ep` EP ranks' routed tokens over the mean when `tokens` tokens are
// each routed to `topk` distinct experts of `experts` chosen uniformly (balanced multinomial
// routing; E/ep experts per rank): with n = tokens, k = topk, E = experts and e_ep the
// expected largest of ep standard normals (straggler.h),
//   1 + e_ep sqrt(ep (E - k) / ((E - 1) n k))
// (each rank's load a sum of n hypergeometric counts, the ep loads normal with their sum fixed).
// 1 when ep is 1. REQUIRES: 1 <= topk <= experts, ep divides experts, tokens > 0.
double expected_moe_imbalance(std::int64_t experts, std::int64_t topk, std::int64_t ep,
                              double tokens);
// The same by Monte Carlo: `trials` draws of `tokens` tokens routed as above, the mean of the
// heaviest rank's load over the mean load, from std::mt19937_64 seeded with `seed` (the same
// seed gives the same figure). Throws InputError for trials or tokens below 1.
double simulated_moe_imbalance(std::int64_t experts, std::int64_t topk, std::int64_t ep,
                               std::int64_t tokens, std::int64_t trials, std::uint64_t seed);

}  // namespace scalewall

#endif  // SCALEWALL_PARALLEL_STEP_H_
