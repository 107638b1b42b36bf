// scalewall accuracy: the transformer model against the published training runs shipped with
// scalewall (tests/data/published), or tables of runs of one's own.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/common.h"
#include "scalewall/base/error.h"
#include "scalewall/analysis/published_accuracy.h"
#include "scalewall/io/published_runs.h"
#include "scalewall/present/accuracy_report.h"

namespace scalewall::cli {
namespace {

struct AccuracyFlags {
  std::vector<std::string> files;
  bool rows = false;
  std::string format = "table";
};

// The tables shipped with the source: every .csv of tests/data/published, in name order.
std::vector<std::string> shipped_tables() {
  std::vector<std::string> files;
  const std::filesystem::path dir = SCALEWALL_PUBLISHED_RUNS_DIR;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".csv") files.push_back(entry.path().string());
  }
  if (ec || files.empty()) {
    throw InputError(fmt::format("no tables of published runs in {} (give the files)",
                                 dir.string()));
  }
  std::sort(files.begin(), files.end());
  return files;
}

void run(const AccuracyFlags& flags) {
  const std::vector<std::string> files = flags.files.empty() ? shipped_tables() : flags.files;
  std::vector<PublishedRun> runs;
  for (const std::string& path : files) {
    std::vector<PublishedRun> more = read_published_runs(path);
    runs.insert(runs.end(), more.begin(), more.end());
  }
  Report report = accuracy_report(published_accuracy(runs), flags.rows);
  report.inputs["files"] = files;
  emit(report, flags.format);
}

}  // namespace

void register_accuracy(CLI::App& app) {
  auto flags = std::make_shared<AccuracyFlags>();
  const FlagGroup files = {
      {"files", &flags->files,
       "Tables of published runs (CSV; docs/cli.md names the columns); default: the ones "
       "shipped with scalewall",
       "FILE"},
  };
  const FlagGroup own = {
      {"--rows", &flags->rows, "List every run priced: measured and predicted step, error, split"},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "accuracy",
      "The transformer model against published training runs: per GPU and precision, the "
      "median, 90th percentile and worst |error| of the predicted step time.",
      {files, own},
      "Examples:\n"
      "  scalewall accuracy\n"
      "  scalewall accuracy --rows --format csv > runs.csv"});
  cmd->callback([flags] { run(*flags); });
}

}  // namespace scalewall::cli
