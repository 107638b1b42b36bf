// cli/common.h: what every scalewall subcommand shares: the --format option, the network
// flags, and the one place that writes a finished Report to stdout. Flags are registered as
// tables (cli/flag_table.h) and their values read by cli/flags.h, both shared with
// scalewall-mpi and included here.
//
// Layer: cli/. May include the public library headers and CLI11; nothing includes this file
// but other cli/ files.
#ifndef SCALEWALL_CLI_COMMON_H_
#define SCALEWALL_CLI_COMMON_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/flag_table.h"
#include "cli/flags.h"
#include "scalewall/io/measurement.h"
#include "scalewall/platform/gnuplot.h"
#include "scalewall/platform/output_file.h"
#include "scalewall/present/report.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/topology.h"

namespace scalewall::cli {

// --format table|csv|json (default table), stored in *format: every command's last flag.
FlagSpec format_flag(std::string* format);

// --regimes auto|N: the size regimes of a link fitted to ping-pong times (calibrate.h's
// fit_piecewise). Default "auto".
FlagSpec regimes_flag(std::string* regimes);
// Its value: empty for "auto" (the criterion chooses), else a count 1 .. kMaxLinkRegimes.
std::optional<std::size_t> flag_regimes(const std::string& text);

// --pool: the series of `set` pooled (the pooled series' descriptions); without it, nothing
// pooled and a warning for each op and rank count that several series share, added to
// `warnings`.
std::vector<std::string> pool_or_warn(MeasurementSet& set, bool pool,
                                      std::vector<std::string>& warnings);

// The network a command runs on: a flat link (--alpha, --bandwidth; defaults 2.5 us and
// 25 GB/s), or a fabric file (--fabric) whose fields the other flags override.
struct FabricFlags {
  std::string fabric;            // --fabric FILE
  std::string alpha;             // --alpha: the flat link's, or the fabric's inter-node alpha
  std::string bandwidth;         // --bandwidth: likewise
  std::string nodes;             // fabric overrides
  std::string ranks_per_node;
  std::string nics_per_node;
  std::string oversubscription;
  std::string placement;
  std::string nccl_version;      // --nccl-version: the NCCL release that picks (GPU fabrics)
};

// How a command uses its network, which decides what --alpha and --bandwidth mean without a
// fabric file and whether --nodes applies.
enum class FabricUse {
  kFlatOrFabric,  // a flat link (--alpha, --bandwidth) or a fabric file: collective, select
  kScenario,      // a scenario's network, which --fabric replaces; the fabric is scaled to
                  // each rank count, so no --nodes: predict, plan
  kFabricOnly,    // a fabric file or none (the command's own default): validate
};

// The one set of network flags every command that uses a fabric spells the same way:
// --fabric FILE, --alpha/-a T, --bandwidth/-b R, --nodes N (kFlatOrFabric only),
// --ranks-per-node G, --nics-per-node K, --oversubscription R, --placement P. `fabric_help`,
// when given, is added to --fabric's help (what the command does without one).
FlagGroup fabric_flags(FabricFlags* flags, FabricUse use = FabricUse::kFlatOrFabric,
                       std::string_view fabric_help = {});

// Whether any flag that changes a fabric's figures is given (all but --fabric itself), and
// the first of them ("--nics-per-node"), for messages.
bool has_fabric_overrides(const FabricFlags& flags);
std::string first_override(const FabricFlags& flags);

// Applies the override flags to `t` (--alpha and --bandwidth to its inter-node link), then
// checks it. Throws InputError naming the flag.
void apply_fabric_overrides(const FabricFlags& flags, Topology& t);

// The fabric file with the override flags applied, or none without --fabric (an override
// flag without --fabric is then an InputError).
std::optional<Topology> resolve_fabric_file(const FabricFlags& flags);

// The topology for `ranks` ranks. Without --fabric: flat_topology(ranks, link) (fabric
// override flags are then an error). With --fabric: the file, overridden by the flags, then
// scaled to `ranks` (when given) by scaled_topology. REQUIRES: ranks given when there is no
// --fabric (throws InputError naming --ranks otherwise).
Topology resolve_topology(const FabricFlags& flags, std::optional<std::int64_t> ranks);

// What a costing error is reported under when no flag the user gave is at fault: the
// fabric as --fabric named it ("fabric 'x.toml'"), or "" without --fabric.
std::string fabric_blame(const FabricFlags& flags);

// body(); an InputError from it is rethrown as "<blame>: <message>", or as it is when
// `blame` is empty. Costing errors name a flag only when the user gave it
// (given(option)), else the input at fault (fabric_blame, the scenario file).
template <typename F>
auto with_blame(const std::string& blame, F&& body) -> decltype(body()) {
  if (blame.empty()) return body();
  return with_flag(blame, std::forward<F>(body));
}

// body(); an InputError, OutputError or PlotError from it is rethrown as the same kind with
// the output flag's name in front ("--plot: cannot write 'f.svg': no space left on the
// device"), so that a failed write names the flag whatever failed.
template <typename F>
auto with_output_flag(std::string_view flag, F&& body) -> decltype(body()) {
  const auto named = [&](const std::exception& e) { return std::string(flag) + ": " + e.what(); };
  try {
    return body();
  } catch (const InputError& e) {
    throw InputError(named(e));
  } catch (const OutputError& e) {
    throw OutputError(named(e));
  } catch (const PlotError& e) {
    throw PlotError(named(e));
  }
}

// A link as JSON inputs: {"alpha_s","bandwidth_Bps"}, plus "overhead_s" and "gap_s" for a
// LogGP link.
nlohmann::ordered_json link_inputs(const Link& link);

// A fabric's figures in SI units, under the keys every report's inputs give them: nominal,
// nodes, ranks_per_node, nics_per_node, oversubscription, placement (added to `j` in that
// order).
void add_fabric_figures(const Topology& topology, nlohmann::ordered_json& j);

// The topology as the "inputs" of a JSON report: flat links as {"alpha_s","bandwidth_Bps"},
// fabrics with every field in SI units.
nlohmann::ordered_json topology_inputs(const Topology& topology);

// One line describing the topology for a report title.
std::string describe_topology(const Topology& topology);

// `options` with `fabric`'s local costs (use_fabric_local_costs), --gamma G, when given
// (`gamma_flag` not empty), replacing its gamma by one rate for every size.
void use_local_costs(CostOptions& options, const Topology& fabric, const std::string& gamma_flag);

// "warning: <text>" on one line of stderr, control characters written visibly (as errors are):
// the one way a command writes a warning there.
void warn(std::string_view text);

// Progress lines on stderr for long work (Monte Carlo, sweeps, reports), only when stderr is
// a terminal: a script reading the output, or CI, sees nothing.
class Progress {
 public:
  explicit Progress(std::string command);
  void say(const std::string& what) const;

 private:
  std::string command_;
  bool enabled_;
};

// Writes `report` in `format` ("table", "csv", "json") to stdout. The whole text is built
// before anything is written, so a failure leaves stdout empty.
void emit(const Report& report, const std::string& format);

// One registration function per subcommand (each in its own cli/<name>_cmd.cc).
void register_scaling(CLI::App& app);
void register_message(CLI::App& app);
void register_collective(CLI::App& app);
void register_straggler(CLI::App& app);
void register_select(CLI::App& app);
void register_predict(CLI::App& app);
void register_plan(CLI::App& app);
void register_report(CLI::App& app);
void register_diagnose(CLI::App& app);
void register_calibrate(CLI::App& app);
void register_validate(CLI::App& app);
void register_fabrics(CLI::App& app);
void register_gpus(CLI::App& app);
void register_models(CLI::App& app);
void register_compare(CLI::App& app);
void register_accuracy(CLI::App& app);

}  // namespace scalewall::cli

#endif  // SCALEWALL_CLI_COMMON_H_
