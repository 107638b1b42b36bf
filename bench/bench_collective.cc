// Speed of the collective cost model: one all-reduce cost evaluation, ranking every algorithm
// for one call, and the ring / recursive-doubling tie. benchmark_main supplies main().
#include <benchmark/benchmark.h>

#include <cstdint>
#include <iterator>
#include <vector>

#include "scalewall/collective.h"
#include "scalewall/link.h"

namespace {

using scalewall::Algorithm;

// Rank counts alternate between a power of two and a fold-in case so both branches run.
constexpr std::int64_t kRankCounts[] = {64, 513, 4096, 24};

void BM_AllreduceCost(benchmark::State& state) {
  const auto algorithm = static_cast<Algorithm>(state.range(0));
  std::size_t i = 0;
  double bytes = 4096;
  for (auto _ : state) {
    const auto cost = scalewall::allreduce_cost(algorithm, kRankCounts[i & 3], bytes,
                                                scalewall::kDefaultLink, 1e-10);
    benchmark::DoNotOptimize(cost);
    ++i;
    bytes += 1.0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AllreduceCost)
    ->Arg(static_cast<int>(Algorithm::kRing))
    ->Arg(static_cast<int>(Algorithm::kRecursiveDoubling))
    ->ArgName("algorithm");

void BM_RankAllreduce(benchmark::State& state) {
  const std::vector<Algorithm> algorithms(std::begin(scalewall::kAllAlgorithms),
                                          std::end(scalewall::kAllAlgorithms));
  std::size_t i = 0;
  double bytes = 1 << 20;
  for (auto _ : state) {
    auto ranked = scalewall::rank_allreduce(algorithms, kRankCounts[i & 3], bytes,
                                            scalewall::kDefaultLink);
    benchmark::DoNotOptimize(ranked.data());
    benchmark::ClobberMemory();
    ++i;
    bytes += 1.0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RankAllreduce);

void BM_AllreduceTieBytes(benchmark::State& state) {
  std::size_t i = 0;
  for (auto _ : state) {
    const auto tie = scalewall::allreduce_tie_bytes(Algorithm::kRing,
                                                    Algorithm::kRecursiveDoubling,
                                                    kRankCounts[i & 3], scalewall::kDefaultLink);
    benchmark::DoNotOptimize(tie);
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AllreduceTieBytes);

}  // namespace
