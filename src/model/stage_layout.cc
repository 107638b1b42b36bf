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
  }
  return refused(std::move(why));
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
  switch (partition) {
    case LayerPartition::kMegatronEven:
      if (given) {
        return refused("parallel.first_stage_layers and parallel.last_stage_layers need "
                       "Megatron-Core's uneven stages");
      }
      return even_layout(r, false);
    case LayerPartition::kMegatronEnds: return given ? megatron_ends(r) : even_layout(r, true);
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
