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

// One all-reduce on a calibrated-like CPU node (a link of 5 regimes, 4 exchange regimes, copy
// and gamma regimes above their first rate), without (0) and with (1) the working set
// (working_set_ranks = 2): the cost of pricing each step at the memory the call touches. Ring
// and recursive doubling over 2 and 16 ranks of one node, sizes 1 KiB .. 64 MiB in turn.
void BM_AllreduceCostWorkingSet(benchmark::State& state) {
  using scalewall::LinkRegime;
  const std::vector<LinkRegime> link = {{0, 470e-9, 2.3e9},
                                        {362, 580e-9, 3.1e9},
                                        {2896, 2.0e-6, 5.8e9},
                                        {108712, 3.9e-6, 6.5e9},
                                        {11863283, 1e-9, 5.3e9}};
  const std::vector<LinkRegime> exchange = {
      {0, 550e-9, 3.3e9}, {2896, 2.9e-6, 7.2e9}, {1482910, 1e-9, 5.9e9}, {5931642, 1e-9, 4.9e9}};
  scalewall::Topology node;
  node.nodes = 1;
  node.intra = scalewall::with_exchange(scalewall::piecewise_link(link), exchange);
  node.inter = node.intra;
  node.gamma_s_per_byte = 4.9e-11;
  node.gamma_above.above[0] = {5931642, 1.3e-10};
  node.gamma_above.count = 1;
  node.copy.s_per_byte = 2.9e-11;
  node.copy.above.above[0] = {370728, 3.0e-11};
  node.copy.above.above[1] = {5931642, 1.2e-10};
  node.copy.above.count = 2;
  node.working_set_ranks = state.range(0) != 0 ? 2 : 0;
  const Algorithm algorithms[] = {Algorithm::kRing, Algorithm::kRecursiveDoubling};
  const std::int64_t ranks[] = {2, 16};
  std::vector<scalewall::Topology> nodes;
  for (const std::int64_t n : ranks) {
    node.ranks_per_node = n;
    nodes.push_back(node);
  }
  scalewall::CostOptions options;
  scalewall::use_fabric_local_costs(options, node);
  std::size_t i = 0;
  for (auto _ : state) {
    const double bytes = 1024.0 * static_cast<double>(std::int64_t{1} << (i % 17));
    const auto cost = scalewall::collective_cost(scalewall::Op::kAllreduce, {algorithms[i & 1]},
                                                 bytes, nodes[(i >> 1) & 1], options);
    benchmark::DoNotOptimize(cost);
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AllreduceCostWorkingSet)->Arg(0)->Arg(1)->ArgName("working_set");

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
