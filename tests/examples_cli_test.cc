// End-to-end tests of the README's commands: every `$ scalewall ...` line of its examples runs
// as written from the source tree (the files it names are shipped under examples/ and
// tests/data/) and succeeds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

namespace fs = std::filesystem;

// The `$ scalewall ...` lines of the README's fenced blocks, without "$ scalewall ".
std::vector<std::string> readme_commands() {
  std::ifstream in(source_path("README.md"));
  std::vector<std::string> commands;
  bool fenced = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("```")) fenced = !fenced;
    if (fenced && line.starts_with("$ scalewall ")) commands.push_back(line.substr(12));
  }
  return commands;
}

// The arguments of `command`, as the shell would split it from the source root: a path that
// exists there is made absolute, and the output of -o/--out goes to a fresh directory.
std::vector<std::string> as_run_from_source(const std::string& command, const fs::path& out) {
  std::vector<std::string> args;
  std::istringstream words(command);
  bool output_next = false;
  for (std::string w; words >> w;) {
    if (output_next) {
      w = (out / w).string();
      output_next = false;
    } else if (w == "-o" || w == "--out") {
      output_next = true;
    } else if (w.find('/') != std::string::npos || w.find('.') != std::string::npos) {
      if (fs::exists(source_path(w))) w = source_path(w);
    }
    args.push_back(w);
  }
  return args;
}

TEST(ExamplesCli, EveryReadmeCommandRunsAsWritten) {
  const std::vector<std::string> commands = readme_commands();
  ASSERT_GE(commands.size(), 9u);
  // The README's diagnose example names the shipped table.
  EXPECT_NE(std::find(commands.begin(), commands.end(), "diagnose examples/runs.csv"),
            commands.end());
  const fs::path out = fs::path(write_temp_file("keep", "")).parent_path();
  for (const std::string& command : commands) {
    const CliResult r = run_scalewall(as_run_from_source(command, out));
    EXPECT_EQ(r.exit_code, 0) << "scalewall " << command << "\n" << r.err;
    EXPECT_FALSE(r.out.empty()) << "scalewall " << command;
  }
}

// The shipped table is the one docs/cli.md shows: seven rows of one strong-scaling job.
TEST(ExamplesCli, ShippedScalingTableDiagnoses) {
  const auto j = run_json({"diagnose", source_path("examples/runs.csv")});
  EXPECT_EQ(j["scaling"], "strong");
  EXPECT_EQ(j["baseline_ranks"], 1);
  EXPECT_EQ(j["largest_ranks"], 64);
  ASSERT_EQ(j["rows"].size(), 7u);
  EXPECT_DOUBLE_EQ(j["rows"][6]["step_s"].get<double>(), 0.22);
  // 10 s on one rank against 64 x 0.22 s at 64.
  EXPECT_NEAR(j["efficiency_at_largest"].get<double>(), 10.0 / (64 * 0.22), 1e-12);
}

// A Llama scenario per framework profile: each shipped example names its framework, predicts
// and fits in memory under it.
TEST(ExamplesCli, EachFrameworkHasALlamaExampleThatFits) {
  const std::vector<std::pair<std::string, std::string>> examples = {
      {"examples/llama3.1-70b-h100.toml", "megatron-core"},
      {"examples/llama3.1-8b-torch-fsdp2.toml", "torch-fsdp2"},
      {"examples/llama2-7b-deepspeed-zero3.toml", "deepspeed-zero"},
      {"examples/llama2-70b-megatron-deepspeed.toml", "megatron-deepspeed"},
      {"examples/llama2-13b-megatron-lm-2022.toml", "megatron-lm-2022"},
      {"examples/llama2-7b-megatron-lm-2021.toml", "megatron-lm-2021"}};
  for (const auto& [path, framework] : examples) {
    std::ifstream in(source_path(path));
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("framework = \"" + framework + "\""), std::string::npos) << path;
    const auto j = run_json({"predict", source_path(path)});
    EXPECT_TRUE(j["fits"].get<bool>()) << path;
    EXPECT_GT(j["step_s"].get<double>(), 0.0) << path;
    EXPECT_GT(j["mfu"].get<double>(), 0.0) << path;
    EXPECT_LE(j["mfu"].get<double>(), 1.0) << path;
  }
}

}  // namespace
}  // namespace scalewall::testing
