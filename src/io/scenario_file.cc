// Implementation of scalewall/io/scenario_file.h on top of toml++.
//
// Every value is read through one small reader per section, so that every error names the
// file, the key as section.key, the value as written and its line, in one shape:
//   scenario.toml: workload.compute = '-3ms' (line 7): negative time '-3ms' is not allowed
#include "scalewall/io/scenario_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <sstream>
#include <utility>
#include <vector>

#include "scalewall/base/error.h"
#include "scalewall/io/input_file.h"
#include "scalewall/io/fabric_file.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/io/gpu_file.h"
#include "scalewall/io/hf_config.h"
#include "scalewall/model/model_presets.h"
#include "scalewall/base/units.h"
#include "scalewall/model/nccl.h"
#include "toml_input.h"

namespace scalewall {
namespace {

constexpr std::int64_t kMaxRanks = std::int64_t{1} << 40;
constexpr std::int64_t kMaxIntervalSteps = std::int64_t{1} << 40;

std::string join(std::initializer_list<std::string_view> words) {
  std::string text;
  for (const std::string_view w : words) {
    if (!text.empty()) text += ", ";
    text += w;
  }
  return text;
}

// One section of the scenario ("" for the top level), with the reads every key needs.
class Section {
 public:
  Section(const std::string& source, std::string name, const toml::table* table)
      : source_(source), name_(std::move(name)), table_(table) {}

  bool present() const { return table_ != nullptr; }
  // The value at `key`. REQUIRES: has(key).
  const toml::node& node(std::string_view key) const { return *table_->get(key); }
  const std::string& source() const { return source_; }
  bool has(std::string_view key) const { return table_ != nullptr && table_->contains(key); }

  // "section.key" (or "key" at the top level).
  std::string full(std::string_view key) const {
    return name_.empty() ? std::string(key) : fmt::format("{}.{}", name_, key);
  }

  // "FILE: section.key = 'value' (line N)", or "FILE: [section.key] (line N)" for a table.
  std::string place(std::string_view key) const {
    const toml::node* node = table_ == nullptr ? nullptr : table_->get(key);
    const bool is_table = node != nullptr && node->is_table();
    std::string text =
        fmt::format("{}: {}", source_, is_table ? fmt::format("[{}]", full(key)) : full(key));
    if (node != nullptr && !is_table) text += " = " + written(*node);
    return text + line_suffix(node);
  }

  [[noreturn]] void fail(std::string_view key, std::string_view reason) const {
    throw InputError(fmt::format("{}: {}", place(key), one_line(reason)));
  }

  // The value read from `key`, refused unless it lies in `range` (step_model.h).
  double within(std::string_view key, double value, const ValueRange& range) const {
    if (!in_range(value, range)) fail(key, fmt::format("outside the range {}", range_text(range)));
    return value;
  }

  // A missing key, or with an empty key the missing section itself.
  [[noreturn]] void missing(std::string_view key, std::string_view hint) const {
    const std::string what = key.empty() ? fmt::format("section [{}]", name_) : full(key);
    throw InputError(fmt::format("{}: {} is missing ({})", source_, what, hint));
  }

  // Unknown keys and sub-tables are errors: a misspelt key must not fall back to a default.
  void reject_unknown(std::initializer_list<std::string_view> known) const {
    if (table_ == nullptr) return;
    const std::optional<TomlKey> unknown = first_unknown_key(*table_, known);
    if (!unknown) return;
    if (name_ == "network" && unknown->key == "fabric_inline") {
      fail(unknown->key,
           "inline fabrics are not supported: put the fabric in its own file and give its "
           "path as network.fabric");
    }
    fail(unknown->key, fmt::format("unknown {} (expected one of: {})",
                                   unknown->node->is_table() ? "section" : "key", join(known)));
  }

  // A size, time or rate: a string with a unit ("14GB", "300ms", "50GB/s") or a bare number
  // in SI base units. Negative, NaN and infinite values are rejected by the units parser.
  double quantity(std::string_view key, double (*parse)(std::string_view),
                  std::string_view example) const {
    const toml::node& node = *table_->get(key);
    try {
      if (const std::optional<double> value = read_toml_quantity(node, parse)) return *value;
    } catch (const InputError& e) {
      fail(key, e.what());
    }
    fail(key, fmt::format("expected {}, not {}", example, type_noun(node)));
  }

  double bytes(std::string_view key) const {
    return quantity(key, parse_bytes, "a size like \"14GB\" or a number of bytes");
  }
  double seconds(std::string_view key) const {
    return quantity(key, parse_seconds, "a time like \"300ms\" or a number of seconds");
  }
  double rate(std::string_view key) const {
    return quantity(key, parse_rate, "a rate like \"50GB/s\" or a number of bytes per second");
  }

  // A plain number (no unit), finite and not negative. Strings are refused: a number in
  // quotes is almost always a typo for a quantity with a unit.
  double number(std::string_view key) const {
    const toml::node& node = *table_->get(key);
    double value = 0;
    if (const auto* f = node.as_floating_point()) {
      value = f->get();
    } else if (const auto* i = node.as_integer()) {
      value = static_cast<double>(i->get());
    } else {
      fail(key, fmt::format("expected a number, not {}", type_noun(node)));
    }
    if (!std::isfinite(value)) fail(key, "must be a finite number");
    if (value < 0) fail(key, "must not be negative");
    return value;
  }

  // A fraction: a number (0.02) or a percentage string ("2%"), within [lo, hi].
  double fraction(std::string_view key, double lo, double hi) const {
    const toml::node& node = *table_->get(key);
    double value = 0;
    if (const auto* s = node.as_string()) {
      try {
        value = parse_fraction(s->get());
      } catch (const InputError& e) {
        fail(key, e.what());
      }
    } else if (node.is_number()) {
      value = number(key);
    } else {
      fail(key, fmt::format("expected a fraction like 0.02 or \"2%\", not {}", type_noun(node)));
    }
    if (!(value >= lo && value <= hi)) {
      fail(key, fmt::format("{} is outside [{}, {}]", value, lo, hi));
    }
    return value;
  }

  // A whole number in [lo, hi].
  std::int64_t count(std::string_view key, std::int64_t lo, std::int64_t hi) const {
    const toml::node& node = *table_->get(key);
    const auto* i = node.as_integer();
    if (i == nullptr) fail(key, whole_number_problem(node));
    if (i->get() < lo || i->get() > hi) {
      fail(key, fmt::format("{} is outside [{}, {}]", i->get(), lo, hi));
    }
    return i->get();
  }

  bool flag(std::string_view key) const {
    const toml::node& node = *table_->get(key);
    const auto* b = node.as_boolean();
    if (b == nullptr) fail(key, fmt::format("expected true or false, not {}", type_noun(node)));
    return b->get();
  }

  // Whether the value is the string `word`.
  bool is_text(std::string_view key, std::string_view word) const {
    const auto* s = table_->get(key)->as_string();
    return s != nullptr && s->get() == word;
  }

  std::string text(std::string_view key) const {
    const toml::node& node = *table_->get(key);
    const auto* s = node.as_string();
    if (s == nullptr) fail(key, fmt::format("expected a string, not {}", type_noun(node)));
    return s->get();
  }

