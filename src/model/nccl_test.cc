// Tests of scalewall/model/nccl.h: the graphs NCCL's search would find on A100 and H100
// nodes, its latency and bandwidth for each (algorithm, protocol) against hand-computed values
// from NCCL 2.30.7's tables, and its pick per size.
#include "scalewall/model/nccl.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

NcclFabric a100(std::int64_t nodes) {
  NcclFabric f;
  f.nodes = nodes;
  f.generation = GpuGeneration::kAmpere;
  f.nvlink_Bps = 300e9;  // 12 NVLink 3 links x 25 GB/s
  f.nic_Bps = 25e9;      // HDR 200 Gb/s
  f.nics_per_node = 8;
  return f;
}

NcclFabric h100(std::int64_t nodes) {
  NcclFabric f;
  f.nodes = nodes;
  f.generation = GpuGeneration::kHopper;
  f.nvlink_Bps = 450e9;  // 18 NVLink 4 links x 25 GB/s
  f.nic_Bps = 50e9;      // NDR 400 Gb/s
  f.nics_per_node = 8;
  f.nvls = true;
  return f;
}

const NcclCost& find(const std::vector<NcclCost>& all, NcclAlgorithm a, NcclProtocol p) {
  for (const NcclCost& c : all) {
    if (c.algorithm == a && c.protocol == p) return c;
  }
  ADD_FAILURE() << "no " << nccl_algorithm_name(a) << "/" << nccl_protocol_name(p);
  return all.front();
}

bool has(const std::vector<NcclCost>& all, NcclAlgorithm a) {
  for (const NcclCost& c : all) {
    if (c.algorithm == a) return true;
  }
  return false;
}

TEST(NcclNames, AreNcclAlgoAndProtoNames) {
  EXPECT_EQ(nccl_algorithm_name(NcclAlgorithm::kTree), "Tree");
  EXPECT_EQ(nccl_algorithm_name(NcclAlgorithm::kRing), "Ring");
  EXPECT_EQ(nccl_algorithm_name(NcclAlgorithm::kCollNetDirect), "CollNetDirect");
  EXPECT_EQ(nccl_algorithm_name(NcclAlgorithm::kCollNetChain), "CollNetChain");
  EXPECT_EQ(nccl_algorithm_name(NcclAlgorithm::kNvls), "NVLS");
  EXPECT_EQ(nccl_algorithm_name(NcclAlgorithm::kNvlsTree), "NVLSTree");
  EXPECT_EQ(nccl_protocol_name(NcclProtocol::kLL), "LL");
  EXPECT_EQ(nccl_protocol_name(NcclProtocol::kLL128), "LL128");
  EXPECT_EQ(nccl_protocol_name(NcclProtocol::kSimple), "Simple");
  EXPECT_EQ(parse_gpu_generation("hopper"), GpuGeneration::kHopper);
  EXPECT_THROW(parse_gpu_generation("pascal"), InputError);
}

// A100: NCCL counts 12 links x 20 GB/s = 240 GB/s. The intra speeds start at 40: 6 channels
// fill 240, which ends the search; bwIntra 40 >= 25 doubles them to 12 of 20 GB/s.
TEST(NcclGraphs, A100OneNodeRingIs12ChannelsOf20GBps) {
  const NcclGraph g = nccl_ring_graph(a100(1));
  EXPECT_EQ(g.channels, 12);
  EXPECT_DOUBLE_EQ(g.intra_Bps, 20e9);
  EXPECT_EQ(nccl_nvls_graph(a100(1)).channels, 0);  // no NVLS before Hopper
}

// H100: 18 x 20.6 = 370.8 GB/s. 6 x 60 = 360 is the best total (50: 7 x 50 = 350; 40: 9 x 40;
// 30: 12 x 30 tie at 360 and keep the first); 60 >= 50 doubles to 12 x 30.
TEST(NcclGraphs, H100OneNodeRingIs12ChannelsOf30GBps) {
  const NcclGraph g = nccl_ring_graph(h100(1));
  EXPECT_EQ(g.channels, 12);
  EXPECT_DOUBLE_EQ(g.intra_Bps, 30e9);
}

// Two H100 nodes: a channel's path to the NIC is min(NIC 50, PCIe Gen5 48) = 48; at 48 the
// NVLink holds 7 (336), at 45 all 8 NICs one each (360), the best; 45 < 50 with 8 channels on
// Hopper keeps them.
TEST(NcclGraphs, H100TwoNodeRingIs8ChannelsOf45GBps) {
  const NcclGraph g = nccl_ring_graph(h100(2));
  EXPECT_EQ(g.channels, 8);
  EXPECT_DOUBLE_EQ(g.intra_Bps, 45e9);
}

// NVLS on one H100 node: 8 channels; 60 x 8 and 50 x 8 exceed 370.8, so bwIntra is 40; pass 2
// raises bwInter to 50, then 60 (each below 2 x 40).
TEST(NcclGraphs, H100NvlsIs8ChannelsOf40And60GBps) {
  const NcclGraph g = nccl_nvls_graph(h100(1));
  EXPECT_EQ(g.channels, 8);
  EXPECT_DOUBLE_EQ(g.intra_Bps, 40e9);
  EXPECT_DOUBLE_EQ(g.inter_Bps, 60e9);
  const NcclGraph two = nccl_nvls_graph(h100(2));
  EXPECT_DOUBLE_EQ(two.intra_Bps, 45e9);  // 48 x 8 = 384 > 370.8
  EXPECT_DOUBLE_EQ(two.inter_Bps, 48e9);  // the NIC path
}

