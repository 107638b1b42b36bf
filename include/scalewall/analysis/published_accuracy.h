// scalewall/analysis/published_accuracy.h: the transformer model against published training
// runs (io/published_runs.h): each run becomes a scenario (the model's dimensions, the GPUs,
// the batch, the parallel degrees the source states, its framework), is priced as `plan` prices
// it under those degrees, and its predicted step time is compared with the measured one.
//
// The measured step of a run is B s / (tokens/s per GPU x N) where the source gives tokens/s,
// else the run's model FLOPs by Megatron-LM's count (megatron_model_flops) over its TFLOP/s per
// GPU x N: the count the published TFLOP/s were computed with. A run the model cannot price yet
// (a mixture of experts without a model preset, a 4-bit format, fine-tuning, an accelerator or
// system with no preset, a missing dimension) is kept with the reason, never dropped silently.
// A run with context parallelism is priced at the cp its source states. A mixture of experts
// is priced from the model preset its name matches (DeepSeekV3, Qwen3_30B_a3B,
// Qwen3_235B_a22B, GPT OSS 120B; the table's expert columns must agree with it) at the ep its
// source states, etp left to the search, and summarised apart by model family and GPU.
// docs/models.md ("Accuracy on published runs") states the rules.
#ifndef SCALEWALL_ANALYSIS_PUBLISHED_ACCURACY_H_
#define SCALEWALL_ANALYSIS_PUBLISHED_ACCURACY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scalewall/io/published_runs.h"
#include "scalewall/model/parallel_step.h"

namespace scalewall {

// The model FLOPs of one step of `global_batch` sequences as Megatron-LM counts them
// (megatron/training/training.py, num_floating_point_operations, without recomputation):
//   12 B s l h^2 ((1 + k/a + s/h) + (f/h) g + V / (2 l h))
// with g = 3/2 for a gated MLP, 1 otherwise.
double megatron_model_flops(const TransformerShape& m, double global_batch);

struct PublishedCase {
  PublishedRun run;
  std::string name;          // "LLAMA3_70B on 64 x H100, FP8 (megatron_bridge...csv:12)"
  std::string group;         // GPU and precision: "H100 BF16"
  std::string family;        // a mixture of experts: its model family and GPU
                             // ("DeepSeek-V3 GB300"); empty for a dense model
  std::string skipped;       // why the model does not price it; empty when it does
  std::string skipped_kind;  // the reason's kind, to count runs by: "mixture of experts",
                             // "4-bit format", "fine-tuning",
                             // "no preset", "not stated", "no split runs"
  std::string scenario;      // the scenario (TOML) that prices it
  std::string assumptions;   // what the source leaves unstated and the scenario assumes
  double measured_step_s = 0;
  double predicted_step_s = 0;
  double error = 0;          // predicted / measured - 1
  bool fits = true;          // the predicted split fits in memory
  ParallelSplit split;       // the split priced
};

// Median, 90th percentile and worst |error| of a group of priced runs.
struct AccuracyGroup {
  std::string name;          // "H100 BF16", or "all"
  std::int64_t count = 0;
  double median_abs = 0;
  double p90_abs = 0;
  double worst_abs = 0;
  double median_signed = 0;  // the bias: above 0, the model is too slow
};

struct PublishedAccuracy {
  std::vector<PublishedCase> cases;   // every run, in the order given
  std::vector<AccuracyGroup> groups;  // each group of dense priced runs (name order), then "all"
  // The priced runs whose split has cp > 1, across the groups ("cp > 1"); empty when there
  // are none.
  std::optional<AccuracyGroup> context_parallel;
  // The priced mixtures of experts, by family and GPU (name order), then "all MoE"; they are
  // in none of `groups` (whose "all" is the dense runs'). Empty when none is priced.
  std::vector<AccuracyGroup> mixture_of_experts;
};

// The scenario of `run` (TOML), or the reason it cannot be written, in `skipped`; fills
// name, group, scenario, assumptions and measured_step_s.
PublishedCase published_case(const PublishedRun& run);

// Prices every run that can be priced and summarises the errors by group.
PublishedAccuracy published_accuracy(const std::vector<PublishedRun>& runs);

}  // namespace scalewall

#endif  // SCALEWALL_ANALYSIS_PUBLISHED_ACCURACY_H_
