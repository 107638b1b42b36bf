// Tests of scalewall/model/framework.h and of what each profile's behaviours do to a step
// (parallel_step.h): the presets and their refusals; FlashAttention's memory and its long
// sequences; Transformer Engine's TP overlap; FP8; ZeRO-3 priced per unit; the memory reserve.
#include "scalewall/model/framework.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "scalewall/model/parallel_step.h"
#include "test_support.h"

namespace scalewall {
namespace {

TEST(Framework, PresetsInOrderAndTheDefaultIsMegatronCore) {
  std::vector<std::string_view> names;
  for (const FrameworkProfile& f : framework_presets()) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string_view>{"megatron-lm-2021", "megatron-lm-2022",
                                                  "megatron-core", "megatron-deepspeed",
                                                  "deepspeed-zero", "torch-fsdp2"}));
  EXPECT_EQ(default_framework().name, "megatron-core");
  EXPECT_EQ(TransformerJob{}.framework.name, "megatron-core");
  EXPECT_EQ(default_framework().attention, AttentionKernel::kFlash);
  EXPECT_EQ(framework_preset("megatron-lm-2021").recompute, Recompute::kFull);
  EXPECT_EQ(framework_preset("megatron-lm-2022").recompute, Recompute::kSelective);
  EXPECT_EQ(framework_preset("deepspeed-zero").shard_unit, ShardUnit::kSubmodule);
  EXPECT_EQ(framework_preset("torch-fsdp2").shard_unit, ShardUnit::kBlock);
  EXPECT_THROW(framework_preset("megatron"), InputError);
  try {
    framework_preset("jax");
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown framework 'jax' (expected one of: "
                                         "megatron-lm-2021, megatron-lm-2022, megatron-core"),
              std::string::npos);
  }
}

TEST(Framework, WhatAFrameworkCannotDoIsRefusedNamingKeyAndFramework) {
  const FrameworkProfile& old = framework_preset("megatron-lm-2021");
  FrameworkChoices c;
  c.zero = 3;
  auto no = framework_refusal(old, c);
  ASSERT_TRUE(no);
  EXPECT_EQ(no->key, "zero");
  EXPECT_EQ(no->reason, "system.framework megatron-lm-2021 runs ZeRO stages up to 0");
  c = {};
  c.tp_overlap = true;
  no = framework_refusal(framework_preset("torch-fsdp2"), c);
  ASSERT_TRUE(no);
  EXPECT_EQ(no->key, "tp_overlap");
  c = {};
  c.recompute = Recompute::kSelective;
  EXPECT_EQ(framework_refusal(old, c)->key, "recompute");
  c = {};
  c.zero = 3;
  c.pp = 4;
  EXPECT_EQ(framework_refusal(framework_preset("deepspeed-zero"), c)->key, "zero");
  c.pp = 1;
  EXPECT_FALSE(framework_refusal(framework_preset("deepspeed-zero"), c));
  c = {};
  c.sequence_parallel = false;  // switching off what a framework lacks is no refusal
  c.tp_overlap = false;
  c.zero = 0;
  EXPECT_FALSE(framework_refusal(old, c));
}

