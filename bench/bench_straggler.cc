// Speed of the straggler models: the exact expected maximum of N normals (numerical
// integration, whose cost should not grow with N), and the Monte Carlo estimate's throughput
// in uniform draws per second (items per second). benchmark_main supplies main().
#include <benchmark/benchmark.h>

#include <cstdint>

#include "scalewall/model/straggler.h"

namespace {

// One evaluation of E[max of N standard normals]; N alternates with N - 1 so that no call
// can be folded into the previous one.
void BM_ExpectedMaxExact(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  std::int64_t i = 0;
  for (auto _ : state) {
    const double value = scalewall::expected_max_standard_normal(n - (i & 1));
    benchmark::DoNotOptimize(value);
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ExpectedMaxExact)->Arg(1000)->Arg(1000000)->Arg(std::int64_t{1} << 40)->ArgName("N");

// One Monte Carlo estimate of `trials` trials at N ranks: N x trials uniform draws, reported
// as items per second, plus one inverse-normal transform per trial.
void BM_SlowestRankMonteCarlo(benchmark::State& state) {
  const std::int64_t ranks = state.range(0);
  const std::int64_t trials = state.range(1);
  std::uint64_t seed = 1;
  for (auto _ : state) {
    const auto result = scalewall::slowest_rank_monte_carlo(ranks, 0.02, trials, seed++);
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations() * ranks * trials);
}
BENCHMARK(BM_SlowestRankMonteCarlo)
    ->Args({8, 1000})
    ->Args({1024, 100})
    ->Args({16384, 10})
    ->ArgNames({"N", "trials"})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
