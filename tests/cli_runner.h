// tests/cli_runner.h: runs the real scalewall executable for end-to-end tests.
//
// run_scalewall({"scaling", "--ranks", "8"}) runs the built binary with those arguments (no
// shell: arguments are passed as is), waits for it, and returns its exit status, stdout and
// stderr. A test data file can be named with source_path("tests/data/x.txt").
#ifndef SCALEWALL_TESTS_CLI_RUNNER_H_
#define SCALEWALL_TESTS_CLI_RUNNER_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace scalewall::testing {

struct CliResult {
  int exit_code = -1;  // the process's exit status; 128 + signal when killed by a signal
  std::string out;     // stdout
  std::string err;     // stderr
};

CliResult run_scalewall(const std::vector<std::string>& args);

// The same with `input` written to the child's standard input through a pipe (closed after
// it); without input, standard input is /dev/null.
CliResult run_scalewall_with_input(const std::vector<std::string>& args,
                                   const std::optional<std::string>& input);

// The same with standard input opened from the file at `path` (a regular file, as after
// "< path" in a shell).
CliResult run_scalewall_with_stdin_file(const std::vector<std::string>& args,
                                        const std::string& path);

// Runs with "--format json" appended, requires exit 0 and exactly one JSON object on stdout
// (the test fails with the command's stderr otherwise), and returns it.
nlohmann::json run_json(std::vector<std::string> args);

// Bad input: runs `args` and requires exit status 2, nothing on stdout, and stderr starting
// with "error: " and mentioning `mention` (the test fails naming the command otherwise).
void expect_input_error(const std::vector<std::string>& args, const std::string& mention);

// SCALEWALL_SOURCE_DIR + "/" + relative.
std::string source_path(const std::string& relative);

// Writes `text` to a fresh file under the test's temporary directory and returns its path.
std::string write_temp_file(const std::string& name, const std::string& text);

}  // namespace scalewall::testing

#endif  // SCALEWALL_TESTS_CLI_RUNNER_H_
