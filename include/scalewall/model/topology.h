// scalewall/model/topology.h: where ranks sit and which link each pair of ranks uses.
//
// A fabric is two-level: `nodes` nodes of `ranks_per_node` ranks each. Ranks on one node talk
// over the intra-node link (NVLink, shared memory); ranks on different nodes over the
// inter-node link of a NIC. A node has `nics_per_node` NICs; when more of its ranks send across
// nodes in the same step than it has NICs, they share them (seed D01 section 3.2: "a node with
// one NIC and eight GPUs has an injection ceiling that eight GPUs must share"). An
// oversubscribed fabric (ratio r >= 1, "2:1" is 2) gives each NIC 1/r of its rate when every
// NIC sends at once, which every collective step does.
//
// Placement maps rank r (0-based) to a node:
//   packed     node(r) = r / ranks_per_node      (consecutive ranks share a node)
//   scattered  node(r) = r % nodes               (round-robin: neighbours on different nodes)
//   explicit   node(r) = rank_to_node[r]         (as a scheduler placed them)
//
// A Topology with one rank per node and one NIC is a flat network: every pair of ranks uses
// the inter-node link, unshared. flat_topology(ranks, link) builds it; on it every collective
// costs exactly its closed form in collective.h.
#ifndef SCALEWALL_TOPOLOGY_H_
#define SCALEWALL_TOPOLOGY_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/model/link.h"

namespace scalewall {

enum class Placement { kPacked, kScattered, kExplicit };

// "packed", "scattered", "explicit".
std::string_view placement_name(Placement placement);
// The inverse (packed and scattered only; an explicit list is given as data). Throws
// InputError naming the text.
Placement parse_placement(std::string_view text);

// What a Topology stands for. Reports draw and describe the two differently (a flat link is
// one link; a fabric has nodes, NICs and two links); the name is only a label, so a fabric
// file may be called anything, "flat" included.
enum class TopologyKind {
  kFabric,    // two-level: a fabric file, a calibrated fabric
  kFlatLink,  // flat_topology: every pair of ranks joined by one link
};

// What the ranks are. CPU ranks (the default) are MPI processes and the MPI algorithm catalogue
// (collective.h) prices their collectives; GPU ranks are driven by NCCL (or RCCL, which keeps
// NCCL's tuning model), whose own algorithm and protocol choice (nccl.h) prices theirs. A fabric
// file says `ranks = "gpu"`.
enum class RankKind { kCpu, kGpu };

// The GPU generation, which picks NCCL's per-architecture tables (nccl.h). kCdna3 is AMD's
// MI300X under RCCL, priced with the Hopper tables (RCCL keeps NCCL's model; its own tables are
// not transcribed).
enum class GpuGeneration { kVolta, kAmpere, kHopper, kBlackwell, kCdna3 };

// What a GPU fabric has beyond its links (fabric keys `gpu`, `nvls`, `collnet`).
// An NCCL release, major.minor.patch (nccl.h parses and names it).
struct NcclRelease {
  int major = 2;
  int minor = 30;
  int patch = 7;
  auto operator<=>(const NcclRelease&) const = default;
};

struct GpuFeatures {
  GpuGeneration generation = GpuGeneration::kHopper;  // Default: Hopper
  bool nvls = false;     // NVLink SHARP in the node's NVSwitches (Hopper and later)
  bool collnet = false;  // SHARP reductions in the inter-node switches (NCCL's CollNet)
  // The latency the NICs' NCCL network plugin reports (ncclNetProperties_t::latency), which
  // NCCL adds to every network hop of its model (twice for Simple: the flush). 0 for NCCL's
  // own InfiniBand/RoCE and socket transports, which report none; aws-ofi-nccl on EFA reports
  // 75 us on p4d and p5 (its platform table). Seconds, >= 0.
  double net_latency_s = 0;
  // The time one network hop takes, where the plugin's reported latency is a figure for NCCL's
  // choice rather than a hop's time (fabric key `nccl_net_hop`): the predicted time then
  // charges it per hop, once for every protocol, in place of net_latency_s, while NCCL's pick
  // still sees net_latency_s. aws-ofi-nccl's own tuner prices a p5 hop at 20 us ("2 nodes, 8B
  // RDMA w/imm lat"), a quarter of the 75 us it reports. Empty: a hop takes what is reported.
  std::optional<double> net_hop_s;
  // The NCCL release that picks the algorithm and protocol (fabric key `nccl_version`,
  // --nccl-version): NcclFabric::release. Empty: the model's own, 2.30.7.
  std::optional<NcclRelease> nccl_release;
};

struct Topology {
  std::string name;                  // for reports; "flat" for flat_topology
  TopologyKind kind = TopologyKind::kFabric;
  std::int64_t nodes = 1;            // >= 1
  std::int64_t ranks_per_node = 1;   // >= 1
  Link intra;                        // between two ranks of one node
  Link inter;                        // one NIC's link into the inter-node fabric
  std::int64_t nics_per_node = 1;    // >= 1. Default: 1.
  double oversubscription = 1.0;     // >= 1. Default: 1 (non-blocking fabric).
  Placement placement = Placement::kPacked;
  std::vector<std::int64_t> rank_to_node;  // kExplicit only: one node index per rank
  double gamma_s_per_byte = 0;       // the ranks' reduction cost per byte reduced (0: not
                                     // given); the default of every command's --gamma
  ReductionRegimes gamma_above;      // its further regimes by the bytes one step reduces
  CopyCost copy;                     // the ranks' local copy of a call's input (link.h; free:
                                     // not given); the default of every command's cost options
  CopyCost alloc;                    // a library's work buffer inside a call, by its size
                                     // (link.h; free: not given); likewise
  CopyCost sent_reduction;           // a reduction into the buffer a step has just sent
                                     // (CostOptions::sent_reduction; free: not given, gamma)
  CopyCost sent_exchange;            // an exchange into blocks sent earlier in the call
                                     // (CostOptions::sent_exchange; free: not given, the link)
  double local_min_bytes = 0;        // the smallest size the local passes measured
                                     // (CostOptions::local_min_bytes; 0: none)
  std::int64_t working_set_ranks = 0;  // the ranks of one node that ran the measurements of
                                     // the links and local rates at once (CostOptions::
                                     // working_set_ranks; 0: each step at its own size)
  bool nominal = true;               // true when the link figures are datasheet values, not
                                     // measured ones; reports say which
  RankKind rank_kind = RankKind::kCpu;  // what the ranks are. Default: CPU (MPI)
  GpuFeatures gpu;                   // kGpu only

