// Speed of NCCL's choice (scalewall/model/nccl.h): one all-reduce priced and picked on two
// DGX H100 nodes (issue 12: under 5 us), and a 32 x 32 selection map of NCCL's picks over
// rank counts and sizes on the dgx-a100 preset (issue 12: under 10 ms).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "scalewall/analysis/select.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/model/nccl.h"

namespace {

// One all-reduce of about 1 MiB on two DGX H100 nodes, picked by `release`'s tables (empty:
// the model's own).
void pick_allreduces(benchmark::State& state, std::optional<scalewall::NcclRelease> release) {
  scalewall::NcclFabric fabric;
  fabric.nodes = 2;
  fabric.nvls = true;
  fabric.release = release;
  double bytes = 1 << 20;
  for (auto _ : state) {
    const auto pick = scalewall::nccl_choice(scalewall::Op::kAllreduce, bytes, fabric);
    benchmark::DoNotOptimize(pick);
    bytes += 1.0;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_NcclAllreduceChoice(benchmark::State& state) { pick_allreduces(state, std::nullopt); }
BENCHMARK(BM_NcclAllreduceChoice);

// The same call picked by an older release's tables (2.26.2): every candidate priced twice.
void BM_NcclAllreduceChoiceOlderRelease(benchmark::State& state) {
  pick_allreduces(state, scalewall::NcclRelease{2, 26, 2});
}
BENCHMARK(BM_NcclAllreduceChoiceOlderRelease);

void BM_NcclSelectionMap32x32(benchmark::State& state) {
  const scalewall::Topology base = scalewall::load_fabric("dgx-a100");
  std::vector<std::int64_t> ranks;
  for (std::int64_t n = 8; ranks.size() < 32; n += 8) ranks.push_back(n);  // 1 to 32 nodes
  std::vector<double> bytes;
  for (double m = 1; bytes.size() < 32; m *= 2) bytes.push_back(m);  // 1 B to 2 GiB
  const auto topology_for = [&](std::int64_t r) { return scalewall::scaled_topology(base, r); };
  for (auto _ : state) {
    auto map = scalewall::nccl_selection_map(scalewall::Op::kAllreduce, ranks, bytes,
                                             topology_for);
    benchmark::DoNotOptimize(map.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * 32 * 32);
}
BENCHMARK(BM_NcclSelectionMap32x32)->Unit(benchmark::kMillisecond);

}  // namespace
