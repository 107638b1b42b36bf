// Speed of the selection map: every all-reduce algorithm ranked at every cell of a 32 x 32
// grid (rank counts 2^0..2^31, sizes 2^0..2^31 B) on the default flat link, with the exact
// switch points; and the same on the DGX H100 fabric of examples/fabrics (edge-level costs,
// hierarchical candidates) over 8..1024 ranks. Items are grid cells. benchmark_main supplies
// main().
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "scalewall/model/collective.h"
#include "scalewall/io/fabric_file.h"
#include "scalewall/analysis/select.h"

namespace {

std::vector<std::int64_t> pow2_ranks(int lo, int hi) {
  std::vector<std::int64_t> v;
  for (int i = lo; i <= hi; ++i) v.push_back(std::int64_t{1} << i);
  return v;
}

std::vector<double> pow2_bytes(int lo, int hi) {
  std::vector<double> v;
  for (int i = lo; i <= hi; ++i) v.push_back(std::ldexp(1.0, i));
  return v;
}

// Times selection_map over `ranks` x `bytes` with topologies from `topology_of`; counts the
// switch points found and the cells as items.
template <typename TopologyOf>
void time_selection_map(benchmark::State& state, const std::vector<std::int64_t>& ranks,
                        const std::vector<double>& bytes, const TopologyOf& topology_of) {
  std::size_t switches = 0;
  for (auto _ : state) {
    const auto map =
        scalewall::selection_map(scalewall::Op::kAllreduce, ranks, bytes, topology_of);
    switches = 0;
    for (const auto& row : map.rows) switches += row.switches.size();
    benchmark::DoNotOptimize(map.rows.data());
  }
  state.counters["switches"] = static_cast<double>(switches);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(ranks.size()) *
                          static_cast<std::int64_t>(bytes.size()));
}

void BM_SelectionMapFlat(benchmark::State& state) {
  const auto flat = [](std::int64_t n) {
    return scalewall::flat_topology(n, scalewall::kDefaultLink);
  };
  time_selection_map(state, pow2_ranks(0, 31), pow2_bytes(0, 31), flat);
}
BENCHMARK(BM_SelectionMapFlat)->Unit(benchmark::kMillisecond);

void BM_SelectionMapDgxFabric(benchmark::State& state) {
  const scalewall::Topology fabric =
      scalewall::load_fabric_file(SCALEWALL_SOURCE_DIR "/examples/fabrics/dgx-h100-ndr.toml");
  const auto scaled = [&](std::int64_t n) { return scalewall::scaled_topology(fabric, n); };
  // 8..1024: 1 to 128 nodes of 8
  time_selection_map(state, pow2_ranks(3, 10), pow2_bytes(0, 31), scaled);
}
BENCHMARK(BM_SelectionMapDgxFabric)->Unit(benchmark::kMillisecond);

// The same map up to 2^20 ranks (8..1,048,576: 1 to 131,072 nodes of 8), costed in closed
// form; the edge-level evaluation took about 26 s for it.
void BM_SelectionMapDgxFabricToAMillionRanks(benchmark::State& state) {
  const scalewall::Topology fabric =
      scalewall::load_fabric_file(SCALEWALL_SOURCE_DIR "/examples/fabrics/dgx-h100-ndr.toml");
  const auto ranks = pow2_ranks(3, 20);
  const auto bytes = pow2_bytes(0, 31);
  const auto scaled = [&](std::int64_t n) { return scalewall::scaled_topology(fabric, n); };
  for (auto _ : state) {
    const auto map = scalewall::selection_map(scalewall::Op::kAllreduce, ranks, bytes, scaled);
    benchmark::DoNotOptimize(map.rows.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(ranks.size()) *
                          static_cast<std::int64_t>(bytes.size()));
}
BENCHMARK(BM_SelectionMapDgxFabricToAMillionRanks)->Unit(benchmark::kMillisecond);

}  // namespace
