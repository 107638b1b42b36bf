// Implementation of cli/next_measurement.h.
#include "cli/next_measurement.h"

#include <fmt/format.h>

#include "scalewall/base/error.h"

namespace scalewall::cli {
namespace {

std::string mode_word(HarnessMode mode) {
  switch (mode) {
    case HarnessMode::kStep:
      return "step";
    case HarnessMode::kArrival:
      return "arrival";
    case HarnessMode::kCollective:
      return "collective";
    case HarnessMode::kPingPong:
      return "pingpong";
  }
  SCALEWALL_CHECK(false && "unknown HarnessMode");
  return {};
}

// Open MPI's mapping: ppr:N:node places N ranks per node, so all N on one node, or 1 on each
// of N nodes.
std::string placement_flags(RankPlacement placement, std::int64_t ranks) {
  switch (placement) {
    case RankPlacement::kAny:
      return "";
    case RankPlacement::kOneNode:
      return fmt::format(" --map-by ppr:{}:node", ranks);
    case RankPlacement::kOneRankPerNode:
      return " --map-by ppr:1:node";
  }
  SCALEWALL_CHECK(false && "unknown RankPlacement");
  return {};
}

}  // namespace

std::string harness_command_line(const HarnessRun& run) {
  std::string line = fmt::format("mpirun -np {}{} scalewall-mpi {}", run.ranks,
                                 placement_flags(run.placement, run.ranks), mode_word(run.mode));
  if (run.mode == HarnessMode::kCollective) {
    line += fmt::format(" --op {} --algorithm library", op_name(run.op));
    if (run.bytes) line += fmt::format(" --min-bytes {0:.0f} --max-bytes {0:.0f}", *run.bytes);
  }
  if (run.iterations) line += fmt::format(" --iterations {}", *run.iterations);
  if (run.all_pairs) line += " --pairs all";
  return line;
}

std::string render_next_measurement(const NextMeasurement& next, PurposeStyle style) {
  if (next.runs.empty()) return next.otherwise;
  std::string out;
  for (const HarnessRun& run : next.runs) {
    if (!out.empty()) out += ", then ";
    out += harness_command_line(run);
    if (run.purpose.empty()) continue;
    switch (style) {
      case PurposeStyle::kParenthesised:
        out += fmt::format(" ({})", run.purpose);
        break;
      case PurposeStyle::kSpacedParenthesised:
        out += fmt::format("  ({})", run.purpose);
        break;
      case PurposeStyle::kColon:
        out += fmt::format(": {}", run.purpose);
        break;
    }
  }
  return out;
}

}  // namespace scalewall::cli