// Ring Simple on one A100 node: bus bandwidth 12 x 20 = 240 GB/s, algorithm bandwidth
// 240 x 8/14; latency 8.4 + 14 x 3.4 = 56 us (base + 2(N-1) NVLink hops).
TEST(NcclCosts, A100RingSimpleMatchesTheTables) {
  const double m = 1073741824;
  const NcclCost c = find(nccl_costs(Op::kAllreduce, m, a100(1)), NcclAlgorithm::kRing,
                          NcclProtocol::kSimple);
  EXPECT_NEAR(c.latency_s, 56e-6, 1e-12);
  EXPECT_NEAR(c.bandwidth_Bps, 240e9 * 8 / 14, 1e-3);
  EXPECT_NEAR(c.nccl_estimate_s, 56e-6 + m / (240e9 * 8 / 14), 1e-12);
  // 1 GiB passes 24 rings in 3 loops of 8 x 2 MiB: 3 x 2 slices x 14 steps x 3.4 us, of which
  // NCCL's latency counts 14 x 3.4.
  EXPECT_NEAR(c.slice_sync_s, 5 * 14 * 3.4e-6, 1e-12);
  EXPECT_NEAR(c.total_s, 56e-6 + m / (240e9 * 8 / 14) + 5 * 14 * 3.4e-6, 1e-12);
  EXPECT_EQ(c.channels, 12);
  ASSERT_TRUE(c.busbw_Bps.has_value());
  EXPECT_NEAR(*c.busbw_Bps, m / c.total_s * 14 / 8, 1e-3);
}

// LL128 on the ring: min(240 x 0.92, 12 x 20) = 220.8; latency 14 + 14 x 1.9 = 40.6 us.
// Tree LL: tree bus min(240 x 0.92, 12 x 24) = 220.8, LL min(220.8 / 3.8, 87.7), x 0.5;
// latency 6.8 + 2 x 7 x 0.6 = 15.2 us.
TEST(NcclCosts, A100Ll128AndTreeLlMatchTheTables) {
  const std::vector<NcclCost> all = nccl_costs(Op::kAllreduce, 8, a100(1));
  const NcclCost& ll128 = find(all, NcclAlgorithm::kRing, NcclProtocol::kLL128);
  EXPECT_NEAR(ll128.latency_s, 40.6e-6, 1e-12);
  EXPECT_NEAR(ll128.bandwidth_Bps, 220.8e9 * 8 / 14, 1e-2);
  const NcclCost& tree_ll = find(all, NcclAlgorithm::kTree, NcclProtocol::kLL);
  EXPECT_NEAR(tree_ll.latency_s, 15.2e-6, 1e-12);
  EXPECT_NEAR(tree_ll.bandwidth_Bps, 220.8e9 / 3.8 * 0.5, 1e-2);
  // Ring LL: 6.6 + 14 x 0.6 = 15.0 us, the least: NCCL's pick for 8 bytes.
  EXPECT_EQ(all.front().algorithm, NcclAlgorithm::kRing);
  EXPECT_EQ(all.front().protocol, NcclProtocol::kLL);
  EXPECT_NEAR(all.front().latency_s, 15.0e-6, 1e-12);
  // 8 B run on one channel (8 < 2 x 512 x 8 x 8).
  EXPECT_EQ(all.front().channels, 1);
  EXPECT_FALSE(has(all, NcclAlgorithm::kNvls));
}

// The tree correction: at 1 MiB (logSize = log2(16384) = 14) Simple's factor is 0.5.
TEST(NcclCosts, TreeBandwidthTakesTheCorrectionFactor) {
  const NcclCost c = find(nccl_costs(Op::kAllreduce, 1048576, a100(1)), NcclAlgorithm::kTree,
                          NcclProtocol::kSimple);
  EXPECT_NEAR(c.bandwidth_Bps, 220.8e9 * 0.5 * 0.5, 1e-2);
}

// NVLS on one H100 node: min(40 x 0.85 x 7/8 x 2, 60) = 59.5 per channel, 476 GB/s of bus
// bandwidth; latency 25 us. It wins at 1 GiB over the ring's 12 x 30 = 360.
TEST(NcclCosts, H100OneNodePicksNvlsForLargeBuffers) {
  const double m = 1073741824;
  const std::vector<NcclCost> all = nccl_costs(Op::kAllreduce, m, h100(1));
  const NcclCost& nvls = find(all, NcclAlgorithm::kNvls, NcclProtocol::kSimple);
  EXPECT_NEAR(nvls.bandwidth_Bps, 476e9 * 8 / 14, 1e-2);
  EXPECT_NEAR(nvls.latency_s, 25e-6, 1e-12);
  EXPECT_EQ(all.front().algorithm, NcclAlgorithm::kNvls);
  EXPECT_FALSE(has(all, NcclAlgorithm::kNvlsTree));  // one node
}

// Two H100 nodes: NVLS needs CollNet across nodes; NVLSTree takes min(45 x 0.85 x 7/8 x 2,
// 48 x 2, 57.7) = 57.7 per channel: 461.6 GB/s. Latency 25 + 2 x 1 x 20.9 us.
TEST(NcclCosts, H100TwoNodesPicksNvlsTree) {
  const double m = 1073741824;
  const std::vector<NcclCost> all = nccl_costs(Op::kAllreduce, m, h100(2));
  EXPECT_FALSE(has(all, NcclAlgorithm::kNvls));
  const NcclCost& t = find(all, NcclAlgorithm::kNvlsTree, NcclProtocol::kSimple);
  EXPECT_NEAR(t.bandwidth_Bps, 461.6e9 * 16 / 30, 1e-1);
  EXPECT_NEAR(t.latency_s, (25 + 2 * 20.9) * 1e-6, 1e-12);
  EXPECT_EQ(all.front().algorithm, NcclAlgorithm::kNvlsTree);
  ASSERT_TRUE(all.front().busbw_Bps.has_value());
  const double bw = 461.6e9 * 16 / 30;
  const double total = 66.8e-6 + m / bw + 2 * 16 * 1048576.0 / bw;  // with the fill
  EXPECT_NEAR(*all.front().busbw_Bps, m / total * 30 / 16, 1e3);
}

