// End-to-end tests of how scalewall reads and writes files: every input is a regular file of
// at most 256 MB (a device, a named pipe or a directory is refused at once, naming it); JSON
// errors name the file, the line and the field; an output is written whole through a
// temporary name and never over an input.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string data(const std::string& name) { return source_path("tests/data/" + name); }

// Runs scalewall and expects exit status 2, nothing on stdout, one `error:` line that holds
// `part`, within a few seconds (the old readers ran for minutes on a device, or for ever on a
// pipe).
void expect_refused(const std::vector<std::string>& args, const std::string& part) {
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = run_scalewall(args);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.starts_with("error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, part)) << "expected '" << part << "' in: " << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
  EXPECT_LT(elapsed, std::chrono::seconds(10));
}

const std::string kDevice = " is a character device, not a regular file (scalewall reads "
                            "regular files only)";

TEST(FilesCli, DevicesAreRefusedAtOnceNamingThePath) {
  expect_refused({"collective", "--fabric", "/dev/zero", "--ranks", "8", "--bytes", "1MB"},
                 "--fabric: fabric file '/dev/zero'" + kDevice);
  expect_refused({"calibrate", "/dev/urandom"}, "measurement file '/dev/urandom'" + kDevice);
  expect_refused({"calibrate", "/dev/zero"}, "measurement file '/dev/zero'" + kDevice);
  expect_refused({"validate", "/dev/zero", "--fabric", source_path("examples/fabrics/tcp-100gbe.toml")},
                 "measurement file '/dev/zero'" + kDevice);
  expect_refused({"diagnose", "/dev/zero"}, "input file '/dev/zero'" + kDevice);
  expect_refused({"report", "/dev/urandom", "-o", write_temp_file("unused", "") + ".d"},
                 "input file '/dev/urandom'" + kDevice);
  expect_refused({"straggler", "--times", "/dev/zero"},
                 "--times: times file '/dev/zero'" + kDevice);
  expect_refused({"predict", "/dev/zero"}, "scenario file '/dev/zero'" + kDevice);
}

TEST(FilesCli, AScenarioWhoseFabricIsADeviceIsRefused) {
  // An example scenario with its fabric line pointed at /dev/zero.
  std::string text = read_file(source_path("examples/dgx-llm-weak.toml"));
  const std::string line = "fabric = \"fabrics/dgx-h100-ndr.toml\"";
  ASSERT_NE(text.find(line), std::string::npos);
  text.replace(text.find(line), line.size(), "fabric = \"/dev/zero\"");
  const std::string scenario = write_temp_file("zero.toml", text);
  expect_refused({"predict", scenario}, "fabric file '/dev/zero'" + kDevice);
  expect_refused({"plan", scenario, "--ranks", "8"}, "fabric file '/dev/zero'" + kDevice);
}

TEST(FilesCli, ANamedPipeIsRefusedWithoutWaitingForAWriter) {
  const fs::path dir = fs::path(write_temp_file("x", "")).parent_path();
  const std::string fifo = (dir / "pipe").string();
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string pipe = "' is a named pipe (FIFO), not a regular file";
  expect_refused({"diagnose", fifo}, "input file '" + fifo + pipe);
  expect_refused({"calibrate", fifo}, "measurement file '" + fifo + pipe);
  expect_refused({"straggler", "--times", fifo}, "times file '" + fifo + pipe);
  expect_refused({"collective", "--fabric", fifo, "--ranks", "8", "--bytes", "1MB"},
                 "fabric file '" + fifo + pipe);
  expect_refused({"predict", fifo}, "scenario file '" + fifo + pipe);
}

TEST(FilesCli, ADirectoryIsSaidToBeADirectory) {
  const std::string dir = fs::path(write_temp_file("x", "")).parent_path().string();
  expect_refused({"collective", "--fabric", dir, "--ranks", "8", "--bytes", "1MB"},
                 "--fabric: fabric file '" + dir + "' is a directory, not a file");
  expect_refused({"calibrate", dir}, "measurement file '" + dir + "' is a directory, not a file");
  expect_refused({"diagnose", dir}, "input file '" + dir + "' is a directory, not a file");
  expect_refused({"straggler", "--times", dir}, "times file '" + dir + "' is a directory");
  expect_refused({"predict", dir}, "scenario file '" + dir + "' is a directory, not a file");
}

TEST(FilesCli, JsonErrorsNameFileLineAndField) {
  const std::string big = write_temp_file(
      "runs.jsonl",
      R"({"tool":"scalewall-mpi","command":"step","kind":"measurement"})" "\n"
      R"({"record":"step","step":0,"rank":0,"host":"h","compute_s":1,"communication_s":0,"wait_s":0,"step_s":1})" "\n"
      R"({"record":"step","step":1,"rank":0,"host":"h","compute_s":1,"communication_s":0,"wait_s":0,"time_s":1e400})" "\n");
  expect_refused({"diagnose", big}, big + ":3: field \"time_s\": number 1e400 is out of range");
  expect_refused({"calibrate", big}, big + ":3: field \"time_s\": number 1e400 is out of range");
  const std::string object = write_temp_file(
      "x.jsonl", R"({"tool":"scalewall-mpi","command":{"a":1},"kind":"measurement"})" "\n");
  for (const std::string command : {"diagnose", "calibrate", "validate"}) {
    expect_refused({command, object}, object + ":1: field \"command\" must be a string, not an object");
  }
  const std::string table = write_temp_file("t.json", "[{\"ranks\":1,\"step_s\":1},\n{\"ranks\":2,\"step_s\":1e400}]\n");
  expect_refused({"diagnose", table}, table + ":2: field \"step_s\": number 1e400 is out of range");
  for (const std::string& path : {big, object, table}) {
    const CliResult r = run_scalewall({"diagnose", path});
    EXPECT_FALSE(contains(r.err, "json.exception")) << r.err;
  }
}

// calibrate p.jsonl --out p.jsonl used to replace the measurements with the fabric file.
TEST(FilesCli, AnOutputNeverReplacesAnInput) {
  const std::string original = read_file(data("scalewall_pingpong.jsonl"));
  const std::string p = write_temp_file("p.jsonl", original);
  const fs::path dir = fs::path(p).parent_path();
  fs::create_symlink(p, dir / "link.jsonl");
  for (const std::string& out : {p, (dir / "." / "p.jsonl").string(), (dir / "link.jsonl").string()}) {
    expect_refused({"calibrate", p, "--out", out},
                   "--out: cannot write '" + out + "': it is the input file '" + p +
                       "' (an output never replaces an input)");
    EXPECT_EQ(read_file(p), original);
  }
  // Relative names, from the working directory.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  const CliResult r = run_scalewall({"calibrate", "p.jsonl", "--out", "./p.jsonl"});
  fs::current_path(cwd);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "it is the input file 'p.jsonl'")) << r.err;
  EXPECT_EQ(read_file(p), original);
}

