// One flag name and meaning per concept, across every command: each command's --help is read
// and every option that names a concept must spell it as the table below does (long name,
// short form, type name), no short form may mean two things, no other spelling of a concept
// may appear, and every command that takes a fabric file takes the same fabric overrides.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

const std::vector<std::string> kCommands = {
    "scaling", "message", "collective", "straggler", "select",  "predict",
    "plan",    "report",  "diagnose",   "calibrate", "validate", "fabrics"};

// One concept: its long flag, short form ("" for none) and type name ("" when the type
// differs with what the command takes, as one rank count against a list).
struct Concept {
  std::string meaning;
  std::string long_name;
  std::string short_name;
  std::string type;
};

const std::vector<Concept> kConcepts = {
    {"rank count(s)", "--ranks", "-n", ""},
    {"message size per rank", "--bytes", "-m", ""},
    {"latency alpha", "--alpha", "-a", "T"},
    {"bandwidth", "--bandwidth", "-b", "R"},
    {"serial fraction", "--serial-fraction", "-s", "S"},
    {"output path (a file, or report's directory)", "--out", "-o", ""},
    {"a figure file", "--plot", "", "FILE"},
    {"output format", "--format", "", "table|csv|json"},
    {"fabric file", "--fabric", "", "FILE"},
    {"fabric's node count", "--nodes", "", "N"},
    {"fabric's ranks per node", "--ranks-per-node", "", "G"},
    {"fabric's NICs per node", "--nics-per-node", "", "K"},
    {"fabric's oversubscription", "--oversubscription", "", "R"},
    {"fabric's placement", "--placement", "", "P"},
    {"smallest size of a sweep or fit", "--min-bytes", "", "SIZE"},
    {"largest size of a sweep or fit", "--max-bytes", "", "SIZE"},
    {"reduction cost per byte", "--gamma", "", "G"},
    {"double-binary-tree chunk", "--chunk", "", "SIZE"},
    {"collective op", "--op", "", "OP"},
    {"selector (what picks each call's algorithm)", "--selector", "", "SELECTOR"},
    {"target efficiency", "--target-efficiency", "", "E"},
    {"per-rank jitter (a fraction)", "--sigma", "", "F"},
    {"largest rank count of a sweep", "--max-ranks", "", "N"},
    {"scenario file", "--scenario", "", "FILE"},
};

// Other spellings of the concepts above, which no command may use.
const std::vector<std::string> kOtherSpellings = {
    "--np",   "--nranks", "--num-ranks", "--procs", "--size", "--sizes", "--message-size",
    "--latency", "--bw", "--output-dir", "--outdir", "--dir", "--fmt", "--nics", "--gpus-per-node"};

// The overrides every command with --fabric takes beside it.
const std::vector<std::string> kFabricOverrides = {
    "--alpha", "--bandwidth", "--ranks-per-node", "--nics-per-node", "--oversubscription",
    "--placement"};

struct HelpOption {
  std::vector<std::string> names;  // "-n", "--ranks"
  std::string type;                // "N", "" for a flag
};

// The options of `scalewall COMMAND --help`, as CLI11 prints them: "  -n,--ranks N  text".
std::vector<HelpOption> help_options(const std::string& command) {
  const CliResult r = run_scalewall({command, "--help"});
  EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
  static const std::regex kLine(R"(^  (-[-\w,]+)(?: ([^ =]+)(?:=\S*)?)?(?:\s|$))");
  std::vector<HelpOption> options;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, kLine)) continue;
    HelpOption o;
    std::stringstream names(m[1].str());
    for (std::string name; std::getline(names, name, ',');) o.names.push_back(name);
    if (m[2].matched && m[2].str() != "REQUIRED") o.type = m[2].str();
    options.push_back(o);
  }
  EXPECT_FALSE(options.empty()) << command << " --help lists no options:\n" << r.out;
  return options;
}

bool has(const HelpOption& o, const std::string& name) {
  return std::find(o.names.begin(), o.names.end(), name) != o.names.end();
}

std::string short_of(const HelpOption& o) {
  for (const std::string& n : o.names) {
    if (n.size() == 2 && n[0] == '-') return n;
  }
  return "";
}

