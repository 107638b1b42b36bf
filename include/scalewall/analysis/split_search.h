// scalewall/analysis/split_search.h: the best parallel split of a transformer for N GPUs: every
// divisor split tp x pp x dp = N, micro-batch, interleave, recomputation, ZeRO stage and
// sequence parallelism that can run, evaluated by evaluate_split (parallel_step.h) and ranked.
//
// Ranking: splits that fit in memory first, by step time (shortest first); then those that do
// not fit, by how much they lack (least first). A split that does not fit is never ranked above
// one that does. Every figure is a model, not a measurement.
#ifndef SCALEWALL_SPLIT_SEARCH_H_
#define SCALEWALL_SPLIT_SEARCH_H_

#include <cstdint>
#include <vector>

#include "scalewall/model/parallel_step.h"

namespace scalewall {

// What the search may vary is SplitConstraints (parallel_step.h): a set field is held fixed.

// Micro-batch sizes the search tries: powers of two up to this (Megatron-LM's runs use 1 to 8;
// beyond 16 the activations of one micro-batch rarely fit a large model).
inline constexpr std::int64_t kMaxSearchMicroBatch = 16;
// Interleaved model chunks per stage the search tries: 1, 2, 4 (more multiplies the pipeline's
// sends for a bubble already small).
inline constexpr std::int64_t kMaxSearchInterleave = 4;

struct SplitSearch {
  std::int64_t gpus = 0;
  std::int64_t evaluated = 0;        // splits evaluated (that can run)
  std::int64_t fitting = 0;          // of those, the ones that fit
  std::vector<SplitStep> ranked;     // the best `keep`, in rank order
};

// Searches every split of `gpus` GPUs allowed by `constraints` and keeps the best `keep`.
// REQUIRES: gpus >= 1; keep >= 1 (throws InputError naming the value).
SplitSearch search_splits(const TransformerJob& job, std::int64_t gpus,
                          const SplitConstraints& constraints, std::size_t keep = 5);

// Whether split a ranks above b (the ranking above).
bool ranks_before(const SplitStep& a, const SplitStep& b);

}  // namespace scalewall

#endif  // SCALEWALL_SPLIT_SEARCH_H_
