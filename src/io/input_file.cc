// Implementation of scalewall/io/input_file.h.
//
// The path is checked with stat() first, so that a FIFO or device is refused before it is
// opened; it is then opened with O_NONBLOCK (an open of a FIFO that slipped in between never
// waits for a writer) and checked again with fstat() on the descriptor actually read, so the
// type check and the read cannot disagree.
#include "scalewall/io/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

// Closes a descriptor when it goes out of scope.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string reason(int error) {
  switch (error) {
    case ENOENT:
      return "no such file";
    case ENOTDIR:
      return "a part of the path is not a directory";
    case EACCES:
    case EPERM:
      return "permission denied";
    case ELOOP:
      return "too many levels of symbolic links";
    case ENAMETOOLONG:
      return "the name is too long";
    default:
      return std::strerror(error);
  }
}

std::string limit_words(std::uint64_t max_bytes) {
  return fmt::format("the limit for an input file is {} bytes", max_bytes);
}

void require_regular(const struct stat& st, const std::string& path, std::string_view what) {
  if (S_ISREG(st.st_mode)) return;
  if (S_ISDIR(st.st_mode)) {
    throw InputError(fmt::format("{} '{}' is a directory, not a file", what, path));
  }
  throw InputError(fmt::format("{} '{}' is {}, not a regular file (scalewall reads regular "
                               "files only)",
                               what, path, file_type_words(static_cast<unsigned>(st.st_mode))));
}

// Reads `fd` to its end, at most `max_bytes`.
std::string read_to_end(int fd, const std::string& path, std::string_view what,
                        std::uint64_t max_bytes, std::size_t expected) {
  std::string text;
  text.reserve(expected);
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(fmt::format("error reading {} '{}' after {} bytes: {}", what, path,
                                   text.size(), reason(errno)));
    }
    if (n == 0) break;
    const auto got = static_cast<std::size_t>(n);
    if (text.size() + got > max_bytes) {
      throw InputError(fmt::format("{} '{}' is more than {} bytes, too large: {}", what, path,
                                   max_bytes, limit_words(max_bytes)));
    }
    text.append(buffer, got);
  }
  return text;
}

// Standard input ("-", /dev/stdin, ...; `name` is the one given): a pipe or a terminal is read
// as it comes, to its end, from the descriptor itself (opening /dev/stdin anew would refuse a
// pipe as a FIFO); a directory is refused.
std::string read_standard_input(const std::string& name, std::string_view what,
                                std::uint64_t max_bytes) {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) != 0) {
    throw InputError(
        fmt::format("cannot read {} '{}' (standard input): {}", what, name, reason(errno)));
  }
  if (S_ISDIR(st.st_mode)) {
    throw InputError(
        fmt::format("{} '{}' (standard input) is a directory, not a file", what, name));
  }
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    throw InputError(fmt::format("{} '{}' (standard input) is {} bytes, too large: {}", what,
                                 name, st.st_size, limit_words(max_bytes)));
  }
  // Standard input is read once: a later argument naming it finds nothing, and says why.
  static bool already_read = false;
  std::string text = read_to_end(STDIN_FILENO, name, what, max_bytes, 0);
  if (text.empty() && already_read) {
    throw InputError(fmt::format("{} '{}': standard input was already read by an earlier "
                                 "argument (it can be read once)",
                                 what, name));
  }
  already_read = true;
  return text;
}

std::mutex& read_files_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<std::string>& read_files() {
  static std::vector<std::string> files;
  return files;
}

// Adds `path` to input_files_read(): done as the file is opened, before a byte is read, so
// that a reader that fails part-way has still recorded it.
void record_read(const std::string& path) {
  const std::lock_guard<std::mutex> lock(read_files_mutex());
  std::vector<std::string>& files = read_files();
  if (std::find(files.begin(), files.end(), path) == files.end()) files.push_back(path);
}

}  // namespace

std::vector<std::string> input_files_read() {
  const std::lock_guard<std::mutex> lock(read_files_mutex());
  return read_files();
}

bool is_standard_input(std::string_view path) {
  return path == "-" || path == "/dev/stdin" || path == "/dev/fd/0" || path == "/proc/self/fd/0";
}

bool next_line(std::string_view& text, std::string_view& line) {
  if (text.empty()) return false;
  const std::size_t end = text.find('\n');
  line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  return true;
}

std::string_view file_type_words(unsigned mode) {
  const auto m = static_cast<mode_t>(mode);
  if (S_ISREG(m)) return "a regular file";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a named pipe (FIFO)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

std::string read_input_file(const std::string& path, std::string_view what,
                            std::uint64_t max_bytes) {
  if (path.empty()) throw InputError(fmt::format("{}: the path is empty", what));
  if (is_standard_input(path)) {
    record_read(path);
    return read_standard_input(path, what, max_bytes);
  }
  if (path.find('\0') != std::string::npos) {
    throw InputError(fmt::format("{} path '{}' holds a NUL character", what, path));
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw InputError(fmt::format("cannot open {} '{}': {}", what, path, reason(errno)));
  }
  require_regular(st, path, what);
  const auto too_large = [&](std::uint64_t size) {
    return InputError(fmt::format("{} '{}' is {} bytes, too large: {}", what, path, size,
                                  limit_words(max_bytes)));
  };
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    throw too_large(static_cast<std::uint64_t>(st.st_size));
  }

  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    throw InputError(fmt::format("cannot open {} '{}': {}", what, path, reason(errno)));
  }
  record_read(path);
  if (::fstat(fd.get(), &st) != 0) {
    throw InputError(fmt::format("cannot read {} '{}': {}", what, path, reason(errno)));
  }
  require_regular(st, path, what);
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    throw too_large(static_cast<std::uint64_t>(st.st_size));
  }

  return read_to_end(fd.get(), path, what, max_bytes, static_cast<std::size_t>(st.st_size));
}

}  // namespace scalewall
