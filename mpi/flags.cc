// Flags the scalewall-mpi modes share; see mpi/modes.h.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>

#include <fmt/format.h>

#include "mpi/measure.h"
#include "mpi/modes.h"
#include "scalewall/base/error.h"

namespace scalewall::mpi {
namespace {

double whole_bytes(std::string_view flag, double bytes) {
  if (bytes != std::floor(bytes)) {
    throw InputError(fmt::format("{}: {} is not a whole number of bytes", flag, bytes));
  }
  // Beyond 2^53 bytes a double no longer counts single bytes; no machine has that much.
  if (bytes > 0x1.0p53) {
    throw InputError(fmt::format("{}: {} bytes is beyond any memory", flag, bytes));
  }
  return bytes;
}

}  // namespace

FlagGroup common_flags(CommonFlags* flags) {
  return {
      {"--out,-o", &flags->out,
       "Write the JSON Lines to FILE instead of stdout (rank 0 writes; every line is flushed "
       "as it is measured)",
       "FILE"},
      {"--quiet,-q", &flags->quiet,
       "Print no live table or summary on stderr (errors still print)"},
      {"--abort-rank", &flags->abort_rank,
       "Rank that calls MPI_Abort at the start of the second measured unit", "", {},
       FlagKind::kHidden},
      {"--kill-rank", &flags->kill_rank,
       "Rank that raises SIGKILL at the start of the second measured unit", "", {},
       FlagKind::kHidden},
  };
}

std::ostream* live_output(const World& world, const CommonFlags& flags) {
  return world.is_root() && !flags.quiet ? &std::cerr : nullptr;
}

FlagGroup size_flags(SizeFlags* flags, const std::string& default_min,
                     const std::string& default_max) {
  return {
      {"--min-bytes,-b", &flags->min_bytes,
       "Smallest message of the sweep, which visits it, every power of two above it (or "
       "each --step-factor times the last) and --max-bytes; 64K, 64M, 2G are binary, as in "
       "nccl-tests",
       "M", default_min, FlagKind::kOptional, &flags->min_option},
      {"--max-bytes,-e", &flags->max_bytes, "Largest message of the sweep", "M", default_max,
       FlagKind::kOptional, &flags->max_option},
      {"--step-factor,-f", &flags->factor,
       "Geometric sweep: each size this factor (> 1) times the last, rounded down to whole "
       "bytes, as nccl-tests' -f (default: the powers of two)",
       "F", {}, FlagKind::kOptional, &flags->factor_option},
      {"--sizes", &flags->sizes,
       "Comma-separated sizes to measure instead of the sweep: 0,8,1000,1MiB", "LIST", {},
       FlagKind::kOptional, &flags->sizes_option},
  };
}

std::vector<double> resolve_sizes(const SizeFlags& flags) {
  if (given(flags.sizes_option) || !flags.sizes.empty()) {
    if (given(flags.min_option) || given(flags.max_option) || given(flags.factor_option)) {
      throw InputError(
          "--sizes lists the sizes to measure and cannot be combined with --min-bytes, "
          "--max-bytes or --step-factor (which set a sweep)");
    }
    if (flags.sizes.empty()) {
      throw InputError("--sizes: the list is empty (give sizes such as 0,8,1000,1MiB, or "
                       "leave --sizes out for the sweep)");
    }
    std::vector<double> sizes;
    for (const std::string& item : split_list(flags.sizes)) {
      sizes.push_back(whole_bytes("--sizes", harness_bytes("--sizes", item)));
    }
    if (sizes.size() > kMaxSizeListItems) {
      throw InputError(fmt::format("--sizes: {} sizes is more than the {} one run measures",
                                   sizes.size(), kMaxSizeListItems));
    }
    return sizes;
  }
  const double min_bytes =
      whole_bytes("--min-bytes", harness_bytes("--min-bytes", flags.min_bytes));
  const double max_bytes =
      whole_bytes("--max-bytes", harness_bytes("--max-bytes", flags.max_bytes));
  if (min_bytes > max_bytes) {
    throw InputError(fmt::format("--min-bytes {} is above --max-bytes {}", flags.min_bytes,
                                 flags.max_bytes));
  }
  if (flags.factor.empty() && !given(flags.factor_option)) {
    return size_sweep(min_bytes, max_bytes);
  }
  const double factor = flag_number("--step-factor", flags.factor);
  if (!(factor > 1)) {
    throw InputError(fmt::format("--step-factor: {} is not above 1 (each size must grow; 2 "
                                 "doubles it)",
                                 flags.factor));
  }
  std::vector<double> sizes = geometric_sweep(min_bytes, max_bytes, factor, kMaxSizeListItems);
  if (sizes.size() > kMaxSizeListItems) {
    throw InputError(fmt::format("--step-factor {} from {} to {} is more than the {} sizes one "
                                 "run measures",
                                 flags.factor, flags.min_bytes, flags.max_bytes,
                                 kMaxSizeListItems));
  }
  return sizes;
}

double harness_bytes(std::string_view flag, const std::string& text) {
  // nccl-tests' parsesize: a number and one of K, M, G (either case), powers of 1024.
  constexpr std::string_view kBinarySuffixes = "KMG";
  if (!text.empty()) {
    const auto suffix = kBinarySuffixes.find(static_cast<char>(std::toupper(
        static_cast<unsigned char>(text.back()))));
    const bool digit_before =
        text.size() >= 2 && std::isdigit(static_cast<unsigned char>(text[text.size() - 2]));
    if (suffix != std::string_view::npos && digit_before) {
      static constexpr const char* kBinaryUnits[] = {"KiB", "MiB", "GiB"};
      return flag_bytes(flag, text.substr(0, text.size() - 1) + kBinaryUnits[suffix]);
    }
  }
  return flag_bytes(flag, text);
}

void refuse_all_in_a_list(std::string_view flag, const std::string& text,
                          std::string_view all_means) {
  const std::vector<std::string> items = split_list(text);
  if (items.size() < 2 || std::find(items.begin(), items.end(), "all") == items.end()) return;
  throw InputError(fmt::format("{}: 'all' ({}) stands alone: give all, or a list without it, "
                               "not '{}'",
                               flag, all_means, text));
}

FlagGroup repeat_flags(RepeatFlags* flags, const std::string& what,
                       const std::string& default_iterations, const std::string& warmup_what,
                       const std::string& default_warmup) {
  return {
      {"--iterations,-n", &flags->iterations, what, "N", default_iterations},
      {"--warmup,-w", &flags->warmup, warmup_what, "N", default_warmup},
  };
}

Repeats resolve_repeats(const RepeatFlags& flags) {
  return {static_cast<int>(flag_count("--iterations", flags.iterations, 1, kMaxRepeats)),
          static_cast<int>(flag_count("--warmup", flags.warmup, 0, kMaxRepeats))};
}

int flag_rank(std::string_view flag, const std::string& text, int ranks) {
  const std::int64_t r = flag_count(flag, text, 0, std::numeric_limits<std::int64_t>::max());
  if (r >= ranks) {
    throw InputError(fmt::format("{}: rank {} does not exist; this run has {} rank{} (0..{})",
                                 flag, r, ranks, ranks == 1 ? "" : "s", ranks - 1));
  }
  return static_cast<int>(r);
}

FlagGroup delay_flags(DelayFlags* flags, const std::string& default_compute) {
  return {
      {"--compute", &flags->compute,
       "Busy-wait each rank does before it enters the collective (a stand-in for compute)", "T",
       default_compute},
      {"--jitter-sigma", &flags->jitter_sigma,
       "Standard deviation of each rank's busy-wait as a fraction of --compute (0.02 or 2%); "
       "the draw is max(0, 1 + sigma z), z standard normal",
       "F", "0"},
      {"--seed", &flags->seed, "Seed of the jitter draws (each rank draws its own)", "S", "1"},
      {"--slow-rank", &flags->slow_rank, "One rank whose busy-wait is multiplied by --slow-factor",
       "R"},
      {"--slow-factor", &flags->slow_factor,
       "How much longer the slow rank computes (>= 1; default 2)", "F"},
  };
}

DelaySettings resolve_delays(const DelayFlags& flags, int ranks) {
  DelaySettings s;
  s.compute_s = flag_seconds("--compute", flags.compute);
  if (s.compute_s > kMaxComputeSeconds) {
    throw InputError(fmt::format("--compute: '{}' is above the limit of 1 h per busy-wait",
                                 flags.compute));
  }
  s.jitter_sigma = flag_fraction("--jitter-sigma", flags.jitter_sigma);
  if (s.jitter_sigma > 1.0) {
    throw InputError(fmt::format("--jitter-sigma: '{}' is above 1 (100%)", flags.jitter_sigma));
  }
  s.seed = static_cast<std::uint64_t>(
      flag_count("--seed", flags.seed, 0, std::numeric_limits<std::int64_t>::max()));
  if (!flags.slow_rank.empty()) {
    s.slow_rank = flag_rank("--slow-rank", flags.slow_rank, ranks);
    s.slow_factor = 2;
  }
  if (!flags.slow_factor.empty()) {
    if (flags.slow_rank.empty()) {
      throw InputError(fmt::format("--slow-factor {} needs --slow-rank R", flags.slow_factor));
    }
    s.slow_factor = flag_number("--slow-factor", flags.slow_factor);
    if (s.slow_factor < 1) {
      throw InputError(fmt::format("--slow-factor: {} is below 1 (a slow rank computes 1x or "
                                   "longer)",
                                   flags.slow_factor));
    }
    if (s.compute_s * s.slow_factor > kMaxComputeSeconds) {
      throw InputError(fmt::format(
          "--slow-factor: {} x --compute {} is above the limit of 1 h per busy-wait",
          flags.slow_factor, flags.compute));
    }
  }
  return s;
}

void add_delay_inputs(nlohmann::ordered_json& inputs, const DelaySettings& settings) {
  inputs["compute_s"] = settings.compute_s;
  inputs["jitter_sigma"] = settings.jitter_sigma;
  inputs["seed"] = settings.seed;
  inputs["slow_rank"] = settings.slow_rank < 0 ? nlohmann::ordered_json(nullptr)
                                                : nlohmann::ordered_json(settings.slow_rank);
  inputs["slow_factor"] = settings.slow_factor;
}

}  // namespace scalewall::mpi
