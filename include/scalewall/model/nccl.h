// scalewall/model/nccl.h: what NCCL picks for one collective on a GPU fabric, and what that
// costs by NCCL's own tuning model.
//
// NCCL prices every (algorithm, protocol) pair it may run and takes the least predicted time
// (NCCL 2.30.7, src/enqueue.cc, topoGetAlgoInfo):
//
//   time = latency + bytes / bandwidth
//
// latency and bandwidth come from its tuning model (src/graph/tuning.cc, ncclTopoTuneModel):
// a base latency per algorithm x protocol, plus hardware latencies per link type (NVLink, PCI,
// network) times the steps each algorithm takes inside and across nodes; a bus bandwidth of
// channels x the per-channel bandwidth its topology search found, cut by protocol factors (LL
// moves half its bytes as flags, LL128 120 of every 128), capped by per-architecture tables, and
// turned into an algorithm bandwidth (ring N/steps, tree 1/2). A tree all-reduce's bandwidth is
// scaled by a correction factor per power-of-two size; an inter-node ring Simple all-reduce's
// latency by its plateau factor. docs/models.md ("NCCL's algorithm and protocol choice") has
// every constant with its source, and what the model leaves out.
//
// The channels and their per-channel bandwidth are NCCL's topology search (src/graph/search.cc)
// reduced to the fabric's figures: the NVLink bandwidth of one GPU as NCCL counts it (its
// per-link figure times the links), the NICs' rate (Gb/s / 8), the GPU-NIC PCIe path, and the
// per-architecture speed arrays; see nccl_channels.
//
// Names are NCCL's (NCCL_ALGO, NCCL_PROTO): Tree, Ring, CollNetDirect, CollNetChain, NVLS,
// NVLSTree; LL, LL128, Simple. m (`bytes`) is the nccl-tests buffer (collective.h): NCCL's
// nBytes, the whole output of an all-gather, the whole input of a reduce-scatter.
#ifndef SCALEWALL_NCCL_H_
#define SCALEWALL_NCCL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/model/collective.h"
#include "scalewall/model/topology.h"