// Context parallelism runs under Megatron-Core only, with its default exchange, p2p
// (--cp-comm-type); elsewhere cp > 1, a cp_comm or a cp_a2a is refused naming the framework.
TEST(Framework, ContextParallelismNeedsMegatronCore) {
  const FrameworkProfile& core = framework_preset("megatron-core");
  EXPECT_TRUE(core.can_context_parallel);
  EXPECT_EQ(core.cp_comm, CpComm::kP2p);
  FrameworkChoices c;
  c.cp = 16;
  c.cp_comm = CpComm::kA2aP2p;
  c.cp_a2a = 2;
  EXPECT_FALSE(framework_refusal(core, c));
  c = {};
  c.cp = 2;
  auto no = framework_refusal(framework_preset("megatron-lm-2022"), c);
  ASSERT_TRUE(no);
  EXPECT_EQ(no->key, "cp");
  EXPECT_EQ(no->reason, "system.framework megatron-lm-2022 has no context parallelism");
  no = framework_refusal(framework_preset("torch-fsdp2"), c);
  ASSERT_TRUE(no);
  EXPECT_EQ(no->reason,
            "system.framework torch-fsdp2 runs context parallelism as PyTorch's "
            "context_parallel does (TorchTitan's context_parallel_rotate_method \"allgather\": "
            "the KV shards all-gathered), which is not priced");
  c = {};
  c.cp_comm = CpComm::kA2a;
  EXPECT_EQ(framework_refusal(framework_preset("deepspeed-zero"), c)->key, "cp_comm");
  c = {};
  c.cp = 1;  // no context parallelism: nothing to refuse
  EXPECT_FALSE(framework_refusal(framework_preset("megatron-lm-2021"), c));
  EXPECT_EQ(parse_cp_comm("a2a+p2p"), CpComm::kA2aP2p);
  EXPECT_EQ(input_error_of([] { (void)parse_cp_comm("ring"); }),
            "unknown cp_comm 'ring' (expected p2p, a2a or a2a+p2p)");
}

// Megatron-Core's --account-for-embedding-in-pipeline-split and
// --account-for-loss-in-pipeline-split: set anywhere else, refused naming key and framework;
// switched off, no refusal.
TEST(Framework, CountingTheEmbeddingOrTheLossNeedsMegatronCore) {
  FrameworkChoices c;
  c.embedding_in_split = true;
  EXPECT_FALSE(framework_refusal(framework_preset("megatron-core"), c));
  auto no = framework_refusal(framework_preset("megatron-lm-2022"), c);
  ASSERT_TRUE(no);
  EXPECT_EQ(no->key, "embedding_in_split");
  EXPECT_NE(no->reason.find("system.framework megatron-lm-2022"), std::string::npos);
  c = {};
  c.loss_in_split = true;
  no = framework_refusal(framework_preset("megatron-deepspeed"), c);
  ASSERT_TRUE(no);
  EXPECT_EQ(no->key, "loss_in_split");
  EXPECT_NE(no->reason.find("system.framework megatron-deepspeed lays out the stages itself"),
            std::string::npos);
  c.loss_in_split = false;
  c.embedding_in_split = false;
  EXPECT_FALSE(framework_refusal(framework_preset("megatron-deepspeed"), c));
}

// A DGX H100-like node: 8 GPUs on 450 GB/s NVLink, 8 NICs of 50 GB/s.
Topology dgx_h100_node() {
  Topology t;
  t.name = "dgx-h100";
  t.nodes = 1;
  t.ranks_per_node = 8;
  t.nics_per_node = 8;
  t.intra.alpha_s = 2e-6;
  t.intra.bandwidth_Bps = 450e9;
  t.inter.alpha_s = 3e-6;
  t.inter.bandwidth_Bps = 50e9;
  t.rank_kind = RankKind::kGpu;
  t.gpu.generation = GpuGeneration::kHopper;
  return t;
}

// An 8B-like shape (h 4096, 32 heads, 8 KV heads, FFN 14336, 32 layers) with `seq` tokens per
// sequence and 4M tokens per step.
TransformerJob long_context_job(std::int64_t seq, std::string_view framework) {
  TransformerJob job;
  job.framework = framework_preset(framework);
  job.model = {4096, 14336, 32, 8, 32, seq, 128256};
  job.training = {(std::int64_t{1} << 22) / seq, 1, DType::kBf16};
  job.gpu = accelerator_preset("h100-sxm");
  job.fabric = dgx_h100_node();
  return job;
}

ParallelSplit tp8_split(std::int64_t dp) {
  ParallelSplit s;
  s.tp = 8;
  s.dp = dp;
  s.sequence_parallel = true;
  s.recompute = Recompute::kSelective;
  s.zero = 1;
  return s;
}

