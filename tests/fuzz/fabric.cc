// Fuzz target: fabric TOML (parse_fabric), then what `scalewall collective --fabric` does
// with an accepted fabric: every applicable all-reduce algorithm costed and ranked for one
// message size and, on a GPU fabric (ranks = "gpu" with its NCCL keys: gpu, nvls, collnet,
// nccl_net_latency, nccl_net_hop, nccl_version), every candidate NCCL would consider for an
// all-reduce and an all-gather, and its pick. Fabrics above 1024 ranks are costed at 1024
// (scaled_topology) so that one input stays fast; the large-fabric bound is a property of
// collective_cost, tested apart.
#include <cstdint>
#include <vector>

#include "scalewall/model/collective.h"
#include "scalewall/model/nccl.h"
#include "scalewall/io/fabric_file.h"
#include "scalewall/model/topology.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scalewall;
  fuzz::guarded([&] {
    Topology t = parse_fabric(fuzz::as_text(data, size), "fuzz.toml");
    constexpr std::int64_t kMostRanks = 1024;
    if (t.ranks() > kMostRanks) {
      t = scaled_topology(t, t.ranks_per_node <= kMostRanks
                                 ? (kMostRanks / t.ranks_per_node) * t.ranks_per_node
                                 : kMostRanks);
    }
    const std::vector<AlgorithmSpec> specs = applicable_algorithms(Op::kAllreduce, t);
    for (const double bytes : {0.0, 1e6}) {
      for (const CollectiveCost& c : rank_algorithms(Op::kAllreduce, specs, bytes, t)) {
        fuzz::require_finite(c.total_s, "total_s");
        fuzz::require_finite(c.latency_s, "latency_s");
        fuzz::require_finite(c.bandwidth_s, "bandwidth_s");
      }
    }
    if (t.rank_kind != RankKind::kGpu) return;
    const NcclFabric fabric = nccl_fabric(t);
    for (const Op op : {Op::kAllreduce, Op::kAllgather}) {
      for (const double bytes : {0.0, 8.0, 1e6, 1e9}) {
        for (const NcclCost& c : nccl_costs(op, bytes, fabric)) {
          fuzz::require_finite(c.total_s, "nccl total_s");
          fuzz::require_finite(c.latency_s, "nccl latency_s");
          fuzz::require_finite(c.pick_s, "nccl pick_s");
        }
        fuzz::require_finite(nccl_choice(op, bytes, fabric).total_s, "nccl choice total_s");
      }
    }
  });
  return 0;
}
