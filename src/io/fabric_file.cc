// Implementation of scalewall/io/fabric_file.h on top of toml++.
#include "scalewall/io/fabric_file.h"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <vector>

#include "scalewall/base/error.h"
#include "scalewall/base/units.h"
#include "scalewall/model/nccl.h"
#include "fabric_ranges.h"
#include "toml_input.h"

namespace scalewall {
namespace {

// Names a place in the file for error messages: "fabric.toml: [inter] bandwidth (line 12)".
std::string where(const std::string& source, std::string_view section, std::string_view key,
                  const toml::node* node) {
  std::string text = source + ": ";
  if (!section.empty()) text += fmt::format("[{}] ", section);
  text += key;
  return text + line_suffix(node);
}

void reject_unknown_keys(const toml::table& table, const std::set<std::string>& known,
                         const std::string& source, std::string_view section) {
  const std::vector<std::string_view> names(known.begin(), known.end());
  if (const std::optional<TomlKey> unknown = first_unknown_key(table, names)) {
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw InputError(fmt::format("{}: unknown key (expected one of: {})",
                                 where(source, section, unknown->key, unknown->node), list));
  }
}

// A quantity given as a string with a unit or as a bare SI number, refused outside `range`
// with the key, its line, the value as written and the range.
double read_quantity(const toml::table& table, std::string_view key, const std::string& source,
                     std::string_view section, double (*parse)(std::string_view),
                     const ValueRange& range) {
  const toml::node* node = table.get(key);
  SCALEWALL_CHECK(node != nullptr);
  const std::string place = where(source, section, key, node);
  std::optional<double> value;
  try {
    value = read_toml_quantity(*node, parse);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", place, e.what()));
  }
  if (!value) {
    throw InputError(fmt::format("{}: expected a number or a string with a unit", place));
  }
  if (!in_range(*value, range)) {
    throw InputError(fmt::format("{}: {} is outside the range {}", place, written(*node),
                                 range_text(range)));
  }
  return *value;
}

std::int64_t read_count(const toml::table& table, std::string_view key, const std::string& source,
                        std::int64_t min_value) {
  const toml::node* node = table.get(key);
  SCALEWALL_CHECK(node != nullptr);
  const auto* i = node->as_integer();
  if (i == nullptr) {
    throw InputError(fmt::format("{}: {} is {}", where(source, "", key, node), written(*node),
                                 whole_number_problem(*node)));
  }
  if (i->get() < min_value) {
    throw InputError(fmt::format("{}: {} is below {}", where(source, "", key, node), i->get(),
                                 min_value));
  }
  return i->get();
}

// A ratio ("2:1" or a number) in `range`.
double read_ratio(const toml::table& table, std::string_view key, const std::string& source,
                  const ValueRange& range) {
  const toml::node* node = table.get(key);
  const std::string place = where(source, "", key, node);
  double value = 0;
  if (const auto* s = node->as_string()) {
    try {
      value = parse_ratio(s->get());
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", place, e.what()));
    }
  } else if (const auto* f = node->as_floating_point()) {
    value = f->get();
  } else if (const auto* i = node->as_integer()) {
    value = static_cast<double>(i->get());
  } else {
    throw InputError(fmt::format("{}: expected a number or a ratio like \"2:1\"", place));
  }
  if (!in_range(value, range)) {
    throw InputError(fmt::format("{}: {} is outside the range {}", place, written(*node),
                                 range_text(range)));
  }
  return value;
}

// LogGP L, o, g and one of G or bandwidth.
Link read_loggp(const toml::table& table, const std::string& section, const std::string& source) {
  for (const char* key : {"L", "o", "g"}) {
    if (!table.contains(key)) {
      throw InputError(fmt::format("{}: [{}] LogGP needs L, o and g; '{}' is missing", source,
                                   section, key));
    }
  }
  const double L = read_quantity(table, "L", source, section, parse_seconds, kFabricTime);
  const double o = read_quantity(table, "o", source, section, parse_seconds, kFabricTime);
  const double g = read_quantity(table, "g", source, section, parse_seconds, kFabricTime);
  Link link;
  try {
    link = link_from_loggp(L, o, g, 1.0);  // bandwidth set below
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: [{}] {}", source, section, e.what()));
  }
  if (table.contains("G") == table.contains("bandwidth")) {
    throw InputError(fmt::format(
        "{}: [{}] LogGP needs exactly one of G (seconds per byte) and bandwidth", source,
        section));
  }
  if (table.contains("G")) {
    link.bandwidth_Bps =
        1.0 / read_quantity(table, "G", source, section, parse_seconds, kFabricPerByteAboveZero);
  } else {
    link.bandwidth_Bps =
        read_quantity(table, "bandwidth", source, section, parse_rate, kFabricRate);
  }
  return link;
}

// One regime's alpha-beta or LogGP figures from `table`; `section` names it in messages
// ("inter", "inter.regimes[2]").
Link read_link_figures(const toml::table& table, const std::string& section,
                       const std::string& source) {
  const bool loggp =
      table.contains("L") || table.contains("o") || table.contains("g") || table.contains("G");
  const bool alpha_beta = table.contains("alpha") || table.contains("latency");
  if (loggp && alpha_beta) {
    throw InputError(fmt::format(
        "{}: [{}] mixes alpha-beta (alpha) and LogGP (L, o, g, G) keys; give one model",
        source, section));
  }
  if (loggp) return read_loggp(table, section, source);
  if (table.contains("alpha") && table.contains("latency")) {
    throw InputError(fmt::format("{}: [{}] gives both alpha and latency; give one", source,
                                 section));
  }
  const char* alpha_key = table.contains("alpha") ? "alpha" : "latency";
  if (!table.contains(alpha_key) || !table.contains("bandwidth")) {
    throw InputError(fmt::format("{}: [{}] needs alpha and bandwidth (or LogGP L, o, g, G)",
                                 source, section));
  }
  Link link;
  link.alpha_s = read_quantity(table, alpha_key, source, section, parse_seconds, kFabricLatency);
  link.bandwidth_Bps = read_quantity(table, "bandwidth", source, section, parse_rate, kFabricRate);
  return link;
}

// The further size regimes of a link: [[<section>.regimes]] tables, each with `from` (the
// smallest message it prices) and the figures of read_link_figures.
void read_regimes(const toml::table& table, std::string_view section, const std::string& source,
                  Link& link) {
  const toml::node* node = table.get("regimes");
  if (node == nullptr) return;
  const toml::array* list = node->as_array();
  if (list == nullptr || !list->is_array_of_tables()) {
    throw InputError(fmt::format(
        "{}: expected [[{}.regimes]] tables (from, alpha, bandwidth)",
        where(source, section, "regimes", node), section));
  }
  if (list->size() + 1 > kMaxLinkRegimes) {
    throw InputError(fmt::format("{}: {} regimes; a link has at most {} in all",
                                 where(source, section, "regimes", node), list->size() + 1,
                                 kMaxLinkRegimes));
  }
  std::vector<LinkRegime> regimes{link.regime(0)};
  for (std::size_t i = 0; i < list->size(); ++i) {
    const toml::table& t = *list->get(i)->as_table();
    const std::string name = fmt::format("{}.regimes[{}]", section, i + 1);
    reject_unknown_keys(t, {"from", "alpha", "latency", "bandwidth", "L", "o", "g", "G"}, source,
                        name);
    if (!t.contains("from")) {
      throw InputError(fmt::format(
          "{}: [{}] needs from, the smallest message size it prices", source, name));
    }
    const Link figures = read_link_figures(t, name, source);
    LinkRegime r = figures.regime(0);
    r.from_bytes = read_quantity(t, "from", source, name, parse_bytes, kFabricSize);
    regimes.push_back(r);
  }
  try {
    link = piecewise_link(regimes);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: [{}] {}", source, section, e.what()));
  }
}

// duplex = "full" | "half" and reverse_traffic = fraction (link.h's contention between the
// two directions of a link).
void read_duplex(const toml::table& table, std::string_view section, const std::string& source,
                 Link& link) {
  if (const toml::node* node = table.get("duplex")) {
    const auto* text = node->as_string();
    if (text == nullptr || (text->get() != "full" && text->get() != "half")) {
      throw InputError(fmt::format("{}: expected \"full\" or \"half\"",
                                   where(source, section, "duplex", node)));
    }
    link.half_duplex = text->get() == "half";
  }
  if (const toml::node* node = table.get("reverse_traffic")) {
    const std::string place = where(source, section, "reverse_traffic", node);
    double value = 0;
    if (const auto* f = node->as_floating_point()) {
      value = f->get();
    } else if (const auto* i = node->as_integer()) {
      value = static_cast<double>(i->get());
    } else {
      throw InputError(fmt::format("{}: expected a fraction of the bytes, such as 0.05", place));
    }
    if (!(value >= 0.0) || !(value < 1.0)) {
      throw InputError(fmt::format("{}: {} is not a fraction at least 0 and below 1", place, value));
    }
    link.reverse_traffic = value;
  }
}

// [[<key>]] tables (from, <field>): a local rate per byte (the reduction cost gamma in
// [[gamma_regimes]], the copy cost in [[copy_regimes]], the allocation cost in
// [[alloc_regimes]]) for steps of at least `from` bytes; the
// top-level <field> prices the sizes below the first.
ReductionRegimes read_rate_regimes(const toml::table& root, const std::string& source,
                                   const std::string& key, const std::string& field) {
  const toml::node* node = root.get(key);
  const toml::array* list = node->as_array();
  if (list == nullptr || !list->is_array_of_tables()) {
    throw InputError(fmt::format("{}: expected [[{}]] tables (from, {})",
                                 where(source, "", key, node), key, field));
  }
  if (list->size() + 1 > kMaxLinkRegimes) {
    throw InputError(fmt::format("{}: {} regimes; at most {} in all", where(source, "", key, node),
                                 list->size() + 1, kMaxLinkRegimes));
  }
  ReductionRegimes out;
  double before = 0;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const toml::table& t = *list->get(i)->as_table();
    const std::string name = fmt::format("{}[{}]", key, i + 1);
    reject_unknown_keys(t, {"from", field}, source, name);
    if (!t.contains("from") || !t.contains(field)) {
      throw InputError(fmt::format("{}: [{}] needs from and {}", source, name, field));
    }
    ReductionRegime r{read_quantity(t, "from", source, name, parse_bytes, kFabricSize),
                      read_quantity(t, field, source, name, parse_seconds, kFabricSecondsPerByte)};
    if (!(r.from_bytes > before) || !std::isfinite(r.from_bytes)) {
      throw InputError(fmt::format("{}: [{}] from {} B is not above the previous start ({} B)",
                                   source, name, r.from_bytes, before));
    }
    if (!(r.gamma_s_per_byte >= 0) || !std::isfinite(r.gamma_s_per_byte)) {
      throw InputError(fmt::format("{}: [{}] {} {} s/B is not a time per byte, zero or more",
                                   source, name, field, r.gamma_s_per_byte));
    }
    before = r.from_bytes;
    out.above[i] = r;
    out.count = i + 1;
  }
  return out;
}

// One link's table: its figures, its regimes, and (not inside an exchange table) its duplex
// keys and its [<section>.exchange] table of measured exchanges.
Link read_link_table(const toml::table& table, const std::string& section,
                     const std::string& source, bool exchange_table) {
  std::set<std::string> keys = {"alpha", "latency", "bandwidth", "L", "o", "g", "G", "regimes"};
  if (!exchange_table) keys.insert({"duplex", "reverse_traffic", "exchange"});
  reject_unknown_keys(table, keys, source, section);
  Link link = read_link_figures(table, section, source);
  try {
    require_valid(link);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: [{}] {}", source, section, e.what()));
  }
  read_regimes(table, section, source, link);
  if (exchange_table) return link;
  read_duplex(table, section, source, link);  // of the whole link, every regime
  if (const toml::node* node = table.get("exchange")) {
    const std::string name = section + ".exchange";
    const toml::table* ex = node->as_table();
    if (ex == nullptr) {
      throw InputError(fmt::format("{}: expected a [{}] table (alpha, bandwidth, regimes)",
                                   where(source, section, "exchange", node), name));
    }
    link = with_exchange(link, read_link_table(*ex, name, source, true));
  }
  return link;
}

Link read_link(const toml::table& root, std::string_view section, const std::string& source) {
  const toml::node* node = root.get(section);
  if (node == nullptr) {
    throw InputError(fmt::format("{}: missing section [{}] (alpha and bandwidth of the link)",
                                 source, section));
  }
  const toml::table* table = node->as_table();
  if (table == nullptr) {
    throw InputError(fmt::format("{}: [{}] must be a table", source, section));
  }
  return read_link_table(*table, std::string(section), source, false);
}

bool read_flag(const toml::table& root, std::string_view key, const std::string& source) {
  const auto* b = root.get(key)->as_boolean();
  if (b == nullptr) {
    throw InputError(
        fmt::format("{}: expected true or false", where(source, "", key, root.get(key))));
  }
  return b->get();
}

// `ranks = "gpu"` (or "cpu", the default) and, for GPU ranks, `gpu`, `nvls`, `collnet`,
// `nccl_net_latency`, `nccl_net_hop`, `nccl_version`.
void read_rank_kind(const toml::table& root, const std::string& source, Topology& t) {
  if (root.contains("ranks")) {
    const auto* s = root.get("ranks")->as_string();
    if (s == nullptr || (s->get() != "gpu" && s->get() != "cpu")) {
      throw InputError(fmt::format("{}: expected \"gpu\" or \"cpu\" (what the ranks are)",
                                   where(source, "", "ranks", root.get("ranks"))));
    }
    t.rank_kind = s->get() == "gpu" ? RankKind::kGpu : RankKind::kCpu;
  }
  for (const char* key :
       {"gpu", "nvls", "collnet", "nccl_net_latency", "nccl_net_hop", "nccl_version"}) {
    if (root.contains(key) && t.rank_kind != RankKind::kGpu) {
      throw InputError(fmt::format("{}: only a fabric of GPU ranks (ranks = \"gpu\") takes it",
                                   where(source, "", key, root.get(key))));
    }
  }
  if (root.contains("working_set_ranks") && t.rank_kind == RankKind::kGpu) {
    throw InputError(fmt::format(
        "{}: only a fabric of CPU ranks takes it (NCCL's model prices GPU ranks)",
        where(source, "", "working_set_ranks", root.get("working_set_ranks"))));
  }
  if (root.contains("gpu")) {
    const auto* s = root.get("gpu")->as_string();
    const std::string place = where(source, "", "gpu", root.get("gpu"));
    if (s == nullptr) throw InputError(fmt::format("{}: expected a string", place));
    try {
      t.gpu.generation = parse_gpu_generation(s->get());
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", place, e.what()));
    }
  }
  if (root.contains("nvls")) t.gpu.nvls = read_flag(root, "nvls", source);
  if (root.contains("collnet")) t.gpu.collnet = read_flag(root, "collnet", source);
  if (root.contains("nccl_net_latency")) {
    t.gpu.net_latency_s =
        read_quantity(root, "nccl_net_latency", source, "", parse_seconds, kFabricTime);
  }
  if (root.contains("nccl_net_hop")) {
    t.gpu.net_hop_s = read_quantity(root, "nccl_net_hop", source, "", parse_seconds, kFabricTime);
  }
  if (root.contains("nccl_version")) {
    const auto* s = root.get("nccl_version")->as_string();
    const std::string place = where(source, "", "nccl_version", root.get("nccl_version"));
    if (s == nullptr) {
      throw InputError(fmt::format("{}: expected a quoted release such as \"2.26.2\"", place));
    }
    try {
      t.gpu.nccl_release = parse_nccl_release(s->get());
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", place, e.what()));
    }
  }
}

}  // namespace

