// tests/mpi/mpi_runner.h: runs scalewall-mpi under mpirun for the end-to-end tests of the
// measurement harness, with a timeout, and reads its JSON Lines.
//
// run_mpi(4, {"collective", "--op", "all"}) runs
//   <mpiexec> <flags> -np 4 <scalewall-mpi> collective --op all
// with no shell, stdin from /dev/null, in a process group of its own, and returns its exit
// status, stdout and stderr. A run still going after the timeout has its whole process group
// killed (SIGTERM, then SIGKILL after two seconds) and is reported as timed out, so a hang
// fails the test instead of stalling the suite. The flags come from the build (for Open MPI:
// --oversubscribe --allow-run-as-root --mca btl self,vader), and the environment also allows
// root and oversubscription (OMPI_ALLOW_RUN_AS_ROOT, OMPI_MCA_rmaps_base_oversubscribe) and,
// for the sanitizer build, suppresses the leaks Open MPI itself reports at exit.
#ifndef SCALEWALL_TESTS_MPI_MPI_RUNNER_H_
#define SCALEWALL_TESTS_MPI_MPI_RUNNER_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace scalewall::testing {

struct MpiResult {
  int exit_code = -1;      // the launcher's exit status; 128 + signal when killed by one
  bool timed_out = false;  // killed by the runner after the timeout
  double seconds = 0;      // wall time from launch to exit
  std::string out;         // stdout
  std::string err;         // stderr
};

// Runs scalewall-mpi with `args` on `ranks` ranks under the MPI launcher.
MpiResult run_mpi(int ranks, const std::vector<std::string>& args, double timeout_s = 60);

// Runs scalewall-mpi directly, as an MPI singleton (for --help and the like).
MpiResult run_singleton(const std::vector<std::string>& args, double timeout_s = 30);

// Runs the scalewall command (the model and analysis tool, no MPI) with `args`.
MpiResult run_scalewall_cli(const std::vector<std::string>& args, double timeout_s = 60);

// A scalewall-mpi output file, split into its parts. Every line must be one JSON object; the
// test fails (with the line number) when one is not.
struct Jsonl {
  nlohmann::json envelope;
  std::vector<nlohmann::json> records;  // every line between the envelope and the end
  nlohmann::json end;                   // null when the file has no end record
};
Jsonl parse_jsonl(const std::string& text);

// Checks the file against include/scalewall/io/measurement.h: the envelope (tool, version,
// command, kind, format, inputs, context with its keys and `ranks`), the fields of every
// record of kind `record_kind` (and no other kind), and the end record with the record
// count. Failures are reported with ADD_FAILURE and the offending line.
void expect_well_formed(const Jsonl& file, const std::string& command,
                        const std::string& record_kind, int ranks, bool complete = true);

// The result as text for a failure message: exit status, stderr, and the start of stdout.
std::string describe(const MpiResult& result);

}  // namespace scalewall::testing

#endif  // SCALEWALL_TESTS_MPI_MPI_RUNNER_H_
