// scalewall collective: the cost of each all-reduce algorithm for one call, cheapest first,
// and the size where ring and recursive doubling tie (seed D01 section 3.3, Lab 3,
// exercise 3).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string_view>
#include <vector>

#include "cli/common.h"
#include "scalewall/collective.h"
#include "scalewall/link.h"
#include "scalewall/scaling.h"
#include "scalewall/units.h"

namespace scalewall::cli {
namespace {

struct CollectiveFlags {
  std::string op = "allreduce";
  std::string ranks;
  std::string bytes;
  std::string alpha = "2.5us";
  std::string bandwidth = "25GB/s";
  std::string gamma = "0";
  std::string algorithms = "all";
  std::string format = "table";
};

Link read_link(const CollectiveFlags& flags) {
  const Link link{flag_seconds("--alpha", flags.alpha), flag_rate("--bandwidth", flags.bandwidth)};
  if (!(link.alpha_s > 0.0)) {
    throw InputError(fmt::format("--alpha: latency '{}' must be positive", flags.alpha));
  }
  if (!(link.bandwidth_Bps > 0.0)) {
    throw InputError(fmt::format("--bandwidth: rate '{}' must be positive", flags.bandwidth));
  }
  require_valid(link);
  return link;
}

// "all", or comma-separated names, each once.
std::vector<Algorithm> read_algorithms(const std::string& text) {
  if (text == "all") return {std::begin(kAllAlgorithms), std::end(kAllAlgorithms)};
  std::vector<Algorithm> algorithms;
  std::string_view rest = text;
  for (;;) {
    const std::size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    const Algorithm a = with_flag("--algorithms", [&] { return parse_algorithm(name); });
    if (std::find(algorithms.begin(), algorithms.end(), a) != algorithms.end()) {
      throw InputError(fmt::format("--algorithms: '{}' is listed twice in '{}'", name, text));
    }
    algorithms.push_back(a);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return algorithms;
}

std::string no_tie_text(std::int64_t ranks, const Link& link, double gamma) {
  if (ranks == 1) return "none (N = 1: a single rank communicates nothing; every algorithm is free)";
  // Without a tie one algorithm is at least as cheap at every size; any size shows which.
  const double ring = allreduce_cost(Algorithm::kRing, ranks, 1.0, link, gamma).total_s;
  const double rd =
      allreduce_cost(Algorithm::kRecursiveDoubling, ranks, 1.0, link, gamma).total_s;
  if (ring == rd) return "none (the two cost the same at every size)";
  return fmt::format("none ({} is cheaper at every size for N = {})",
                     algorithm_name(rd < ring ? Algorithm::kRecursiveDoubling : Algorithm::kRing),
                     ranks);
}

Report run_collective(const CollectiveFlags& flags) {
  if (flags.op != "allreduce") {
    throw InputError(fmt::format(
        "--op: collective '{}' is not modelled (only allreduce is, so far)", flags.op));
  }
  const std::int64_t ranks = flag_count("--ranks", flags.ranks, 1, kMaxRanks);
  const double bytes = flag_bytes("--bytes", flags.bytes);
  const Link link = read_link(flags);
  const double gamma = flag_seconds("--gamma", flags.gamma);
  const std::vector<Algorithm> algorithms = read_algorithms(flags.algorithms);

  const auto ranked = with_flag("--bytes", [&] {
    return rank_allreduce(algorithms, ranks, bytes, link, gamma);
  });
  const auto tie =
      allreduce_tie_bytes(Algorithm::kRing, Algorithm::kRecursiveDoubling, ranks, link, gamma);

  Report report;
  report.command = "collective";
  report.kind = Kind::kModel;
  report.banner = model_banner();
  report.title = fmt::format(
      "All-reduce of {} ({} B) per rank over {} rank{}; alpha {}, bandwidth {}, gamma {}/B",
      format_bytes(bytes), bytes, ranks, ranks == 1 ? "" : "s", format_seconds(link.alpha_s),
      format_rate(link.bandwidth_Bps), format_seconds(gamma));
  report.inputs["op"] = flags.op;
  report.inputs["ranks"] = ranks;
  report.inputs["bytes"] = bytes;
  report.inputs["alpha_s"] = link.alpha_s;
  report.inputs["bandwidth_Bps"] = link.bandwidth_Bps;
  report.inputs["gamma_s_per_byte"] = gamma;
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const Algorithm a : algorithms) names.push_back(std::string(algorithm_name(a)));
  report.inputs["algorithms"] = std::move(names);

  Table table{"algorithms",
              {{"name", "algorithm", Unit::kText},
               {"steps", "steps", Unit::kCount},
               {"bytes_per_rank", "bytes/rank", Unit::kBytes},
               {"latency_s", "latency", Unit::kSeconds},
               {"bandwidth_s", "bandwidth", Unit::kSeconds},
               {"compute_s", "compute", Unit::kSeconds},
               {"total_s", "total", Unit::kSeconds}},
              {},
              {}};
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const CollectiveCost& c = ranked[i];
    table.add_row({std::string(algorithm_name(c.algorithm)), c.steps, c.bytes_per_rank,
                   c.latency_s, c.bandwidth_s, c.compute_s, c.total_s},
                  i == 0 && ranked.size() > 1 ? "<-- winner" : "");
  }
  report.tables.push_back(std::move(table));

