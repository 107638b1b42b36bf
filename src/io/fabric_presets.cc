// Implementation of scalewall/io/fabric_presets.h: the preset table. Every bandwidth is per
// direction, from the vendor's datasheet (bidirectional figures halved); every alpha is a
// typical figure, marked as chosen. Each preset's fabric TOML is written from its row, and the
// fabric is read back from that text by the fabric-file reader, so a preset and the file
// `scalewall fabrics NAME --toml` prints are the same fabric.
#include "scalewall/io/fabric_presets.h"

#include <fmt/format.h>

#include <array>

#include "scalewall/io/fabric_file.h"

namespace scalewall {
namespace {

// One node type: its GPUs (or CPU ranks), their link inside the node, its NICs. GPU rows say
// their generation (`gpu`, which picks NCCL's tables) and whether their NVSwitches do NVLink
// SHARP (`nvls`); CPU rows leave `gpu` empty.
struct PresetRow {
  std::string_view name;
  std::string_view description;
  std::string_view source;  // the datasheet figures, as comment lines
  int ranks_per_node;
  int nics_per_node;
  std::string_view intra_alpha, intra_bandwidth, intra_note;
  std::string_view inter_alpha, inter_bandwidth, inter_note;
  std::string_view gpu = {};
  bool nvls = false;
  std::string_view nccl_net_latency = {};  // the NICs' NCCL plugin's reported latency, if any
  std::string_view nccl_net_latency_note = {};
  std::string_view nccl_net_hop = {};  // a network hop's own time, where it differs
  std::string_view nccl_net_hop_note = {};
};

constexpr std::string_view kNvlinkNote = "chosen: NVLink through NCCL, a few microseconds";
constexpr std::string_view kRdmaNote = "chosen: GPUDirect RDMA, a few microseconds";
constexpr std::string_view kEfaNote =
    "chosen: EFA's SRD transport costs more per message than InfiniBand";
// aws-ofi-nccl (github.com/aws/aws-ofi-nccl), src/platform-aws.cpp, platform_data_map: the
// latency the plugin reports to NCCL, 75.0 us for p4d.24xlarge, p4de.24xlarge and p5/p5e
// (35.0 from p5en; 150 for an unlisted EFA platform).
constexpr std::string_view kEfaPluginLatency = "75us";
constexpr std::string_view kEfaPluginNote = "what aws-ofi-nccl reports to NCCL on p4d, p4de, p5";
// aws-ofi-nccl, src/tuner/nccl_ofi_model.cpp, model_platform_params: its tuner prices one
// network hop of p5/p5e at net_lat = 20.0 us ("2 nodes, 8B RDMA w/imm lat"), where the plugin
// reports 75 us to NCCL. p5 runs the plugin's RDMA protocol (platform table); p4d runs
// SENDRECV, for which the tuner has no figure, so a p4d hop stays at the reported 75 us.
constexpr std::string_view kEfaRdmaHop = "20us";
constexpr std::string_view kEfaRdmaHopNote =
    "a hop's time: aws-ofi-nccl's tuner model, 8 B RDMA write latency on p5";
constexpr std::string_view kGenericSource =
    "\n# non-blocking, one MPI rank per node (--ranks-per-node for more: they then share the\n"
    "# NIC and meet over shared memory).";

// A generic cluster: one rank per node on shared memory inside, one NIC of `rate` outside.
constexpr PresetRow generic(std::string_view name, std::string_view description,
                            std::string_view source, std::string_view alpha,
                            std::string_view rate, std::string_view note) {
  return {name, description, source, 1, 1, "0.5us", "10GB/s",
          "chosen: shared memory, one core's copy", alpha, rate, note};
}

// The GPU figures of a node: how many, their NVLink per direction, the generation, NVLS.
struct GpuNode {
  int gpus;
  std::string_view nvlink;
  std::string_view gpu;
  bool nvls;
};

// A GPU node on NVSwitch with GPUDirect RDMA NICs (DGX, HGX, NVL72).
constexpr PresetRow nvswitch_node(std::string_view name, std::string_view description,
                                  std::string_view source, GpuNode node, int nics,
                                  std::string_view nic_rate) {
  return {name,  description, source,    node.gpus, nics,     "2us",    node.nvlink,
          kNvlinkNote, "3us", nic_rate, kRdmaNote, node.gpu, node.nvls};
}

// A GPU node on NVSwitch whose NICs are AWS's Elastic Fabric Adapter.
// `hop`: a network hop's own time where it is not the plugin's reported latency.
constexpr PresetRow efa_node(std::string_view name, std::string_view description,
                             std::string_view source, GpuNode node, int nics,
                             std::string_view hop = {}, std::string_view hop_note = {}) {
  return {name,        description, source,    node.gpus, nics,     "2us",
          node.nvlink, kNvlinkNote, "15us",    "100Gb/s", kEfaNote, node.gpu,
          node.nvls,   kEfaPluginLatency, kEfaPluginNote, hop, hop_note};
}

constexpr std::array kRows = {
    nvswitch_node("dgx-a100",
                  "NVIDIA DGX A100: 8 A100 SXM4 on NVLink 3 (NVSwitch), 8 HDR 200 Gb/s NICs",
                  "NVIDIA DGX A100 datasheet: 8x A100 SXM4, six NVSwitches, NVLink 3 at 600 GB/s "
                  "per\n# GPU bidirectional; 8x ConnectX-6 HDR 200 Gb/s for compute traffic. "
                  "NVSwitch\n# gen 2 has no NVLink SHARP.",
                  {8, "300GB/s", "ampere", false}, 8, "200Gb/s"),
    nvswitch_node("dgx-h100",
                  "NVIDIA DGX H100: 8 H100 SXM5 on NVLink 4 (NVSwitch), 8 NDR 400 Gb/s NICs",
                  "NVIDIA DGX H100 datasheet: 8x H100 SXM5, four NVSwitches (gen 3, with NVLink\n"
                  "# SHARP), NVLink 4 at 900 GB/s per GPU bidirectional; 8x ConnectX-7 NDR 400 "
                  "Gb/s\n# for compute traffic.",
                  {8, "450GB/s", "hopper", true}, 8, "400Gb/s"),
    nvswitch_node("hgx-h200",
                  "NVIDIA HGX H200 8-GPU: 8 H200 on NVLink 4 (NVSwitch), 8 x 400 Gb/s NICs",
                  "NVIDIA H200 datasheet (HGX H200): 8x H200 SXM, NVLink 4 at 900 GB/s per GPU\n"
                  "# bidirectional through NVSwitch (gen 3, NVLink SHARP); one 400 Gb/s NIC per "
                  "GPU\n# (ConnectX-7 or BlueField-3), as the reference HGX servers ship.",
                  {8, "450GB/s", "hopper", true}, 8, "400Gb/s"),
    nvswitch_node("dgx-b200",
                  "NVIDIA DGX B200: 8 B200 on NVLink 5 (NVSwitch), 8 x 400 Gb/s NICs",
                  "NVIDIA DGX B200 datasheet: 8x B200, two NVLink 5 switch chips (with NVLink "
                  "SHARP),\n# 1.8 TB/s per GPU bidirectional (14.4 TB/s in all); 8x single-port "
                  "ConnectX-7\n# VPI at 400 Gb/s InfiniBand or Ethernet for compute traffic.",
                  {8, "900GB/s", "blackwell", true}, 8, "400Gb/s"),
    nvswitch_node("gb200-nvl72",
                  "NVIDIA GB200 NVL72: 72 GPUs in one NVLink 5 domain, a 400 Gb/s NIC per GPU",
                  "NVIDIA GB200 NVL72 datasheet: 72 Blackwell GPUs in one NVLink domain, NVLink 5 "
                  "at\n# 1.8 TB/s per GPU bidirectional (130 TB/s in all); 18 compute trays of 4 "
                  "GPUs,\n# each with four ConnectX-7 400 Gb/s NICs (one per GPU). One node here "
                  "is the\n# whole NVLink domain.",
                  {72, "900GB/s", "blackwell", true}, 72, "400Gb/s"),
    nvswitch_node("dgx-b300",
                  "NVIDIA DGX B300: 8 B300 on NVLink 5 (NVSwitch), 8 x 800 Gb/s NICs",
                  "NVIDIA DGX B300 datasheet: 8x Blackwell Ultra GPUs, NVLink 5 at 1.8 TB/s per GPU\n"
                  "# bidirectional through NVLink 5 switches (with NVLink SHARP); 8x ConnectX-8\n"
                  "# SuperNIC at 800 Gb/s for compute traffic.",
                  {8, "900GB/s", "blackwell", true}, 8, "800Gb/s"),
    nvswitch_node("gb300-nvl72",
                  "NVIDIA GB300 NVL72: 72 GPUs in one NVLink 5 domain, an 800 Gb/s NIC per GPU",
                  "NVIDIA GB300 NVL72 datasheet: 72 Blackwell Ultra GPUs in one NVLink domain,\n"
                  "# NVLink 5 at 1.8 TB/s per GPU bidirectional (130 TB/s in all); a ConnectX-8\n"
                  "# SuperNIC at 800 Gb/s per GPU. One node here is the whole NVLink domain.",
                  {72, "900GB/s", "blackwell", true}, 72, "800Gb/s"),
    PresetRow{"mi300x-node",
              "AMD Instinct MI300X platform: 8 MI300X on Infinity Fabric, 8 x 400 Gb/s NICs",
              "AMD Instinct MI300X platform datasheet: 8x MI300X fully connected by Infinity\n"
              "# Fabric, seven links per GPU of 128 GB/s bidirectional each (896 GB/s aggregate).\n"
              "# One pair of GPUs shares a single link (64 GB/s each way); the intra bandwidth is\n"
              "# what a collective spread over all seven links (RCCL's several rings) can use.\n"
              "# Scale-out: one 400 Gb/s NIC per GPU. RCCL keeps NCCL's tuning model; it is\n"
              "# priced with NCCL's Hopper tables (gpu = \"cdna3\"), each xGMI link counted at\n"
              "# RCCL's 48 GB/s (src/graph/topo.h, GFX94X_XGMI_WIDTH).",
              8, 8, "3us", "448GB/s", "chosen: RCCL over xGMI", "3.5us", "400Gb/s",
              "chosen: RDMA over a 400G NIC", "cdna3", false},
    efa_node("aws-p4d",
             "AWS p4d.24xlarge: 8 A100 40 GB on NVLink 3 (NVSwitch), 400 Gb/s EFA (4 x 100 Gb/s)",
             "AWS EC2 p4d.24xlarge: 8x A100 40 GB, NVSwitch, NVLink 3 at 600 GB/s per GPU\n"
             "# bidirectional; 400 Gbps of Elastic Fabric Adapter networking, four 100 Gbps\n"
             "# interfaces.",
             {8, "300GB/s", "ampere", false}, 4),
    efa_node("aws-p5",
             "AWS p5.48xlarge: 8 H100 on NVLink 4 (NVSwitch), 3200 Gb/s EFA (32 x 100 Gb/s)",
             "AWS EC2 p5.48xlarge: 8x H100 80 GB, NVSwitch (gen 3, NVLink SHARP), NVLink 4 at\n"
             "# 900 GB/s per GPU bidirectional; 3,200 Gbps of EFA (v2) networking over 32\n"
             "# interfaces of 100 Gbps.",
             {8, "450GB/s", "hopper", true}, 32, kEfaRdmaHop, kEfaRdmaHopNote),
    generic("ib-hdr", "A generic HDR InfiniBand cluster: one rank and one 200 Gb/s NIC per node",
            "A generic cluster on HDR InfiniBand (200 Gb/s per port),", "1.5us", "200Gb/s",
            "chosen: MPI ping-pong over InfiniBand, a microsecond or two"),
    generic("ib-ndr", "A generic NDR InfiniBand cluster: one rank and one 400 Gb/s NIC per node",
            "A generic cluster on NDR InfiniBand (400 Gb/s per port),", "1.5us", "400Gb/s",
            "chosen: MPI ping-pong over InfiniBand, a microsecond or two"),
    generic("roce-100g", "A generic 100 GbE RoCE cluster: one rank and one 100 Gb/s NIC per node",
            "A generic cluster on 100 Gb Ethernet with RoCE v2,", "3us", "100Gb/s",
            "chosen: RoCE through Ethernet switches"),
    generic("roce-400g", "A generic 400 GbE RoCE cluster: one rank and one 400 Gb/s NIC per node",
            "A generic cluster on 400 Gb Ethernet with RoCE v2,", "3us", "400Gb/s",
            "chosen: RoCE through Ethernet switches"),
};

// The GPU keys of a GPU row: its ranks are GPUs, their generation, NVLS.
std::string gpu_keys(const PresetRow& r) {
  if (r.gpu.empty()) return "";
  std::string keys = fmt::format("ranks = \"gpu\"\ngpu = \"{}\"\nnvls = {}\n", r.gpu, r.nvls);
  if (!r.nccl_net_latency.empty()) {
    keys += fmt::format("nccl_net_latency = \"{}\"  # {}\n", r.nccl_net_latency,
                        r.nccl_net_latency_note);
  }
  if (!r.nccl_net_hop.empty()) {
    keys += fmt::format("nccl_net_hop = \"{}\"  # {}\n", r.nccl_net_hop, r.nccl_net_hop_note);
  }
  return keys;
}

std::string toml_of(const PresetRow& r) {
  const bool generic_row = r.ranks_per_node == 1;
  return fmt::format(
      "# {}{}\n# Bandwidths per direction.\nname = \"{}\"\nnominal = true\nnodes = 1\n"
      "ranks_per_node = {}\nnics_per_node = {}\n{}"
      "[intra]\nalpha = \"{}\"  # {}\nbandwidth = \"{}\"\n"
      "[inter]\nalpha = \"{}\"  # {}\nbandwidth = \"{}\"\n",
      r.source, generic_row ? kGenericSource : "", r.name, r.ranks_per_node, r.nics_per_node,
      gpu_keys(r), r.intra_alpha, r.intra_note, r.intra_bandwidth, r.inter_alpha, r.inter_note,
      r.inter_bandwidth);
}

// The presets, built once from the rows.
const std::vector<FabricPreset>& presets() {
  static const std::vector<FabricPreset> all = [] {
    std::vector<FabricPreset> out;
    for (const PresetRow& r : kRows) {
      out.push_back({std::string(r.name), std::string(r.description), toml_of(r)});
    }
    return out;
  }();
  return all;
}

}  // namespace

std::span<const FabricPreset> fabric_presets() { return presets(); }

const FabricPreset* find_fabric_preset(std::string_view name) {
  for (const FabricPreset& p : presets()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

Topology preset_topology(const FabricPreset& preset) {
  return parse_fabric(preset.toml, "preset " + preset.name);
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