 private:
  const std::string& source_;
  std::string name_;
  const toml::table* table_;
};

// The sub-table `name` of the root: absent (nullptr) or a table; anything else is an error.
Section section(const toml::table& root, const std::string& source, const std::string& name) {
  const Section top(source, "", &root);
  const toml::node* node = root.get(name);
  if (node == nullptr) return Section(source, name, nullptr);
  if (!node->is_table()) {
    top.fail(name, fmt::format("expected a section [{}], not {}", name, type_noun(*node)));
  }
  return Section(source, name, node->as_table());
}

double bytes_per_element(const Section& w) {
  const std::string dtype = w.text("gradient_dtype");
  if (dtype == "fp64") return 8;
  if (dtype == "fp32" || dtype == "tf32") return 4;
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp8") return 1;
  w.fail("gradient_dtype", "unknown dtype (expected one of: fp64, fp32, tf32, bf16, fp16, fp8)");
}

// The gradient's size in bytes: workload.parameters x bytes per element, or
// workload.gradient_bytes directly.
double read_gradient_bytes(const Section& w) {
  if (w.has("gradient_bytes")) {
    if (w.has("parameters")) {
      w.fail("gradient_bytes",
             "give either workload.gradient_bytes or workload.parameters "
             "(with a dtype), not both");
    }
    for (const char* key : {"gradient_dtype", "bytes_per_gradient"}) {
      if (w.has(key)) {
        w.fail(key,
               "applies to workload.parameters, which is not given (the gradient size is "
               "workload.gradient_bytes)");
      }
    }
    return w.within("gradient_bytes", w.bytes("gradient_bytes"), kScenarioBytes);
  }
  if (w.has("parameters")) {
    const double parameters = w.number("parameters");
    double per = 0;
    if (w.has("gradient_dtype") && w.has("bytes_per_gradient")) {
      w.fail("bytes_per_gradient",
             "give either workload.gradient_dtype or "
             "workload.bytes_per_gradient, not both");
    } else if (w.has("gradient_dtype")) {
      per = bytes_per_element(w);
    } else if (w.has("bytes_per_gradient")) {
      per = w.number("bytes_per_gradient");
      if (!(per > 0)) w.fail("bytes_per_gradient", "must be above 0");
    } else {
      w.missing("gradient_dtype",
                "workload.parameters needs the size of one gradient element: "
                "gradient_dtype = \"bf16\" (or fp64, fp32, tf32, fp16, fp8), "
                "or bytes_per_gradient");
    }
    const double bytes = parameters * per;
    if (!in_range(bytes, kScenarioBytes)) {
      w.fail("parameters",
             fmt::format("parameters x bytes per gradient ({:.3g} B) is outside the range {}",
                         bytes, range_text(kScenarioBytes)));
    }
    return bytes;
  }
  for (const char* key : {"gradient_dtype", "bytes_per_gradient"}) {
    if (w.has(key)) w.fail(key, "needs workload.parameters");
  }
  w.missing("parameters",
            "give the gradient size as workload.parameters with "
            "workload.gradient_dtype, or as workload.gradient_bytes");
}

Workload read_workload(const Section& w) {
  if (!w.present()) {
    w.missing("",
              "a scenario needs a [workload] section with compute, scaling and the "
              "gradient size");
  }
  w.reject_unknown({"parameters", "gradient_dtype", "bytes_per_gradient", "gradient_bytes",
                    "compute", "reference_ranks", "serial", "scaling", "backward_fraction"});
  Workload out;
  out.gradient_bytes = read_gradient_bytes(w);
  if (!w.has("compute")) {
    w.missing("compute", "the per-rank forward and backward time of one step, e.g. \"300ms\"");
  }
  out.compute_s = w.within("compute", w.seconds("compute"), kScenarioSeconds);
  if (w.has("reference_ranks")) out.reference_ranks = w.count("reference_ranks", 1, kMaxRanks);
  if (w.has("serial")) out.serial_s = w.within("serial", w.seconds("serial"), kScenarioSeconds);
  if (!w.has("scaling")) {
    w.missing("scaling", "\"strong\" (global batch fixed) or \"weak\" (per-rank batch fixed)");
  }
  const std::optional<ScalingMode> mode = parse_scaling_mode(w.text("scaling"));
  if (!mode) {
    w.fail("scaling",
           "expected \"strong\" (global batch fixed) or \"weak\" (per-rank batch "
           "fixed)");
  }
  out.mode = *mode;
  if (w.has("backward_fraction")) out.backward_fraction = w.fraction("backward_fraction", 0, 1);
  return out;
}

// The all-reduce algorithm names, for error messages: auto, then the catalogue's.
std::string allreduce_algorithm_names() {
  std::string names = "auto";
  for (const AlgorithmSpec& spec : algorithms_of(Op::kAllreduce)) {
    names += ", " + algorithm_name(spec);
  }
  return names;
}

enum class NetworkForm { kFabricFile, kFlatLink, kBusbw };

struct NetworkRead {
  Network network;
  NetworkForm form = NetworkForm::kBusbw;
  std::optional<AlgorithmSpec> algorithm;
  CallSelector selector = CallSelector::kAuto;
  CostOptions cost;
};

// Checks that [network] is given in exactly one of its forms: fabric, bandwidth, busbw.
void check_network_form(const Section& n) {
  if (!n.present()) {
    n.missing("",
              "give network.fabric (a fabric file), network.alpha with network.bandwidth "
              "(a flat link), or network.busbw (a measured all-reduce bus bandwidth)");
  }
  n.reject_unknown({"fabric", "alpha", "bandwidth", "busbw", "algorithm", "selector", "gamma",
                    "tree_chunk", "nccl_version"});
  std::vector<std::string_view> forms;
  for (const char* key : {"fabric", "bandwidth", "busbw"}) {
    if (n.has(key)) forms.push_back(key);
  }
  if (forms.empty()) {
    if (n.has("alpha")) {
      n.fail("alpha",
             "needs network.bandwidth (a flat link) or network.busbw (a measured bus "
             "bandwidth)");
    }
    n.missing("fabric",
              "give network.fabric (a fabric file), network.alpha with "
              "network.bandwidth (a flat link), or network.busbw (a measured "
              "all-reduce bus bandwidth)");
  }
  if (forms.size() > 1) {
    n.fail(forms[1], fmt::format("give one network form: network.{} is given too (fabric, "
                                 "bandwidth with alpha, or busbw)",
                                 forms[0]));
  }
}

// A section's nccl_version (the NCCL release that picks; GpuFeatures::nccl_release), set on
// its fabric, which must have GPU ranks.
void read_nccl_version(const Section& s, Topology& fabric) {
  if (!s.has("nccl_version")) return;
  if (fabric.rank_kind != RankKind::kGpu) {
    s.fail("nccl_version", fmt::format("fabric '{}' does not say its ranks are GPUs (ranks = "
                                       "\"gpu\"), and NCCL prices GPU ranks only",
                                       fabric.name));
  }
  try {
    fabric.gpu.nccl_release = parse_nccl_release(s.text("nccl_version"));
  } catch (const InputError& e) {
    s.fail("nccl_version", e.what());
  }
}

// Loads network.fabric: a preset (fabric_presets.h) or a path relative to the scenario's
// folder, with network.nccl_version where given.
void read_fabric_form(const Section& n, const std::string& base_dir, NetworkRead& out) {
  out.form = NetworkForm::kFabricFile;
  if (n.has("alpha")) {
    n.fail("alpha", "the fabric file gives its links' latencies; leave network.alpha out");
  }
  const std::string path = n.text("fabric");
  if (path.empty()) n.fail("fabric", "empty path");
  // A preset's name, or a path relative to the scenario's folder.
  std::filesystem::path resolved(path);
  if (!names_fabric_preset(path) && resolved.is_relative() && !base_dir.empty())
    resolved = std::filesystem::path(base_dir) / resolved;
  try {
    out.network.fabric = load_fabric(resolved.string());
  } catch (const InputError& e) {
    n.fail("fabric", e.what());
  }
  read_nccl_version(n, *out.network.fabric);
}

// Reads network.alpha with network.bandwidth as one flat link.
void read_flat_link_form(const Section& n, NetworkRead& out) {
  out.form = NetworkForm::kFlatLink;
  if (!n.has("alpha")) {
    n.fail("bandwidth",
           "a flat link needs network.alpha too (its start-up latency, e.g. "
           "\"2.5us\")");
  }
  Link link;
  link.alpha_s = n.seconds("alpha");
  if (!(link.alpha_s > 0)) {
    n.fail("alpha",
           "a link's latency must be above 0 (for a measured bus bandwidth with no "
           "latency term use network.busbw)");
  }
  n.within("alpha", link.alpha_s, kScenarioSeconds);
  link.bandwidth_Bps = n.rate("bandwidth");
  if (!(link.bandwidth_Bps > 0)) n.fail("bandwidth", "must be above 0");
  n.within("bandwidth", link.bandwidth_Bps, kScenarioRate);
  try {
    out.network.fabric = flat_topology(1, link);
  } catch (const InputError& e) {
    n.fail("bandwidth", e.what());
  }
}

// Reads network.busbw, a measured all-reduce bus bandwidth, with its optional alpha.
void read_busbw_form(const Section& n, NetworkRead& out) {
  out.form = NetworkForm::kBusbw;
  out.network.busbw_Bps = n.rate("busbw");
  if (!(out.network.busbw_Bps > 0)) n.fail("busbw", "must be above 0");
  n.within("busbw", out.network.busbw_Bps, kScenarioRate);
  if (n.has("alpha")) {
    out.network.busbw_alpha_s = n.within("alpha", n.seconds("alpha"), kScenarioSeconds);
  }
}

// Reads network.algorithm: none for "auto" or when left out, else an all-reduce algorithm
// the network's form can run.
std::optional<AlgorithmSpec> read_network_algorithm(const Section& n, NetworkForm form) {
  if (!n.has("algorithm")) return std::nullopt;
  const std::string name = n.text("algorithm");
  if (name == "auto") return std::nullopt;
  if (form == NetworkForm::kBusbw) {
    n.fail("algorithm",
           "a measured bus bandwidth already includes the algorithm; use "
           "\"auto\" or leave it out");
  }
  AlgorithmSpec spec;
  try {
    spec = parse_algorithm(name);
  } catch (const InputError&) {
    n.fail("algorithm", fmt::format("unknown algorithm (all-reduce algorithms: {})",
                                    allreduce_algorithm_names()));
  }
  if (!implements(Op::kAllreduce, spec)) {
    n.fail("algorithm", fmt::format("not an all-reduce algorithm (all-reduce algorithms: {})",
                                    allreduce_algorithm_names()));
  }
  if (spec.algorithm == Algorithm::kHierarchical && form != NetworkForm::kFabricFile) {
    n.fail("algorithm",
           "a hierarchical algorithm needs a fabric file (nodes of several "
           "ranks); a flat link has one rank per node");
  }
  return spec;
}

// Reads the cost options network.gamma and network.tree_chunk into cost (each replaces what
// cost holds).
void read_network_cost(const Section& n, CostOptions& cost) {
  if (n.has("gamma")) {
    cost.gamma_s_per_byte = n.within("gamma", n.seconds("gamma"), kScenarioSecondsPerByte);
    cost.gamma_above = {};  // one rate for every size
  }
  if (n.has("tree_chunk")) {
    cost.tree_chunk_bytes = n.bytes("tree_chunk");
    if (!(cost.tree_chunk_bytes > 0)) n.fail("tree_chunk", "must be above 0");
    n.within("tree_chunk", cost.tree_chunk_bytes, kScenarioChunkBytes);
  }
}

NetworkRead read_network(const Section& n, const std::string& base_dir) {
  check_network_form(n);
  NetworkRead out;
  if (n.has("fabric")) {
    read_fabric_form(n, base_dir, out);
  } else {
    if (n.has("nccl_version")) {
      n.fail("nccl_version", "needs network.fabric, a fabric of GPU ranks (such as \"dgx-h100\")");
    }
    if (n.has("bandwidth")) {
      read_flat_link_form(n, out);
    } else {
      read_busbw_form(n, out);
    }
  }
  out.algorithm = read_network_algorithm(n, out.form);
  if (n.has("selector")) {
    try {
      out.selector = parse_call_selector(n.text("selector"));
    } catch (const InputError& e) {
      n.fail("selector", e.what());
    }
    const bool gpu = out.network.fabric && out.network.fabric->rank_kind == RankKind::kGpu;
    if (out.selector == CallSelector::kNccl && !gpu) {
      n.fail("selector",
             "NCCL's choice needs a fabric whose ranks are GPUs (a GPU preset such as "
             "\"dgx-h100\", or a fabric file with ranks = \"gpu\")");
    }
  }
  // A fabric's gamma is the default; network.gamma replaces it.
  if (out.network.fabric) {
    use_fabric_local_costs(out.cost, *out.network.fabric);
  }
  read_network_cost(n, out.cost);
  return out;
}

Variance read_variance(const Section& v) {
  Variance out;
  if (!v.present()) return out;
  v.reject_unknown({"sigma", "bad_node_slowdown", "bad_link_bandwidth"});
  if (v.has("sigma")) out.sigma = v.fraction("sigma", 0, 1);
  if (v.has("bad_node_slowdown")) {
    out.bad_node_slowdown = v.number("bad_node_slowdown");
    if (!(out.bad_node_slowdown >= 1)) {
      v.fail("bad_node_slowdown", "must be 1 or more (1.15 = 15% slower; 1 = no bad node)");
    }
    v.within("bad_node_slowdown", out.bad_node_slowdown, kScenarioFactor);
  }
  if (v.has("bad_link_bandwidth")) {
    out.bad_link_bandwidth_Bps = v.rate("bad_link_bandwidth");
    if (!(out.bad_link_bandwidth_Bps > 0)) {
      v.fail("bad_link_bandwidth", "must be above 0 (leave it out for a healthy link)");
    }
    v.within("bad_link_bandwidth", out.bad_link_bandwidth_Bps, kScenarioRate);
  }
  return out;
}

void read_remedies(const Section& r, NetworkForm form, Scenario* scenario) {
  Settings& out = scenario->settings;
  if (!r.present()) return;
  r.reject_unknown({"overlap", "bucket", "hierarchical", "placement", "compression_ratio",
                    "compression_cost", "accumulation_steps", "batch_scale"});
  if (r.has("overlap")) out.overlap = r.flag("overlap");
  if (r.has("bucket")) {
    // "none" (or 0) is one fused call for the whole gradient.
    out.bucket_bytes =
        r.is_text("bucket", "none") ? 0.0 : r.within("bucket", r.bytes("bucket"), kScenarioBytes);
  }
  if (r.has("hierarchical")) {
    out.hierarchical = r.flag("hierarchical");
    if (out.hierarchical && form != NetworkForm::kFabricFile) {
      r.fail("hierarchical",
             "hierarchical collectives need a fabric file (nodes of several "
             "ranks); this network is a flat link or a bus bandwidth");
    }
  }
  if (r.has("placement")) {
    if (form != NetworkForm::kFabricFile) {
      r.fail("placement",
             "placement needs a fabric file (network.fabric); this network is a "
             "flat link or a bus bandwidth");
    }
    Placement placement = Placement::kPacked;
    try {
      placement = parse_placement(r.text("placement"));
    } catch (const InputError& e) {
      r.fail("placement", e.what());
    }
    Topology& fabric = *scenario->network.fabric;
    fabric.placement = placement;
    fabric.rank_to_node.clear();
  }
  if (r.has("compression_ratio")) {
    out.compression_ratio = r.number("compression_ratio");
    if (!(out.compression_ratio >= 1)) {
      r.fail("compression_ratio", "must be 1 or more (2 = half the bytes; 1 = no compression)");
    }
    r.within("compression_ratio", out.compression_ratio, kScenarioFactor);
  }
  if (r.has("compression_cost")) {
    out.compression_s_per_byte =
        r.within("compression_cost", r.seconds("compression_cost"), kScenarioSecondsPerByte);
  }
  if (r.has("accumulation_steps")) {
    out.accumulation_steps = r.count("accumulation_steps", 1, kMaxAccumulationSteps);
  }
  if (r.has("batch_scale")) {
    out.batch_scale = r.number("batch_scale");
    if (!(out.batch_scale > 0)) r.fail("batch_scale", "must be above 0");
    r.within("batch_scale", out.batch_scale, kScenarioBatchScale);
  }
}

Checkpoint read_checkpoint(const Section& c) {
  Checkpoint out;
  if (!c.present()) return out;
  c.reject_unknown({"bytes", "write_bandwidth", "shared", "interval_steps", "async"});
  if (!c.has("bytes")) {
    c.missing("bytes",
              "the size of one checkpoint, e.g. \"100GB\" (leave out [checkpoint] for "
              "none)");
  }
  out.bytes = c.within("bytes", c.bytes("bytes"), kScenarioBytes);
  if (c.has("write_bandwidth")) {
    out.write_bandwidth_Bps = c.rate("write_bandwidth");
    if (!(out.write_bandwidth_Bps > 0)) c.fail("write_bandwidth", "must be above 0");
    c.within("write_bandwidth", out.write_bandwidth_Bps, kScenarioRate);
  } else if (out.bytes > 0) {
    c.missing("write_bandwidth", "the rate one checkpoint is written at, e.g. \"5GB/s\"");
  }
  if (c.has("shared")) out.shared = c.flag("shared");
  if (c.has("interval_steps")) out.interval_steps = c.count("interval_steps", 1, kMaxIntervalSteps);
  if (c.has("async")) out.async = c.flag("async");
  return out;
}

WhatIfOptions read_what_if(const Section& w) {
  WhatIfOptions out;
  if (!w.present()) return out;
  w.reject_unknown({"compression_ratio", "compression_cost", "accumulation_steps", "batch_scale"});
  if (w.has("compression_ratio")) {
    out.compression_ratio = w.number("compression_ratio");
    if (!(out.compression_ratio >= 1)) w.fail("compression_ratio", "must be 1 or more");
    w.within("compression_ratio", out.compression_ratio, kScenarioFactor);
  }
  if (w.has("compression_cost")) {
    out.compression_s_per_byte =
        w.within("compression_cost", w.seconds("compression_cost"), kScenarioSecondsPerByte);
  }
  if (w.has("accumulation_steps")) {
    out.accumulation_steps = w.count("accumulation_steps", 1, kMaxAccumulationSteps);
  }
  if (w.has("batch_scale")) {
    out.batch_scale = w.number("batch_scale");
    if (!(out.batch_scale > 0)) w.fail("batch_scale", "must be above 0");
    w.within("batch_scale", out.batch_scale, kScenarioBatchScale);
  }
  return out;
}

std::string describe(const Scenario& scenario, NetworkForm form) {
  const Network& n = scenario.network;
  switch (form) {
    case NetworkForm::kBusbw:
      if (n.busbw_alpha_s > 0) {
        return fmt::format("busbw {}, alpha {}", format_rate(n.busbw_Bps),
                           format_seconds(n.busbw_alpha_s));
      }
      return fmt::format("busbw {}", format_rate(n.busbw_Bps));
    case NetworkForm::kFlatLink:
      return fmt::format("flat link: alpha {}, {}", format_seconds(n.fabric->inter.alpha_s),
                         format_rate(n.fabric->inter.bandwidth_Bps));
    case NetworkForm::kFabricFile:
      return describe_scenario_fabric(*n.fabric);
  }
  SCALEWALL_CHECK(false && "unknown NetworkForm");
  return {};
}

}  // namespace

namespace {

// "fabric NAME (" + `nodes` + ", K NICs per node; intra ..., inter ...; placement; nominal)".
std::string fabric_words(const Topology& t, const std::string& nodes) {
  std::string text = fmt::format(
      "fabric {} ({}, {} NIC{} per node; intra {} at {}, inter {} at {}", t.name, nodes,
      t.nics_per_node, t.nics_per_node == 1 ? "" : "s", format_seconds(t.intra.alpha_s),
      format_rate(t.intra.bandwidth_Bps), format_seconds(t.inter.alpha_s),
      format_rate(t.inter.bandwidth_Bps));
  if (t.inter.gap_s > 0) text += fmt::format(", gap {}", format_seconds(t.inter.gap_s));
  if (t.oversubscription > 1) text += fmt::format("; oversubscribed {:g}:1", t.oversubscription);
  text += fmt::format("; {}; {})", placement_name(t.placement), t.nominal ? "nominal" : "measured");
  return text;
}

}  // namespace

std::string describe_scenario_fabric(const Topology& t) {
  return fabric_words(t, fmt::format("{} node{} x {} ranks", t.nodes, t.nodes == 1 ? "" : "s",
                                     t.ranks_per_node));
}

std::string describe_node_fabric(const Topology& t) {
  return fabric_words(t, fmt::format("nodes of {} rank{}", t.ranks_per_node,
                                     t.ranks_per_node == 1 ? "" : "s"));
}

namespace {

// The largest dimension, batch or degree a transformer scenario takes: 2^40, beyond any model
// and any machine, and small enough that products of a few stay exact in a double.
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 40;

// The shape `[model] preset` names: a built-in preset, or a config.json (a value ending in
// .json or holding a '/') resolved against the scenario's folder as a fabric file is.
TransformerShape preset_shape(const Section& m, const std::string& base_dir) {
  const std::string name = m.text("preset");
  try {
    if (!names_hf_config(name)) return model_preset(name);
    std::filesystem::path resolved(name);
    if (resolved.is_relative() && !base_dir.empty()) {
      resolved = std::filesystem::path(base_dir) / resolved;
    }
    return load_hf_config(resolved.string());
  } catch (const InputError& e) {
    m.fail("preset", e.what());
  }
}

// The keys beside a preset (or without one) that set the shape's structure.
void read_model_structure(const Section& m, TransformerShape& shape) {
  const auto parse = [&](std::string_view key, auto parser, auto& out) {
    if (!m.has(key)) return;
    try {
      out = parser(m.text(key));
    } catch (const InputError& e) {
      m.fail(key, e.what());
    }
  };
  parse("mlp", parse_mlp, shape.mlp);
  parse("position", parse_position, shape.position);
  if (m.has("tied_embeddings")) shape.tied_embeddings = m.flag("tied_embeddings");
}

// Whether the dimensions divide as attention needs; a preset's numbers are blamed on
// model.preset unless the key at fault was written. With a head_dim (or MLA) the heads need
// not divide the hidden size.
void require_heads_divide(const Section& m, const TransformerShape& shape) {
  const auto fail = [&](std::string_view key, std::int64_t value, std::string_view other,
                        std::int64_t of) {
    if (m.has(key)) m.fail(key, fmt::format("does not divide model.{} {}", other, of));
    m.fail("preset", fmt::format("model.{} {} does not divide model.{} {}", key, value, other,
                                 of));
  };
  const bool spans_hidden = shape.attention == AttentionKind::kMha && shape.head_dim == 0;
  if (spans_hidden && shape.hidden % shape.heads != 0) {
    fail("heads", shape.heads, "hidden", shape.hidden);
  }
  if (shape.heads % shape.kv_heads != 0) fail("kv_heads", shape.kv_heads, "heads", shape.heads);
}

// The keys of multi-head latent attention, read only with attention = "mla".
constexpr std::array<std::string_view, 5> kMlaKeys = {"q_lora_rank", "kv_lora_rank",
                                                      "qk_nope_dim", "qk_rope_dim",
                                                      "v_head_dim"};
// The keys of a mixture of experts beside `experts`, read only with experts > 0.
constexpr std::array<std::string_view, 6> kExpertKeys = {"topk", "moe_ffn", "shared_experts",
                                                         "moe_every", "dense_layers",
                                                         "capacity_factor"};

// The attention's keys: attention, head_dim and MLA's ranks and head sizes. A written
// attention = "mla" without kv_heads takes a KV head per head; "mha" over an MLA preset drops
// its ranks.
void read_model_attention(const Section& m, TransformerShape& shape) {
  if (m.has("attention")) {
    try {
      shape.attention = parse_attention(m.text("attention"));
    } catch (const InputError& e) {
      m.fail("attention", e.what());
    }
  }
  const bool mla = shape.attention == AttentionKind::kMla;
  if (m.has("head_dim")) shape.head_dim = m.count("head_dim", 1, kMaxDimension);
  std::array<std::int64_t*, 5> fields = {&shape.q_lora_rank, &shape.kv_lora_rank,
                                         &shape.qk_nope_dim, &shape.qk_rope_dim,
                                         &shape.v_head_dim};
  for (std::size_t i = 0; i < kMlaKeys.size(); ++i) {
    const std::string_view key = kMlaKeys[i];
    if (!mla) {
      if (m.has(key)) {
        m.fail(key, "is a key of multi-head latent attention, and model.attention is \"mha\" "
                    "(give attention = \"mla\")");
      }
      *fields[i] = 0;
      continue;
    }
    if (m.has(key)) *fields[i] = m.count(key, key == "q_lora_rank" ? 0 : 1, kMaxDimension);
  }
  if (mla && m.has("attention") && !m.has("kv_heads")) shape.kv_heads = shape.heads;
}

// The mixture of experts' keys: experts (0: dense, which drops a preset's experts), and beside
// a positive one topk (required), moe_ffn, shared_experts, moe_every, dense_layers and
// capacity_factor (absent: dropless).
void read_model_experts(const Section& m, TransformerShape& shape) {
  if (m.has("experts")) shape.experts = m.count("experts", 0, kMaxDimension);
  if (shape.experts == 0) {
    for (const std::string_view key : kExpertKeys) {
      if (m.has(key)) {
        m.fail(key, "is a key of a mixture of experts, and model.experts is 0 (a dense "
                    "model; give experts, the routed experts of each MoE layer)");
      }
    }
    const TransformerShape dense;
    shape.topk = dense.topk;
    shape.moe_ffn = dense.moe_ffn;
    shape.shared_experts = dense.shared_experts;
    shape.moe_every = dense.moe_every;
    shape.dense_layers = dense.dense_layers;
    shape.capacity_factor = dense.capacity_factor;
    shape.router_bias = dense.router_bias;
    return;
  }
  if (m.has("topk")) shape.topk = m.count("topk", 1, kMaxDimension);
  if (shape.topk == 0) m.missing("topk", "the experts each token is routed to");
  if (m.has("moe_ffn")) shape.moe_ffn = m.count("moe_ffn", 1, kMaxDimension);
  if (m.has("shared_experts")) shape.shared_experts = m.count("shared_experts", 0, kMaxDimension);
  if (m.has("moe_every")) shape.moe_every = m.count("moe_every", 1, kMaxDimension);
  if (m.has("dense_layers")) shape.dense_layers = m.count("dense_layers", 0, kMaxDimension);
  if (m.has("capacity_factor")) {
    shape.capacity_factor = m.number("capacity_factor");
    if (shape.capacity_factor <= 0.0) {
      m.fail("capacity_factor", "must be greater than 0 (leave it out for dropless routing)");
    }
  }
}

// What shape_problem finds, blamed on the key at fault where it was written, else on the
// preset that gave it, else as a missing key.
void require_valid_shape(const Section& m, const TransformerShape& shape) {
  const std::optional<ShapeProblem> p = shape_problem(shape);
  if (!p) return;
  if (m.has(p->key)) m.fail(p->key, p->message);
  if (m.has("preset")) m.fail("preset", p->message);
  m.missing(p->key, p->message);
}

TransformerShape read_model(const Section& m, const std::string& base_dir) {
  m.reject_unknown({"preset", "hidden", "ffn", "heads", "kv_heads", "layers", "seq", "vocab",
                    "mlp", "tied_embeddings", "position", "head_dim", "attention", "q_lora_rank",
                    "kv_lora_rank", "qk_nope_dim", "qk_rope_dim", "v_head_dim", "experts",
                    "topk", "moe_ffn", "shared_experts", "moe_every", "dense_layers",
                    "capacity_factor"});
  const bool preset = m.has("preset");
  TransformerShape shape = preset ? preset_shape(m, base_dir) : TransformerShape{};
  const auto dimension = [&](std::string_view key, std::string_view hint, std::int64_t& out) {
    if (m.has(key)) {
      out = m.count(key, 1, kMaxDimension);
    } else if (out == 0) {
      m.missing(key, preset ? fmt::format("{}; model.preset gives none", hint) : std::string(hint));
    }
  };
  dimension("hidden", "the hidden size h", shape.hidden);
  dimension("heads", "the attention heads", shape.heads);
  dimension("layers", "the transformer layers", shape.layers);
  dimension("seq", "the sequence length in tokens", shape.seq);
  dimension("vocab", "the vocabulary size", shape.vocab);
  if (m.has("ffn") || shape.ffn == 0) {
    shape.ffn = m.has("ffn") ? m.count("ffn", 1, kMaxDimension) : 4 * shape.hidden;
  }
  if (m.has("kv_heads") || shape.kv_heads == 0) {
    shape.kv_heads = m.has("kv_heads") ? m.count("kv_heads", 1, kMaxDimension) : shape.heads;
  }
  read_model_structure(m, shape);
  read_model_attention(m, shape);
  read_model_experts(m, shape);
  require_heads_divide(m, shape);
  require_valid_shape(m, shape);
  return shape;
}

TrainingSetup read_training(const Section& t, std::optional<std::int64_t>& micro_batch) {
  t.reject_unknown({"global_batch", "micro_batch", "dtype", "scaling", "tokens"});
  if (!t.present()) t.missing("", "global_batch, and optionally micro_batch and dtype");
  if (!t.has("global_batch")) t.missing("global_batch", "sequences per optimizer step");
  TrainingSetup setup;
  setup.global_batch = t.count("global_batch", 1, kMaxDimension);
  if (t.has("micro_batch")) micro_batch = t.count("micro_batch", 1, kMaxDimension);
  setup.micro_batch = micro_batch.value_or(1);
  if (t.has("dtype")) {
    try {
      setup.dtype = parse_dtype(t.text("dtype"));
    } catch (const InputError& e) {
      t.fail("dtype", e.what());
    }
  }
  return setup;
}

// training.scaling: how predict's curve over several GPU counts grows the job (default strong).
ScalingMode read_transformer_scaling(const Section& t) {
  if (!t.has("scaling")) return ScalingMode::kStrong;
  const std::optional<ScalingMode> mode = parse_scaling_mode(t.text("scaling"));
  if (!mode) {
    t.fail("scaling",
           "expected \"strong\" (global batch fixed) or \"weak\" (batch per data-parallel "
           "rank fixed)");
  }
  return *mode;
}

SplitConstraints read_parallel(const Section& p) {
  p.reject_unknown({"tp", "pp", "dp", "cp", "cp_comm", "cp_a2a", "ep", "etp", "moe_imbalance",
                    "interleave", "sequence_parallel", "recompute", "zero", "dp_overlap",
                    "tp_overlap", "first_stage_layers", "last_stage_layers",
                    "embedding_in_split", "loss_in_split"});
  SplitConstraints c;
  const auto degree = [&](std::string_view key, std::optional<std::int64_t>& out) {
    if (p.has(key)) out = p.count(key, 1, kMaxDimension);
  };
  degree("tp", c.tp);
  degree("pp", c.pp);
  degree("dp", c.dp);
  degree("cp", c.cp);
  degree("cp_a2a", c.cp_a2a);
  degree("ep", c.ep);
  degree("etp", c.etp);
  degree("interleave", c.interleave);
  degree("first_stage_layers", c.first_stage_layers);
  degree("last_stage_layers", c.last_stage_layers);
  if (p.has("sequence_parallel")) c.sequence_parallel = p.flag("sequence_parallel");
  if (p.has("dp_overlap")) c.dp_overlap = p.flag("dp_overlap");
  if (p.has("tp_overlap")) c.tp_overlap = p.flag("tp_overlap");
  if (p.has("embedding_in_split")) c.embedding_in_split = p.flag("embedding_in_split");
  if (p.has("loss_in_split")) c.loss_in_split = p.flag("loss_in_split");
  if (p.has("zero")) c.zero = static_cast<int>(p.count("zero", 0, 3));
  if (p.has("recompute")) {
    try {
      c.recompute = parse_recompute(p.text("recompute"));
    } catch (const InputError& e) {
      p.fail("recompute", e.what());
    }
  }
  if (p.has("cp_comm")) {
    try {
      c.cp_comm = parse_cp_comm(p.text("cp_comm"));
    } catch (const InputError& e) {
      p.fail("cp_comm", e.what());
    }
  }
  if (c.cp_a2a && c.cp && *c.cp % *c.cp_a2a != 0) {
    p.fail("cp_a2a", fmt::format("does not divide parallel.cp {} (the all-to-all sub-groups "
                                 "tile the CP group)",
                                 *c.cp));
  }
  return c;
}

// system.framework (default megatron-core) and system.memory_reserve (a fraction of HBM in
// [0, 0.9]; default kDefaultMemoryReserve).
void read_framework(const Section& y, TransformerJob& job) {
  if (y.has("framework")) {
    try {
      job.framework = framework_preset(y.text("framework"));
    } catch (const InputError& e) {
      y.fail("framework", e.what());
    }
  }
  if (y.has("memory_reserve")) job.memory_reserve = y.fraction("memory_reserve", 0.0, 0.9);
}

// parallel.ep, etp and moe_imbalance against the model and the other keys: a dense model has
// none of them; ep divides the experts (Megatron-Core's arguments.py); moe_imbalance, the
// measured heaviest EP rank's tokens over the mean, is at least 1 and at most the experts, for
// dropless routing only; with the experts apart (ep > 1, or an etp given other than tp), ZeRO-3
// and tensor parallelism without sequence parallelism are refused as the model refuses them
// (expert_refusal).
void read_expert_keys(const Section& p, TransformerScenario& t) {
  const TransformerShape& m = t.job.model;
  const SplitConstraints& c = t.parallel;
  for (const std::string_view key : {"ep", "etp", "moe_imbalance"}) {
    if (!is_moe(m) && p.has(key)) {
      p.fail(key, "needs a mixture of experts (model.experts is 0)");
    }
  }
  if (!is_moe(m)) return;
  if (c.ep && m.experts % *c.ep != 0) {
    p.fail("ep", fmt::format("does not divide model.experts {} (each EP rank holds experts / ep "
                             "of them)",
                             m.experts));
  }
  if (p.has("moe_imbalance")) {
    if (m.capacity_factor > 0.0) {
      p.fail("moe_imbalance", fmt::format("applies to dropless routing; model.capacity_factor {} "
                                          "pads every expert to its capacity",
                                          m.capacity_factor));
    }
    const double x = p.number("moe_imbalance");
    if (!(x >= 1.0 && x <= static_cast<double>(m.experts))) {
      p.fail("moe_imbalance", fmt::format("{} is outside [1, {}] (the heaviest EP rank's routed "
                                          "tokens over the mean, at most model.experts)",
                                          x, m.experts));
    }
    t.job.moe_imbalance = x;
  }
  const bool apart = c.ep.value_or(1) > 1 || (c.etp && c.tp && *c.etp != *c.tp);
  if (!apart) return;
  const std::string grid = fmt::format("parallel.ep {}{}", c.ep.value_or(1),
                                       c.etp ? fmt::format(", etp {}", *c.etp) : "");
  if (c.zero && *c.zero >= 3) {
    p.fail("zero", fmt::format("ZeRO-3 (Megatron-FSDP) of expert-parallel experts is not priced "
                               "({}; zero 0 to 2)",
                               grid));
  }
  if (c.sequence_parallel && !*c.sequence_parallel && c.tp && *c.tp > 1) {
    p.fail("sequence_parallel",
           fmt::format("Megatron-Core's MoE layer refuses tensor parallelism (parallel.tp {}) "
                       "without sequence parallelism in training (moe_layer.py), and the "
                       "experts are apart ({})",
                       *c.tp, grid));
  }
}

// The [parallel] choices the framework cannot run are refused, naming the key, its value and
// the framework.
void require_framework_runs(const Section& p, const TransformerScenario& t) {
  if (const auto no = framework_refusal(t.job.framework, t.parallel)) p.fail(no->key, no->reason);
  // cp_a2a sizes the all-to-all of the hierarchical exchange only.
  const CpComm comm = t.parallel.cp_comm.value_or(t.job.framework.cp_comm);
  if (t.parallel.cp_a2a && comm != CpComm::kA2aP2p) {
    p.fail("cp_a2a", fmt::format("applies to cp_comm = \"a2a+p2p\" only (cp_comm is \"{}\")",
                                 cp_comm_name(comm)));
  }
}

// system.gpus_per_node: the GPUs of each node the job uses, when fewer than the fabric's (64
// of a GB200 NVL72 rack's 72); their NICs come with them (the node's NICs x k / g, at least
// one).
void read_gpus_per_node(const Section& y, Topology& fabric) {
  if (!y.has("gpus_per_node")) return;
  const std::int64_t g = fabric.ranks_per_node;
  const std::int64_t k = y.count("gpus_per_node", 1, kMaxDimension);
  if (k > g) {
    y.fail("gpus_per_node", fmt::format("is more than the {} GPUs of a node of system.fabric {}",
                                        g, fabric.name));
  }
  fabric.nics_per_node = std::max<std::int64_t>(1, fabric.nics_per_node * k / g);
  fabric.ranks_per_node = k;
}

void read_system(const Section& y, const std::string& base_dir, TransformerScenario& out) {
  y.reject_unknown({"gpu", "fabric", "gpus", "gpus_per_node", "nccl_version", "framework",
                    "memory_reserve", "gpu_hour_cost"});
  if (!y.present()) y.missing("", "gpu, fabric and gpus");
  if (!y.has("gpu")) {
    y.missing("gpu", fmt::format("one of: {}; or a GPU file", accelerator_names()));
  }
  if (!y.has("fabric")) y.missing("fabric", "a fabric preset such as \"dgx-a100\" or a file");
  // A preset's name, or a GPU file found relative to the scenario as the fabric is.
  std::filesystem::path gpu(y.text("gpu"));
  if (names_gpu_file(gpu.string()) && gpu.is_relative() && !base_dir.empty()) {
    gpu = std::filesystem::path(base_dir) / gpu;
  }
  try {
    out.job.gpu = load_accelerator(gpu.string());
  } catch (const InputError& e) {
    y.fail("gpu", e.what());
  }
  out.fabric_name = y.text("fabric");
  if (out.fabric_name.empty()) y.fail("fabric", "empty path");
  std::filesystem::path resolved(out.fabric_name);
  if (!names_fabric_preset(out.fabric_name) && resolved.is_relative() && !base_dir.empty()) {
    resolved = std::filesystem::path(base_dir) / resolved;
  }
  try {
    out.job.fabric = load_fabric(resolved.string());
  } catch (const InputError& e) {
    y.fail("fabric", e.what());
  }
  read_nccl_version(y, out.job.fabric);
  read_gpus_per_node(y, out.job.fabric);
  read_framework(y, out.job);
  const SplitConstraints& c = out.parallel;
  std::int64_t product = 0;
  if (c.degrees_fixed()) {
    try {
      product = split_gpus(*c.tp, *c.pp, *c.dp, c.cp.value_or(1));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: parallel.{}", y.source(), e.what()));
    }
  }
  if (y.has("gpus")) {
    out.gpus = y.count("gpus", 1, kMaxDimension);
    out.gpus_given = true;
    if (product != 0 && product != out.gpus) {
      y.fail("gpus", c.cp.value_or(1) == 1
                         ? fmt::format("is not parallel.tp x pp x dp = {}", product)
                         : fmt::format("is not parallel.tp x cp x pp x dp = {}", product));
    }
  } else {
    out.gpus = product;
  }
}

// The longest mean time between failures a GPU may be given: 1e12 s, some 32,000 years.
constexpr ValueRange kGpuMtbf{RangeUnit::kSeconds, 1.0, 1e12, false};
// The most tokens a run may train on, and the most money a GPU-hour may cost.
constexpr double kMaxTokens = 1e18;
constexpr double kMaxGpuHourCost = 1e9;

// [checkpoint] of a transformer scenario (goodput.h): its size (default: from the model),
// write rate and whose it is, interval (steps or a time; default the best), async and the
// host copy rate.
CheckpointPlan read_transformer_checkpoint(const Section& c) {
  CheckpointPlan out;
  if (!c.present()) return out;
  c.reject_unknown({"bytes", "write_bandwidth", "write_bandwidth_per", "interval", "async",
                    "host_bandwidth"});
  out.given = true;
  if (c.has("bytes")) {
    out.bytes = c.within("bytes", c.bytes("bytes"), kScenarioBytes);
    if (!(*out.bytes > 0)) c.fail("bytes", "must be above 0 (leave out [checkpoint] for none)");
  }
  if (!c.has("write_bandwidth")) {
    c.missing("write_bandwidth",
              "the rate a checkpoint is written at, e.g. \"5GB/s\"; write_bandwidth_per "
              "says whose rate it is");
  }
  out.write_bandwidth_Bps = c.rate("write_bandwidth");
  if (!(out.write_bandwidth_Bps > 0)) c.fail("write_bandwidth", "must be above 0");
  c.within("write_bandwidth", out.write_bandwidth_Bps, kScenarioRate);
  if (c.has("write_bandwidth_per")) {
    const std::optional<WriteScope> scope = parse_write_scope(c.text("write_bandwidth_per"));
    if (!scope) {
      c.fail("write_bandwidth_per",
             "expected \"node\" (each node writes its share at write_bandwidth), \"gpu\" (each "
             "GPU does) or \"job\" (one shared target for the whole job)");
    }
    out.write_scope = *scope;
  }
  if (c.has("interval")) {
    const toml::node& node = c.node("interval");
    if (node.is_integer()) {
      out.interval_steps = c.count("interval", 1, kMaxIntervalSteps);
    } else if (node.is_string()) {
      out.interval_s = c.seconds("interval");
      if (!(*out.interval_s > 0)) c.fail("interval", "must be above 0");
      c.within("interval", *out.interval_s, kScenarioSeconds);
    } else {
      c.fail("interval", fmt::format("expected a whole number of steps (100) or a time like "
                                     "\"30min\", not {}",
                                     type_noun(node)));
    }
  }
  if (c.has("async")) out.async = c.flag("async");
  if (c.has("host_bandwidth")) {
    if (!out.async) c.fail("host_bandwidth", "applies to async = true only");
    out.host_copy_Bps = c.rate("host_bandwidth");
    if (!(out.host_copy_Bps > 0)) c.fail("host_bandwidth", "must be above 0");
    c.within("host_bandwidth", out.host_copy_Bps, kScenarioRate);
  }
  return out;
}

// [failures]: one GPU's mean time between failures and the restart, both required.
FailurePlan read_failures(const Section& f) {
  FailurePlan out;
  if (!f.present()) return out;
  f.reject_unknown({"gpu_mtbf", "restart"});
  out.given = true;
  if (!f.has("gpu_mtbf")) {
    f.missing("gpu_mtbf", "one GPU's mean time between failures, with its share of the node, "
                          "e.g. \"50000h\"");
  }
  out.gpu_mtbf_s = f.seconds("gpu_mtbf");
  if (!(out.gpu_mtbf_s > 0)) f.fail("gpu_mtbf", "must be above 0");
  f.within("gpu_mtbf", out.gpu_mtbf_s, kGpuMtbf);
  if (!f.has("restart")) {
    f.missing("restart", "the time from a failure to the job running again, e.g. \"10min\"");
  }
  out.restart_s = f.within("restart", f.seconds("restart"), kScenarioSeconds);
  return out;
}

// training.tokens, system.gpu_hour_cost, [checkpoint] and [failures], and what each needs of
// the others.
TrainingRun read_run(const toml::table& root, const std::string& source) {
  TrainingRun run;
  const Section t = section(root, source, "training");
  if (t.has("tokens")) {
    run.tokens = t.quantity("tokens", parse_si_count, "a count like \"15T\" or a number");
    if (!(*run.tokens >= 1 && *run.tokens <= kMaxTokens)) {
      t.fail("tokens", fmt::format("is outside 1 to {:g} tokens", kMaxTokens));
    }
  }
  const Section y = section(root, source, "system");
  if (y.has("gpu_hour_cost")) {
    run.gpu_hour_cost = y.number("gpu_hour_cost");
    if (*run.gpu_hour_cost > kMaxGpuHourCost) {
      y.fail("gpu_hour_cost", fmt::format("is above {:g} per GPU-hour", kMaxGpuHourCost));
    }
    if (!run.tokens) {
      y.fail("gpu_hour_cost", "needs training.tokens: the cost is of the whole run");
    }
  }
  const Section c = section(root, source, "checkpoint");
  const Section f = section(root, source, "failures");
  run.checkpoint = read_transformer_checkpoint(c);
  run.failures = read_failures(f);
  if (run.failures.given && !run.checkpoint.given) {
    const Section top(source, "", &root);
    top.fail("failures", "needs [checkpoint]: a failure loses the work since the last "
                         "checkpoint (give its write_bandwidth; its size defaults to the "
                         "model's 14 B per parameter)");
  }
  const CheckpointPlan& ck = run.checkpoint;
  if (ck.given && !ck.interval_steps && !ck.interval_s && !run.failures.given) {
    c.missing("interval", "steps between checkpoints, or a time like \"30min\"; without it "
                          "the best interval is taken, which needs [failures]");
  }
  return run;
}

// The dtype [training] asks for must have tensor cores on the accelerator [system] names.
void require_dtype_on_gpu(const Section& training, const TransformerJob& job) {
  const DType dtype = job.training.dtype;
  if (job.gpu.supports(dtype)) return;
  training.fail("dtype", fmt::format("system.gpu {} has no {} tensor cores (use bf16 or fp16)",
                                     job.gpu.name, dtype_name(dtype)));
}

void read_transformer(const toml::table& root, const std::string& source,
                      const std::string& base_dir, ScenarioFile& file) {
  const Section top(source, "", &root);
  top.reject_unknown({"name", "description", "model", "training", "parallel", "system",
                      "variance", "checkpoint", "failures"});
  TransformerScenario t;
  t.job.model = read_model(section(root, source, "model"), base_dir);
  std::optional<std::int64_t> micro_batch;
  t.job.training = read_training(section(root, source, "training"), micro_batch);
  t.scaling = read_transformer_scaling(section(root, source, "training"));
  t.parallel = read_parallel(section(root, source, "parallel"));
  t.parallel.micro_batch = micro_batch;
  read_system(section(root, source, "system"), base_dir, t);
  require_dtype_on_gpu(section(root, source, "training"), t.job);
  require_framework_runs(section(root, source, "parallel"), t);
  read_expert_keys(section(root, source, "parallel"), t);
  const Variance variance = read_variance(section(root, source, "variance"));
  t.job.sigma = variance.sigma;
  t.job.bad_node_slowdown = variance.bad_node_slowdown;
  t.job.bad_link_bandwidth_Bps = variance.bad_link_bandwidth_Bps;
  t.run = read_run(root, source);
  file.network_description = describe_node_fabric(t.job.fabric);
  file.network_is_fabric_file = true;
  file.transformer = std::move(t);
}

}  // namespace

ScenarioFile parse_scenario(std::string_view toml_text, const std::string& source_name,
                            const std::string& base_dir) {
  const toml::table root = parse_toml(toml_text, source_name);
  const Section top(source_name, "", &root);
  if (root.contains("model")) {
    ScenarioFile file;
    read_transformer(root, source_name, base_dir, file);
    file.scenario.name = top.has("name") ? top.text("name")
                                         : std::filesystem::path(source_name).stem().string();
    if (file.scenario.name.empty()) file.scenario.name = "scenario";
    if (top.has("description")) file.description = top.text("description");
    return file;
  }
  top.reject_unknown({"name", "description", "workload", "network", "variance", "remedies",
                      "checkpoint", "what_if", "model"});

  ScenarioFile file;
  Scenario& s = file.scenario;
  if (top.has("name")) {
    s.name = top.text("name");
    if (s.name.empty()) top.fail("name", "must not be empty (leave it out to use the file name)");
  } else {
    s.name = std::filesystem::path(source_name).stem().string();
    if (s.name.empty()) s.name = "scenario";
  }
  if (top.has("description")) file.description = top.text("description");

  s.workload = read_workload(section(root, source_name, "workload"));
  NetworkRead network = read_network(section(root, source_name, "network"), base_dir);
  s.network = std::move(network.network);
  s.settings.algorithm = network.algorithm;
  s.settings.selector = network.selector;
  s.settings.cost = network.cost;
  s.variance = read_variance(section(root, source_name, "variance"));
  read_remedies(section(root, source_name, "remedies"), network.form, &s);
  s.checkpoint = read_checkpoint(section(root, source_name, "checkpoint"));
  file.what_if = read_what_if(section(root, source_name, "what_if"));

  try {
    require_valid(s);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", source_name, e.what()));
  }
  file.network_description = describe(s, network.form);
  file.network_is_fabric_file = network.form == NetworkForm::kFabricFile;
  return file;
}

ScenarioFile load_scenario_file(const std::string& path) {
  const std::string text = read_toml_file(path, "scenario file");
  const std::string base_dir =
      is_standard_input(path) ? std::string() : std::filesystem::path(path).parent_path().string();
  return parse_scenario(text, path, base_dir);
}

}  // namespace scalewall