// rank_to_node = [0, 0, 1, 1, ...]: an explicit placement.
void read_rank_to_node(const toml::table& root, const std::string& source, Topology& t) {
  if (!root.contains("rank_to_node")) return;
  if (root.contains("placement")) {
    throw InputError(fmt::format("{}: give either placement or rank_to_node, not both", source));
  }
  const auto* list = root.get("rank_to_node")->as_array();
  if (list == nullptr) {
    throw InputError(fmt::format("{}: expected a list of node indices",
                                 where(source, "", "rank_to_node", root.get("rank_to_node"))));
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto* v = list->get(i)->as_integer();
    if (v == nullptr) {
      throw InputError(fmt::format("{}: entry {}, {}, is {}",
                                   where(source, "", "rank_to_node", list), i,
                                   written(*list->get(i)), whole_number_problem(*list->get(i))));
    }
    t.rank_to_node.push_back(v->get());
  }
  t.placement = Placement::kExplicit;
}

// The ranks' local costs: gamma, the copy, the allocation, the sent-buffer reduction and the
// sent-buffer exchange, each a rate from 0 B (`<key>`, seconds per byte) and its
// [[<key>_regimes]] above; then the smallest local size and the working-set ranks.
void read_local_costs(const toml::table& root, const std::string& source, Topology& t) {
  const auto rate = [&](const char* key, double& s_per_byte, ReductionRegimes& above) {
    if (root.contains(key)) {
      s_per_byte = read_quantity(root, key, source, "", parse_seconds, kFabricSecondsPerByte);
    }
    const std::string regimes = std::string(key) + "_regimes";
    if (root.contains(regimes)) above = read_rate_regimes(root, source, regimes, key);
  };
  rate("gamma", t.gamma_s_per_byte, t.gamma_above);
  rate("copy", t.copy.s_per_byte, t.copy.above);
  rate("alloc", t.alloc.s_per_byte, t.alloc.above);
  rate("sent_reduction", t.sent_reduction.s_per_byte, t.sent_reduction.above);
  rate("sent_exchange", t.sent_exchange.s_per_byte, t.sent_exchange.above);
  if (root.contains("local_min_bytes")) {
    t.local_min_bytes =
        read_quantity(root, "local_min_bytes", source, "", parse_bytes, kFabricSize);
  }
  if (root.contains("working_set_ranks")) {
    t.working_set_ranks = read_count(root, "working_set_ranks", source, 0);
  }
}

