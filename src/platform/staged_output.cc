// Implementation of scalewall/platform/staged_output.h.
#include "scalewall/platform/staged_output.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstring>

#include "scalewall/base/error.h"
#include "scalewall/platform/output_file.h"

namespace scalewall {

namespace fs = std::filesystem;

namespace {

// ---- removing the staging directory when the run is stopped by a signal ----
//
// SIGTERM (kill, timeout), SIGINT (Ctrl-C) and SIGHUP (a closed terminal) end the process
// without unwinding, so no destructor removes the staging directory. While one is being
// written, a handler removes it with system calls only (async-signal-safe: no allocation, no
// locks), then ends the process with the same signal, so its exit status stays the signal's.
// A signal that already has a handler, or is ignored, is left as it is.

constexpr std::array<int, 3> kStopSignals = {SIGTERM, SIGINT, SIGHUP};
char g_staging_path[PATH_MAX];              // the staging directory, absolute
volatile sig_atomic_t g_staging_known = 0;  // g_staging_path is set and the handler may use it
std::array<struct sigaction, kStopSignals.size()> g_previous{};
std::array<bool, kStopSignals.size()> g_installed{};

// Removes the files in the directory g_staging_path and then the directory; a few passes, in
// case gnuplot, still running, adds its file between the unlinks and the rmdir.
void remove_staging_in_handler() {
  for (int pass = 0; pass < 3; ++pass) {
    const int fd = ::open(g_staging_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    alignas(8) char buffer[4096];
    for (;;) {
      const ssize_t n = ::getdents64(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (ssize_t at = 0; at < n;) {
        const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + at);
        at += entry->d_reclen;
        const char* name = entry->d_name;
        if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
        if (::unlinkat(fd, name, 0) != 0 && errno == EISDIR) ::unlinkat(fd, name, AT_REMOVEDIR);
      }
    }
    ::close(fd);
    if (::rmdir(g_staging_path) == 0 || errno != ENOTEMPTY) return;
  }
}

extern "C" void on_stop_signal(int signal_number) {
  const int saved = errno;
  if (g_staging_known != 0) remove_staging_in_handler();
  // SA_RESETHAND made the action the default again: the signal, pending until the handler
  // returns, ends the process as it would have without the handler.
  ::raise(signal_number);
  errno = saved;
}

// Makes `staging` the directory the handler removes and installs the handler; false when
// another staging directory is already known or the path is too long (the directory is then
// only removed by the next run: remove_abandoned_staging).
bool watch_staging(const fs::path& staging) {
  std::error_code ec;
  const std::string path = fs::absolute(staging, ec).string();
  if (g_staging_known != 0 || ec || path.size() >= sizeof g_staging_path) return false;
  std::memcpy(g_staging_path, path.c_str(), path.size() + 1);
  g_staging_known = 1;
  for (std::size_t i = 0; i < kStopSignals.size(); ++i) {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    for (const int s : kStopSignals) sigaddset(&action.sa_mask, s);
    action.sa_flags = static_cast<int>(SA_RESETHAND);
    g_installed[i] = ::sigaction(kStopSignals[i], nullptr, &g_previous[i]) == 0 &&
                     g_previous[i].sa_handler == SIG_DFL &&
                     (g_previous[i].sa_flags & SA_SIGINFO) == 0 &&
                     ::sigaction(kStopSignals[i], &action, nullptr) == 0;
  }
  return true;
}

void unwatch_staging() {
  for (std::size_t i = 0; i < kStopSignals.size(); ++i) {
    if (g_installed[i]) ::sigaction(kStopSignals[i], &g_previous[i], nullptr);
    g_installed[i] = false;
  }
  g_staging_known = 0;
}

// True when no process `pid` is running (kill(pid, 0) finds none).
bool process_gone(long pid) {
  if (pid <= 0 || pid > INT_MAX) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// Removes the staging directories of earlier runs for the same target that ended without
// removing theirs (a crash, SIGKILL): ".NAME.scalewall-report-PID" in `parent` whose PID is
// no longer running. A directory of a running process is left alone.
void remove_abandoned_staging(const fs::path& parent, const std::string& name) {
  const std::string prefix = "." + name + ".scalewall-report-";
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    if (entry.size() <= prefix.size() || entry.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = entry.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    std::error_code ignored;
    if (process_gone(std::stol(digits))) fs::remove_all(it->path(), ignored);
  }
}

// "out/" -> "out"; ".", ".." and "" made absolute first, so the target has a name.
fs::path normal_target(const std::string& dir) {
  fs::path target = fs::path(dir).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();
  if (target.empty() || target.filename() == "." || target.filename() == "..") {
    target = fs::absolute(fs::path(dir)).lexically_normal();
    if (target.filename().empty()) target = target.parent_path();
  }
  return target;
}

}  // namespace

StagedOutput::StagedOutput(const std::string& dir) {
  if (dir.empty()) throw InputError("the output directory is empty");
  named_ = dir;
  target_ = normal_target(dir);
  std::error_code ec;
  if (fs::exists(target_, ec) && !fs::is_directory(target_, ec)) {
    throw OutputError(fmt::format("cannot create directory '{}': {}", dir,
                                  "a file of that name is in the way"));
  }
  const fs::path parent = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec || !fs::is_directory(parent)) {
    throw OutputError(fmt::format("cannot create directory '{}': {}", dir,
                                  ec ? ec.message() : "a file of that name is in the way"));
  }
  remove_abandoned_staging(parent, target_.filename().string());
  staging_ = parent / fmt::format(".{}.scalewall-report-{}", target_.filename().string(),
                                  ::getpid());
  fs::remove_all(staging_, ec);
  if (!fs::create_directory(staging_, ec) || ec) {
    throw OutputError(fmt::format("cannot write in directory '{}': {}", parent.string(),
                                  ec ? ec.message() : "cannot create a staging directory"));
  }
  watched_ = watch_staging(staging_);
}

StagedOutput::~StagedOutput() {
  if (watched_) unwatch_staging();
  std::error_code ignored;
  if (!staging_.empty()) fs::remove_all(staging_, ignored);
}

void StagedOutput::commit(const std::string& last, const std::vector<std::string>& inputs) {
  for (const auto& entry : fs::directory_iterator(staging_)) {
    refuse_output_over_inputs((named_ / entry.path().filename()).string(), inputs);
  }
  std::error_code ec;
  if (!fs::exists(target_, ec) || fs::is_empty(target_, ec)) {
    if (fs::exists(target_, ec)) fs::remove(target_, ec);
    fs::rename(staging_, target_, ec);
    if (!ec) {
      if (watched_) unwatch_staging();
      watched_ = false;
      staging_.clear();
      return;
    }
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(staging_)) {
    if (entry.path().filename() != last) files.push_back(entry.path());
  }
  files.push_back(staging_ / last);
  for (const fs::path& f : files) {
    fs::rename(f, target_ / f.filename(), ec);
    if (ec) {
      throw OutputError(fmt::format("cannot move '{}' into '{}': {}", f.filename().string(),
                                    target_.string(), ec.message()));
    }
  }
}

}  // namespace scalewall