// Inside one A100 node LL and LL128 write their lines into the peer at 0.77 of the ring
// graph's 12 x 20 GB/s, where Simple reads. LL128's lines carry 120 of 128 bytes: 0.77 x 240 x
// 120/128 = 173.25 GB/s of bus bandwidth, under NCCL's min(240 x 0.92, 12 x 20) = 220.8, so an
// all-reduce of m bytes pays m x 14/8 x (1/173.25 - 1/220.8) GB/s beyond NCCL's term (a
// reduce-scatter m x 7/8 x the same). LL (92.4 GB/s of writes over its 87.7 GB/s ceiling), the
// one-node tree with LL128 (220.8 x 7/9 = 171.7 GB/s), Simple, two nodes and Hopper: nothing.
TEST(NcclCosts, AnAmpereNodesPeerWritesBoundLl128) {
  const double mib = 1048576;
  const double writes = 0.77 * 240e9 * 120 / 128;
  const auto cost = [](Op op, double m, NcclAlgorithm a, NcclProtocol p, NcclFabric f) {
    return find(nccl_costs(op, m, f), a, p);
  };
  NcclFabric hopper = a100(1);
  hopper.generation = GpuGeneration::kHopper;
  struct Free {
    NcclAlgorithm algorithm;
    NcclProtocol protocol;
    NcclFabric fabric;
  };
  const Free free_of_writes[] = {
      {NcclAlgorithm::kRing, NcclProtocol::kLL, a100(1)},
      {NcclAlgorithm::kTree, NcclProtocol::kLL128, a100(1)},
      {NcclAlgorithm::kRing, NcclProtocol::kSimple, a100(1)},
      {NcclAlgorithm::kRing, NcclProtocol::kLL128, a100(2)},
      {NcclAlgorithm::kRing, NcclProtocol::kLL128, hopper},
  };
  for (const double m : {4 * mib, 16 * mib, 1024 * mib}) {
    const NcclCost ll128 =
        cost(Op::kAllreduce, m, NcclAlgorithm::kRing, NcclProtocol::kLL128, a100(1));
    EXPECT_NEAR(ll128.peer_write_s, m * 14 / 8 * (1 / writes - 1 / 220.8e9), 1e-12) << m;
    EXPECT_NEAR(ll128.total_s,
                ll128.nccl_estimate_s + ll128.slice_sync_s + ll128.peer_write_s, 1e-15);
    const NcclCost rs =
        cost(Op::kReduceScatter, m, NcclAlgorithm::kRing, NcclProtocol::kLL128, a100(1));
    EXPECT_NEAR(rs.peer_write_s, m * 7 / 8 * (1 / writes - 1 / 220.8e9), 1e-12) << m;
    for (const Free& f : free_of_writes) {
      EXPECT_EQ(cost(Op::kAllreduce, m, f.algorithm, f.protocol, f.fabric).peer_write_s, 0.0)
          << m << " " << nccl_algorithm_name(f.algorithm) << "/"
          << nccl_protocol_name(f.protocol) << " on " << f.fabric.nodes << " node(s)";
    }
  }
  EXPECT_EQ(cost(Op::kAllreduce, 0, NcclAlgorithm::kRing, NcclProtocol::kLL128, a100(1))
                .peer_write_s,
            0.0);
  // NCCL's pick is its own (Ring LL128 at 8 MiB), and its total carries the peer writes.
  const NcclCost pick = nccl_choice(Op::kAllreduce, 8 * mib, a100(1));
  EXPECT_EQ(pick.algorithm, NcclAlgorithm::kRing);
  EXPECT_EQ(pick.protocol, NcclProtocol::kLL128);
  EXPECT_GT(pick.peer_write_s, 0.0);
}

