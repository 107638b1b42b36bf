// scalewall select: the selection map of one collective: the cheapest algorithm on a grid of
// rank counts x message sizes, the exact size at which the winner changes for each rank
// count, and, with --selector, what MPICH's or Open MPI's fixed rules pick for the same calls
// and what that costs against the model's best.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/common.h"
#include "scalewall/model/collective.h"
#include "scalewall/platform/gnuplot.h"
#include "scalewall/present/plot.h"
#include "scalewall/model/scaling.h"
#include "scalewall/analysis/select.h"
#include "scalewall/base/units.h"

namespace scalewall::cli {
namespace {

constexpr std::size_t kMaxAxis = 64;  // rank counts, and sizes: at most 64 x 64 cells

struct SelectFlags {
  std::string op = "allreduce";
  std::string ranks = "2..1024";
  std::string bytes = "1..1GiB";
  std::string step = "4";
  FabricFlags fabric;
  std::string gamma = "0";
  std::string chunk = "512KiB";
  std::string selector;
  std::string plot;
  std::string format = "table";
};

// "A..B": A, A*step, A*step^2, ... up to B; or a single size "A". A >= 1 (the grid is
// logarithmic).
std::vector<double> read_size_grid(const std::string& text, double step) {
  const auto dots = text.find("..");
  const double a = flag_bytes("--bytes", dots == std::string::npos ? text : text.substr(0, dots));
  const double b = dots == std::string::npos ? a : flag_bytes("--bytes", text.substr(dots + 2));
  if (a < 1.0) {
    throw InputError(fmt::format(
        "--bytes: range '{}' starts at {} B; the sizes grow by a factor, so start at 1 B or "
        "more",
        text, a));
  }
  if (a > b) {
    throw InputError(fmt::format("--bytes: range '{}' runs backwards ({} B > {} B)", text, a, b));
  }
  std::vector<double> sizes;
  for (double m = a; m <= b; m *= step) {
    if (sizes.size() == kMaxAxis) {
      throw InputError(fmt::format(
          "--bytes: range '{}' with step {} holds more than {} sizes; narrow it or use --step 4",
          text, step, kMaxAxis));
    }
    sizes.push_back(m);
  }
  return sizes;
}

std::vector<std::int64_t> read_rank_grid(const std::string& text) {
  std::vector<std::int64_t> ranks = flag_rank_range("--ranks", text);
  std::sort(ranks.begin(), ranks.end());
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    if (ranks[i] == ranks[i - 1]) {
      throw InputError(fmt::format("--ranks: {} is listed twice in '{}'", ranks[i], text));
    }
  }
  if (ranks.size() > kMaxAxis) {
    throw InputError(fmt::format("--ranks: '{}' holds {} rank counts; at most {} fit a map",
                                 text, ranks.size(), kMaxAxis));
  }
  return ranks;
}

// Two- to four-letter codes for the map cells.
std::string code(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kRing:
      return "RG";
    case Algorithm::kRecursiveDoubling:
      return "RD";
    case Algorithm::kRecursiveHalving:
      return "RH";
    case Algorithm::kRabenseifner:
      return "RB";
    case Algorithm::kBinomialTree:
      return "BT";
    case Algorithm::kDoubleBinaryTree:
      return "DT";
    case Algorithm::kScatterAllgather:
      return "SA";
    case Algorithm::kPairwise:
      return "PW";
    case Algorithm::kBruck:
      return "BR";
    case Algorithm::kDissemination:
      return "DS";
    case Algorithm::kHierarchical:
      return "H";
  }
  SCALEWALL_CHECK(false && "unknown Algorithm");
  return {};
}

std::string code(AlgorithmSpec spec) {
  if (spec.algorithm == Algorithm::kHierarchical) return "H-" + code(spec.inter);
  return code(spec.algorithm);
}

// A column title for a size: "64", "4Ki", "16Mi", "1Gi" (binary multiples), else the number.
std::string size_label(double bytes) {
  const char* units[] = {"Ti", "Gi", "Mi", "Ki"};
  for (int i = 0; i < 4; ++i) {
    const double unit = std::ldexp(1.0, 10 * (4 - i));
    if (bytes >= unit && std::fmod(bytes, unit) == 0.0) {
      return fmt::format("{}{}", bytes / unit, units[i]);
    }
  }
  return fmt::format("{}", bytes);
}

std::string size_words(double bytes) {
  const std::string plain = fmt::format("{} B", bytes);
  const std::string human = format_bytes(bytes);
  return human == plain ? plain : fmt::format("{} ({})", human, plain);
}

