// Implementation of scalewall/platform/output_file.h.
#include "scalewall/platform/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>

#include "scalewall/base/error.h"
#include "scalewall/io/input_file.h"

namespace scalewall {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw OutputError(fmt::format("cannot write '{}': {}", path, why));
}

// Writes all of `text` to `fd`; false (errno set) on failure.
bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) {
      errno = EIO;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

fs::path canonical_or_same(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? fs::absolute(p, ec).lexically_normal() : c;
}

// A file that is neither regular nor a directory (a terminal, /dev/stdout, a pipe): written
// in place, since renaming over it would replace the device itself. Messages name `path`, the
// output as it was given (a link to the device).
void write_in_place(const std::string& path, const std::string& target, std::string_view text) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, write_error_reason(errno));
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  const bool wrote = write_all(fd, text);
  const int write_error = errno;
  if (::close(fd) != 0 && wrote) fail(path, write_error_reason(errno));
  if (!wrote) fail(path, write_error_reason(write_error));
}

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Standard input when it is a file an output could replace: a regular file, or the pipe it
// is read from; nothing for a terminal, /dev/null or a closed descriptor.
std::optional<struct stat> standard_input_file() {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) != 0) return std::nullopt;
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) return std::nullopt;
  return st;
}

mode_t new_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return static_cast<mode_t>(0666 & ~mask);
}

}  // namespace

std::string write_error_reason(int error) {
  switch (error) {
    case ENOENT:
      return "no such directory";
    case EACCES:
    case EPERM:
      return "permission denied";
    case ENOSPC:
      return "no space left on the device";
    case EDQUOT:
      return "disk quota exceeded";
    case EFBIG:
      return "the file is too large for the file system or the process's file size limit";
    case EROFS:
      return "the file system is read-only";
    default:
      return std::strerror(error);
  }
}

void refuse_output_over_inputs(const std::string& path, const std::vector<std::string>& inputs) {
  struct stat out {};
  const bool out_exists = ::stat(path.c_str(), &out) == 0;
  const fs::path out_canonical = canonical_or_same(path);
  std::vector<std::string> all = inputs;
  for (std::string& read : input_files_read()) all.push_back(std::move(read));
  for (const std::string& input : all) {
    if (input.empty()) continue;  // an empty name is no file
    bool same = false;
    if (is_standard_input(input)) {
      // Standard input is the file or pipe on descriptor 0, whatever name the run gave it.
      const std::optional<struct stat> in = standard_input_file();
      same = out_exists && in && same_file(*in, out);
    } else {
      struct stat in {};
      same = out_exists && ::stat(input.c_str(), &in) == 0 && same_file(in, out);
      if (!same) same = canonical_or_same(input) == out_canonical;
    }
    if (same) {
      throw InputError(fmt::format(
          "cannot write '{}': it is the input file '{}'{} (an output never replaces an input)",
          path, input, input == "-" ? " on standard input" : ""));
    }
  }
}

std::string output_target(const std::string& path) {
  // Followed link by link, as open() follows them, so that a link to a file not yet made
  // ("new.svg -> plots/new.svg") names that file too. A cycle, or more links than the
  // system follows, is left to the write, which fails on it.
  fs::path target(path);
  for (int links = 0; links < 40; ++links) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) break;
    std::error_code ec;
    const fs::path next = fs::read_symlink(target, ec);
    if (ec) break;
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  return target.string();
}

void write_output_file(const std::string& path, std::string_view text,
                       const std::vector<std::string>& inputs) {
  if (path.empty()) throw InputError("the output path is empty");
  refuse_output_over_inputs(path, inputs);

  // The file actually replaced: a symbolic link's target, so that the link stays.
  const std::string target = output_target(path);
  struct stat st {};
  mode_t mode = new_file_mode();
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(path, "it is a directory");
    if (!S_ISREG(st.st_mode)) {
      write_in_place(path, target, text);
      return;
    }
    mode = static_cast<mode_t>(st.st_mode & 07777);
  }

  const fs::path target_path(target);
  const fs::path dir = target_path.has_parent_path() ? target_path.parent_path() : fs::path(".");
  // A hidden name beside the target; its stem cut short so that a long file name still
  // leaves room for the suffix.
  const std::string stem = target_path.filename().string().substr(0, 100);
  std::string temp = (dir / ("." + stem + ".tmp-XXXXXX")).string();
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    fail(path, fmt::format("cannot create a file in '{}': {}", dir.string(),
                           write_error_reason(errno)));
  }
  const auto abandon = [&](int error) {
    ::unlink(temp.c_str());
    fail(path, write_error_reason(error));
  };
  if (!write_all(fd, text) || ::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    abandon(error);
  }
  if (::close(fd) != 0) abandon(errno);
  if (::rename(temp.c_str(), target.c_str()) != 0) abandon(errno);
  // The rename itself reaches the disk with the directory.
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

}  // namespace scalewall