// Inside one node a ring kernel pays its step latency on every slice of every loop, where
// NCCL's latency counts it once per step. One A100 node runs 2 x 12 = 24 rings; Simple passes
// a channel's share in loops of 8 ranks x 2 MiB (4 of the 8 slots of its 4 MiB buffer), each
// step in 2 slices; LL128 in loops of 8 x 576000 B (614400 B slots, 120/128 of them data), one
// slice. So: 64 MiB, one loop: 1 x 2 - 1 = 1 extra pass of 14 x 3.4 us; 4 GiB, 11 loops: 21
// extra passes; LL128 at 16 MiB, one loop of one slice: nothing. A reduce-scatter counts 7
// steps: 8 GiB, 22 loops: 43 x 7 x 3.4 us. A broadcast (a chain of 512 KiB chunks, one step
// in NCCL's latency): 1 GiB, 86 loops: 85 x 3.4 us. Across nodes, for trees and for an empty
// buffer: nothing.
TEST(NcclCosts, AOneNodeRingPaysItsStepLatencyOnEverySlice) {
  const auto ring = [](Op op, double m, NcclProtocol p, std::int64_t nodes = 1) {
    return find(nccl_costs(op, m, a100(nodes)), NcclAlgorithm::kRing, p);
  };
  const double mib = 1048576;
  EXPECT_NEAR(ring(Op::kAllreduce, 64 * mib, NcclProtocol::kSimple).slice_sync_s, 14 * 3.4e-6,
              1e-12);
  EXPECT_NEAR(ring(Op::kAllreduce, 384 * mib, NcclProtocol::kSimple).slice_sync_s,
              14 * 3.4e-6, 1e-12);  // exactly one loop
  EXPECT_NEAR(ring(Op::kAllreduce, 384 * mib + 1, NcclProtocol::kSimple).slice_sync_s,
              3 * 14 * 3.4e-6, 1e-12);  // a second loop begins
  EXPECT_NEAR(ring(Op::kAllreduce, 4096 * mib, NcclProtocol::kSimple).slice_sync_s,
              21 * 14 * 3.4e-6, 1e-12);
  EXPECT_EQ(ring(Op::kAllreduce, 16 * mib, NcclProtocol::kLL128).slice_sync_s, 0.0);
  EXPECT_NEAR(ring(Op::kAllreduce, 24 * 8 * 576000.0 * 2, NcclProtocol::kLL128).slice_sync_s,
              14 * 1.9e-6, 1e-12);  // two loops of one slice
  EXPECT_NEAR(ring(Op::kReduceScatter, 8192 * mib, NcclProtocol::kSimple).slice_sync_s,
              43 * 7 * 3.4e-6, 1e-12);
  EXPECT_NEAR(ring(Op::kBroadcast, 1024 * mib, NcclProtocol::kSimple).slice_sync_s,
              85 * 3.4e-6, 1e-12);
  EXPECT_EQ(ring(Op::kAllreduce, 1024 * mib, NcclProtocol::kSimple, 2).slice_sync_s, 0.0);
  EXPECT_EQ(ring(Op::kAllreduce, 0, NcclProtocol::kSimple).slice_sync_s, 0.0);
  for (const NcclCost& c : nccl_costs(Op::kAllreduce, 1024 * mib, a100(1))) {
    EXPECT_NEAR(c.total_s,
                c.nccl_estimate_s + c.fill_s + c.slice_sync_s + c.peer_write_s + c.launch_s,
                1e-15);
    if (c.algorithm != NcclAlgorithm::kRing) {
      EXPECT_EQ(c.slice_sync_s, 0.0);
    }
  }
  // Never negative, never falling as the buffer grows, and the pick is NCCL's own.
  double last = 0;
  for (double m = 1; m <= 1e11; m *= 1.3) {
    const NcclCost c = ring(Op::kAllreduce, m, NcclProtocol::kSimple);
    EXPECT_GE(c.slice_sync_s, last) << m;
    last = c.slice_sync_s;
    const std::vector<NcclCost> all = nccl_costs(Op::kAllreduce, m, a100(1));
    for (std::size_t i = 1; i < all.size(); ++i) {
      EXPECT_GE(all[i].nccl_estimate_s, all[i - 1].nccl_estimate_s);
    }
  }
}

// Ring Simple across two A100 nodes: 8 channels of 24 (HDR 25 GB/s), latency
// base 8.4 + 28 intra hops x max(3.4, 3 x 1 us) + 2 inter hops x 14, x 1.4 (plateau).
TEST(NcclCosts, RingAcrossNodesPaysNetworkHopsAndThePlateau) {
  const double m = 1073741824;
  const NcclCost c = find(nccl_costs(Op::kAllreduce, m, a100(2)), NcclAlgorithm::kRing,
                          NcclProtocol::kSimple);
  EXPECT_NEAR(c.latency_s, (8.4 + 28 * 3.4 + 2 * 14.0) * 1.4 * 1e-6, 1e-12);
  EXPECT_NEAR(c.bandwidth_Bps, 8 * 24e9 * 16 / 30, 1e-2);
}

// The NVLS pipeline fill: (3 - 1) rounds of channels (16 CTAs on Hopper) x heads (8) x chunk at
// the call's bandwidth, the chunk from calcCollChunking's rules. One H100 node at 16 MiB:
// 128 KiB -> 64 KiB (under 64 x 128 x 128 KiB) -> 32 KiB (under 8 x 128 x 64 KiB); a round is
// 128 x 32 KiB = 4 MiB. At 1 MiB (16 KiB chunks, a 2 MiB round) the buffer fills less than one
// round: twice the buffer. From 1 GiB the chunk stays 128 KiB (16 MiB rounds).
TEST(NcclCosts, NvlsPaysItsPipelineFillTheRingDoesNot) {
  const double bw = 476e9 * 8 / 14;
  const auto nvls_at = [](double m) {
    return find(nccl_costs(Op::kAllreduce, m, h100(1)), NcclAlgorithm::kNvls,
                NcclProtocol::kSimple);
  };
  const NcclCost mid = nvls_at(16 * 1048576.0);
  EXPECT_NEAR(mid.fill_s, 2 * 4 * 1048576.0 / bw, 1e-12);
  EXPECT_NEAR(mid.total_s, mid.latency_s + mid.bandwidth_s + mid.fill_s, 1e-15);
  EXPECT_NEAR(mid.nccl_estimate_s, mid.latency_s + mid.bandwidth_s, 1e-15);
  EXPECT_NEAR(nvls_at(1048576.0).fill_s, 2 * 1048576.0 / bw, 1e-12);
  EXPECT_NEAR(nvls_at(4 * 1073741824.0).fill_s, 2 * 16 * 1048576.0 / bw, 1e-12);
  EXPECT_NEAR(nvls_at(512 * 1048576.0).fill_s, 2 * 8 * 1048576.0 / bw, 1e-12);  // 64 KiB
  // The fill never falls as the buffer grows.
  double last = 0;
  for (double m = 1024; m <= 1e11; m *= 1.5) {
    const double f = nvls_at(m).fill_s;
    EXPECT_GE(f, last) << m;
    last = f;
  }
  for (const NcclCost& c : nccl_costs(Op::kAllreduce, 16 * 1048576.0, h100(1))) {
    if (c.algorithm != NcclAlgorithm::kNvls) {
      EXPECT_EQ(c.fill_s, 0.0);
    }
  }
  // NVLSTree on two nodes at 1 GiB: 128 KiB chunks (the tree's maximum below four nodes).
  const NcclCost tree = find(nccl_costs(Op::kAllreduce, 1073741824.0, h100(2)),
                             NcclAlgorithm::kNvlsTree, NcclProtocol::kSimple);
  EXPECT_NEAR(tree.fill_s, 2 * 16 * 1048576.0 / (461.6e9 * 16 / 30), 1e-11);
  // Only the all-reduce: the NVLS all-gather's kernels are another pipeline.
  EXPECT_EQ(find(nccl_costs(Op::kAllgather, 1 << 30, h100(1)), NcclAlgorithm::kNvls,
                 NcclProtocol::kSimple)
                .fill_s,
            0.0);
}

