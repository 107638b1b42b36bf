// Implementation of scalewall/model/nccl.h. Inside this file bandwidths are in NCCL's unit,
// GB/s (1e9 B/s), and latencies in microseconds, as NCCL's tables hold them; the public
// functions take and return SI units. Every constant names its place in NCCL 2.30.7
// (github.com/NVIDIA/nccl, makefiles/version.mk NCCL_MAJOR 2, NCCL_MINOR 30, NCCL_PATCH 7).
#include "scalewall/model/nccl.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

constexpr std::size_t kAlgos = 6;
constexpr std::size_t kProtos = 3;
constexpr std::size_t kLinkTypes = 3;  // NVLINK, PCI, NET (NCCL_HW_*)
enum Hw : std::size_t { kHwNvlink = 0, kHwPci = 1, kHwNet = 2 };

using AlgoProto = std::array<std::array<double, kProtos>, kAlgos>;

// tuning.cc, ncclTunerConstantsDefaults.baseLatencies (us): Tree, Ring, CollNetDirect,
// CollNetChain, NVLS, NVLSTree x LL, LL128, Simple.
constexpr AlgoProto kBaseLatency_us = {{{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0},
                                        {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}};
// tuning.cc, ncclTunerConstantsDefaults.hwLatencies (us), per link type.
constexpr std::array<AlgoProto, kLinkTypes> kHwLatency_us = {{
    {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}}},
    {{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}}},
    {{{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}}},
}};

// Rows by compute capability (Volta, Ampere, Hopper, Blackwell: NCCL_*_COMPCAP_IDX), columns
// by node count (1, 2, more: index2 in ncclTopoTuneModel). tuning.cc,
// ncclTunerConstantsDefaults.
using ArchTable = std::array<std::array<double, 3>, 4>;
// llMaxBws. Single node: by GPU; several nodes: by CPU (row 0 Intel, row 1 AMD).
constexpr ArchTable kLlMaxBw = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0},
                                 {282.0, 90.0, 70.0}}};
constexpr ArchTable kPerChMaxRingLl128Bw = {
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}}};
constexpr ArchTable kPerChMaxTreeLl128Bw = {
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
constexpr ArchTable kPerChMaxTreeBw = {
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
constexpr ArchTable kPerChMaxNvlsTreeBw = {
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}};
// tuning.cc, nvlsEfficiency.
constexpr std::array<double, 4> kNvlsEfficiency = {0.0, 0.0, 0.85, 0.74};
// Before 2.28.3, NVLS and NVLSTree bus bandwidth became algorithm bandwidth at 5/6.
constexpr double kNvlsOldAlgorithmRatio = 5.0 / 6.0;

// The tables that differ between the releases whose pick the model follows (2.19 to 2.30.7,
// Volta to Hopper; every other table is the same in all of them). Read from the tags of
// github.com/NVIDIA/nccl, src/graph/tuning.cc:
// - before 2.21: llMaxBws' Hopper row was Ampere's (87.7, 22.5, 19.0), and NVLS and NVLSTree
//   paid 23 us per NVLink hop, not 25;
// - before 2.23: a Tree Simple step cost 28 us at every link type (hwLat) and nothing as its
//   base (baseLat), where 2.23 made it 4.0 (NVLink, PCI) or 14 (network) and a base of 8.4;
// - before 2.28.3: NVLS and NVLSTree took the graph's bandwidth as it is, min(bwIntra,
//   bwInter) per channel (NVLSTree: half of bwInter from three nodes), with no NVLS efficiency,
//   no two-operation pipelining and no per-channel NVLSTree cap, and converted it to algorithm
//   bandwidth at 5/6 (not N / nsteps);
// - before 2.28.9: NVLSTree paid 14 us per network hop, not 20.9.
// Blackwell's rows changed at most releases from 2.25 on; the model keeps 2.30.7's for every
// release (NcclFabric::release).
struct TuningTables {
  AlgoProto base_us;
  std::array<AlgoProto, kLinkTypes> hw_us;
  ArchTable ll_max;
  bool nvls_efficiency = true;  // 2.28.3's NVLS bandwidth (nvlsEfficiency, x2, the cap)
};

constexpr TuningTables kLatestTables{kBaseLatency_us, kHwLatency_us, kLlMaxBw, true};

// The release's tables (2.19.0 <= release <= 2.30.7).
TuningTables tables_for(NcclRelease r) {
  TuningTables t = kLatestTables;
  constexpr auto tree = static_cast<std::size_t>(NcclAlgorithm::kTree);
  constexpr auto nvls = static_cast<std::size_t>(NcclAlgorithm::kNvls);
  constexpr auto nvls_tree = static_cast<std::size_t>(NcclAlgorithm::kNvlsTree);
  constexpr auto simple = static_cast<std::size_t>(NcclProtocol::kSimple);
  constexpr std::size_t hopper = 2;  // NCCL_HOPPER_COMPCAP_IDX (arch_index)
  if (r < NcclRelease{2, 28, 9}) t.hw_us[kHwNet][nvls_tree][simple] = 14;
  if (r < NcclRelease{2, 28, 3}) t.nvls_efficiency = false;
  if (r < NcclRelease{2, 23, 0}) {
    t.base_us[tree][simple] = 0;
    for (AlgoProto& link : t.hw_us) link[tree][simple] = 28;
  }
  if (r < NcclRelease{2, 21, 0}) {
    t.ll_max[hopper] = kLlMaxBw[1];
    t.hw_us[kHwNvlink][nvls][simple] = 23;
    t.hw_us[kHwNvlink][nvls_tree][simple] = 23;
  }
  return t;
}

// tuning.cc, treeCorrectionFactor: powers of two from 64 B, per protocol.
constexpr std::array<std::array<double, 24>, kProtos> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0,
     1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9,
     1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9,
     .9, .9},
}};
// ncclTopoGetAlgoTime applies the tree correction for logSize in [0, 23).
constexpr int kTreeCorrectionSizes = 23;

// Protocol factors of ncclTopoTuneModel: LL sends 8-byte lines of 4 data bytes and 4 flag bytes
// (half the bandwidth); LL128 sends 120 data bytes per 128-byte line; trees lose a further
// share (0.92), tree LL 1/3.8, tree LL128 inside one node 7/9.
constexpr double kRingLlFactor = 0.5;
constexpr double kLl128Factor = 0.92;  // "0.92 /*120.0/128.0*/" on the ring
constexpr double kTreeFactor = 0.92;
constexpr double kTreeLlFactor = 1.0 / 3.8;
constexpr double kTreeLl128OneNode = 7.0 / 9.0;
constexpr double kTreeLl128Nodes = 120.0 / 128.0;
constexpr double kCollNetHopperFactor = 0.85;  // CollNetDirect on compute capability >= 90
constexpr double kCollNetAritySerialization_us = 0.4;  // "0.4 us arity serialization latency"
// ncclTopoGetAlgoTime: "Plateau effect of ring" on inter-node Ring Simple all-reduces whose
// per-channel per-rank share reaches 64 B: latency x 1.4 (compute capability >= 80), else 1.9.
constexpr double kRingPlateau = 1.4;
constexpr double kRingPlateauVolta = 1.9;
constexpr double kRingPlateauMinBytes = 64;
// getNetOverhead (tuning.cc): 1 us per network post on Intel (and unknown) CPUs, x3 for
// Simple. The model assumes an Intel host (AMD hosts post at 2 us).
constexpr double kNetOverhead_us = 1.0;
constexpr double kNetOverheadSimple = 3.0;

