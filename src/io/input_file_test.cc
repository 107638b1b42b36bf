// Tests of scalewall/io/input_file.h: regular files are read whole; a directory, a device, a
// named pipe or a socket is refused at once naming the path and what it is; a file above the
// size limit is refused.
#include "scalewall/io/input_file.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scalewall/base/error.h"
#include "test_support.h"

namespace scalewall {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::path(::testing::TempDir()) / "scalewall_input_XXXXXX").string();
    const char* made = ::mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (fs::path(path_) / name).string(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return path;
}

TEST(InputFile, ReadsARegularFileWhole) {
  TempDir dir;
  std::string text = "line 1\nline 2\n";
  text += std::string(200000, 'x');  // more than one read's buffer
  text += '\0';
  text += "after a NUL\n";
  const std::string path = write(dir.file("a.txt"), text);
  EXPECT_EQ(read_input_file(path, "measurement file"), text);
  EXPECT_EQ(read_input_file(write(dir.file("empty"), ""), "times file"), "");
}

TEST(InputFile, FollowsASymbolicLinkToARegularFile) {
  TempDir dir;
  const std::string target = write(dir.file("t.toml"), "name = \"x\"\n");
  fs::create_symlink(target, dir.file("link.toml"));
  EXPECT_EQ(read_input_file(dir.file("link.toml"), "fabric file"), "name = \"x\"\n");
}

TEST(InputFile, AMissingFileIsNamed) {
  TempDir dir;
  const std::string missing = dir.file("missing.toml");
  EXPECT_EQ(input_error_of([&] { read_input_file(missing, "fabric file"); }),
            "cannot open fabric file '" + missing + "': no such file");
  EXPECT_TRUE(contains(input_error_of([&] { read_input_file("", "fabric file"); }), "empty"));
}

TEST(InputFile, ADirectoryIsSaidToBeADirectory) {
  TempDir dir;
  EXPECT_EQ(input_error_of([&] { read_input_file(dir.path(), "fabric file"); }),
            "fabric file '" + dir.path() + "' is a directory, not a file");
}

TEST(InputFile, DevicesAreRefused) {
  for (const std::string device : {"/dev/zero", "/dev/urandom", "/dev/null"}) {
    if (!fs::exists(device)) continue;
    const std::string message =
        input_error_of([&] { read_input_file(device, "measurement file"); });
    EXPECT_EQ(message, "measurement file '" + device +
                           "' is a character device, not a regular file (scalewall reads "
                           "regular files only)");
  }
}

TEST(InputFile, ANamedPipeIsRefusedAtOnceWithoutBlocking) {
  TempDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  const auto start = std::chrono::steady_clock::now();
  const std::string message = input_error_of([&] { read_input_file(fifo, "times file"); });
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(message, "times file '" + fifo +
                         "' is a named pipe (FIFO), not a regular file (scalewall reads "
                         "regular files only)");
  // No writer ever opens the pipe: a blocking open would never return at all.
  EXPECT_LT(elapsed, std::chrono::seconds(5));
}

TEST(InputFile, ASocketIsRefused) {
  TempDir dir;
  const std::string path = dir.file("s");
  sockaddr_un address{};
  if (path.size() >= sizeof address.sun_path) GTEST_SKIP() << "temporary path too long";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  const std::string message = input_error_of([&] { read_input_file(path, "scenario file"); });
  ::close(fd);
  EXPECT_TRUE(contains(message, "'" + path + "' is a socket, not a regular file")) << message;
}

TEST(InputFile, AFileAboveTheLimitIsRefused) {
  TempDir dir;
  const std::string path = write(dir.file("big"), std::string(1001, 'a'));
  EXPECT_EQ(read_input_file(path, "times file", 1001).size(), 1001U);
  EXPECT_EQ(input_error_of([&] { read_input_file(path, "times file", 1000); }),
            "times file '" + path +
                "' is 1001 bytes, too large: the limit for an input file is 1000 bytes");
}

