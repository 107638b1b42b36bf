// Implementation of scalewall/analysis/published_accuracy.h.
#include "scalewall/analysis/published_accuracy.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "scalewall/analysis/split_search.h"
#include "scalewall/base/error.h"
#include "scalewall/base/utf8.h"
#include "scalewall/base/stats.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/io/scenario_file.h"
#include "scalewall/model/accelerator.h"
#include "scalewall/model/model_presets.h"

namespace scalewall {
namespace {

bool has(std::string_view text, std::string_view part) {
  return ascii_lower(text).find(part) != std::string::npos;
}

// The vocabulary of the Llama 3 tokenizer (its config.json's vocab_size), for a table that
// names a Llama 3 model without its vocabulary.
constexpr std::int64_t kLlama3Vocab = 128256;

// The dtype a run's precision is priced in and the name its group carries; empty dtype with
// the reason when it cannot be priced.
struct Precision {
  std::string dtype;
  std::string group;
  std::string skipped;
  std::string kind;
};

Precision precision_of(const PublishedRun& run) {
  const std::string p = ascii_lower(run.precision);
  if (p.empty()) {
    // The Megatron-LM README states MFU against the dense BF16 peak and no precision.
    if (run.source.find("megatron_lm_readme") != std::string::npos) return {"bf16", "BF16", "", ""};
    return {"", "", "the precision is not stated", "not stated"};
  }
  if (has(p, "fp4")) {
    return {"", "", fmt::format("{}: 4-bit formats are not priced", run.precision),
            "4-bit format"};
  }
  if (has(p, "mx")) return {"fp8", "MXFP8", "", ""};
  if (has(p, "fp8")) return {"fp8", "FP8", "", ""};
  if (has(p, "bf16")) return {"bf16", "BF16", "", ""};
  return {"", "", fmt::format("precision '{}' is not known", run.precision), "not stated"};
}

// The accelerator preset of a run's GPU ("H100 (implied)" is an H100).
std::optional<std::string> gpu_preset(const PublishedRun& run) {
  const std::string g = ascii_lower(run.gpu);
  std::string name;
  if (g.rfind("h100", 0) == 0) name = "h100-sxm";
  else if (g.rfind("h200", 0) == 0) name = "h200";
  else if (g.rfind("a100", 0) == 0) name = "a100-80gb";
  else name = g.substr(0, g.find(' '));
  if (find_accelerator(name) == nullptr) return std::nullopt;
  return name;
}

// The fabric preset of a run's system; a table that names no system is on its GPU's DGX.
std::optional<std::string> fabric_preset(const PublishedRun& run, std::string& assumed) {
  std::string system = ascii_lower(run.system);
  if (system.empty()) {
    system = "dgx-" + ascii_lower(run.gpu.substr(0, run.gpu.find(' ')));
    assumed += fmt::format("system not stated: {}; ", system);
  }
  // A DGX GB200 or GB300 system is its NVL72 racks.
  const std::string name = system == "dgx-gb200"   ? "gb200-nvl72"
                           : system == "dgx-gb300" ? "gb300-nvl72"
                                                   : system;
  if (find_fabric_preset(name) == nullptr) return std::nullopt;
  return name;
}

// The model's [model] keys, or the missing dimension.
std::string model_keys(const PublishedRun& run, std::string& assumed, std::string& missing) {
  if (!run.layers || !run.hidden || !run.heads) {
    missing = "the source does not state the model's layers, hidden size and heads";
    return "";
  }
  const bool llama = has(run.model, "llama");
  std::int64_t vocab = run.vocab.value_or(0);
  if (vocab == 0) {
    if (!llama) {
      missing = "the source does not state the vocabulary";
      return "";
    }
    vocab = kLlama3Vocab;
    assumed += fmt::format("vocab not stated: {} (Llama 3's tokenizer); ", vocab);
  }
  std::string keys = fmt::format("layers = {}\nhidden = {}\nheads = {}\nvocab = {}\nseq = {}\n",
                                 *run.layers, *run.hidden, *run.heads, vocab, run.seq.value_or(0));
  if (run.ffn) keys += fmt::format("ffn = {}\n", *run.ffn);
  if (run.kv_heads) keys += fmt::format("kv_heads = {}\n", *run.kv_heads);
  if (llama) {
    keys += "mlp = \"gated\"\ntied_embeddings = false\nposition = \"rotary\"\n";
  } else {
    assumed += "a GPT block: plain MLP, tied embeddings, learned positions; ";
  }
  return keys;
}

// The model presets a mixture of experts' run is priced with, by a part of its model's name
// (lower case) in the tables: the preset holds what the table's columns do not (MLA, the
// leading dense layers, head_dim, the windowed layers, the router's bias), and the family
// names the run's group.
struct MoePreset {
  std::string_view part;
  std::string_view preset;
  std::string_view family;
};
constexpr std::array<MoePreset, 4> kMoePresets = {{
    {"deepseekv3", "deepseek-v3", "DeepSeek-V3"},
    {"qwen3_30b_a3b", "qwen3-30b-a3b", "Qwen3-30B-A3B"},
    {"qwen3_235b_a22b", "qwen3-235b-a22b", "Qwen3-235B-A22B"},
    {"gpt oss 120b", "gpt-oss-120b", "gpt-oss-120b"},
}};

const MoePreset* moe_preset(const PublishedRun& run) {
  for (const MoePreset& p : kMoePresets) {
    if (has(run.model, p.part)) return &p;
  }
  return nullptr;
}

// Where a column the table states differs from the preset: "experts 128 is not
// deepseek-v3's 256"; empty when every stated one agrees.
std::string preset_mismatch(const PublishedRun& run, std::string_view name) {
  const TransformerShape m = model_preset(name);
  const std::array<std::tuple<std::string_view, std::optional<std::int64_t>, std::int64_t>, 8>
      columns = {{{"layers", run.layers, m.layers},
                  {"hidden", run.hidden, m.hidden},
                  {"heads", run.heads, m.heads},
                  {"vocab", run.vocab, m.vocab},
                  {"experts", run.experts, m.experts},
                  {"topk", run.topk, m.topk},
                  {"moe_ffn_hidden", run.moe_ffn, m.moe_ffn > 0 ? m.moe_ffn : m.ffn},
                  {"shared_experts", run.shared_experts, m.shared_experts}}};
  for (const auto& [column, stated, preset] : columns) {
    if (stated && *stated != preset) {
      return fmt::format("{} {} is not {}'s {}", column, *stated, name, preset);
    }
  }
  return "";
}

// A mixture of experts' [model] keys: its preset at the run's sequence, with Megatron-Bridge's
// token-drop settings on a "(tokendrop)" run (scripts/performance/utils/overrides.py
// use_tokendrop: training/utils/moe_token_drop.py apply_moe_token_drop's defaults, capacity
// factor 1.0 with the experts padded to it); the others dropless, as the page says.
std::string moe_model_keys(const PublishedRun& run, const MoePreset& preset,
                           std::string& assumed) {
  std::string keys = fmt::format("preset = \"{}\"\nseq = {}\n", preset.preset,
                                 run.seq.value_or(0));
  if (has(run.model, "tokendrop")) {
    keys += "capacity_factor = 1.0\n";
    assumed += "token drop: capacity factor 1.0, padded (Megatron-Bridge's apply_moe_token_drop); ";
  }
  if (preset.preset == "deepseek-v3" && !has(run.model, "w/o mtp")) {
    assumed += "multi-token prediction not priced (the recipe's one MTP layer); ";
  }
  return keys;
}

// Why the model cannot price `run` at all, before its scenario is written, and the reason's
// kind; empty when it can.
std::pair<std::string, std::string> out_of_scope(const PublishedRun& run) {
  if (!run.task.empty() && ascii_lower(run.task) != "pre-training") {
    return {fmt::format("{}: only pre-training is priced", run.task), "fine-tuning"};
  }
  if (run.experts.value_or(0) > 0) {
    const MoePreset* preset = moe_preset(run);
    if (preset == nullptr) {
      return {"a mixture of experts without a model preset is not priced (the table gives no "
              "attention, dense layers or routing beyond its columns)",
              "mixture of experts"};
    }
    if (std::string why = preset_mismatch(run, preset->preset); !why.empty()) {
      return {fmt::format("the table's {}", why), "mixture of experts"};
    }
  }
  if (!run.gpus || !run.seq || !run.global_batch) {
    return {"the source does not state the GPUs, the sequence length and the global batch",
            "not stated"};
  }
  if (!run.tp || !run.pp) {
    return {"the source does not state the tensor and pipeline degrees", "not stated"};
  }
  if (!run.tokens_per_s_per_gpu && !run.tflops_per_gpu) {
    return {"no throughput is stated", "not stated"};
  }
  return {};
}

std::string case_name(const PublishedRun& run) {
  return fmt::format("{} on {} x {}{} ({}:{})", run.model, run.gpus.value_or(0), run.gpu,
                     run.precision.empty() ? "" : ", " + run.precision, run.source, run.line);
}

// The [parallel] keys; "" with `missing` set when the degrees do not divide the GPUs. A
// source that states cp fixes it (the degrees then make tp x cp x pp x dp).
std::string parallel_keys(const PublishedRun& run, std::string& assumed, std::string& missing) {
  const std::int64_t tp = *run.tp, pp = *run.pp, cp = run.cp.value_or(1), n = *run.gpus;
  if (n % (tp * pp * cp) != 0) {
    missing = run.cp ? fmt::format("tp x pp x cp = {} does not divide the {} GPUs", tp * pp * cp, n)
                     : fmt::format("tp x pp = {} does not divide the {} GPUs", tp * pp, n);
    return "";
  }
  std::string keys = fmt::format("tp = {}\npp = {}\ndp = {}\n", tp, pp, n / (tp * pp * cp));
  if (run.cp) keys += fmt::format("cp = {}\n", cp);
  if (run.experts.value_or(0) > 0) {
    if (run.ep) keys += fmt::format("ep = {}\n", *run.ep);
    assumed += run.ep ? "etp not stated: plan's choice; " : "ep and etp not stated: plan's choice; ";
  }
  if (run.vp) keys += fmt::format("interleave = {}\n", *run.vp);
  if (run.fsdp.value_or(0) > 0) keys += "zero = 3\n";
  if (!run.micro_batch) assumed += "micro-batch not stated: plan's choice; ";
  if (!run.vp && pp > 1) assumed += "interleave not stated: plan's choice; ";
  return keys;
}

double measured_step(const PublishedRun& run, const TransformerShape& shape) {
  const double tokens = static_cast<double>(*run.global_batch) * static_cast<double>(*run.seq);
  const double n = static_cast<double>(*run.gpus);
  if (run.tokens_per_s_per_gpu) return tokens / (*run.tokens_per_s_per_gpu * n);
  return megatron_model_flops(shape, static_cast<double>(*run.global_batch)) /
         (*run.tflops_per_gpu * 1e12 * n);
}

// GPUs per NVL72 rack where the GPUs do not fill whole racks of 72: 64, the largest power of
// two a rack holds, when the count is a multiple of it (the source does not state it).
std::string rack_share(const PublishedRun& run, const std::string& fabric, std::string& assumed) {
  constexpr std::int64_t kRack = 72, kUsed = 64;
  if (fabric.find("nvl72") == std::string::npos || *run.gpus % kRack == 0 ||
      *run.gpus % kUsed != 0) {
    return "";
  }
  assumed += fmt::format("GPUs per NVL72 rack not stated: {}; ", kUsed);
  return fmt::format("gpus_per_node = {}\n", kUsed);
}

// Writes the scenario of `c.run` into `c`, or the reason it cannot.
void write_scenario(PublishedCase& c, const Precision& precision) {
  const PublishedRun& run = c.run;
  std::string missing;
  const std::optional<std::string> gpu = gpu_preset(run);
  if (!gpu) {
    c.skipped = fmt::format("no accelerator preset for {}", run.gpu);
    c.skipped_kind = "no preset";
    return;
  }
  const std::optional<std::string> fabric = fabric_preset(run, c.assumptions);
  if (!fabric) {
    c.skipped = fmt::format("no fabric preset for {}", run.system);
    c.skipped_kind = "no preset";
    return;
  }
  const MoePreset* moe = run.experts.value_or(0) > 0 ? moe_preset(run) : nullptr;
  const std::string model = moe != nullptr ? moe_model_keys(run, *moe, c.assumptions)
                                           : model_keys(run, c.assumptions, missing);
  const std::string parallel = missing.empty() ? parallel_keys(run, c.assumptions, missing) : "";
  if (!missing.empty()) {
    c.skipped = missing;
    c.skipped_kind = "not stated";
    return;
  }
  std::string training = fmt::format("global_batch = {}\ndtype = \"{}\"\n", *run.global_batch,
                                     precision.dtype);
  if (run.micro_batch) training += fmt::format("micro_batch = {}\n", *run.micro_batch);
  c.scenario = fmt::format(
      "name = \"{}\"\n\n[model]\n{}\n[training]\n{}\n[parallel]\n{}\n[system]\n"
      "gpu = \"{}\"\nfabric = \"{}\"\ngpus = {}\n{}framework = \"megatron-core\"\n",
      c.name, model, training, parallel, *gpu, *fabric, *run.gpus,
      rack_share(run, *fabric, c.assumptions));
}

}  // namespace

double megatron_model_flops(const TransformerShape& m, double global_batch) {
  const double h = static_cast<double>(m.hidden);
  const double l = static_cast<double>(m.layers);
  const double s = static_cast<double>(m.seq);
  const double a = static_cast<double>(m.heads);
  const double k = static_cast<double>(m.kv_heads > 0 ? m.kv_heads : m.heads);
  const double f = static_cast<double>(m.ffn > 0 ? m.ffn : 4 * m.hidden);
  const double v = static_cast<double>(m.vocab);
  const double gated = m.mlp == MlpKind::kGated ? 1.5 : 1.0;
  return 12.0 * global_batch * s * l * h * h *
         ((1.0 + k / a + s / h) + f / h * gated + v / (2.0 * l * h));
}

PublishedCase published_case(const PublishedRun& run) {
  PublishedCase c;
  c.run = run;
  c.name = case_name(run);
  std::tie(c.skipped, c.skipped_kind) = out_of_scope(run);
  if (!c.skipped.empty()) return c;
  const Precision precision = precision_of(run);
  if (precision.dtype.empty()) {
    c.skipped = precision.skipped;
    c.skipped_kind = precision.kind;
    return c;
  }
  c.group = fmt::format("{} {}", run.gpu.substr(0, run.gpu.find(' ')), precision.group);
  if (const MoePreset* moe = run.experts.value_or(0) > 0 ? moe_preset(run) : nullptr) {
    c.family = fmt::format("{} {}", moe->family, run.gpu.substr(0, run.gpu.find(' ')));
  }
  write_scenario(c, precision);
  return c;
}

namespace {

// Prices `c` (a case with a scenario) as plan does under the degrees its scenario fixes.
void price(PublishedCase& c) {
  const ScenarioFile file = parse_scenario(c.scenario, c.run.source, "");
  SCALEWALL_CHECK(file.transformer.has_value());
  const TransformerScenario& t = *file.transformer;
  c.measured_step_s = measured_step(c.run, t.job.model);
  const SplitSearch search = search_splits(t.job, t.gpus, t.parallel, 1);
  if (search.ranked.empty()) {
    c.skipped = "no split runs: " + why_no_split(t.job, t.gpus, t.parallel);
    c.skipped_kind = "no split runs";
    return;
  }
  const SplitStep& best = search.ranked.front();
  c.split = best.split;
  c.fits = best.fits;
  c.predicted_step_s = best.step_s;
  c.error = best.step_s / c.measured_step_s - 1.0;
}

AccuracyGroup summarize(const std::string& name, const std::vector<double>& errors) {
  std::vector<double> abs;
  abs.reserve(errors.size());
  for (double e : errors) abs.push_back(std::fabs(e));
  std::sort(abs.begin(), abs.end());
  AccuracyGroup g;
  g.name = name;
  g.count = static_cast<std::int64_t>(abs.size());
  g.median_abs = median(abs);
  g.p90_abs = quantile(abs, 0.9);
  g.worst_abs = abs.back();
  g.median_signed = median(errors);
  return g;
}

}  // namespace

PublishedAccuracy published_accuracy(const std::vector<PublishedRun>& runs) {
  PublishedAccuracy out;
  std::map<std::string, std::vector<double>> by_group, by_family;
  std::vector<double> all, moe;
  for (const PublishedRun& run : runs) {
    PublishedCase c = published_case(run);
    if (c.skipped.empty()) {
      try {
        price(c);
      } catch (const InputError& e) {
        c.skipped = e.what();
        c.skipped_kind = "refused";
      }
    }
    // A mixture of experts is summarised apart, by family and GPU; the groups and "all" are
    // the dense runs'.
    if (c.skipped.empty() && !c.family.empty()) {
      by_family[c.family].push_back(c.error);
      moe.push_back(c.error);
    } else if (c.skipped.empty()) {
      by_group[c.group].push_back(c.error);
      all.push_back(c.error);
    }
    out.cases.push_back(std::move(c));
  }
  for (const auto& [name, errors] : by_group) out.groups.push_back(summarize(name, errors));
  if (!all.empty()) out.groups.push_back(summarize("all", all));
  std::vector<double> cp;
  for (const PublishedCase& c : out.cases) {
    if (c.skipped.empty() && c.split.cp > 1) cp.push_back(c.error);
  }
  if (!cp.empty()) out.context_parallel = summarize("cp > 1", cp);
  for (const auto& [name, errors] : by_family) {
    out.mixture_of_experts.push_back(summarize(name, errors));
  }
  if (!moe.empty()) out.mixture_of_experts.push_back(summarize("all MoE", moe));
  return out;
}

}  // namespace scalewall