TEST(Framework, FlashAttentionKeepsLongSequencesFromCollapsing) {
  const ParallelSplit s = tp8_split(4);
  const SplitStep flash8k = evaluate_split(long_context_job(8192, "megatron-core"), s);
  const SplitStep flash128k = evaluate_split(long_context_job(131072, "megatron-core"), s);
  const SplitStep unfused8k = evaluate_split(long_context_job(8192, "megatron-lm-2022"), s);
  const SplitStep unfused128k = evaluate_split(long_context_job(131072, "megatron-lm-2022"), s);
  std::cout << fmt::format("8B-like, tp 8: flash {:.0f} -> {:.0f} TFLOP/s, unfused {:.0f} -> "
                           "{:.0f} TFLOP/s (8K -> 128K tokens per sequence)\n",
                           flash8k.tflops_per_gpu, flash128k.tflops_per_gpu,
                           unfused8k.tflops_per_gpu, unfused128k.tflops_per_gpu);
  // Same tokens per step; at 128K the attention core is most of the FLOPs. With flash it runs
  // near the GEMM curve (and causal: half of the counted FLOPs), so the executed rate holds.
  EXPECT_GT(flash128k.tflops_per_gpu, 0.9 * flash8k.tflops_per_gpu);
  // Unfused, the softmax and dropout over s x s scores run at HBM rate: it collapses.
  EXPECT_LT(unfused128k.tflops_per_gpu, 0.8 * unfused8k.tflops_per_gpu);
  // Flash holds no scores: its activations are selective recomputation's plus the
  // log-sum-exp: s b h (10 + 2 + 4 k/a + 2 + 4 f/h) / t + 4 a s b / t per layer, with k/a = 1/4
  // and f/h = 3.5 a factor of 29.
  ParallelSplit none = s;
  none.recompute = Recompute::kNone;
  const TransformerJob job = long_context_job(8192, "megatron-core");
  const double sbh = 8192.0 * 4096.0;
  const double layer = 29.0 * sbh / 8 + 4.0 * 32 * 8192 / 8;
  const SplitStep r = evaluate_split(job, none);
  const double mask = sbh / 8;
  EXPECT_NEAR(r.memory.activations_bytes,
              32 * layer + mask + 4.0 * 8192 * 128256 / 8, 1.0);
}

// The fused attention kernel runs at its own published efficiency (cuDNN on the GH100: forward
// e_max 688 / 989.4 TFLOP/s, s_half 863.2 tokens; backward 581 / 989.4, s_half 1167.9), below
// the GEMM curve it was priced on before (e_max 794.5 / 989.4). At 8K tokens, tp 8, micro-batch
// 1: the kernel's forward F = 4 s^2 h / 8 / 2 FLOPs, its backward 2.5 F, per layer and
// micro-batch; the step's compute grows by m x 32 layers x the difference.
TEST(Framework, FusedAttentionRunsAtItsOwnPublishedEfficiency) {
  const TransformerJob job = long_context_job(8192, "megatron-core");
  TransformerJob on_gemm_curve = job;
  on_gemm_curve.gpu.fused_attention.reset();
  ParallelSplit s = tp8_split(4);
  s.recompute = Recompute::kNone;
  const SplitStep fused = evaluate_split(job, s);
  const SplitStep before = evaluate_split(on_gemm_curve, s);
  EXPECT_GT(fused.compute_s, before.compute_s);
  const double seq = 8192, peak = 989.4e12;
  const double f = 4.0 * seq * seq * 4096 / 8 / 2;
  const MatmulCurve& gemm = job.gpu.matmul;
  const double fused_s = f * (seq + 2048 * (688.0 / 484 - 1)) / (688e12 / peak * seq * peak) +
                         2.5 * f * (seq + 2048 * (581.0 / 370 - 1)) / (581e12 / peak * seq * peak);
  const double gemm_s = gemm.gemm_time_s(f, peak) + gemm.gemm_time_s(2.5 * f, peak);
  const auto m = static_cast<double>(fused.micro_batches);
  EXPECT_NEAR((fused.compute_s - before.compute_s) / (m * 32 * (fused_s - gemm_s)), 1.0, 1e-9);
  // The unfused kernels (megatron-lm-2021, -2022) keep pricing QK^T and AV as GEMMs.
  TransformerJob unfused = long_context_job(8192, "megatron-lm-2022");
  TransformerJob unfused_gemm = unfused;
  unfused_gemm.gpu.fused_attention.reset();
  EXPECT_EQ(evaluate_split(unfused, s).compute_s, evaluate_split(unfused_gemm, s).compute_s);
}