  report.add_field("winner", "winner", Unit::kText,
                   std::string(algorithm_name(ranked.front().algorithm)));
  report.add_field("tie_bytes", "ring = recursive-doubling at", Unit::kBytes,
                   tie ? Value{*tie} : Value{}, no_tie_text(ranks, link, gamma));
  if (ranks == 1) {
    report.notes.push_back("N = 1: there is nothing to reduce with, so every cost is zero.");
  } else if (tie) {
    report.notes.push_back(fmt::format(
        "Below {} recursive doubling wins (fewer steps, each paying alpha);", format_bytes(*tie)));
    report.notes.push_back("above it the ring wins (fewer bytes, each paying beta).");
  }
  report.notes.push_back("Ring: 2(N-1) steps, 2m(N-1)/N bytes per rank.");
  report.notes.push_back(
      "Recursive doubling: log2 N steps, m log2 N bytes per rank; for N not a power of two,");
  report.notes.push_back("with p = 2^floor(log2 N): log2 p + 2 steps, m (log2 p + 2) bytes.");
  return report;
}

}  // namespace

void register_collective(CLI::App& app) {
  auto flags = std::make_shared<CollectiveFlags>();
  CLI::App* cmd = app.add_subcommand(
      "collective",
      "Cost of each all-reduce algorithm (ring, recursive doubling) for one call under the "
      "alpha-beta model, cheapest first: steps x alpha + bytes per rank x beta + reduced bytes "
      "x gamma, and the size at which ring and recursive doubling tie for this rank count.");
  cmd->add_option("--ranks,-n", flags->ranks, "Rank count N, 1 to 2^40")
      ->type_name("N")
      ->required();
  cmd->add_option("--bytes,-m", flags->bytes,
                  "Buffer per rank m, the whole all-reduce vector (4096, 64MB, 1GiB)")
      ->type_name("M")
      ->required();
  cmd->add_option("--alpha,-a", flags->alpha, "Start-up latency alpha per message")
      ->type_name("T")
      ->default_val("2.5us");
  cmd->add_option("--bandwidth,-b", flags->bandwidth, "Link bandwidth, 1/beta")
      ->type_name("R")
      ->default_val("25GB/s");
  cmd->add_option("--gamma", flags->gamma,
                  "Reduction arithmetic cost per byte reduced (0.1ns means 10 GB/s of "
                  "reduction; 0 makes it free)")
      ->type_name("G")
      ->default_val("0");
  cmd->add_option("--algorithms", flags->algorithms,
                  "Comma-separated algorithms to compare: ring, recursive-doubling, or all")
      ->type_name("LIST")
      ->default_val("all");
  cmd->add_option("--op", flags->op, "Collective operation; only allreduce for now")
      ->type_name("OP")
      ->default_val("allreduce");
  add_format_option(cmd, &flags->format);
  cmd->footer(
      "Recursive doubling takes log2 N steps but moves m log2 N bytes per rank; the ring takes\n"
      "2(N-1) steps but moves only 2m(N-1)/N. Small messages pay for steps, large ones for\n"
      "bytes, so the winner flips with size, and the size where it flips moves with N.\n"
      "\n"
      "Examples (seed Lab 3):\n"
      "  scalewall collective --ranks 64 --bytes 4096\n"
      "      recursive doubling wins: 6 steps against 126\n"
      "  scalewall collective --ranks 64 --bytes 1073741824\n"
      "      the ring wins: about 2.1 GB per rank against 6.4 GB\n"
      "  scalewall collective --ranks 512 --bytes 4096\n"
      "      the tie point grows from about 1.86 MB at 64 ranks to about 9 MB at 512");
  cmd->callback([flags] { emit(run_collective(*flags), flags->format); });
}

}  // namespace scalewall::cli
