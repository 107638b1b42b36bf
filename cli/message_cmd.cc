// scalewall message: Hockney's alpha-beta cost of one message, its crossover size and regime
// (seed D01 section 3.1, Lab 2, exercise 2).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "cli/common.h"
#include "scalewall/model/link.h"
#include "scalewall/base/units.h"

namespace scalewall::cli {
namespace {

struct MessageFlags {
  std::string alpha = "2.5us";
  std::string bandwidth = "25GB/s";
  std::string min_bytes = "1";
  std::string max_bytes = "1GB";
  std::string bytes;
  std::string format = "table";
  const CLI::Option* min_option = nullptr;
  const CLI::Option* max_option = nullptr;
  const CLI::Option* bytes_option = nullptr;
};

constexpr const char* kCrossoverMark = "<-- crossover m* = alpha x bandwidth";

Link read_link(const MessageFlags& flags) {
  const Link link{flag_link_latency("--alpha", flags.alpha),
                  flag_link_rate("--bandwidth", flags.bandwidth)};
  require_valid(link);
  return link;
}

// True when `bytes` is the crossover size, allowing for the binary rounding of decimal inputs
// (2.5 us x 25 GB/s comes out a few ulps from 62,500 B), as classify_message does.
bool is_crossover(double bytes, double m_star) {
  return std::fabs(bytes - m_star) <= 1e-12 * m_star;
}

// The sweep's sizes: min, every power of ten above it up to max, and max.
// A min of 0 is followed by 1 B, then the decades.
// At most kMaxSweepRows rows: a wider range is refused, naming the limit.
constexpr std::size_t kMaxSweepRows = 64;

std::vector<double> sweep_sizes(double min_bytes, double max_bytes) {
  std::vector<double> sizes{min_bytes};
  double decade = 1.0;
  // Both bounds are finite, so an overflowing decade (infinity) ends either loop.
  while (decade <= min_bytes) decade *= 10.0;
  for (; decade <= max_bytes; decade *= 10.0) {
    if (sizes.size() + 1 >= kMaxSweepRows) {
      throw InputError(fmt::format(
          "--min-bytes {} to --max-bytes {}: the sweep would have more than {} rows (one per "
          "power of ten); narrow the range",
          format_bytes(min_bytes, 6), format_bytes(max_bytes, 6), kMaxSweepRows));
    }
    sizes.push_back(decade);
  }
  if (sizes.back() != max_bytes) sizes.push_back(max_bytes);
  return sizes;
}

Report run_message(const MessageFlags& flags) {
  const Link link = read_link(flags);
  const double m_star = crossover_bytes(link);
  const bool single = given(flags.bytes_option);
  if (single && (given(flags.min_option) || given(flags.max_option))) {
    throw InputError(
        "--bytes classifies one message and cannot be combined with --min-bytes or "
        "--max-bytes (which set a sweep)");
  }

  Report report = model_report("message");
  report.inputs["alpha_s"] = link.alpha_s;
  report.inputs["bandwidth_Bps"] = link.bandwidth_Bps;

  std::vector<double> sizes;
  if (single) {
    const double bytes = flag_bytes("--bytes", flags.bytes);
    report.inputs["bytes"] = bytes;
    sizes.push_back(bytes);
  } else {
    const double min_bytes = flag_bytes("--min-bytes", flags.min_bytes);
    const double max_bytes = flag_bytes("--max-bytes", flags.max_bytes);
    if (min_bytes > max_bytes) {
      throw InputError(fmt::format("--min-bytes {} is above --max-bytes {}",
                                   format_bytes(min_bytes, 6), format_bytes(max_bytes, 6)));
    }
    report.inputs["min_bytes"] = min_bytes;
    report.inputs["max_bytes"] = max_bytes;
    sizes = sweep_sizes(min_bytes, max_bytes);
    // The crossover gets a row of its own in its sorted place, unless a row already sits on it.
    if (m_star >= min_bytes && m_star <= max_bytes &&
        std::none_of(sizes.begin(), sizes.end(),
                     [&](double bytes) { return is_crossover(bytes, m_star); })) {
      sizes.insert(std::upper_bound(sizes.begin(), sizes.end(), m_star), m_star);
    }
  }

  report.title = fmt::format(
      "Hockney cost T(m) = alpha + m / bandwidth, alpha {}, bandwidth {}",
      format_seconds(link.alpha_s), format_rate(link.bandwidth_Bps));
  Table rows{"rows",
             {{"bytes", "message", Unit::kBytes},
              {"latency_s", "latency alpha", Unit::kSeconds},
              {"bandwidth_s", "bandwidth m/B", Unit::kSeconds},
              {"total_s", "total", Unit::kSeconds},
              {"regime", "regime", Unit::kText},
              {"crossover", "at m*", Unit::kText}},
             {},
             {}};
  std::optional<Regime> single_regime;
  for (const double bytes : sizes) {
    const MessageCost cost = with_flag(single ? "--bytes" : "--max-bytes",
                                       [&] { return message_cost(link, bytes); });
    const Regime regime = classify_message(link, bytes);
    if (single) single_regime = regime;
    const bool at_crossover = is_crossover(bytes, m_star);
    rows.add_row({cost.bytes, cost.latency_s, cost.bandwidth_s, cost.total_s,
                  std::string(regime_name(regime)), at_crossover},
                 at_crossover ? kCrossoverMark : "");
  }
  report.tables.push_back(std::move(rows));

  report.add_field("crossover_bytes", "crossover m* = alpha x bandwidth", Unit::kBytes, m_star);
  if (single_regime) {
    report.add_field("regime", "regime of the message", Unit::kText,
                     std::string(regime_name(*single_regime)));
  } else if (m_star < sizes.front() || m_star > sizes.back()) {
    report.notes.push_back(fmt::format("The crossover m* = {} lies outside this sweep.",
                                       format_bytes(m_star)));
  }
  report.notes.push_back(
      "Regimes: latency-bound below m*/2, balanced from m*/2 to 2 m*, bandwidth-bound above "
      "2 m*.");
  report.notes.push_back(
      "Below m* size is nearly free: send fewer, bigger messages. Above it only bandwidth "
      "matters.");
  return report;
}

}  // namespace

void register_message(CLI::App& app) {
  auto flags = std::make_shared<MessageFlags>();
  const FlagGroup own = {
      {"--alpha,-a", &flags->alpha, "Start-up latency alpha per message (2.5us, 30us)", "T",
       "2.5us"},
      {"--bandwidth,-b", &flags->bandwidth, "Link bandwidth, 1/beta (25GB/s, 1Gb/s, 400Gbps)",
       "R", "25GB/s"},
      {"--min-bytes", &flags->min_bytes,
       "Smallest size of the sweep; rows at every power of ten from it (0 adds a 0-byte row)",
       "SIZE", "1", FlagKind::kOptional, &flags->min_option},
      {"--max-bytes", &flags->max_bytes, "Largest size of the sweep (1GB, 4GiB); always a row",
       "SIZE", "1GB", FlagKind::kOptional, &flags->max_option},
      {"--bytes,-m", &flags->bytes,
       "Classify this one message size instead of sweeping (4KB, 64KiB)", "SIZE", {},
       FlagKind::kOptional, &flags->bytes_option},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "message",
      "Cost of one point-to-point message under Hockney's alpha-beta model, the crossover size "
      "m* = alpha x bandwidth where latency and bandwidth terms are equal, and the regime "
      "(latency-bound, balanced, bandwidth-bound) of each size.",
      {own},
      "The cost curve is flat below m* (a 1 KB and a 64 KB message cost nearly the same on a\n"
      "fast fabric) and linear above it. The crossover row is marked in the table.\n"
      "\n"
      "Examples (seed Lab 2):\n"
      "  scalewall message --alpha 2.5us --bandwidth 25GB/s\n"
      "      RDMA-class link: m* = 62.5 KB\n"
      "  scalewall message --alpha 30us --bandwidth 0.125GB/s\n"
      "      1 GbE-class link: m* = 3.75 KB, over a decade lower, since m* is a product\n"
      "  scalewall message --alpha 30us --bandwidth 1Gb/s --bytes 64KB\n"
      "      on that link even a 64 KB message is bandwidth-bound"});
  cmd->callback([flags] { emit(run_message(*flags), flags->format); });
}

}  // namespace scalewall::cli