// A file whose size says nothing of its content (a /proc file reports 0 bytes), or one that
// grows while it is read, is cut off at the limit with an error, never read past it.
TEST(InputFile, TheLimitHoldsWhileReading) {
  if (!fs::exists("/proc/self/status")) GTEST_SKIP();
  ASSERT_EQ(fs::file_size("/proc/self/status"), 0U);
  EXPECT_EQ(input_error_of([&] { read_input_file("/proc/self/status", "times file", 10); }),
            "times file '/proc/self/status' is more than 10 bytes, too large: the limit for an "
            "input file is 10 bytes");
  EXPECT_FALSE(read_input_file("/proc/self/status", "times file").empty());
}

// A sparse file above 256 MB (it takes no disk space) is refused without being read.
TEST(InputFile, AFileAbove256MBIsRefused) {
  TempDir dir;
  const std::string path = write(dir.file("huge.jsonl"), "");
  fs::resize_file(path, kMaxInputFileBytes + 1);
  EXPECT_EQ(input_error_of([&] { read_input_file(path, "measurement file"); }),
            "measurement file '" + path +
                "' is 256000001 bytes, too large: the limit for an input file is 256000000 "
                "bytes");
  fs::resize_file(path, 1000);
  EXPECT_EQ(read_input_file(path, "measurement file"), std::string(1000, '\0'));
}

TEST(InputFile, TheStatedLimitIs256MB) { EXPECT_EQ(kMaxInputFileBytes, 256'000'000U); }

TEST(InputFile, AnUnreadableFileIsNamed) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
  TempDir dir;
  const std::string path = write(dir.file("secret"), "x");
  fs::permissions(path, fs::perms::none);
  EXPECT_EQ(input_error_of([&] { read_input_file(path, "times file"); }),
            "cannot open times file '" + path + "': permission denied");
}

// Standard input taken from a pipe holding `text` (or from a file: from_file), given back to
// the process's own standard input when it goes out of scope.
class RedirectedStdin {
 public:
  RedirectedStdin() : saved_(::dup(STDIN_FILENO)) {}
  ~RedirectedStdin() {
    ::dup2(saved_, STDIN_FILENO);
    ::close(saved_);
  }
  RedirectedStdin(const RedirectedStdin&) = delete;
  RedirectedStdin& operator=(const RedirectedStdin&) = delete;

  bool ok() const { return saved_ >= 0; }
  // Standard input is now a pipe that holds `text` and is closed at the writing end.
  bool from_pipe(const std::string& text) {
    int fds[2];
    if (::pipe(fds) != 0) return false;
    const bool moved = ::dup2(fds[0], STDIN_FILENO) == STDIN_FILENO;
    ::close(fds[0]);
    const bool written = ::write(fds[1], text.data(), text.size()) ==
                         static_cast<ssize_t>(text.size());
    ::close(fds[1]);
    return moved && written;
  }
  // Standard input is now the file at `path`.
  bool from_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return false;
    const bool moved = ::dup2(fd, STDIN_FILENO) == STDIN_FILENO;
    ::close(fd);
    return moved;
  }

 private:
  int saved_;
};

// "-" reads standard input, a pipe included, under the same limit.
TEST(InputFile, DashIsStandardInput) {
  RedirectedStdin stdin_redirect;
  ASSERT_TRUE(stdin_redirect.ok());
  const std::string text = "1.0\n2.0\n";
  ASSERT_TRUE(stdin_redirect.from_pipe(text));
  std::string read_back;
  std::string message;
  try {
    read_back = read_input_file("-", "times file");
  } catch (const InputError& e) {
    message = e.what();
  }
  // A second read finds the pipe at its end, and says so.
  const std::string again = input_error_of([] { read_input_file("-", "times file"); });
  TempDir dir;
  ASSERT_TRUE(stdin_redirect.from_file(write(dir.file("big"), std::string(100, 'x'))));
  const std::string too_big = input_error_of([&] { read_input_file("-", "times file", 10); });
  EXPECT_EQ(message, "");
  EXPECT_EQ(read_back, text);
  EXPECT_EQ(again, "times file '-': standard input was already read by an earlier argument (it "
                   "can be read once)");
  EXPECT_EQ(too_big,
            "times file '-' (standard input) is 100 bytes, too large: the limit for an input "
            "file is 10 bytes");
}

