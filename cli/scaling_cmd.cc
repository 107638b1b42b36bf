// scalewall scaling: Amdahl and Gustafson side by side (seed D01 section 2, Lab 1).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <memory>

#include "cli/common.h"
#include "scalewall/model/scaling.h"

namespace scalewall::cli {
namespace {

struct ScalingFlags {
  std::string serial_fraction;
  std::string ranks;
  std::string target_efficiency = "0.5";
  std::string format = "table";
};

Report run_scaling(const ScalingFlags& flags) {
  const double s = flag_fraction("--serial-fraction", flags.serial_fraction);
  with_flag("--serial-fraction", [&] { require_serial_fraction(s); });
  const std::int64_t n = flag_count("--ranks", flags.ranks, 1, kMaxRanks);
  const double target = flag_fraction("--target-efficiency", flags.target_efficiency);
  const auto max_ranks = with_flag("--target-efficiency",
                                   [&] { return max_ranks_at_efficiency(s, target); });

  Report report = model_report("scaling");
  report.title = fmt::format(
      "Amdahl (fixed problem) and Gustafson (problem grown with N), serial fraction {:g}, "
      "communication free",
      s);
  report.inputs["serial_fraction"] = s;
  report.inputs["ranks"] = n;
  report.inputs["target_efficiency"] = target;

  Table rows{"rows",
             {{"ranks", "ranks", Unit::kCount},
              {"amdahl_speedup", "Amdahl speedup", Unit::kRatio},
              {"amdahl_efficiency", "Amdahl efficiency", Unit::kFraction},
              {"gustafson_speedup", "Gustafson speedup", Unit::kRatio}},
             {},
             {}};
  const auto add = [&](std::int64_t ranks) {
    const auto r = static_cast<double>(ranks);
    rows.add_row({ranks, amdahl_speedup(s, r), amdahl_efficiency(s, r), gustafson_speedup(s, r)});
  };
  std::int64_t last = 0;
  for (std::int64_t r = 1; r <= n; r *= 2) {
    add(r);
    last = r;
    if (r > n / 2) break;  // the next doubling would pass n (and never overflows)
  }
  if (last != n) add(n);
  report.tables.push_back(std::move(rows));

  // 1/s overflows a double for s below about 5.6e-309 (a denormal s): that ceiling is
  // stated in words, never printed as infinity.
  const auto ceiling = amdahl_ceiling(s);
  const bool finite_ceiling = ceiling && std::isfinite(*ceiling);
  report.add_field("ceiling_speedup", "Amdahl ceiling 1/s", Unit::kRatio,
                   finite_ceiling ? Value{*ceiling} : Value{},
                   ceiling ? fmt::format("above {:.3g}x (1/s is beyond a double)",
                                         std::numeric_limits<double>::max())
                           : std::string("none (s = 0: no serial part)"));
  report.add_field("target_efficiency", "target efficiency", Unit::kFraction, target);
  report.add_field("max_ranks_at_target", "largest N at target", Unit::kCount,
                   max_ranks ? Value{*max_ranks} : Value{},
                   "unbounded (efficiency stays above the target up to 2^40 ranks)");
  report.notes.push_back(
      "Efficiency, not speedup, is what a capacity request buys. Gustafson assumes the problem "
      "grows with N; Amdahl that it stays fixed.");
  return report;
}

}  // namespace

void register_scaling(CLI::App& app) {
  auto flags = std::make_shared<ScalingFlags>();
  const FlagGroup own = {
      {"--serial-fraction,-s", &flags->serial_fraction,
       "Serial fraction s of the run, 0..1 (0.05 or 5%)", "S", {}, FlagKind::kRequired},
      {"--ranks,-n", &flags->ranks,
       "Largest rank count N; rows are printed for 1, 2, 4, ... and N", "N", {},
       FlagKind::kRequired},
      {"--target-efficiency", &flags->target_efficiency,
       "Efficiency to hold, in (0, 1] (0.5 or 50%)", "E", "0.5"},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "scaling",
      "Amdahl speedup and efficiency, Gustafson scaled speedup, and the largest rank count that "
      "keeps a target efficiency.",
      {own},
      "Example (seed Lab 1): scalewall scaling --serial-fraction 0.02 --ranks 1024\n"
      "  Efficiency falls below 50% at 52 ranks: the largest N at target is 51."});
  cmd->callback([flags] { emit(run_scaling(*flags), flags->format); });
}

}  // namespace scalewall::cli
