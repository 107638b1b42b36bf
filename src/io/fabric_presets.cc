// Implementation of scalewall/io/fabric_presets.h: the preset table. Every bandwidth is per
// direction, from the vendor's datasheet (bidirectional figures halved); every alpha is a
// typical figure, marked as chosen.
#include "scalewall/io/fabric_presets.h"

#include <array>

#include "scalewall/io/fabric_file.h"

namespace scalewall {
namespace {

constexpr std::array kPresets = {
    FabricPreset{"dgx-a100",
                 "NVIDIA DGX A100: 8 A100 SXM4 on NVLink 3 (NVSwitch), 8 HDR 200 Gb/s NICs",
                 R"(# NVIDIA DGX A100 datasheet: 8x A100 SXM4, six NVSwitches, NVLink 3 at 600 GB/s
# per GPU (bidirectional: 300 GB/s each way); 8x ConnectX-6 HDR 200 Gb/s for compute traffic.
name = "dgx-a100"
nominal = true
nodes = 1
ranks_per_node = 8
nics_per_node = 8
[intra]
alpha = "2us"          # chosen: NVLink through NCCL, a few microseconds
bandwidth = "300GB/s"  # 600 GB/s bidirectional per GPU
[inter]
alpha = "3us"          # chosen: GPUDirect RDMA over InfiniBand
bandwidth = "200Gb/s"  # one HDR NIC per GPU
)"},
    FabricPreset{"dgx-h100",
                 "NVIDIA DGX H100: 8 H100 SXM5 on NVLink 4 (NVSwitch), 8 NDR 400 Gb/s NICs",
                 R"(# NVIDIA DGX H100 datasheet: 8x H100 SXM5, four NVSwitches, NVLink 4 at 900 GB/s
# per GPU (bidirectional: 450 GB/s each way); 8x ConnectX-7 NDR 400 Gb/s for compute traffic.
name = "dgx-h100"
nominal = true
nodes = 1
ranks_per_node = 8
nics_per_node = 8
[intra]
alpha = "2us"          # chosen: NVLink through NCCL, a few microseconds
bandwidth = "450GB/s"  # 900 GB/s bidirectional per GPU
[inter]
alpha = "3us"          # chosen: GPUDirect RDMA over InfiniBand
bandwidth = "400Gb/s"  # one NDR NIC per GPU
)"},
    FabricPreset{"hgx-h200",
                 "NVIDIA HGX H200 8-GPU: 8 H200 on NVLink 4 (NVSwitch), 8 x 400 Gb/s NICs",
                 R"(# NVIDIA H200 datasheet (HGX H200): 8x H200 SXM, NVLink 4 at 900 GB/s per GPU
# (450 GB/s each way) through NVSwitch; one 400 Gb/s NIC per GPU (ConnectX-7 NDR or
# BlueField-3), as the reference HGX servers ship.
name = "hgx-h200"
nominal = true
nodes = 1
ranks_per_node = 8
nics_per_node = 8
[intra]
alpha = "2us"          # chosen
bandwidth = "450GB/s"  # 900 GB/s bidirectional per GPU
[inter]
alpha = "3us"          # chosen
bandwidth = "400Gb/s"
)"},
    FabricPreset{"gb200-nvl72",
                 "NVIDIA GB200 NVL72: 72 Blackwell GPUs in one NVLink 5 domain, one 400 Gb/s NIC per GPU",
                 R"(# NVIDIA GB200 NVL72 datasheet: 72 Blackwell GPUs in one NVLink domain, NVLink 5 at
# 1.8 TB/s per GPU (900 GB/s each way), 130 TB/s in all; 18 compute trays of 4 GPUs, each
# tray with four ConnectX-7 400 Gb/s NICs for the scale-out fabric (one per GPU). One "node"
# here is the whole NVLink domain.
name = "gb200-nvl72"
nominal = true
nodes = 1
ranks_per_node = 72
nics_per_node = 72
[intra]
alpha = "2us"          # chosen
bandwidth = "900GB/s"  # 1.8 TB/s bidirectional per GPU
[inter]
alpha = "3us"          # chosen
bandwidth = "400Gb/s"
)"},
    FabricPreset{"mi300x-node",
                 "AMD Instinct MI300X platform: 8 MI300X on Infinity Fabric, 8 x 400 Gb/s NICs",
                 R"(# AMD Instinct MI300X platform datasheet: 8x MI300X fully connected by Infinity Fabric,
# seven links per GPU of 128 GB/s bidirectional each, 896 GB/s aggregate per GPU (448 GB/s
# each way). One pair of GPUs shares a single link (64 GB/s each way); the figure below is
# what a collective that spreads over all seven links (RCCL's several rings) can use.
# Scale-out: one 400 Gb/s NIC per GPU.
name = "mi300x-node"
nominal = true
nodes = 1
ranks_per_node = 8
nics_per_node = 8
[intra]
alpha = "3us"          # chosen: RCCL over xGMI
bandwidth = "448GB/s"  # 7 links x 64 GB/s each way
[inter]
alpha = "3.5us"        # chosen: RDMA over a 400G NIC
bandwidth = "400Gb/s"
)"},
    FabricPreset{"aws-p4d",
                 "AWS p4d.24xlarge: 8 A100 40 GB on NVLink 3 (NVSwitch), 400 Gb/s EFA (4 x 100 Gb/s)",
                 R"(# AWS EC2 p4d.24xlarge: 8x A100 40 GB, NVSwitch, NVLink 3 at 600 GB/s per GPU
# (300 GB/s each way); 400 Gbps of Elastic Fabric Adapter networking, four 100 Gbps
# interfaces.
name = "aws-p4d"
nominal = true
nodes = 1
ranks_per_node = 8
nics_per_node = 4
[intra]
alpha = "2us"          # chosen
bandwidth = "300GB/s"
[inter]
alpha = "15us"         # chosen: EFA's SRD transport costs more per message than InfiniBand
bandwidth = "100Gb/s"
)"},
    FabricPreset{"aws-p5",
                 "AWS p5.48xlarge: 8 H100 on NVLink 4 (NVSwitch), 3200 Gb/s EFA (32 x 100 Gb/s)",
                 R"(# AWS EC2 p5.48xlarge: 8x H100 80 GB, NVSwitch, NVLink 4 at 900 GB/s per GPU (450 GB/s
# each way); 3,200 Gbps of EFA (v2) networking over 32 network interfaces of 100 Gbps.
name = "aws-p5"
nominal = true
nodes = 1
ranks_per_node = 8
nics_per_node = 32
[intra]
alpha = "2us"          # chosen
bandwidth = "450GB/s"
[inter]
alpha = "15us"         # chosen: EFA's SRD transport
bandwidth = "100Gb/s"
)"},
    FabricPreset{"ib-hdr",
                 "A generic HDR InfiniBand cluster: one rank and one 200 Gb/s NIC per node",
                 R"(# A generic cluster on HDR InfiniBand (200 Gb/s per port, InfiniBand Trade Association
# roadmap), non-blocking, one MPI rank per node (use --ranks-per-node for more; they then share
# the NIC and meet over shared memory).
name = "ib-hdr"
nominal = true
nodes = 1
ranks_per_node = 1
nics_per_node = 1
[intra]
alpha = "0.5us"        # chosen: shared memory
bandwidth = "10GB/s"   # chosen: one core's memory copy
[inter]
alpha = "1.5us"        # chosen: MPI ping-pong over InfiniBand, about a microsecond or two
bandwidth = "200Gb/s"
)"},
    FabricPreset{"ib-ndr",
                 "A generic NDR InfiniBand cluster: one rank and one 400 Gb/s NIC per node",
                 R"(# A generic cluster on NDR InfiniBand (400 Gb/s per port), non-blocking, one MPI rank
# per node (use --ranks-per-node for more).
name = "ib-ndr"
nominal = true
nodes = 1
ranks_per_node = 1
nics_per_node = 1
[intra]
alpha = "0.5us"        # chosen: shared memory
bandwidth = "10GB/s"   # chosen: one core's memory copy
[inter]
alpha = "1.5us"        # chosen
bandwidth = "400Gb/s"
)"},
    FabricPreset{"roce-100g",
                 "A generic 100 GbE RoCE cluster: one rank and one 100 Gb/s NIC per node",
                 R"(# A generic cluster on 100 Gb Ethernet with RDMA over Converged Ethernet (RoCE v2),
# non-blocking, one MPI rank per node (use --ranks-per-node for more).
name = "roce-100g"
nominal = true
nodes = 1
ranks_per_node = 1
nics_per_node = 1
[intra]
alpha = "0.5us"        # chosen: shared memory
bandwidth = "10GB/s"   # chosen: one core's memory copy
[inter]
alpha = "3us"          # chosen: RoCE through Ethernet switches
bandwidth = "100Gb/s"
)"},
    FabricPreset{"roce-400g",
                 "A generic 400 GbE RoCE cluster: one rank and one 400 Gb/s NIC per node",
                 R"(# A generic cluster on 400 Gb Ethernet with RoCE v2, non-blocking, one MPI rank per node
# (use --ranks-per-node for more).
name = "roce-400g"
nominal = true
nodes = 1
ranks_per_node = 1
nics_per_node = 1
[intra]
alpha = "0.5us"        # chosen: shared memory
bandwidth = "10GB/s"   # chosen: one core's memory copy
[inter]
alpha = "3us"          # chosen
bandwidth = "400Gb/s"
)"},
};

}  // namespace

std::span<const FabricPreset> fabric_presets() { return kPresets; }

const FabricPreset* find_fabric_preset(std::string_view name) {
  for (const FabricPreset& p : kPresets) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

Topology preset_topology(const FabricPreset& preset) {
  return parse_fabric(preset.toml, "preset " + std::string(preset.name));
}

bool names_fabric_preset(std::string_view name_or_path) {
  return name_or_path.find('/') == std::string_view::npos &&
         find_fabric_preset(name_or_path) != nullptr;
}

Topology load_fabric(const std::string& name_or_path) {
  if (names_fabric_preset(name_or_path)) {
    return preset_topology(*find_fabric_preset(name_or_path));
  }
  return load_fabric_file(name_or_path);
}

}  // namespace scalewall