// /dev/stdin names standard input too: a pipe there is read, not refused as a FIFO, under
// the same limit, and the message names the path given.
TEST(InputFile, DevStdinIsStandardInput) {
  EXPECT_TRUE(is_standard_input("-"));
  EXPECT_TRUE(is_standard_input("/dev/stdin"));
  EXPECT_TRUE(is_standard_input("/dev/fd/0"));
  EXPECT_TRUE(is_standard_input("/proc/self/fd/0"));
  EXPECT_FALSE(is_standard_input("/dev/stdout"));
  EXPECT_FALSE(is_standard_input("./-"));
  RedirectedStdin stdin_redirect;
  ASSERT_TRUE(stdin_redirect.ok());
  const std::string text = "0,1.02\n1,0.98\n";
  ASSERT_TRUE(stdin_redirect.from_pipe(text));
  std::string read_back;
  std::string message;
  try {
    read_back = read_input_file("/dev/stdin", "times file");
  } catch (const InputError& e) {
    message = e.what();
  }
  TempDir dir;
  ASSERT_TRUE(stdin_redirect.from_file(write(dir.file("big"), std::string(100, 'x'))));
  const std::string too_big =
      input_error_of([&] { read_input_file("/dev/stdin", "times file", 10); });
  EXPECT_EQ(message, "");
  EXPECT_EQ(read_back, text);
  EXPECT_EQ(too_big,
            "times file '/dev/stdin' (standard input) is 100 bytes, too large: the limit for an "
            "input file is 10 bytes");
}

TEST(InputFile, FileTypeWords) {
  EXPECT_EQ(file_type_words(S_IFREG), "a regular file");
  EXPECT_EQ(file_type_words(S_IFDIR), "a directory");
  EXPECT_EQ(file_type_words(S_IFIFO), "a named pipe (FIFO)");
  EXPECT_EQ(file_type_words(S_IFCHR), "a character device");
  EXPECT_EQ(file_type_words(S_IFBLK), "a block device");
  EXPECT_EQ(file_type_words(S_IFSOCK), "a socket");
}

}  // namespace
}  // namespace scalewall

namespace scalewall {
namespace {

std::vector<std::string> AllLines(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view line; next_line(text, line);) out.emplace_back(line);
  return out;
}

// Lines as the readers see them: a last line without '\n' counts, a final '\n' adds no empty
// line, an empty line in the middle stays, and '\r' is left for the reader to trim.
TEST(NextLine, SplitsAtNewlinesOnly) {
  EXPECT_EQ(AllLines("a\nb\r\n\nc"), (std::vector<std::string>{"a", "b\r", "", "c"}));
  EXPECT_EQ(AllLines("x\n"), (std::vector<std::string>{"x"}));
  EXPECT_EQ(AllLines("\n"), (std::vector<std::string>{""}));
  EXPECT_TRUE(AllLines("").empty());
}

// Every file read is recorded by the name it was given, once, so that no output replaces it;
// a file that could not be opened is not.
TEST(InputFile, EveryFileReadIsRecordedByItsName) {
  TempDir dir;
  const std::string path = write(dir.file("fabric.toml"), "name = \"x\"\n");
  fs::create_symlink(path, dir.file("link.toml"));
  read_input_file(path, "fabric file");
  read_input_file(path, "fabric file");
  read_input_file(dir.file("link.toml"), "fabric file");
  input_error_of([&] { read_input_file(dir.file("missing.toml"), "fabric file"); });
  const std::vector<std::string> read = input_files_read();
  EXPECT_EQ(std::count(read.begin(), read.end(), path), 1);
  EXPECT_EQ(std::count(read.begin(), read.end(), dir.file("link.toml")), 1);
  EXPECT_EQ(std::count(read.begin(), read.end(), dir.file("missing.toml")), 0);
}

}  // namespace
}  // namespace scalewall
