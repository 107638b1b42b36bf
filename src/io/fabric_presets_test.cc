// Tests of scalewall/io/fabric_presets.h: every preset parses, carries its datasheet figures,
// and is found by name where a fabric file is taken.
#include "scalewall/io/fabric_presets.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

TEST(FabricPresets, TheNamedPresetsAllParseUnderTheirOwnName) {
  const std::vector<std::string> expected = {
      "dgx-a100", "dgx-h100", "hgx-h200",    "dgx-b200",  "gb200-nvl72", "dgx-b300",
      "gb300-nvl72", "mi300x-node", "aws-p4d", "aws-p5", "ib-hdr", "ib-ndr", "roce-100g",
      "roce-400g"};
  std::vector<std::string> names;
  for (const FabricPreset& p : fabric_presets()) {
    names.emplace_back(p.name);
    const Topology t = preset_topology(p);
    EXPECT_EQ(t.name, p.name);
    EXPECT_TRUE(t.nominal) << p.name;  // datasheet figures, never measured ones
    EXPECT_EQ(t.nodes, 1) << p.name;   // one node type; scaled to the ranks asked for
    EXPECT_FALSE(p.description.empty());
    EXPECT_NE(p.toml.find('#'), std::string_view::npos) << p.name << " names no source";
  }
  EXPECT_EQ(names, expected);
}