// NCCL picks by its own estimate; the fill only prices the pick. At 2 MiB on one H100 node
// NVLS's estimate (25 + 7.7 us) beats Ring LL's 41 us, so NVLS is the pick, although with its
// 15.4 us of fill it takes longer than the ring would.
TEST(NcclCosts, ThePickIsNcclsOwnTheFillComesAfter) {
  const std::vector<NcclCost> all = nccl_costs(Op::kAllreduce, 2 * 1048576.0, h100(1));
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(all.front().algorithm, NcclAlgorithm::kNvls);
  const NcclCost& ll = find(all, NcclAlgorithm::kRing, NcclProtocol::kLL);
  EXPECT_LT(all.front().nccl_estimate_s, ll.nccl_estimate_s);
  EXPECT_GT(all.front().total_s, ll.total_s);
  for (std::size_t i = 1; i < all.size(); ++i) {
    EXPECT_GE(all[i].nccl_estimate_s, all[i - 1].nccl_estimate_s);
  }
}

// MI300X: RCCL counts an xGMI link at 48 GB/s (GFX94X_XGMI_WIDTH), 3/4 of its 64 GB/s each way,
// so seven links count 336 GB/s: the ring graph takes 14 channels of 24 GB/s (the first speed
// of the Hopper array whose channels fill it: 5 x 60, 6 x 50, 8 x 40, 11 x 30, 14 x 24).
TEST(NcclCosts, Mi300xCountsItsXgmiAsRcclDoes) {
  NcclFabric f;
  f.generation = GpuGeneration::kCdna3;
  f.nvlink_Bps = 7 * 64e9;
  const NcclGraph g = nccl_ring_graph(f);
  EXPECT_EQ(g.channels, 14);
  EXPECT_NEAR(g.intra_Bps, 24e9, 1e-3);
  const NcclCost c = find(nccl_costs(Op::kAllreduce, 1 << 30, f), NcclAlgorithm::kRing,
                          NcclProtocol::kSimple);
  EXPECT_NEAR(c.bandwidth_Bps, 336e9 * 8 / 14, 1e-2);
}

// A thread that drives G GPUs launches their kernels in turn: every candidate's total gains
// (G - 1) launches of 4 us; NCCL's estimate, and so its pick, is unchanged; one GPU per
// thread adds nothing; G must lie within the fabric's GPUs.
TEST(NcclCosts, AThreadDrivingEightGpusPaysSevenLaunches) {
  const NcclFabric one_per_thread = a100(1);
  NcclFabric grouped = one_per_thread;
  grouped.gpus_per_thread = 8;
  for (const double m : {8.0, 1048576.0, 64 * 1048576.0}) {
    const std::vector<NcclCost> plain = nccl_costs(Op::kAllreduce, m, one_per_thread);
    const std::vector<NcclCost> launched = nccl_costs(Op::kAllreduce, m, grouped);
    ASSERT_EQ(plain.size(), launched.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
      EXPECT_EQ(plain[i].algorithm, launched[i].algorithm) << m;
      EXPECT_EQ(plain[i].protocol, launched[i].protocol) << m;
      EXPECT_EQ(plain[i].launch_s, 0.0);
      EXPECT_DOUBLE_EQ(launched[i].launch_s, 7 * 4e-6);
      EXPECT_DOUBLE_EQ(launched[i].total_s, plain[i].total_s + 28e-6) << m;
      EXPECT_DOUBLE_EQ(launched[i].nccl_estimate_s, plain[i].nccl_estimate_s);
    }
  }
  // 1 MiB on one A100 node: Ring LL, 15 us + 1 MiB / 50.1 GB/s = 35.9 us, then 63.9 us.
  const NcclCost c = nccl_choice(Op::kAllreduce, 1048576, grouped);
  EXPECT_EQ(c.algorithm, NcclAlgorithm::kRing);
  EXPECT_EQ(c.protocol, NcclProtocol::kLL);
  EXPECT_NEAR(c.total_s, c.latency_s + 1048576 / c.bandwidth_Bps + 28e-6, 1e-15);
  grouped.gpus_per_thread = 9;
  EXPECT_THROW(nccl_costs(Op::kAllreduce, 1e6, grouped), InputError);
  grouped.gpus_per_thread = 0;
  EXPECT_THROW(nccl_costs(Op::kAllreduce, 1e6, grouped), InputError);
}