TEST(Framework, TensorParallelOverlapHidesMostOfTheTpTraffic) {
  // A 70B-like layer (h 8192, FFN 28672) at tp 8: each GEMM outlasts its collective on NVLink.
  TransformerJob job = long_context_job(8192, "megatron-core");
  job.model = {8192, 28672, 64, 8, 16, 8192, 128256};
  ParallelSplit s = tp8_split(4);
  const SplitStep exposed = evaluate_split(job, s);
  s.tp_overlap = true;
  const SplitStep overlapped = evaluate_split(job, s);
  EXPECT_GT(exposed.tp_comm_s, 0);
  EXPECT_LT(overlapped.tp_comm_s, 0.5 * exposed.tp_comm_s);
  EXPECT_GT(overlapped.tp_comm_s, 0);  // the last pipeline split and the SMs it holds
  EXPECT_LT(overlapped.step_s, exposed.step_s);
  // Without sequence parallelism there is no userbuffers overlap: all-reduces, all exposed.
  ParallelSplit no_sp = s;
  no_sp.sequence_parallel = false;
  ParallelSplit no_sp_off = no_sp;
  no_sp_off.tp_overlap = false;
  EXPECT_DOUBLE_EQ(evaluate_split(job, no_sp).tp_comm_s, evaluate_split(job, no_sp_off).tp_comm_s);
}

TEST(Framework, Fp8RunsTheLayerGemmsFasterAndKeepsFp8WeightCopies) {
  TransformerJob bf16 = long_context_job(8192, "megatron-core");
  TransformerJob fp8 = bf16;
  fp8.training.dtype = DType::kFp8;
  const ParallelSplit s = tp8_split(4);
  const SplitStep a = evaluate_split(bf16, s);
  const SplitStep b = evaluate_split(fp8, s);
  EXPECT_LT(b.compute_s, a.compute_s);
  EXPECT_GT(b.compute_s, 0.5 * a.compute_s);  // the core, logits and casts stay as they were
  // Two 1-byte copies of each layer weight: 32 layers x layer parameters / 8.
  const double layer_params = 32 * layer_parameters(bf16.model) / 8;
  EXPECT_NEAR(b.memory.weights_bytes - a.memory.weights_bytes, 2.0 * layer_params, 1.0);
  // FP8 parameter gathers drop the 2-byte copy: the weights are as under BF16.
  fp8.framework.fp8_param_gather = true;
  EXPECT_NEAR(evaluate_split(fp8, s).memory.weights_bytes, a.memory.weights_bytes, 1.0);
}

