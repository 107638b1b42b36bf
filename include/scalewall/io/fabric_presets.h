// scalewall/io/fabric_presets.h: built-in fabrics from datasheets, by name.
//
// A preset describes one node type and its network: the ranks of one node (the GPUs of a DGX,
// the 72 GPUs of one NVLink domain), their link inside the node, and the node's NICs into the
// inter-node fabric. Each is fabric TOML (fabric_file.h) held in the program, every value with
// its source in a comment; nodes = 1, and scaled_topology lays N ranks out on as many nodes
// as it takes. Bandwidths are per direction. Latencies (alpha) are not datasheet values: they
// are typical figures, marked as chosen; calibrate measures them.
//
// A fabric argument (`--fabric NAME`, a scenario's `fabric = "NAME"`) names a preset when it
// is one of the names below and holds no '/'; anything else is a file path.
#ifndef SCALEWALL_FABRIC_PRESETS_H_
#define SCALEWALL_FABRIC_PRESETS_H_

#include <span>
#include <vector>
#include <string>
#include <string_view>

#include "scalewall/model/topology.h"

namespace scalewall {

struct FabricPreset {
  std::string name;         // "dgx-h100"
  std::string description;  // one line: the node and its network
  std::string toml;         // the fabric, as a fabric file holds it, its sources as comments
};

// Every preset, in a fixed order: dgx-a100, dgx-h100, hgx-h200, dgx-b200, gb200-nvl72,
// mi300x-node, aws-p4d, aws-p5, ib-hdr, ib-ndr, roce-100g, roce-400g.
std::span<const FabricPreset> fabric_presets();

// The preset called `name`, or nullptr.
const FabricPreset* find_fabric_preset(std::string_view name);

// The preset's fabric (parsed from its TOML, named "preset NAME" in any message).
Topology preset_topology(const FabricPreset& preset);

// A preset when `name_or_path` names one (and holds no '/'), else the fabric file at that path.
Topology load_fabric(const std::string& name_or_path);

// Whether `name_or_path` names a preset (as load_fabric reads it).
bool names_fabric_preset(std::string_view name_or_path);

}  // namespace scalewall

#endif  // SCALEWALL_FABRIC_PRESETS_H_
