// Tests of scalewall/model/parallel_step.h: memory per GPU against a hand computation, the
// pipeline bubble's closed form, the traffic each degree adds, and splits that cannot run or
// do not fit.
#include "scalewall/model/parallel_step.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string_view>

#include "scalewall/model/link.h"
#include "scalewall/model/model_presets.h"
#include "test_support.h"

namespace scalewall {
namespace {

// GPT 1.7B of Narayanan et al. 2021, Table 1.
TransformerJob gpt_1p7b() { return gpt_1p7b_on_a100(); }

// The documented case of docs/models.md ("Memory per GPU, by hand"): GPT 1.7B, tp 1, pp 1,
// dp 32, micro-batch 1, full recomputation, no ZeRO.
TEST(ParallelStep, MemoryPerGpuMatchesTheHandComputation) {
  const TransformerJob job = gpt_1p7b();
  ParallelSplit s;
  s.dp = 32;
  s.recompute = Recompute::kFull;
  const SplitStep r = evaluate_split(job, s);
  ASSERT_EQ(r.problem, SplitProblem::kNone);
  // Parameters on the GPU: 24 (12 h^2 + 13 h) + (V + s) h = 1,529,542,656 + 122,683,392.
  const double params = 1652226048.0;
  EXPECT_DOUBLE_EQ(r.memory.weights_bytes, 2 * params);      // 3.304 GB
  EXPECT_DOUBLE_EQ(r.memory.gradients_bytes, 2 * params);    // 3.304 GB
  EXPECT_DOUBLE_EQ(r.memory.optimizer_bytes, 12 * params);   // 19.83 GB
  // One micro-batch in flight: 24 layers x 2 s b h (9,437,184 B) + the embedding's mask
  // s b h (4,718,592 B) + the logits 4 s b V (419,430,400 B) = 650,641,408 B.
  EXPECT_DOUBLE_EQ(r.memory.activations_bytes, 650641408.0);
  EXPECT_DOUBLE_EQ(r.memory.buffers_bytes, 50e6);  // two 25 MB gradient buckets
  EXPECT_DOUBLE_EQ(r.memory.total(), 16 * params + 650641408.0 + 50e6);  // 27.14 GB
  EXPECT_TRUE(r.fits);
  EXPECT_EQ(r.micro_batches, 16);  // 512 / (32 x 1)
}

TEST(ParallelStep, ZeroStagesShardWhatRajbhandariSays) {
  const TransformerJob job = gpt_1p7b();
  ParallelSplit s;
  s.dp = 32;
  const double params = 1652226048.0;
  for (int z = 0; z <= 3; ++z) {
    s.zero = z;
    const SplitStep r = evaluate_split(job, s);
    EXPECT_DOUBLE_EQ(r.memory.optimizer_bytes, 12 * params / (z >= 1 ? 32 : 1)) << z;
    EXPECT_DOUBLE_EQ(r.memory.gradients_bytes, 2 * params / (z >= 2 ? 32 : 1)) << z;
    EXPECT_DOUBLE_EQ(r.memory.weights_bytes, 2 * params / (z >= 3 ? 32 : 1)) << z;
    EXPECT_GT(r.dp_comm_s, 0.0) << z;
  }
}

TEST(ParallelStep, BubbleIsPMinusOneOverVOfTheMicroBatchTime) {
  TransformerJob job = gpt_1p7b();
  ParallelSplit s;
  s.tp = 2;
  s.pp = 4;
  s.dp = 4;
  s.recompute = Recompute::kFull;
  for (const std::int64_t v : {1, 2}) {
    s.interleave = v;
    const SplitStep r = evaluate_split(job, s);
    ASSERT_EQ(r.problem, SplitProblem::kNone);
    const double m = static_cast<double>(r.micro_batches);  // 512 / 4 = 128
    EXPECT_EQ(r.micro_batches, 128);
    const double per_mb = (r.compute_s + r.recompute_s + r.tp_comm_s + r.pp_transfer_s) / m;
    EXPECT_NEAR(r.pp_bubble_s, 3.0 / static_cast<double>(v) * per_mb, 1e-12);
    EXPECT_GT(r.pp_transfer_s, 0.0);
  }
}

TEST(ParallelStep, StepIsTheSumOfItsPartsAndFlopsFollow) {
  const TransformerJob job = gpt_1p7b();
  ParallelSplit s;
  s.tp = 8;
  s.pp = 2;
  s.dp = 2;
  s.recompute = Recompute::kSelective;
  s.sequence_parallel = true;
  const SplitStep r = evaluate_split(job, s);
  EXPECT_DOUBLE_EQ(r.step_s, r.compute_s + r.recompute_s + r.tp_comm_s + r.pp_bubble_s +
                                 r.pp_transfer_s + r.dp_comm_s + r.optimizer_s + r.variance_s +
                                 r.serial_s);
  EXPECT_NEAR(r.tflops_per_gpu * 1e12 * r.step_s * 32, r.executed_flops, 1e-6 * r.executed_flops);
  EXPECT_NEAR(r.mfu * r.step_s * 32 * 312e12, r.model_flops, 1e-6 * r.model_flops);
  EXPECT_NEAR(r.tokens_per_s * r.step_s, 512.0 * 2048, 1e-6);
  EXPECT_GT(r.tp_comm_s, 0.0);
  EXPECT_LT(r.mfu, 0.8);  // never above the matmul curve's ceiling
}

TEST(ParallelStep, TensorParallelismAcrossNodesCostsMoreThanInside) {
  const TransformerJob job = gpt_1p7b();
  ParallelSplit inside;
  inside.tp = 8;
  inside.dp = 2;
  ParallelSplit across = inside;
  across.tp = 16;
  across.dp = 1;
  TransformerJob wide = job;
  wide.model.heads = 48;  // 16 must divide the heads
  wide.model.kv_heads = 48;
  const SplitStep a = evaluate_split(wide, inside);
  const SplitStep b = evaluate_split(wide, across);
  // Per micro-batch (dp 1 runs twice the micro-batches of dp 2): a TP group over two nodes
  // crosses the NICs. With 8 NICs per node NCCL's rings still get 8 x 25 GB/s across, so the
  // all-reduce of one 9.4 MB activation is only about 1.5x dearer, not the 12x of the links.
  EXPECT_EQ(a.micro_batches, 256);
  EXPECT_EQ(b.micro_batches, 512);
  const double inside_per_mb = a.tp_comm_s / 256;
  const double across_per_mb = b.tp_comm_s / 512;
  EXPECT_GT(across_per_mb, 1.3 * inside_per_mb);
  EXPECT_LT(across_per_mb, 3.0 * inside_per_mb);
}

// Overlapped gradient traffic is not free: NCCL's kernels hold one SM per channel while they
// run, so the compute they hide under slows by channels / SMs of the hidden time. Without
// overlap there is nothing to charge; with it, the charge is the hidden time times a whole
// number of channels over the SM count, and halves when the SMs double.
TEST(ParallelStep, OverlappedTrafficTakesItsChannelsShareOfTheSms) {
  TransformerJob job = gpt_1p7b();
  job.fabric.nodes = 4;
  ParallelSplit s;
  s.dp = 32;
  s.dp_overlap = false;
  const double traffic = evaluate_split(job, s).dp_comm_s;  // all of it exposed
  s.dp_overlap = true;
  const auto dp_comm = [&](double units) {
    TransformerJob j = job;
    j.gpu.compute_units = units;
    return evaluate_split(j, s).dp_comm_s;
  };
  const double exposed = dp_comm(0);  // no SM count: the exposed part alone
  ASSERT_GT(traffic, exposed);
  const double charge = dp_comm(108) - exposed;
  EXPECT_GT(charge, 0.0);
  const double channels = charge * 108 / (traffic - exposed);
  EXPECT_NEAR(channels, std::round(channels), 1e-9);
  EXPECT_GE(channels, 1.0);
  EXPECT_LE(channels, 32.0);  // NCCL's MAXCHANNELS
  EXPECT_NEAR(dp_comm(216) - exposed, charge / 2, 1e-12);
  EXPECT_EQ(accelerator_preset("a100-80gb").compute_units, 108);
  EXPECT_EQ(accelerator_preset("h100-sxm").compute_units, 132);
  EXPECT_EQ(accelerator_preset("mi300x").compute_units, 304);
}

TEST(ParallelStep, ASplitThatCannotRunSaysWhy) {
  const TransformerJob job = gpt_1p7b();
  ParallelSplit s;
  s.pp = 5;  // 24 layers
  EXPECT_EQ(evaluate_split(job, s).problem, SplitProblem::kLayers);
  s = {};
  s.tp = 16;  // 24 heads
  EXPECT_EQ(evaluate_split(job, s).problem, SplitProblem::kHeads);
  s = {};
  s.dp = 3;  // 512 sequences
  EXPECT_EQ(evaluate_split(job, s).problem, SplitProblem::kBatch);
  s = {};
  s.interleave = 2;  // no pipeline
  EXPECT_EQ(evaluate_split(job, s).problem, SplitProblem::kInterleave);
  s = {};
  s.dp = 0;
  EXPECT_EQ(input_error_of([&] { (void)evaluate_split(job, s); }),
            "parallel.dp 0 must be at least 1");
  s = {};
  s.zero = 4;
  EXPECT_EQ(input_error_of([&] { (void)evaluate_split(job, s); }),
            "parallel.zero 4 must be 0, 1, 2 or 3");
}

// Products of degrees past the largest 64-bit count: dp 2^24 x micro-batch 2^40 is 2^64,
// which wraps to 0; pp 2^40 x interleave 2^40 likewise. Neither divides, and neither divides
// by zero.
TEST(ParallelStep, DegreeProductsPastTheLargestCountDoNotDivide) {
  const TransformerJob job = gpt_1p7b();
  ParallelSplit s;
  s.dp = std::int64_t{1} << 24;
  s.micro_batch = std::int64_t{1} << 40;
  EXPECT_EQ(evaluate_split(job, s).problem, SplitProblem::kBatch);
  EXPECT_EQ(split_problem_detail(job, s, SplitProblem::kBatch),
            "dp x micro-batch does not divide the global batch (16777216 x 1099511627776 is "
            "past 2^63; global batch 512)");
  s = {};
  s.pp = std::int64_t{1} << 40;
  s.interleave = std::int64_t{1} << 40;
  EXPECT_EQ(evaluate_split(job, s).problem, SplitProblem::kLayers);
  EXPECT_EQ(split_problem_detail(job, s, SplitProblem::kLayers),
            "pp x interleave does not divide the layers (1099511627776 x 1099511627776 is past "
            "2^63; 24 layers)");
  s = {};
  s.pp = 5;
  EXPECT_EQ(split_problem_detail(job, s, split_problem(job, s)),
            "pp x interleave does not divide the layers (5 x 1 = 5; 24 layers)");
}

TEST(ParallelStep, MoreThanTwoToTheFortyGpusIsRefusedNamingTheDegrees) {
  const TransformerJob job = gpt_1p7b();
  ParallelSplit s;
  s.tp = std::int64_t{1} << 40;
  s.pp = 16777217;  // 2^64 + 2^40 in all: wrapped, it would read as 2^40
  EXPECT_EQ(input_error_of([&] { (void)evaluate_split(job, s); }),
            "tp x pp x dp = 1099511627776 x 16777217 x 1 = 1.845e+19 GPUs is more than 2^40");
  EXPECT_EQ(input_error_of([] { (void)split_gpus(std::int64_t{1} << 20, 1 << 20, 2); }),
            "tp x pp x dp = 1048576 x 1048576 x 2 = 2199023255552 GPUs is more than 2^40");
  EXPECT_EQ(split_gpus(8, 8, 16), 1024);
}

// The last pipeline stage holds the same parameters as the first, and the logits of its
// micro-batch (4 s b V / t, Korthikanti et al. 2022, section 4.3): with a 256,000-token
// vocabulary and 8,192-token sequences they outweigh the first stage's two micro-batches.
// Llama 3.1 70B (64 heads, 8 KV heads) on A100 nodes of 8 GPUs.
TransformerJob llama70b() {
  TransformerJob job;
  job.model = model_preset("llama3.1-70b");
  job.training = {64, 1, DType::kBf16};
  job.gpu = accelerator_preset("a100-80gb");
  job.fabric = dgx_a100_node();
  return job;
}

// Megatron-Core (core v0.16, transformer_config.py and attention.py): tp must divide the
// heads, and the KV heads must be a multiple or a divisor of tp. With fewer KV heads than
// ranks the QKV output is all-gathered in the forward (reduce-scattered in the backward) and
// each rank keeps one KV head; with as many or more, nothing is added.
TEST(ParallelStep, KvHeadsAndTensorParallelismDivideAsMegatronCoreAllows) {
  TransformerJob gqa = llama70b();
  TransformerJob mha = gqa;
  mha.model.kv_heads = 64;
  ParallelSplit s;
  s.tp = 8;
  s.dp = 2;
  const SplitStep tp8 = evaluate_split(gqa, s);
  ASSERT_EQ(tp8.problem, SplitProblem::kNone);
  // tp 8 on 8 KV heads: one KV head per rank, no gather: the TP traffic of b s h all-reduces
  // alone, the same as with 64 KV heads.
  EXPECT_DOUBLE_EQ(tp8.tp_comm_s, evaluate_split(mha, s).tp_comm_s);
  s.tp = 16;
  s.dp = 1;
  const SplitStep tp16 = evaluate_split(gqa, s);
  ASSERT_EQ(tp16.problem, SplitProblem::kNone);  // refused before Megatron-Core v0.16
  EXPECT_GT(tp16.tp_comm_s, evaluate_split(mha, s).tp_comm_s);
  // The gathered K and V: each of the 16 ranks holds one whole KV head, 4 s b h / a of them.
  const double sbh = 8192.0 * 8192;
  EXPECT_NEAR(layer_activation_bytes(gqa.model, 1, 16, true, Recompute::kSelective) -
                  layer_activation_bytes(mha.model, 1, 16, true, Recompute::kSelective),
              sbh * (4.0 / 64 - 4.0 * 4 / 64), 1e-6 * sbh);
  // 48 heads and 6 KV heads: tp 12 (a multiple of 6) runs, tp 4 (neither) does not.
  TransformerJob odd = gqa;
  odd.model.hidden = 6144;
  odd.model.heads = 48;
  odd.model.kv_heads = 6;
  odd.model.layers = 12;
  s.tp = 4;
  EXPECT_EQ(evaluate_split(odd, s).problem, SplitProblem::kHeads);
  EXPECT_EQ(split_problem_detail(odd, s, SplitProblem::kHeads),
            "tp does not divide the heads, or is neither a divisor nor a multiple of the KV "
            "heads (tp 4; 48 heads, 6 KV heads)");
  s.tp = 8;  // 8 GPUs: whole nodes; 48 / 8 = 6 heads, 8 neither divides 6 nor is divided
  EXPECT_EQ(evaluate_split(odd, s).problem, SplitProblem::kHeads);
  s.tp = 24;
  EXPECT_EQ(evaluate_split(odd, s).problem, SplitProblem::kNone);
}

// The ends of the pipeline: untied, the first stage holds the word embedding and the last the
// output layer, V h each; with one stage the GPUs hold both. A gated MLP computes more.
TEST(ParallelStep, StagesHoldTheirEmbeddingsAndAGatedMlpItsThirdGemm) {
  const TransformerJob job = llama70b();
  const TransformerShape& m = job.model;
  ParallelSplit s;
  s.tp = 8;
  s.dp = 2;
  const double vh = 128256.0 * 8192;
  EXPECT_DOUBLE_EQ(evaluate_split(job, s).memory.weights_bytes,
                   2 * (80 * layer_parameters(m) + 2 * vh) / 8);
  s.pp = 4;
  s.dp = 1;
  EXPECT_DOUBLE_EQ(evaluate_split(job, s).memory.weights_bytes,
                   2 * (20 * layer_parameters(m) + vh) / 8);
  TransformerJob plain = job;
  plain.model.mlp = MlpKind::kPlain;
  EXPECT_GT(evaluate_split(job, s).compute_s, 1.2 * evaluate_split(plain, s).compute_s);
}

TEST(ParallelStep, TheLastStageHoldsTheLogitsAndMayHoldTheMost) {
  TransformerJob job;
  job.framework = framework_preset("megatron-lm-2021");
  job.model = {2048, 4 * 2048, 8, 1, 18, 8192, 256000};  // h, f, a, k, l, s, V
  job.training = {64, 4, DType::kBf16};
  job.gpu = accelerator_preset("a100-40gb");
  job.fabric = dgx_a100_node();
  ParallelSplit s;
  s.pp = 2;
  s.dp = 4;
  s.micro_batch = 4;
  s.recompute = Recompute::kFull;
  s.zero = 1;
  const SplitStep r = evaluate_split(job, s);
  ASSERT_EQ(r.problem, SplitProblem::kNone);
  EXPECT_EQ(r.micro_batches, 4);
  // Per GPU of a stage: 9 layers of h (h + 2 k d) + h^2 + 2 h f weights and
  // (h + 2 k d) + f + 6 h biases (d = 256, so h + 2 k d = 2560): 43,014,656 each,
  // and the embeddings (V + s) h = 541,065,216: 928,197,120 parameters.
  const double params = 9 * 43014656.0 + 541065216.0;
  EXPECT_DOUBLE_EQ(r.memory.weights_bytes, 2 * params);
  EXPECT_DOUBLE_EQ(r.memory.optimizer_bytes, 12 * params / 4);  // ZeRO 1 over dp 4
  const double sbh = 8192.0 * 4 * 2048;
  // Last stage: one micro-batch of 9 fully recomputed layers (2 s b h each) and the logits.
  const double last = 9 * 2 * sbh + 4.0 * 8192 * 4 * 256000;  // 1.21 GB + 33.55 GB
  // First stage: min(p, m) = 2 micro-batches of the layers and the embedding's mask (s b h).
  const double first = 2 * (9 * 2 * sbh + sbh);               // 2.55 GB
  EXPECT_GT(last, first);
  EXPECT_EQ(r.memory.stage, PipelineStage::kLast);
  EXPECT_DOUBLE_EQ(r.memory.activations_bytes, last);
  EXPECT_DOUBLE_EQ(r.memory.buffers_bytes, 50e6 + 4 * sbh);  // buckets; send and receive
  EXPECT_DOUBLE_EQ(r.memory.total(), 2 * params + 2 * params + 3 * params + last + 50e6 + 4 * sbh);
  EXPECT_NEAR(r.memory.total() / 1e9, 41.6, 0.05);  // above the 40 GB of an A100 40 GB
  EXPECT_FALSE(r.fits);
  EXPECT_EQ(r.binding, SplitBinding::kMemory);
  // With one stage it is first and last at once: both micro-batch activations and logits.
  s.pp = 1;
  s.dp = 8;
  s.micro_batch = 4;
  const SplitStep one = evaluate_split(job, s);
  EXPECT_EQ(one.memory.stage, PipelineStage::kOnly);
  EXPECT_DOUBLE_EQ(one.memory.activations_bytes,
                   18 * 2 * sbh + sbh + 4.0 * 8192 * 4 * 256000);
}

// Without recomputation the first stage's p micro-batches of activations outweigh the last
// stage's one and its logits.
TEST(ParallelStep, TheFirstStageHoldsTheMostWhenActivationsDominate) {
  const TransformerJob job = gpt_1p7b();
  ParallelSplit s;
  s.pp = 2;
  s.dp = 16;
  const SplitStep r = evaluate_split(job, s);
  ASSERT_EQ(r.problem, SplitProblem::kNone);
  const double layer = layer_activation_bytes(job.model, 1, 1, false, Recompute::kNone);
  const double sbh = 2048.0 * 2304;
  EXPECT_EQ(r.memory.stage, PipelineStage::kFirst);
  EXPECT_DOUBLE_EQ(r.memory.activations_bytes, 2 * (12 * layer + sbh));
  EXPECT_GT(r.memory.activations_bytes, 12 * layer + 4.0 * 2048 * 51200);  // the last stage's
  // Interleaved (v 2): the first holds 1 + (p - 1)/(p v) = 1.25 times more; the last
  // ((v - 1) p + 1)/v = 1.5 micro-batches of its layers.
  s.interleave = 2;
  const SplitStep v = evaluate_split(job, s);
  EXPECT_DOUBLE_EQ(v.memory.activations_bytes, 1.25 * 2 * (12 * layer + sbh));
}

// The example: 13B in pure data parallelism needs 16 B per parameter, about 208 GB,
// on an 80 GB GPU: it does not fit, and says by how much.
TEST(ParallelStep, PureDataParallel13BDoesNotFitAnH100) {
  TransformerJob job;
  job.framework = framework_preset("megatron-lm-2021");
  job.model = {5120, 4 * 5120, 40, 40, 40, 2048, 51200};
  job.training = {1024, 1, DType::kBf16};
  job.gpu = accelerator_preset("h100-sxm");
  job.fabric = dgx_a100_node();
  job.fabric.gpu.generation = GpuGeneration::kHopper;
  ParallelSplit s;
  s.dp = 256;
  const SplitStep r = evaluate_split(job, s);
  EXPECT_FALSE(r.fits);
  EXPECT_EQ(r.binding, SplitBinding::kMemory);
  const double states = 16 * (model_parameters(job.model) - 2 * 5120.0);
  EXPECT_NEAR(states / 1e9, 205.73, 0.01);  // 16 x 12.86e9
  // The limit is HBM less the default reserve of 10%: 72 GB of the 80 GB.
  EXPECT_DOUBLE_EQ(r.memory_limit_bytes, 0.9 * 80e9);
  EXPECT_GT(r.lacks_bytes, states - 72e9);
  EXPECT_DOUBLE_EQ(r.lacks_bytes, r.memory.total() - 72e9);
}


// Context parallelism. Llama 3.1 70B (64 heads, 8 KV heads, d = 128) at 131,072 tokens per
// sequence under Megatron-Core (fused attention) on H100s in 8-GPU nodes.
TransformerJob llama70b_128k() {
  TransformerJob job = llama70b();
  job.model.seq = 131072;
  job.gpu = accelerator_preset("h100-sxm");
  job.fabric.gpu.generation = GpuGeneration::kHopper;
  return job;
}

ParallelSplit cp_split(std::int64_t tp, std::int64_t cp, std::int64_t dp, CpComm comm) {
  ParallelSplit s;
  s.tp = tp;
  s.cp = cp;
  s.dp = dp;
  s.cp_comm = comm;
  s.sequence_parallel = tp > 1;
  return s;
}

// The bytes of each call, 2-byte values: a ring send carries K and V of the s/r tokens a rank
// holds over its k'/a KV heads, 2 b (s/r) (k'/a) d x 2 B; an all-to-all of Q carries b (s/cp)
// (a/t) d x 2 B, of K or V b (s/cp) k' d x 2 B (grouped-query attention: k' = k/t, or 1).
TEST(ContextParallel, ExchangeBytesAreTheirClosedForms) {
  const TransformerJob job = llama70b_128k();
  // p2p, tp 8: one KV head per rank, 8,192 tokens per rank.
  CpExchange x = cp_exchange(job, cp_split(8, 16, 1, CpComm::kP2p));
  EXPECT_EQ(x.a2a_ranks, 1);
  EXPECT_EQ(x.ring_ranks, 16);
  EXPECT_DOUBLE_EQ(x.block_bytes, 2.0 * 8192 * 1 * 128 * 2);  // 4,194,304 B
  EXPECT_DOUBLE_EQ(x.kernel_seq, 8192);
  // p2p, tp 2: four KV heads per rank.
  x = cp_exchange(job, cp_split(2, 16, 1, CpComm::kP2p));
  EXPECT_DOUBLE_EQ(x.block_bytes, 2.0 * 8192 * 4 * 128 * 2);  // 16,777,216 B
  // a2a, tp 1, cp 8: 16,384 tokens per rank; Q of 64 heads, K and V of 8; the kernel runs on
  // the whole sequence (for 8 of the 64 heads).
  x = cp_exchange(job, cp_split(1, 8, 1, CpComm::kA2a));
  EXPECT_EQ(x.a2a_ranks, 8);
  EXPECT_EQ(x.ring_ranks, 1);
  EXPECT_DOUBLE_EQ(x.q_bytes, 16384.0 * 64 * 128 * 2);  // 268,435,456 B
  EXPECT_DOUBLE_EQ(x.kv_bytes, 16384.0 * 8 * 128 * 2);  // 33,554,432 B
  EXPECT_DOUBLE_EQ(x.kernel_seq, 131072);
  // a2a+p2p, tp 2, cp 16, the default sub-group: the most ranks that divide 16, the 32 heads
  // and 4 KV heads of a TP rank and keep tp x a2a within the node of 8: 4; a ring of 4 over
  // 32,768-token blocks of one KV head.
  ParallelSplit h = cp_split(2, 16, 1, CpComm::kA2aP2p);
  x = cp_exchange(job, h);
  EXPECT_EQ(x.a2a_ranks, 4);
  EXPECT_EQ(x.ring_ranks, 4);
  EXPECT_DOUBLE_EQ(x.block_bytes, 2.0 * 32768 * 1 * 128 * 2);
  EXPECT_DOUBLE_EQ(x.kernel_seq, 32768);
  h.cp_a2a = 2;  // given: a ring of 8
  x = cp_exchange(job, h);
  EXPECT_EQ(x.ring_ranks, 8);
  EXPECT_DOUBLE_EQ(x.block_bytes, 2.0 * 16384 * 2 * 128 * 2);
  h.micro_batch = 2;  // every size is per micro-batch
  EXPECT_DOUBLE_EQ(cp_exchange(job, h).block_bytes, 2 * x.block_bytes);
  // cp 1: nothing moves.
  x = cp_exchange(job, cp_split(8, 1, 1, CpComm::kA2a));
  EXPECT_DOUBLE_EQ(x.q_bytes + x.kv_bytes + x.block_bytes, 0.0);
}

// cp 1 costs nothing and its exchange choice changes nothing.
TEST(ContextParallel, CpOfOneCostsNothing) {
  const TransformerJob job = llama70b();
  ParallelSplit p2p = cp_split(8, 1, 8, CpComm::kP2p);
  ParallelSplit a2a = p2p;
  a2a.cp_comm = CpComm::kA2aP2p;
  a2a.cp_a2a = 4;
  const SplitStep r = evaluate_split(job, p2p);
  ASSERT_EQ(r.problem, SplitProblem::kNone);
  EXPECT_EQ(r.cp_comm_s, 0.0);
  EXPECT_EQ(r.step_s, evaluate_split(job, a2a).step_s);
  EXPECT_EQ(r.memory.total(), evaluate_split(job, a2a).memory.total());
}

// Each rank holds the activations of s/cp tokens: on one stage all of them (the layers', the
// embedding's mask, the logits) are linear in the tokens, so cp 2 holds half; the weights are
// not divided by cp.
TEST(ContextParallel, ActivationsAreDividedByCp) {
  const TransformerJob job = llama70b_128k();
  const SplitStep one = evaluate_split(job, cp_split(8, 1, 2, CpComm::kP2p));
  const SplitStep two = evaluate_split(job, cp_split(8, 2, 1, CpComm::kP2p));
  ASSERT_EQ(two.problem, SplitProblem::kNone);
  EXPECT_NEAR(two.memory.activations_bytes / one.memory.activations_bytes, 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(two.memory.weights_bytes, one.memory.weights_bytes);
}

// The gradients are reduced, and the distributed optimizer sharded, over the data-parallel
// group with context parallelism (d c ranks of stride t): cp 2 x dp 4 reduces and shards as
// dp 8 does, on the same 8 ranks of stride 8.
TEST(ContextParallel, GradientsAreReducedOverDpTimesCp) {
  TransformerJob job = llama70b_128k();
  ParallelSplit a = cp_split(8, 2, 4, CpComm::kP2p);
  a.zero = 1;
  a.dp_overlap = false;  // the whole reduction exposed: no backward to hide under
  ParallelSplit b = a;
  b.cp = 1;
  b.dp = 8;
  const SplitStep ra = evaluate_split(job, a);
  const SplitStep rb = evaluate_split(job, b);
  ASSERT_EQ(ra.problem, SplitProblem::kNone);
  EXPECT_GT(ra.dp_comm_s, 0.0);
  EXPECT_DOUBLE_EQ(ra.dp_comm_s, rb.dp_comm_s);
  EXPECT_DOUBLE_EQ(ra.optimizer_s, rb.optimizer_s);
  EXPECT_DOUBLE_EQ(ra.memory.optimizer_bytes, rb.memory.optimizer_bytes);
  // On dp 4 alone the optimizer state would be twice as large.
  ParallelSplit c = a;
  c.cp = 1;
  EXPECT_DOUBLE_EQ(evaluate_split(job, c).memory.optimizer_bytes, 2 * ra.memory.optimizer_bytes);
}

// The ring's sends hide under the attention of the block in hand; on a link slow enough that
// every send outlasts its step, the exposed time grows by each send's own time: a forward of
// r - 1 block sends, a backward of 2 block sends and r - 2 sends of KV and dKV (3r - 3 block
// times in all, per layer and micro-batch). Halving the bandwidth adds exactly that.
TEST(ContextParallel, TheRingExposesWhatItsSendsTakePastTheAttention) {
  TransformerJob fast = llama70b_128k();
  fast.fabric.inter.bandwidth_Bps = 1e6;  // 1 MB/s: each 16.8 MB send takes 16.8 s
  TransformerJob slow = fast;
  slow.fabric.inter.bandwidth_Bps = 0.5e6;
  // tp 8 fills a node: the ring of 4 spans 4 nodes, one NIC each way.
  const ParallelSplit s = cp_split(8, 4, 1, CpComm::kP2p);
  const SplitStep a = evaluate_split(fast, s);
  const SplitStep b = evaluate_split(slow, s);
  ASSERT_EQ(a.problem, SplitProblem::kNone);
  const double block = cp_exchange(fast, s).block_bytes;  // 2 x 32,768 x 1 x 128 x 2 B
  EXPECT_DOUBLE_EQ(block, 16777216.0);
  const double per_layer = (3.0 * 4 - 3) * block / 1e6;  // the extra 1/B of each send
  EXPECT_NEAR(b.cp_comm_s - a.cp_comm_s, 64 * 80 * per_layer, 1e-9 * b.cp_comm_s);
  // On the node's 25 GB/s NICs the same ring hides entirely under the attention of 128K
  // tokens (each 16.8 MB send takes 0.67 ms; each step's attention several ms).
  EXPECT_EQ(evaluate_split(llama70b_128k(), s).cp_comm_s, 0.0);
}

// Megatron-LM asks the sequence to be a multiple of 2 cp (two chunks per rank for its causal
// load balancing); Transformer Engine's all-to-all splits the heads a TP rank holds.
TEST(ContextParallel, ASplitItCannotRunSaysWhy) {
  TransformerJob job = llama70b();  // 8,192 tokens
  ParallelSplit s = cp_split(8, 3, 1, CpComm::kP2p);
  EXPECT_EQ(split_problem(job, s), SplitProblem::kSequence);
  EXPECT_EQ(split_problem_detail(job, s, SplitProblem::kSequence),
            "2 x cp does not divide the sequence (Megatron's causal load balancing splits it "
            "into 2 cp chunks) (2 x 3 = 6; seq 8192)");
  s.cp = 8192;  // 2 x 8192 does not divide 8192
  EXPECT_EQ(split_problem(job, s), SplitProblem::kSequence);
  s.cp = 4096;
  EXPECT_EQ(split_problem(job, s), SplitProblem::kNone);
  // a2a at tp 8: one KV head per rank cannot be split over 2 ranks.
  s = cp_split(8, 2, 1, CpComm::kA2a);
  EXPECT_EQ(split_problem(job, s), SplitProblem::kCpHeads);
  EXPECT_TRUE(contains(split_problem_detail(job, s, SplitProblem::kCpHeads),
                       "(cp_comm a2a, 2 all-to-all ranks; 8 heads and 1 KV heads per TP rank "
                       "(tp 8))"));
  s = cp_split(1, 16, 1, CpComm::kA2a);  // 8 KV heads over 16 ranks
  EXPECT_EQ(split_problem(job, s), SplitProblem::kCpHeads);
  s.cp = 8;
  EXPECT_EQ(split_problem(job, s), SplitProblem::kNone);
  s.cp_comm = CpComm::kA2aP2p;  // a given sub-group of 16 does not divide cp 8
  s.cp_a2a = 16;
  EXPECT_EQ(input_error_of([&] { (void)evaluate_split(job, s); }),
            "parallel.cp_a2a 16 must divide parallel.cp 8");
  EXPECT_EQ(input_error_of([] { (void)split_gpus(1 << 20, 1 << 10, 1 << 10, 2); }),
            "tp x cp x pp x dp = 1048576 x 2 x 1024 x 1024 = 2199023255552 GPUs is more than "
            "2^40");
}

// A small mixture of experts on one H100 (megatron-core, flash attention): h 2048, 16 heads,
// 4 layers, gated, `experts` of 8192, top-1, every layer an MoE layer.
TransformerJob small_moe(std::int64_t experts) {
  TransformerJob job;
  job.model = {2048, 8192, 16, 16, 4, 2048, 32000, MlpKind::kGated, false,
               PositionKind::kRotary, LinearBiases::kNone, NormKind::kRmsNorm, 0};
  job.model.experts = experts;
  job.model.topk = 1;
  job.training = {8, 1, DType::kBf16};
  job.gpu = accelerator_preset("h100-sxm");
  job.fabric = dgx_a100_node();
  job.fabric.gpu.generation = GpuGeneration::kHopper;
  return job;
}

// Every expert of a stage's layers sits on each of its GPUs, sharded over the TP ranks as the
// dense weights are (expert tensor parallelism = tp): Mixtral 8x7B at tp 8 holds 1/8 of all
// 46.7B parameters (but the final norm's h, which no stage counts), and of their optimizer
// state.
// The job of a preset at seq 4096 on `gpu`s, 8 sequences per step.
TransformerJob preset_job(std::string_view name, std::string_view gpu) {
  TransformerJob job = llama70b();
  job.model = model_preset(name);
  job.model.seq = 4096;
  job.gpu = accelerator_preset(gpu);
  job.fabric.gpu.generation = GpuGeneration::kHopper;
  job.training.global_batch = 8;
  return job;
}

TEST(ParallelStepMoe, EveryExpertIsOnEachGpuOverTp) {
  const TransformerJob job = preset_job("mixtral-8x7b", "h100-sxm");
  ParallelSplit s;
  s.tp = 8;
  s.sequence_parallel = true;
  const SplitStep r = evaluate_split(job, s);
  ASSERT_EQ(r.problem, SplitProblem::kNone);
  const double params = model_parameters(job.model) - 4096;
  EXPECT_DOUBLE_EQ(r.memory.weights_bytes, 2 * params / 8);
  EXPECT_DOUBLE_EQ(r.memory.optimizer_bytes, 12 * params / 8);
  // The MFU counts the routed experts' FLOPs: 3 x the forward of the active parameters.
  const StepFlops f = step_flops(job.model, 8, Recompute::kNone);
  EXPECT_LT(f.model(), 6.0 * model_parameters(job.model) * 8 * 4096 / 2);
}

// Each expert runs as one GEMM of its own size on the matmul curve: with two experts of the
// same size in place of one (top-1, so the same FLOPs), each of an MoE layer's two expert GEMMs
// pays one more F_half / (e_max peak); the router's GEMM grows to 2 T h E, and the router's
// probabilities add 8 B per token and expert to the elementwise traffic (twice what is kept,
// three passes: forward and a backward of twice the forward).
TEST(ParallelStepMoe, EachExpertIsAGemmOfItsOwnSize) {
  const TransformerJob one = small_moe(1);
  const TransformerJob two = small_moe(2);
  ParallelSplit s;
  const SplitStep a = evaluate_split(one, s);
  const SplitStep b = evaluate_split(two, s);
  ASSERT_EQ(a.problem, SplitProblem::kNone);
  EXPECT_DOUBLE_EQ(b.model_flops - a.model_flops, 3 * 4 * 2 * (8 * 2048.0) * 2048 * 1);
  const MatmulCurve& c = one.gpu.curve(DType::kBf16);
  const double peak = one.gpu.peak_flops_per_s(DType::kBf16);
  const double tokens = 2048;
  const double router = c.gemm_time_s(2 * tokens * 2048 * 2, peak) -
                        c.gemm_time_s(2 * tokens * 2048 * 1, peak);
  const double experts = 2 * c.half_flops / (c.max_efficiency * peak);
  const double probabilities = 2.0 * 8 * tokens / one.gpu.hbm_Bps;
  const double per_layer = 3 * (router + experts + probabilities);
  EXPECT_NEAR(b.compute_s - a.compute_s, 8 * 4 * per_layer, 1e-9 * b.compute_s);
  // A capacity factor pads each expert to ceil(c k T / E) tokens: 1,280 of 1,024 at 1.25.
  TransformerJob padded = two;
  padded.model.capacity_factor = 1.25;
  const SplitStep p = evaluate_split(padded, s);
  const auto grouped = [&](double each) {
    return 2 * (c.gemm_time_s(2 * 2 * each * 2048 * 8192, peak) +
                c.gemm_time_s(2 * each * 2048 * 8192, peak));
  };
  // The routed copies' activations grow by c - 1: (6 f_e / h + 4) of h per token.
  const double copies = 2.0 * 0.25 * (6.0 * 8192 / 2048 + 4) * tokens * 2048 / one.gpu.hbm_Bps;
  EXPECT_NEAR(p.compute_s - b.compute_s, 8 * 4 * 3 * (grouped(1280) - grouped(1024) + copies),
              1e-9 * p.compute_s);
}

// The leading dense layers sit on the first stage: with 3 of 8 dense and two stages the first
// holds 3 dense and 1 MoE layer, the last 4 MoE layers, and the most parameters.
TEST(ParallelStepMoe, StagesHoldTheirOwnDenseAndMoeLayers) {
  TransformerJob job = small_moe(16);
  job.model.layers = 8;
  job.model.dense_layers = 3;
  job.model.topk = 2;
  job.fabric = dgx_a100_node();
  job.training.global_batch = 16;
  ParallelSplit s;
  s.pp = 2;
  const TransformerShape& m = job.model;
  const double vh = 32000.0 * 2048;
  const SplitStep r = evaluate_split(job, s);
  ASSERT_EQ(r.problem, SplitProblem::kNone);
  EXPECT_EQ(r.memory.stage, PipelineStage::kLast);
  EXPECT_DOUBLE_EQ(r.memory.weights_bytes, 2 * (4 * layer_parameters(m, LayerKind::kMoe) + vh));
  // Interleaved, stage 0 holds model chunks 0 and 2, layers 0-1 and 4-5 (2 dense, 2 MoE), and
  // stage 1 chunks 1 and 3, layers 2-3 and 6-7 (1 dense, 3 MoE).
  s.interleave = 2;
  const SplitStep v = evaluate_split(job, s);
  ASSERT_EQ(v.problem, SplitProblem::kNone);
  EXPECT_EQ(v.memory.stage, PipelineStage::kLast);
  EXPECT_DOUBLE_EQ(v.memory.weights_bytes, 2 * (3 * layer_parameters(m, LayerKind::kMoe) +
                                                layer_parameters(m, LayerKind::kDense) + vh));
  // ZeRO-3 prices a stage of both kinds (each kind's units) and fits the largest unit.
  s.interleave = 1;
  s.dp = 2;
  s.zero = 3;
  job.training.global_batch = 32;
  const SplitStep z = evaluate_split(job, s);
  ASSERT_EQ(z.problem, SplitProblem::kNone);
  EXPECT_GT(z.dp_comm_s, 0.0);
  EXPECT_TRUE(std::isfinite(z.step_s));
}

// DeepSeek-V3's latent attention and experts on a stage: its parameters, / t, and a step.
TEST(ParallelStepMoe, LatentAttentionAndSharedExpertsRun) {
  TransformerJob job = preset_job("deepseek-v3", "h200");
  job.model.layers = 8;  // 3 dense and 5 MoE layers of the model's shape
  ParallelSplit s;
  s.tp = 8;
  s.sequence_parallel = true;
  const SplitStep r = evaluate_split(job, s);
  ASSERT_EQ(r.problem, SplitProblem::kNone);
  EXPECT_DOUBLE_EQ(r.memory.weights_bytes, 2 * (model_parameters(job.model) - 7168) / 8);
  EXPECT_GT(r.tp_comm_s, 0.0);
  // The shared expert's own gather and reduce-scatter come on top of a model without one.
  TransformerJob unshared = job;
  unshared.model.shared_experts = 0;
  EXPECT_GT(r.tp_comm_s, evaluate_split(unshared, s).tp_comm_s);
}


// Mixtral 8x7B (h 4096, 8 experts, top-2, gated f_e 14336) at seq 4096 on H100s in 8-GPU
// nodes, 64 sequences per step, under Megatron-Core.
TransformerJob mixtral_job() {
  TransformerJob job = preset_job("mixtral-8x7b", "h100-sxm");
  job.training.global_batch = 64;
  return job;
}

// The all-to-all dispatcher's sizes per rank and micro-batch: T_l = b s / (cp tp) tokens of the
// rank's sequence shard, k T_l routed copies of h, the group's T_g = etp ep T_l tokens over
// the E experts.
TEST(ExpertParallel, DispatchBytesPerRankInClosedForm) {
  const TransformerJob job = mixtral_job();
  ParallelSplit s;
  s.tp = 2;
  s.dp = 4;
  s.ep = 4;
  s.etp = 1;
  s.sequence_parallel = true;
  ExpertDispatch x = expert_dispatch(job, s);
  EXPECT_DOUBLE_EQ(x.local_tokens, 2048);
  EXPECT_DOUBLE_EQ(x.group_tokens, 4 * 2048);
  EXPECT_DOUBLE_EQ(x.tokens_per_expert, 2.0 * 4 * 2048 / 8);
  EXPECT_DOUBLE_EQ(x.alltoall_bytes, 2.0 * 2048 * 4096 * 2);  // k T_l h x 2 B: 33.5 MB
  EXPECT_DOUBLE_EQ(x.probs_bytes, 2.0 * 2048 * 2);
  EXPECT_DOUBLE_EQ(x.gather_bytes, x.alltoall_bytes);        // etp 1: nothing to gather
  // etp 2 gathers the copies of two shards: twice the tokens per expert, twice the bytes.
  s.etp = 2;
  x = expert_dispatch(job, s);
  EXPECT_DOUBLE_EQ(x.group_tokens, 2 * 4 * 2048);
  EXPECT_DOUBLE_EQ(x.gather_bytes, 2 * 2.0 * 2048 * 4096 * 2);
  // Context parallelism halves a rank's tokens; b 2 doubles them.
  s.cp = 2;
  s.dp = 2;
  s.micro_batch = 2;
  EXPECT_DOUBLE_EQ(expert_dispatch(job, s).local_tokens, 2.0 * 4096 / (2 * 2));
  // Without expert parallelism (ep 1, etp tp) the experts run on every token of the TP group.
  ParallelSplit plain;
  plain.tp = 8;
  EXPECT_FALSE(experts_apart(plain));
  EXPECT_DOUBLE_EQ(expert_dispatch(job, plain).group_tokens, 4096);
  EXPECT_DOUBLE_EQ(expert_dispatch(job, plain).imbalance, 1.0);
}

// Each GPU holds E/ep experts of each MoE layer, each over etp: the experts' parameters
// / (ep etp), the rest / tp; their gradients and Adam state shard over the expert
// data-parallel group, edp = tp cp dp / (etp ep) ranks (ZeRO-2 here), the rest over d c.
TEST(ExpertParallel, ExpertWeightsOverEpEtpAndTheirOptimizerOverEdp) {
  TransformerJob job = mixtral_job();
  const TransformerShape& m = job.model;
  ParallelSplit s;
  s.tp = 2;
  s.dp = 8;
  s.ep = 4;
  s.etp = 1;
  s.zero = 2;
  s.sequence_parallel = true;
  EXPECT_EQ(expert_dp(s), 4);  // 2 x 1 x 8 / (1 x 4)
  const SplitStep r = evaluate_split(job, s);
  ASSERT_EQ(r.problem, SplitProblem::kNone);
  const double experts = 32 * routed_expert_parameters(m);
  EXPECT_DOUBLE_EQ(routed_expert_parameters(m), 8 * 3.0 * 4096 * 14336);
  const double rest = model_parameters(m) - 4096 - experts;  // the final norm is on no stage
  const double per_gpu = rest / 2 + experts / 4;
  EXPECT_NEAR(r.memory.weights_bytes, 2 * per_gpu, 1e-6 * r.memory.weights_bytes);
  EXPECT_NEAR(r.memory.gradients_bytes, 2 * (rest / 2) / 8 + 2 * (experts / 4) / 4,
              1e-6 * r.memory.gradients_bytes);
  EXPECT_NEAR(r.memory.optimizer_bytes, 12 * (rest / 2) / 8 + 12 * (experts / 4) / 4,
              1e-6 * r.memory.optimizer_bytes);
  EXPECT_GT(r.ep_comm_s, 0.0);
  EXPECT_GT(r.tp_comm_s, 0.0);
}

// ep 1 with the experts over tp is the split without expert parallelism, to the bit: etp
// given as tp is etp 0, no dispatch is priced and nothing varies.
TEST(ExpertParallel, EpOneWithEtpTpChangesNothing) {
  const TransformerJob job = mixtral_job();
  ParallelSplit s;
  s.tp = 4;
  s.pp = 2;
  s.dp = 2;
  s.zero = 1;
  s.sequence_parallel = true;
  const SplitStep a = evaluate_split(job, s);
  s.etp = 4;
  const SplitStep b = evaluate_split(job, s);
  EXPECT_EQ(a.step_s, b.step_s);
  EXPECT_EQ(a.memory.total(), b.memory.total());
  EXPECT_EQ(a.ep_comm_s, 0.0);
  EXPECT_EQ(a.variance_s, 0.0);
}

// The expected heaviest EP rank under balanced multinomial routing: none with ep 1; at least
// the mean; the closed form against a seeded Monte Carlo, which gives the same figure for the
// same seed.
TEST(ExpertParallel, TheHeaviestRankOfBalancedRoutingInClosedFormAndByMonteCarlo) {
  EXPECT_EQ(expected_moe_imbalance(8, 2, 1, 4096), 1.0);
  // E 8, k 2, ep 8, 4,096 tokens: 1 + e_8 sqrt(8 x 6 / (7 x 4096 x 2)), e_8 = 1.42360.
  const double closed = expected_moe_imbalance(8, 2, 8, 4096);
  EXPECT_NEAR(closed, 1.0 + 1.4236003 * std::sqrt(48.0 / (7.0 * 4096 * 2)), 1e-6);
  EXPECT_GT(closed, 1.0);
  const double simulated = simulated_moe_imbalance(8, 2, 8, 4096, 400, 20261207);
  EXPECT_EQ(simulated, simulated_moe_imbalance(8, 2, 8, 4096, 400, 20261207));
  EXPECT_NE(simulated, simulated_moe_imbalance(8, 2, 8, 4096, 400, 7));
  EXPECT_GE(simulated, 1.0);
  EXPECT_NEAR(simulated - 1.0, closed - 1.0, 0.1 * (closed - 1.0));
  // DeepSeek-V3's routing (256 experts, top-8) over 16 ranks.
  const double wide = expected_moe_imbalance(256, 8, 16, 2048);
  EXPECT_NEAR(simulated_moe_imbalance(256, 8, 16, 2048, 200, 1) - 1.0, wide - 1.0,
              0.1 * (wide - 1.0));
  EXPECT_EQ(input_error_of([] { (void)expected_moe_imbalance(8, 2, 3, 100); }),
            "ep 3 must divide the experts (8)");
  EXPECT_EQ(input_error_of([] { (void)simulated_moe_imbalance(8, 2, 2, 0, 10, 1); }),
            "tokens 0 and trials 10 must be at least 1");
}

// The heaviest EP rank's extra time is variance: none with ep 1, none with a capacity factor
// (every expert runs its padded capacity) or a measured imbalance of 1; with a measured 1.5 at
// least the experts' GEMMs at 1.5 times their tokens, forward and backward, in each MoE layer
// and micro-batch.
TEST(ExpertParallel, TheHeaviestRanksExtraTimeIsVariance) {
  TransformerJob job = mixtral_job();
  ParallelSplit s;
  s.dp = 8;
  s.ep = 8;
  s.zero = 1;
  const SplitStep balanced = evaluate_split(job, s);
  EXPECT_GT(balanced.variance_s, 0.0);
  job.moe_imbalance = 1.0;
  EXPECT_EQ(evaluate_split(job, s).variance_s, 0.0);
  job.moe_imbalance = 1.5;
  const SplitStep heavy = evaluate_split(job, s);
  EXPECT_GT(heavy.variance_s, balanced.variance_s);
  const MatmulCurve& c = job.gpu.curve(DType::kBf16);
  const double peak = job.gpu.peak_flops_per_s(DType::kBf16);
  const double each = 2.0 * 8 * 4096 / 8;  // k T_g / E
  const auto gemms = [&](double tokens) {
    return c.gemm_time_s(2 * 2 * tokens * 4096 * 14336, peak) +
           c.gemm_time_s(2 * tokens * 4096 * 14336, peak);
  };
  const double micro_batches = 8;
  EXPECT_GT(heavy.variance_s, micro_batches * 32 * 3 * (gemms(1.5 * each) - gemms(each)));
  TransformerJob padded = mixtral_job();
  padded.model.capacity_factor = 1.0;
  EXPECT_EQ(evaluate_split(padded, s).variance_s, 0.0);
  s.ep = 1;
  EXPECT_EQ(evaluate_split(mixtral_job(), s).variance_s, 0.0);
}

// The dispatch is priced on the EP group's own shape: 8 ranks in one node, 16 over two; the
// bytes are the same (k T_l h), the node's NICs slower than NVLink.
TEST(ExpertParallel, TheAllToAllCrossesNodesWhenTheGroupDoes) {
  TransformerJob job = small_moe(16);
  job.training.global_batch = 16;
  job.fabric = dgx_a100_node();
  ParallelSplit s;
  s.dp = 16;
  s.ep = 8;
  const SplitStep inside = evaluate_split(job, s);
  s.ep = 16;
  const SplitStep across = evaluate_split(job, s);
  ASSERT_EQ(inside.problem, SplitProblem::kNone);
  EXPECT_GT(across.ep_comm_s, 2 * inside.ep_comm_s);
  // With etp 8 the EP group's stride is 8: ep 2 already crosses nodes.
  s.tp = 8;
  s.dp = 2;
  s.ep = 2;
  s.sequence_parallel = true;
  EXPECT_EQ(expert_dp(s), 1);
  const SplitStep strided = evaluate_split(job, s);
  EXPECT_GT(strided.ep_comm_s, 0.0);
}

// What the model cannot price is refused naming the keys and values; a grid that does not fit
// the stage's ranks cannot run (kExperts).
TEST(ExpertParallel, RefusalsAndSplitsThatCannotRun) {
  const TransformerJob moe = mixtral_job();
  ParallelSplit s;
  s.dp = 8;
  s.ep = 8;
  TransformerJob dense = llama70b();
  EXPECT_EQ(input_error_of([&] { (void)evaluate_split(dense, s); }),
            "parallel.ep 8 needs a mixture of experts (model.experts is 0)");
  TransformerJob old = moe;
  old.framework = framework_preset("megatron-lm-2022");
  EXPECT_EQ(input_error_of([&] { (void)evaluate_split(old, s); }),
            "parallel.ep 8: system.framework megatron-lm-2022 has no expert parallelism");
  ParallelSplit z = s;
  z.zero = 3;
  EXPECT_EQ(input_error_of([&] { (void)evaluate_split(moe, z); }),
            "parallel.zero 3 with parallel.ep 8 and etp 1: ZeRO-3 (Megatron-FSDP) of "
            "expert-parallel experts is not priced (zero 0 to 2)");
  ParallelSplit q;
  q.tp = 2;
  q.dp = 4;
  q.ep = 4;
  q.etp = 1;
  EXPECT_EQ(input_error_of([&] { (void)evaluate_split(moe, q); }),
            "parallel.sequence_parallel off with parallel.tp 2 and the experts apart (ep 4, etp "
            "1): Megatron-Core's MoE layer refuses tensor parallelism without sequence "
            "parallelism in training (moe_layer.py)");
  ParallelSplit odd;
  odd.dp = 8;
  odd.ep = 16;  // more than the 8 experts
  EXPECT_EQ(split_problem(moe, odd), SplitProblem::kExperts);
  odd.ep = 8;
  odd.dp = 4;   // 4 ranks cannot hold an EP group of 8
  EXPECT_EQ(split_problem(moe, odd), SplitProblem::kExperts);
  EXPECT_EQ(split_problem_detail(moe, odd, SplitProblem::kExperts),
            "ep does not divide the experts, or etp x ep does not divide tp x cp x dp (ep 8, "
            "etp 1; 8 experts, tp x cp x dp = 1 x 1 x 4 = 4)");
}

}  // namespace
}  // namespace scalewall