// search.cc: the speeds (GB/s per channel) the topology search tries, intra-node alone and
// with a network, per architecture.
constexpr double kSpeedsIntra[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0,
                                   9.0,  7.0,  6.0,  5.0,  4.0,  3.0};
constexpr double kSpeedsInter[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                   7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kSpeedsIntraSm90[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
                                       15.0, 12.0, 11.0, 6.0,  3.0};
constexpr double kSpeedsInterSm90[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                       15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kSpeedsIntraSm100[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0,
                                        40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr double kSpeedsInterSm100[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0,
                                        30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                        6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
// The NVLS kernels' chunking (NCCL 2.30.7). transport/nvls.cc: NCCL_NVLS_CHUNKSIZE's default
// (128 KiB) and the NVLS channels (CTAs): NVLS_NCHANNELS_SM90 16, NVLS_NCHANNELS_SM100 32 across
// nodes, NVLS_NCHANNELS_SM100_NVL 24 on one node; NVLSTree's maximum chunk is 64 KiB from four
// nodes, else the NVLS chunk (NCCL_NVLSTREE_MAX_CHUNKSIZE's fallback).
constexpr double kNvlsChunk = 128.0 * 1024;
constexpr int kNvlsCtasSm90 = 16;
constexpr int kNvlsCtasSm100 = 32;
constexpr int kNvlsCtasSm100OneNode = 24;
constexpr std::int64_t kNvlsTreeSmallChunkNodes = 4;
// enqueue.cc calcCollChunking: NVLS across nodes whose all-reduce bandwidth is under 150 GB/s
// takes 32 KiB chunks.
constexpr double kNvlsSlowBw = 150.0;
constexpr double kNvlsSlowChunk = 32768;
// calcCollChunking's ladders: in turn, the chunk drops to `chunk` while it is larger and the
// buffer is under `rounds` x (channels x heads) x the chunk so far.
struct ChunkStep {
  double rounds;
  double chunk;
};
constexpr ChunkStep kNvlsChunkSteps[] = {{64, 65536}, {8, 32768}, {2, 16384}};
constexpr ChunkStep kNvlsTreeChunkSteps[] = {{32, 262144}, {16, 131072}, {4, 65536}, {1, 32768}};
// device/all_reduce.h: a chunk of an NVLS or NVLSTree all-reduce passes three warp groups in
// turn (scatter into the switch buffers; reduce and multicast through the switch, NVLSTree's
// network hop between the two; gather out of them).
constexpr double kNvlsStages = 3;

// Ring kernels' chunking (NCCL 2.30.7). init.cc's default buffer per protocol and connection
// (DEFAULT_LL_BUFFSIZE: 8 lines x 512 threads x NCCL_STEPS x 16 B; DEFAULT_LL128_BUFFSIZE: 120
// elements x 640 threads x NCCL_STEPS x 8 B; DEFAULT_BUFFSIZE 4 MiB) holds NCCL_STEPS = 8
// slots (device.h). enqueue.cc calcCollChunking: a chunk is one slot, half of it data for LL,
// 120 of 128 bytes for LL128; a ring Simple all-reduce, reduce-scatter or all-gather chunk is
// NCCL_STEPS / 2 slots moved in two slices (collectives.h *_CHUNKSTEPS, *_SLICESTEPS). A
// channel's share passes in loops of ranks x chunk (device/all_reduce.h runRing; broadcast and
// reduce: one chunk). connect.cc doubles the search's channels when it builds the rings
// (comm->nChannels, at most MAXCHANNELS = 64).
constexpr double kNcclSlots = 8;
constexpr double kLlBufferBytes = 8.0 * 512 * kNcclSlots * 16;
constexpr double kLl128BufferBytes = 120.0 * 640 * kNcclSlots * 8;
constexpr double kSimpleBufferBytes = 4.0 * 1024 * 1024;
constexpr double kSimpleRingChunkSlots = kNcclSlots / 2;
constexpr double kSimpleRingSlices = 2;
constexpr int kMaxRunChannels = 64;

// ncclTopoCompute keeps lowering the speed while the next one is above 0.49 of the best found.
constexpr double kSpeedDropLimit = 0.49;
// init.cc: ringGraph->maxChannels = MAXCHANNELS / 2, MAXCHANNELS = 64 (device.h).
constexpr int kMaxRingChannels = 32;
// device.h NCCL_MAX_NVLS_ARITY; search.cc caps NVLS channels at min(arity, GPUs).
constexpr int kMaxNvlsArity = 32;
// ncclTopoDupChannels: channels are doubled when bwIntra >= 25, except on compute capability
// > 80 with bwIntra < 50 and more than 4 channels.
constexpr double kDupMinBw = 25.0;
constexpr double kDupMinBwHopper = 50.0;
constexpr int kDupMaxChannelsKept = 4;

// topo.h: NVLink bandwidth per link as NCCL counts it (SM70/SM80 20, SM90 20.6, SM100 40.1
// GB/s), against the raw per-direction rate of one link of that generation (NVLink 2, 3, 4:
// 25 GB/s; NVLink 5: 50 GB/s) that datasheet totals add up. xGMI on CDNA3 (MI300X) as RCCL
// counts it (ROCm/rccl src/graph/topo.h, GFX94X_XGMI_WIDTH: 48 GB/s per link) against the
// link's 64 GB/s each way.
double nvlink_counted_fraction(GpuGeneration g) {
  switch (g) {
    case GpuGeneration::kVolta: return 20.0 / 25.0;
    case GpuGeneration::kAmpere: return 20.0 / 25.0;
    case GpuGeneration::kHopper: return 20.6 / 25.0;
    case GpuGeneration::kBlackwell: return 40.1 / 50.0;
    case GpuGeneration::kCdna3: return 48.0 / 64.0;
  }
  SCALEWALL_CHECK(false);
  return {};
}

// The GPU-NIC PCIe path as topo.cc counts it (width x GT/s / 80 GB/s: x16 Gen3 12, Gen4 24,
// Gen5 48, Gen6 96), for the PCIe generation each GPU generation's platforms carry.
double pcie_GBps(GpuGeneration g) {
  switch (g) {
    case GpuGeneration::kVolta: return 12.0;
    case GpuGeneration::kAmpere: return 24.0;
    case GpuGeneration::kHopper: return 48.0;
    case GpuGeneration::kBlackwell: return 96.0;
    case GpuGeneration::kCdna3: return 48.0;
  }
  SCALEWALL_CHECK(false);
  return {};
}

// NCCL_*_COMPCAP_IDX; CDNA3 takes Hopper's row.
std::size_t arch_index(GpuGeneration g) {
  switch (g) {
    case GpuGeneration::kVolta: return 0;
    case GpuGeneration::kAmpere: return 1;
    case GpuGeneration::kHopper: return 2;
    case GpuGeneration::kBlackwell: return 3;
    case GpuGeneration::kCdna3: return 2;
  }
  SCALEWALL_CHECK(false);
  return {};
}

bool hopper_or_later(GpuGeneration g) { return arch_index(g) >= 2; }

std::span<const double> speeds(GpuGeneration g, bool network) {
  const std::size_t a = arch_index(g);
  if (a >= 3) return network ? std::span<const double>(kSpeedsInterSm100) : kSpeedsIntraSm100;
  if (a == 2) return network ? std::span<const double>(kSpeedsInterSm90) : kSpeedsIntraSm90;
  return network ? std::span<const double>(kSpeedsInter) : kSpeedsIntra;
}

// NCCL's figures of one GPU: its NVLink total, and (with a network) the best GPU-NIC rate.
struct GpuBandwidths {
  double nvlink = 0;  // GB/s
  double nic = 0;     // one NIC, GB/s
  double path = 0;    // the fastest single path a channel may take (maxBw), GB/s
};

GpuBandwidths gpu_bandwidths(const NcclFabric& f) {
  GpuBandwidths b;
  b.nvlink = f.nvlink_Bps / 1e9 * nvlink_counted_fraction(f.generation);
  b.nic = f.nic_Bps / 1e9;
  b.path = f.nodes > 1 ? std::min({b.nvlink, b.nic, pcie_GBps(f.generation)}) : b.nvlink;
  return b;
}

// How many ring channels of `speed` the fabric holds: each crosses every GPU's NVLink once
// each way, and with a network enters and leaves the node through one NIC.
int ring_capacity(const NcclFabric& f, const GpuBandwidths& b, double speed) {
  double cap = std::floor(b.nvlink / speed);
  if (f.nodes > 1) {
    cap = std::min(cap, static_cast<double>(f.nics_per_node) * std::floor(b.nic / speed));
  }
  return static_cast<int>(std::min(cap, static_cast<double>(kMaxRingChannels)));
}

}  // namespace

std::string_view nccl_algorithm_name(NcclAlgorithm algorithm) {
  // init.cc, ncclAlgoStr.
  switch (algorithm) {
    case NcclAlgorithm::kTree: return "Tree";
    case NcclAlgorithm::kRing: return "Ring";
    case NcclAlgorithm::kCollNetDirect: return "CollNetDirect";
    case NcclAlgorithm::kCollNetChain: return "CollNetChain";
    case NcclAlgorithm::kNvls: return "NVLS";
    case NcclAlgorithm::kNvlsTree: return "NVLSTree";
  }
  SCALEWALL_CHECK(false);
  return {};
}

std::string_view nccl_protocol_name(NcclProtocol protocol) {
  // init.cc, ncclProtoStr.
  switch (protocol) {
    case NcclProtocol::kLL: return "LL";
    case NcclProtocol::kLL128: return "LL128";
    case NcclProtocol::kSimple: return "Simple";
  }
  SCALEWALL_CHECK(false);
  return {};
}

std::string_view gpu_generation_name(GpuGeneration generation) {
  switch (generation) {
    case GpuGeneration::kVolta: return "volta";
    case GpuGeneration::kAmpere: return "ampere";
    case GpuGeneration::kHopper: return "hopper";
    case GpuGeneration::kBlackwell: return "blackwell";
    case GpuGeneration::kCdna3: return "cdna3";
  }
  SCALEWALL_CHECK(false);
  return {};
}

GpuGeneration parse_gpu_generation(std::string_view text) {
  for (GpuGeneration g : {GpuGeneration::kVolta, GpuGeneration::kAmpere, GpuGeneration::kHopper,
                          GpuGeneration::kBlackwell, GpuGeneration::kCdna3}) {
    if (gpu_generation_name(g) == text) return g;
  }
  throw InputError(fmt::format(
      "unknown GPU generation '{}' (expected one of: volta, ampere, hopper, blackwell, cdna3)",
      text));
}

NcclFabric nccl_fabric(const Topology& topology) {
  if (topology.rank_kind != RankKind::kGpu) {
    throw InputError(fmt::format(
        "fabric '{}' does not say its ranks are GPUs (ranks = \"gpu\"): NCCL's choice needs a "
        "GPU preset such as dgx-h100, or a fabric file with that key",
        topology.name));
  }
  NcclFabric f;
  f.nodes = topology.nodes;
  f.gpus_per_node = topology.ranks_per_node;
  f.generation = topology.gpu.generation;
  f.nvlink_Bps = topology.intra.bandwidth_Bps;
  f.nic_Bps = topology.inter.bandwidth_Bps / topology.oversubscription;
  f.nics_per_node = topology.nics_per_node;
  if (f.nics_per_node > f.gpus_per_node) {  // one multi-rail device per GPU
    f.nic_Bps *= static_cast<double>(f.nics_per_node) / static_cast<double>(f.gpus_per_node);
    f.nics_per_node = f.gpus_per_node;
  }
  f.nvls = topology.gpu.nvls;
  f.collnet = topology.gpu.collnet;
  f.net_latency_s = topology.gpu.net_latency_s;
  f.net_hop_s = topology.gpu.net_hop_s;
  f.release = topology.gpu.nccl_release;
  return f;
}

NcclGraph nccl_ring_graph(const NcclFabric& f) {
  const GpuBandwidths b = gpu_bandwidths(f);
  const std::span<const double> s = speeds(f.generation, f.nodes > 1);
  std::size_t i = 0;
  while (i + 1 < s.size() && s[i] > b.path) ++i;  // the first speed a path can carry
  int best_channels = 0;
  double best_speed = 0;
  for (std::size_t j = i; j < s.size(); ++j) {
    if (best_channels > 0 && s[j] / best_speed <= kSpeedDropLimit) break;
    const int c = ring_capacity(f, b, s[j]);
    if (c > 0 && c * s[j] > best_channels * best_speed) {
      best_channels = c;
      best_speed = s[j];
    }
    if (best_channels == kMaxRingChannels || best_channels * best_speed >= b.nvlink) break;
  }
  NcclGraph g{best_channels, best_speed * 1e9, best_speed * 1e9};
  if (best_channels == 0) return g;
  // ncclTopoDupChannels.
  const bool keep = best_speed < kDupMinBw ||
                    (arch_index(f.generation) >= 2 && best_speed < kDupMinBwHopper &&
                     best_channels > kDupMaxChannelsKept);
  if (!keep) {
    const int dup = std::min(2 * best_channels, kMaxRingChannels);
    const int split = (dup + best_channels - 1) / best_channels;
    g.channels = dup;
    g.intra_Bps /= split;
    g.inter_Bps /= split;
  }
  return g;
}

NcclGraph nccl_nvls_graph(const NcclFabric& f) {
  // search.cc: NVLS needs NVSwitches with SHARP (compute capability >= 90); its channels are
  // the GPUs pulling from the switch, min(NCCL_MAX_NVLS_ARITY, GPUs), all of them on one node.
  if (!f.nvls || !hopper_or_later(f.generation) || f.gpus_per_node < 2) return {};
  const GpuBandwidths b = gpu_bandwidths(f);
  const int channels =
      static_cast<int>(std::min<std::int64_t>(kMaxNvlsArity, f.gpus_per_node));
  const std::span<const double> s = speeds(f.generation, f.nodes > 1);
  std::size_t i = 0;
  while (i + 1 < s.size() && (s[i] > b.path || s[i] * channels > b.nvlink)) ++i;
  const double intra = s[i];
  // Pass 2 raises bwInter (channels fixed) while it is below twice bwIntra; with a network the
  // path to the NIC bounds it.
  double inter = intra;
  while (i > 0 && inter < 2 * intra && (f.nodes == 1 || s[i - 1] <= b.path)) inter = s[--i];
  return {channels, intra * 1e9, inter * 1e9};
}

namespace {

struct Tuned {
  double latency_us = 0;
  double bandwidth_GBps = 0;  // 0: not available
};

int log2i(double n) {
  if (n < 1) return -1;
  return static_cast<int>(std::floor(std::log2(n)));
}

// The tree graph: the ring's channels; on two nodes pass 2 raises bwIntra while it stays
// below twice bwInter and the channels fit the NVLink (trees need not return to the NIC, so
// NCCL lets them use g/(g-1) of it).
NcclGraph tree_graph(const NcclFabric& f, const NcclGraph& ring) {
  NcclGraph g = ring;
  if (f.nodes != 2 || ring.channels == 0) return g;
  const GpuBandwidths b = gpu_bandwidths(f);
  const double share =
      f.gpus_per_node > 1 ? static_cast<double>(f.gpus_per_node) / static_cast<double>(f.gpus_per_node - 1) : 1.0;
  const std::span<const double> s = speeds(f.generation, true);
  double intra = ring.intra_Bps / 1e9;
  const double inter = ring.inter_Bps / 1e9;
  for (std::size_t j = s.size(); j-- > 0;) {
    if (s[j] <= intra) continue;
    if (!(intra < 2 * inter) || ring.channels * s[j] > b.nvlink * share) break;
    intra = s[j];
  }
  g.intra_Bps = intra * 1e9;
  return g;
}

struct Context {
  Op op;
  const NcclFabric& f;
  std::int64_t n;
  double ppn;
  std::size_t arch;
  std::size_t nodes_index;
  NcclGraph ring;
  NcclGraph tree;
  NcclGraph nvls;
  const TuningTables* tables = &kLatestTables;  // the tables pricing this context
};

int nsteps(const Context& c) {
  if (c.op == Op::kAllreduce) return static_cast<int>(2 * (c.n - 1));
  if (c.op == Op::kReduceScatter || c.op == Op::kAllgather) return static_cast<int>(c.n - 1);
  return static_cast<int>(c.n);
}

bool considered(const Context& c, NcclAlgorithm a, NcclProtocol p) {
  const bool nvls_family = a == NcclAlgorithm::kNvls || a == NcclAlgorithm::kNvlsTree;
  const bool collnet = a == NcclAlgorithm::kCollNetDirect || a == NcclAlgorithm::kCollNetChain;
  if ((c.op == Op::kBroadcast || c.op == Op::kReduce) && a != NcclAlgorithm::kRing) return false;
  if ((c.op == Op::kReduceScatter || c.op == Op::kAllgather) &&
      (a == NcclAlgorithm::kTree || a == NcclAlgorithm::kCollNetChain ||
       a == NcclAlgorithm::kNvlsTree))
    return false;
  if ((nvls_family || collnet) && p != NcclProtocol::kSimple) return false;
  // Enable rules of ncclTopoTuneModel: NVLSTree needs several nodes; CollNet, and NVLS across
  // nodes, need CollNet; reduce-scatter and all-gather over CollNet or NVLS across nodes need
  // a CollNet plugin with those calls, which the model does not assume.
  if (a == NcclAlgorithm::kNvlsTree && c.f.nodes == 1) return false;
  if (collnet && (!c.f.collnet || c.f.nodes == 1)) return false;
  if (a == NcclAlgorithm::kNvls && c.f.nodes > 1 && !c.f.collnet) return false;
  if ((a == NcclAlgorithm::kNvls || collnet) && c.f.nodes > 1 &&
      (c.op == Op::kReduceScatter || c.op == Op::kAllgather))
    return false;
  if (nvls_family && c.nvls.channels < 2) return false;
  return true;
}

const NcclGraph& graph_of(const Context& c, NcclAlgorithm a) {
  if (a == NcclAlgorithm::kNvls || a == NcclAlgorithm::kNvlsTree) return c.nvls;
  if (a == NcclAlgorithm::kTree) return c.tree;
  return c.ring;
}

// The bus bandwidth of (a, p) before the conversion to algorithm bandwidth (GB/s).
double bus_bandwidth(const Context& c, NcclAlgorithm a, NcclProtocol p) {
  const NcclGraph& g = graph_of(c, a);
  if (g.channels == 0) return 0;
  const double ch = g.channels;
  const bool collnet = a == NcclAlgorithm::kCollNetDirect || a == NcclAlgorithm::kCollNetChain;
  double bw = (c.f.nodes <= 2 || collnet ? g.intra_Bps : g.inter_Bps) / 1e9;
  const bool nvls_family = a == NcclAlgorithm::kNvls || a == NcclAlgorithm::kNvlsTree;
  if (nvls_family && !c.tables->nvls_efficiency) {
    bw = a == NcclAlgorithm::kNvls
             ? std::min(g.intra_Bps, g.inter_Bps) / 1e9
             : std::min(g.intra_Bps, c.f.nodes <= 2 ? g.inter_Bps : g.inter_Bps / 2) / 1e9;
  } else if (nvls_family) {
    double intra = g.intra_Bps / 1e9 * kNvlsEfficiency[c.arch] * (ch - 1) / ch;
    intra *= c.op == Op::kAllreduce ? 2.0 : (c.ppn - 1) / c.ppn;  // all-reduce pipelines two
    const double inter =
        g.inter_Bps / 1e9 * (c.f.nodes <= 2 && a == NcclAlgorithm::kNvlsTree ? 2.0 : 1.0);
    const double cap = a == NcclAlgorithm::kNvlsTree ? kPerChMaxNvlsTreeBw[c.arch][c.nodes_index]
                                                     : std::numeric_limits<double>::max();
    bw = std::min({intra, inter, cap});
  }
  double bus = ch * bw;
  const std::size_t ll_row = c.f.nodes == 1 ? c.arch : 0;  // several nodes: an Intel host
  const double ll_max = c.tables->ll_max[ll_row][c.nodes_index];
  if (a == NcclAlgorithm::kRing && p == NcclProtocol::kLL) bus = std::min(ll_max, bus * kRingLlFactor);
  if (a == NcclAlgorithm::kRing && p == NcclProtocol::kLL128) {
    bus = std::min(bus * kLl128Factor, ch * kPerChMaxRingLl128Bw[c.arch][c.nodes_index]);
  }
  if (a == NcclAlgorithm::kTree && c.op == Op::kAllreduce) {
    bus = std::min(bus * kTreeFactor, ch * kPerChMaxTreeBw[c.arch][c.nodes_index]);
  }
  if (a == NcclAlgorithm::kTree && p == NcclProtocol::kLL) bus = std::min(bus * kTreeLlFactor, ll_max);
  if (a == NcclAlgorithm::kTree && p == NcclProtocol::kLL128) {
    bus = std::min(bus * (c.f.nodes == 1 ? kTreeLl128OneNode : kTreeLl128Nodes),
                   ch * kPerChMaxTreeLl128Bw[c.arch][c.nodes_index]);
  }
  if (a == NcclAlgorithm::kCollNetDirect) {
    double factor = c.ppn / ch;  // GPUs per NIC head
    factor -= (factor - 1) / 2;
    bus /= factor;
    if (hopper_or_later(c.f.generation)) bus *= kCollNetHopperFactor;
  }
  return bus;
}

// The algorithm bandwidth NCCL stores (comm->bandwidths), GB/s.
double algorithm_bandwidth(const Context& c, NcclAlgorithm a, NcclProtocol p) {
  double bw = bus_bandwidth(c, a, p);
  const bool gather_like = c.op == Op::kAllgather || c.op == Op::kReduceScatter;
  if (!(a != NcclAlgorithm::kRing && gather_like)) {
    const bool nvls_family = a == NcclAlgorithm::kNvls || a == NcclAlgorithm::kNvlsTree;
    if (nvls_family && !c.tables->nvls_efficiency) {
      bw *= kNvlsOldAlgorithmRatio;
    } else {
      const bool per_step = a == NcclAlgorithm::kRing || nvls_family;
      bw *= per_step ? static_cast<double>(c.n) / nsteps(c) : 0.5;
    }
  }
  return bw;
}

double ring_latency_us(const Context& c, NcclProtocol p, double intra, double inter) {
  const std::size_t ring = static_cast<std::size_t>(NcclAlgorithm::kRing);
  const std::size_t hw = c.f.nodes == 1 ? kHwNvlink : kHwNet;
  if (c.op == Op::kReduce || c.op == Op::kBroadcast) {
    return c.tables->hw_us[hw][ring][static_cast<std::size_t>(p)];  // same channels: one hop
  }
  double net_overhead = 0;
  if (c.f.nodes > 1) {
    net_overhead = kNetOverhead_us * (p == NcclProtocol::kSimple ? kNetOverheadSimple : 1.0);
  }
  intra = std::max(intra, net_overhead);
  const std::int64_t inter_steps =
      c.f.nodes == 1 ? 0 : (c.op == Op::kAllreduce ? 2 * (c.f.nodes - 1) : c.f.nodes - 1);
  return static_cast<double>(nsteps(c) - inter_steps) * intra +
         static_cast<double>(inter_steps) * inter;
}

// comm->latencies[op][a][p], us; with `hop_s`, each network hop at that time (once for every
// protocol) in place of the plugin's reported latency.
double latency_us(const Context& c, NcclAlgorithm a, NcclProtocol p,
                  std::optional<double> hop_s = std::nullopt) {
  const auto ai = static_cast<std::size_t>(a);
  const auto pi = static_cast<std::size_t>(p);
  const std::size_t tree = static_cast<std::size_t>(NcclAlgorithm::kTree);
  const TuningTables& t = *c.tables;
  double lat = t.base_us[ai][pi];
  const double intra = t.hw_us[kHwNvlink][ai][pi];
  // With one GPU per node the latencies are fully exposed: NCCL takes the tree's.
  // tuning.cc: interLat += graphs[a]->latencyInter (the network plugin's reported latency),
  // and again for Simple ("the flush extra latency").
  const double plugin_us =
      hop_s ? *hop_s * 1e6 : c.f.net_latency_s * 1e6 * (p == NcclProtocol::kSimple ? 2.0 : 1.0);
  const double inter = (c.f.gpus_per_node == 1 ? t.hw_us[kHwNet][tree][pi]
                                               : t.hw_us[kHwNet][ai][pi]) +
                       plugin_us;
  const double local = c.ppn - 1;
  const double levels = log2i(static_cast<double>(c.f.nodes));
  switch (a) {
    case NcclAlgorithm::kRing: return lat + ring_latency_us(c, p, intra, inter);
    case NcclAlgorithm::kTree:
      return c.op == Op::kAllreduce ? lat + 2 * (local * intra + levels * inter) : lat;
    case NcclAlgorithm::kCollNetDirect:
      return lat + 2 * (std::min(1.0, local) * intra + local * kCollNetAritySerialization_us) +
             inter;
    case NcclAlgorithm::kCollNetChain: return lat + 2 * local * intra + inter;
    case NcclAlgorithm::kNvls: return intra + (c.f.nodes > 1 ? inter : 0.0);
    case NcclAlgorithm::kNvlsTree: return lat + intra + 2 * levels * inter;
  }
  SCALEWALL_CHECK(false);
  return {};
}

// enqueue.cc topoGetAlgoInfo's channel tuning: fewer channels while the buffer is under
// channels x threads x threshold (comm.h NCCL_*_THREAD_THRESHOLD: LL 8 (x ranks on the ring),
// LL128 8, Simple 64; device.h threads: LL 512, LL128 640, Simple 512, or 256 when the ring's
// bandwidth is within one PCIe Gen3 link, PCI_BW = 12 GB/s).
int lowered_channels(const Context& c, NcclAlgorithm a, NcclProtocol p, int start, double bytes) {
  double threads = 512;
  double threshold = 64;
  if (p == NcclProtocol::kLL) {
    threshold = a == NcclAlgorithm::kRing ? 8.0 * static_cast<double>(c.n) : 8.0;
  } else if (p == NcclProtocol::kLL128) {
    threads = 640;
    threshold = 8;
  } else if (a == NcclAlgorithm::kRing && c.ring.intra_Bps / 1e9 * c.ring.channels <= 12.0) {
    threads = 256;
  }
  int nc = start;
  while (nc >= 2 && bytes < nc * threads * threshold) --nc;
  return nc;
}

// The channel count NcclCost reports: the search's, lowered; NVLS and CollNet run their own.
int run_channels(const Context& c, NcclAlgorithm a, NcclProtocol p, double bytes) {
  if (a != NcclAlgorithm::kRing && a != NcclAlgorithm::kTree) return graph_of(c, a).channels;
  return lowered_channels(c, a, p, c.ring.channels, bytes);
}

// The round of an NVLS or NVLSTree call: its channels (CTAs) x heads x chunk, bytes.
// transport/nvls.cc ncclNvlsTuning (with ncclNvlsTreeSm100Tuning for Blackwell across nodes,
// the GPU-NIC path taken as a PCIe switch, as on DGX and HGX boards) and enqueue.cc
// calcCollChunking. `bw_GBps` is the call's all-reduce bandwidth (the NVLS slow-network rule).
double nvls_round_bytes(const Context& c, NcclAlgorithm a, double bytes, double bw_GBps) {
  const bool blackwell = arch_index(c.f.generation) >= 3;
  const bool nodes = c.f.nodes > 1;
  double ctas = blackwell ? (nodes ? kNvlsCtasSm100 : kNvlsCtasSm100OneNode) : kNvlsCtasSm90;
  double chunk = kNvlsChunk;
  double tree_max = 0;
  if (blackwell && nodes) {
    const double nic = gpu_bandwidths(c.f).nic;
    const double ppn = c.ppn;
    if (c.f.nodes == 2 && nic >= 48) {
      ctas = kNvlsCtasSm100;
      tree_max = kNvlsChunk;
      if (ppn <= 4) {
        chunk = tree_max = 2 * kNvlsChunk;
      } else if (ppn >= 16 || (ppn <= 8 && nic < 96)) {
        tree_max = kNvlsChunk / 2;
      }
    } else if (nic >= 96) {
      ctas = ppn <= 8 ? kNvlsCtasSm100OneNode : kNvlsCtasSm100;
      if (ppn <= 8) chunk = tree_max = 2 * kNvlsChunk;
      else tree_max = ppn < 32 ? kNvlsChunk : kNvlsChunk / 2;
    } else if (nic >= 48) {
      ctas = kNvlsCtasSm100OneNode;
      tree_max = kNvlsChunk / 2;
    }
  }
  if (tree_max == 0) tree_max = c.f.nodes >= kNvlsTreeSmallChunkNodes ? kNvlsChunk / 2 : chunk;
  if (a == NcclAlgorithm::kNvls && nodes) {
    ctas = std::min(ctas, static_cast<double>(c.ring.channels));
  }
  const double ops = ctas * c.nvls.channels;  // channels x heads run at once
  std::span<const ChunkStep> steps = kNvlsTreeChunkSteps;
  if (a == NcclAlgorithm::kNvls) {
    if (nodes && bw_GBps < kNvlsSlowBw) chunk = std::min(chunk, kNvlsSlowChunk);
    steps = kNvlsChunkSteps;
  } else {
    chunk = std::min(chunk, tree_max);
  }
  for (const ChunkStep& st : steps) {
    if (bytes < st.rounds * ops * chunk && chunk > st.chunk) chunk = st.chunk;
  }
  return ops * chunk;
}

// The pipeline fill of an NVLS or NVLSTree all-reduce (s): NCCL's time is the pipeline's
// steady state; the first round of chunks (one per channel and head) passes the kernel's
// stages one after another before the last stage has work, and the same at the end. So the
// call pays (stages - 1) rounds at the call's bandwidth, or (stages - 1) times the whole buffer
// when it fills less than one round. Zero elsewhere: the ring and the tree keep every link busy
// from their first step (their step latency is in NCCL's figure).
double pipeline_fill_s(const Context& c, NcclAlgorithm a, double bytes, double bw_GBps) {
  if (c.op != Op::kAllreduce || bw_GBps <= 0) return 0;
  if (a != NcclAlgorithm::kNvls && a != NcclAlgorithm::kNvlsTree) return 0;
  const double round = nvls_round_bytes(c, a, bytes, bw_GBps);
  return (kNvlsStages - 1) * std::min(bytes, round) / (bw_GBps * 1e9);
}

// Peer writes on Ampere NVLink. NCCL moves its Simple buffers across NVLink by P2P read, which
// it enables for compute capability 8.0 pairs alone (paths.cc, "Enable P2P Read for
// Ampere/NVLink only"); LL and LL128 always write their lines into the peer's buffer. On an
// A100 node those writes carry kAmpereNvlinkWriteShare of the bandwidth the ring's graph
// gives NCCL (12 channels x 20 GB/s): a Ring LL128 all-reduce of one process per GPU grows by
// 174 GB/s of bus bandwidth from 4 to 16 MiB (tests/data/nccl/a100_1node_8gpu_np8_thanos.txt),
// which is 174 x 128/120 = 186 GB/s of 128-byte lines, 0.77 of 240 GB/s, where NCCL's table
// prices LL128 at 220.8 GB/s. LL's half-data lines (0.77 x 240 / 2 = 92 GB/s) stay above its
// own ceiling (llMaxBw, 87.7 GB/s on one A100 node), so only LL128 pays.
constexpr double kAmpereNvlinkWriteShare = 0.77;

// What a call pays beyond NCCL's bandwidth term when its protocol's lines, written into the
// peer, need more time than NCCL's bus bandwidth allows (s): inside one Ampere node, for the
// ring and the tree with LL or LL128, bandwidth_s x (NCCL's bus bandwidth / the write-limited
// one - 1) where the write limit is lower; zero elsewhere (Simple reads; across nodes the
// network is the ring's narrowest link, and Hopper and later have no P2P read to compare).
double peer_write_s(const Context& c, NcclAlgorithm a, NcclProtocol p, double bandwidth_s) {
  if (c.f.generation != GpuGeneration::kAmpere || c.f.nodes != 1) return 0;
  if (p == NcclProtocol::kSimple) return 0;
  if (a != NcclAlgorithm::kRing && a != NcclAlgorithm::kTree) return 0;
  const NcclGraph& g = graph_of(c, a);
  const double bus = bus_bandwidth(c, a, p);  // 0 when the graph has no channels
  if (!(bus > 0)) return 0;
  const double data_share = p == NcclProtocol::kLL ? kRingLlFactor : 120.0 / 128.0;
  const double writes = kAmpereNvlinkWriteShare * g.channels * g.intra_Bps / 1e9 * data_share;
  return writes < bus ? bandwidth_s * (bus / writes - 1) : 0.0;
}

// The channels a ring kernel runs on: connect.cc builds twice the search's rings
// (comm->nChannels, at most 64), which topoGetAlgoInfo lowers as for run_channels.
double ring_kernel_channels(const Context& c, NcclProtocol p, double bytes) {
  const int start = std::min(2 * c.ring.channels, kMaxRunChannels);
  return std::max(lowered_channels(c, NcclAlgorithm::kRing, p, start, bytes), 1);
}

// The slice synchronisations of a ring kernel inside one node (s). NCCL's latency counts one
// hardware latency per ring step (steps x hwLat), as if each step passed a channel's whole
// share at once. The kernel passes that share in loops of ranks x chunk bytes (one chunk for
// broadcast and reduce), each step of a loop in `slices` slices, and inside a node every slice
// costs the channel's thread block a wait on its peer's flag and a fence around a copy it drives
// itself over NVLink: time the copy does not hide. The call pays loops x slices x steps x
// hwLat; this is what that adds to NCCL's figure, (loops x slices - 1) x steps x hwLat, where
// steps x hwLat is the ring's hop latency as NCCL counts it on one node (ring_latency_us). Zero
// across nodes (a slice's network time, through the proxy and the NIC, exceeds the thread
// block's sync and hides it), for trees and NVLS, and for an empty buffer.
double slice_sync_s(const Context& c, NcclAlgorithm a, NcclProtocol p, double bytes) {
  if (a != NcclAlgorithm::kRing || c.f.nodes != 1 || !(bytes > 0)) return 0;
  const bool chain = c.op == Op::kBroadcast || c.op == Op::kReduce;
  const bool sliced = p == NcclProtocol::kSimple && !chain;
  double chunk = 0;
  switch (p) {
    case NcclProtocol::kLL: chunk = kLlBufferBytes / kNcclSlots / 2; break;
    case NcclProtocol::kLL128: chunk = kLl128BufferBytes / kNcclSlots * 120.0 / 128.0; break;
    case NcclProtocol::kSimple:
      chunk = kSimpleBufferBytes / kNcclSlots * (sliced ? kSimpleRingChunkSlots : 1.0);
      break;
  }
  const double slices = sliced ? kSimpleRingSlices : 1.0;
  const double loop = chunk * (chain ? 1.0 : static_cast<double>(c.n));
  const double loops = std::max(1.0, std::ceil(bytes / (ring_kernel_channels(c, p, bytes) * loop)));
  const double hop_us = kHwLatency_us[kHwNvlink][static_cast<std::size_t>(NcclAlgorithm::kRing)]
                                     [static_cast<std::size_t>(p)];
  return (loops * slices - 1) * ring_latency_us(c, p, hop_us, 0.0) * 1e-6;
}

// ncclTopoGetAlgoTime's terms for one call: the latency (us; with the ring's plateau factor),
// the same with each network hop at `hop_s` where given, and the bandwidth (GB/s; with the
// tree's correction factor).
struct AlgoTime {
  double latency_us = 0;
  double hop_latency_us = 0;
  double bandwidth_GBps = 0;
};

AlgoTime algo_time(const Context& c, NcclAlgorithm a, NcclProtocol p, double bytes,
                   std::optional<double> hop_s = std::nullopt) {
  AlgoTime t;
  t.bandwidth_GBps = algorithm_bandwidth(c, a, p);
  t.latency_us = latency_us(c, a, p);
  t.hop_latency_us = hop_s ? latency_us(c, a, p, hop_s) : t.latency_us;
  const int log_size = log2i(std::floor(bytes / 64));
  if (a == NcclAlgorithm::kTree && c.op == Op::kAllreduce && log_size >= 0 &&
      log_size < kTreeCorrectionSizes) {
    t.bandwidth_GBps *=
        kTreeCorrection[static_cast<std::size_t>(p)][static_cast<std::size_t>(log_size)];
  }
  if (a == NcclAlgorithm::kRing && p == NcclProtocol::kSimple && c.f.nodes > 1 &&
      c.op == Op::kAllreduce &&
      bytes / (c.ring.channels * static_cast<double>(c.n)) >= kRingPlateauMinBytes) {
    const double plateau = c.arch == 0 ? kRingPlateauVolta : kRingPlateau;
    t.latency_us *= plateau;
    t.hop_latency_us *= plateau;
  }
  return t;
}

// The call priced by `c`'s tables (2.30.7's), and ordered by `pick`'s (the picking release's).
NcclCost cost_of(const Context& c, const Context& pick, NcclAlgorithm a, NcclProtocol p,
                 double bytes) {
  NcclCost out;
  out.op = c.op;
  out.algorithm = a;
  out.protocol = p;
  out.ranks = c.n;
  out.bytes = bytes;
  const AlgoTime t = algo_time(c, a, p, bytes, c.f.net_hop_s);
  const double bw = t.bandwidth_GBps;
  const double lat = t.latency_us;
  const double hop_lat = t.hop_latency_us;
  out.channels = run_channels(c, a, p, bytes);
  out.latency_s = lat * 1e-6;
  out.bandwidth_Bps = bw * 1e9;
  out.bandwidth_s = bytes / out.bandwidth_Bps;
  out.nccl_estimate_s = out.latency_s + out.bandwidth_s;
  if (pick.tables == c.tables) {
    out.pick_s = out.nccl_estimate_s;
  } else {
    const AlgoTime r = algo_time(pick, a, p, bytes);
    out.pick_s = r.latency_us * 1e-6 + bytes / (r.bandwidth_GBps * 1e9);
  }
  out.fill_s = pipeline_fill_s(c, a, bytes, bw);
  out.slice_sync_s = slice_sync_s(c, a, p, bytes);
  out.peer_write_s = peer_write_s(c, a, p, out.bandwidth_s);
  out.launch_s = static_cast<double>(c.f.gpus_per_thread - 1) * kNcclGroupLaunchPerGpu_s;
  out.net_hop_s = (hop_lat - lat) * 1e-6;
  out.total_s = out.nccl_estimate_s + out.fill_s + out.slice_sync_s + out.peer_write_s +
                out.launch_s + out.net_hop_s;
  if (bytes > 0 && out.total_s > 0) out.busbw_Bps = bytes / out.total_s * busbw_factor(c.op, c.n);
  return out;
}

void require_valid(const NcclFabric& f, double bytes) {
  if (!(std::isfinite(bytes) && bytes >= 0)) {
    throw InputError(fmt::format("message size {} B must be finite and >= 0", bytes));
  }
  if (f.nodes < 1 || f.gpus_per_node < 1 || f.nics_per_node < 1) {
    throw InputError(fmt::format("GPU fabric of {} nodes x {} GPUs with {} NICs per node: each "
                                 "must be at least 1",
                                 f.nodes, f.gpus_per_node, f.nics_per_node));
  }
  const std::int64_t gpus = f.nodes * f.gpus_per_node;
  if (f.gpus_per_thread < 1 || f.gpus_per_thread > gpus) {
    throw InputError(fmt::format("{} GPUs per thread: must be 1 to the fabric's {} GPUs",
                                 f.gpus_per_thread, gpus));
  }
  if (!(std::isfinite(f.net_latency_s) && f.net_latency_s >= 0)) {
    throw InputError(fmt::format("network plugin latency {} s must be finite and >= 0",
                                 f.net_latency_s));
  }
  if (f.net_hop_s && !(std::isfinite(*f.net_hop_s) && *f.net_hop_s >= 0)) {
    throw InputError(
        fmt::format("network hop time {} s must be finite and >= 0", *f.net_hop_s));
  }
  for (double bw : {f.nvlink_Bps, f.nic_Bps}) {
    if (!(std::isfinite(bw) && bw > 0)) {
      throw InputError(fmt::format("GPU fabric bandwidth {} B/s must be finite and above 0", bw));
    }
  }
}

}  // namespace

NcclRelease parse_nccl_release(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return InputError(fmt::format(
        "NCCL release '{}': {} (expected major.minor.patch such as 2.26.2, major.minor such as "
        "2.26, or a version code such as 22602)",
        text, why));
  };
  if (text.empty()) throw bad("empty");
  std::string_view t = text;
  if (t.front() == 'v' || t.front() == 'V') t.remove_prefix(1);
  // A build suffix ("2.26.2+cuda12.2", "2.26.2-1") follows the version, never leads.
  if (const std::size_t cut = t.find_first_of("+-"); cut != std::string_view::npos) {
    if (cut == 0) throw bad(fmt::format("starts with '{}', not with the version number", t[0]));
    t = t.substr(0, cut);
  }
  if (t.empty()) throw bad("no version number");
  std::vector<long long> parts;
  std::size_t i = 0;
  while (true) {
    const std::size_t start = i;
    long long v = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      if (i - start >= 6) throw bad("a number is too long");
      v = v * 10 + (t[i] - '0');
      ++i;
    }
    if (i == start) throw bad("not a number");
    parts.push_back(v);
    if (i == t.size()) break;
    if (t[i] != '.' || parts.size() == 3) throw bad(fmt::format("unexpected '{}'", t[i]));
    ++i;
  }
  NcclRelease r{0, 0, 0};
  if (parts.size() == 1) {
    // NCCL_VERSION_CODE from 2.9: major x 10000 + minor x 100 + patch.
    if (parts[0] < 20900 || parts[0] > 99999) throw bad("not a version code of NCCL 2.9 or later");
    r = {static_cast<int>(parts[0] / 10000), static_cast<int>(parts[0] / 100 % 100),
         static_cast<int>(parts[0] % 100)};
  } else {
    if (parts[1] > 99 || (parts.size() == 3 && parts[2] > 99)) throw bad("a part above 99");
    r = {static_cast<int>(parts[0]), static_cast<int>(parts[1]),
         parts.size() == 3 ? static_cast<int>(parts[2]) : 0};
  }
  if (r.major != 2) throw bad("the model holds NCCL 2's tables only");
  return r;
}

std::string nccl_release_name(NcclRelease release) {
  return fmt::format("{}.{}.{}", release.major, release.minor, release.patch);
}

NcclRelease nccl_tables_release(NcclRelease release) {
  return std::clamp(release, kNcclOldestRelease, kNcclModelRelease);
}

NcclRelease nccl_tables_release(std::optional<NcclRelease> release) {
  return nccl_tables_release(release.value_or(kNcclModelRelease));
}

bool nccl_chooses(Op op) {
  return op == Op::kAllreduce || op == Op::kReduceScatter || op == Op::kAllgather ||
         op == Op::kBroadcast || op == Op::kReduce;
}

bool nccl_is_default(Op op, const Topology& topology) {
  return topology.rank_kind == RankKind::kGpu && nccl_chooses(op);
}

std::vector<NcclCost> nccl_costs(Op op, double bytes, const NcclFabric& fabric) {
  if (!nccl_chooses(op)) {
    throw InputError(fmt::format(
        "NCCL makes no algorithm choice for {} (all-to-all is point-to-point sends; a barrier "
        "is a one-element all-reduce); use the MPI selector",
        op_name(op)));
  }
  require_valid(fabric, bytes);
  const std::int64_t n = fabric.nodes * fabric.gpus_per_node;
  std::vector<NcclCost> out;
  if (n <= 1) return out;
  Context c{op, fabric, n, static_cast<double>(fabric.gpus_per_node), arch_index(fabric.generation),
            static_cast<std::size_t>(fabric.nodes <= 2 ? fabric.nodes - 1 : 2), {}, {}, {}};
  c.ring = nccl_ring_graph(fabric);
  c.tree = tree_graph(fabric, c.ring);
  c.nvls = nccl_nvls_graph(fabric);
  // The picking release's tables; Blackwell picks by 2.30.7's (TuningTables).
  const NcclRelease release = nccl_tables_release(fabric.release);
  std::optional<TuningTables> release_tables;
  Context pick = c;
  if (release != kNcclModelRelease && c.arch < 3) {
    pick.tables = &release_tables.emplace(tables_for(release));
  }
  for (NcclAlgorithm a : kAllNcclAlgorithms) {
    for (NcclProtocol p : kAllNcclProtocols) {
      if (!considered(c, a, p) || algorithm_bandwidth(c, a, p) <= 0) continue;
      if (pick.tables != c.tables && algorithm_bandwidth(pick, a, p) <= 0) continue;
      out.push_back(cost_of(c, pick, a, p, bytes));
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const NcclCost& x, const NcclCost& y) { return x.pick_s < y.pick_s; });
  return out;
}

NcclCost nccl_choice(Op op, double bytes, const NcclFabric& fabric) {
  std::vector<NcclCost> all = nccl_costs(op, bytes, fabric);
  if (all.empty()) {
    NcclCost none;
    none.op = op;
    none.bytes = bytes;
    return none;
  }
  return all.front();
}

}  // namespace scalewall
