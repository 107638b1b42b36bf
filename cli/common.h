// cli/common.h: what every scalewall subcommand shares: the --format option, flag values
// read through the library's unit parser with the flag named in every error, and the one
// place that writes a finished Report to stdout.
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
#include <vector>

#include "scalewall/present/report.h"
#include "scalewall/model/topology.h"

namespace scalewall::cli {

// Adds --format table|csv|json (default table) to `command`, stored in *format.
void add_format_option(CLI::App* command, std::string* format);

// For a flag that names an output file (--plot, --out): an empty name is refused, never read
// as "no file".
CLI::Validator non_empty_path();

// Each parses `text` with the matching units.h parser; an InputError is rethrown with the
// flag's name in front: "--alpha: unknown unit 'xs' in time '2.5xs' (...)".
double flag_bytes(std::string_view flag, const std::string& text);
double flag_seconds(std::string_view flag, const std::string& text);
double flag_rate(std::string_view flag, const std::string& text);
double flag_fraction(std::string_view flag, const std::string& text);
double flag_number(std::string_view flag, const std::string& text);
std::int64_t flag_count(std::string_view flag, const std::string& text, std::int64_t min_value,
                        std::int64_t max_value);

// A comma-separated list of rank counts, "8,64,1024"; each in [1, 2^40]; at least one.
// The most rank counts a --ranks list may hold.
inline constexpr std::size_t kMaxRankListItems = 4096;
std::vector<std::int64_t> flag_rank_list(std::string_view flag, const std::string& text);

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
};

// Adds --fabric, --alpha, --bandwidth, --nodes, --ranks-per-node, --nics-per-node,
// --oversubscription and --placement to `command`.
void add_fabric_options(CLI::App* command, FabricFlags* flags);

// The topology for `ranks` ranks. Without --fabric: flat_topology(ranks, link) (fabric
// override flags are then an error). With --fabric: the file, overridden by the flags, then
// scaled to `ranks` (when given) by scaled_topology. REQUIRES: ranks given when there is no
// --fabric (throws InputError naming --ranks otherwise).
Topology resolve_topology(const FabricFlags& flags, std::optional<std::int64_t> ranks);

// A link as JSON inputs: {"alpha_s","bandwidth_Bps"}, plus "overhead_s" and "gap_s" for a
// LogGP link.
nlohmann::ordered_json link_inputs(const Link& link);

// The topology as the "inputs" of a JSON report: flat links as {"alpha_s","bandwidth_Bps"},
// fabrics with every field in SI units.
nlohmann::ordered_json topology_inputs(const Topology& topology);

// One line describing the topology for a report title.
std::string describe_topology(const Topology& topology);

// A comma-separated list of rank counts or an inclusive range "A..B" of powers of two
// (A and B rounded to the powers of two they bracket: "8..100" is 8,16,32,64).
std::vector<std::int64_t> flag_rank_range(std::string_view flag, const std::string& text);

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

// Runs `body` and rethrows an InputError from it prefixed with the flag's name.
template <typename F>
auto with_flag(std::string_view flag, F&& body) -> decltype(body());

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

}  // namespace scalewall::cli

#include "scalewall/base/error.h"

namespace scalewall::cli {

template <typename F>
auto with_flag(std::string_view flag, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const InputError& e) {
    throw InputError(std::string(flag) + ": " + e.what());
  }
}

}  // namespace scalewall::cli

#endif  // SCALEWALL_CLI_COMMON_H_
