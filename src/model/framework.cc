// Implementation of scalewall/model/framework.h. Each preset's behaviours with their sources;
// docs/models.md ("Framework profiles") has the same table.
#include "scalewall/model/framework.h"

#include <fmt/format.h>

#include <array>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

// Megatron-LM as Narayanan et al. 2021 ran it (arXiv 2104.04473, sections 3 and 5): tensor,
// pipeline and data parallelism; the softmax, mask and dropout as their own (fused softmax)
// kernels over the stored s x s scores; full activation recomputation in every run of
// Table 1; the gradient all-reduce after the last backward (no overlap); no ZeRO, no
// sequence parallelism (both came later).
constexpr FrameworkProfile kMegatron2021{
    .name = "megatron-lm-2021",
    .description = "Megatron-LM as in Narayanan et al. 2021 (PTD-P, full recomputation, no "
                   "overlap, unfused attention)",
    .attention = AttentionKernel::kUnfused,
    .recompute = Recompute::kFull,
};

// Megatron-LM as Korthikanti et al. 2022 ran it (arXiv 2205.05198, sections 4 and 5):
// sequence parallelism beside tensor parallelism and selective recomputation of the
// attention core (their "present work"); full recomputation remains an option. Attention
// still stores the scores; no overlap of DP traffic. The backward of a column-parallel linear
// runs its TP collectives beside its GEMMs (megatron/core/tensor_parallel/layers.py,
// LinearWithGradAccumulationAndAsyncCommunication.backward: the input's all-gather issued
// before the dgrad GEMM, the input gradient's reduce-scatter or all-reduce before the wgrad
// GEMM, each async_op=True, ordered by CUDA_DEVICE_MAX_CONNECTIONS=1). The distributed
// optimizer (--use-distributed-optimizer, Megatron-LM 3.0) shards the optimizer state: ZeRO-1.
constexpr FrameworkProfile kMegatron2022{
    .name = "megatron-lm-2022",
    .description = "Megatron-LM as in Korthikanti et al. 2022 (sequence parallelism, "
                   "selective recomputation)",
    .attention = AttentionKernel::kUnfused,
    .sequence_parallel = true,
    .can_sequence_parallel = true,
    .recompute = Recompute::kSelective,
    .can_selective = true,
    .max_zero = 1,
    .tp_backward_async = true,
};

// Megatron-Core with Transformer Engine (NVIDIA/Megatron-LM megatron/training/arguments.py,
// megatron/core/distributed/distributed_data_parallel{,_config}.py) as NVIDIA's recipes run
// it: FlashAttention / cuDNN fused attention (TE DotProductAttention); --sequence-parallel
// with TP; no recomputation (--recompute-granularity defaults to None); the distributed
// optimizer (--use-distributed-optimizer, ZeRO-1) with --overlap-grad-reduce and
// --overlap-param-gather, buckets of max(40,000,000, 1,000,000 x dp) parameters
// (distributed_data_parallel.py); --tp-comm-overlap (TE userbuffers, below); Megatron-FSDP
// (ZeRO-2/3, one bucket per layer, the next prefetched). --fp8-param-gather is off by default
// (DistributedDataParallelConfig.fp8_param_gather = False). Context parallelism
// (--context-parallel-size) with --cp-comm-type's default, "p2p" (megatron/training/
// arguments.py; TEDotProductAttention passes "p2p" when none is given:
// megatron/core/extensions/transformer_engine.py). Expert parallelism
// (--expert-model-parallel-size, --expert-tensor-parallel-size, whose default is the
// tensor-parallel size: megatron/core/model_parallel_config.py, "Default is None, which will be
// set to the value of tensor_model_parallel_size") with the all-to-all token dispatcher
// (moe/token_dispatcher.py, MoEAlltoAllTokenDispatcher: --moe-token-dispatcher-type alltoall,
// as NVIDIA's MoE recipes run it).
constexpr FrameworkProfile kMegatronCore{
    .name = "megatron-core",
    .description = "Megatron-Core with Transformer Engine (flash attention, sequence "
                   "parallelism, distributed optimizer, TP and DP overlap)",
    .attention = AttentionKernel::kFlash,
    .sequence_parallel = true,
    .can_sequence_parallel = true,
    .recompute = Recompute::kNone,
    .can_selective = true,
    .zero = 1,
    .max_zero = 3,
    .dp_overlap = true,
    .can_dp_overlap = true,
    .tp_overlap = true,
    .can_tp_overlap = true,
    .dp_bucket_min_params = 40e6,
    .dp_bucket_params_per_rank = 1e6,
    .can_context_parallel = true,
    .cp_comm = CpComm::kP2p,
    .can_expert_parallel = true,
    .partition = LayerPartition::kMegatronEnds,
    .shard_unit = ShardUnit::kBlock,
    .prefetch_units = 1,
};

