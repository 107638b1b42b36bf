// Speed of the transformer split model (scalewall/model/parallel_step.h) and its search
// (scalewall/analysis/split_search.h): one evaluation of GPT-3 175B at tp 8 x pp 8 x dp 16 on
// DGX A100 nodes (issue 14: under 20 us), and the whole search for the 1T model of Narayanan et
// al. 2021 on 3072 GPUs, every divisor split with every micro-batch, interleave, recomputation,
// ZeRO stage and sequence parallelism (issue 14: under 1 s on one core); a 128K-token
// Llama 3.1 70B on 16,384 H100s, where the search also tries context parallelism; and
// DeepSeek-V3 on 16,384 H100s, where it also tries expert parallelism.
#include <benchmark/benchmark.h>

#include "scalewall/analysis/split_search.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/model/accelerator.h"
#include "scalewall/model/model_presets.h"

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

// The whole search of `gpus` GPUs under `constraints`, with the splits it evaluates as a
// counter.
void search_all(benchmark::State& state, const scalewall::TransformerJob& job,
                std::int64_t gpus, const scalewall::SplitConstraints& constraints = {}) {
  std::int64_t evaluated = 0;
  for (auto _ : state) {
    const auto search = scalewall::search_splits(job, gpus, constraints, 5);
    evaluated = search.evaluated;
    benchmark::DoNotOptimize(search.ranked.data());
  }
  state.counters["splits"] = static_cast<double>(evaluated);
}

void BM_SearchSplits1TOn3072(benchmark::State& state) {
  search_all(state, job_of(25600, 160, 128, 3072), 3072);
}
BENCHMARK(BM_SearchSplits1TOn3072)->Unit(benchmark::kMillisecond);

// BLOOM-176B's shape (70 layers, V 250880) under a framework's stage layout.
scalewall::TransformerJob bloom_of(const char* framework) {
  scalewall::TransformerJob job = job_of(14336, 112, 70, 2048);
  job.model.vocab = 250880;
  job.framework = scalewall::framework_preset(framework);
  return job;
}

// One split on uneven stages: DeepSpeed's type:transformer|embedding layout of 70 layers on 12
// stages (first, middle and last stage each priced).
void BM_EvaluateSplitBloomUneven(benchmark::State& state) {
  const scalewall::TransformerJob job = bloom_of("megatron-deepspeed");
  scalewall::ParallelSplit split;
  split.tp = 4;
  split.pp = 12;
  split.dp = 8;
  split.micro_batch = 2;
  split.recompute = scalewall::Recompute::kFull;
  split.zero = 1;
  for (auto _ : state) {
    const auto step = scalewall::evaluate_split(job, split);
    benchmark::DoNotOptimize(step);
  }
}
BENCHMARK(BM_EvaluateSplitBloomUneven)->Unit(benchmark::kMicrosecond);

// The search on 16,384 GPUs where uneven layouts are searched: Megatron-Core (the logits of
// V 250880 cost more than a layer: uneven first/last stage layers are tried) and
// Megatron-DeepSpeed (pp free of the layers).
void BM_SearchSplitsBloomOn16384(benchmark::State& state) {
  search_all(state, bloom_of(state.range(0) == 0 ? "megatron-core" : "megatron-deepspeed"),
             16384);
}
BENCHMARK(BM_SearchSplitsBloomOn16384)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// A model preset at `seq` tokens and `batch` sequences per step in BF16 on H100s in DGX H100
// nodes under Megatron-Core.
scalewall::TransformerJob h100_job(const char* preset, std::int64_t seq, std::int64_t batch) {
  scalewall::TransformerJob job;
  job.model = scalewall::model_preset(preset);
  job.model.seq = seq;
  job.training = {batch, 1, scalewall::DType::kBf16};
  job.gpu = scalewall::accelerator_preset("h100-sxm");
  job.fabric = scalewall::load_fabric("dgx-h100");
  return job;
}

// Llama 3.1 70B at 131,072 tokens per sequence, global batch 4096, on 16,384 H100s in DGX H100
// nodes under Megatron-Core: the search tries cp 1 to 32 (arg 0), or cp held at 1 (arg 1, the
// search as it was before context parallelism).
void BM_SearchSplitsLlama128kOn16384(benchmark::State& state) {
  const scalewall::TransformerJob job = h100_job("llama3.1-70b", 131072, 4096);
  scalewall::SplitConstraints c;
  if (state.range(0) == 1) c.cp = 1;
  search_all(state, job, 16384, c);
}
BENCHMARK(BM_SearchSplitsLlama128kOn16384)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// DeepSeek-V3 (256 experts, top-8, MLA) at 4,096 tokens, global batch 8192, on 16,384 H100s in
// DGX H100 nodes under Megatron-Core: the search tries ep 1 to 256 and etp tp and 1 (arg 0),
// or ep and etp held at 1 and tp (arg 1, the search as it was before expert parallelism).
void BM_SearchSplitsDeepSeekV3On16384(benchmark::State& state) {
  const scalewall::TransformerJob job = h100_job("deepseek-v3", 4096, 8192);
  scalewall::SplitConstraints c;
  if (state.range(0) == 1) {
    c.ep = 1;
    c.etp = 0;
  }
  search_all(state, job, 16384, c);
}
BENCHMARK(BM_SearchSplitsDeepSeekV3On16384)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