// Transformer Engine saves each linear layer's FP8 input (1 B) for the wgrad GEMM instead of
// the 2-byte one: the two layer-norm outputs (/ t with sequence parallelism) and FC2's f-wide
// input lose a byte per element, and the projection's FP8 input comes on top of the 2-byte
// output the fused attention kernel keeps. Llama 3.1 70B's shape at tp 4, pp 8, interleave 5
// (the Megatron-Bridge H100 FP8 recipe): per layer and micro-batch (2 s b h - s b h + s b f) / t
// = (67,108,864 + 234,881,024) / 4 = 75,497,472 B less, on the first stage's 10 layers x 8
// micro-batches x (1 + 7/40) in flight: 7,096,762,368 B.
TEST(Framework, Fp8KeepsTheLinearLayersInputsAsOneByteCasts) {
  TransformerJob bf16 = long_context_job(8192, "megatron-core");
  bf16.model = {8192, 28672, 64, 8, 80, 8192, 128256};
  bf16.model.mlp = MlpKind::kGated;
  bf16.training = {128, 1, DType::kBf16};
  TransformerJob fp8 = bf16;
  fp8.training.dtype = DType::kFp8;
  ParallelSplit s;
  s.tp = 4;
  s.pp = 8;
  s.dp = 2;
  s.interleave = 5;
  s.sequence_parallel = true;
  s.zero = 1;
  const SplitStep a = evaluate_split(bf16, s);
  const SplitStep b = evaluate_split(fp8, s);
  ASSERT_EQ(b.memory.stage, PipelineStage::kFirst);
  EXPECT_NEAR(a.memory.activations_bytes - b.memory.activations_bytes, 7096762368.0, 1.0);
  // Without sequence parallelism the layer-norm outputs are whole on every rank: the two of
  // them save 2 s b h, not 2 s b h / t (3 x 67,108,864 / 2 more per layer and micro-batch).
  s.sequence_parallel = false;
  const double no_sp = evaluate_split(bf16, s).memory.activations_bytes -
                       evaluate_split(fp8, s).memory.activations_bytes;
  EXPECT_NEAR(no_sp, 7096762368.0 + 10 * 8 * 1.175 * 1.5 * 67108864.0, 1.0);
  // Full recomputation keeps the layers' 2-byte inputs only: FP8 changes nothing.
  s.recompute = Recompute::kFull;
  EXPECT_DOUBLE_EQ(evaluate_split(bf16, s).memory.activations_bytes,
                   evaluate_split(fp8, s).memory.activations_bytes);
}

// Megatron-LM's asynchronous backward (layers.py): without sequence parallelism the
// backward's two all-reduces run under QKV's and FC1's wgrad GEMMs. On GPT-3 175B at tp 8 the
// GEMMs outlast them: of the four all-reduces per layer two stay exposed, and the two hidden
// ones cost only the SMs their channels hold (at most all of their time).
TEST(Framework, AsyncBackwardHidesTheInputGradientCollectivesUnderTheWgradGemm) {
  TransformerJob job = long_context_job(2048, "megatron-lm-2022");
  job.model = {12288, 49152, 96, 96, 96, 2048, 51200};
  job.training = {64, 1, DType::kBf16};
  ParallelSplit s;
  s.tp = 8;
  s.recompute = Recompute::kNone;
  TransformerJob sync = job;
  sync.framework.tp_backward_async = false;
  const double on = evaluate_split(job, s).tp_comm_s;
  const double off = evaluate_split(sync, s).tp_comm_s;
  EXPECT_GT(on, 0.5 * off);  // the forward's two
  EXPECT_LT(on, off);
  // With sequence parallelism the backward adds the saved inputs' re-gathers, hidden under
  // the dgrad GEMMs too: still less than the synchronous four gathers and four scatters.
  s.sequence_parallel = true;
  EXPECT_LT(evaluate_split(job, s).tp_comm_s, evaluate_split(sync, s).tp_comm_s);
}

TEST(Framework, TheReserveLowersTheLimit) {
  TransformerJob job = long_context_job(8192, "megatron-core");
  const ParallelSplit s = tp8_split(4);
  EXPECT_DOUBLE_EQ(evaluate_split(job, s).memory_limit_bytes, 0.9 * 80e9);
  job.memory_reserve = 0.25;
  EXPECT_DOUBLE_EQ(evaluate_split(job, s).memory_limit_bytes, 0.75 * 80e9);
}

