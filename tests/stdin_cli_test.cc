// End-to-end tests of standard input as a file argument: every command that reads a file
// (scenarios, fabric files, measurement files, scaling tables, --times) reads "-" and
// /dev/stdin as standard input, here a pipe, and gives the same result as for the file itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The parts of a JSON result that name the input file (its path, or "-") are left out: the
// rest must be the same whichever way the file came in.
nlohmann::json without_names(nlohmann::json j) {
  for (const char* key : {"inputs", "sources", "title"}) j.erase(key);
  // The series' labels name the file too, in the list and in every row that carries one.
  j.erase("series");
  for (auto& [key, value] : j.items()) {
    if (!value.is_array()) continue;
    for (auto& row : value) {
      if (row.is_object()) row.erase("series");
    }
  }
  return j;
}

// One file argument of one command: `args` with the placeholder "@" where the file goes.
struct FileArgument {
  std::string what;                // for failure messages
  std::vector<std::string> args;   // "@" marks the file argument
  std::string path;                // the file standard input carries
};

std::vector<std::string> with_file(const std::vector<std::string>& args,
                                   const std::string& file) {
  std::vector<std::string> out = args;
  for (std::string& a : out) {
    if (a == "@") a = file;
  }
  out.push_back("--format");
  out.push_back("json");
  return out;
}

std::vector<FileArgument> every_file_argument() {
  const std::string scenario = source_path("examples/seed-7b-bf16.toml");
  const std::string fabric = source_path("examples/fabrics/dgx-h100-ndr.toml");
  const std::string pingpong = source_path("tests/data/scalewall_pingpong.jsonl");
  const std::string collective = source_path("tests/data/scalewall_collective.jsonl");
  const std::string osu = source_path("tests/data/osu_allreduce.txt");
  const std::string table =
      write_temp_file("runs.csv", "ranks,step_s,problem_size\n1,10.0,1\n2,5.03,1\n4,2.54,1\n"
                                  "8,1.30,1\n16,0.68,1\n32,0.37,1\n64,0.22,1\n");
  const std::string times = write_temp_file("times.csv", "1.00\n1.02\n0.98\n1.10\n");
  const std::string calibrated = source_path("examples/fabrics/tcp-100gbe.toml");
  return {
      {"predict SCENARIO", {"predict", "@", "--ranks", "8,64"}, scenario},
      {"plan SCENARIO", {"plan", "@", "--ranks", "64"}, scenario},
      {"collective --fabric", {"collective", "--fabric", "@", "--ranks", "64", "--bytes", "1MB"},
       fabric},
      {"select --fabric", {"select", "--fabric", "@", "--ranks", "8..64", "--bytes", "1..1MiB"},
       fabric},
      {"straggler --times", {"straggler", "--times", "@"}, times},
      {"calibrate FILE", {"calibrate", "@"}, pingpong},
      {"validate FILE", {"validate", "@", "--fabric", calibrated}, collective},
      {"validate --fabric", {"validate", collective, "--fabric", "@"}, calibrated},
      {"diagnose TABLE", {"diagnose", "@"}, table},
      {"diagnose --scenario", {"diagnose", table, "--scenario", "@"}, scenario},
      {"diagnose --fabric", {"diagnose", collective, "--fabric", "@"}, calibrated},
      {"report FILE", {"report", "@", "-o", "@out"}, osu},
  };
}

// Runs each file argument three ways, from the file, from "-" and from /dev/stdin (standard
// input a pipe carrying the file), and expects the same result.
TEST(StdinCli, EveryFileArgumentReadsDashAndDevStdin) {
  for (const FileArgument& f : every_file_argument()) {
    for (const std::string& name : {std::string("-"), std::string("/dev/stdin")}) {
      SCOPED_TRACE(f.what + " from " + name);
      std::vector<std::string> direct = with_file(f.args, f.path);
      std::vector<std::string> piped = with_file(f.args, name);
      for (auto* args : {&direct, &piped}) {
        for (std::string& a : *args) {
          if (a == "@out") {
            a = (std::filesystem::path(write_temp_file("keep", "")).parent_path() /
                 (args == &direct ? "direct" : "piped"))
                    .string();
          }
        }
      }
      const CliResult expected = run_scalewall(direct);
      ASSERT_EQ(expected.exit_code, 0) << expected.err;
      const CliResult got = run_scalewall_with_input(piped, read_file(f.path));
      ASSERT_EQ(got.exit_code, 0) << got.err;
      const nlohmann::json a = nlohmann::json::parse(expected.out);
      const nlohmann::json b = nlohmann::json::parse(got.out);
      if (f.args[0] == "report") {
        EXPECT_EQ(a["figure_count"], b["figure_count"]);
      } else {
        EXPECT_EQ(without_names(a), without_names(b));
      }
    }
  }
}

