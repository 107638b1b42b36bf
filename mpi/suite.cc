// mpi/suite.cc: the suite mode. The one-way times (pingpong, with exchanges), the local
// reduction sweep (reduce) and the collectives (collective) measured one after another in
// one launch, written to one folder, and repeated in passes.
//
// Why together, and why passes: a model calibrated at one moment and validated at another
// carries whatever changed in between as error. On a shared or virtual machine the speed of
// the ranks' exchange can switch between two or more levels, each held for seconds to
// minutes (the host moves the vCPUs; another tenant takes the memory bus): scalewall-mpi
// pingpong on a 2-vCPU virtual machine, 600 timings of 8 bytes in a row, read 0.23 us for
// 25 of them, then 0.50 us, then 0.25 us, then 0.50 us to the end. The suite measures the
// three parts close together, and --passes K measures them K times in turn, so that every
// part samples the same mixture of levels; validate --pool takes each size's median over the
// passes.
//
// Each part is its mode run as it would be from the command line: the suite hands its flags
// to the mode's own parser, and every part's flags are checked before anything is measured.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mpi/modes.h"
#include "mpi/measure.h"
#include "scalewall/base/error.h"

namespace scalewall::mpi {
namespace {

// The most passes one suite runs.
constexpr std::int64_t kMaxSuitePasses = 1000;

struct SuiteFlags {
  std::string out_dir;
  SizeFlags sizes;
  std::string op;
  std::string algorithm;
  std::string pairs;
  std::string pingpong_iterations;
  std::string reduce_iterations;
  std::string collective_iterations;
  std::string passes;
  bool quiet = false;
};

// One part of the suite: the mode it runs and the arguments its parser gets.
struct SuitePart {
  std::string mode;
  std::string out;  // the file it writes
  std::vector<std::string> args;
};

// The sweep flags as given: --sizes LIST, or the bounds (and factor) that were given.
std::vector<std::string> sweep_args(const SuiteFlags& f, const std::string& min_bytes) {
  if (!f.sizes.sizes.empty() || given(f.sizes.sizes_option)) return {"--sizes", f.sizes.sizes};
  std::vector<std::string> args = {"--min-bytes", min_bytes, "--max-bytes", f.sizes.max_bytes};
  if (given(f.sizes.factor_option)) {
    args.push_back("--step-factor");
    args.push_back(f.sizes.factor);
  }
  return args;
}

// The parts of pass `pass` (1-based): each writes DIR/<mode>-<pass>.jsonl.
std::vector<SuitePart> suite_parts(const SuiteFlags& f, const std::filesystem::path& dir,
                                   std::int64_t pass) {
  const auto file = [&](const char* mode) {
    return (dir / fmt::format("{}-{}.jsonl", mode, pass)).string();
  };
  const auto with = [&](std::vector<std::string> head, const std::vector<std::string>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    if (f.quiet) head.push_back("--quiet");
    return head;
  };
  // The reduction sweep starts at 1 KiB (reduce's own default) unless a list is given:
  // below that a pass is the clock's resolution.
  const double min = harness_bytes("--min-bytes", f.sizes.min_bytes);
  const std::string reduce_min = min < 1024 ? std::string("1KiB") : f.sizes.min_bytes;
  const std::string pingpong = file("pingpong");
  const std::string reduce = file("reduce");
  const std::string collective = file("collective");
  return {
      {"pingpong", pingpong,
       with({"--pairs", f.pairs, "--iterations", f.pingpong_iterations, "--out", pingpong},
            sweep_args(f, f.sizes.min_bytes))},
      {"reduce", reduce,
       with({"--iterations", f.reduce_iterations, "--out", reduce}, sweep_args(f, reduce_min))},
      {"collective", collective,
       with({"--op", f.op, "--algorithm", f.algorithm, "--iterations", f.collective_iterations,
             "--out", collective},
            sweep_args(f, f.sizes.min_bytes))},
  };
}

// The reduction sweep starts at 1 KiB when the sweep starts below it (suite_parts), so a sweep
// that ends below 1 KiB leaves the reduce part nothing to measure. Throws InputError naming
// --max-bytes, and --min-bytes as given or as its default.
void require_a_reduction_sweep(const SuiteFlags& f) {
  if (!f.sizes.sizes.empty() || given(f.sizes.sizes_option)) return;
  const double min = harness_bytes("--min-bytes", f.sizes.min_bytes);
  const double max = harness_bytes("--max-bytes", f.sizes.max_bytes);
  if (min >= 1024 || max >= 1024) return;
  throw InputError(fmt::format(
      "--max-bytes {} is below 1KiB, where the reduce part's sweep starts when --min-bytes "
      "({}{}) is below it; give --max-bytes 1KiB or more, or --sizes",
      f.sizes.max_bytes, f.sizes.min_bytes, given(f.sizes.min_option) ? "" : ", the default"));
}

// The part's mode on a parser of its own, with the part's arguments parsed.
struct ParsedPart {
  std::unique_ptr<CLI::App> app;
  Mode mode;
};
ParsedPart parse_part(const SuitePart& part) {
  ParsedPart parsed{std::make_unique<CLI::App>("", "scalewall-mpi"), {}};
  CLI::App& app = *parsed.app;
  if (part.mode == "pingpong") parsed.mode = register_pingpong(app);
  if (part.mode == "reduce") parsed.mode = register_reduce(app);
  if (part.mode == "collective") parsed.mode = register_collective(app);
  std::vector<std::string> args = part.args;
  args.insert(args.begin(), part.mode);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw InputError(fmt::format("suite: {}: {}", part.mode, e.what()));
  }
  return parsed;
}

int run_suite(const World& w, const SuiteFlags& flags) {
  const std::filesystem::path dir = flags.out_dir;
  const std::int64_t passes = flag_count("--passes", flags.passes, 1, kMaxSuitePasses);
  resolve_sizes(flags.sizes);  // the sweep's own checks: --sizes beside its bounds, a bad factor
  require_a_reduction_sweep(flags);
  // Every part's flags are checked before the first is measured; the repeat counts here, so
  // that an error names the suite's flag.
  flag_count("--pingpong-iterations", flags.pingpong_iterations, 1, kMaxRepeats);
  flag_count("--reduce-iterations", flags.reduce_iterations, 1, kMaxRepeats);
  flag_count("--collective-iterations", flags.collective_iterations, 1, kMaxRepeats);
  for (const SuitePart& part : suite_parts(flags, dir, 1)) parse_part(part).mode.check(w);
  if (w.is_root()) {
    // A folder that cannot be made shows as the first part's unwritable --out, on every rank.
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
  }
  int status = 0;
  for (std::int64_t pass = 1; pass <= passes; ++pass) {
    const std::vector<SuitePart> parts = suite_parts(flags, dir, pass);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (w.is_root() && !flags.quiet) {
        fmt::print(stderr, "# suite pass {}/{}, part {}/{}: {} -> {}\n", pass, passes, i + 1,
                   parts.size(), parts[i].mode, parts[i].out);
      }
      const int part_status = parse_part(parts[i]).mode.run(w);
      if (part_status != 0) status = part_status;
    }
  }
  if (w.is_root() && !flags.quiet) {
    fmt::print(stderr,
               "# suite done: scalewall calibrate --pool {0}/pingpong-*.jsonl "
               "{0}/reduce-*.jsonl fits the link; scalewall validate --pool {0}/*.jsonl tests "
               "it on the collectives\n",
               dir.string());
  }
  return status;
}

}  // namespace

