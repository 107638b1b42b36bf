// Implementation of scalewall/platform/gnuplot.h: the one place that runs gnuplot.
#include "scalewall/platform/gnuplot.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include <fmt/format.h>

#include "scalewall/base/error.h"
#include "scalewall/platform/output_file.h"

extern char** environ;

namespace scalewall {
namespace {

// ---- the child process ----

std::string read_to_end(int fd) {
  std::string text;
  std::array<char, 4096> buffer{};
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0) {
      text.append(buffer.data(), static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  return text;
}

struct ChildResult {
  bool timed_out = false;
  int status = 0;  // waitpid status
  std::string err;
};

// Runs `program -d` (gnuplot: no init files) with `input` on stdin, stdout to /dev/null.
ChildResult run_with_input(const std::string& program, const std::string& input,
                           std::chrono::seconds timeout) {
  int in[2];
  int err[2];
  // A socket, not a pipe, for stdin: send() with MSG_NOSIGNAL reports a child that died
  // early as EPIPE instead of killing this process with SIGPIPE.
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
    throw PlotError(fmt::format("cannot start gnuplot: socketpair: {}", std::strerror(errno)));
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    const int e = errno;
    ::close(in[0]);
    ::close(in[1]);
    throw PlotError(fmt::format("cannot start gnuplot: pipe: {}", std::strerror(e)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  std::string arg0 = program;
  std::string arg1 = "-d";
  std::array<char*, 3> argv = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[1]);
  ::close(err[1]);
  if (spawned != 0) {
    ::close(in[0]);
    ::close(err[0]);
    throw PlotError(fmt::format("cannot run gnuplot '{}': {}", program, std::strerror(spawned)));
  }

  ChildResult result;
  std::thread err_reader([&] { result.err = read_to_end(err[0]); });
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const auto left_ms = [&] {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::max<std::int64_t>(0, left.count()));
  };
  std::size_t sent = 0;
  while (sent < input.size()) {
    pollfd p{in[0], POLLOUT, 0};
    const int ready = ::poll(&p, 1, left_ms());
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      result.timed_out = true;
      break;
    }
    const ssize_t n = ::send(in[0], input.data() + sent, input.size() - sent,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
      continue;
    } else {
      break;  // the child closed its end; its exit status says why
    }
  }
  ::close(in[0]);
  for (;;) {
    const pid_t done = ::waitpid(pid, &result.status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (result.timed_out || left_ms() == 0) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &result.status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  err_reader.join();
  ::close(err[0]);
  return result;
}

// Why the plot file at `path` is not a whole file of its format; nothing when it is.
std::optional<std::string> incomplete_plot_file(const std::string& path, PlotFormat format) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (!in || size <= 0) return "it is empty";
  const std::streamoff tail_size = std::min<std::streamoff>(size, 64);
  std::string tail(static_cast<std::size_t>(tail_size), '\0');
  in.seekg(size - tail_size);
  in.read(tail.data(), tail_size);
  if (!in) return "it cannot be read back";
  switch (format) {
    case PlotFormat::kSvg: {
      while (!tail.empty() && std::isspace(static_cast<unsigned char>(tail.back())) != 0) {
        tail.pop_back();
      }
      if (tail.size() < 6 || tail.compare(tail.size() - 6, 6, "</svg>") != 0) {
        return std::string("it does not end with </svg>");
      }
      return std::nullopt;
    }
    case PlotFormat::kPng: {
      // The last chunk of every PNG: length 0, type IEND, its fixed CRC.
      static constexpr std::string_view kIend("\0\0\0\0IEND\xae\x42\x60\x82", 12);
      if (tail.size() < kIend.size() ||
          std::string_view(tail).substr(tail.size() - kIend.size()) != kIend) {
        return std::string("it does not end with the IEND chunk");
      }
      return std::nullopt;
    }
  }
  SCALEWALL_CHECK(false && "unknown PlotFormat");
  return std::nullopt;
}

// fsync of the file at `path`; false (errno set) when the data cannot be made durable.
bool flushed_to_disk(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  const int e = errno;
  ::close(fd);
  errno = e;
  return ok;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

// ---- running gnuplot ----

std::optional<std::string> find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  for (;;) {
    const std::size_t colon = rest.find(':');
    // An empty entry of $PATH is the current directory.
    const std::string_view dir = colon == 0 || rest.empty() ? std::string_view(".")
                                                            : rest.substr(0, colon);
    const std::string candidate = fmt::format("{}/gnuplot", dir);
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

namespace {

// The gnuplot executable `options` names, or the one on $PATH. Throws PlotError when there is
// none or it cannot be run.
std::string gnuplot_to_run(const RenderOptions& options) {
  if (options.gnuplot.empty()) {
    const std::optional<std::string> found = find_gnuplot();
    if (!found) {
      throw PlotError(
          "gnuplot is not on PATH: plots need it (Debian: apt-get install gnuplot-nox)");
    }
    return *found;
  }
  if (::access(options.gnuplot.c_str(), X_OK) != 0) {
    throw PlotError(fmt::format("gnuplot '{}' cannot be run: {} (Debian: apt-get install "
                                "gnuplot-nox)",
                                options.gnuplot, std::strerror(errno)));
  }
  return options.gnuplot;
}

}  // namespace

namespace {

namespace fs = std::filesystem;

// True when the plot's target exists and is neither a regular file nor a directory (a device
// such as /dev/full or /dev/stdout): it is written in place, never renamed over.
bool written_in_place(const std::string& target) {
  struct stat st {};
  return ::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

// Where gnuplot draws: beside the target, so that the rename is atomic; in the temporary
// directory for a target written in place, whose directory (/dev) takes no new files.
fs::path temporary_plot_path(const std::string& target, bool in_place) {
  const std::string name =
      fmt::format(".{}.{}.tmp", fs::path(target).filename().string(), ::getpid());
  if (!in_place) return fs::path(target).replace_filename(name);
  std::error_code ec;
  const fs::path dir = fs::temp_directory_path(ec);
  return (ec ? fs::path("/tmp") : dir) / name;
}

// Runs gnuplot to draw `plot` into `temp` and checks that the file is whole and on disk.
// Returns gnuplot's warnings. Throws PlotError, having removed `temp`, when it is not.
std::string draw_whole_file(const Plot& plot, PlotFormat format, const std::string& gnuplot,
                            const fs::path& temp, const std::string& output_path,
                            std::chrono::seconds timeout) {
  const auto discard = [&] {
    std::error_code ignored;
    fs::remove(temp, ignored);
  };
  const ChildResult r = [&] {
    try {
      return run_with_input(gnuplot, gnuplot_script(plot, format, temp.string()), timeout);
    } catch (...) {
      discard();
      throw;
    }
  }();
  const std::string err = trimmed(r.err);
  if (r.timed_out) {
    discard();
    throw PlotError(fmt::format("gnuplot did not finish '{}' within {} s", output_path,
                                timeout.count()));
  }
  if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
    discard();
    const std::string how = WIFEXITED(r.status)
                                ? fmt::format("exit status {}", WEXITSTATUS(r.status))
                                : fmt::format("signal {}", WTERMSIG(r.status));
    throw PlotError(fmt::format("gnuplot failed drawing '{}' ({}): {}", output_path, how,
                                err.empty() ? "no message" : err));
  }
  std::error_code ec;
  const auto size = fs::file_size(temp, ec);
  if (ec || size == 0) {
    discard();
    throw PlotError(fmt::format("gnuplot wrote nothing for '{}'{}", output_path,
                                err.empty() ? "" : ": " + err));
  }
  // gnuplot exits 0 even when the disk fills under it: a file that does not end as its format
  // must (an SVG's closing tag, a PNG's IEND chunk) is a failed write, never a plot.
  if (const std::optional<std::string> why = incomplete_plot_file(temp.string(), format)) {
    discard();
    throw PlotError(fmt::format("gnuplot wrote an incomplete {} for '{}' ({}){}",
                                plot_format_name(format), output_path, *why,
                                err.empty() ? "" : ": " + err));
  }
  if (!flushed_to_disk(temp.string())) {
    const int e = errno;
    discard();
    throw PlotError(fmt::format("cannot write plot '{}': {}", output_path, write_error_reason(e)));
  }
  return err;
}

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

std::string render_plot(const Plot& plot, const std::string& output_path,
                        const RenderOptions& options) {
  const PlotFormat format = plot_format_for_path(output_path);
  refuse_output_over_inputs(output_path, options.inputs);
  const std::string gnuplot = gnuplot_to_run(options);

  // A symbolic link is followed: the file it points to is replaced and the link stays.
  const std::string target = output_target(output_path);
  const bool in_place = written_in_place(target);
  const fs::path temp = temporary_plot_path(target, in_place);
  {
    std::ofstream probe(temp);
    if (!probe) {
      throw OutputError(fmt::format("cannot write plot '{}': {}", output_path,
                                    write_error_reason(errno)));
    }
  }
  const std::string err =
      draw_whole_file(plot, format, gnuplot, temp, output_path, options.timeout);
  std::error_code ec;
  if (in_place) {
    // A device is written in place, as write_output_file writes it ("no space left on the
    // device" for /dev/full).
    const std::string bytes = file_bytes(temp);
    fs::remove(temp, ec);
    write_output_file(output_path, bytes, options.inputs);
    return err;
  }
  fs::rename(temp, target, ec);
  if (ec) {
    const std::string why = write_error_reason(ec.value());
    fs::remove(temp, ec);
    throw OutputError(fmt::format("cannot write plot '{}': {}", output_path, why));
  }
  return err;
}

}  // namespace scalewall