// Standard input is read once: a second file argument that names it too reads nothing more,
// and is refused as empty, naming it.
TEST(StdinCli, StandardInputNamedTwiceIsRefused) {
  const std::string pingpong = source_path("tests/data/scalewall_pingpong.jsonl");
  const CliResult r =
      run_scalewall_with_input({"calibrate", "-", "/dev/stdin"}, read_file(pingpong));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: measurement file '/dev/stdin': standard input was already read by "
                   "an earlier argument (it can be read once)\n");
  const CliResult c = run_scalewall_with_input({"compare", "-", "-"}, read_file(pingpong));
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_EQ(c.out, "");
  EXPECT_EQ(c.err, "error: compare file '-': standard input was already read by an earlier "
                   "argument (it can be read once)\n");
}

// A scenario read from standard input names its fabric relative to the current directory,
// since it has no folder of its own; /dev/stdin is no folder either (not /dev/fabrics/...).
TEST(StdinCli, AScenarioFromStandardInputFindsItsFabricFromTheCurrentDirectory) {
  const std::string fabric =
      std::filesystem::relative(source_path("examples/fabrics/dgx-h100-ndr.toml")).string();
  ASSERT_FALSE(std::filesystem::path(fabric).is_absolute());
  const std::string text =
      "name = \"piped\"\n[workload]\ngradient_bytes = \"1GB\"\ncompute = \"100ms\"\n"
      "scaling = \"strong\"\n"
      "[network]\nfabric = \"" + fabric + "\"\n";
  for (const std::string& name : {std::string("-"), std::string("/dev/stdin")}) {
    const CliResult r = run_scalewall_with_input({"predict", name, "--ranks", "64"}, text);
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
  }
}

// A file on standard input ("< p.jsonl") is an input like any other: an output that names it
// (its own name, /dev/stdin, /dev/fd/0) is refused, naming both, and the file keeps its bytes.
TEST(StdinCli, AnOutputNeverReplacesAFileOnStandardInput) {
  const std::string original = read_file(source_path("tests/data/scalewall_pingpong.jsonl"));
  const std::string p = write_temp_file("p.jsonl", original);
  const std::string table_text = "ranks,step_s,problem_size\n1,10.0,1\n2,5.03,1\n4,2.54,1\n";
  const std::string table = write_temp_file("r.svg", table_text);
  const std::string scenario_text = read_file(source_path("examples/seed-7b-bf16.toml"));
  const std::string scenario = write_temp_file("j.svg", scenario_text);
  struct Case {
    std::vector<std::string> args;
    std::string input;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"calibrate", "-", "--out", p}, p,
       "error: --out: cannot write '" + p + "': it is the input file '-' on standard input "
       "(an output never replaces an input)\n"},
      {{"calibrate", "-", "--out", "/dev/stdin"}, p,
       "error: --out: cannot write '/dev/stdin': it is the input file '-' on standard input"},
      {{"calibrate", "/dev/stdin", "--out", "/dev/fd/0"}, p,
       "error: --out: cannot write '/dev/fd/0': it is the input file '/dev/stdin' "},
      {{"diagnose", "-", "--plot", table}, table,
       "error: --plot: cannot write '" + table + "': it is the input file '-' on standard input"},
      {{"predict", "/dev/stdin", "--plot", scenario}, scenario,
       "error: --plot: cannot write '" + scenario + "': it is the input file '/dev/stdin' "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args[0] + " " + c.args[1] + " " + c.args[2] + " " + c.args[3]);
    const std::string before = read_file(c.input);
    const CliResult r = run_scalewall_with_stdin_file(c.args, c.input);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind(c.message, 0), 0u) << r.err;
    EXPECT_EQ(read_file(c.input), before);
  }
  // Standard input a pipe: /dev/stdin as the output is the pipe the input came from.
  const CliResult piped = run_scalewall_with_input({"calibrate", "-", "--out", "/dev/stdin"},
                                                   original);
  EXPECT_EQ(piped.exit_code, 2) << piped.err;
  EXPECT_EQ(piped.err.rfind("error: --out: cannot write '/dev/stdin': it is the input file '-' "
                            "on standard input",
                            0),
            0u)
      << piped.err;
}

}  // namespace
}  // namespace scalewall::testing
