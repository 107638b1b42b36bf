// scalewall fabrics: the built-in fabric presets (io/fabric_presets.h), or one preset's
// fabric TOML to copy into a file of one's own.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "cli/common.h"
#include "scalewall/base/error.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/model/nccl.h"

namespace scalewall::cli {
namespace {

struct FabricsFlags {
  std::string name;
  std::string format = "table";
};

std::string preset_names() {
  std::string names;
  for (const FabricPreset& p : fabric_presets()) {
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  }
  return names;
}

Report run_fabrics(const FabricsFlags& flags) {
  Report report;
  report.command = "fabrics";
  report.kind = Kind::kModel;
  report.banner = "FABRIC PRESETS: datasheet figures (nominal), not measurements";
  report.title = "Built-in fabrics: one node type and its network each; --ranks N lays N ranks "
                 "out on as many nodes as it takes";
  Table t{"fabrics",
          {{"name", "name", Unit::kText},
           {"ranks_per_node", "ranks/node", Unit::kCount},
           {"nics_per_node", "NICs/node", Unit::kCount},
           {"intra_alpha_s", "intra alpha", Unit::kSeconds},
           {"intra_bandwidth_Bps", "intra bandwidth", Unit::kRate},
           {"inter_alpha_s", "inter alpha", Unit::kSeconds},
           {"inter_bandwidth_Bps", "per NIC", Unit::kRate},
           {"gpu", "GPU", Unit::kText},
           {"nccl_net_latency_s", "NCCL net latency", Unit::kSeconds},
           {"nccl_net_hop_s", "net hop", Unit::kSeconds},
           {"description", "description", Unit::kText}},
          {},
          {}};
  for (const FabricPreset& p : fabric_presets()) {
    if (!flags.name.empty() && p.name != flags.name) continue;
    const Topology topo = preset_topology(p);
    const bool gpu = topo.rank_kind == RankKind::kGpu;
    t.add_row({std::string(p.name), topo.ranks_per_node, topo.nics_per_node, topo.intra.alpha_s,
               topo.intra.bandwidth_Bps, topo.inter.alpha_s, topo.inter.bandwidth_Bps,
               gpu ? Value{std::string(gpu_generation_name(topo.gpu.generation))} : Value{},
               gpu ? Value{topo.gpu.net_latency_s} : Value{},
               topo.gpu.net_hop_s ? Value{*topo.gpu.net_hop_s} : Value{},
               std::string(p.description)});
  }
  report.tables.push_back(std::move(t));
  report.notes.push_back(
      "Bandwidths are per direction, from the vendors' datasheets; the alphas are typical "
      "figures, not datasheet values (calibrate measures them). GPU: the generation of a "
      "preset whose ranks are GPUs (NCCL's choice prices it); NCCL net latency: what its NICs' "
      "NCCL network plugin reports, added to every network hop in NCCL's pick; net hop: what a "
      "hop takes where that differs, which the predicted time charges in its place (empty: "
      "the reported latency; docs/models.md). 'scalewall "
      "fabrics NAME --toml' prints a preset as a fabric file to edit.");
  return report;
}

void run(const FabricsFlags& flags, bool toml) {
  if (!flags.name.empty() && find_fabric_preset(flags.name) == nullptr) {
    throw InputError(fmt::format("no fabric preset '{}' (presets: {})", flags.name,
                                 preset_names()));
  }
  if (toml) {
    if (flags.name.empty()) throw InputError("--toml needs a preset NAME");
    std::cout << find_fabric_preset(flags.name)->toml;
    return;
  }
  emit(run_fabrics(flags), flags.format);
}

}  // namespace

void register_fabrics(CLI::App& app) {
  auto flags = std::make_shared<FabricsFlags>();
  auto toml = std::make_shared<bool>(false);
  const FlagGroup own = {
      {"name", &flags->name, "Show this preset only (" + preset_names() + ")", "NAME"},
      {"--toml", toml.get(), "Print the preset NAME as a fabric file (TOML), to edit"},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "fabrics",
      "The built-in fabric presets from datasheets (DGX, HGX, GB200 NVL72, MI300X, AWS p4d/p5, "
      "generic InfiniBand and RoCE clusters): any --fabric or scenario fabric takes their "
      "names.",
      {own},
      "Examples:\n"
      "  scalewall fabrics\n"
      "  scalewall fabrics dgx-h100 --toml > my-cluster.toml\n"
      "  scalewall collective --fabric dgx-h100 --ranks 64 --bytes 1GB"});
  cmd->callback([flags, toml] { run(*flags, *toml); });
}

}  // namespace scalewall::cli
