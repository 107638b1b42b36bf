// Speed of the collective cost model: one all-reduce cost evaluation, ranking every algorithm
// for one call, and the ring / recursive-doubling tie. benchmark_main supplies main().
#include <benchmark/benchmark.h>

#include <cstdint>
#include <iterator>
#include <vector>

#include "scalewall/model/collective.h"
#include "scalewall/model/link.h"
#include "scalewall/model/topology.h"

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
  const std::vector<Algorithm> algorithms = {Algorithm::kRing, Algorithm::kRecursiveDoubling};
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

// Every algorithm of every op on a packed or scattered DGX-like fabric (nodes of 8 ranks,
// 8 NICs, NVLink inside) of 2^14, 2^20 and 2^40 ranks: the closed form of the two-level
// topology. The edge-level evaluation took about 5 s for the pairwise all-to-all at 2^14 and
// could not run at 2^20; each case should stay in the microseconds to a millisecond.
void BM_CostEveryAlgorithmOnLargeFabric(benchmark::State& state) {
  scalewall::Topology t;
  t.name = "bench";
  t.ranks_per_node = 8;
  t.nodes = (std::int64_t{1} << state.range(0)) / 8;
  t.intra = scalewall::Link{2e-6, 450e9};
  t.inter = scalewall::Link{3e-6, 50e9};
  t.nics_per_node = 8;
  t.placement = state.range(1) == 0 ? scalewall::Placement::kPacked
                                    : scalewall::Placement::kScattered;
  double bytes = 1e9;
  for (auto _ : state) {
    for (const scalewall::Op op : scalewall::kAllOps) {
      for (const auto& spec : scalewall::applicable_algorithms(op, t)) {
        const auto cost = scalewall::collective_cost(op, spec, bytes, t);
        benchmark::DoNotOptimize(cost);
      }
    }
    bytes += 1.0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CostEveryAlgorithmOnLargeFabric)
    ->ArgsProduct({{14, 20, 40}, {0, 1}})
    ->ArgNames({"log2_ranks", "scattered"})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
