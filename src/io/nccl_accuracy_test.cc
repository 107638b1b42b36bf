// The NCCL model against public nccl-tests logs (tests/data/nccl/SOURCES.md and some of
// tests/data/real-logs/MANIFEST.md), all-reduce unless a test names another op: each log is
// read by the measurement reader, each size predicted from a preset alone (no figure taken
// from the log but its rank count, for a run whose threads drive several GPUs that count, and
// the NCCL release it names, whose tables pick), and the predicted bus bandwidth compared with
// the measured one. The bounds are issue 12's (within 20% at every size from 64 MiB up,
// within 35% from 1 MiB up) except where a test states the looser figure the model reaches.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "scalewall/base/stats.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/io/measurement.h"
#include "scalewall/model/nccl.h"

namespace scalewall {
namespace {

constexpr double kLargeBytes = 64.0 * 1024 * 1024;  // from here the 20% bound
constexpr double kMediumBytes = 1024.0 * 1024;      // from here the 35% bound
constexpr double kLargeBound = 0.20;
constexpr double kMediumBound = 0.35;

struct LogCase {
  const char* file;
  const char* preset;
  // The NCCL release that ran a log which does not state it, where its source bounds it;
  // nullptr: the log's own statement, else the model's release.
  const char* release = nullptr;
};

struct Errors {
  std::vector<double> large;   // |error| at sizes >= 64 MiB
  std::vector<double> medium;  // |error| at sizes >= compare's from_bytes (1 MiB by default)
};

double worst(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

// The measurements of a log under tests/data.
MeasurementSet read_log(const char* file) {
  MeasurementSet set;
  read_measurement_file(std::string(SCALEWALL_SOURCE_DIR) + "/tests/data/" + file, set);
  return set;
}

// The NCCL release that picks for a log: the one it states, else the one its case names,
// else none (the model's own).
std::optional<NcclRelease> release_of(const LogCase& c, const MeasurementSeries& series) {
  if (!series.nccl_version.empty()) return parse_nccl_release(series.nccl_version);
  if (c.release != nullptr) return parse_nccl_release(c.release);
  return std::nullopt;
}

// Reads the log, predicts every size from `from_bytes` up from the preset scaled to its rank
// count, prints the comparison and returns the errors.
Errors compare(const LogCase& c, double from_bytes = kMediumBytes, Op op = Op::kAllreduce) {
  const MeasurementSet set = read_log(c.file);
  EXPECT_FALSE(set.collectives.empty()) << c.file;
  Errors e;
  for (const CollectivePoint& p : set.collectives) {
    if (p.op != op || p.bytes < from_bytes) continue;
    const Topology t = scaled_topology(load_fabric(c.preset), p.ranks);
    NcclFabric fabric = nccl_fabric(t);
    fabric.gpus_per_thread = set.series[p.series].gpus_per_thread;  // the log's nGpus
    fabric.release = release_of(c, set.series[p.series]);  // the release that ran it picks
    const NcclCost pick = nccl_choice(op, p.bytes, fabric);
    const double measured = p.bytes / p.time_median_s * busbw_factor(op, p.ranks);
    const double error = *pick.busbw_Bps / measured - 1;
    fmt::print("{} {:>12.0f} B  measured {:7.2f} GB/s  predicted {:7.2f} GB/s ({}/{}, {} "
               "channels)  error {:+.1f}%\n",
               c.file, p.bytes, measured / 1e9, *pick.busbw_Bps / 1e9,
               nccl_algorithm_name(pick.algorithm), nccl_protocol_name(pick.protocol),
               pick.channels, 100 * error);
    e.medium.push_back(std::abs(error));
    if (p.bytes >= kLargeBytes) e.large.push_back(std::abs(error));
  }
  if (!e.medium.empty()) {
    fmt::print("{}: from {} MiB median {:.1f}% worst {:.1f}%; from 64 MiB median {:.1f}% worst "
               "{:.1f}%\n",
               c.file, from_bytes / kMediumBytes, 100 * median(e.medium), 100 * worst(e.medium),
               100 * median(e.large), 100 * worst(e.large));
  }
  return e;
}

const LogCase kA100OneNode{"nccl/a100_1node_8gpu_ocitutorials.txt", "dgx-a100"};
// One machine (8 A100-SXM4-80GB) run with one process per GPU and with one driving all eight,
// and two more one-node A100 runs of one process driving eight GPUs (NCCL 2.19.3; a DGX A100).
const LogCase kA100OneNodeProcessPerGpu{"nccl/a100_1node_8gpu_np8_thanos.txt", "dgx-a100"};
const LogCase kA100OneNodeThanos{"nccl/a100_1node_8gpu_g8_thanos.txt", "dgx-a100"};
const LogCase kA100OneNodeDkh{"nccl/a100_1node_8gpu_g8_dkh.txt", "dgx-a100"};
const LogCase kA100OneNodeGalvatron{"nccl/a100_1node_8gpu_g8_galvatron.txt", "dgx-a100"};
const LogCase kA100TwoNodes{"nccl/a100_2node_16gpu_oci-hpc-oke.txt", "dgx-a100"};
const LogCase kH100TwoNodes{"nccl/h100_2node_16gpu_ocitutorials.txt", "dgx-h100"};
const LogCase kH100OneNode{"nccl/h100_1node_8gpu_nccl-tests-issue290.txt", "dgx-h100"};
// Two H100 nodes on 8 x 400 Gb/s InfiniBand (NCCL 2.26.2), 8 B-16 GiB, and a second cluster's
// two nodes on 400 Gb/s InfiniBand, 1 MiB-8 GiB (nccl-tests issue 309).
const LogCase kH100TwoNodesIb{"nccl/h100_2node_16gpu_ib_nccl-tests-issue309_xe9680.txt",
                              "dgx-h100"};
// The second cluster's log does not state its NCCL; the comment that holds it is dated
// 2025-06-18, before NCCL 2.28.3 (tagged 2025-09-02) changed the NVLS tables, so it ran 2.27.3
// (tagged 2025-05-29) or older. Every release from 2.23 to 2.27.7 has the same tables.
const LogCase kH100TwoNodesIbSecond{
    "nccl/h100_2node_16gpu_ib_nccl-tests-issue309_second-cluster.txt", "dgx-h100", "2.27.3"};
// One AWS p5 node (8 H100 on NVSwitch; 8 ranks by busbw / algbw = 2 x 7/8), 8 B-16 GiB.
const LogCase kP5OneNode{"real-logs/nccl_allreduce_tagoutput_noheader_awsbatch_aws-samples_"
                         "awsome-distributed-training.txt",
                         "aws-p5"};
// Two AWS p5 nodes (16 H100, EFA: 32 x 100 Gb/s per node), 8 B-16 GiB.
const LogCase kP5TwoNodes{"nccl/h100_2node_16gpu_aws-p5_efa_awsome-distributed-training.txt",
                          "aws-p5"};
// One DGX H100 (NVIDIA's DGX Cloud benchmarking sample), 8 B-16 GiB.
const LogCase kH100OneNodeDgxc{"nccl/h100_1node_8gpu_dgxc-benchmarking.txt", "dgx-h100"};
// One MI300X node (8 GPUs on Infinity Fabric), rccl-tests, 1 KiB-8 GiB.
const LogCase kMi300xOneNode{"real-logs/rccl_allreduce_mi300x_8rank_hisohara_ai-scripts.txt",
                             "mi300x-node"};

// Runs with one GPU per process (and the one-node H100 log of issue 290, 128 MiB up, where
// the launches are small beside the call).
const LogCase kProcessPerGpuLogs[] = {kA100OneNodeProcessPerGpu, kA100TwoNodes, kH100OneNode,
                                      kH100OneNodeDgxc, kP5OneNode, kH100TwoNodes, kH100TwoNodesIb,
                                      kH100TwoNodesIbSecond, kMi300xOneNode};
// One-node A100 runs of one process driving all 8 GPUs (nGpus 8).
const LogCase kGroupedA100Logs[] = {kA100OneNode, kA100OneNodeThanos, kA100OneNodeDkh,
                                    kA100OneNodeGalvatron};

// Compares every log of `logs`, expects each one's worst error over the sizes `which` picks
// (from 64 MiB, or from 1 MiB) within `bound`, and prints the group's median and worst.
void expect_group_within(std::span<const LogCase> logs, std::vector<double> Errors::*which,
                         double bound, const char* label) {
  std::vector<double> all;
  for (const LogCase& c : logs) {
    const Errors e = compare(c);
    ASSERT_FALSE((e.*which).empty()) << c.file;
    EXPECT_LE(worst(e.*which), bound) << c.file;
    all.insert(all.end(), (e.*which).begin(), (e.*which).end());
  }
  fmt::print("{}: median {:.1f}% worst {:.1f}% over {} sizes\n", label, 100 * median(all),
             100 * worst(all), all.size());
}

TEST(NcclAccuracy, EveryLogWithinTwentyPercentFrom64MiB) {
  expect_group_within(kProcessPerGpuLogs, &Errors::large, kLargeBound,
                      "one GPU per process, from 64 MiB");
  expect_group_within(kGroupedA100Logs, &Errors::large, kLargeBound, "nGpus 8, from 64 MiB");
}

// From 1 MiB up the 35% bound holds on every log of one GPU per process and on the one-node
// A100 runs of one process driving 8 GPUs. Those pay 7 kernel launches of 4 us on every call
// (NcclCost::launch_s); without them the model was up to 115% optimistic at 1 MiB there. At
// 4-16 MiB NCCL runs Ring LL128 on them, whose lines are written into the peer
// (NcclCost::peer_write_s); without the peer writes the model was up to 45% optimistic there
// (23.7% on the run of one process per GPU).
TEST(NcclAccuracy, WithinThirtyFivePercentFrom1MiB) {
  expect_group_within(kProcessPerGpuLogs, &Errors::medium, kMediumBound,
                      "one GPU per process, from 1 MiB");
  expect_group_within(kGroupedA100Logs, &Errors::medium, kMediumBound, "nGpus 8, from 1 MiB");
}

// The release that ran a log picks. Both runs of issue 309 ran NCCL releases before 2.28.9,
// whose tables priced NVLSTree's network hop at 14 us (and before 2.28.3 its bandwidth at the
// graph's 300 GB/s), so NVLSTree was their pick at 1 MiB; 2.30.7's tables pick Tree LL128
// there, at 60 us, where the runs take 72 us (XE9680) and 88 us (the second cluster). Picked
// by 2.30.7 the second cluster's 1 MiB was 46% optimistic; picked by its own release it is
// within 11% (both priced by 2.30.7's tables).
TEST(NcclAccuracy, TheReleaseThatRanALogPicks) {
  for (const LogCase& c : {kH100TwoNodesIb, kH100TwoNodesIbSecond}) {
    const MeasurementSet set = read_log(c.file);
    const Topology t = scaled_topology(load_fabric(c.preset), 16);
    NcclFabric fabric = nccl_fabric(t);
    EXPECT_EQ(nccl_choice(Op::kAllreduce, kMediumBytes, fabric).algorithm, NcclAlgorithm::kTree);
    fabric.release = release_of(c, set.series.at(0));
    EXPECT_EQ(nccl_choice(Op::kAllreduce, kMediumBytes, fabric).algorithm,
              NcclAlgorithm::kNvlsTree)
        << c.file;
  }
  EXPECT_EQ(read_log(kH100TwoNodesIb.file).series.at(0).nccl_version, "2.26.2");
  EXPECT_EQ(read_log(kH100TwoNodesIbSecond.file).series.at(0).nccl_version, "");
  LogCase latest = kH100TwoNodesIbSecond;
  latest.release = kNcclModelVersion;
  const Errors by_latest = compare(latest);
  const Errors by_own = compare(kH100TwoNodesIbSecond);
  ASSERT_EQ(by_own.medium.size(), 14u);  // 1 MiB - 8 GiB
  EXPECT_GT(by_latest.medium.front(), 0.40);
  EXPECT_LT(by_own.medium.front(), 0.15);
}

// The same one-node ring kernels run the reduce-scatter, the all-gather, the broadcast and the
// reduce, which the bounds above were not drawn from: one DGX A100 (8 A100-SXM4-40GB, one
// process driving 8 GPUs, old nccl-tests) in microsoft/superbenchmark's test logs
// (tests/data/real-logs/MANIFEST.md), 1 B-8 GiB each. From 64 MiB every one is within 20% of
// busbw, with the launches and the slice syncs priced; without the slice syncs the all-gather
// was 23% optimistic at 128 MiB.
TEST(NcclAccuracy, OneNodeRingCollectivesBesidesAllReduceWithinTwentyPercentFrom64MiB) {
  const std::pair<const char*, Op> logs[] = {
      {"real-logs/nccl_reducescatter_oldformat_microsoft_superbenchmark.txt",
       Op::kReduceScatter},
      {"real-logs/nccl_allgather_oldformat_microsoft_superbenchmark.txt", Op::kAllgather},
      {"real-logs/nccl_broadcast_oldformat_microsoft_superbenchmark.txt", Op::kBroadcast},
      {"real-logs/nccl_reduce_oldformat_microsoft_superbenchmark.txt", Op::kReduce},
  };
  std::vector<double> all;
  for (const auto& [file, op] : logs) {
    const LogCase c{file, "dgx-a100"};
    const Errors e = compare(c, kLargeBytes, op);
    ASSERT_EQ(e.large.size(), 8u) << c.file;  // 64 MiB - 8 GiB
    EXPECT_LE(worst(e.large), kLargeBound) << c.file;
    all.insert(all.end(), e.large.begin(), e.large.end());
  }
  fmt::print("reduce-scatter, all-gather, broadcast, reduce, nGpus 8, from 64 MiB: median {:.1f}% "
             "worst {:.1f}% over {} sizes\n",
             100 * median(all), 100 * worst(all), all.size());
}

// Two AWS p4d nodes on EFA (NCCL 2.23.4, aws-ofi-nccl 1.13.2), from the aws-p4d preset, which
// carries the 75 us the plugin reports to NCCL for p4d. Up to 8 KiB (Tree LL, 175 us) the time
// is within 10%; from 64 MiB the busbw within 20%. Between 1 and 32 MiB the model is still up to
// 2.8x optimistic there: EFA reaches its bandwidth only with large messages, which nothing here
// prices (docs/models.md).
TEST(NcclAccuracy, EfaPaysThePluginsLatencyOnEveryNetworkHop) {
  const LogCase p4d{"nccl/a100_2node_16gpu_aws-p4d_dlami.txt", "aws-p4d"};
  expect_group_within({&p4d, 1}, &Errors::large, kLargeBound, "aws-p4d, from 64 MiB");
  const MeasurementSet set = read_log(p4d.file);
  const NcclFabric fabric = nccl_fabric(scaled_topology(load_fabric(p4d.preset), 16));
  std::size_t small = 0;
  for (const CollectivePoint& p : set.collectives) {
    if (p.bytes > 8192) continue;
    ++small;
    const double predicted = nccl_choice(Op::kAllreduce, p.bytes, fabric).total_s;
    EXPECT_NEAR(predicted / p.time_median_s, 1.0, 0.10) << p.bytes;
  }
  EXPECT_EQ(small, 11u);
}

// Two AWS p5 nodes on EFA. NCCL sees 8 network devices of 4 x 100 Gb/s (aws-ofi-nccl groups
// the NICs nearest each GPU), and a hop of the RDMA protocol takes the 20 us of the plugin's own
// tuner, not the 75 us it reports to NCCL. Up to 1 KiB (Tree LL) every time is within 15%;
// with the reported 75 us per hop it would be 2.5x the measured one, and with 32 devices of
// 12.5 GB/s the busbw from 1 GiB 26-36% low. From 64 MiB the busbw is within 20%; at 1-32 MiB
// the model is 22-38% optimistic (38% at 16 MiB), as on p4d: EFA reaches its bandwidth only
// with large messages, which nothing here prices (docs/models.md).
TEST(NcclAccuracy, P5HopsTakeWhatThePluginsTunerMeasures) {
  const Errors e = compare(kP5TwoNodes);
  ASSERT_EQ(e.medium.size(), 15u);  // 1 MiB - 16 GiB
  EXPECT_LE(worst(e.large), kLargeBound);
  EXPECT_LE(worst(e.medium), 0.40);
  const MeasurementSet set = read_log(kP5TwoNodes.file);
  const Topology topology = scaled_topology(load_fabric(kP5TwoNodes.preset), 16);
  const NcclFabric fabric = nccl_fabric(topology);
  EXPECT_EQ(fabric.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(fabric.nic_Bps, 50e9);
  NcclFabric reported = fabric;
  reported.net_hop_s.reset();
  std::size_t small = 0;
  for (const CollectivePoint& p : set.collectives) {
    if (p.bytes > 1024) continue;
    ++small;
    const NcclCost pick = nccl_choice(Op::kAllreduce, p.bytes, fabric);
    EXPECT_EQ(pick.algorithm, NcclAlgorithm::kTree) << p.bytes;
    EXPECT_NEAR(pick.total_s / p.time_median_s, 1.0, 0.15) << p.bytes;
    EXPECT_GT(nccl_choice(Op::kAllreduce, p.bytes, reported).total_s / p.time_median_s, 2.3)
        << p.bytes;
  }
  EXPECT_EQ(small, 8u);
  // 32 devices of 12.5 GB/s, as NCCL would see the NICs ungrouped.
  NcclFabric ungrouped = fabric;
  ungrouped.nic_Bps = 12.5e9;
  ungrouped.nics_per_node = 32;
  for (const CollectivePoint& p : set.collectives) {
    if (p.bytes < 1073741824.0) continue;
    const double measured = p.bytes / p.time_median_s * busbw_factor(Op::kAllreduce, 16);
    const double low = *nccl_choice(Op::kAllreduce, p.bytes, ungrouped).busbw_Bps / measured - 1;
    EXPECT_LT(low, -0.2) << p.bytes;
  }
}

// The launches are what separates the two runs of one machine: with one process per GPU the
// log is priced as NCCL's tables price it (with the slice syncs and the peer writes); with one
// process driving 8 GPUs the same model without the launches is more than 15% optimistic at
// 1-32 MiB (median; 20% when measured), and the launches bring it closer.
TEST(NcclAccuracy, OneMachineRunBothWaysDiffersByItsLaunches) {
  const MeasurementSet one = read_log(kA100OneNodeProcessPerGpu.file);
  const MeasurementSet grouped = read_log(kA100OneNodeThanos.file);
  ASSERT_EQ(one.series.size(), 1u);
  ASSERT_EQ(grouped.series.size(), 1u);
  EXPECT_EQ(one.series[0].gpus_per_thread, 1);
  EXPECT_EQ(grouped.series[0].gpus_per_thread, 8);
  const NcclFabric fabric = nccl_fabric(scaled_topology(load_fabric("dgx-a100"), 8));
  NcclFabric grouped_fabric = fabric;
  grouped_fabric.gpus_per_thread = 8;
  std::vector<double> without_launches;
  std::vector<double> error_without;
  std::vector<double> error_with;
  for (const CollectivePoint& p : grouped.collectives) {
    if (p.bytes < kMediumBytes || p.bytes > 32 * kMediumBytes) continue;
    const double predicted = nccl_choice(Op::kAllreduce, p.bytes, fabric).total_s;
    const double with = nccl_choice(Op::kAllreduce, p.bytes, grouped_fabric).total_s;
    without_launches.push_back(1 - predicted / p.time_median_s);
    error_without.push_back(std::abs(predicted / p.time_median_s - 1));
    error_with.push_back(std::abs(with / p.time_median_s - 1));
  }
  ASSERT_EQ(without_launches.size(), 6u);
  EXPECT_GT(median(without_launches), 0.15);
  EXPECT_LT(median(error_with), median(error_without));
}

}  // namespace
}  // namespace scalewall
