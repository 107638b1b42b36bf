// Implementation of scalewall/present/select_report.h: the words and shapes of `select`'s
// output; every number comes from the SelectionStudy.
#include "scalewall/present/select_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <optional>
#include <vector>

#include "scalewall/base/error.h"
#include "scalewall/base/units.h"

namespace scalewall {

namespace {

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
    case Algorithm::kRabenseifnerLinear:
      return "RL";
  }
  SCALEWALL_CHECK(false && "unknown Algorithm");
  return {};
}

std::string size_words(double bytes) {
  const std::string plain = fmt::format("{} B", bytes);
  const std::string human = format_bytes(bytes);
  return human == plain ? plain : fmt::format("{} ({})", human, plain);
}

Value optional_value(const std::optional<double>& v) { return v ? Value{*v} : Value{}; }

nlohmann::ordered_json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

// The envelope: title and inputs, the same in every format.
Report select_envelope(const SelectionStudy& study, const SelectionCall& call) {
  const SelectionGrid& g = study.grid;
  Report report;
  report.command = "select";
  report.kind = Kind::kModel;
  report.banner = model_banner();
  report.title = fmt::format(
      "{} selection map: {} rank count{} x {} size{} (x{} apart); {}; gamma {}/B",
      op_name(g.op), g.ranks.size(), g.ranks.size() == 1 ? "" : "s", g.bytes.size(),
      g.bytes.size() == 1 ? "" : "s", call.step, call.network,
      format_seconds(g.options.gamma_s_per_byte));
  report.inputs["op"] = std::string(op_name(g.op));
  report.inputs["ranks"] = g.ranks;
  report.inputs["bytes"] = g.bytes;
  report.inputs["step"] = call.step;
  if (g.on_fabric) {
    report.inputs["fabric"] = call.fabric_inputs;
  } else {
    report.inputs["alpha_s"] = g.base.inter.alpha_s;
    report.inputs["bandwidth_Bps"] = g.base.inter.bandwidth_Bps;
  }
  report.inputs["gamma_s_per_byte"] = g.options.gamma_s_per_byte;
  report.inputs["tree_chunk_bytes"] = g.options.tree_chunk_bytes;
  if (study.library) {
    report.inputs["selector"] = std::string(selector_name(study.library->selector));
    report.inputs["element_bytes"] = 4.0;
  }
  return report;
}

// ---- JSON ----

nlohmann::ordered_json library_json(const std::vector<LibraryCell>& cells) {
  nlohmann::ordered_json picks = nlohmann::ordered_json::array();
  for (const LibraryCell& cell : cells) {
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
  return picks;
}

nlohmann::ordered_json row_json(const SelectionStudy& study, std::size_t i) {
  const SelectionRow& row = study.map.rows[i];
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
  if (study.library) r["library"] = library_json(study.library->cells[i]);
  return r;
}

void add_json(const SelectionStudy& study, Report& report) {
  nlohmann::ordered_json& j = report.extra;
  j["op"] = std::string(op_name(study.grid.op));
  j["bytes"] = study.grid.bytes;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < study.map.rows.size(); ++i) rows.push_back(row_json(study, i));
  j["rows"] = std::move(rows);
  nlohmann::ordered_json codes = nlohmann::ordered_json::object();
  for (const AlgorithmSpec& s : study.legend) codes[algorithm_code(s)] = algorithm_name(s);
  j["legend"] = std::move(codes);
  if (study.library) {
    j["selector"] = std::string(selector_name(study.library->selector));
    j["selector_rules"] = std::string(selector_description(study.library->selector));
  }
}

// ---- CSV ----

