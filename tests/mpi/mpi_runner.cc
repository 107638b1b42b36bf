// Runs scalewall-mpi under mpirun with a timeout; see tests/mpi/mpi_runner.h.
#include "tests/mpi/mpi_runner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <sstream>

namespace scalewall::testing {
namespace {

double now_s() {
  using Seconds = std::chrono::duration<double>;
  return std::chrono::duration_cast<Seconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  std::string word;
  while (in >> word) words.push_back(word);
  return words;
}

MpiResult run_child(std::vector<std::string> argv_text, double timeout_s) {
  MpiResult result;
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) {
    ADD_FAILURE() << "pipe() failed";
    return result;
  }
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);

  const double start = now_s();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    ::setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
    // Under the sanitizer build: Open MPI's own allocations at exit are not the harness's
    // leaks (see tests/mpi/lsan_openmpi.supp). Harmless without a sanitizer.
    ::setenv("OMPI_MCA_mca_base_component_disable_dlclose", "1", 1);
    const auto append = [](const char* name, const std::string& option) {
      const char* old = std::getenv(name);
      const std::string value = old != nullptr && *old != '\0' ? old + (":" + option) : option;
      ::setenv(name, value.c_str(), 1);
    };
    append("ASAN_OPTIONS", "fast_unwind_on_malloc=0");
    // print_suppressions=0: the "Suppressions used" table LeakSanitizer prints at exit would
    // otherwise land among the rows of the tool's own stderr table.
    append("LSAN_OPTIONS", std::string("print_suppressions=0:suppressions=") +
                               SCALEWALL_SOURCE_DIR + "/tests/mpi/lsan_openmpi.supp");
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so that the group exists before any kill below
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);

  std::array<pollfd, 2> fds{{{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  int open_fds = 2;
  int status = 0;
  bool reaped = false;
  double kill_at = start + timeout_s;
  int kill_stage = 0;  // 0: none yet, 1: SIGTERM sent, 2: SIGKILL sent
  // Read both pipes until both close and the child has exited; after the child exits, a
  // grandchild that keeps a pipe open gets two more seconds.
  for (;;) {
    const double now = now_s();
    if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      kill_at = std::min(kill_at, now + 2.0);
    }
    if (open_fds == 0 && reaped) break;
    if (now >= kill_at) {
      if (!reaped) result.timed_out = true;
      if (kill_stage == 0) {
        ::kill(-pid, SIGTERM);
        kill_stage = 1;
        kill_at = now + 2.0;
      } else if (kill_stage == 1) {
        ::kill(-pid, SIGKILL);
        kill_stage = 2;
        kill_at = now + 2.0;
      } else {
        break;  // give up on the pipes
      }
    }
    const int ready = ::poll(fds.data(), fds.size(), 50);
    if (ready <= 0) continue;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      std::array<char, 8192> buffer{};
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        sinks[i]->append(buffer.data(), static_cast<std::size_t>(n));
      } else {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (const pollfd& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  if (!reaped) ::waitpid(pid, &status, 0);
  result.seconds = now_s() - start;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
  }
  return result;
}

}  // namespace

MpiResult run_mpi(int ranks, const std::vector<std::string>& args, double timeout_s) {
  std::vector<std::string> argv{SCALEWALL_MPIEXEC};
  for (const std::string& flag : split_words(SCALEWALL_MPIEXEC_FLAGS)) argv.push_back(flag);
  argv.push_back(SCALEWALL_MPIEXEC_NUMPROC_FLAG);
  argv.push_back(std::to_string(ranks));
  argv.push_back(SCALEWALL_MPI_BIN);
  argv.insert(argv.end(), args.begin(), args.end());
  return run_child(std::move(argv), timeout_s);
}

MpiResult run_singleton(const std::vector<std::string>& args, double timeout_s) {
  std::vector<std::string> argv{SCALEWALL_MPI_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_child(std::move(argv), timeout_s);
}

MpiResult run_scalewall_cli(const std::vector<std::string>& args, double timeout_s) {
  std::vector<std::string> argv{SCALEWALL_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_child(std::move(argv), timeout_s);
}

Jsonl parse_jsonl(const std::string& text) {
  Jsonl file;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  std::vector<nlohmann::json> lines;
  while (std::getline(in, line)) {
    ++number;
    try {
      lines.push_back(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception& e) {
      ADD_FAILURE() << "line " << number << " is not JSON (" << e.what() << "): " << line;
      continue;
    }
    if (!lines.back().is_object()) {
      ADD_FAILURE() << "line " << number << " is not a JSON object: " << line;
    }
  }
  if (lines.empty()) {
    ADD_FAILURE() << "no output lines";
    return file;
  }
  file.envelope = lines.front();
  std::size_t last = lines.size();
  if (lines.size() > 1 && lines.back().value("record", "") == "end") {
    file.end = lines.back();
    last = lines.size() - 1;
  }
  for (std::size_t i = 1; i < last; ++i) file.records.push_back(lines[i]);
  return file;
}

namespace {

void expect_number(const nlohmann::json& record, const char* key, double min_value = 0) {
  ASSERT_TRUE(record.contains(key)) << "no " << key << " in " << record.dump();
  ASSERT_TRUE(record[key].is_number()) << key << " is not a number in " << record.dump();
  EXPECT_GE(record[key].get<double>(), min_value) << key << " in " << record.dump();
}

void expect_integer(const nlohmann::json& record, const char* key, std::int64_t min_value,
                    std::int64_t max_value) {
  ASSERT_TRUE(record.contains(key)) << "no " << key << " in " << record.dump();
  ASSERT_TRUE(record[key].is_number_integer()) << key << " is not whole in " << record.dump();
  EXPECT_GE(record[key].get<std::int64_t>(), min_value) << key << " in " << record.dump();
  EXPECT_LE(record[key].get<std::int64_t>(), max_value) << key << " in " << record.dump();
}

void expect_string(const nlohmann::json& record, const char* key) {
  ASSERT_TRUE(record.contains(key)) << "no " << key << " in " << record.dump();
  ASSERT_TRUE(record[key].is_string()) << key << " is not a string in " << record.dump();
  EXPECT_FALSE(record[key].get<std::string>().empty()) << key << " in " << record.dump();
}

void expect_ordered(const nlohmann::json& record, const char* lo, const char* mid,
                    const char* hi) {
  EXPECT_LE(record[lo].get<double>(), record[mid].get<double>()) << record.dump();
  EXPECT_LE(record[mid].get<double>(), record[hi].get<double>()) << record.dump();
}

void expect_record(const nlohmann::json& r, const std::string& kind, int ranks) {
  ASSERT_EQ(r.value("record", ""), kind) << r.dump();
  if (kind == "pingpong" || kind == "exchange") {
    expect_integer(r, "from", 0, ranks - 1);
    expect_integer(r, "to", 0, ranks - 1);
    expect_number(r, "bytes");
    expect_integer(r, "iterations", 1, 1'000'000'000);
    if (kind == "exchange") expect_integer(r, "samples", 2, 2'000'000'000);
    const std::string stem = kind == "pingpong" ? "one_way" : "exchange";
    const std::string lo = stem + "_min_s", mid = stem + "_median_s", hi = stem + "_max_s";
    for (const std::string& key : {lo, mid, hi}) expect_number(r, key.c_str());
    expect_ordered(r, lo.c_str(), mid.c_str(), hi.c_str());
  } else if (kind == "collective") {
    expect_string(r, "op");
    expect_string(r, "algorithm");
    expect_integer(r, "ranks", ranks, ranks);
    expect_number(r, "bytes");
    expect_integer(r, "iterations", 1, 1'000'000'000);
    expect_number(r, "time_min_s");
    expect_number(r, "time_median_s");
    expect_number(r, "time_max_s");
    expect_ordered(r, "time_min_s", "time_median_s", "time_max_s");
    expect_number(r, "algbw_Bps");
    expect_number(r, "busbw_Bps");
    ASSERT_TRUE(r.contains("verified") && r["verified"].is_boolean()) << r.dump();
  } else if (kind == "arrival") {
    expect_integer(r, "iteration", 0, 1'000'000'000);
    expect_integer(r, "rank", 0, ranks - 1);
    expect_string(r, "host");
    expect_number(r, "arrival_s");
    expect_number(r, "injected_s");
    expect_number(r, "collective_s");
  } else if (kind == "step") {
    expect_integer(r, "step", 0, 1'000'000'000);
    expect_integer(r, "rank", 0, ranks - 1);
    expect_string(r, "host");
    expect_number(r, "compute_s");
    expect_number(r, "communication_s");
    expect_number(r, "wait_s");
    expect_number(r, "step_s");
  } else if (kind == "reduction" || kind == "copy" || kind == "alloc" ||
             kind == "sent_reduction" || kind == "sent_exchange") {
    expect_number(r, "bytes");
    expect_integer(r, "ranks", ranks, ranks);
    expect_integer(r, "iterations", 1, 1'000'000'000);
    expect_number(r, "time_min_s");
    expect_number(r, "time_median_s");
    expect_number(r, "time_max_s");
    expect_ordered(r, "time_min_s", "time_median_s", "time_max_s");
    expect_number(r, "slowest_rank_median_s");
  } else {
    ADD_FAILURE() << "unknown record kind " << kind;
  }
}

}  // namespace

void expect_well_formed(const Jsonl& file, const std::string& command,
                        const std::string& record_kind, int ranks, bool complete) {
  const nlohmann::json& e = file.envelope;
  EXPECT_EQ(e.value("tool", ""), "scalewall-mpi") << e.dump();
  EXPECT_EQ(e.value("version", ""), SCALEWALL_VERSION_TEXT) << e.dump();
  EXPECT_EQ(e.value("command", ""), command) << e.dump();
  EXPECT_EQ(e.value("kind", ""), "measurement") << e.dump();
  EXPECT_EQ(e.value("format", ""), "jsonl") << e.dump();
  EXPECT_TRUE(e.contains("inputs") && e["inputs"].is_object()) << e.dump();
  ASSERT_TRUE(e.contains("context") && e["context"].is_object()) << e.dump();
  const nlohmann::json& c = e["context"];
  expect_string(c, "mpi_library");
  expect_string(c, "mpi_version");
  expect_integer(c, "ranks", ranks, ranks);
  expect_integer(c, "ranks_per_host", 1, ranks);
  ASSERT_TRUE(c.contains("hosts") && c["hosts"].is_array() && !c["hosts"].empty()) << c.dump();
  expect_string(c, "date");
  EXPECT_EQ(c["date"].get<std::string>().size(), 20u) << c.dump();  // 2026-11-30T05:00:00Z
  // pingpong --exchange 1 (the default) writes an exchange record after each pingpong one,
  // reduce a copy, an alloc and (2+ ranks) a sent_reduction and a sent_exchange record after
  // each reduction one.
  std::vector<std::string> companions;
  if (record_kind == "pingpong") companions = {"exchange"};
  if (record_kind == "reduction") {
    companions = {"copy", "alloc", "sent_reduction", "sent_exchange"};
  }
  for (const nlohmann::json& r : file.records) {
    const std::string kind = r.value("record", "");
    const bool companion = std::find(companions.begin(), companions.end(), kind) != companions.end();
    expect_record(r, companion ? kind : record_kind, ranks);
  }
  if (!complete) return;
  ASSERT_FALSE(file.end.is_null()) << "no end record";
  EXPECT_EQ(file.end.value("status", ""), "complete") << file.end.dump();
  EXPECT_EQ(file.end.value("records", -1), static_cast<int>(file.records.size()));
}

std::string describe(const MpiResult& result) {
  std::ostringstream text;
  text << "exit " << result.exit_code << (result.timed_out ? " (timed out)" : "") << " after "
       << result.seconds << " s\n--- stderr:\n"
       << result.err << "\n--- stdout (start):\n"
       << result.out.substr(0, 2000);
  return text.str();
}

}  // namespace scalewall::testing
