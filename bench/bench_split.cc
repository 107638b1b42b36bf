// Speed of the transformer split model (scalewall/model/parallel_step.h) and its search
// (scalewall/analysis/split_search.h): one evaluation of GPT-3 175B at tp 8 x pp 8 x dp 16 on
// DGX A100 nodes (issue 14: under 20 us), and the whole search for the 1T model of Narayanan et
// al. 2021 on 3072 GPUs, every divisor split with every micro-batch, interleave, recomputation,
// ZeRO stage and sequence parallelism (issue 14: under 1 s on one core).
#include <benchmark/benchmark.h>

#include "scalewall/analysis/split_search.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/model/accelerator.h"

namespace {

scalewall::TransformerJob job_of(std::int64_t hidden, std::int64_t heads, std::int64_t layers,
                                 std::int64_t batch) {
  scalewall::TransformerJob job;
  job.model = {hidden, 4 * hidden, heads, heads, layers, 2048, 51200};
  job.training = {batch, 1, scalewall::DType::kBf16};
  job.gpu = scalewall::accelerator_preset("a100-80gb");
  job.fabric = scalewall::load_fabric("dgx-a100");
  return job;
}

void BM_EvaluateSplit175B(benchmark::State& state) {
  const scalewall::TransformerJob job = job_of(12288, 96, 96, 1536);
  scalewall::ParallelSplit split;
  split.tp = 8;
  split.pp = 8;
  split.dp = 16;
  split.recompute = scalewall::Recompute::kFull;
  for (auto _ : state) {
    const auto step = scalewall::evaluate_split(job, split);
    benchmark::DoNotOptimize(step);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EvaluateSplit175B)->Unit(benchmark::kMicrosecond);

void BM_SearchSplits1TOn3072(benchmark::State& state) {
  const scalewall::TransformerJob job = job_of(25600, 160, 128, 3072);
  std::int64_t evaluated = 0;
  for (auto _ : state) {
    const auto search = scalewall::search_splits(job, 3072, {}, 5);
    evaluated = search.evaluated;
    benchmark::DoNotOptimize(search.ranked.data());
  }
  state.counters["splits"] = static_cast<double>(evaluated);
}
BENCHMARK(BM_SearchSplits1TOn3072)->Unit(benchmark::kMillisecond);

}  // namespace