// Megatron-DeepSpeed as BLOOM-176B was trained (BigScience, Le Scao et al. 2022, section
// 3.4; bigscience-workshop/Megatron-DeepSpeed): Megatron's TP and DeepSpeed's pipeline
// engine with ZeRO stage 1 (the pipeline engine runs no higher stage), full activation
// checkpointing (--checkpoint-activations), fused softmax over stored scores, no overlap of
// TP traffic. Its stages are DeepSpeed's PipelineModule's, partitioned as BLOOM's run asked
// (bigscience-workshop/bigscience train/tr11-176B-ml/tr11-176B-ml.slurm: --pp-partition-method
// 'type:transformer|embedding'; megatron/model/gpt_model.py passes it to PipelineModule).
// Megatron-Core's uneven stages (Megatron-LM, September 2024) came later.
constexpr FrameworkProfile kMegatronDeepSpeed{
    .name = "megatron-deepspeed",
    .description = "Megatron-DeepSpeed as BLOOM ran it (ZeRO-1 with pipeline parallelism, full "
                   "recomputation, no TP overlap)",
    .attention = AttentionKernel::kUnfused,
    .recompute = Recompute::kFull,
    .zero = 1,
    .max_zero = 1,
    .partition = LayerPartition::kTypeTransformerEmbedding,
};

// DeepSpeed ZeRO as the 2021 releases that Narayanan et al. 2021 compared against ran it
// (ZeRO-3 shipped in v0.3.12, March 2021; microsoft/DeepSpeed v0.3.12 to v0.4.4,
// deepspeed/runtime/zero/stage3.py, partition_parameters.py, constants.py: contiguous
// gradients became stage 3's default in v0.4.5, the synchronizing gather went in v0.5.5): stages 1 to 3 (stage 3 the profile's default);
// stage 3 gathers each submodule's parameters in a forward pre-hook and again before its
// backward (and before a recomputed forward: the hooks run on every call), one
// torch.distributed.all_gather per parameter, prefetching the next parameters up to
// stage3_prefetch_bucket_size = 5e7 elements, which is at least one module and less than one
// weight matrix of the large models it is compared on; overlap_comm defaults to true at stage
// 3 (ZERO3_OPTIMIZATION_OVERLAP_COMM_DEFAULT); ZeRO-2/3 do not run beside the pipeline engine.
// Three behaviours of that code are priced:
//  - fetch_syncs_device: fetch_sub_module ends in _synchronize_communication, which waits on
//    every handle and calls torch.cuda.synchronize(); _allgather_param calls
//    torch.cuda.synchronize() before each all-gather ("the async version is not async at
//    all", DeepSpeed's own commit c0eeb69 of October 2021 that removed it);
//  - grad_allreduce: stage 3's contiguous_gradients defaults to false
//    (ZERO3_OPTIMIZATION_CONTIGUOUS_GRADIENTS_DEFAULT), so reduce_ipg_grads takes
//    buffered_reduce_fallback, which all-reduces the gradients (allreduce_bucket) and
//    partitions them afterwards;
//  - gather_copies_out: _allgather_param passes a list of world_size narrowed outputs, and
//    PyTorch's list-form all_gather gathers into a flat buffer and copies it out ("the
//    torch.distributed.all_gather will do implicit memcpy at the end of each ncclAllgather",
//    the same commit).
// Attention as the Megatron GPT model of Narayanan's comparison ran it (unfused). Beside
// pipeline parallelism (ZeRO-0/1) its stages are PipelineModule's with the partition_method
// of Megatron-DeepSpeed's GPTModelPipe, "type:transformer" (megatron/model/gpt_model.py).
constexpr FrameworkProfile kDeepSpeedZero{
    .name = "deepspeed-zero",
    .description = "DeepSpeed ZeRO stages 1-3 as of 2021 (per-parameter gathers behind a "
                   "device sync, stage3_prefetch_bucket_size, gradients all-reduced)",
    .attention = AttentionKernel::kUnfused,
    .recompute = Recompute::kNone,
    .zero = 3,
    .max_zero = 3,
    .zero3_with_pp = false,
    .dp_overlap = true,
    .can_dp_overlap = true,
    .partition = LayerPartition::kTypeTransformer,
    .shard_unit = ShardUnit::kSubmodule,
    .prefetch_units = 1,
    .regather_for_recompute = true,
    .fetch_syncs_device = true,
    .grad_allreduce = true,
    .gather_copies_out = true,
};

