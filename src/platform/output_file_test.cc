// Tests of scalewall/platform/output_file.h: an output is written whole or not at all, through a
// temporary file renamed over the target, and never over an input.
#include "scalewall/platform/output_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "scalewall/base/error.h"
#include "scalewall/io/input_file.h"

namespace scalewall {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::path(::testing::TempDir()) / "scalewall_output_XXXXXX").string();
    EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (fs::path(path_) / name).string(); }
  const std::string& path() const { return path_; }
  // The names in the directory, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(path_)) {
      out.push_back(entry.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::string path_;
};

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void put(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

template <typename E, typename F>
std::string error_of(F&& body) {
  try {
    body();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return {};
}

TEST(OutputFile, WritesANewFileAndReplacesAnOldOne) {
  TempDir dir;
  const std::string path = dir.file("out.toml");
  write_output_file(path, "first\n");
  EXPECT_EQ(read(path), "first\n");
  write_output_file(path, "second, longer\n");
  EXPECT_EQ(read(path), "second, longer\n");
  write_output_file(path, "");
  EXPECT_EQ(read(path), "");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.toml"});  // no temporary file left
}

TEST(OutputFile, ALongFileNameStillGetsATemporaryName) {
  TempDir dir;
  const std::string path = dir.file(std::string(250, 'n') + ".toml");
  write_output_file(path, "x");
  EXPECT_EQ(read(path), "x");
  EXPECT_EQ(dir.names().size(), 1U);
}

TEST(OutputFile, ANewFileGetsTheUsualModeAndAnOldOneKeepsItsMode) {
  TempDir dir;
  const std::string path = dir.file("out.toml");
  const mode_t mask = ::umask(022);
  write_output_file(path, "x");
  ::umask(mask);
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                fs::perms::others_read);
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  write_output_file(path, "y");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST(OutputFile, ASymbolicLinkIsFollowedAndKept) {
  TempDir dir;
  const std::string target = dir.file("real.toml");
  put(target, "old");
  fs::create_symlink(target, dir.file("link.toml"));
  write_output_file(dir.file("link.toml"), "new");
  EXPECT_TRUE(fs::is_symlink(dir.file("link.toml")));
  EXPECT_EQ(read(target), "new");
}

TEST(OutputFile, NeverOverAnInput) {
  TempDir dir;
  const std::string input = dir.file("p.jsonl");
  put(input, "measurements\n");
  fs::create_symlink(input, dir.file("link.jsonl"));
  fs::create_hard_link(input, dir.file("hard.jsonl"));
  const std::string dotted = dir.path() + "/./p.jsonl";
  for (const std::string& out :
       {input, dotted, dir.file("link.jsonl"), dir.file("hard.jsonl"),
        dir.path() + "/sub/../p.jsonl"}) {
    const std::string message =
        error_of<InputError>([&] { write_output_file(out, "fabric\n", {"a.txt", input}); });
    EXPECT_EQ(message, "cannot write '" + out + "': it is the input file '" + input +
                           "' (an output never replaces an input)");
    EXPECT_EQ(read(input), "measurements\n");
  }
  // Through a relative name from the working directory.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir.path());
  const std::string message =
      error_of<InputError>([&] { write_output_file("./p.jsonl", "fabric\n", {"p.jsonl"}); });
  fs::current_path(cwd);
  EXPECT_EQ(message, "cannot write './p.jsonl': it is the input file 'p.jsonl' (an output "
                     "never replaces an input)");
  EXPECT_EQ(read(input), "measurements\n");
  // A different file is fine.
  write_output_file(dir.file("fabric.toml"), "fabric\n", {input});
  EXPECT_EQ(read(dir.file("fabric.toml")), "fabric\n");
}

TEST(OutputFile, AFailureIsAnOutputErrorAndLeavesNothing) {
  TempDir dir;
  EXPECT_EQ(error_of<OutputError>([&] { write_output_file(dir.path(), "x"); }),
            "cannot write '" + dir.path() + "': it is a directory");
  const std::string missing = dir.file("no/such/dir/f.toml");
  EXPECT_EQ(error_of<OutputError>([&] { write_output_file(missing, "x"); }),
            "cannot write '" + missing + "': cannot create a file in '" + dir.file("no/such/dir") +
                "': no such directory");
  EXPECT_TRUE(dir.names().empty());
  EXPECT_THROW(write_output_file("", "x"), InputError);
}

TEST(OutputFile, AReadOnlyDirectoryLeavesTheOldFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  TempDir dir;
  const std::string path = dir.file("out.toml");
  put(path, "old");
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
  const std::string message = error_of<OutputError>([&] { write_output_file(path, "new"); });
  EXPECT_NE(message.find("permission denied"), std::string::npos) << message;
  fs::permissions(dir.path(), fs::perms::owner_all);
  EXPECT_EQ(read(path), "old");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.toml"});
}

// A write that fails part way (here the process's file size limit stands in for a full disk:
// write() fails with EFBIG as it would with ENOSPC) leaves the old file as it was and no
// temporary file behind.
TEST(OutputFile, AWriteThatFailsPartWayLeavesTheOldFile) {
  TempDir dir;
  const std::string path = dir.file("out.toml");
  put(path, "old content\n");
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    write_output_file(path, std::string(100000, 'x'));
  } catch (const OutputError& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(message, "cannot write '" + path +
                         "': the file is too large for the file system or the process's file "
                         "size limit");
  EXPECT_EQ(read(path), "old content\n");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.toml"});
}

TEST(OutputFile, ADeviceIsWrittenInPlace) {
  if (!fs::exists("/dev/null")) GTEST_SKIP();
  write_output_file("/dev/null", "discarded");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  if (fs::exists("/dev/full")) {
    const std::string message =
        error_of<OutputError>([&] { write_output_file("/dev/full", "x"); });
    EXPECT_EQ(message, "cannot write '/dev/full': no space left on the device");
  }
}

// Every file the run read through read_input_file is an input, though the caller lists none:
// the fabric a scenario names, a file read by one reader and written by another command.
TEST(OutputFile, NeverOverAFileTheRunRead) {
  TempDir dir;
  const std::string input = dir.file("fabric.svg");
  put(input, "[link]\n");
  fs::create_hard_link(input, dir.file("hard.svg"));
  read_input_file(input, "fabric file");
  for (const std::string& out : {input, dir.file("hard.svg"), dir.path() + "/./fabric.svg"}) {
    const std::string message = error_of<InputError>([&] { write_output_file(out, "<svg/>"); });
    EXPECT_EQ(message, "cannot write '" + out + "': it is the input file '" + input +
                           "' (an output never replaces an input)");
  }
  EXPECT_EQ(read(input), "[link]\n");
  // A new file beside it is no input.
  write_output_file(dir.file("figure.svg"), "<svg/>");
  EXPECT_EQ(read(dir.file("figure.svg")), "<svg/>");
}

TEST(OutputFile, TheTargetIsFoundThroughEveryLink) {
  TempDir dir;
  fs::create_symlink("b.svg", dir.file("a.svg"));
  fs::create_symlink(dir.file("sub/c.svg"), dir.file("b.svg"));  // c.svg not made yet
  EXPECT_EQ(output_target(dir.file("a.svg")), dir.file("sub/c.svg"));
  EXPECT_EQ(output_target(dir.file("plain.svg")), dir.file("plain.svg"));
  fs::create_directory(dir.file("sub"));
  write_output_file(dir.file("a.svg"), "new");
  EXPECT_TRUE(fs::is_symlink(dir.file("a.svg")));
  EXPECT_TRUE(fs::is_symlink(dir.file("b.svg")));
  EXPECT_EQ(read(dir.file("sub/c.svg")), "new");
  // A link to a device is written in place, and a failure names the link as given.
  if (fs::exists("/dev/full")) {
    fs::create_symlink("/dev/full", dir.file("full.toml"));
    EXPECT_EQ(error_of<OutputError>([&] { write_output_file(dir.file("full.toml"), "x"); }),
              "cannot write '" + dir.file("full.toml") + "': no space left on the device");
    EXPECT_TRUE(fs::is_symlink(dir.file("full.toml")));
  }
}

}  // namespace
}  // namespace scalewall