Mode register_suite(CLI::App& app) {
  auto flags = std::make_shared<SuiteFlags>();
  const FlagGroup own = {
      {"--out-dir,-o", &flags->out_dir,
       "Folder for pingpong-K.jsonl, reduce-K.jsonl and collective-K.jsonl, K the pass "
       "(created if missing; files there of those names are replaced)",
       "DIR", {}, FlagKind::kRequired},
      {"--op", &flags->op, "The collective part's --op", "OP", "allreduce"},
      {"--algorithm", &flags->algorithm, "The collective part's --algorithm", "LIST", "all"},
      {"--pairs", &flags->pairs, "The pingpong part's --pairs", "LIST", "0-1"},
      {"--pingpong-iterations", &flags->pingpong_iterations,
       "Timed round trips (and exchanges) per size", "N", "50"},
      {"--reduce-iterations", &flags->reduce_iterations, "Timed reductions per size", "N",
       "20"},
      {"--collective-iterations", &flags->collective_iterations,
       "Timed calls per algorithm and size", "N", "10"},
      {"--passes", &flags->passes,
       "Times the three parts run, one after another (pass 1: pingpong, reduce, collective; "
       "then pass 2 ...), each pass to files of its own; validate --pool takes each size's "
       "median over the passes", "K", "1"},
      {"--quiet,-q", &flags->quiet, "Print no live tables or progress on stderr"},
  };
  CLI::App* cmd = add_command(
      app,
      {"suite",
       "The calibration and the validation set in one launch: pingpong (with exchanges), "
       "reduce and collective over one size sweep, written to one folder, in passes. A "
       "shared or virtual machine can run at another speed for seconds to minutes at a time, "
       "so files that calibrate and files that validate are best measured close together, "
       "and in passes that give every part the same mixture of speeds.",
       {own, size_flags(&flags->sizes, "8", "64MiB")},
       "The reduction sweep starts at 1 KiB when the sweep starts below it.\n"
       "Example: mpirun -np 2 scalewall-mpi suite --out-dir run1 --passes 5\n"
       "         then scalewall validate --pool run1/*.jsonl"});
  return {cmd, [flags](const World& w) { return run_suite(w, *flags); }};
}

}  // namespace scalewall::mpi