// A network plugin's reported latency (aws-ofi-nccl: 75 us on p4d) joins every network hop,
// twice for Simple (tuning.cc: interLat += latencyInter, and the flush). Two p4d-like A100
// nodes at 8 B: Tree LL, 6.8 + 2 x (7 x 0.6 + (5.0 + 75)) = 175.2 us; Ring Simple,
// 8.4 + 28 x 3.4 + 2 x (14 + 2 x 75) = 431.6 us. The public p4d logs take 158-180 us there.
TEST(NcclCosts, ANetworkPluginsLatencyJoinsEveryNetworkHop) {
  NcclFabric f = a100(2);
  f.nics_per_node = 4;
  f.nic_Bps = 12.5e9;
  const NcclCost plain = nccl_choice(Op::kAllreduce, 8, f);
  f.net_latency_s = 75e-6;
  const std::vector<NcclCost> all = nccl_costs(Op::kAllreduce, 8, f);
  EXPECT_EQ(all.front().algorithm, NcclAlgorithm::kTree);
  EXPECT_EQ(all.front().protocol, NcclProtocol::kLL);
  EXPECT_NEAR(all.front().latency_s, 175.2e-6, 1e-12);
  EXPECT_NEAR(find(all, NcclAlgorithm::kRing, NcclProtocol::kSimple).latency_s, 431.6e-6, 1e-12);
  EXPECT_NEAR(all.front().latency_s - plain.latency_s, 150e-6, 1e-12);
  // One node has no network hop: nothing changes.
  NcclFabric one = a100(1);
  const double before = nccl_choice(Op::kAllreduce, 8, one).total_s;
  one.net_latency_s = 75e-6;
  EXPECT_EQ(nccl_choice(Op::kAllreduce, 8, one).total_s, before);
  one.net_latency_s = -1e-6;
  EXPECT_THROW(nccl_costs(Op::kAllreduce, 8, one), InputError);
}

TEST(NcclCosts, OtherOpsUseTheirOwnAlgorithms) {
  const std::vector<NcclCost> bc = nccl_costs(Op::kBroadcast, 1 << 20, h100(2));
  for (const NcclCost& c : bc) EXPECT_EQ(c.algorithm, NcclAlgorithm::kRing);
  EXPECT_EQ(bc.size(), 3u);
  // All-gather on one H100 node: Ring and NVLS (busbw x (ppn - 1)/ppn, no algbw conversion).
  const std::vector<NcclCost> ag = nccl_costs(Op::kAllgather, 1 << 30, h100(1));
  const NcclCost& nvls = find(ag, NcclAlgorithm::kNvls, NcclProtocol::kSimple);
  EXPECT_NEAR(nvls.bandwidth_Bps, 8 * 40e9 * 0.85 * 7 / 8 * 7 / 8, 1e-2);
  EXPECT_FALSE(has(ag, NcclAlgorithm::kTree));
  EXPECT_THROW(nccl_costs(Op::kAlltoall, 1, h100(1)), InputError);
  EXPECT_FALSE(nccl_chooses(Op::kBarrier));
}

TEST(NcclCosts, CostsRiseWithSizeAndOneGpuIsFree) {
  double last = 0;
  for (double m = 1; m <= 1e10; m *= 4) {
    const NcclCost c = nccl_choice(Op::kAllreduce, m, h100(2));
    EXPECT_GE(c.total_s, last) << m;
    last = c.total_s;
  }
  NcclFabric one = h100(1);
  one.gpus_per_node = 1;
  EXPECT_EQ(nccl_choice(Op::kAllreduce, 1e6, one).total_s, 0.0);
  EXPECT_THROW(nccl_costs(Op::kAllreduce, -1, h100(1)), InputError);
}

// Two nodes of 8 GPUs on NVLink 4 with NVLS, `nics` NICs of `nic_Bps` each.
Topology two_gpu_nodes(std::int64_t nics, double nic_Bps) {
  Topology t;
  t.rank_kind = RankKind::kGpu;
  t.nodes = 2;
  t.ranks_per_node = 8;
  t.nics_per_node = nics;
  t.inter.bandwidth_Bps = nic_Bps;
  t.intra.bandwidth_Bps = 450e9;
  t.gpu.nvls = true;
  return t;
}

