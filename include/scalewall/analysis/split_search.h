// scalewall/analysis/split_search.h: the best parallel split of a transformer for N GPUs: every
// divisor split tp x cp x pp x dp = N (cp among cp_choices' degrees), micro-batch, interleave,
// recomputation, ZeRO stage, sequence parallelism and, for a mixture of experts, the experts'
// ep and etp that can run, evaluated by evaluate_split (parallel_step.h) and ranked.
//
// Ranking: splits that fit in memory first, by step time (shortest first); then those that do
// not fit, by how much they lack (least first). A split that does not fit is never ranked above
// one that does. Every figure is a model, not a measurement.
#ifndef SCALEWALL_SPLIT_SEARCH_H_
#define SCALEWALL_SPLIT_SEARCH_H_

#include <cstdint>
#include <optional>
#include <string>
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

// The fewest tokens of a sequence the search leaves a context-parallel rank: cp is tried only
// where s / cp is at least this. 4,096 is the shortest per-rank length NVIDIA's published
// recipes run (Megatron-Bridge's Llama 3.1 405B pre-training, 8,192 tokens on cp 2); below it
// the fused attention kernel runs each ring step on blocks where its fixed work per query
// tile weighs more (the H100's cuDNN backward at 78% of its e_max at 4,096 tokens, 64% at
// 2,048: docs/models.md, "The fused attention kernel"), and no sequence that short needs
// splitting for memory.
inline constexpr std::int64_t kMinContextParallelBlock = 4096;

// The most candidate splits one search (or one scaling curve, over all its GPU counts)
// evaluates: about two seconds of work. The candidates are counted first, from divisibility
// alone (a degree that cannot divide the heads, the layers or the batch is never visited),
// and a search with more is refused before any is evaluated.
inline constexpr std::int64_t kMaxSearchCandidates = 500000;

struct SplitSearch {
  std::int64_t gpus = 0;
  std::int64_t evaluated = 0;        // splits evaluated (that can run)
  std::int64_t fitting = 0;          // of those, the ones that fit
  std::vector<SplitStep> ranked;     // the best `keep`, in rank order
  // The best split at each context-parallel degree tried that has one that can run, cp
  // increasing (one entry when only cp 1 is tried): what plan sets beside its choice.
  std::vector<SplitStep> best_by_cp;
  // The best split at each expert-parallel degree tried that has one that can run, ep
  // increasing (one entry for a dense model or where ep is fixed): what plan sets beside its
  // choice for a mixture of experts.
  std::vector<SplitStep> best_by_ep;
};

// Searches every split of `gpus` GPUs allowed by `constraints` and keeps the best `keep`.
// REQUIRES: gpus >= 1; keep >= 1; at most kMaxSearchCandidates candidates (throws InputError
// naming the GPU count, the candidates counted and the choices to fix).
SplitSearch search_splits(const TransformerJob& job, std::int64_t gpus,
                          const SplitConstraints& constraints, std::size_t keep = 5);

// The candidate splits search_splits would evaluate for `gpus` GPUs, counted without
// evaluating any; counting stops once past `limit` (the count returned is then above it).
// A tp x pp x dp that leaves no runnable choice counts as one.
std::int64_t count_candidate_splits(const TransformerJob& job, std::int64_t gpus,
                                    const SplitConstraints& constraints,
                                    std::int64_t limit = kMaxSearchCandidates);

// Why no split of `gpus` GPUs can run `job` under `constraints`, in words, for when a search
// finds none: the GPUs do not fill whole nodes; or the one split the fixed degrees leave and
// its reason with its numbers ("its one split, tp 8 pp 8 dp 16, cannot run: dp x micro-batch
// does not divide the global batch (16 x 5 = 80; global batch 1536)"); or how many of the
// tp x pp x dp splits fail for each reason.
std::string why_no_split(const TransformerJob& job, std::int64_t gpus,
                         const SplitConstraints& constraints);

// Whether split a ranks above b (the ranking above).
bool ranks_before(const SplitStep& a, const SplitStep& b);

// The best split of a named kind, for plan's "why the others lose": "pure data parallel"
// (tp 1, pp 1, no ZeRO) and "pure ZeRO-3" (tp 1, pp 1, zero 3), the rest of the choices
// searched as `constraints` allows. Under a framework that does not run ZeRO-3 (its
// max_zero), the ZeRO-3 split is priced under deepspeed-zero and named "pure ZeRO-3 (as
// deepspeed-zero runs it)". `best` is empty when no split of that kind can run.
struct NamedSplit {
  std::string name;
  std::optional<SplitStep> best;
  SplitProblem problem = SplitProblem::kNone;  // without `best`: why its plainest split cannot run
};
std::vector<NamedSplit> pure_alternatives(const TransformerJob& job, std::int64_t gpus,
                                          SplitConstraints constraints);

// "change the decomposition", the what-if remedy of a transformer scenario: the best split of
// `gpus` GPUs with the decomposition open (tp, pp, dp, micro-batch, interleave, sequence
// parallelism, recomputation, ZeRO stage; dp_overlap and the dtype as the scenario has them)
// beside the baseline: the scenario's own split when its degrees are fixed and make `gpus`,
// evaluated as predict evaluates it (its open choices at their defaults, none searched), else
// pure data parallelism (tp 1, pp 1, ZeRO 0, the rest as the scenario allows). `pure` is
// pure_alternatives(job, gpus, constraints).
struct Decomposition {
  std::int64_t gpus = 0;
  std::string baseline_name;           // "the scenario's split" or "pure data parallel"
  std::optional<SplitStep> baseline;   // empty when it cannot run (baseline_problem says why)
  SplitProblem baseline_problem = SplitProblem::kNone;
  std::optional<SplitStep> best;       // empty when no split of `gpus` GPUs can run
  std::vector<NamedSplit> pure;
  // baseline step / best step when both fit; empty when the baseline does not fit (it cannot
  // run: the decomposition is then what makes the job possible) or either is missing.
  std::optional<double> gain;
};
// REQUIRES: gpus >= 1 (throws InputError naming the value).
Decomposition change_decomposition(const TransformerJob& job, std::int64_t gpus,
                                   const SplitConstraints& constraints);

// The best split at each GPU count of `grid` (each searched under `constraints`), for the
// scaling curve of a transformer. A count whose GPUs no split can use has an empty `ranked`.
// REQUIRES: at most kMaxSearchCandidates candidates over the whole grid (InputError).
std::vector<SplitSearch> best_split_curve(const TransformerJob& job,
                                          const std::vector<std::int64_t>& grid,
                                          const SplitConstraints& constraints);

}  // namespace scalewall

#endif  // SCALEWALL_SPLIT_SEARCH_H_
