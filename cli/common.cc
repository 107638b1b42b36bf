// Shared pieces of the scalewall subcommands; see cli/common.h.
#include "cli/common.h"

#include <unistd.h>

#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "scalewall/analysis/calibrate.h"
#include "scalewall/io/fabric_file.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/model/nccl.h"
#include "scalewall/model/scaling.h"
#include "scalewall/base/units.h"
#include "scalewall/base/utf8.h"

namespace scalewall::cli {

FlagSpec regimes_flag(std::string* regimes) {
  return {"--regimes", regimes,
          "Size regimes of the link fitted to ping-pong times: auto (segmented least squares, "
          "the count chosen by the Bayesian information criterion: eager and rendezvous "
          "protocols, cache levels) or a count 1 .. 10 (1: one Hockney line)",
          "auto|N", "auto"};
}

std::vector<std::string> pool_or_warn(MeasurementSet& set, bool pool,
                                      std::vector<std::string>& warnings) {
  if (pool) return pool_series(set);
  for (const std::string& w : series_overlaps(set)) warnings.push_back(w);
  return {};
}

std::optional<std::size_t> flag_regimes(const std::string& text) {
  if (text == "auto") return std::nullopt;
  return static_cast<std::size_t>(
      flag_count("--regimes", text, 1, static_cast<std::int64_t>(kMaxLinkRegimes)));
}

FlagSpec format_flag(std::string* format) {
  return {"--format", format, "Output format: table (for people), csv, json", "table|csv|json",
          "table"};
}

FlagGroup fabric_flags(FabricFlags* flags, FabricUse use, std::string_view fabric_help) {
  std::string help =
      "Fabric file (TOML): nodes, ranks per node, intra- and inter-node links, NICs, "
      "oversubscription, placement; see examples/fabrics/";
  if (use == FabricUse::kScenario) help += "; replaces the scenario's [network]";
  if (!fabric_help.empty()) help += fmt::format("; {}", fabric_help);
  const bool flat = use == FabricUse::kFlatOrFabric;
  FlagGroup group = {
      {"--fabric", &flags->fabric, help, "FILE"},
      {"--alpha,-a", &flags->alpha,
       flat ? "Latency alpha of the flat link (default 2.5us), or of the fabric's inter-node "
              "link"
            : "Override the fabric's inter-node latency alpha",
       "T"},
      {"--bandwidth,-b", &flags->bandwidth,
       flat ? "Bandwidth of the flat link (default 25GB/s), or of the fabric's inter-node link"
            : "Override the fabric's inter-node bandwidth",
       "R"},
      {"--nodes", &flags->nodes, "Override the fabric's node count", "N"},
      {"--ranks-per-node", &flags->ranks_per_node, "Override the fabric's ranks per node", "G"},
      {"--nics-per-node", &flags->nics_per_node, "Override the fabric's NICs per node", "K"},
      {"--oversubscription", &flags->oversubscription,
       "Override the fabric's oversubscription ratio (2 or 2:1)", "R"},
      {"--placement", &flags->placement,
       "Override the fabric's placement: packed or scattered", "P"},
      {"--nccl-version", &flags->nccl_version,
       "GPU fabrics: the NCCL release whose tuning tables pick the algorithm and protocol "
       "(2.19.0 to 2.30.7, such as 2.26.2; default the fabric's nccl_version, else 2.30.7). "
       "Releases differ in what they pick near a crossover; the pick's time is priced by "
       "2.30.7's tables either way",
       "X.Y.Z"},
  };
  // A scenario's fabric is scaled to each rank count, and validate's keeps the files' ranks.
  if (!flat) std::erase_if(group, [](const FlagSpec& f) { return f.names == "--nodes"; });
  return group;
}

bool has_fabric_overrides(const FabricFlags& flags) {
  return !flags.alpha.empty() || !flags.bandwidth.empty() || !flags.nodes.empty() ||
         !flags.ranks_per_node.empty() || !flags.nics_per_node.empty() ||
         !flags.oversubscription.empty() || !flags.placement.empty() ||
         !flags.nccl_version.empty();
}

void apply_fabric_overrides(const FabricFlags& flags, Topology& t) {
  if (!flags.alpha.empty() || !flags.bandwidth.empty()) {
    // A figure given by hand is one line for every size: the link's further regimes go.
    t.inter.above_count = 0;
    if (!flags.alpha.empty()) {
      t.inter.alpha_s = flag_link_latency("--alpha", flags.alpha);
      t.inter.overhead_s = 0.0;  // an alpha given by hand is a plain alpha-beta link
      t.inter.gap_s = 0.0;
    }
    if (!flags.bandwidth.empty()) {
      t.inter.bandwidth_Bps = flag_link_rate("--bandwidth", flags.bandwidth);
    }
    with_flag(flags.alpha.empty() ? "--bandwidth" : "--alpha", [&] { require_valid(t.inter); });
  }
  if (!flags.nodes.empty()) t.nodes = flag_count("--nodes", flags.nodes, 1, kMaxRanks);
  if (!flags.ranks_per_node.empty()) {
    t.ranks_per_node = flag_count("--ranks-per-node", flags.ranks_per_node, 1, kMaxRanks);
  }
  if (!flags.nics_per_node.empty()) {
    t.nics_per_node = flag_count("--nics-per-node", flags.nics_per_node, 1, 1 << 20);
  }
  if (!flags.oversubscription.empty()) {
    t.oversubscription =
        with_flag("--oversubscription", [&] { return parse_ratio(flags.oversubscription); });
  }
  if (!flags.placement.empty()) {
    t.placement = with_flag("--placement", [&] { return parse_placement(flags.placement); });
    t.rank_to_node.clear();
  }
  if (!flags.nccl_version.empty()) {
    if (t.rank_kind != RankKind::kGpu) {
      throw InputError(fmt::format(
          "--nccl-version {}: fabric '{}' does not say its ranks are GPUs (ranks = \"gpu\"), "
          "and NCCL prices GPU ranks only",
          flags.nccl_version, t.name));
    }
    t.gpu.nccl_release =
        with_flag("--nccl-version", [&] { return parse_nccl_release(flags.nccl_version); });
  }
  if ((!flags.nodes.empty() || !flags.ranks_per_node.empty()) &&
      t.placement == Placement::kExplicit) {
    throw InputError(
        "--nodes/--ranks-per-node: the fabric places ranks by an explicit rank_to_node list; "
        "add --placement packed or scattered to resize it");
  }
  with_flag("--fabric", [&] { require_valid(t); });
}

std::optional<Topology> resolve_fabric_file(const FabricFlags& flags) {
  if (flags.fabric.empty()) {
    if (has_fabric_overrides(flags)) {
      throw InputError(fmt::format(
          "{} changes a fabric file's figures; give the fabric with --fabric",
          first_override(flags)));
    }
    return std::nullopt;
  }
  Topology t = with_flag("--fabric", [&] { return load_fabric(flags.fabric); });
  apply_fabric_overrides(flags, t);
  return t;
}

std::string first_override(const FabricFlags& flags) {
  for (const auto& [flag, value] :
       {std::pair{"--alpha", &flags.alpha}, std::pair{"--bandwidth", &flags.bandwidth},
        std::pair{"--nodes", &flags.nodes}, std::pair{"--ranks-per-node", &flags.ranks_per_node},
        std::pair{"--nics-per-node", &flags.nics_per_node},
        std::pair{"--oversubscription", &flags.oversubscription},
        std::pair{"--placement", &flags.placement},
        std::pair{"--nccl-version", &flags.nccl_version}}) {
    if (!value->empty()) return flag;
  }
  return {};
}

Topology resolve_topology(const FabricFlags& flags, std::optional<std::int64_t> ranks) {
  if (flags.fabric.empty()) {
    for (const auto& [flag, value] :
         {std::pair{"--nodes", &flags.nodes}, std::pair{"--ranks-per-node", &flags.ranks_per_node},
          std::pair{"--nics-per-node", &flags.nics_per_node},
          std::pair{"--oversubscription", &flags.oversubscription},
          std::pair{"--placement", &flags.placement},
          std::pair{"--nccl-version", &flags.nccl_version}}) {
      if (!value->empty()) {
        throw InputError(fmt::format(
            "{} describes a fabric; give a fabric file with --fabric (a flat link needs only "
            "--alpha and --bandwidth)",
            flag));
      }
    }
    if (!ranks) throw InputError("--ranks is required without --fabric");
    Link link = kDefaultLink;
    if (!flags.alpha.empty()) link.alpha_s = flag_link_latency("--alpha", flags.alpha);
    if (!flags.bandwidth.empty()) link.bandwidth_Bps = flag_link_rate("--bandwidth", flags.bandwidth);
    with_flag(flags.alpha.empty() ? "--bandwidth" : "--alpha", [&] { require_valid(link); });
    return with_flag("--ranks", [&] { return flat_topology(*ranks, link); });
  }
  Topology t = with_flag("--fabric", [&] { return load_fabric(flags.fabric); });
  apply_fabric_overrides(flags, t);
  if (ranks) t = with_flag("--ranks", [&] { return scaled_topology(t, *ranks); });
  return t;
}

std::string fabric_blame(const FabricFlags& flags) {
  return flags.fabric.empty() ? std::string() : fmt::format("fabric '{}'", flags.fabric);
}

nlohmann::ordered_json link_inputs(const Link& link) {
  nlohmann::ordered_json j;
  j["alpha_s"] = link.alpha_s;
  j["bandwidth_Bps"] = link.bandwidth_Bps;
  if (link.overhead_s > 0 || link.gap_s > 0) {
    j["overhead_s"] = link.overhead_s;
    j["gap_s"] = link.gap_s;
  }
  return j;
}

void add_fabric_figures(const Topology& t, nlohmann::ordered_json& j) {
  j["nominal"] = t.nominal;
  j["nodes"] = t.nodes;
  j["ranks_per_node"] = t.ranks_per_node;
  j["nics_per_node"] = t.nics_per_node;
  j["oversubscription"] = t.oversubscription;
  j["placement"] = std::string(placement_name(t.placement));
  if (t.gpu.nccl_release) j["nccl_version"] = nccl_release_name(*t.gpu.nccl_release);
  if (t.working_set_ranks > 0) j["working_set_ranks"] = t.working_set_ranks;
}

nlohmann::ordered_json topology_inputs(const Topology& t) {
  nlohmann::ordered_json j;
  if (t.kind == TopologyKind::kFlatLink) {
    j = link_inputs(t.inter);
    j["ranks"] = t.ranks();
    return j;
  }
  j["name"] = t.name;
  add_fabric_figures(t, j);
  if (t.placement == Placement::kExplicit) j["rank_to_node"] = t.rank_to_node;
  j["intra"] = link_inputs(t.intra);
  j["inter"] = link_inputs(t.inter);
  return j;
}

std::string describe_topology(const Topology& t) {
  const auto link = [](const Link& l) {
    std::string text = fmt::format("alpha {}, {}", format_seconds(l.alpha_s),
                                   format_rate(l.bandwidth_Bps));
    if (l.gap_s > 0 || l.overhead_s > 0) {
      text += fmt::format(", o {}, g {}", format_seconds(l.overhead_s), format_seconds(l.gap_s));
    }
    // The further regimes, each from its size: "; from 64 KiB 5 us, 48 GB/s".
    for (std::size_t i = 1; i < l.regime_count(); ++i) {
      const LinkRegime r = l.regime(i);
      text += fmt::format("; from {} {}, {}", format_bytes(r.from_bytes), format_seconds(r.alpha_s),
                          format_rate(r.bandwidth_Bps));
    }
    if (l.has_exchange()) {
      text += fmt::format(" (steps that send and receive: {} measured exchange regime{})",
                          l.exchange_count, l.exchange_count == 1 ? "" : "s");
    }
    return text;
  };
  if (t.kind == TopologyKind::kFlatLink) return fmt::format("flat link: {}", link(t.inter));
  return fmt::format(
      "fabric {}{}: {} node{} x {} rank{}, {} {} per node{}, {} placement; intra-node {}; "
      "inter-node {}",
      t.name, t.nominal ? " (nominal figures)" : "", t.nodes, t.nodes == 1 ? "" : "s",
      t.ranks_per_node, t.ranks_per_node == 1 ? "" : "s", t.nics_per_node,
      t.nics_per_node == 1 ? "NIC" : "NICs",
      t.oversubscription > 1 ? fmt::format(", {:g}:1 oversubscribed", t.oversubscription) : "",
      placement_name(t.placement), link(t.intra), link(t.inter));
}

Progress::Progress(std::string command)
    : command_(std::move(command)), enabled_(::isatty(STDERR_FILENO) == 1) {}

void Progress::say(const std::string& what) const {
  if (enabled_) std::cerr << command_ << ": " << visible(what) << "\n" << std::flush;
}

void warn(std::string_view text) { std::cerr << "warning: " << visible(text) << "\n"; }

void emit(const Report& report, const std::string& format) {
  const Format f = with_flag("--format", [&] { return parse_format(format); });
  std::ostringstream text;
  write_report(report, f, text);
  std::cout << text.str() << std::flush;
}

void use_local_costs(CostOptions& options, const Topology& fabric, const std::string& gamma_flag) {
  use_fabric_local_costs(options, fabric);
  if (gamma_flag.empty()) return;
  options.gamma_s_per_byte = flag_within("--gamma", "reduction cost", gamma_flag,
                                         flag_seconds("--gamma", gamma_flag),
                                         kScenarioSecondsPerByte);
  options.gamma_above = {};  // one rate for every size
}

}  // namespace scalewall::cli
