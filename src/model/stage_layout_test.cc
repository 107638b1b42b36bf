// Tests of scalewall/model/stage_layout.h and of how evaluate_split (parallel_step.h) prices
// each stage of a layout: the slowest sets the pace, the fullest the memory.
#include "scalewall/model/stage_layout.h"

#include <gtest/gtest.h>

#include <string>

#include "scalewall/model/parallel_step.h"
#include "test_support.h"

namespace scalewall {
namespace {

StageLayout layout_or_fail(LayerPartition partition, const StageLayoutRequest& r) {
  const StageLayoutResult out = stage_layout(partition, r);
  EXPECT_TRUE(out.layout) << out.why;
  return out.layout.value_or(StageLayout{});
}

std::string why(LayerPartition partition, const StageLayoutRequest& r) {
  const StageLayoutResult out = stage_layout(partition, r);
  EXPECT_FALSE(out.layout);
  return out.why;
}

// BLOOM's run (bigscience train/tr11-176B-ml/README.md): "pp rank 0: [embed | 5 transformer
// blocks] ... pp rank 1 .. 10: [6 transformer blocks] ... pp rank 11: [5 transformer blocks |
// embed]". Megatron-DeepSpeed's default type:transformer fills 11 stages with 6 and leaves 4.
TEST(StageLayout, DeepSpeedTypePartitionsAsBloomRan) {
  const StageLayout bloom =
      layout_or_fail(LayerPartition::kTypeTransformerEmbedding, {70, 12, 1, 0, 0});
  EXPECT_EQ(bloom.first, 5);
  EXPECT_EQ(bloom.middle, 6);
  EXPECT_EQ(bloom.last, 5);
  EXPECT_EQ(bloom.layers(), 70);
  EXPECT_FALSE(bloom.even());
  const StageLayout plain = layout_or_fail(LayerPartition::kTypeTransformer, {70, 12, 1, 0, 0});
  EXPECT_EQ(plain.first, 6);
  EXPECT_EQ(plain.middle, 6);
  EXPECT_EQ(plain.last, 4);
  // 96 layers on 8 stages: 98 weighed, up to 13 each: 12, 6 x 13, 7 - 1.
  const StageLayout gpt = layout_or_fail(LayerPartition::kTypeTransformerEmbedding, {96, 8, 1, 0, 0});
  EXPECT_EQ(gpt.first, 12);
  EXPECT_EQ(gpt.middle, 13);
  EXPECT_EQ(gpt.last, 6);
  // 13 layers on 12 stages: 15 weighed, up to 2 each, run out at the 8th stage.
  EXPECT_NE(why(LayerPartition::kTypeTransformerEmbedding, {13, 12, 1, 0, 0})
                .find("leaves the last stage without a layer"),
            std::string::npos);
  EXPECT_NE(why(LayerPartition::kTypeTransformer, {70, 12, 2, 0, 0})
                .find("one model chunk per stage (interleave 2)"),
            std::string::npos);
}

// Megatron-Core (transformer_config.py, "Uneven PP"): 80 layers, first 9, last 7 on pp 10:
// the 64 others over 8 middle stages, 8 each.
TEST(StageLayout, MegatronCorePlacesTheRestOnTheMiddleStages) {
  const StageLayout l = layout_or_fail(LayerPartition::kMegatronEnds, {80, 10, 1, 9, 7});
  EXPECT_EQ(l.first, 9);
  EXPECT_EQ(l.middle, 8);
  EXPECT_EQ(l.last, 7);
  EXPECT_EQ(l.layers(), 80);
  // Only the first given: the other 71 over the 9 other stages do not divide; 71 + 9 do.
  EXPECT_EQ(why(LayerPartition::kMegatronEnds, {80, 10, 1, 9, 0}),
            "the 71 layers left after the first and last stages' do not divide evenly over the "
            "9 other stages");
  const StageLayout first = layout_or_fail(LayerPartition::kMegatronEnds, {80, 10, 1, 8, 0});
  EXPECT_EQ(first.middle, 8);
  EXPECT_EQ(first.last, 8);
  EXPECT_TRUE(first.even());
  // pp 2: first and last hold everything, no middle stage.
  const StageLayout two = layout_or_fail(LayerPartition::kMegatronEnds, {18, 2, 1, 12, 6});
  EXPECT_EQ(two.layers(), 18);
  EXPECT_EQ(why(LayerPartition::kMegatronEnds, {18, 2, 1, 10, 6}),
            "the 2 layers left after the first and last stages' do not divide evenly over the 0 "
            "other stages");
  EXPECT_EQ(why(LayerPartition::kMegatronEnds, {18, 3, 1, 10, 9}),
            "parallel.first_stage_layers 10 and last_stage_layers 9 are more than the 18 layers");
  EXPECT_EQ(why(LayerPartition::kMegatronEnds, {18, 1, 1, 18, 0}),
            "parallel.first_stage_layers and parallel.last_stage_layers need pp > 1 (pp 1)");
}

// With virtual stages Megatron-Core wants each given count and each middle stage's a multiple
// of v; without the counts, p v must divide the layers, and the refusal names the keys.
TEST(StageLayout, InterleavingFollowsMegatronsRule) {
  EXPECT_EQ(why(LayerPartition::kMegatronEnds, {80, 10, 2, 9, 7}),
            "parallel.first_stage_layers 9 is not a multiple of interleave 2");
  const StageLayout v2 = layout_or_fail(LayerPartition::kMegatronEnds, {80, 10, 2, 6, 10});
  EXPECT_EQ(v2.middle, 8);
  EXPECT_EQ(why(LayerPartition::kMegatronEnds, {80, 10, 4, 4, 4}),
            "the 9 layers of each other stage are not a multiple of interleave 4");
  EXPECT_EQ(why(LayerPartition::kMegatronEnds, {70, 12, 1, 0, 0}),
            "pp x interleave does not divide the layers (12 x 1 = 12; 70 layers); "
            "parallel.first_stage_layers and parallel.last_stage_layers (Megatron-Core's "
            "--decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers) lay the "
            "stages out unevenly; pp x interleave divides the layers + 2: "
            "parallel.embedding_in_split and parallel.loss_in_split "
            "(--account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split) "
            "count the embedding and the loss as a layer each");
  // 80 on 10 x 3: 30 divides neither 81 nor 82, and the keys are not named.
  EXPECT_EQ(why(LayerPartition::kMegatronEnds, {80, 10, 3, 0, 0}).find("embedding_in_split"),
            std::string::npos);
  // Megatron-LM as the 2021 and 2022 papers ran it has no such keys to name.
  EXPECT_EQ(why(LayerPartition::kMegatronEven, {70, 12, 1, 0, 0}),
            "pp x interleave does not divide the layers (12 x 1 = 12; 70 layers)");
  EXPECT_FALSE(stage_layout(LayerPartition::kMegatronEven, {80, 10, 1, 9, 7}).layout);
}

// Every layout a rule accepts holds the model's layers, over awkward sizes.
TEST(StageLayout, TheLayersAddUpToTheModels) {
  for (const LayerPartition partition :
       {LayerPartition::kMegatronEven, LayerPartition::kMegatronEnds,
        LayerPartition::kTypeTransformer, LayerPartition::kTypeTransformerEmbedding}) {
    for (const std::int64_t layers : {1, 2, 3, 5, 13, 24, 70, 96, 126}) {
      for (const std::int64_t pp : {1, 2, 3, 5, 8, 12, 13, 24}) {
        for (const std::int64_t v : {1, 2, 3}) {
          for (const std::int64_t ends : {0, 1, 2, 5, 9}) {
            const StageLayoutResult r = stage_layout(partition, {layers, pp, v, ends, ends});
            if (!r.layout) {
              EXPECT_FALSE(r.why.empty());
              continue;
            }
            EXPECT_EQ(r.layout->layers(), layers) << layers << " on " << pp << " v " << v;
            EXPECT_GE(r.layout->first, 1);
            EXPECT_GE(r.layout->last, 1);
            if (pp > 2) {
              EXPECT_GE(r.layout->middle, 1);
            }
          }
        }
      }
    }
  }
}

// BLOOM-176B (bigscience train/tr11-176B-ml.slurm): ALiBi priced as no position table.
TransformerJob bloom(const char* framework) {
  TransformerJob job;
  job.framework = framework_preset(framework);
  job.model = {14336, 4 * 14336, 112, 112, 70, 2048, 250880};
  job.model.position = PositionKind::kRotary;
  job.training = {2048, 1, DType::kBf16};
  job.gpu = accelerator_preset("a100-80gb");
  job.fabric = dgx_a100_node();
  return job;
}

ParallelSplit bloom_split() {
  ParallelSplit s;
  s.tp = 4;
  s.pp = 12;
  s.dp = 8;
  s.micro_batch = 2;
  s.recompute = Recompute::kFull;
  s.zero = 1;
  return s;
}

// 70 layers on 12 stages: DeepSpeed's partition runs it; Megatron-Core refuses it naming the
// keys, and runs it with first 5 and last 5 (the same layout).
TEST(StageLayout, BloomRunsOnDeepSpeedsStagesAndOnMegatronCoresGivenOnes) {
  const SplitStep ds = evaluate_split(bloom("megatron-deepspeed"), bloom_split());
  ASSERT_EQ(ds.problem, SplitProblem::kNone);
  EXPECT_EQ(ds.layout.first, 5);
  EXPECT_EQ(ds.layout.middle, 6);
  EXPECT_EQ(ds.layout.last, 5);
  TransformerJob core = bloom("megatron-core");
  core.framework.attention = AttentionKernel::kUnfused;
  ParallelSplit s = bloom_split();
  s.sequence_parallel = false;
  EXPECT_EQ(evaluate_split(core, s).problem, SplitProblem::kLayers);
  EXPECT_NE(split_problem_detail(core, s, SplitProblem::kLayers).find("parallel.first_stage_layers"),
            std::string::npos);
  s.first_stage_layers = 5;
  s.last_stage_layers = 5;
  const SplitStep given = evaluate_split(core, s);
  ASSERT_EQ(given.problem, SplitProblem::kNone);
  EXPECT_EQ(given.layout.middle, 6);
  // The fullest stage is the first: 5 layers and the embedding, 12 micro-batches in flight
  // (1F1B), each holding its layers' checkpointed inputs (2 s b h under full recomputation
  // without sequence parallelism) and the embedding's 1-byte dropout mask s b h.
  EXPECT_EQ(ds.memory.stage, PipelineStage::kFirst);
  const double sbh = 2048.0 * 2 * 14336;
  const double layer =
      layer_activation_bytes(bloom("megatron-deepspeed").model, 2.0, 4, false, Recompute::kFull);
  EXPECT_DOUBLE_EQ(layer, 2.0 * sbh);
  EXPECT_DOUBLE_EQ(ds.memory.activations_bytes, 12.0 * (5.0 * layer + sbh));
  const TransformerShape& m = bloom("megatron-deepspeed").model;
  const double params = (5.0 * layer_parameters(m) + 250880.0 * 14336.0) / 4.0;
  EXPECT_DOUBLE_EQ(ds.memory.weights_bytes, 2.0 * params);
  EXPECT_DOUBLE_EQ(ds.memory.optimizer_bytes, 12.0 * params / 8.0);
}

// GPT-3 175B (Narayanan et al. 2021) under Megatron-Core at tp 8, pp 8, dp 16 with the first
// and last stages' layers given.
TransformerJob gpt3_core() {
  TransformerJob job = bloom("megatron-core");
  job.model = {12288, 4 * 12288, 96, 96, 96, 2048, 51200};
  return job;
}
ParallelSplit gpt3_split(std::int64_t first, std::int64_t last, Recompute recompute) {
  ParallelSplit s;
  s.tp = 8;
  s.pp = 8;
  s.dp = 16;
  s.recompute = recompute;
  s.first_stage_layers = first;
  s.last_stage_layers = last;
  return s;
}

// The slowest stage paces the pipeline: GPT-3 175B's logits cost a third of a layer, so with
// more layers on the first stage than elsewhere the first is the slowest, and its compute
// grows with its layers alone (14 against 13 layers: 14/13 of the compute).
TEST(StageLayout, TheSlowestStageSetsThePace) {
  const TransformerJob job = gpt3_core();
  const auto with_ends = [&](std::int64_t first, std::int64_t last) {
    return evaluate_split(job, gpt3_split(first, last, Recompute::kNone));
  };
  const SplitStep a = with_ends(14, 10);
  const SplitStep b = with_ends(13, 11);
  ASSERT_EQ(a.problem, SplitProblem::kNone);
  EXPECT_EQ(a.slowest, PipelineStage::kFirst);
  EXPECT_EQ(b.slowest, PipelineStage::kFirst);
  EXPECT_NEAR(a.compute_s / b.compute_s, 14.0 / 13.0, 1e-12);
  EXPECT_GT(a.step_s, b.step_s);
  // Ten layers on the last stage besides the logits run faster than 13 in the middle.
  const SplitStep c = with_ends(8, 10);
  EXPECT_EQ(c.layout.middle, 13);
  EXPECT_EQ(c.slowest, PipelineStage::kMiddle);
  // The even layout, given or not, is the step as before: the last stage paces it.
  const SplitStep even = with_ends(0, 0);
  const SplitStep given = with_ends(12, 12);
  EXPECT_EQ(even.slowest, PipelineStage::kLast);
  EXPECT_EQ(given.slowest, PipelineStage::kLast);
  EXPECT_DOUBLE_EQ(given.step_s, even.step_s);
  EXPECT_DOUBLE_EQ(given.memory.total(), even.memory.total());
  EXPECT_EQ(given.memory.stage, even.memory.stage);
  EXPECT_DOUBLE_EQ(given.dp_comm_s, even.dp_comm_s);
}

// The fullest stage sets the memory: a middle stage with more layers than the first holds
// more than it, though it holds p - 1 micro-batches to the first's p. Full recomputation
// without sequence parallelism: 2 s b h per layer; stage 1 holds 7 x 14 of them (196 sbh),
// the first stage 8 x (6 x 2 sbh + sbh), 104 sbh.
TEST(StageLayout, TheFullestStageSetsTheMemory) {
  const TransformerJob job = gpt3_core();
  // 84 over 6 middle stages: 14 each.
  const SplitStep r = evaluate_split(job, gpt3_split(6, 6, Recompute::kFull));
  ASSERT_EQ(r.problem, SplitProblem::kNone);
  EXPECT_EQ(r.memory.stage, PipelineStage::kMiddle);
  const double sbh = 2048.0 * 12288.0;
  EXPECT_DOUBLE_EQ(r.memory.activations_bytes, 196.0 * sbh);
  EXPECT_DOUBLE_EQ(r.memory.weights_bytes, 2.0 * 14.0 * layer_parameters(job.model) / 8.0);
  // The even layout's fullest is the first stage, and holds less.
  const SplitStep e = evaluate_split(job, gpt3_split(0, 0, Recompute::kFull));
  EXPECT_EQ(e.memory.stage, PipelineStage::kFirst);
  EXPECT_DOUBLE_EQ(e.memory.activations_bytes, 8.0 * (12.0 * 2.0 * sbh + sbh));
  EXPECT_LT(e.memory.total(), r.memory.total());
}

// Megatron-Core with the embedding and the loss counted (transformer_block.py
// get_num_layers_to_build, as Megatron-Bridge's Llama 3.1 405B recipes set them): 126 + 2 =
// 128 counted layers, 128/p per stage; the first stage's first chunk and the last stage's
// last chunk build one layer fewer.
StageLayoutRequest counted(std::int64_t layers, std::int64_t pp, std::int64_t v, bool embedding,
                           bool loss) {
  StageLayoutRequest r{layers, pp, v, 0, 0};
  r.embedding_in_split = embedding;
  r.loss_in_split = loss;
  return r;
}

TEST(StageLayout, MegatronCoreCountsTheEmbeddingAndTheLoss) {
  struct Case {
    std::int64_t pp, v, first, middle, last;
  };
  // pp 16 x v 4 (GB200 FP8), pp 8 x v 4 (GB300), pp 16 x v 8 (GB200 MXFP8): 8, 16, 8 counted
  // layers per stage, one fewer on each end.
  for (const Case& c : {Case{16, 4, 7, 8, 7}, Case{8, 4, 15, 16, 15}, Case{16, 8, 7, 8, 7}}) {
    const StageLayout l = layout_or_fail(LayerPartition::kMegatronEnds, counted(126, c.pp, c.v, true, true));
    EXPECT_EQ(l.first, c.first) << c.pp << " x " << c.v;
    EXPECT_EQ(l.middle, c.middle);
    EXPECT_EQ(l.last, c.last);
    EXPECT_EQ(l.layers(), 126);
    EXPECT_FALSE(l.even());
  }
  // One counted: 63 + 1 = 64 on 16 x 4, 4 a stage, the counted end holding 3.
  const StageLayout e = layout_or_fail(LayerPartition::kMegatronEnds, counted(63, 16, 4, true, false));
  EXPECT_EQ(e.first, 3);
  EXPECT_EQ(e.last, 4);
  const StageLayout s = layout_or_fail(LayerPartition::kMegatronEnds, counted(63, 16, 4, false, true));
  EXPECT_EQ(s.first, 4);
  EXPECT_EQ(s.last, 3);
  // Two stages: no middle; one stage holds the model.
  const StageLayout two = layout_or_fail(LayerPartition::kMegatronEnds, counted(6, 2, 1, true, true));
  EXPECT_EQ(two.first, 3);
  EXPECT_EQ(two.middle, 0);
  EXPECT_EQ(two.last, 3);
  EXPECT_EQ(layout_or_fail(LayerPartition::kMegatronEnds, counted(126, 1, 1, true, true)).first, 126);
  // A chunk may be left without a layer (Megatron asserts >= 0): 2 + 2 on 4 stages.
  const StageLayout bare = layout_or_fail(LayerPartition::kMegatronEnds, counted(2, 4, 1, true, true));
  EXPECT_EQ(bare.first, 0);
  EXPECT_EQ(bare.middle, 1);
  EXPECT_EQ(bare.last, 0);
}

TEST(StageLayout, CountingTheEmbeddingOrTheLossIsRefusedWhereMegatronRefusesIt) {
  EXPECT_EQ(why(LayerPartition::kMegatronEnds, counted(126, 16, 4, true, false)),
            "pp x interleave does not divide the layers with the embedding counted (16 x 4 = "
            "64; 126 + 1 = 127 layers)");
  EXPECT_EQ(why(LayerPartition::kMegatronEnds, counted(126, 12, 1, true, true)),
            "pp x interleave does not divide the layers with the embedding and the loss counted "
            "(12 x 1 = 12; 126 + 2 = 128 layers)");
  // p divides 128 but p v does not: (128/16) % 16 != 0.
  EXPECT_NE(why(LayerPartition::kMegatronEnds, counted(126, 16, 16, false, true))
                .find("with the loss counted (16 x 16 = 256"),
            std::string::npos);
  StageLayoutRequest with_ends = counted(126, 16, 4, true, true);
  with_ends.first_stage_layers = 4;
  EXPECT_NE(why(LayerPartition::kMegatronEnds, with_ends)
                .find("cannot be set with parallel.first_stage_layers or parallel.last_stage_layers"),
            std::string::npos);
  for (const LayerPartition other :
       {LayerPartition::kMegatronEven, LayerPartition::kTypeTransformer,
        LayerPartition::kTypeTransformerEmbedding}) {
    EXPECT_EQ(why(other, counted(126, 16, 1, false, true)),
              "parallel.embedding_in_split and parallel.loss_in_split need Megatron-Core "
              "(--account-for-embedding-in-pipeline-split, "
              "--account-for-loss-in-pipeline-split)");
  }
}

// Every counted layout holds the model's layers, over awkward sizes.
TEST(StageLayout, CountedLayersAddUpToTheModels) {
  for (const std::int64_t layers : {1, 2, 3, 5, 13, 24, 62, 70, 96, 126}) {
    for (const std::int64_t pp : {1, 2, 3, 5, 8, 12, 13, 16, 24}) {
      for (const std::int64_t v : {1, 2, 3, 4, 8}) {
        for (const auto& [e, l] : {std::pair{true, false}, std::pair{false, true},
                                   std::pair{true, true}}) {
          const StageLayoutResult r = stage_layout(LayerPartition::kMegatronEnds,
                                                   counted(layers, pp, v, e, l));
          const std::int64_t extra = (e ? 1 : 0) + (l ? 1 : 0);
          EXPECT_EQ(r.layout.has_value(), (layers + extra) % (pp * v) == 0)
              << layers << " on " << pp << " v " << v << ": " << r.why;
          if (!r.layout) continue;
          EXPECT_EQ(r.layout->layers(), layers) << layers << " on " << pp << " v " << v;
          EXPECT_GE(r.layout->first, 0);
          EXPECT_GE(r.layout->last, 0);
          if (pp > 1) {
            EXPECT_EQ(r.layout->first + (e ? 1 : 0), (layers + extra) / pp);
          }
        }
      }
    }
  }
}

// Priced as its stages hold: Llama 3.1 405B (126 layers, h 16384, 53248 FFN, 128 heads, 8 KV
// heads, 128,256 vocabulary) on tp 4, pp 16, dp 4, v 4: the last stage holds 7 layers and
// the logits, the middle ones 8; the same job with the first and last stages' layers it
// lays out, were they multiples of v, would price alike.
TEST(StageLayout, CountedEndsArePricedAsTheirStagesHold) {
  TransformerJob job = bloom("megatron-core");
  job.model = {16384, 53248, 128, 8, 126, 8192, 128256};
  job.training = {1536, 1, DType::kBf16};
  ParallelSplit s;
  s.tp = 4;
  s.pp = 16;
  s.dp = 4;
  s.interleave = 4;
  s.zero = 1;
  s.recompute = Recompute::kFull;
  EXPECT_EQ(evaluate_split(job, s).problem, SplitProblem::kLayers);
  s.embedding_in_split = true;
  s.loss_in_split = true;
  const SplitStep r = evaluate_split(job, s);
  ASSERT_EQ(r.problem, SplitProblem::kNone);
  EXPECT_EQ(r.layout.first, 7);
  EXPECT_EQ(r.layout.middle, 8);
  EXPECT_EQ(r.layout.last, 7);
  ParallelSplit given = s;
  given.embedding_in_split = false;
  given.loss_in_split = false;
  given.first_stage_layers = 7;
  given.last_stage_layers = 7;
  given.interleave = 1;
  ParallelSplit counted_v1 = s;
  counted_v1.interleave = 1;
  const SplitStep a = evaluate_split(job, counted_v1);
  const SplitStep b = evaluate_split(job, given);
  ASSERT_EQ(b.problem, SplitProblem::kNone);
  EXPECT_DOUBLE_EQ(a.step_s, b.step_s);
  EXPECT_DOUBLE_EQ(a.memory.total(), b.memory.total());
}

}  // namespace
}  // namespace scalewall