Table cells_table(const SelectionStudy& study) {
  Table cells{"cells",
              {{"ranks", "ranks", Unit::kCount},
               {"bytes", "bytes", Unit::kBytes},
               {"winner", "winner", Unit::kText},
               {"total_s", "total", Unit::kSeconds}},
              {},
              {}};
  const std::optional<LibraryComparison>& library = study.library;
  if (library) {
    cells.columns.push_back({"library_algorithm", "library picks", Unit::kText});
    cells.columns.push_back({"library_modelled", "modelled as", Unit::kText});
    cells.columns.push_back({"library_total_s", "its cost", Unit::kSeconds});
    cells.columns.push_back({"cost_ratio", "against best", Unit::kRatio});
  }
  const std::vector<double>& bytes = study.grid.bytes;
  for (std::size_t i = 0; i < study.map.rows.size(); ++i) {
    for (std::size_t j = 0; j < bytes.size(); ++j) {
      const SelectionRow& r = study.map.rows[i];
      std::vector<Value> row = {r.ranks, bytes[j], algorithm_name(r.winner[j]), r.total_s[j]};
      if (library) {
        const LibraryCell& cell = library->cells[i][j];
        row.push_back(cell.choice.library_algorithm);
        row.push_back(cell.choice.modelled ? Value{algorithm_name(*cell.choice.modelled)}
                                           : Value{});
        row.push_back(optional_value(cell.total_s));
        row.push_back(optional_value(cell.ratio));
      }
      cells.add_row(std::move(row));
    }
  }
  return cells;
}

// ---- table ----

Table grid_table(const SelectionStudy& study, const std::string& key) {
  Table t{key, {{"ranks", "ranks", Unit::kCount}}, {}, {}};
  for (const double m : study.grid.bytes) {
    t.columns.push_back({fmt::format("{}", m), size_label(m), Unit::kText});
  }
  return t;
}

Table winners_table(const SelectionStudy& study) {
  Table winners = grid_table(study, "winners");
  for (const SelectionRow& row : study.map.rows) {
    std::vector<Value> cells = {row.ranks};
    for (const AlgorithmSpec& w : row.winner) {
      cells.push_back(row.ranks == 1 ? "--" : algorithm_code(w));
    }
    winners.add_row(std::move(cells));
  }
  return winners;
}

Table switches_table(const SelectionStudy& study) {
  Table switches{"switches",
                 {{"ranks", "ranks", Unit::kCount},
                  {"from", "from", Unit::kText},
                  {"to", "to", Unit::kText},
                  {"at", "at", Unit::kBytes},
                  {"bytes", "bytes", Unit::kCount}},
                 {},
                 {}};
  for (const SelectionRow& row : study.map.rows) {
    for (const auto& s : row.switches) {
      switches.add_row({row.ranks, algorithm_name(s.from), algorithm_name(s.to), s.bytes,
                        std::round(s.bytes)});
    }
  }
  return switches;
}