// PyTorch FSDP2 as TorchTitan runs it (pytorch/torchtitan torchtitan/distributed/fsdp.py
// apply_fsdp_to_decoder, torchtitan/config/configs.py): fully_shard on every transformer
// block (one unit per layer, the embeddings and output in the root unit), FSDP2's implicit
// prefetch of the next unit in forward and backward, reshard after forward (the block is
// gathered again for its backward, once for the recomputation and the backward together),
// scaled_dot_product_attention's flash kernel, sequence parallelism in its TP plan.
// Asynchronous TP (enable_async_tensor_parallel) needs torch.compile and is off by default:
// the profile has no TP overlap. Its context parallelism is PyTorch's context_parallel, whose
// default exchange all-gathers the KV shards (context_parallel_rotate_method "allgather"): none
// of the three exchanges priced, so cp > 1 is refused. Its expert parallelism
// (torchtitan/distributed/expert_parallel.py) is not Megatron-Core's dispatcher and is not
// priced either: ep > 1 is refused. The other profiles stand for the dense runs of their papers
// and releases, without expert parallelism.
constexpr FrameworkProfile kTorchFsdp2{
    .name = "torch-fsdp2",
    .description = "PyTorch FSDP2 as TorchTitan runs it (one unit per block, prefetch one "
                   "ahead, reshard after forward, flash attention)",
    .attention = AttentionKernel::kFlash,
    .sequence_parallel = true,
    .can_sequence_parallel = true,
    .recompute = Recompute::kNone,
    .can_selective = true,
    .zero = 3,
    .max_zero = 3,
    .dp_overlap = true,
    .can_dp_overlap = true,
    .cp_refusal = "runs context parallelism as PyTorch's context_parallel does (TorchTitan's "
                  "context_parallel_rotate_method \"allgather\": the KV shards all-gathered), "
                  "which is not priced",
    .ep_refusal = "runs expert parallelism as TorchTitan does "
                  "(torchtitan/distributed/expert_parallel.py), which is not priced",
    .shard_unit = ShardUnit::kBlock,
    .prefetch_units = 1,
};

constexpr std::array<FrameworkProfile, 6> kPresets = {
    kMegatron2021, kMegatron2022, kMegatronCore, kMegatronDeepSpeed, kDeepSpeedZero,
    kTorchFsdp2};

}  // namespace

std::string_view attention_kernel_name(AttentionKernel kernel) {
  switch (kernel) {
    case AttentionKernel::kUnfused: return "unfused";
    case AttentionKernel::kFlash: return "flash";
  }
  SCALEWALL_CHECK(false && "unknown AttentionKernel");
  return "";
}

std::string_view shard_unit_name(ShardUnit unit) {
  switch (unit) {
    case ShardUnit::kBlock: return "block";
    case ShardUnit::kSubmodule: return "submodule";
  }
  SCALEWALL_CHECK(false && "unknown ShardUnit");
  return "";
}

std::string_view layer_partition_name(LayerPartition partition) {
  switch (partition) {
    case LayerPartition::kMegatronEven: return "even";
    case LayerPartition::kMegatronEnds: return "even or first/last stage layers";
    case LayerPartition::kTypeTransformer: return "type:transformer";
    case LayerPartition::kTypeTransformerEmbedding: return "type:transformer|embedding";
  }
  SCALEWALL_CHECK(false && "unknown LayerPartition");
  return "";
}

std::string_view cp_comm_name(CpComm comm) {
  switch (comm) {
    case CpComm::kP2p: return "p2p";
    case CpComm::kA2a: return "a2a";
    case CpComm::kA2aP2p: return "a2a+p2p";
  }
  SCALEWALL_CHECK(false && "unknown CpComm");
  return "";
}

CpComm parse_cp_comm(std::string_view text) {
  for (const CpComm c : {CpComm::kP2p, CpComm::kA2a, CpComm::kA2aP2p}) {
    if (text == cp_comm_name(c)) return c;
  }
  throw InputError(fmt::format("unknown cp_comm '{}' (expected p2p, a2a or a2a+p2p)", text));
}

std::span<const FrameworkProfile> framework_presets() { return kPresets; }

