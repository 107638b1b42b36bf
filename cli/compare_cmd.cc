// scalewall compare: two or more runs (measurement files) or calibrations (fabric files that
// calibrate writes, or its JSON report) side by side per measurement and size: the ratio to
// the first input, and which differences exceed the runs' own spread (analysis/compare.h).
//
// Each file is read once and told apart by its content (io/file_format.h): a fabric TOML,
// calibrate's JSON report, or a measurement file of any format calibrate reads.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/common.h"
#include "scalewall/analysis/compare.h"
#include "scalewall/io/calibration_report.h"
#include "scalewall/io/fabric_file.h"
#include "scalewall/io/file_format.h"
#include "scalewall/io/input_file.h"
#include "scalewall/io/measurement.h"
#include "scalewall/present/compare_report.h"

namespace scalewall::cli {
namespace {

struct CompareFlags {
  std::vector<std::string> files;
  std::string format = "table";
};

CompareRun read_input(const std::string& path) {
  const std::string text = read_input_file(path, "compare file");
  CompareRun run;
  run.label = path;
  const FileFormat format = detect_file_format(text);
  if (format == FileFormat::kFabric) {
    run.fabric = parse_fabric(text, path);
  } else if (format == FileFormat::kScalingTableJson && is_calibration_report(text, path)) {
    run.fabric = parse_calibration_report(text, path);
  } else {
    parse_measurement_text(text, path, run.measurements);
    // Only scalewall-mpi's records carry the spread of their repetitions (min and max).
    run.has_spread = format == FileFormat::kScalewallMpi;
  }
  return run;
}

Report run_compare(const CompareFlags& flags) {
  parse_format(flags.format);  // a bad --format is refused before any file is read
  std::vector<CompareRun> inputs;
  for (const std::string& path : flags.files) inputs.push_back(read_input(path));
  return compare_report(compare_runs(inputs));
}

}  // namespace

void register_compare(CLI::App& app) {
  auto flags = std::make_shared<CompareFlags>();
  const FlagGroup files = {
      {"files", &flags->files,
       "Two or more runs (measurement files, formats as for calibrate) or calibrations "
       "(fabric files that calibrate --out writes, or its --format json report); the first "
       "is the baseline",
       "FILE", {}, FlagKind::kRequired},
  };
  const FlagGroup own = {format_flag(&flags->format)};
  CLI::App* cmd = add_command(app, {
      "compare",
      "Runs or calibrations side by side per measurement and size: each time beside the "
      "first file's, the ratio, and whether the difference exceeds the runs' own spread.",
      {files, own},
      "A difference is beyond the spread when the two runs' [min, max] ranges do not overlap;\n"
      "scalewall-mpi records carry them, the benchmarks' logs do not (then the ratio alone).\n"
      "Examples:\n"
      "  scalewall compare before.jsonl after.jsonl\n"
      "  scalewall compare old-fabric.toml new-fabric.toml --format csv"});
  cmd->callback([flags] { emit(run_compare(*flags), flags->format); });
}

}  // namespace scalewall::cli
