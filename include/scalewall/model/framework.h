// scalewall/model/framework.h: what a training stack does, as a named set of behaviours: which
// attention kernel it runs, what it turns on by default (sequence parallelism, recomputation,
// the ZeRO stage), which traffic it overlaps with compute (data-parallel gradients and
// parameter gathers, tensor-parallel collectives), how it shards parameters under ZeRO-3/FSDP
// (the unit gathered at once and how far ahead it prefetches), and what it cannot do at all.
// A profile holds no efficiency constant: every field is a switch or a size that the
// framework's code or paper sets, named in framework.cc beside its value and in
// docs/models.md ("Framework profiles").
//
// The step model (parallel_step.h) prices each behaviour; the split search (split_search.h)
// searches only what the profile allows; a scenario names its profile with
// system.framework (default "megatron-core").
#ifndef SCALEWALL_FRAMEWORK_H_
#define SCALEWALL_FRAMEWORK_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "scalewall/model/transformer.h"

namespace scalewall {

// The attention core's kernels. kUnfused: QK^T and AV as batched GEMMs with the softmax, its
// mask and dropout as separate memory-bound kernels that store the s x s scores (Megatron-LM
// 2021/2022). kFlash: one fused, tiled kernel that never writes the scores to HBM, recomputes
// them in its backward and skips the masked half of a causal sequence (Dao et al. 2022, 2023;
// cuDNN fused attention in Transformer Engine, PyTorch's scaled_dot_product_attention).
enum class AttentionKernel { kUnfused, kFlash };
// "unfused", "flash".
std::string_view attention_kernel_name(AttentionKernel kernel);

// What ZeRO-3/FSDP gathers in one call. kBlock: one transformer layer's parameters (FSDP2's
// fully_shard per block; Megatron-FSDP's per-layer buckets). kSubmodule: each weight matrix
// on its own (QKV, projection, the two MLP matrices: DeepSpeed's per-module hooks, whose
// prefetch bucket is far smaller than one matrix of a large model).
enum class ShardUnit { kBlock, kSubmodule };
// "block", "submodule".
std::string_view shard_unit_name(ShardUnit unit);

// How the transformer layers are laid out on the pipeline stages (stage_layout.h has each
// rule in full).
//  kMegatronEven: l/(p v) layers per model chunk, refused unless p v divides l (Megatron-LM
//    as Narayanan et al. 2021 and Korthikanti et al. 2022 ran it).
//  kMegatronEnds: the same, or the first and/or the last stage's layers given
//    (--decoder-first-pipeline-num-layers, --decoder-last-pipeline-num-layers; Megatron-Core
//    transformer_config.py, "Uneven PP"), the rest divided evenly over the other stages.
//  kTypeTransformer, kTypeTransformerEmbedding: DeepSpeed's PipelineModule with
//    partition_method "type:transformer" (Megatron-DeepSpeed's GPTModelPipe default) or
//    "type:transformer|embedding" (BLOOM's run): the layers whose class name matches weigh 1,
//    the others 0, and ds_utils.partition_balanced fills the stages in order, each up to the
//    smallest bottleneck that fits; the embedding and the tied logits layer count as one
//    each under the second. One model chunk per stage (no interleaved schedule).
enum class LayerPartition { kMegatronEven, kMegatronEnds, kTypeTransformer, kTypeTransformerEmbedding };
// "even", "even or first/last stage layers", "type:transformer", "type:transformer|embedding".
std::string_view layer_partition_name(LayerPartition partition);

// How the ranks of a context-parallel group exchange what attention needs of the sequence they
// do not hold (Megatron-Core's cp_comm_type, run by Transformer Engine's DotProductAttention;
// docs/models.md, "Context parallelism").
//  kP2p: ring attention: K and V passed to the next rank cp - 1 times, each send under the
//    attention of the block in hand (AttnFuncWithCPAndKVP2P).
//  kA2a: DeepSpeed-Ulysses: all-to-alls of Q, K and V before the attention and of its output
//    after it give each rank the whole sequence for 1/cp of the heads
//    (AttnFuncWithCPAndQKVOA2A).
//  kA2aP2p: all-to-all inside sub-groups of cp_a2a ranks, the ring across them (Megatron-Core's
//    hierarchical_context_parallel_sizes).
enum class CpComm { kP2p, kA2a, kA2aP2p };
// "p2p", "a2a", "a2a+p2p".
std::string_view cp_comm_name(CpComm comm);
// The inverse; throws InputError naming the text and the three names otherwise.
CpComm parse_cp_comm(std::string_view text);

struct FrameworkProfile {
  std::string_view name;         // "megatron-core"
  std::string_view description;  // one line: the stack and the version it stands for
  AttentionKernel attention = AttentionKernel::kUnfused;

  // Defaults of the split's choices when a scenario leaves them open (predict), and what the
  // search may try (plan).
  bool sequence_parallel = false;  // default with tp > 1
  bool can_sequence_parallel = false;
  Recompute recompute = Recompute::kNone;  // default
  bool can_selective = false;              // selective recomputation exists
  int zero = 0;                            // default ZeRO stage (1: distributed optimizer)
  int max_zero = 0;                        // highest stage it runs
  bool zero3_with_pp = true;               // ZeRO-2/3 beside pipeline parallelism