// ZeRO-3 priced per unit: without overlap every gather and reduce-scatter is exposed, so the
// exposed traffic is the sum of the calls; with the prefetch most of it hides under compute.
TEST(Framework, ZeroThreeGathersEachUnitAndPrefetchHidesThem) {
  TransformerJob job = long_context_job(8192, "torch-fsdp2");
  job.training.global_batch = 64;
  ParallelSplit s;
  s.dp = 64;
  s.zero = 3;
  s.recompute = Recompute::kFull;
  const SplitStep plain = evaluate_split(job, s);
  s.dp_overlap = true;
  const SplitStep prefetched = evaluate_split(job, s);
  EXPECT_GT(plain.dp_comm_s, 0);
  EXPECT_LT(prefetched.dp_comm_s, 0.5 * plain.dp_comm_s);
  // DeepSpeed's per-module hooks gather again for the recomputed forward: more traffic.
  job.framework = framework_preset("deepspeed-zero");
  s.dp_overlap = false;
  EXPECT_GT(evaluate_split(job, s).dp_comm_s, plain.dp_comm_s);
}

// DeepSpeed 2021's ZeRO-3 (framework.cc): each of the three behaviours the deepspeed-zero
// profile prices adds to the exposed data-parallel time, and the profile sets all three.
TEST(Framework, DeepSpeedZeroThreeBehavioursEachCostTime) {
  const FrameworkProfile& ds = framework_preset("deepspeed-zero");
  EXPECT_TRUE(ds.fetch_syncs_device);
  EXPECT_TRUE(ds.grad_allreduce);
  EXPECT_TRUE(ds.gather_copies_out);
  for (const FrameworkProfile& f : framework_presets()) {
    if (f.name == "deepspeed-zero") continue;
    EXPECT_FALSE(f.fetch_syncs_device || f.grad_allreduce || f.gather_copies_out) << f.name;
  }
  TransformerJob job = long_context_job(8192, "deepspeed-zero");
  job.training.global_batch = 64;
  ParallelSplit s;
  s.dp = 64;
  s.zero = 3;
  s.dp_overlap = true;
  s.recompute = Recompute::kFull;
  const double all = evaluate_split(job, s).dp_comm_s;
  FrameworkProfile f = ds;
  f.fetch_syncs_device = false;
  job.framework = f;
  EXPECT_LT(evaluate_split(job, s).dp_comm_s, all);
  f = ds;
  f.grad_allreduce = false;
  job.framework = f;
  EXPECT_LT(evaluate_split(job, s).dp_comm_s, all);
  f = ds;
  f.gather_copies_out = false;
  job.framework = f;
  EXPECT_LT(evaluate_split(job, s).dp_comm_s, all);
}

// Expert parallelism is Megatron-Core's alone among the profiles: ep above 1 is refused
// elsewhere naming the framework, and so is an etp other than tp; etp equal to tp is every
// profile's own layout.
TEST(Framework, ExpertParallelismIsMegatronCoresAlone) {
  for (const FrameworkProfile& f : framework_presets()) {
    EXPECT_EQ(f.can_expert_parallel, f.name == "megatron-core") << f.name;
  }
  FrameworkChoices c;
  c.ep = 4;
  EXPECT_FALSE(framework_refusal(framework_preset("megatron-core"), c));
  const auto no = framework_refusal(framework_preset("megatron-deepspeed"), c);
  ASSERT_TRUE(no);
  EXPECT_EQ(no->key, "ep");
  EXPECT_EQ(no->reason, "system.framework megatron-deepspeed has no expert parallelism");
  c = {};
  c.tp = 4;
  c.etp = 4;
  EXPECT_FALSE(framework_refusal(framework_preset("megatron-lm-2022"), c));
  c.etp = 1;
  EXPECT_EQ(framework_refusal(framework_preset("megatron-lm-2022"), c)->key, "etp");
}

}  // namespace
}  // namespace scalewall
