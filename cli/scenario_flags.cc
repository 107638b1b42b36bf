// Scenario loading and overrides for the step-model commands; see cli/scenario_flags.h.
#include "cli/scenario_flags.h"

#include <fmt/format.h>

#include "cli/common.h"
#include "scalewall/io/fabric_file.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/model/collective.h"
#include "scalewall/base/units.h"

namespace scalewall::cli {
namespace {

bool flag_on_off(std::string_view flag, const std::string& text) {
  if (text == "on" || text == "true" || text == "yes") return true;
  if (text == "off" || text == "false" || text == "no") return false;
  throw InputError(fmt::format("{}: '{}' is not on or off", flag, text));
}

// --fabric replaces the scenario's network with a fabric file; the override flags then change
// that fabric, or the one the scenario names. A flat link or a bus bandwidth has no fabric
// figures to change.
void apply_network_flags(const FabricFlags& flags, ScenarioFile& file) {
  Scenario& s = file.scenario;
  if (!flags.fabric.empty()) {
    s.network = Network{};
    s.network.fabric = with_flag("--fabric", [&] { return load_fabric(flags.fabric); });
    file.network_is_fabric_file = true;
  }
  if (!has_fabric_overrides(flags)) {
    if (!flags.fabric.empty()) file.network_description = describe_scenario_fabric(*s.network.fabric);
    return;
  }
  if (!file.network_is_fabric_file) {
    throw InputError(fmt::format(
        "{}: changes a fabric file's figures; the scenario's network is a flat link or a bus "
        "bandwidth (give a fabric with --fabric)",
        first_override(flags)));
  }
  apply_fabric_overrides(flags, *s.network.fabric);
  file.network_description = describe_scenario_fabric(*s.network.fabric);
}

// The levels of the four remedies that a scenario's [remedies] sets and its [what_if] tries,
// under the same keys in both: Settings and WhatIfOptions name them alike.
template <typename Levels>
void add_remedy_levels(nlohmann::ordered_json& j, const Levels& levels) {
  j["compression_ratio"] = levels.compression_ratio;
  j["compression_s_per_byte"] = levels.compression_s_per_byte;
  j["accumulation_steps"] = levels.accumulation_steps;
  j["batch_scale"] = levels.batch_scale;
}

}  // namespace

FlagGroup scenario_flags(ScenarioFlags* flags, bool optional) {
  FlagGroup group = {
      {"scenario", &flags->path,
       "Scenario file (TOML): workload, network, variance, remedies, checkpoint; see "
       "docs/scenarios.md and examples/",
       "SCENARIO", {}, optional ? FlagKind::kOptional : FlagKind::kRequired},
      {"--scaling", &flags->scaling, "Override: strong or weak scaling", "MODE"},
      {"--overlap", &flags->overlap, "Override: overlap the all-reduce with backward (on/off)",
       "on|off"},
      {"--bucket", &flags->bucket, "Override: bucket size (0: one fused call)", "SIZE"},
      {"--hierarchical", &flags->hierarchical, "Override: allow hierarchical all-reduce (on/off)",
       "on|off"},
  };
  const FlagGroup network = fabric_flags(&flags->network, FabricUse::kScenario);
  group.insert(group.end(), network.begin(), network.end());
  group.insert(group.end(), {
      {"--algorithm", &flags->algorithm,
       "Override: all-reduce algorithm (auto: the cheapest per call)", "NAME"},
      {"--selector", &flags->selector,
       "Override: what prices each all-reduce (SELECTOR): nccl (NCCL's algorithm and protocol "
       "choice, for GPU fabrics), mpi (the cheapest MPI algorithm), or auto (nccl on a fabric "
       "whose ranks are GPUs, mpi otherwise; the default)",
       "SELECTOR"},
      {"--compression-ratio", &flags->compression_ratio,
       "Override: gradient compression ratio (>= 1)", "R"},
      {"--accumulation-steps", &flags->accumulation_steps,
       "Override: micro-batches accumulated per all-reduce", "A"},
      {"--batch-scale", &flags->batch_scale, "Override: per-rank batch relative to the scenario's",
       "X"},
      {"--sigma", &flags->sigma, "Override: per-rank compute jitter (0.02 or 2%)", "F"},
  });
  return group;
}

ScenarioFile load_scenario(const ScenarioFlags& flags) {
  ScenarioFile file = load_scenario_file(flags.path);
  Scenario& s = file.scenario;
  if (!flags.scaling.empty()) {
    const std::optional<ScalingMode> mode = parse_scaling_mode(flags.scaling);
    if (!mode) {
      throw InputError(fmt::format("--scaling: '{}' is not strong or weak", flags.scaling));
    }
    s.workload.mode = *mode;
  }
  if (!flags.overlap.empty()) s.settings.overlap = flag_on_off("--overlap", flags.overlap);
  if (!flags.bucket.empty()) {
    s.settings.bucket_bytes = flag_bytes("--bucket", flags.bucket);
    with_flag("--bucket",
              [&] { require_in_range("bucket", s.settings.bucket_bytes, kScenarioBytes); });
  }
  if (!flags.hierarchical.empty()) {
    s.settings.hierarchical = flag_on_off("--hierarchical", flags.hierarchical);
    if (s.settings.hierarchical && !file.network_is_fabric_file) {
      throw InputError(
          "--hierarchical: hierarchical collectives need a fabric file (nodes of several ranks); "
          "the scenario's network is a flat link or a bus bandwidth");
    }
  }
  apply_network_flags(flags.network, file);
  if (!flags.algorithm.empty()) {
    if (flags.algorithm == "auto") {
      s.settings.algorithm.reset();
    } else {
      const AlgorithmSpec a = with_flag("--algorithm", [&] { return parse_algorithm(flags.algorithm); });
      if (!implements(Op::kAllreduce, a)) {
        throw InputError(fmt::format("--algorithm: '{}' is not an all-reduce algorithm",
                                     flags.algorithm));
      }
      s.settings.algorithm = a;
    }
  }
  if (!flags.selector.empty()) {
    s.settings.selector = with_flag("--selector", [&] { return parse_call_selector(flags.selector); });
    if (s.settings.selector == CallSelector::kNccl &&
        !(s.network.fabric && s.network.fabric->rank_kind == RankKind::kGpu)) {
      throw InputError(
          "--selector nccl: NCCL's choice needs a fabric whose ranks are GPUs (a GPU preset, or "
          "a fabric file with ranks = \"gpu\")");
    }
  }
  if (!flags.compression_ratio.empty()) {
    s.settings.compression_ratio = flag_number("--compression-ratio", flags.compression_ratio);
    with_flag("--compression-ratio", [&] {
      require_in_range("compression ratio", s.settings.compression_ratio, kScenarioFactor);
    });
  }
  if (!flags.accumulation_steps.empty()) {
    s.settings.accumulation_steps =
        flag_count("--accumulation-steps", flags.accumulation_steps, 1, 1000000);
  }
  if (!flags.batch_scale.empty()) {
    s.settings.batch_scale = flag_number("--batch-scale", flags.batch_scale);
    with_flag("--batch-scale", [&] {
      require_in_range("batch scale", s.settings.batch_scale, kScenarioBatchScale);
    });
  }
  if (!flags.sigma.empty()) s.variance.sigma = flag_fraction("--sigma", flags.sigma);
  with_flag(flags.path, [&] { require_valid(s); });
  return file;
}

std::string selector_used(const ScenarioFile& file) {
  const Scenario& s = file.scenario;
  return s.network.fabric && prices_with_nccl(s.settings, *s.network.fabric) ? "nccl" : "mpi";
}

std::string selector_used_text(const ScenarioFile& file) {
  return selector_used(file) == "nccl" ? "nccl (NCCL's algorithm and protocol choice)"
                                       : "mpi (the cheapest MPI algorithm per call)";
}

nlohmann::ordered_json scenario_inputs(const ScenarioFile& file) {
  const Scenario& s = file.scenario;
  nlohmann::ordered_json j;
  j["name"] = s.name;
  nlohmann::ordered_json& w = j["workload"];
  w["gradient_bytes"] = s.workload.gradient_bytes;
  w["compute_s"] = s.workload.compute_s;
  w["reference_ranks"] = s.workload.reference_ranks;
  w["serial_s"] = s.workload.serial_s;
  w["scaling"] = std::string(scaling_mode_name(s.workload.mode));
  w["backward_fraction"] = s.workload.backward_fraction;
  nlohmann::ordered_json& n = j["network"];
  if (s.network.fabric) {
    const Topology& t = *s.network.fabric;
    n["fabric"] = t.name;
    add_fabric_figures(t, n);
    n["intra"] = link_inputs(t.intra);
    n["inter"] = link_inputs(t.inter);
  } else {
    n["busbw_Bps"] = s.network.busbw_Bps;
    n["alpha_s"] = s.network.busbw_alpha_s;
  }
  n["algorithm"] = s.settings.algorithm ? algorithm_name(*s.settings.algorithm) : "auto";
  n["selector"] = std::string(call_selector_name(s.settings.selector));
  n["selector_used"] = selector_used(file);
  n["gamma_s_per_byte"] = s.settings.cost.gamma_s_per_byte;
  n["tree_chunk_bytes"] = s.settings.cost.tree_chunk_bytes;
  nlohmann::ordered_json& v = j["variance"];
  v["sigma"] = s.variance.sigma;
  v["bad_node_slowdown"] = s.variance.bad_node_slowdown;
  v["bad_link_bandwidth_Bps"] = s.variance.bad_link_bandwidth_Bps;
  nlohmann::ordered_json& r = j["remedies"];
  r["overlap"] = s.settings.overlap;
  r["bucket_bytes"] = s.settings.bucket_bytes;
  r["hierarchical"] = s.settings.hierarchical;
  add_remedy_levels(r, s.settings);
  nlohmann::ordered_json& c = j["checkpoint"];
  c["bytes"] = s.checkpoint.bytes;
  c["write_bandwidth_Bps"] = s.checkpoint.write_bandwidth_Bps;
  c["shared"] = s.checkpoint.shared;
  c["interval_steps"] = s.checkpoint.interval_steps;
  c["async"] = s.checkpoint.async;
  add_remedy_levels(j["what_if"], file.what_if);
  return j;
}

}  // namespace scalewall::cli