// report's index.html is written the same way: never over an input.
TEST(FilesCli, ReportNeverWritesIndexOverAnInput) {
  const std::string original = read_file(data("scalewall_pingpong.jsonl"));
  const std::string input = write_temp_file("index.html", original);
  const std::string dir = fs::path(input).parent_path().string();
  const CliResult r = run_scalewall({"report", input, "-o", dir});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "it is the input file '" + input + "'")) << r.err;
  EXPECT_EQ(read_file(input), original);
}

TEST(FilesCli, AnOutputThatCannotBeWrittenExitsOneAndLeavesTheOldFile) {
  const std::string out = write_temp_file("fabric.toml", "old fabric\n");
  // The process's file size limit stands in for a full disk: the write fails part way.
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // inherited by the child
  rlimit small = saved;
  small.rlim_cur = 100;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const CliResult r = run_scalewall({"calibrate", data("scalewall_pingpong.jsonl"), "--out", out});
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.starts_with("error: --out: cannot write '" + out + "': the file is too large"))
      << r.err;
  EXPECT_EQ(read_file(out), "old fabric\n");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(out).parent_path())) {
    names.push_back(e.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{"fabric.toml"});  // no temporary file left

  const CliResult missing =
      run_scalewall({"calibrate", data("scalewall_pingpong.jsonl"), "--out", "/no/such/dir/f.toml"});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_TRUE(contains(missing.err, "error: --out: cannot write '/no/such/dir/f.toml': cannot "
                                    "create a file in '/no/such/dir': no such directory"))
      << missing.err;
}

// A newline or quotes in an input's name used to break the fabric file's comment lines.
TEST(FilesCli, TheWrittenFabricIsValidWhateverTheInputPathHolds) {
  const std::string odd = write_temp_file("run\n[inter]\nalpha = \"0\".jsonl",
                                          read_file(data("scalewall_pingpong.jsonl")));
  const std::string out = write_temp_file("fabric.toml", "");
  const CliResult r =
      run_scalewall({"calibrate", odd, "--out", out, "--name", "lab \"a\"\nb"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(out);
  EXPECT_TRUE(contains(text, "run\\n[inter]\\nalpha = \"0\".jsonl")) << text;
  // The file reads back: collective costs on it (run_json requires exit 0).
  const auto j = run_json({"collective", "--fabric", out, "--ranks", "8", "--bytes", "1MB"});
  EXPECT_EQ(j["command"], "collective");
}

}  // namespace
}  // namespace scalewall::testing
