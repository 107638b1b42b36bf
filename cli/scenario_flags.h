// cli/scenario_flags.h: reading a scenario file and applying command-line overrides, shared
// by the commands that run the step model (predict, plan).
//
// Layer: cli/. Includes the public library headers only.
#ifndef SCALEWALL_CLI_SCENARIO_FLAGS_H_
#define SCALEWALL_CLI_SCENARIO_FLAGS_H_

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/common.h"
#include "scalewall/io/scenario_file.h"

namespace scalewall::cli {

// The keys of a transformer scenario's [training], [parallel] and [system] as flags.
struct TransformerFlags {
  std::string tp, pp, dp, cp, cp_comm, ep, etp, micro_batch, interleave, sequence_parallel,
      recompute, zero, dp_overlap, gpu, gpus, global_batch, dtype;
};

struct ScenarioFlags {
  std::string path;               // the positional SCENARIO
  std::string scaling;            // strong | weak
  std::string overlap;            // on | off
  std::string bucket;             // size, or 0 for one fused call
  std::string hierarchical;       // on | off
  FabricFlags network;            // --fabric and its overrides (cli/common.h)
  std::string algorithm;          // auto | an all-reduce algorithm
  std::string selector;           // auto | mpi | nccl
  std::string compression_ratio;
  std::string accumulation_steps;
  std::string batch_scale;
  std::string sigma;
  TransformerFlags transformer;   // a transformer scenario's keys ([model] scenarios only)
  // predict's: its --ranks, on a transformer scenario another name for --gpus (ignored on a
  // data-parallel one); and whether --gpus may be a list or a range of counts (its curve):
  // then one count N is the scenario at N GPUs, its fixed split scaled in data parallelism
  // (dp = N / (tp pp), unless --dp is given), and a list or a range leaves system.gpus as it is.
  std::string ranks_alias;
  bool gpus_curve = false;
};

// The positional SCENARIO (required unless `optional`) and the override flags, the network
// ones from fabric_flags (FabricUse::kScenario): --fabric replaces the scenario's network, the
// others change its fabric's figures.
FlagGroup scenario_flags(ScenarioFlags* flags, bool optional = false);

// Loads the scenario (InputError naming the file on any problem) and applies the overrides.
ScenarioFile load_scenario(const ScenarioFlags& flags);

// Which choice priced the scenario's all-reduce calls, for a report field: "nccl" on a GPU
// fabric (unless --selector mpi or a fixed --algorithm), "mpi" otherwise.
std::string selector_used(const ScenarioFile& file);
// The same in words, for a report line: "nccl (NCCL's algorithm and protocol choice)".
std::string selector_used_text(const ScenarioFile& file);

// Every input of the scenario, after overrides, in SI units, for a JSON report's "inputs".
nlohmann::ordered_json scenario_inputs(const ScenarioFile& file);

// The same for a transformer scenario: model, training, parallel (null where searched), system.
nlohmann::ordered_json transformer_inputs(const ScenarioFile& file);

}  // namespace scalewall::cli

#endif  // SCALEWALL_CLI_SCENARIO_FLAGS_H_