// One cell's library pick, costed under the model.
struct LibraryCell {
  LibraryChoice choice;
  std::optional<double> total_s;
  std::optional<double> ratio;  // total_s / the model's best
};

Value optional_value(const std::optional<double>& v) { return v ? Value{*v} : Value{}; }

nlohmann::ordered_json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

Report run_select(const SelectFlags& flags) {
  const Format format = with_flag("--format", [&] { return parse_format(flags.format); });
  if (!flags.plot.empty()) with_flag("--plot", [&] { return plot_format_for_path(flags.plot); });
  const Op op = with_flag("--op", [&] { return parse_op(flags.op); });
  const std::int64_t step = flag_count("--step", flags.step, 1, 1 << 20);
  if (step != 2 && step != 4) {
    throw InputError(fmt::format("--step: {} is not 2 or 4 (the factor between sizes)", step));
  }
  const std::vector<std::int64_t> ranks = read_rank_grid(flags.ranks);
  const std::vector<double> bytes = read_size_grid(flags.bytes, static_cast<double>(step));
  CostOptions options;
  options.gamma_s_per_byte = flag_seconds("--gamma", flags.gamma);
  options.tree_chunk_bytes = flag_bytes("--chunk", flags.chunk);
  if (!(options.tree_chunk_bytes > 0)) {
    throw InputError(fmt::format("--chunk: chunk size '{}' must be above zero", flags.chunk));
  }
  std::optional<Selector> selector;
  if (!flags.selector.empty()) {
    selector = with_flag("--selector", [&] { return parse_selector(flags.selector); });
  }

  // The network: a flat link, or a fabric scaled to each rank count.
  const bool on_fabric = !flags.fabric.fabric.empty();
  const Topology base =
      on_fabric ? resolve_topology(flags.fabric, std::nullopt)
                : resolve_topology(flags.fabric, std::optional<std::int64_t>{1});
  const std::function<Topology(std::int64_t)> topology_for = [&](std::int64_t n) {
    if (!on_fabric) return flat_topology(n, base.inter);
    return with_flag("--ranks", [&] { return scaled_topology(base, n); });
  };
  std::vector<Topology> topologies;
  for (const std::int64_t n : ranks) topologies.push_back(topology_for(n));
  // Cost every candidate once per rank count, largest first, so that a rank count too large
  // for the edge-level evaluator fails at once rather than after the smaller rows.
  for (std::size_t i = ranks.size(); i-- > 0;) {
    with_flag("--ranks", [&] {
      for (const AlgorithmSpec& s : applicable_algorithms(op, topologies[i])) {
        collective_cost(op, s, bytes.front(), topologies[i], options);
      }
    });
  }

  const Progress progress("select");
  progress.say(fmt::format("costing {} rank counts x {} sizes", ranks.size(), bytes.size()));
  const SelectionMap map = selection_map(op, ranks, bytes, topology_for, options);
  if (!flags.plot.empty()) {
    RenderOptions plot_options;
    plot_options.inputs = {flags.fabric.fabric};
    with_flag("--plot", [&] {
      return render_plot(
          selection_map_plot(map, on_fabric ? describe_topology(base)
                                            : describe_topology(flat_topology(1, base.inter))),
          flags.plot, plot_options);
    });
  }

  // Every algorithm that took part, in a stable order, for the legend.
  std::vector<AlgorithmSpec> legend;
  for (const Topology& t : topologies) {
    for (const AlgorithmSpec& s : applicable_algorithms(op, t)) {
      if (std::find(legend.begin(), legend.end(), s) == legend.end()) legend.push_back(s);
    }
  }

  // The library's pick at every cell.
  std::vector<std::vector<LibraryCell>> library(ranks.size());
  if (selector) {
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      for (std::size_t j = 0; j < bytes.size(); ++j) {
        LibraryCell cell;
        cell.choice = library_choice(*selector, op, ranks[i], bytes[j]);
        if (cell.choice.modelled) {
          cell.total_s =
              collective_cost(op, *cell.choice.modelled, bytes[j], topologies[i], options).total_s;
          const double best = map.rows[i].total_s[j];
          if (best > 0) cell.ratio = *cell.total_s / best;
        }
        library[i].push_back(std::move(cell));
      }
    }
  }

  Report report;
  report.command = "select";
  report.kind = Kind::kModel;
  report.banner = model_banner();
  const std::string network =
      on_fabric ? describe_topology(base) : describe_topology(flat_topology(1, base.inter));
  report.title = fmt::format(
      "{} selection map: {} rank count{} x {} size{} (x{} apart); {}; gamma {}/B", op_name(op),
      ranks.size(), ranks.size() == 1 ? "" : "s", bytes.size(), bytes.size() == 1 ? "" : "s",
      step, network, format_seconds(options.gamma_s_per_byte));
  report.inputs["op"] = std::string(op_name(op));
  report.inputs["ranks"] = ranks;
  report.inputs["bytes"] = bytes;
  report.inputs["step"] = step;
  if (on_fabric) {
    report.inputs["fabric"] = topology_inputs(base);
  } else {
    report.inputs["alpha_s"] = base.inter.alpha_s;
    report.inputs["bandwidth_Bps"] = base.inter.bandwidth_Bps;
  }
  report.inputs["gamma_s_per_byte"] = options.gamma_s_per_byte;
  report.inputs["tree_chunk_bytes"] = options.tree_chunk_bytes;
  if (selector) {
    report.inputs["selector"] = std::string(selector_name(*selector));
    report.inputs["element_bytes"] = 4.0;
  }

  switch (format) {
    case Format::kJson: {
      nlohmann::ordered_json& j = report.extra;
      j["op"] = std::string(op_name(op));
      j["bytes"] = bytes;
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      for (std::size_t i = 0; i < map.rows.size(); ++i) {
        const SelectionRow& row = map.rows[i];
        nlohmann::ordered_json r;
        r["ranks"] = row.ranks;
        nlohmann::ordered_json winners = nlohmann::ordered_json::array();
        for (const AlgorithmSpec& w : row.winner) winners.push_back(algorithm_name(w));
        r["winners"] = std::move(winners);
        r["total_s"] = row.total_s;
        nlohmann::ordered_json switches = nlohmann::ordered_json::array();
        for (const auto& s : row.switches) {
          nlohmann::ordered_json o;
          o["from"] = algorithm_name(s.from);
          o["to"] = algorithm_name(s.to);
          o["bytes"] = s.bytes;
          switches.push_back(std::move(o));
        }
        r["switches"] = std::move(switches);
        if (selector) {
          nlohmann::ordered_json picks = nlohmann::ordered_json::array();
          for (const LibraryCell& cell : library[i]) {
            nlohmann::ordered_json o;
            o["algorithm"] = cell.choice.library_algorithm;
            o["modelled"] = cell.choice.modelled
                                ? nlohmann::ordered_json(algorithm_name(*cell.choice.modelled))
                                : nlohmann::ordered_json(nullptr);
            o["total_s"] = optional_json(cell.total_s);
            o["cost_ratio"] = optional_json(cell.ratio);
            o["rule"] = cell.choice.rule;
            picks.push_back(std::move(o));
          }
          r["library"] = std::move(picks);
        }
        rows.push_back(std::move(r));
      }
      j["rows"] = std::move(rows);
      nlohmann::ordered_json codes = nlohmann::ordered_json::object();
      for (const AlgorithmSpec& s : legend) codes[code(s)] = algorithm_name(s);
      j["legend"] = std::move(codes);
      if (selector) {
        j["selector"] = std::string(selector_name(*selector));
        j["selector_rules"] = std::string(selector_description(*selector));
      }
      return report;
    }
    case Format::kCsv: {
      Table cells{"cells",
                  {{"ranks", "ranks", Unit::kCount},
                   {"bytes", "bytes", Unit::kBytes},
                   {"winner", "winner", Unit::kText},
                   {"total_s", "total", Unit::kSeconds}},
                  {},
                  {}};
      if (selector) {
        cells.columns.push_back({"library_algorithm", "library picks", Unit::kText});
        cells.columns.push_back({"library_modelled", "modelled as", Unit::kText});
        cells.columns.push_back({"library_total_s", "its cost", Unit::kSeconds});
        cells.columns.push_back({"cost_ratio", "against best", Unit::kRatio});
      }
      for (std::size_t i = 0; i < map.rows.size(); ++i) {
        for (std::size_t j = 0; j < bytes.size(); ++j) {
          std::vector<Value> row = {map.rows[i].ranks, bytes[j],
                                    algorithm_name(map.rows[i].winner[j]),
                                    map.rows[i].total_s[j]};
          if (selector) {
            const LibraryCell& cell = library[i][j];
            row.push_back(cell.choice.library_algorithm);
            row.push_back(cell.choice.modelled ? Value{algorithm_name(*cell.choice.modelled)}
                                               : Value{});
            row.push_back(optional_value(cell.total_s));
            row.push_back(optional_value(cell.ratio));
          }
          cells.add_row(std::move(row));
        }
      }
      report.tables.push_back(std::move(cells));
      return report;
    }
    case Format::kTable:
      break;
  }

  // Table format: the map, one row per rank count and one code per size.
  const auto grid_table = [&](const std::string& key) {
    Table t{key, {{"ranks", "ranks", Unit::kCount}}, {}, {}};
    for (const double m : bytes) t.columns.push_back({fmt::format("{}", m), size_label(m), Unit::kText});
    return t;
  };
  Table winners = grid_table("winners");
  for (const SelectionRow& row : map.rows) {
    std::vector<Value> cells = {row.ranks};
    for (const AlgorithmSpec& w : row.winner) cells.push_back(row.ranks == 1 ? "--" : code(w));
    winners.add_row(std::move(cells));
  }
  report.tables.push_back(std::move(winners));

  Table switches{"switches",
                 {{"ranks", "ranks", Unit::kCount},
                  {"from", "from", Unit::kText},
                  {"to", "to", Unit::kText},
                  {"at", "at", Unit::kBytes},
                  {"bytes", "bytes", Unit::kCount}},
                 {},
                 {}};
  std::vector<std::string> steady;
  for (const SelectionRow& row : map.rows) {
    for (const auto& s : row.switches) {
      switches.add_row({row.ranks, algorithm_name(s.from), algorithm_name(s.to), s.bytes,
                        std::round(s.bytes)});
    }
    if (row.switches.empty() && row.ranks > 1) steady.push_back(fmt::format("{}", row.ranks));
  }
  if (!switches.rows.empty()) report.tables.push_back(std::move(switches));

  std::string legend_text;
  for (const AlgorithmSpec& s : legend) {
    legend_text += fmt::format("{}{} {}", legend_text.empty() ? "" : ", ", code(s),
                               algorithm_name(s));
  }
  report.notes.push_back("Legend: " + legend_text + ".");
  report.notes.push_back(
      "Columns are the message size m per rank (Ki = 1024 B, Mi = 2^20 B, Gi = 2^30 B); each "
      "cell is the cheapest algorithm under the model.");
  report.notes.push_back(
      "A switch is the exact size where the two neighbouring winners cost the same, not a grid "
      "point; an algorithm that wins only between two grid sizes shows on a finer grid "
      "(--step 2).");
  if (!steady.empty()) {
    report.notes.push_back(fmt::format("No switch at {} ranks: one algorithm wins every size.",
                                       fmt::join(steady, ", ")));
  }
  if (ranks.front() == 1) {
    report.notes.push_back("N = 1: a single rank exchanges nothing; every algorithm costs zero (--).");
  }

  if (selector) {
    Table picks = grid_table("library");
    std::size_t differs = 0;
    std::size_t unmodelled = 0;
    std::size_t compared = 0;
    std::optional<std::pair<std::size_t, std::size_t>> worst;
    std::set<std::string> unmodelled_names;
    for (std::size_t i = 0; i < map.rows.size(); ++i) {
      std::vector<Value> cells = {map.rows[i].ranks};
      std::optional<std::size_t> row_worst;
      for (std::size_t j = 0; j < bytes.size(); ++j) {
        const LibraryCell& cell = library[i][j];
        if (!cell.choice.modelled) {
          cells.push_back("--");
          ++unmodelled;
          unmodelled_names.insert(cell.choice.library_algorithm);
          continue;
        }
        if (map.rows[i].ranks == 1) {
          cells.push_back(code(*cell.choice.modelled));
          continue;
        }
        ++compared;
        const bool same = cell.ratio && *cell.ratio <= 1.0;
        cells.push_back(code(*cell.choice.modelled) + (same ? "" : "*"));
        if (!same) ++differs;
        if (cell.ratio && (!row_worst || *cell.ratio > *library[i][*row_worst].ratio)) {
          row_worst = j;
        }
        if (cell.ratio && (!worst || *cell.ratio > *library[worst->first][worst->second].ratio)) {
          worst = std::pair{i, j};
        }
      }
      std::string mark;
      if (row_worst && *library[i][*row_worst].ratio > 1.0) {
        mark = fmt::format("worst {} at {}", format_cell(*library[i][*row_worst].ratio, Unit::kRatio),
                           size_label(bytes[*row_worst]));
      }
      picks.add_row(std::move(cells), std::move(mark));
    }
    report.tables.push_back(std::move(picks));
    report.add_field("selector", "selector", Unit::kText,
                     fmt::format("{} ({})", selector_name(*selector),
                                 selector_description(*selector)));
    report.add_field("differs", "dearer than the model's best", Unit::kText,
                     fmt::format("{} of {} modelled cells", differs, compared));
    report.add_field("not_modelled", "picks the model cannot cost", Unit::kText,
                     fmt::format("{} cell{}", unmodelled, unmodelled == 1 ? "" : "s"));
    Value worst_text;
    if (worst && *library[worst->first][worst->second].ratio > 1.0) {
      const auto [i, j] = *worst;
      worst_text = fmt::format(
          "{} at {} ranks, {}: {} picks {}, the model {}",
          format_cell(*library[i][j].ratio, Unit::kRatio), ranks[i], size_words(bytes[j]),
          selector_name(*selector), library[i][j].choice.library_algorithm,
          algorithm_name(map.rows[i].winner[j]));
    }
    report.add_field("worst", "worst ratio", Unit::kText, worst_text,
                     compared == 0 ? "none: no pick the model can cost"
                                   : "1x: every modelled pick is the model's best");
    report.notes.push_back(fmt::format(
        "[library]: the model's counterpart of each pick by the {}; * where it costs more "
        "than the model's best, -- where the model has none. The rule and thresholds behind "
        "each cell: --format json.",
        selector_description(*selector)));
    if (!unmodelled_names.empty()) {
      report.notes.push_back(fmt::format("Not modelled (--): {}.", fmt::join(unmodelled_names, "; ")));
    }
  }
  if (on_fabric) {
    report.notes.push_back(fmt::format(
        "Each rank count runs on the fabric scaled to it: N / {} nodes of {} ranks (one node "
        "below {} ranks).",
        base.ranks_per_node, base.ranks_per_node, base.ranks_per_node));
  }
  if (on_fabric && base.nominal) {
    report.notes.push_back(
        "The fabric's link figures are nominal (datasheet values), not measured.");
  }
  return report;
}

}  // namespace

