// scalewall straggler: the expected slowest of N jittery ranks, exact and simulated, and the
// barrier step of measured per-rank times (seed D01 section 3.4, exercise 4).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "cli/common.h"
#include "scalewall/model/scaling.h"
#include "scalewall/model/straggler.h"
#include "scalewall/io/times_file.h"
#include "scalewall/base/units.h"

namespace scalewall::cli {
namespace {

struct StragglerFlags {
  std::string ranks;
  std::string sigma;
  std::string method = "exact";
  std::string trials = "1000";
  std::string seed = "42";
  std::string times;
  std::string column;
  std::string format = "table";
  const CLI::Option* ranks_option = nullptr;
  const CLI::Option* sigma_option = nullptr;
  const CLI::Option* method_option = nullptr;
  const CLI::Option* trials_option = nullptr;
  const CLI::Option* seed_option = nullptr;
  const CLI::Option* times_option = nullptr;
  const CLI::Option* column_option = nullptr;
};

enum class Method { kExact, kMonteCarlo, kBoth };

// Trials are bounded on their own, and the whole simulation's uniform draws together: 2e10
// draws take a minute or two (about 5 ns a draw), past which the exact method gives the
// same answer at once.
constexpr std::int64_t kMaxTrials = 1'000'000'000;
constexpr double kMaxDraws = 2e10;

Method parse_method(const std::string& text) {
  if (text == "exact") return Method::kExact;
  if (text == "monte-carlo") return Method::kMonteCarlo;
  if (text == "both") return Method::kBoth;
  throw InputError(fmt::format(
      "--method: unknown method '{}' (expected exact, monte-carlo or both)", text));
}

std::string_view method_name(Method method) {
  switch (method) {
    case Method::kExact:
      return "exact";
    case Method::kMonteCarlo:
      return "monte-carlo";
    case Method::kBoth:
      return "both";
  }
  SCALEWALL_CHECK(false && "unknown Method");
  return {};
}

std::string percent(double fraction) { return format_percent(fraction); }

// ---- the model: --ranks and --sigma ----

Report run_model(const StragglerFlags& flags) {
  if (!given(flags.sigma_option)) {
    throw InputError("--sigma is required with --ranks: the relative standard deviation of a "
                     "rank's step time, e.g. --sigma 0.02 or --sigma 2%");
  }
  if (given(flags.column_option)) {
    throw InputError(fmt::format(
        "--column '{}' selects a column of a --times file and cannot be used with --ranks",
        flags.column));
  }
  const std::vector<std::int64_t> ranks = flag_rank_list("--ranks", flags.ranks);
  const double sigma = flag_fraction("--sigma", flags.sigma);
  with_flag("--sigma", [&] { require_sigma(sigma); });
  const Method method = parse_method(flags.method);
  const bool simulate = method != Method::kExact;
  const bool exact = method != Method::kMonteCarlo;
  if (!simulate) {
    for (const CLI::Option* option : {flags.trials_option, flags.seed_option}) {
      if (given(option)) {
        throw InputError(fmt::format(
            "{} applies to the Monte Carlo estimate only; add --method monte-carlo or "
            "--method both",
            option->get_name()));
      }
    }
  }
  std::int64_t trials = 0;
  std::uint64_t seed = 0;
  if (simulate) {
    trials = flag_count("--trials", flags.trials, 1, kMaxTrials);
    seed = static_cast<std::uint64_t>(
        flag_count("--seed", flags.seed, 0, std::numeric_limits<std::int64_t>::max()));
    double draws = 0.0;
    for (const std::int64_t r : ranks) {
      draws += static_cast<double>(r) * static_cast<double>(trials);
    }
    if (draws > kMaxDraws) {
      throw InputError(fmt::format(
          "--trials {} over --ranks {} needs {:.3g} random draws, above the limit of {:.0e} "
          "(a minute or more); use fewer trials or --method exact, which is exact and instant",
          trials, flags.ranks, draws, kMaxDraws));
    }
  }

  Report report;
  report.command = "straggler";
  report.kind = simulate ? Kind::kSimulation : Kind::kModel;
  report.banner = simulate ? simulation_banner(seed) : model_banner();
  const std::string how =
      method == Method::kExact
          ? std::string("exact order statistic")
          : method == Method::kMonteCarlo
                ? fmt::format("Monte Carlo, {} trials per row, seed {}", trials, seed)
                : fmt::format("exact order statistic and Monte Carlo ({} trials per row, seed {})",
                              trials, seed);
  report.title = fmt::format(
      "Slowest of N ranks at a barrier, per-rank step time Normal(mean 1, sd {}): {}",
      percent(sigma), how);
  report.inputs["ranks"] = ranks;
  report.inputs["sigma"] = sigma;
  report.inputs["method"] = std::string(method_name(method));
  if (simulate) {
    report.inputs["trials"] = trials;
    report.inputs["seed"] = seed;
  }

  std::vector<Column> columns = {{"ranks", "ranks", Unit::kCount}};
  if (exact) {
    columns.push_back({"expected_max_z", "E[max z]", Unit::kPlain});
    columns.push_back({"expected_slowest_over_mean", "slowest/mean", Unit::kRatio});
    columns.push_back({"throughput_lost", "throughput lost", Unit::kFraction});
  }
  if (method == Method::kMonteCarlo) {
    columns.push_back({"expected_slowest_over_mean", "slowest/mean", Unit::kRatio});
    columns.push_back({"standard_error", "std error", Unit::kPlain});
    columns.push_back({"throughput_lost", "throughput lost", Unit::kFraction});
  }
  if (method == Method::kBoth) {
    columns.push_back({"mc_expected_slowest_over_mean", "MC slowest/mean", Unit::kRatio});
    columns.push_back({"mc_standard_error", "MC std error", Unit::kPlain});
    columns.push_back({"mc_throughput_lost", "MC lost", Unit::kFraction});
    columns.push_back({"mc_minus_exact_in_se", "(MC-exact)/SE", Unit::kPlain});
  }
  Table rows{"rows", std::move(columns), {}, {}};
  const Progress progress("straggler");
  for (const std::int64_t r : ranks) {
    std::vector<Value> row{r};
    std::optional<SlowestRank> model;
    if (exact) {
      model = slowest_rank_exact(r, sigma);
      row.push_back(expected_max_standard_normal(r));
      row.push_back(model->expected_slowest_over_mean);
      row.push_back(model->throughput_lost);
    }
    if (simulate) {
      progress.say(fmt::format("simulating {} ranks x {} trials", r, trials));
      const SlowestRankSimulation mc = slowest_rank_monte_carlo(r, sigma, trials, seed);
      row.push_back(mc.expected_slowest_over_mean);
      row.push_back(mc.standard_error);
      row.push_back(mc.throughput_lost);
      if (model) {
        const double diff = mc.expected_slowest_over_mean - model->expected_slowest_over_mean;
        row.push_back(mc.standard_error > 0.0 ? Value{diff / mc.standard_error} : Value{});
      }
    }
    rows.add_row(std::move(row));
  }
  report.tables.push_back(std::move(rows));

  report.notes.push_back(
      "Per-rank step times independent Normal(1, sigma); a barrier waits for the slowest, so");
  report.notes.push_back(
      "slowest/mean = 1 + sigma E[max z] (z: N standard normals), lost = 1 - mean/slowest.");
  report.notes.push_back(
      "The loss grows without bound, slowly, as sqrt(2 ln N) (seed D01 section 3.4).");
  if (simulate) {
    report.notes.push_back(fmt::format(
        "Each row restarts mt19937_64 from seed {}, so a row does not depend on the others;",
        seed));
    report.notes.push_back("std error = sample sd of the slowest time / sqrt(trials).");
  }
  if (sigma > 0.25) {
    report.notes.push_back(fmt::format(
        "At sigma {} the normal model gives some ranks negative step times; the figures are",
        percent(sigma)));
    report.notes.push_back("the model's, not a physical bound.");
  }
  return report;
}

// ---- the measurement: --times ----

Report run_measured(const StragglerFlags& flags) {
  for (const CLI::Option* option : {flags.ranks_option, flags.sigma_option, flags.method_option,
                                    flags.trials_option, flags.seed_option}) {
    if (given(option)) {
      throw InputError(fmt::format(
          "--times reads measured per-rank times and cannot be combined with {} (which sets up "
          "the model); use one or the other",
          option->get_name()));
    }
  }
  if (flags.times.empty()) throw InputError("--times: empty file name");
  const std::vector<double> times =
      with_flag("--times", [&] { return read_times_file(flags.times, flags.column); });
  const BarrierStep step = with_flag("--times", [&] { return barrier_step(times); });

  Report report;
  report.command = "straggler";
  report.kind = Kind::kMeasurement;
  report.banner = measurement_banner(fmt::format("per-rank step times read from {}", flags.times));
  report.title = "Barrier-synchronised step: every rank waits for the slowest";
  report.inputs["times_file"] = flags.times;
  report.inputs["column"] = flags.column.empty() ? nlohmann::ordered_json(nullptr)
                                                 : nlohmann::ordered_json(flags.column);

  report.add_field("ranks", "ranks", Unit::kCount, step.ranks);
  report.add_field("step_s", "step (slowest rank)", Unit::kSeconds, step.step_s);
  report.add_field("mean_s", "mean rank time", Unit::kSeconds, step.mean_s);
  report.add_field("min_s", "fastest rank time", Unit::kSeconds, step.min_s);
  report.add_field("slowest_rank", "slowest rank", Unit::kCount, step.slowest_rank);
  report.add_field("wait_fraction", "rank-time spent waiting", Unit::kFraction,
                   step.wait_fraction);
  report.add_field("throughput_lost", "throughput lost", Unit::kFraction, step.throughput_lost);

  Table rows{"rows",
             {{"rank", "rank", Unit::kCount},
              {"time_s", "time", Unit::kSeconds},
              {"wait_s", "wait at barrier", Unit::kSeconds}},
             {},
             {}};
  for (std::size_t i = 0; i < times.size(); ++i) {
    const bool slowest = static_cast<std::int64_t>(i) == step.slowest_rank;
    rows.add_row({static_cast<std::int64_t>(i), times[i], step.step_s - times[i]},
                 slowest ? "<-- slowest" : "");
  }
  report.tables.push_back(std::move(rows));
  report.notes.push_back(
      "wait fraction = sum of (step - t_i) / (N x step) = 1 - mean/step: the share of rank-time");
  report.notes.push_back(
      "spent idle at the barrier (seed D01 exercise 4). The spread sets the step, not the mean.");
  return report;
}

Report run_straggler(const StragglerFlags& flags) {
  if (given(flags.times_option)) return run_measured(flags);
  if (given(flags.ranks_option)) return run_model(flags);
  throw InputError(
      "give --ranks LIST and --sigma F for the model, or --times FILE for measured per-rank "
      "times");
}

}  // namespace

void register_straggler(CLI::App& app) {
  auto flags = std::make_shared<StragglerFlags>();
  const FlagGroup own = {
      {"--ranks,-n", &flags->ranks, "Rank counts, comma separated: 8,64,1024 (each 1..2^40)",
       "LIST", {}, FlagKind::kOptional, &flags->ranks_option},
      {"--sigma", &flags->sigma,
       "Relative standard deviation of one rank's step time, 0..1 (0.02 or 2%)", "F", {},
       FlagKind::kOptional, &flags->sigma_option},
      {"--method", &flags->method,
       "exact (numerical order statistic), monte-carlo (seeded simulation), or both side by "
       "side",
       "exact|monte-carlo|both", "exact", FlagKind::kOptional, &flags->method_option},
      {"--trials", &flags->trials, "Monte Carlo trials per rank count", "T", "1000",
       FlagKind::kOptional, &flags->trials_option},
      {"--seed", &flags->seed, "Monte Carlo seed (0..2^63-1)", "S", "42", FlagKind::kOptional,
       &flags->seed_option},
      {"--times", &flags->times,
       "File of measured per-rank step times (one per line, or CSV with a header); instead of "
       "--ranks/--sigma",
       "FILE", {}, FlagKind::kOptional, &flags->times_option},
      {"--column", &flags->column,
       "With --times: the CSV column to read, by header name or 1-based index (default: the "
       "only column, or step_s, time_s, seconds or t_s)",
       "C", {}, FlagKind::kOptional, &flags->column_option},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "straggler",
      "The expected slowest of N ranks with jittery step times (exact order statistic or a "
      "seeded Monte Carlo), or the barrier step and wait fraction of measured per-rank times.",
      {own},
      "Example (seed D01 section 3.4's table):\n"
      "  scalewall straggler --ranks 8,64,1024,16384 --sigma 0.02\n"
      "  At 2% jitter the slowest of 16384 ranks runs 1.079x the mean: 7.4% of throughput.\n"
      "The same from a seeded simulation, beside the exact values:\n"
      "  scalewall straggler --ranks 8,64,1024,16384 --sigma 2% --method both --seed 42\n"
      "Measured per-rank times (a number per line, with or without units, or CSV):\n"
      "  scalewall straggler --times step_times.csv --column step_s"});
  cmd->callback([flags] { emit(run_straggler(*flags), flags->format); });
}

}  // namespace scalewall::cli