namespace scalewall {

// The host time one thread spends launching one GPU's kernel of a grouped NCCL call (s). A
// thread that drives G GPUs starts their kernels this far apart; the collective, a barrier,
// ends (G - 1) launches later than with one GPU per thread. Estimated from public nccl-tests
// logs of one DGX/HGX A100 node run as one process with nGpus 8: their floors (an 8-byte
// all-reduce) of 32-40 us are 8 launches of 4-5 us, where one process per GPU takes 18-25 us
// (docs/models.md, "A thread that drives several GPUs"). NCCL's tables hold no such cost.
inline constexpr double kNcclGroupLaunchPerGpu_s = 4e-6;

// The NCCL release whose tuning tables and chunking the model follows.
inline constexpr const char* kNcclModelVersion = "2.30.7";

// NcclRelease is in topology.h (a GPU fabric's GpuFeatures may name one).
inline constexpr NcclRelease kNcclModelRelease{2, 30, 7};
// The oldest release whose tuning tables the model holds (NcclFabric::release).
inline constexpr NcclRelease kNcclOldestRelease{2, 19, 0};

// "2.26.2", "2.26" (patch 0), "2.26.2+cuda12.8", "v2.26.2-1" (a git tag), or an
// NCCL_VERSION_CODE from 2.9 on ("22602", major x 10000 + minor x 100 + patch). Throws
// InputError naming the text.
NcclRelease parse_nccl_release(std::string_view text);
// "2.26.2".
std::string nccl_release_name(NcclRelease release);
// The release whose tables price a pick for `release`: itself from 2.19.0 to 2.30.7, else the
// nearer end of that range.
NcclRelease nccl_tables_release(NcclRelease release);
// The same for a release that may be unnamed: empty is the model's, 2.30.7.
NcclRelease nccl_tables_release(std::optional<NcclRelease> release);

// In NCCL's order (its NCCL_ALGO_* indices; PAT is left out: it runs only with one GPU per
// node, where the ring is priced instead).
enum class NcclAlgorithm { kTree, kRing, kCollNetDirect, kCollNetChain, kNvls, kNvlsTree };
enum class NcclProtocol { kLL, kLL128, kSimple };

inline constexpr NcclAlgorithm kAllNcclAlgorithms[] = {
    NcclAlgorithm::kTree, NcclAlgorithm::kRing, NcclAlgorithm::kCollNetDirect,
    NcclAlgorithm::kCollNetChain, NcclAlgorithm::kNvls, NcclAlgorithm::kNvlsTree};
inline constexpr NcclProtocol kAllNcclProtocols[] = {NcclProtocol::kLL, NcclProtocol::kLL128,
                                                     NcclProtocol::kSimple};

// "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree" (NCCL_ALGO's names).
std::string_view nccl_algorithm_name(NcclAlgorithm algorithm);
// "LL", "LL128", "Simple" (NCCL_PROTO's names).
std::string_view nccl_protocol_name(NcclProtocol protocol);
// "volta", "ampere", "hopper", "blackwell", "cdna3" (the fabric file's `gpu` values).
std::string_view gpu_generation_name(GpuGeneration generation);
// The inverse; throws InputError naming the text and listing the names.
GpuGeneration parse_gpu_generation(std::string_view text);

// A GPU fabric as NCCL's tuning sees it. SI units.
struct NcclFabric {
  std::int64_t nodes = 1;
  std::int64_t gpus_per_node = 8;
  GpuGeneration generation = GpuGeneration::kHopper;
  double nvlink_Bps = 450e9;     // one GPU's NVLink (or xGMI) bandwidth per direction, datasheet
  double nic_Bps = 50e9;         // one network device's rate per direction, as NCCL sees it
  std::int64_t nics_per_node = 8;  // network devices NCCL sees per node
  bool nvls = false;
  bool collnet = false;
  double net_latency_s = 0;  // the network plugin's reported latency (GpuFeatures)
  std::optional<double> net_hop_s;  // a network hop's own time, where it differs (GpuFeatures)
  // GPUs one host thread drives (nccl-tests -g G, one process launching for several GPUs):
  // each NCCL call launches their kernels one after another, and the collective waits for the
  // last. 1 (one GPU per thread, as frameworks run) adds nothing; see NcclCost::launch_s.
  std::int64_t gpus_per_thread = 1;
  // The NCCL release that picks (the NCCL_ALGO x NCCL_PROTO with the least time by its own
  // tuning tables; see nccl_tables_release for releases outside 2.19-2.30.7). Empty: the
  // model's, 2.30.7. Whichever release picks, the pick is priced by 2.30.7's tables (the latest
  // NCCL has measured) plus the model's own terms: releases differ in what they choose near a
  // crossover, and the model holds one price for what a kernel costs. On Blackwell every
  // release picks by 2.30.7's tables.
  std::optional<NcclRelease> release;
};

// The fabric of a GPU topology: its nodes, ranks per node, intra bandwidth (as NVLink), inter
// bandwidth and NICs, and its GpuFeatures. A node with more NICs than GPUs shows NCCL one
// device per GPU carrying its share of the NICs: aws-ofi-nccl's RDMA protocol (p5 and later)
// groups the NICs nearest each GPU into one multi-rail device, as NCCL's own IB transport
// merges the ports of one card (NCCL_IB_MERGE_NICS). REQUIRES: topology.rank_kind == kGpu (throws
// InputError otherwise).
NcclFabric nccl_fabric(const Topology& topology);

// One of NCCL's graphs, as its topology search would find it: the channel count and the
// bandwidth of one channel inside and across nodes (bytes per second).
struct NcclGraph {
  int channels = 0;          // 0: the pattern is not available on this fabric
  double intra_Bps = 0;
  double inter_Bps = 0;
};
// The ring graph (used by Ring and Tree) or the NVLS graph (NVLS, NVLSTree; empty without
// NVLS), from the reduced search described in docs/models.md.
NcclGraph nccl_ring_graph(const NcclFabric& fabric);
NcclGraph nccl_nvls_graph(const NcclFabric& fabric);

// NCCL's prediction for one (op, algorithm, protocol).
struct NcclCost {
  Op op = Op::kAllreduce;
  NcclAlgorithm algorithm = NcclAlgorithm::kRing;
  NcclProtocol protocol = NcclProtocol::kSimple;
  std::int64_t ranks = 1;
  double bytes = 0;
  int channels = 0;            // channels the call runs on (NCCL's run-time channel tuning)
  double latency_s = 0;        // NCCL's latency term (with the plateau factor where it applies)
  double bandwidth_Bps = 0;    // NCCL's algorithm bandwidth (tree correction included)
  double bandwidth_s = 0;      // bytes / bandwidth_Bps
  double nccl_estimate_s = 0;  // latency_s + bandwidth_s: NCCL's own time
  double pick_s = 0;           // NCCL's own time by the tables of the release that picks
                               // (NcclFabric::release): what orders the candidates; equal to
                               // nccl_estimate_s for 2.30.7 and wherever the tables agree
  double fill_s = 0;           // pipeline fill of the NVLS kernels (all-reduce; 0 elsewhere)
  double slice_sync_s = 0;     // a one-node ring kernel's per-slice syncs beyond the one per
                               // step NCCL's latency counts (docs/models.md); 0 elsewhere
  double peer_write_s = 0;     // LL and LL128 lines written into the peer inside one Ampere
                               // node, beyond NCCL's bandwidth term (docs/models.md); 0 elsewhere
  double launch_s = 0;         // a thread's later kernel launches: (gpus_per_thread - 1) x
                               // kNcclGroupLaunchPerGpu_s; 0 with one GPU per thread
  double net_hop_s = 0;        // the network hops at their own time (NcclFabric::net_hop_s)
                               // less what NCCL's latency charges them; negative where the
                               // plugin reports more than a hop takes; 0 without net_hop_s
  double total_s = 0;          // the predicted time: nccl_estimate_s + fill_s + slice_sync_s +
                               // peer_write_s + launch_s + net_hop_s
  std::optional<double> busbw_Bps;  // nccl-tests' busbw of total_s; empty when m = 0 or N = 1
};

// Whether NCCL chooses an algorithm for `op`: all-reduce, reduce-scatter, all-gather,
// broadcast, reduce. (All-to-all is point-to-point sends; a barrier is an all-reduce of one
// element in the frameworks that need one.)
bool nccl_chooses(Op op);

// Whether NCCL's choice is the default pricing of `op` on `topology`: its ranks are GPUs and
// NCCL chooses an algorithm for `op`. Elsewhere the MPI catalogue (collective.h) prices it.
bool nccl_is_default(Op op, const Topology& topology);

// Every (algorithm, protocol) NCCL would consider for this call on `fabric`, with its cost,
// cheapest first by the picking release's estimate (pick_s; ties keep NCCL's order: algorithm,
// then protocol, the order its loop visits them, where the first of equal times wins). Empty
// for N = 1 (NCCL returns before tuning).
// REQUIRES (throws InputError naming the value): nccl_chooses(op); bytes finite and >= 0;
// nodes, gpus_per_node, nics_per_node >= 1; bandwidths finite and > 0.
std::vector<NcclCost> nccl_costs(Op op, double bytes, const NcclFabric& fabric);

// NCCL's pick: the first of nccl_costs. N = 1 costs zero (Ring, Simple, no channels).
NcclCost nccl_choice(Op op, double bytes, const NcclFabric& fabric);

}  // namespace scalewall

#endif  // SCALEWALL_NCCL_H_
