// scalewall/io/scenario_file.h: reading a training scenario (workload, network, variance,
// remedies, checkpoint, what-if parameters) from a TOML file. docs/scenarios.md describes
// every key and the examples in examples/.
//
// Values with units are strings read by units.h ("14GB", "300ms", "50GB/s"); bare numbers are
// SI base units (B, s, B/s) or plain counts and fractions. Counts must be TOML integers;
// plain numbers (parameters, ratios, factors) must be TOML numbers, not strings. Nothing may
// be negative, NaN or infinite. Unknown keys and sections are errors (a misspelt key must not
// fall back to a default). Every error is an InputError naming the file, the key (as
// section.key), the value as written and its line:
//   job.toml: workload.compute = '-3ms' (line 4): negative time '-3ms' is not allowed
//   job.toml: [netwrk] (line 8): unknown section (expected one of: ...)
//   job.toml: workload.scaling is missing ("strong" (global batch fixed) or "weak" ...)
//   job.toml: line 4: malformed TOML: ...
//
//   name = "seed-7b"                       # optional; default: the file name without .toml
//   description = "..."                    # optional, free text
//
//   [workload]                             # required
//   parameters = 7e9                       # with gradient_dtype or bytes_per_gradient ...
//   gradient_dtype = "bf16"                #   fp64 (8 B) | fp32 | tf32 (4 B) | bf16 | fp16
//                                          #   (2 B) | fp8 (1 B)
//   # bytes_per_gradient = 2               #   ... or give the bytes per element (> 0)
//   # gradient_bytes = "14GB"              # ... or the gradient size directly (not both)
//   compute = "300ms"                      # per-rank forward+backward of one step (required)
//   reference_ranks = 8                    #   ... at this rank count (default 1)
//   serial = "0s"                          # per-step serial time (default 0)
//   scaling = "strong"                     # strong | weak (required)
//   backward_fraction = 0.667              # in [0, 1], or "67%"; default 2/3
//
//   [network]                              # required; exactly one of:
//   fabric = "fabrics/dgx-h100-ndr.toml"   # a fabric file (path relative to this file's
//                                          #   directory, or absolute)
//   # alpha = "2.5us"; bandwidth = "25GB/s"  # a flat link (both required, both > 0)
//   # busbw = "50GB/s"; alpha = "0us"        # a measured all-reduce bus bandwidth (alpha
//                                            #   optional, default 0)
//   # [network.fabric_inline] ...            # (not supported: put fabrics in their own file)
//   algorithm = "auto"                     # auto (cheapest per call) or an all-reduce name;
//                                          #   not with busbw; hierarchical-* needs a fabric
//   selector = "auto"                      # what prices each all-reduce: auto (nccl on a
//                                          #   fabric of GPU ranks, mpi otherwise), nccl
//                                          #   (NCCL's choice; GPU fabrics only) or mpi
//   gamma = "0ns"                          # reduction cost per byte (default 0)
//   tree_chunk = "512KiB"                  # double binary tree chunk (default 512 KiB)
//
//   [variance]                             # optional
//   sigma = 0.02                           # or "2%"; in [0, 1]
//   bad_node_slowdown = 1.0                # >= 1
//   bad_link_bandwidth = "10GB/s"          # optional, > 0
//
//   [remedies]                             # how the job runs now (all optional)
//   overlap = false
//   bucket = "25MB"                        # "none" or 0: one fused call; default 25 MB
//   hierarchical = false                   # true needs a fabric file
//   placement = "packed"                   # overrides the fabric's (fabric files only)
//   compression_ratio = 1.0                # >= 1
//   compression_cost = "0ns"               # per gradient byte
//   accumulation_steps = 1                 # >= 1
//   batch_scale = 1.0                      # > 0
//
//   [checkpoint]                           # optional; bytes required when present
//   bytes = "100GB"
//   write_bandwidth = "5GB/s"              # required when bytes > 0
//   shared = true                          # false: per node
//   interval_steps = 1000
//   async = false
//
//   [what_if]                              # parameters of the what-if remedies (optional)
//   compression_ratio = 2.0                # >= 1
//   compression_cost = "0ns"
//   accumulation_steps = 4                 # >= 1
//   batch_scale = 2.0                      # > 0
//
// After reading, the scenario is checked by require_valid(Scenario) (step_model.h); its
// errors are prefixed with the file name.
//
// A transformer scenario has [model] instead of [workload] and [network]: its compute is
// derived from the model, the accelerator and the parallel split (parallel_step.h):
//
//   [model]                                # required for a transformer scenario
//   preset = "llama3.1-70b"                # optional: a model preset (model_presets.h) or a
//                                          #   Hugging Face config.json (ends in .json or holds
//                                          #   a '/'; relative to this file, hf_config.h); it
//                                          #   gives every key below, which override it
//   hidden = 12288                         # h
//   ffn = 49152                            # default 4 h
//   heads = 96
//   kv_heads = 96                          # default heads (grouped-query attention: fewer)
//   layers = 96
//   seq = 2048
//   vocab = 51200
//   mlp = "plain"                          # plain (2 matrices) | gated (3: SwiGLU); default plain
//   tied_embeddings = true                 # default true; false: the output layer's own V h
//   position = "learned"                   # learned (an s x h table) | rotary; default learned
//   head_dim = 128                         # default hidden / heads (Qwen3, gpt-oss: apart)
//   attention = "mha"                      # mha | mla (DeepSeek's latent attention); default mha
//   q_lora_rank = 1536                     # mla: the query latent's rank; default 0 (none)
//   kv_lora_rank = 512                     # mla: required, as the three below
//   qk_nope_dim = 128
//   qk_rope_dim = 64
//   v_head_dim = 128
//   experts = 8                            # routed experts per MoE layer; default 0 (dense)
//   topk = 2                               # with experts: required, 1 .. experts
//   moe_ffn = 14336                        # one expert's FFN; default ffn
//   shared_experts = 0                     # default 0
//   moe_every = 1                          # an MoE layer every k layers; default 1
//   dense_layers = 0                       # leading dense layers; default 0
//   capacity_factor = 1.25                 # > 0, at most experts / topk; absent: dropless
//
//   [training]                             # required
//   global_batch = 1536                    # sequences per optimizer step
//   micro_batch = 1                        # optional: unset, plan searches it
//   dtype = "bf16"                         # bf16 | fp16 | fp8; default bf16
//   scaling = "strong"                     # predict's curve over GPU counts: strong (the
//                                          #   global batch fixed) | weak (the batch per
//                                          #   data-parallel rank fixed); default strong
//
//   [parallel]                             # optional; an unset key is searched by plan
//   tp = 8                                 # and defaults (below) for predict
//   pp = 8
//   dp = 16
//   cp = 1                                 # context parallel: the sequence over cp ranks
//                                          #   (megatron-core; 2 cp must divide model.seq)
//   cp_comm = "p2p"                        # p2p | a2a | a2a+p2p; default: the framework's
//   cp_a2a = 2                             # a2a+p2p only: the all-to-all sub-group (divides
//                                          #   cp); default: the most that stay in a node
//   ep = 8                                 # a mixture of experts: expert parallelism, the
//                                          #   experts over ep ranks (megatron-core; divides
//                                          #   model.experts); default 1
//   etp = 1                                # the experts' tensor-parallel degree; default tp
//   moe_imbalance = 1.1                    # measured heaviest EP rank's routed tokens over
//                                          #   the mean (dropless); default: the expected
//                                          #   heaviest under balanced multinomial routing
//   interleave = 1                         # default 1
//   sequence_parallel = false              # default: the framework's (with tp > 1)
//   recompute = "none"                     # none | selective | full; default: the framework's
//   zero = 0                               # 0 .. 3 (3: FSDP); default: the framework's
//   dp_overlap = true                      # default: the framework's
//   tp_overlap = true                      # default: the framework's
//   first_stage_layers = 9                 # megatron-core: uneven stages (with
//   last_stage_layers = 7                  #   last_stage_layers); default even
//   embedding_in_split = true              # megatron-core: the embedding and the loss count
//   loss_in_split = true                   #   as a layer each in the split; default false
//
//   [system]                               # required
//   gpu = "a100-80gb"                      # an accelerator preset (accelerator.h) or a GPU
//                                          #   file (gpu_file.h), relative to this file
//   fabric = "dgx-a100"                    # a fabric preset or file (relative to this file)
//   gpus = 1024                            # default tp x cp x pp x dp when tp, pp and dp
//                                          #   are given
//   framework = "megatron-core"            # a profile (framework.h); default megatron-core
//   memory_reserve = 0.1                   # fraction of HBM kept free; default 0.1
//   gpus_per_node = 64                     # GPUs of each node the job uses; default all
//
//   [training] tokens = "15T"              # the run's tokens (a count: K, M, G or B, T, P
//                                          #   multiply by 1e3 .. 1e15): steps, days,
//                                          #   GPU-hours (time_to_train.h)
//   [system] gpu_hour_cost = 2.5           # money per GPU-hour, in any one currency; needs
//                                          #   training.tokens
//
//   [variance]                             # optional, as a data-parallel scenario's:
//   sigma = 0.02                           #   jitter; a bad node and a bad link
//   bad_node_slowdown = 1.1                #   (split_variance.h)
//   bad_link_bandwidth = "10GB/s"
//
//   [checkpoint]                           # optional (goodput.h)
//   bytes = "5.7TB"                        # default: parameters x 14 B
//   write_bandwidth = "2TB/s"              # required, > 0
//   write_bandwidth_per = "job"            # node | gpu | job (a shared file system's
//                                          #   aggregate); default node
//   interval = 100                         # steps (an integer) or a time ("30min", rounded
//                                          #   to whole steps); default: the best (Daly),
//                                          #   which needs [failures]
//   async = false                          # true: the steps wait for the copy to host only
//   host_bandwidth = "64GB/s"              # async: one GPU's copy to host; default 64 GB/s
//
//   [failures]                             # optional; needs [checkpoint]
//   gpu_mtbf = "50000h"                    # one GPU's mean time between failures (required)
//   restart = "10min"                      # from a failure to running again (required)
#ifndef SCALEWALL_SCENARIO_FILE_H_
#define SCALEWALL_SCENARIO_FILE_H_

