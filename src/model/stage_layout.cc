// Implementation of scalewall/model/stage_layout.h.
#include "scalewall/model/stage_layout.h"

#include <fmt/format.h>

#include "scalewall/base/checked_count.h"
#include "scalewall/base/error.h"

namespace scalewall {
namespace {

StageLayoutResult refused(std::string why) { return {std::nullopt, std::move(why)}; }

// Megatron-LM's even layout: l/p layers per stage when p v divides l.
StageLayoutResult even_layout(const StageLayoutRequest& r, bool ends_named) {
  const std::optional<std::int64_t> chunks = try_mul(r.pp, r.interleave);
  if (chunks && r.layers % *chunks == 0) {
    const std::int64_t each = r.layers / r.pp;
    return {StageLayout{r.pp, each, r.pp > 2 ? each : 0, each}, ""};
  }
  std::string why = fmt::format(
      "pp x interleave does not divide the layers ({}; {} layers)",
      chunks ? fmt::format("{} x {} = {}", r.pp, r.interleave, *chunks)
             : fmt::format("{} x {} is past 2^63", r.pp, r.interleave),
      r.layers);
  if (ends_named && r.pp > 1) {
    why += "; parallel.first_stage_layers and parallel.last_stage_layers (Megatron-Core's "
           "--decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers) lay "
           "the stages out unevenly";
    if (chunks && ((r.layers + 1) % *chunks == 0 || (r.layers + 2) % *chunks == 0)) {
      why += fmt::format("; pp x interleave divides the layers + {}: parallel.embedding_in_split "
                         "and parallel.loss_in_split (--account-for-embedding-in-pipeline-split, "
                         "--account-for-loss-in-pipeline-split) count the embedding and the "
                         "loss as a layer each",
                         (r.layers + 1) % *chunks == 0 ? 1 : 2);
    }
  }
  return refused(std::move(why));
}

// Megatron-Core with the embedding and/or the loss counted as a layer in the split
// (transformer_block.py get_num_layers_to_build; transformer_config.py checks p and p v
// divide the counted layers): c = (l + E + S)/p counted layers per stage, c/v per chunk; the
// first chunk of stage 0 builds one layer fewer for the embedding, the last chunk of stage
// p - 1 one fewer for the loss.
StageLayoutResult megatron_counted(const StageLayoutRequest& r) {
  if (r.first_stage_layers > 0 || r.last_stage_layers > 0) {
    return refused("parallel.embedding_in_split and parallel.loss_in_split cannot be set "
                   "with parallel.first_stage_layers or parallel.last_stage_layers (Megatron-"
                   "Core's TransformerConfig refuses --account-for-embedding-in-pipeline-split "
                   "and --account-for-loss-in-pipeline-split with uneven stages)");
  }
  const std::int64_t e = r.embedding_in_split ? 1 : 0;
  const std::int64_t s = r.loss_in_split ? 1 : 0;
  const std::int64_t counted = r.layers + e + s;
  const std::optional<std::int64_t> chunks = try_mul(r.pp, r.interleave);
  if (!chunks || counted % *chunks != 0) {
    return refused(fmt::format(
        "pp x interleave does not divide the layers with the {} counted ({}; {} + {} = {} "
        "layers)",
        e + s == 2 ? "embedding and the loss" : (e > 0 ? "embedding" : "loss"),
        chunks ? fmt::format("{} x {} = {}", r.pp, r.interleave, *chunks)
               : fmt::format("{} x {} is past 2^63", r.pp, r.interleave),
        r.layers, e + s, counted));
  }
  const std::int64_t each = counted / r.pp;
  if (r.pp == 1) return {StageLayout{1, r.layers, 0, r.layers}, ""};
  return {StageLayout{r.pp, each - e, r.pp > 2 ? each : 0, each - s}, ""};
}

// Megatron-Core's uneven layout (transformer_config.py, "Uneven PP"), with at least one of
// the two counts given.
StageLayoutResult megatron_ends(const StageLayoutRequest& r) {
  const std::int64_t f = r.first_stage_layers;
  const std::int64_t l = r.last_stage_layers;
  if (r.pp == 1) {
    return refused(fmt::format("parallel.first_stage_layers and parallel.last_stage_layers "
                               "need pp > 1 (pp {})",
                               r.pp));
  }
  for (const auto& [key, value] : {std::pair{"first", f}, std::pair{"last", l}}) {
    if (value > 0 && value % r.interleave != 0) {
      return refused(fmt::format("parallel.{}_stage_layers {} is not a multiple of interleave {}",
                                 key, value, r.interleave));
    }
  }
  const std::int64_t others = r.pp - (f > 0 ? 1 : 0) - (l > 0 ? 1 : 0);
  const std::int64_t rest = r.layers - f - l;
  if (rest < 0) {
    return refused(fmt::format("parallel.first_stage_layers {} and last_stage_layers {} are "
                               "more than the {} layers",
                               f, l, r.layers));
  }
  if ((rest > 0) != (others > 0) || (others > 0 && rest % others != 0)) {
    return refused(fmt::format("the {} layers left after the first and last stages' do not "
                               "divide evenly over the {} other stages",
                               rest, others));
  }
  const std::int64_t each = others > 0 ? rest / others : 0;
  if (each % r.interleave != 0) {
    return refused(fmt::format("the {} layers of each other stage are not a multiple of "
                               "interleave {}",
                               each, r.interleave));
  }
  return {StageLayout{r.pp, f > 0 ? f : each, r.pp > 2 ? each : 0, l > 0 ? l : each}, ""};
}

// DeepSpeed's PipelineModule, "type:" partition (unit weights): each stage in order takes up
// to B = ceil(W/p) of the W weighted specs; `ends` is 1 when the embedding and the logits
// layer weigh 1 each.
StageLayoutResult deepspeed_type(const StageLayoutRequest& r, std::int64_t ends) {
  if (r.interleave > 1) {
    return refused(fmt::format("DeepSpeed's pipeline engine runs one model chunk per stage "
                               "(interleave {})",
                               r.interleave));
  }
  if (r.pp == 1) return {StageLayout{1, r.layers, 0, r.layers}, ""};
  const std::int64_t weight = r.layers + 2 * ends;
  const std::int64_t bottleneck = (weight + r.pp - 1) / r.pp;
  const std::int64_t first = bottleneck - ends;
  const std::int64_t last = weight - (r.pp - 1) * bottleneck - ends;
  if (first < 1 || last < 1) {
    return refused(fmt::format("DeepSpeed's partition of {} layers ({} weighed) on {} stages, up "
                               "to {} per stage, leaves the last stage without a layer",
                               r.layers, weight, r.pp, bottleneck));
  }
  return {StageLayout{r.pp, first, r.pp > 2 ? bottleneck : 0, last}, ""};
}

}  // namespace

StageLayoutResult stage_layout(LayerPartition partition, const StageLayoutRequest& r) {
  SCALEWALL_CHECK(r.layers >= 1 && r.pp >= 1 && r.interleave >= 1);
  const bool given = r.first_stage_layers > 0 || r.last_stage_layers > 0;
  const bool counted = r.embedding_in_split || r.loss_in_split;
  if (counted && partition != LayerPartition::kMegatronEnds) {
    return refused("parallel.embedding_in_split and parallel.loss_in_split need Megatron-Core "
                   "(--account-for-embedding-in-pipeline-split, "
                   "--account-for-loss-in-pipeline-split)");
  }
  switch (partition) {
    case LayerPartition::kMegatronEven:
      if (given) {
        return refused("parallel.first_stage_layers and parallel.last_stage_layers need "
                       "Megatron-Core's uneven stages");
      }
      return even_layout(r, false);
    case LayerPartition::kMegatronEnds:
      if (counted) return megatron_counted(r);
      return given ? megatron_ends(r) : even_layout(r, true);
    case LayerPartition::kTypeTransformer:
    case LayerPartition::kTypeTransformerEmbedding:
      if (given) {
        return refused("parallel.first_stage_layers and parallel.last_stage_layers need "
                       "Megatron-Core's uneven stages");
      }
      return deepspeed_type(r, partition == LayerPartition::kTypeTransformerEmbedding ? 1 : 0);
  }
  SCALEWALL_CHECK(false && "unknown LayerPartition");
  return {};
}

}  // namespace scalewall
