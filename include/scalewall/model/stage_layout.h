// scalewall/model/stage_layout.h: how many transformer layers each pipeline stage holds, as
// the framework lays them out (FrameworkProfile::partition, framework.h). docs/models.md
// ("Pipeline stage layout") has each rule with its source.
//
// A layout has three kinds of stage: the first (stage 0, which also holds the word embedding),
// the middle ones (stages 1 .. p - 2, each alike) and the last (stage p - 1, which also
// computes the logits and the loss). With one stage, first and last are the same GPUs.
//
//  Megatron-LM (even): l/p layers per stage, l/(p v) per model chunk; p v must divide l.
//  Megatron-Core (Megatron-LM megatron/core/transformer/transformer_config.py, "Uneven PP";
//    --decoder-first-pipeline-num-layers F, --decoder-last-pipeline-num-layers L): the stage
//    whose count is given holds it; the other l - F - L layers are divided evenly over the
//    p - (1 if F) - (1 if L) other stages, which must divide them; there are middle layers
//    exactly when there are middle stages; each given count and each middle stage's count is
//    a multiple of v (each stage's layers split into v model chunks). Neither given: the
//    even layout.
//  Megatron-Core, the embedding and/or the loss counted as a layer (transformer_config.py
//    account_for_embedding_in_pipeline_split E, account_for_loss_in_pipeline_split S;
//    --account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split;
//    transformer_block.py get_num_layers_to_build): each stage holds c = (l + E + S)/p
//    counted layers, which p (and with v chunks, c % v == 0: p v) must divide; the first
//    chunk of stage 0 builds one transformer layer fewer for the embedding, the last chunk of
//    stage p - 1 one fewer for the loss, so the first stage holds c - E layers, the middle
//    ones c, the last c - S (one stage: l). A chunk may be left with none (Megatron asserts
//    only >= 0). Not together with the first or last stage's layers (TransformerConfig
//    raises ValueError).
//  DeepSpeed PipelineModule (deepspeed/runtime/pipe/module.py _partition_layers, "type:"
//    methods; deepspeed/runtime/utils.py partition_balanced as of 2020-2023, _lprobe and
//    _rb_partition_balanced): the layer specs whose class name matches the type weigh 1,
//    every other spec 0; stages are filled in order, each taking the most specs whose weight
//    stays within a bottleneck B, B the smallest that leaves nothing over (for unit weights
//    B = ceil(W/p), W the total weight). "type:transformer|embedding" also weighs the
//    embedding and the tied logits layer (EmbeddingPipe twice in Megatron-DeepSpeed's
//    GPTModelPipe): W = l + 2, so the first stage holds B - 1 layers, the middle ones B and
//    the last W - (p - 1) B - 1. A stage left without a layer is refused ("the current
//    implementation of PP fails unless each stage has at least one transformer layer",
//    megatron/model/gpt_model.py). One model chunk per stage.
#ifndef SCALEWALL_STAGE_LAYOUT_H_
#define SCALEWALL_STAGE_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "scalewall/model/framework.h"

namespace scalewall {

struct StageLayout {
  std::int64_t stages = 1;  // p
  std::int64_t first = 0;   // layers on stage 0
  std::int64_t middle = 0;  // layers on each of stages 1 .. p - 2 (0 when p <= 2)
  std::int64_t last = 0;    // layers on stage p - 1 (p = 1: the same stage as first)
  // Whether every stage holds the same layers.
  bool even() const { return first == last && (stages <= 2 || middle == first); }
  // The layers of all stages together (the model's, for a valid layout).
  std::int64_t layers() const {
    return stages == 1 ? first : first + (stages - 2) * middle + last;
  }
};

// What a split asks of the layout: its degrees and Megatron-Core's given counts (0: not given).
struct StageLayoutRequest {
  std::int64_t layers = 1;
  std::int64_t pp = 1;
  std::int64_t interleave = 1;
  std::int64_t first_stage_layers = 0;
  std::int64_t last_stage_layers = 0;
  // Megatron-Core's --account-for-embedding-in-pipeline-split and
  // --account-for-loss-in-pipeline-split: the embedding (the loss) counted as one layer of
  // the first (the last) stage. Default: not counted.
  bool embedding_in_split = false;
  bool loss_in_split = false;
};

// The layout, or why the framework refuses it: `why` is a sentence with its numbers, ending in
// the [parallel] keys that would make it run where the framework has them ("pp x interleave
// does not divide the layers (12 x 1 = 12; 70 layers); parallel.first_stage_layers and
// parallel.last_stage_layers ... lay the stages out unevenly").
struct StageLayoutResult {
  std::optional<StageLayout> layout;
  std::string why;
};
// REQUIRES: layers, pp, interleave >= 1; the given counts >= 0.
StageLayoutResult stage_layout(LayerPartition partition, const StageLayoutRequest& request);

}  // namespace scalewall

#endif  // SCALEWALL_STAGE_LAYOUT_H_