TEST(NcclFabricOf, NeedsGpuRanks) {
  EXPECT_THROW(nccl_fabric(Topology{}), InputError);
  const NcclFabric f = nccl_fabric(two_gpu_nodes(8, 50e9));
  EXPECT_EQ(f.nodes, 2);
  EXPECT_EQ(f.gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(f.nic_Bps, 50e9);
  EXPECT_TRUE(f.nvls);
}

// A node with more NICs than GPUs shows NCCL one device per GPU with their summed rate
// (aws-ofi-nccl's multi-rail groups on p5): 32 x 12.5 GB/s on 8 GPUs prices as 8 x 50 GB/s.
// Fewer NICs than GPUs stay as they are.
TEST(NcclFabricOf, NicsBeyondOnePerGpuAreGroupedPerGpu) {
  const NcclFabric grouped = nccl_fabric(two_gpu_nodes(32, 12.5e9));
  EXPECT_EQ(grouped.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(grouped.nic_Bps, 50e9);
  for (const double bytes : {8.0, 1048576.0, 1073741824.0}) {
    EXPECT_EQ(nccl_choice(Op::kAllreduce, bytes, grouped).total_s,
              nccl_choice(Op::kAllreduce, bytes, h100(2)).total_s)
        << bytes;
  }
  const NcclFabric fewer = nccl_fabric(two_gpu_nodes(4, 12.5e9));
  EXPECT_EQ(fewer.nics_per_node, 4);
  EXPECT_DOUBLE_EQ(fewer.nic_Bps, 12.5e9);
}

// A network hop's own time (aws-ofi-nccl's tuner: 20 us on p5) replaces the plugin's reported
// latency in the time, once for every protocol, while the pick still sees the report. Two
// nodes at 8 B, reported 75 us: Tree LL's hops cost 2 x 20 in place of 2 x 75, -110 us, so
// 175.2 - 110 = 65.2 us; Ring Simple's 2 hops, 2 x 20 in place of 2 x (2 x 75), -260 us.
TEST(NcclCosts, ANetworkHopsOwnTimeReplacesThePluginsReport) {
  NcclFabric f = a100(2);
  f.nics_per_node = 4;
  f.nic_Bps = 12.5e9;
  f.net_latency_s = 75e-6;
  const std::vector<NcclCost> reported = nccl_costs(Op::kAllreduce, 8, f);
  f.net_hop_s = 20e-6;
  const std::vector<NcclCost> hop = nccl_costs(Op::kAllreduce, 8, f);
  ASSERT_EQ(hop.size(), reported.size());
  for (std::size_t i = 0; i < hop.size(); ++i) {  // the same pick, order and NCCL figures
    EXPECT_EQ(hop[i].algorithm, reported[i].algorithm);
    EXPECT_EQ(hop[i].protocol, reported[i].protocol);
    EXPECT_EQ(hop[i].nccl_estimate_s, reported[i].nccl_estimate_s);
    EXPECT_EQ(reported[i].net_hop_s, 0.0);
    EXPECT_NEAR(hop[i].total_s, reported[i].total_s + hop[i].net_hop_s, 1e-15);
  }
  EXPECT_EQ(hop.front().algorithm, NcclAlgorithm::kTree);
  EXPECT_NEAR(hop.front().net_hop_s, -110e-6, 1e-12);
  EXPECT_NEAR(hop.front().latency_s + hop.front().net_hop_s, 65.2e-6, 1e-12);
  EXPECT_NEAR(find(hop, NcclAlgorithm::kRing, NcclProtocol::kSimple).net_hop_s, -260e-6, 1e-12);
  // A hop above the report costs more; one node has no hop.
  f.net_hop_s = 100e-6;
  EXPECT_NEAR(nccl_choice(Op::kAllreduce, 8, f).net_hop_s, 50e-6, 1e-12);
  NcclFabric one = a100(1);
  one.net_hop_s = 20e-6;
  EXPECT_EQ(nccl_choice(Op::kAllreduce, 8, one).net_hop_s, 0.0);
  one.net_hop_s = -1e-6;
  EXPECT_THROW(nccl_costs(Op::kAllreduce, 8, one), InputError);
}


TEST(NcclReleases, ReadEveryFormALogOrAUserGives) {
  EXPECT_EQ(parse_nccl_release("2.26.2"), (NcclRelease{2, 26, 2}));
  EXPECT_EQ(parse_nccl_release("2.26"), (NcclRelease{2, 26, 0}));
  EXPECT_EQ(parse_nccl_release("2.26.2+cuda12.8"), (NcclRelease{2, 26, 2}));
  EXPECT_EQ(parse_nccl_release("v2.28.9-1"), (NcclRelease{2, 28, 9}));
  EXPECT_EQ(parse_nccl_release("22602"), (NcclRelease{2, 26, 2}));  // NCCL_VERSION_CODE
  EXPECT_EQ(parse_nccl_release("23007"), kNcclModelRelease);
  EXPECT_EQ(nccl_release_name({2, 9, 9}), "2.9.9");
  EXPECT_EQ(nccl_release_name(kNcclModelRelease), kNcclModelVersion);
  for (const char* bad : {"", "x", "2.", "2..1", "2.26.2.1", "3.0.0", "1.3.4", "2.x", "2700",
                          "2.260.1", "v", "2.26 2"}) {
    EXPECT_THROW(parse_nccl_release(bad), InputError) << bad;
  }
  try {
    parse_nccl_release("2.x");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("NCCL release '2.x'"), std::string::npos) << e.what();
  }
  // A sign before the number says what is wrong with the text, not "empty".
  for (const char* lead : {"+2.26.2", "-2.26.2", "v+2.26"}) {
    try {
      parse_nccl_release(lead);
      ADD_FAILURE() << lead;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(fmt::format("NCCL release '{}': starts with '{}', not "
                                                       "with the version number",
                                                       lead, lead[0] == 'v' ? '+' : lead[0])),
                std::string::npos)
          << e.what();
    }
  }
}

// The model holds 2.19.0 to 2.30.7; an older release picks as 2.19.0, a newer one as 2.30.7.
TEST(NcclReleases, OutsideTheTablesHeldTheNearestEndPicks) {
  EXPECT_EQ(nccl_tables_release({2, 9, 9}), kNcclOldestRelease);
  EXPECT_EQ(nccl_tables_release({2, 26, 2}), (NcclRelease{2, 26, 2}));
  EXPECT_EQ(nccl_tables_release({2, 31, 0}), kNcclModelRelease);
  const double m = 1048576;
  NcclFabric old = h100(2);
  old.release = NcclRelease{2, 9, 9};
  NcclFabric oldest = h100(2);
  oldest.release = kNcclOldestRelease;
  const std::vector<NcclCost> a = nccl_costs(Op::kAllreduce, m, old);
  const std::vector<NcclCost> b = nccl_costs(Op::kAllreduce, m, oldest);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].pick_s, b[i].pick_s);
}