TEST(FlagsCli, EveryCommandSpellsEachConceptTheSameWay) {
  std::map<std::string, std::set<std::string>> short_meanings;  // "-n" -> {"--ranks"}
  for (const std::string& command : kCommands) {
    SCOPED_TRACE(command);
    const std::vector<HelpOption> options = help_options(command);
    for (const HelpOption& o : options) {
      const std::string s = short_of(o);
      for (const std::string& n : o.names) {
        if (n.starts_with("--") && n != "--help" && !s.empty()) short_meanings[s].insert(n);
        EXPECT_EQ(std::count(kOtherSpellings.begin(), kOtherSpellings.end(), n), 0)
            << command << " spells a concept " << n;
      }
      for (const Concept& c : kConcepts) {
        if (!has(o, c.long_name)) continue;
        EXPECT_EQ(s, c.short_name) << command << " " << c.long_name << " (" << c.meaning
                                   << ") has short form '" << s << "'";
        if (!c.type.empty()) {
          EXPECT_EQ(o.type, c.type) << command << " " << c.long_name << " (" << c.meaning
                                    << ") takes " << o.type;
        }
      }
    }
    // The fabric file comes with the same overrides everywhere.
    const auto named = [&](const std::string& name) {
      return std::any_of(options.begin(), options.end(),
                         [&](const HelpOption& o) { return has(o, name); });
    };
    if (named("--fabric")) {
      for (const std::string& flag : kFabricOverrides) {
        EXPECT_TRUE(named(flag)) << command << " takes --fabric but not " << flag;
      }
    }
  }
  // A short form means one thing in every command ("--out" and its older name "--output"
  // are one flag of report).
  for (const auto& [s, longs] : short_meanings) {
    std::set<std::string> meanings = longs;
    meanings.erase("--output");
    EXPECT_EQ(meanings.size(), 1u) << s << " means " << ::testing::PrintToString(longs);
  }
}

// The rank count is -n wherever a command takes one.
TEST(FlagsCli, ShortRankFlagWorksInEveryCommandThatTakesRanks) {
  const std::string scenario = source_path("examples/seed-7b-bf16.toml");
  const auto predict = run_json({"predict", scenario, "-n", "8,64"});
  EXPECT_EQ(predict["inputs"]["ranks"], nlohmann::json::parse("[8, 64]"));
  const auto plan = run_json({"plan", scenario, "-n", "64"});
  EXPECT_EQ(plan["ranks"], 64);
  const auto collective = run_json({"collective", "-n", "64", "-m", "1MB"});
  EXPECT_EQ(collective["inputs"]["ranks"], 64);
}

// plan answers for one rank count: a list is refused saying so, not as "not a whole number".
TEST(FlagsCli, PlanSaysItTakesOneRankCount) {
  const std::string scenario = source_path("examples/seed-7b-bf16.toml");
  expect_input_error({"plan", scenario, "--ranks", "8,64"},
                     "--ranks: plan answers for one rank count, and '8,64' is a list");
  expect_input_error({"plan", scenario, "--ranks", "8..64"}, "one rank count");
}

// predict and plan take the fabric overrides of every fabric command: --nics-per-node on the
// scenario's fabric changes the prediction; on a bus-bandwidth scenario it is refused.
TEST(FlagsCli, PredictTakesTheSharedFabricOverrides) {
  const std::string dgx = source_path("examples/dgx-llm-weak.toml");
  const auto eight = run_json({"predict", dgx, "--ranks", "1024"});
  const auto one = run_json({"predict", dgx, "--ranks", "1024", "--nics-per-node", "1"});
  EXPECT_EQ(one["inputs"]["model"]["network"]["nics_per_node"], 1);
  EXPECT_EQ(eight["inputs"]["model"]["network"]["nics_per_node"], 8);
  EXPECT_GT(one["rows"][0]["step_s"].get<double>(), eight["rows"][0]["step_s"].get<double>());
  const auto plan = run_json({"plan", dgx, "--ranks", "1024", "--nics-per-node", "1"});
  EXPECT_DOUBLE_EQ(plan["step_s"].get<double>(), one["rows"][0]["step_s"].get<double>());
  // --fabric puts a fabric under a scenario whose network is a bus bandwidth.
  const std::string seed = source_path("examples/seed-7b-bf16.toml");
  const auto on_fabric = run_json({"predict", seed, "--ranks", "64", "--fabric",
                                   source_path("examples/fabrics/dgx-h100-ndr.toml")});
  EXPECT_EQ(on_fabric["inputs"]["model"]["network"]["fabric"], "dgx-h100-ndr");
  // A preset name works as --fabric does everywhere, and the title names the fabric used.
  const CliResult preset = run_scalewall({"predict", seed, "-n", "8", "--fabric", "dgx-a100"});
  ASSERT_EQ(preset.exit_code, 0) << preset.err;
  EXPECT_NE(preset.out.find("on fabric dgx-a100 (1 node x 8 ranks"), std::string::npos)
      << preset.out;
  expect_input_error({"predict", seed, "--ranks", "64", "--nics-per-node", "2"},
                     "--nics-per-node");
}

// -o is the output path everywhere: report's directory takes --out too, as calibrate's file.
TEST(FlagsCli, ReportTakesOutAsItsOutputDirectory) {
  const CliResult help = run_scalewall({"report", "--help"});
  EXPECT_NE(help.out.find("-o,--out,--output DIR"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("Output directory DIR"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace scalewall::testing