  std::int64_t ranks() const { return nodes * ranks_per_node; }

  // The node that rank r sits on. REQUIRES: 0 <= r < ranks().
  std::int64_t node_of(std::int64_t rank) const;

  // The effective per-stream inter-node link when `streams` ranks of one node send across
  // nodes at once: alpha unchanged; bandwidth = inter.bandwidth * min(1, nics/streams) /
  // oversubscription. REQUIRES: streams >= 1.
  Link shared_inter(std::int64_t streams) const;
};

// A flat network of `ranks` ranks joined pairwise by `link`: one rank per node, one NIC each.
Topology flat_topology(std::int64_t ranks, const Link& link);

// The same fabric with `ranks` ranks: ranks / ranks_per_node nodes when ranks is a multiple
// of ranks_per_node; a single node of `ranks` ranks when ranks < ranks_per_node. Throws
// InputError naming the count otherwise, or when the placement is an explicit list and
// `ranks` differs from its length.
Topology scaled_topology(const Topology& topology, std::int64_t ranks);

// Throws InputError (naming the field and value) unless: nodes, ranks_per_node, nics >= 1;
// ranks() <= 2^40; both links valid; oversubscription >= 1 and finite; for kExplicit,
// rank_to_node has ranks() entries, each in [0, nodes), and every node holds exactly
// ranks_per_node ranks.
void require_valid(const Topology& topology);

}  // namespace scalewall

#endif  // SCALEWALL_TOPOLOGY_H_
