// cli/next_measurement.h: a suggested measurement (scalewall/analysis/next_measurement.h) as
// the scalewall-mpi command lines a user runs.
#ifndef SCALEWALL_CLI_NEXT_MEASUREMENT_H_
#define SCALEWALL_CLI_NEXT_MEASUREMENT_H_

#include <string>

#include "scalewall/analysis/next_measurement.h"

namespace scalewall::cli {

// How a run's purpose follows its command line.
enum class PurposeStyle {
  kParenthesised,        // "mpirun ... step (why)"
  kSpacedParenthesised,  // "mpirun ... step  (why)"
  kColon,                // "mpirun ... step: why"
};

// "mpirun -np N scalewall-mpi <mode> [flags]", without its purpose.
std::string harness_command_line(const HarnessRun& run);

// The runs' command lines, each with its purpose in `style` (none when the purpose is empty),
// joined by ", then "; `otherwise` when there are no runs.
std::string render_next_measurement(const NextMeasurement& next,
                                    PurposeStyle style = PurposeStyle::kParenthesised);

}  // namespace scalewall::cli

#endif  // SCALEWALL_CLI_NEXT_MEASUREMENT_H_