// Datasheet figures, per direction: NVLink 4 900 GB/s bidirectional, NDR 400 Gb/s; NVLink 5
// 1.8 TB/s in a 72-GPU domain; MI300X's seven 64 GB/s links; EFA 4 x 100 Gb/s on p4d.
TEST(FabricPresets, DatasheetFiguresPerDirection) {
  // DGX B300 and GB300 NVL72: NVLink 5, 1.8 TB/s per GPU bidirectional; ConnectX-8 at 800 Gb/s
  // per GPU.
  for (const char* name : {"dgx-b300", "gb300-nvl72"}) {
    const Topology t = preset_topology(*find_fabric_preset(name));
    EXPECT_DOUBLE_EQ(t.intra.bandwidth_Bps, 900e9) << name;
    EXPECT_DOUBLE_EQ(t.inter.bandwidth_Bps, 100e9) << name;
    EXPECT_EQ(t.nics_per_node, t.ranks_per_node) << name;
  }
  const Topology h100 = load_fabric("dgx-h100");
  EXPECT_EQ(h100.ranks_per_node, 8);
  EXPECT_EQ(h100.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(h100.intra.bandwidth_Bps, 450e9);
  EXPECT_DOUBLE_EQ(h100.inter.bandwidth_Bps, 50e9);
  const Topology a100 = load_fabric("dgx-a100");
  EXPECT_DOUBLE_EQ(a100.intra.bandwidth_Bps, 300e9);
  EXPECT_DOUBLE_EQ(a100.inter.bandwidth_Bps, 25e9);
  // DGX B200 datasheet: NVLink 5 at 1.8 TB/s per GPU both ways, 8 ConnectX-7 at 400 Gb/s.
  const Topology b200 = load_fabric("dgx-b200");
  EXPECT_EQ(b200.ranks_per_node, 8);
  EXPECT_EQ(b200.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(b200.intra.bandwidth_Bps, 1.8e12 / 2);
  EXPECT_DOUBLE_EQ(b200.inter.bandwidth_Bps, 400e9 / 8);
  EXPECT_EQ(b200.gpu.generation, GpuGeneration::kBlackwell);
  EXPECT_TRUE(b200.gpu.nvls);
  const Topology nvl72 = load_fabric("gb200-nvl72");
  EXPECT_EQ(nvl72.ranks_per_node, 72);
  EXPECT_DOUBLE_EQ(nvl72.intra.bandwidth_Bps, 900e9);
  EXPECT_DOUBLE_EQ(load_fabric("mi300x-node").intra.bandwidth_Bps, 7 * 64e9);
  const Topology p4d = load_fabric("aws-p4d");
  EXPECT_EQ(p4d.nics_per_node, 4);
  EXPECT_DOUBLE_EQ(p4d.inter.bandwidth_Bps * static_cast<double>(p4d.nics_per_node), 400e9 / 8);
  const Topology p5 = load_fabric("aws-p5");
  EXPECT_DOUBLE_EQ(p5.inter.bandwidth_Bps * static_cast<double>(p5.nics_per_node), 3200e9 / 8);
  EXPECT_DOUBLE_EQ(load_fabric("roce-400g").inter.bandwidth_Bps, 50e9);
}

// The GPU presets say their ranks are GPUs (NCCL's selector is their default), with their
// generation and NVLS; the generic clusters stay CPU ranks (MPI).
TEST(FabricPresets, GpuPresetsSayTheirRanksAreGpus) {
  for (const char* name : {"dgx-a100", "dgx-h100", "hgx-h200", "gb200-nvl72", "mi300x-node",
                           "aws-p4d", "aws-p5"}) {
    EXPECT_EQ(load_fabric(name).rank_kind, RankKind::kGpu) << name;
  }
  for (const char* name : {"ib-hdr", "ib-ndr", "roce-100g", "roce-400g"}) {
    EXPECT_EQ(load_fabric(name).rank_kind, RankKind::kCpu) << name;
  }
  EXPECT_EQ(load_fabric("dgx-a100").gpu.generation, GpuGeneration::kAmpere);
  EXPECT_FALSE(load_fabric("dgx-a100").gpu.nvls);  // NVSwitch gen 2
  EXPECT_EQ(load_fabric("dgx-h100").gpu.generation, GpuGeneration::kHopper);
  EXPECT_TRUE(load_fabric("dgx-h100").gpu.nvls);
  EXPECT_EQ(load_fabric("gb200-nvl72").gpu.generation, GpuGeneration::kBlackwell);
  EXPECT_EQ(load_fabric("mi300x-node").gpu.generation, GpuGeneration::kCdna3);
  EXPECT_FALSE(load_fabric("dgx-h100").gpu.collnet);
  // aws-ofi-nccl reports 75 us to NCCL on p4d and p5; NCCL's own IB transport reports none.
  EXPECT_DOUBLE_EQ(load_fabric("aws-p4d").gpu.net_latency_s, 75e-6);
  EXPECT_DOUBLE_EQ(load_fabric("aws-p5").gpu.net_latency_s, 75e-6);
  // p5's hops (the plugin's RDMA protocol) take the 20 us of its tuner; p4d's what it reports.
  EXPECT_EQ(load_fabric("aws-p5").gpu.net_hop_s, std::optional<double>(20e-6));
  EXPECT_FALSE(load_fabric("aws-p4d").gpu.net_hop_s.has_value());
  EXPECT_FALSE(load_fabric("dgx-h100").gpu.net_hop_s.has_value());
  EXPECT_EQ(load_fabric("dgx-a100").gpu.net_latency_s, 0.0);
  EXPECT_NE(find_fabric_preset("dgx-h100")->toml.find("ranks = \"gpu\""), std::string::npos);
}

TEST(FabricPresets, ANodeTypeScalesToTheRanksAsked) {
  const Topology t = scaled_topology(load_fabric("dgx-h100"), 64);
  EXPECT_EQ(t.nodes, 8);
  EXPECT_EQ(t.ranks(), 64);
}

TEST(FabricPresets, NamesArePresetsAndPathsAreFiles) {
  EXPECT_TRUE(names_fabric_preset("dgx-h100"));
  EXPECT_FALSE(names_fabric_preset("./dgx-h100"));
  EXPECT_FALSE(names_fabric_preset("dgx-h100.toml"));
  EXPECT_EQ(find_fabric_preset("dgx-h200"), nullptr);
  // Not a preset: read as a file, and the file's absence is the error.
  try {
    load_fabric("no-such-preset");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-preset"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace scalewall