const FrameworkProfile& default_framework() { return kPresets[2]; }

std::string framework_names() {
  std::string out;
  for (const FrameworkProfile& f : kPresets) out += fmt::format("{}{}", out.empty() ? "" : ", ", f.name);
  return out;
}

const FrameworkProfile& framework_preset(std::string_view name) {
  for (const FrameworkProfile& f : kPresets) {
    if (f.name == name) return f;
  }
  throw InputError(
      fmt::format("unknown framework '{}' (expected one of: {})", name, framework_names()));
}

namespace {

// The layout choices the framework cannot run: interleaving under DeepSpeed's pipeline engine
// (its TrainSchedule is 1F1B over one model chunk per stage: deepspeed/runtime/pipe/schedule.py),
// and the first/last stage layer counts and the embedding or loss counted in the split
// anywhere but Megatron-Core.
std::optional<FrameworkRefusal> layout_refusal(const FrameworkProfile& f,
                                               const FrameworkChoices& c) {
  const auto no = [&](std::string_view key, std::string why) {
    return FrameworkRefusal{std::string(key),
                            fmt::format("system.framework {} {}", f.name, why)};
  };
  const bool deepspeed = f.partition == LayerPartition::kTypeTransformer ||
                         f.partition == LayerPartition::kTypeTransformerEmbedding;
  if (deepspeed && c.interleave.value_or(1) > 1) {
    return no("interleave", "has no interleaved schedule (DeepSpeed's pipeline engine runs one "
                            "model chunk per stage)");
  }
  const auto set = [](const auto& choice) { return choice && *choice; };
  for (const auto& [key, value] :
       {std::pair{"first_stage_layers", set(c.first_stage_layers)},
        std::pair{"last_stage_layers", set(c.last_stage_layers)},
        std::pair{"embedding_in_split", set(c.embedding_in_split)},
        std::pair{"loss_in_split", set(c.loss_in_split)}}) {
    if (!value || f.partition == LayerPartition::kMegatronEnds) continue;
    return no(key, deepspeed ? fmt::format("lays out the stages itself (PipelineModule "
                                           "partition_method \"{}\")",
                                           layer_partition_name(f.partition))
                             : std::string("lays the layers out evenly only (uneven stages "
                                           "came with Megatron-Core: system.framework "
                                           "megatron-core)"));
  }
  return std::nullopt;
}

}  // namespace

std::optional<FrameworkRefusal> framework_refusal(const FrameworkProfile& f,
                                                  const FrameworkChoices& c) {
  const auto no = [&](std::string_view key, std::string why) {
    return FrameworkRefusal{std::string(key),
                            fmt::format("system.framework {} {}", f.name, why)};
  };
  if (c.sequence_parallel.value_or(false) && !f.can_sequence_parallel) {
    return no("sequence_parallel", "has no sequence parallelism");
  }
  if (c.recompute == Recompute::kSelective && !f.can_selective) {
    return no("recompute", "has no selective recomputation (none or full)");
  }
  if (c.zero && *c.zero > f.max_zero) {
    return no("zero", fmt::format("runs ZeRO stages up to {}", f.max_zero));
  }
  if (c.zero && *c.zero >= 2 && !f.zero3_with_pp && c.pp.value_or(1) > 1) {
    return no("zero", fmt::format("runs ZeRO-2 and ZeRO-3 without pipeline parallelism only "
                                  "(parallel.pp {})",
                                  c.pp.value_or(1)));
  }
  if (c.dp_overlap.value_or(false) && !f.can_dp_overlap) {
    return no("dp_overlap", "does not overlap data-parallel traffic with compute");
  }
  if (c.tp_overlap.value_or(false) && !f.can_tp_overlap) {
    return no("tp_overlap", "does not overlap tensor-parallel traffic with its GEMMs");
  }
  if (!f.can_context_parallel) {
    if (c.cp.value_or(1) > 1) return no("cp", std::string(f.cp_refusal));
    if (c.cp_comm) return no("cp_comm", std::string(f.cp_refusal));
    if (c.cp_a2a) return no("cp_a2a", std::string(f.cp_refusal));
  }
  if (!f.can_expert_parallel) {
    if (c.ep.value_or(1) > 1) return no("ep", std::string(f.ep_refusal));
    if (c.etp && (!c.tp || *c.etp != *c.tp)) return no("etp", std::string(f.ep_refusal));
  }
  return layout_refusal(f, c);
}

}  // namespace scalewall