Topology parse_fabric(std::string_view toml_text, const std::string& source) {
  const toml::table root = parse_toml(toml_text, source);
  reject_unknown_keys(root,
                      {"name", "nominal", "nodes", "ranks_per_node", "nics_per_node",
                       "oversubscription", "placement", "rank_to_node", "gamma", "gamma_regimes",
                       "copy", "copy_regimes", "alloc", "alloc_regimes",
                       "sent_reduction", "sent_reduction_regimes", "sent_exchange",
                       "sent_exchange_regimes", "local_min_bytes", "working_set_ranks", "ranks",
                       "gpu",
                       "nvls", "collnet", "nccl_net_latency", "nccl_net_hop", "nccl_version",
                       "intra", "inter"},
                      source, "");
  Topology t;
  t.name = "fabric";
  if (root.contains("name")) {
    const auto* s = root.get("name")->as_string();
    if (s == nullptr) {
      throw InputError(
          fmt::format("{}: expected a string", where(source, "", "name", root.get("name"))));
    }
    t.name = s->get();
  }
  if (root.contains("nominal")) {
    const auto* b = root.get("nominal")->as_boolean();
    if (b == nullptr) {
      throw InputError(fmt::format("{}: expected true or false",
                                   where(source, "", "nominal", root.get("nominal"))));
    }
    t.nominal = b->get();
  }
  if (root.contains("nodes")) t.nodes = read_count(root, "nodes", source, 1);
  if (root.contains("ranks_per_node")) {
    t.ranks_per_node = read_count(root, "ranks_per_node", source, 1);
  }
  if (root.contains("nics_per_node")) {
    t.nics_per_node = read_count(root, "nics_per_node", source, 1);
  }
  if (root.contains("oversubscription")) {
    t.oversubscription = read_ratio(root, "oversubscription", source, kFabricFactor);
  }
  read_local_costs(root, source, t);
  if (root.contains("placement")) {
    const auto* s = root.get("placement")->as_string();
    if (s == nullptr) {
      throw InputError(fmt::format("{}: expected \"packed\" or \"scattered\"",
                                   where(source, "", "placement", root.get("placement"))));
    }
    try {
      t.placement = parse_placement(s->get());
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", where(source, "", "placement", root.get("placement")),
                                   e.what()));
    }
  }
  read_rank_to_node(root, source, t);
  read_rank_kind(root, source, t);
  t.intra = read_link(root, "intra", source);
  t.inter = read_link(root, "inter", source);
  try {
    require_valid(t);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", source, e.what()));
  }
  return t;
}

Topology load_fabric_file(const std::string& path) {
  return parse_fabric(read_toml_file(path, "fabric file"), path);
}

}  // namespace scalewall
