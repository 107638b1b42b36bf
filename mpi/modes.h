// mpi/modes.h: the measurement modes of scalewall-mpi, each registered as a CLI11
// subcommand, and the flags they share.
//
// Layer: mpi/. A mode registers its flags as tables (cli/flag_table.h, shared with scalewall),
// parses them (every rank parses the same command line, so every rank reaches the same
// verdict on bad input), checks them against the rank count and the memory, writes the
// envelope, measures, and writes one record per line as it goes
// (include/scalewall/io/measurement.h is the format). docs/mpi.md documents every flag.
//
// Exit status of a mode's run function: 0 complete, 1 a measurement failed (a hand-written
// result that differs from the library's). Bad input throws InputError on every rank (exit
// 2); an unwritable --out throws RunError on every rank (exit 1).
#ifndef SCALEWALL_MPI_MODES_H_
#define SCALEWALL_MPI_MODES_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/flag_table.h"
#include "mpi/world.h"

namespace scalewall::mpi {

// Flags every mode has: --out FILE, --quiet, and the hidden fault injection of the tests.
struct CommonFlags {
  std::string out;
  bool quiet = false;  // no live table or summary on stderr (errors still print)
  int abort_rank = -1;
  int kill_rank = -1;

  Faults faults() const { return {abort_rank, kill_rank}; }
};
FlagGroup common_flags(CommonFlags* flags);
// Where a mode prints its live table and summary (live_table.h): stderr on rank 0 unless
// --quiet; null elsewhere.
std::ostream* live_output(const World& world, const CommonFlags& flags);

// The message sizes of pingpong, collective and reduce, with nccl-tests' short names:
// --min-bytes/-b and --max-bytes/-e bound a sweep (powers of two, see size_sweep, or a
// geometric one with --step-factor/-f), or --sizes LIST replaces the sweep. The sizes also
// take nccl-tests' single-letter suffixes K, M and G, which nccl-tests reads as binary
// (64M is 64 MiB); everything units.h reads means what it means there (64MB is 64e6 B).
struct SizeFlags {
  std::string min_bytes;
  std::string max_bytes;
  std::string sizes;
  std::string factor;
  // Set by the options size_flags registers: whether each flag was given (an empty --sizes is an error, and
  // --sizes cannot be combined with the sweep's bounds).
  const CLI::Option* min_option = nullptr;
  const CLI::Option* max_option = nullptr;
  const CLI::Option* sizes_option = nullptr;
  const CLI::Option* factor_option = nullptr;
};
// The most sizes one --sizes list may hold.
inline constexpr std::size_t kMaxSizeListItems = 1024;
FlagGroup size_flags(SizeFlags* flags, const std::string& default_min,
                     const std::string& default_max);
// The sizes to visit, in bytes, each a whole number. Throws InputError naming the flag: a
// bad size, --sizes beside the sweep's flags, a factor not above 1, or a sweep of more than
// kMaxSizeListItems sizes.
std::vector<double> resolve_sizes(const SizeFlags& flags);
// A size flag's value in bytes: nccl-tests' 64K, 64M, 2G (binary, as nccl-tests reads them),
// else units.h's sizes (flag_bytes). Throws InputError naming the flag.
double harness_bytes(std::string_view flag, const std::string& text);

// A comma-separated choice (--op, --algorithm, --pairs) takes "all" alone: throws InputError
// when `text` lists "all" beside other items, saying what "all" means (`all_means`: "every op
// the harness measures").
void refuse_all_in_a_list(std::string_view flag, const std::string& text,
                          std::string_view all_means);

// The repetitions of the modes that time a call again and again, with nccl-tests' and OSU's
// short names: --iterations/-n timed calls and --warmup/-w untimed ones before them.
struct RepeatFlags {
  std::string iterations;
  std::string warmup;
};
// `what` names one timed unit in --help ("Timed round trips per size"); `warmup_what` the
// untimed ones.
FlagGroup repeat_flags(RepeatFlags* flags, const std::string& what,
                       const std::string& default_iterations, const std::string& warmup_what,
                       const std::string& default_warmup);
// The resolved counts: iterations in [1, kMaxRepeats], warm-up in [0, kMaxRepeats].
struct Repeats {
  int iterations = 1;
  int warmup = 0;
};
// The most calls of one kind a run repeats: 1e8, hours of calls of a microsecond each.
inline constexpr std::int64_t kMaxRepeats = 100'000'000;
Repeats resolve_repeats(const RepeatFlags& flags);

// The delay flags of arrival and step: --compute, --jitter-sigma, --seed, --slow-rank,
// --slow-factor.
struct DelayFlags {
  std::string compute;
  std::string jitter_sigma;
  std::string seed;
  std::string slow_rank;
  std::string slow_factor;
};
FlagGroup delay_flags(DelayFlags* flags, const std::string& default_compute);

struct DelaySettings {
  double compute_s = 0;
  double jitter_sigma = 0;
  std::uint64_t seed = 1;
  int slow_rank = -1;  // -1: none
  double slow_factor = 1;
};
// The longest busy-wait a rank is asked for: --compute, and --compute x --slow-factor, are at
// most 1 h.
inline constexpr double kMaxComputeSeconds = 3600.0;

// Throws InputError naming the flag: a slow rank outside [0, ranks), a factor below 1 or
// given without a slow rank, a negative sigma or one above 1, a --compute above
// kMaxComputeSeconds (or a slow rank's --compute x --slow-factor above it).
DelaySettings resolve_delays(const DelayFlags& flags, int ranks);
// The settings as envelope inputs: compute_s, jitter_sigma, seed, slow_rank (null when
// none), slow_factor.
void add_delay_inputs(nlohmann::ordered_json& inputs, const DelaySettings& settings);

// A rank named on the command line: a whole number in [0, ranks). Throws InputError naming
// the flag and the valid range.
int flag_rank(std::string_view flag, const std::string& text, int ranks);

// A registered mode: its subcommand, what runs it once MPI and the world are set up, and
// what resolves its flags as run would, throwing InputError on a bad one, measuring nothing
// (empty for the modes that the suite does not run).
struct Mode {
  CLI::App* command = nullptr;
  std::function<int(const World&)> run;
  std::function<void(const World&)> check = {};
};

Mode register_pingpong(CLI::App& app);
Mode register_exchange(CLI::App& app);
Mode register_collective(CLI::App& app);
Mode register_arrival(CLI::App& app);
Mode register_step(CLI::App& app);
Mode register_reduce(CLI::App& app);
// pingpong, reduce and collective in one launch (mpi/suite.cc).
Mode register_suite(CLI::App& app);

}  // namespace scalewall::mpi

#endif  // SCALEWALL_MPI_MODES_H_