  // Overlap of communication with compute.
  bool dp_overlap = false;      // default: gradient reduce(-scatter) in buckets under the
                                // backward, parameter all-gathers under the forward
  bool can_dp_overlap = false;
  bool tp_overlap = false;      // default: TP all-gathers and reduce-scatters pipelined with
                                // their GEMMs (needs sequence parallelism, TP inside a node)
  bool can_tp_overlap = false;
  // The backward of each column-parallel linear (QKV, FC1) issues its TP collectives
  // asynchronously: with sequence parallelism the re-gather of its saved input under the
  // dgrad GEMM and the reduce-scatter of its input gradient under the wgrad GEMM; without,
  // the all-reduce of its input gradient under the wgrad GEMM (Megatron-LM's
  // LinearWithGradAccumulationAndAsyncCommunication).
  bool tp_backward_async = false;
  // Gradient bucket of the data-parallel overlap, in parameters: max(min, per_rank x dp)
  // (Megatron-Core); 0 leaves TransformerJob::dp_bucket_bytes.
  double dp_bucket_min_params = 0;
  double dp_bucket_params_per_rank = 0;

  // Context parallelism: whether the framework splits the sequence over cp ranks, the exchange
  // it runs by default, and, where it has none that is priced, what it is refused with
  // (framework_refusal: "system.framework NAME <cp_refusal>").
  bool can_context_parallel = false;
  CpComm cp_comm = CpComm::kP2p;
  std::string_view cp_refusal = "has no context parallelism";

  // Expert parallelism: whether the framework splits an MoE layer's experts over ep ranks and
  // its own expert tensor-parallel degree etp (Megatron-Core's --expert-model-parallel-size and
  // --expert-tensor-parallel-size), dispatching the routed tokens with its all-to-all token
  // dispatcher; where it has none that is priced, what ep and etp are refused with
  // (framework_refusal: "system.framework NAME <ep_refusal>"). Without it every GPU holds all
  // the experts of its layers, sharded over tp as the dense weights are (etp = tp, the default
  // of every profile).
  bool can_expert_parallel = false;
  std::string_view ep_refusal = "has no expert parallelism";

  // How the layers are laid out on the pipeline stages. Default: Megatron-LM's even layout.
  LayerPartition partition = LayerPartition::kMegatronEven;

  // FP8: parameters all-gathered (ZeRO-1's and ZeRO-3's gathers) as 1-byte FP8 values, and
  // the FP8 weights kept as the only low-precision copy.
  bool fp8_param_gather = false;

  // ZeRO-3 / FSDP.
  ShardUnit shard_unit = ShardUnit::kBlock;
  int prefetch_units = 1;            // units gathered ahead of the one running (>= 0)
  bool regather_for_recompute = false;  // a fully recomputed forward gathers again
  // Each unit's fetch waits for the whole device (every stream) before its compute starts,
  // and a gather is issued only once the device is idle: a unit's compute overlaps only the
  // gather prefetched during it, never a gradient reduction still in flight.
  bool fetch_syncs_device = false;
  // A unit's gradients are all-reduced, each rank keeping its partition afterwards, rather
  // than reduce-scattered.
  bool grad_allreduce = false;
  // Each all-gather writes a flat buffer that is then copied into the dp per-rank outputs
  // (torch.distributed.all_gather's list form): 2 B read and written per gathered byte, at
  // HBM rate, after the gather.
  bool gather_copies_out = false;
};

// Every preset, in a fixed order: megatron-lm-2021, megatron-lm-2022, megatron-core,
// megatron-deepspeed, deepspeed-zero, torch-fsdp2.
std::span<const FrameworkProfile> framework_presets();
// The profile a scenario gets when it names none: megatron-core.
const FrameworkProfile& default_framework();
// The preset called `name`; throws InputError naming it and listing the presets otherwise.
const FrameworkProfile& framework_preset(std::string_view name);
// Every preset's name, joined by ", ".
std::string framework_names();

// Why `framework` cannot run a split with these choices: the [parallel] key at fault
// ("zero", "sequence_parallel", "recompute", "dp_overlap", "tp_overlap", "interleave",
// "first_stage_layers", "last_stage_layers", "embedding_in_split", "loss_in_split", "cp",
// "cp_comm", "cp_a2a", "ep", "etp") and the reason
// naming the framework ("system.framework megatron-lm-2021 runs ZeRO stages up to 0"), or
// nothing when it can. A choice left open (nullopt) is not checked.
struct FrameworkChoices {
  std::optional<bool> sequence_parallel;
  std::optional<Recompute> recompute;
  std::optional<int> zero;
  std::optional<bool> dp_overlap;
  std::optional<bool> tp_overlap;
  std::optional<std::int64_t> pp;
  std::optional<std::int64_t> interleave;
  std::optional<std::int64_t> first_stage_layers, last_stage_layers;
  std::optional<bool> embedding_in_split, loss_in_split;
  std::optional<std::int64_t> cp;
  std::optional<CpComm> cp_comm;
  std::optional<std::int64_t> cp_a2a;
  // ep above 1, and an etp other than tp (when tp is given; any etp when it is not), need
  // expert parallelism.
  std::optional<std::int64_t> tp, ep, etp;
};
struct FrameworkRefusal {
  std::string key;     // in [parallel]
  std::string reason;
};
std::optional<FrameworkRefusal> framework_refusal(const FrameworkProfile& framework,
                                                  const FrameworkChoices& choices);

}  // namespace scalewall

#endif  // SCALEWALL_FRAMEWORK_H_
