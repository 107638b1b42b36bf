// scalewall models: the built-in model presets (model/model_presets.h) with their shapes,
// parameter counts and sources, for a scenario's `[model] preset`.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/common.h"
#include "scalewall/base/error.h"
#include "scalewall/model/model_presets.h"

namespace scalewall::cli {
namespace {

struct ModelsFlags {
  std::string name;
  std::string format = "table";
};

Report run_models(const ModelsFlags& flags) {
  Report report;
  report.command = "models";
  report.kind = Kind::kModel;
  report.banner = "MODEL PRESETS: published shapes (config.json or paper), not measurements";
  report.title = "Built-in models: [model] preset = \"NAME\" takes one; keys beside it override it";
  Table t{"models",
          {{"name", "name", Unit::kText},
           {"parameters", "parameters", Unit::kCount},
           {"parameters_billion", "billion", Unit::kPlain},
           {"active_parameters", "active parameters", Unit::kCount},
           {"active_parameters_billion", "active billion", Unit::kPlain},
           {"experts", "experts", Unit::kCount},
           {"topk", "topk", Unit::kCount},
           {"attention", "attention", Unit::kText},
           {"hidden", "hidden", Unit::kCount},
           {"ffn", "ffn", Unit::kCount},
           {"heads", "heads", Unit::kCount},
           {"kv_heads", "KV heads", Unit::kCount},
           {"layers", "layers", Unit::kCount},
           {"vocab", "vocab", Unit::kCount},
           {"seq", "seq (tokens)", Unit::kCount},
           {"mlp", "mlp", Unit::kText},
           {"tied_embeddings", "tied", Unit::kText},
           {"position", "position", Unit::kText},
           {"source", "source", Unit::kText}},
          {},
          {}};
  for (const ModelPreset& p : model_presets()) {
    if (!flags.name.empty() && p.name != flags.name) continue;
    const TransformerShape& m = p.shape;
    const double parameters = model_parameters(m);
    const double active = active_parameters(m);
    t.add_row({std::string(p.name), static_cast<std::int64_t>(parameters), parameters / 1e9,
               static_cast<std::int64_t>(active), active / 1e9, m.experts, m.topk,
               std::string(attention_name(m.attention)), m.hidden, m.ffn, m.heads, m.kv_heads,
               m.layers, m.vocab, m.seq,
               std::string(mlp_name(m.mlp)), m.tied_embeddings,
               std::string(position_name(m.position)), std::string(p.source)});
  }
  report.tables.push_back(std::move(t));
  report.notes.push_back(
      "parameters: every weight, bias and norm, and the embeddings (the output layer counted "
      "once when tied); billion = parameters / 1e9. active parameters: what one token uses "
      "(every layer's attention, the dense layers' MLPs, each MoE layer's router, top-k and "
      "shared experts, the embeddings as counted above); experts: routed experts per MoE layer "
      "(0: dense); attention: mha (multi-head or grouped-query) or mla (multi-head latent). "
      "seq: the sequence length the source "
      "pre-trained at, which a scenario's seq overrides. A Hugging Face config.json serves as "
      "well: [model] preset = \"path/config.json\" (docs/models.md, \"Model presets\").");
  return report;
}

void run(const ModelsFlags& flags) {
  if (!flags.name.empty() && find_model_preset(flags.name) == nullptr) {
    throw InputError(fmt::format("no model preset '{}' (presets: {})", flags.name,
                                 model_preset_names()));
  }
  emit(run_models(flags), flags.format);
}

}  // namespace

void register_models(CLI::App& app) {
  auto flags = std::make_shared<ModelsFlags>();
  const FlagGroup own = {
      {"name", &flags->name, "Show this preset only (" + model_preset_names() + ")", "NAME"},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "models",
      "The built-in model presets (GPT-3, Llama 2 and 3.1, Mistral, Qwen2.5, Nemotron-4, "
      "Mixtral, Qwen3-MoE, DeepSeek-V3, gpt-oss) with their total and active parameter counts "
      "and sources: a transformer scenario's [model] preset takes their names.",
      {own},
      "Examples:\n"
      "  scalewall models\n"
      "  scalewall models llama3.1-70b --format json\n"
      "  scalewall predict examples/llama3.1-70b-h100.toml"});
  cmd->callback([flags] { run(*flags); });
}

}  // namespace scalewall::cli
