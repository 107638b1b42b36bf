// Tests of scalewall/platform/staged_output.h: a directory of outputs appears whole on commit,
// and nothing of it when the run stops before.
#include "scalewall/platform/staged_output.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

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

}  // namespace
}  // namespace scalewall
