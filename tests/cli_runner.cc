// Runs the scalewall binary as a child process; see tests/cli_runner.h.
#include "tests/cli_runner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace scalewall::testing {
namespace {

std::string read_all(int fd) {
  std::string text;
  std::array<char, 4096> buffer{};
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n <= 0) break;
    text.append(buffer.data(), static_cast<std::size_t>(n));
  }
  return text;
}

// Runs scalewall with `input` piped to its standard input, or else the file at `stdin_path`
// as its standard input.
CliResult run_scalewall_from(const std::vector<std::string>& args,
                             const std::optional<std::string>& input,
                             const std::string& stdin_path);

}  // namespace

CliResult run_scalewall(const std::vector<std::string>& args) {
  return run_scalewall_with_input(args, std::nullopt);
}

CliResult run_scalewall_with_input(const std::vector<std::string>& args,
                                   const std::optional<std::string>& input) {
  return run_scalewall_from(args, input, "/dev/null");
}

CliResult run_scalewall_with_stdin_file(const std::vector<std::string>& args,
                                        const std::string& path) {
  return run_scalewall_from(args, std::nullopt, path);
}

namespace {

CliResult run_scalewall_from(const std::vector<std::string>& args,
                             const std::optional<std::string>& input,
                             const std::string& stdin_path) {
  int out_pipe[2];
  int err_pipe[2];
  int in_pipe[2] = {-1, -1};
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0 || (input && ::pipe(in_pipe) != 0)) {
    ADD_FAILURE() << "pipe() failed";
    return {};
  }
  std::vector<std::string> argv_text;
  argv_text.push_back(SCALEWALL_BIN);
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);

  // A child that exits before reading all of its input must not kill the test with SIGPIPE.
  if (input) ::signal(SIGPIPE, SIG_IGN);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGPIPE, SIG_DFL);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    if (input) {
      ::dup2(in_pipe[0], STDIN_FILENO);
      ::close(in_pipe[0]);
      ::close(in_pipe[1]);
    } else {
      const int file = ::open(stdin_path.c_str(), O_RDONLY);
      if (file < 0) ::_exit(126);
      ::dup2(file, STDIN_FILENO);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  // The input goes in on its own thread, closed at its end, so that a child that reads it
  // late (or never) cannot block the test.
  std::thread in_writer;
  if (input) {
    ::close(in_pipe[0]);
    in_writer = std::thread([&] {
      std::size_t done = 0;
      while (done < input->size()) {
        const ssize_t n = ::write(in_pipe[1], input->data() + done, input->size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
      }
      ::close(in_pipe[1]);
    });
  }
  CliResult result;
  // Drain stderr on a second thread so neither pipe can fill up and block the child.
  std::thread err_reader([&] { result.err = read_all(err_pipe[0]); });
  result.out = read_all(out_pipe[0]);
  err_reader.join();
  if (in_writer.joinable()) in_writer.join();
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
  }
  return result;
}

}  // namespace

nlohmann::json run_json(std::vector<std::string> args) {
  args.push_back("--format");
  args.push_back("json");
  const CliResult r = run_scalewall(args);
  std::string joined;
  for (const auto& a : args) joined += " " + a;
  EXPECT_EQ(r.exit_code, 0) << "scalewall" << joined << "\nstderr: " << r.err;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "scalewall" << joined << " printed no single JSON object: " << e.what()
                  << "\nstdout: " << r.out;
    return nlohmann::json::object();
  }
  EXPECT_TRUE(j.is_object());
  return j;
}

std::string source_path(const std::string& relative) {
  return std::string(SCALEWALL_SOURCE_DIR) + "/" + relative;
}

std::string write_temp_file(const std::string& name, const std::string& text) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("scalewall-test-" + std::to_string(::getpid()));
  if (info != nullptr) dir /= std::string(info->test_suite_name()) + "." + info->name();
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

void expect_input_error(const std::vector<std::string>& args, const std::string& mention) {
  const CliResult r = run_scalewall(args);
  std::string joined;
  for (const auto& a : args) joined += " " + a;
  EXPECT_EQ(r.exit_code, 2) << joined << "\nstderr: " << r.err;
  EXPECT_TRUE(r.out.empty()) << joined << "\nstdout: " << r.out;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << joined << "\nstderr: " << r.err;
  EXPECT_NE(r.err.find(mention), std::string::npos)
      << joined << "\nstderr does not mention '" << mention << "': " << r.err;
}

}  // namespace scalewall::testing