void register_select(CLI::App& app) {
  auto flags = std::make_shared<SelectFlags>();
  CLI::App* cmd = app.add_subcommand(
      "select",
      "Selection map of one collective: the cheapest algorithm for each rank count and "
      "message size, the exact sizes where the winner changes, and (--selector) what MPICH or "
      "Open MPI would pick instead and what that costs.");
  cmd->add_option("--op", flags->op, "Collective: " + op_names())
      ->type_name("OP")
      ->default_val("allreduce");
  cmd->add_option("--ranks,-n", flags->ranks,
                  "Rank counts: A..B (the powers of two in it) or a list 8,24,64; with --fabric "
                  "each must fill whole nodes or fit in one")
      ->type_name("A..B")
      ->default_val("2..1024");
  cmd->add_option("--bytes,-m", flags->bytes,
                  "Message sizes m per rank (nccl-tests convention): A..B is A, A*step, ... up "
                  "to B, A >= 1")
      ->type_name("A..B")
      ->default_val("1..1GiB");
  cmd->add_option("--step", flags->step, "Factor between neighbouring sizes: 2 or 4")
      ->type_name("2|4")
      ->default_val("4");
  add_fabric_options(cmd, &flags->fabric);
  cmd->add_option("--gamma", flags->gamma,
                  "Reduction arithmetic cost per byte reduced (0.1ns means 10 GB/s)")
      ->type_name("G")
      ->default_val("0");
  cmd->add_option("--chunk", flags->chunk, "Pipeline chunk of the double binary tree")
      ->type_name("M")
      ->default_val("512KiB");
  cmd->add_option("--selector", flags->selector,
                  "Also map what MPICH's classic rules (mpich) or Open MPI 4.1's tuned fixed "
                  "rules (ompi) pick, and its cost against the model's best")
      ->type_name("mpich|ompi");
  cmd->add_option("--plot", flags->plot,
                  "Also draw the selection map to FILE (.svg or .png; needs gnuplot)")
      ->type_name("FILE")
      ->check(non_empty_path());
  add_format_option(cmd, &flags->format);
  cmd->footer(
      "Small messages pay for steps (alpha), large ones for bytes (beta), so the winner\n"
      "changes with size, and where it changes moves with the rank count.\n"
      "\n"
      "Examples:\n"
      "  scalewall select --ranks 64 --bytes 1..1GiB\n"
      "      recursive doubling below about 93 KB, Rabenseifner above\n"
      "  scalewall select --fabric examples/fabrics/dgx-h100-ndr.toml --ranks 8..128\n"
      "      where the hierarchical all-reduce takes over on 8-GPU nodes\n"
      "  scalewall select --ranks 2..4096 --bytes 1..64MiB --selector ompi\n"
      "      where Open MPI's fixed rules differ from the model, and by how much");
  cmd->callback([flags] { emit(run_select(*flags), flags->format); });
}

}  // namespace scalewall::cli