// Two H100 nodes at 1 MiB. Before 2.28.3 NVLSTree took the graph's min(45, 48) GB/s per
// channel, 8 channels, at 5/6: 300 GB/s; before 2.28.9 its network hop was 14 us: 25 + 2 x 14
// = 53 us. Its estimate, 53 us + m / 300 GB/s = 56.5 us, beats Tree LL128's 60.4 us, so 2.26.2
// picks NVLSTree where 2.30.7 (25 + 2 x 20.9 = 66.8 us + m / 246.2 GB/s = 71.1 us) picks Tree
// LL128. Either way the pick is priced by 2.30.7's tables. 2.28.3 has the newer bandwidth but
// the 14 us hop: 53 us + m / 246.2 GB/s = 57.3 us, NVLSTree too.
TEST(NcclCosts, AReleaseBefore2_28_9PicksNvlsTreeAt1MiBOnTwoH100Nodes) {
  const double m = 1048576;
  const std::vector<NcclCost> latest = nccl_costs(Op::kAllreduce, m, h100(2));
  EXPECT_EQ(latest.front().algorithm, NcclAlgorithm::kTree);
  EXPECT_EQ(latest.front().protocol, NcclProtocol::kLL128);
  for (const NcclCost& c : latest) EXPECT_EQ(c.pick_s, c.nccl_estimate_s);
  const NcclCost& latest_tree = find(latest, NcclAlgorithm::kNvlsTree, NcclProtocol::kSimple);

  NcclFabric f = h100(2);
  f.release = parse_nccl_release("2.26.2");
  const std::vector<NcclCost> old = nccl_costs(Op::kAllreduce, m, f);
  ASSERT_EQ(old.size(), latest.size());
  const NcclCost& pick = old.front();
  EXPECT_EQ(pick.algorithm, NcclAlgorithm::kNvlsTree);
  EXPECT_NEAR(pick.pick_s, 53e-6 + m / 300e9, 1e-12);
  EXPECT_EQ(pick.total_s, latest_tree.total_s);  // 2.30.7's price
  EXPECT_EQ(pick.nccl_estimate_s, latest_tree.nccl_estimate_s);
  EXPECT_NEAR(latest_tree.nccl_estimate_s, 66.8e-6 + m / (461.6e9 * 16 / 30), 1e-12);
  const NcclCost& ll128 = find(old, NcclAlgorithm::kTree, NcclProtocol::kLL128);
  EXPECT_EQ(ll128.pick_s, ll128.nccl_estimate_s);  // the Tree tables are the same
  EXPECT_GT(ll128.pick_s, pick.pick_s);
  for (std::size_t i = 1; i < old.size(); ++i) EXPECT_LE(old[i - 1].pick_s, old[i].pick_s);

  f.release = NcclRelease{2, 28, 3};
  const NcclCost mid = nccl_choice(Op::kAllreduce, m, f);
  EXPECT_EQ(mid.algorithm, NcclAlgorithm::kNvlsTree);
  EXPECT_NEAR(mid.pick_s, 53e-6 + m / (461.6e9 * 16 / 30), 1e-12);
  f.release = NcclRelease{2, 28, 9};
  EXPECT_EQ(nccl_choice(Op::kAllreduce, m, f).algorithm, NcclAlgorithm::kTree);
}

// Before 2.23 a Tree Simple step cost 28 us at every link type and no base: on two A100 nodes
// 2 x ((8 - 1) x 28 + 1 x 28) = 448 us, where 2.30.7 has 8.4 + 2 x (7 x 4.0 + 14) = 92.4 us.
TEST(NcclCosts, Before2_23ATreeSimpleStepCost28Us) {
  const double m = 64.0 * 1048576;
  NcclFabric f = a100(2);
  f.release = NcclRelease{2, 22, 3};
  const NcclCost t = find(nccl_costs(Op::kAllreduce, m, f), NcclAlgorithm::kTree,
                          NcclProtocol::kSimple);
  EXPECT_NEAR(t.latency_s, 92.4e-6, 1e-12);
  EXPECT_NEAR(t.pick_s - t.nccl_estimate_s, (448 - 92.4) * 1e-6, 1e-12);
  f.release = NcclRelease{2, 23, 4};
  const NcclCost u = find(nccl_costs(Op::kAllreduce, m, f), NcclAlgorithm::kTree,
                          NcclProtocol::kSimple);
  EXPECT_EQ(u.pick_s, u.nccl_estimate_s);
}

// Before 2.21 Hopper's LL ceiling was Ampere's (87.7 GB/s on one node, not 141) and an NVLS
// NVLink hop 23 us, not 25. One H100 node: Ring LL's bus bandwidth min(ceiling, 12 x 30 x 0.5
// = 180) and NVLS's old min(40, 60) x 8 x 5/6 = 266.7 GB/s at 23 us.
TEST(NcclCosts, Before2_21HopperTookAmperesLlCeilingAndA23UsNvlsHop) {
  const double m = 64.0 * 1048576;
  NcclFabric f = h100(1);
  f.release = NcclRelease{2, 20, 5};
  const std::vector<NcclCost> all = nccl_costs(Op::kAllreduce, m, f);
  const NcclCost& ll = find(all, NcclAlgorithm::kRing, NcclProtocol::kLL);
  EXPECT_NEAR(ll.bandwidth_Bps, 141e9 * 8 / 14, 1e-2);  // 2.30.7's price
  EXPECT_NEAR(ll.pick_s, ll.latency_s + m / (87.7e9 * 8 / 14), 1e-12);
  const NcclCost& nvls = find(all, NcclAlgorithm::kNvls, NcclProtocol::kSimple);
  EXPECT_NEAR(nvls.pick_s, 23e-6 + m / (40e9 * 8 * 5 / 6), 1e-12);
  EXPECT_EQ(all.front().algorithm, NcclAlgorithm::kNvls);
}

// Blackwell's rows changed at most releases from 2.25 on; every release picks by 2.30.7's.
TEST(NcclCosts, BlackwellPicksBy2_30_7sTablesWhateverTheRelease) {
  NcclFabric f = h100(2);
  f.generation = GpuGeneration::kBlackwell;
  f.nvlink_Bps = 900e9;
  f.release = NcclRelease{2, 26, 2};
  for (double m : {8.0, 1048576.0, 1073741824.0}) {
    for (const NcclCost& c : nccl_costs(Op::kAllreduce, m, f)) {
      EXPECT_EQ(c.pick_s, c.nccl_estimate_s) << nccl_algorithm_name(c.algorithm);
    }
  }
}

}  // namespace
}  // namespace scalewall
