// Tests of scalewall/platform/staged_output.h: a directory of outputs appears whole on commit,
// and nothing of it when the run stops before.
#include "scalewall/platform/staged_output.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scalewall/base/error.h"
#include "scalewall/platform/output_file.h"
#include "test_support.h"

namespace scalewall {
namespace {

namespace fs = std::filesystem;

class StagedOutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "scalewall_staged_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  static void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }
  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path root_;
};

TEST_F(StagedOutputTest, CommitMovesTheStagedFilesIntoANewDirectory) {
  const fs::path target = root_ / "deep" / "out";
  {
    StagedOutput out((target.string() + "/"));
    EXPECT_EQ(out.target(), target);
    EXPECT_EQ(out.staging().parent_path(), root_ / "deep");
    EXPECT_FALSE(fs::exists(target));
    write(out.staging() / "a.svg", "figure");
    write(out.staging() / "index.html", "page");
    out.commit("index.html", {});
  }
  EXPECT_EQ(read(target / "a.svg"), "figure");
  EXPECT_EQ(read(target / "index.html"), "page");
  EXPECT_EQ(std::distance(fs::directory_iterator(root_ / "deep"), fs::directory_iterator{}), 1);
}

TEST_F(StagedOutputTest, CommitIntoAFilledDirectoryKeepsItsOtherFiles) {
  const fs::path target = root_ / "out";
  fs::create_directory(target);
  write(target / "old.txt", "kept");
  write(target / "index.html", "old page");
  {
    StagedOutput out(target.string());
    write(out.staging() / "index.html", "new page");
    out.commit("index.html", {});
  }
  EXPECT_EQ(read(target / "old.txt"), "kept");
  EXPECT_EQ(read(target / "index.html"), "new page");
}

TEST_F(StagedOutputTest, WithoutCommitNothingIsLeft) {
  const fs::path target = root_ / "out";
  fs::path staging;
  {
    StagedOutput out(target.string());
    staging = out.staging();
    write(staging / "a.svg", "figure");
  }
  EXPECT_FALSE(fs::exists(target));
  EXPECT_FALSE(fs::exists(staging));
}

TEST_F(StagedOutputTest, RefusesAnEmptyNameAndAFileInTheWay) {
  EXPECT_EQ(input_error_of([] { StagedOutput out(""); }), "the output directory is empty");
  write(root_ / "taken", "x");
  // A directory that cannot be made is a failed write (exit status 1), not bad input.
  try {
    StagedOutput out((root_ / "taken").string());
    ADD_FAILURE() << "a file in the way was accepted";
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot create directory '" + (root_ / "taken").string() +
                                         "': a file of that name is in the way");
  }
}

TEST_F(StagedOutputTest, CommitNeverReplacesAnInput) {
  const fs::path target = root_ / "out";
  fs::create_directory(target);
  write(target / "run.jsonl", "measured");
  StagedOutput out(target.string());
  write(out.staging() / "run.jsonl", "figure");
  write(out.staging() / "index.html", "page");
  const std::string message =
      input_error_of([&] { out.commit("index.html", {(target / "run.jsonl").string()}); });
  EXPECT_TRUE(contains(message, "run.jsonl")) << message;
  EXPECT_EQ(read(target / "run.jsonl"), "measured");
  EXPECT_FALSE(fs::exists(target / "index.html"));
}

// The names in `dir` that hold "scalewall-report": staging directories.
std::vector<std::string> staging_names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find("scalewall-report") != std::string::npos) names.push_back(name);
  }
  return names;
}

// A process stopped by SIGTERM, SIGINT or SIGHUP while it writes removes its staging directory
// (files and all) and still ends by that signal.
TEST_F(StagedOutputTest, AStopSignalRemovesTheStagingDirectory) {
  for (const int stop : {SIGTERM, SIGINT, SIGHUP}) {
    SCOPED_TRACE(stop);
    const fs::path target = root_ / ("out-" + std::to_string(stop));
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      StagedOutput out(target.string());
      write(out.staging() / "figure.svg", "<svg/>");
      write(out.staging() / ".figure.png.tmp", "half");
      ::raise(stop);
      ::_exit(0);  // not reached: the signal ends the process
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status)) << status;
    if (WIFSIGNALED(status)) {
      EXPECT_EQ(WTERMSIG(status), stop);
    }
    EXPECT_EQ(staging_names(root_), std::vector<std::string>{});
    EXPECT_FALSE(fs::exists(target));
  }
  // The handler is gone with the StagedOutput: the process's own disposition is back.
  { StagedOutput out((root_ / "after").string()); }
  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGTERM, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

// A staging directory that a crashed run left for the same target is removed by the next run
// once its process is gone; a live process's, and other targets', are left alone.
TEST_F(StagedOutputTest, AnAbandonedStagingDirectoryIsRemovedByTheNextRun) {
  const pid_t dead = ::fork();
  ASSERT_GE(dead, 0);
  if (dead == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(dead, nullptr, 0), dead);
  const std::string abandoned = ".out.scalewall-report-" + std::to_string(dead);
  const std::string live = ".out.scalewall-report-" + std::to_string(::getppid());
  const std::string other = ".other.scalewall-report-" + std::to_string(dead);
  for (const std::string& name : {abandoned, live, other}) {
    fs::create_directory(root_ / name);
    write(root_ / name / "figure.svg", "<svg/>");
  }
  {
    StagedOutput out((root_ / "out").string());
    EXPECT_FALSE(fs::exists(root_ / abandoned));
    EXPECT_TRUE(fs::exists(root_ / live / "figure.svg"));
    EXPECT_TRUE(fs::exists(root_ / other / "figure.svg"));
  }
  EXPECT_TRUE(fs::exists(root_ / live));
}

// A refusal names the staged file under the directory as the caller named it, not made
// absolute ("./x.svg" for ".").
TEST_F(StagedOutputTest, ARefusalNamesTheFileUnderTheDirectoryAsNamed) {
  write(root_ / "run.svg", "measured");
  const fs::path cwd = fs::current_path();
  fs::current_path(root_);
  std::string message;
  {
    StagedOutput out(".");
    write(out.staging() / "run.svg", "figure");
    message = input_error_of([&] { out.commit("run.svg", {"run.svg"}); });
  }
  fs::current_path(cwd);
  EXPECT_EQ(message, "cannot write './run.svg': it is the input file 'run.svg' (an output never "
                     "replaces an input)");
  EXPECT_EQ(read(root_ / "run.svg"), "measured");
}

}  // namespace
}  // namespace scalewall