#include <string>
#include <string_view>

#include <optional>

#include "scalewall/model/accelerator.h"
#include "scalewall/model/goodput.h"
#include "scalewall/model/parallel_step.h"
#include "scalewall/model/step_model.h"

namespace scalewall {

// A transformer scenario's own part: the workload, what the split fixes, the system.
struct TransformerScenario {
  TransformerJob job;            // model, training, gpu, fabric (one node), sigma
  SplitConstraints parallel;     // micro_batch from training.micro_batch
  std::string fabric_name;       // as written (a preset name or the path)
  std::int64_t gpus = 0;         // 0: not given (and not all three degrees given)
  bool gpus_given = false;       // system.gpus was written (else it is tp x pp x dp, or 0)
  // training.scaling: how a curve over several GPU counts grows the job (split_curve.h):
  // strong keeps the global batch, weak the batch per data-parallel rank.
  ScalingMode scaling = ScalingMode::kStrong;
  // training.tokens, system.gpu_hour_cost, [checkpoint] and [failures] (goodput.h).
  TrainingRun run;
};

struct ScenarioFile {
  // Set for a transformer scenario ([model]); `scenario` then holds only its name.
  std::optional<TransformerScenario> transformer;
  Scenario scenario;
  WhatIfOptions what_if;
  std::string description;
  // One line for reports: "fabric dgx-h100-ndr (16 nodes x 8 ranks, 8 NICs per node; intra
  // 2 us at 450 GB/s, inter 3 us at 50 GB/s; packed; nominal)", "flat link: alpha 2.5 us,
  // 25 GB/s", "busbw 50 GB/s" (", alpha 10 us" when it has one).
  std::string network_description;
  // Whether the network is a fabric file (network.fabric): only then do hierarchical
  // collectives and placement apply (a flat link and a bus bandwidth have one rank per node).
  bool network_is_fabric_file = false;
};

// Reads and validates the scenario at `path` (a fabric path inside it is resolved relative to
// the scenario's directory). A missing, unreadable or empty file, or a directory, is an
// InputError naming the path.
// Standard input ("-", /dev/stdin) has no directory: its fabric path is relative to the
// current directory.
ScenarioFile load_scenario_file(const std::string& path);

// The network_description of a scenario on the fabric `t` (see ScenarioFile), for a fabric
// the command line put in place or changed.
std::string describe_scenario_fabric(const Topology& t);

// The same for a transformer scenario's fabric, a node type whose count follows the GPUs:
// "fabric dgx-a100 (nodes of 8 ranks, 8 NICs per node; ...)".
std::string describe_node_fabric(const Topology& t);

// Parses scenario TOML held in memory; `source_name` names it in errors (and, without a name
// key, names the scenario by its stem) and `base_dir` resolves a relative fabric path (empty:
// the working directory).
ScenarioFile parse_scenario(std::string_view toml_text, const std::string& source_name,
                            const std::string& base_dir);

}  // namespace scalewall

#endif  // SCALEWALL_SCENARIO_FILE_H_