void add_map_notes(const SelectionStudy& study, Report& report) {
  std::string legend_text;
  for (const AlgorithmSpec& s : study.legend) {
    legend_text += fmt::format("{}{} {}", legend_text.empty() ? "" : ", ", algorithm_code(s),
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
  std::vector<std::string> steady;
  for (const SelectionRow& row : study.map.rows) {
    if (row.switches.empty() && row.ranks > 1) steady.push_back(fmt::format("{}", row.ranks));
  }
  if (!steady.empty()) {
    report.notes.push_back(fmt::format("No switch at {} ranks: one algorithm wins every size.",
                                       fmt::join(steady, ", ")));
  }
  if (study.grid.ranks.front() == 1) {
    report.notes.push_back("N = 1: a single rank exchanges nothing; every algorithm costs zero (--).");
  }
}

Table library_table(const SelectionStudy& study, const LibraryComparison& c) {
  Table picks = grid_table(study, "library");
  for (std::size_t i = 0; i < study.map.rows.size(); ++i) {
    std::vector<Value> cells = {study.map.rows[i].ranks};
    for (const LibraryCell& cell : c.cells[i]) {
      if (!cell.choice.modelled) {
        cells.push_back("--");
      } else if (study.map.rows[i].ranks == 1) {
        cells.push_back(algorithm_code(*cell.choice.modelled));
      } else {
        cells.push_back(algorithm_code(*cell.choice.modelled) + (is_best(cell) ? "" : "*"));
      }
    }
    std::string mark;
    if (const std::optional<std::size_t> w = c.row_worst[i]; w && *c.cells[i][*w].ratio > 1.0) {
      mark = fmt::format("worst {} at {}", format_cell(*c.cells[i][*w].ratio, Unit::kRatio),
                         size_label(study.grid.bytes[*w]));
    }
    picks.add_row(std::move(cells), std::move(mark));
  }
  return picks;
}

void add_library(const SelectionStudy& study, const LibraryComparison& c, Report& report) {
  report.tables.push_back(library_table(study, c));
  const Selector selector = c.selector;
  report.add_field("selector", "selector", Unit::kText,
                   fmt::format("{} ({})", selector_name(selector), selector_description(selector)));
  report.add_field("differs", "dearer than the model's best", Unit::kText,
                   fmt::format("{} of {} modelled cells", c.differs, c.compared));
  report.add_field("not_modelled", "picks the model cannot cost", Unit::kText,
                   fmt::format("{} cell{}", c.unmodelled, c.unmodelled == 1 ? "" : "s"));
  Value worst_text;
  if (c.worst && *c.cells[c.worst->first][c.worst->second].ratio > 1.0) {
    const auto [i, j] = *c.worst;
    worst_text = fmt::format(
        "{} at {} ranks, {}: {} picks {}, the model {}",
        format_cell(*c.cells[i][j].ratio, Unit::kRatio), study.grid.ranks[i],
        size_words(study.grid.bytes[j]), selector_name(selector),
        c.cells[i][j].choice.library_algorithm, algorithm_name(study.map.rows[i].winner[j]));
  }
  report.add_field("worst", "worst ratio", Unit::kText, worst_text,
                   c.compared == 0 ? "none: no pick the model can cost"
                                   : "1x: every modelled pick is the model's best");
  report.notes.push_back(fmt::format(
      "[library]: the model's counterpart of each pick by the {}; * where it costs more "
      "than the model's best, -- where the model has none. The rule and thresholds behind "
      "each cell: --format json.",
      selector_description(selector)));
  if (!c.unmodelled_names.empty()) {
    report.notes.push_back(
        fmt::format("Not modelled (--): {}.", fmt::join(c.unmodelled_names, "; ")));
  }
}

void add_table_format(const SelectionStudy& study, Report& report) {
  report.tables.push_back(winners_table(study));
  Table switches = switches_table(study);
  if (!switches.rows.empty()) report.tables.push_back(std::move(switches));
  add_map_notes(study, report);
  if (study.library) add_library(study, *study.library, report);
  const Topology& base = study.grid.base;
  if (study.grid.on_fabric) {
    report.notes.push_back(fmt::format(
        "Each rank count runs on the fabric scaled to it: N / {} nodes of {} ranks (one node "
        "below {} ranks).",
        base.ranks_per_node, base.ranks_per_node, base.ranks_per_node));
  }
  if (study.grid.on_fabric && base.nominal) {
    report.notes.push_back(
        "The fabric's link figures are nominal (datasheet values), not measured.");
  }
}

}  // namespace

std::string algorithm_code(AlgorithmSpec spec) {
  if (spec.algorithm == Algorithm::kHierarchical) return "H-" + code(spec.inter);
  return code(spec.algorithm);
}

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

Report selection_report(const SelectionStudy& study, Format format, const SelectionCall& call) {
  Report report = select_envelope(study, call);
  switch (format) {
    case Format::kJson:
      add_json(study, report);
      break;
    case Format::kCsv:
      report.tables.push_back(cells_table(study));
      break;
    case Format::kTable:
      add_table_format(study, report);
      break;
  }
  return report;
}

}  // namespace scalewall
