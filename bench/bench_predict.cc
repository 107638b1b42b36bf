// Benchmarks of the step model: a whole scaling curve out to 2^20 ranks (every power of two
// and every 1,000th rank count) and a what-if ranking, on the seed's worked example with
// jitter, once with a measured bus bandwidth and once on a flat alpha-beta link (where every
// bucket size's all-reduce algorithm is chosen by cost).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "scalewall/analysis/predict.h"
#include "scalewall/model/topology.h"

namespace {

scalewall::Scenario Example(bool flat_link) {
  scalewall::Scenario s;
  s.name = "seed-7b";
  s.workload.gradient_bytes = 14e9;
  s.workload.compute_s = 0.3;
  s.workload.reference_ranks = 8;
  s.variance.sigma = 0.02;
  s.settings.overlap = true;
  s.settings.bucket_bytes = 25e6;
  if (flat_link) {
    s.network.fabric = scalewall::flat_topology(1, scalewall::Link{2.5e-6, 50e9});
  } else {
    s.network.busbw_Bps = 50e9;
  }
  return s;
}

std::vector<std::int64_t> Grid() {
  std::vector<std::int64_t> grid;
  const std::int64_t max = std::int64_t{1} << 20;
  for (std::int64_t r = 1; r <= max; ++r) {
    const bool power_of_two = (r & (r - 1)) == 0;
    if (power_of_two || r % 1000 == 0) grid.push_back(r);
  }
  return grid;
}

void BM_PredictCurveTo2e20(benchmark::State& state) {
  const scalewall::Scenario s = Example(state.range(0) == 1);
  const std::vector<std::int64_t> grid = Grid();
  for (auto _ : state) {
    const auto p = scalewall::predict(s, grid);
    benchmark::DoNotOptimize(p.rows.back().step_s);
  }
  state.counters["rank_counts"] = static_cast<double>(grid.size());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(grid.size()));
}
BENCHMARK(BM_PredictCurveTo2e20)->Arg(0)->Arg(1)->ArgName("flat_link")->Unit(benchmark::kMillisecond);

void BM_WhatIf(benchmark::State& state) {
  const scalewall::Scenario s = Example(state.range(0) == 1);
  for (auto _ : state) {
    const auto w = scalewall::what_if(s, 4096);
    benchmark::DoNotOptimize(w.remedies.front().gain);
  }
}
BENCHMARK(BM_WhatIf)->Arg(0)->Arg(1)->ArgName("flat_link")->Unit(benchmark::kMillisecond);

}  // namespace
