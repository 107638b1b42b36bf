// Implementation of scalewall/io/hf_config.h.
#include "scalewall/io/hf_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "json_input.h"
#include "scalewall/base/error.h"
#include "scalewall/io/input_file.h"

namespace scalewall {
namespace {

using Json = nlohmann::json;

// The largest dimension a config.json may give: 2^40, as a scenario's [model] keys.
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 40;

// How a family's config.json says which linear layers carry biases.
enum class BiasKeys {
  kFixed,            // the family's own, whatever the config says
  kBoth,             // attention_bias and mlp_bias, both alike (llama, nemotron)
  kNoAttentionBias,  // attention_bias true (biases on Q, K, V and O alone) is refused
  kAttentionAll,     // attention_bias must be true: biases everywhere (gpt_oss)
};

// A transformers model family: what its modeling_<family>.py builds that config.json does not
// spell out, and for a mixture of experts the key of its routed experts.
struct Family {
  std::string_view model_type;
  std::string_view architecture;  // its causal-LM class, for a config without model_type
  MlpKind mlp;
  LinearBiases biases;            // fixed, or for kBoth the default
  NormKind norm;
  BiasKeys bias_keys;
  const char* experts_key;        // nullptr: a dense family
  AttentionKind attention;
};

constexpr std::array<Family, 10> kFamilies = {{
    {"llama", "LlamaForCausalLM", MlpKind::kGated, LinearBiases::kNone, NormKind::kRmsNorm,
     BiasKeys::kBoth, nullptr, AttentionKind::kMha},
    {"mistral", "MistralForCausalLM", MlpKind::kGated, LinearBiases::kNone, NormKind::kRmsNorm,
     BiasKeys::kFixed, nullptr, AttentionKind::kMha},
    {"qwen2", "Qwen2ForCausalLM", MlpKind::kGated, LinearBiases::kQkvOnly, NormKind::kRmsNorm,
     BiasKeys::kFixed, nullptr, AttentionKind::kMha},
    {"nemotron", "NemotronForCausalLM", MlpKind::kPlain, LinearBiases::kNone,
     NormKind::kLayerNorm, BiasKeys::kBoth, nullptr, AttentionKind::kMha},
    {"gpt_neox", "GPTNeoXForCausalLM", MlpKind::kPlain, LinearBiases::kAll, NormKind::kLayerNorm,
     BiasKeys::kFixed, nullptr, AttentionKind::kMha},
    {"qwen3", "Qwen3ForCausalLM", MlpKind::kGated, LinearBiases::kNone, NormKind::kRmsNorm,
     BiasKeys::kNoAttentionBias, nullptr, AttentionKind::kMha},
    {"mixtral", "MixtralForCausalLM", MlpKind::kGated, LinearBiases::kNone, NormKind::kRmsNorm,
     BiasKeys::kFixed, "num_local_experts", AttentionKind::kMha},
    {"qwen3_moe", "Qwen3MoeForCausalLM", MlpKind::kGated, LinearBiases::kNone,
     NormKind::kRmsNorm, BiasKeys::kNoAttentionBias, "num_experts", AttentionKind::kMha},
    {"deepseek_v3", "DeepseekV3ForCausalLM", MlpKind::kGated, LinearBiases::kNone,
     NormKind::kRmsNorm, BiasKeys::kNoAttentionBias, "n_routed_experts", AttentionKind::kMla},
    {"gpt_oss", "GptOssForCausalLM", MlpKind::kGated, LinearBiases::kAll, NormKind::kRmsNorm,
     BiasKeys::kAttentionAll, "num_local_experts", AttentionKind::kMha},
}};

// The keys that give the routed experts of some family.
constexpr std::array<const char*, 3> kExpertsKeys = {"num_local_experts", "n_routed_experts",
                                                     "num_experts"};

// transformers' ACT2FN names of elementwise activations (activations.py).
constexpr std::array<std::string_view, 11> kActivations = {
    "silu", "swish", "gelu", "gelu_new", "gelu_fast", "gelu_pytorch_tanh", "quick_gelu",
    "gelu_accurate", "relu", "relu2", "relu6"};

std::string family_names() {
  std::string names;
  for (const Family& f : kFamilies) {
    names += (names.empty() ? "" : ", ") + std::string(f.model_type);
  }
  return names;
}

[[noreturn]] void fail(const std::string& source, std::string_view key, std::string_view what) {
  throw InputError(fmt::format("{}: field \"{}\" {}", source, key, what));
}

// The whole-number field `key` in [1, 2^40], or nullopt when it is absent or null.
std::optional<std::int64_t> optional_count(const Json& j, const char* key,
                                           const std::string& source) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  const bool whole = it->is_number_integer();
  const bool in_range =
      whole && (it->is_number_unsigned()
                    ? it->get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxDimension) &&
                          it->get<std::uint64_t>() >= 1
                    : it->get<std::int64_t>() >= 1 && it->get<std::int64_t>() <= kMaxDimension);
  if (!in_range) {
    fail(source, key, fmt::format("must be a whole number from 1 to 2^40, not {}",
                                  it->is_number() ? json_shown(*it) : json_type_words(*it)));
  }
  return it->get<std::int64_t>();
}

std::int64_t required_count(const Json& j, const char* key, const std::string& source) {
  const std::optional<std::int64_t> value = optional_count(j, key, source);
  if (!value) fail(source, key, "is missing");
  return *value;
}

// The boolean field `key`, or `fallback` when it is absent or null.
bool optional_flag(const Json& j, const char* key, bool fallback, const std::string& source) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) {
    fail(source, key, fmt::format("must be true or false, not {}", json_type_words(*it)));
  }
  return it->get<bool>();
}

// The family from model_type, or without one from the first of `architectures`.
const Family& family_of(const Json& j, const std::string& source) {
  const std::string type = optional_json_string(j, "model_type", "", source);
  std::string architecture;
  const auto arch = j.find("architectures");
  if (arch != j.end() && arch->is_array() && !arch->empty() && arch->front().is_string()) {
    architecture = arch->front().get<std::string>();
  }
  for (const Family& f : kFamilies) {
    if (type.empty() ? architecture == f.architecture : type == f.model_type) return f;
  }
  if (type.empty()) {
    fail(source, "model_type",
         fmt::format("is missing and architectures {} is none this reader knows, so nothing "
                     "tells a plain MLP from a gated one (model types: {}; or give the shape "
                     "as [model] keys)",
                     arch == j.end() ? "is missing" : json_shown(*arch), family_names()));
  }
  fail(source, "model_type",
       fmt::format("'{}' is unknown, so nothing tells a plain MLP from a gated one (model "
                   "types: {}; or give the shape as [model] keys)",
                   type, family_names()));
}

// What the reader cannot express, refused by its field: experts in a dense family's config,
// an activation it does not know.
void refuse_what_it_cannot_model(const Json& j, const Family& family, const std::string& source) {
  for (const char* key : kExpertsKeys) {
    const auto it = j.find(key);
    if (family.experts_key != nullptr || it == j.end() || it->is_null()) continue;
    if (it->is_number() && it->get<double>() <= 1.0) continue;
    std::string moe_types;
    for (const Family& f : kFamilies) {
      if (f.experts_key == nullptr) continue;
      moe_types += (moe_types.empty() ? "" : ", ") + std::string(f.model_type);
    }
    fail(source, key, fmt::format("= {}: experts in a model_type '{}' config, which this reader "
                                  "reads as a dense transformer (mixtures of experts: {})",
                                  json_shown(*it), family.model_type, moe_types));
  }
  const std::string act = optional_json_string(j, "hidden_act", "", source);
  if (j.contains("hidden_act") &&
      std::find(kActivations.begin(), kActivations.end(), act) == kActivations.end()) {
    fail(source, "hidden_act",
         fmt::format("'{}' is not an activation this reader knows (silu, gelu, gelu_new, "
                     "gelu_pytorch_tanh, relu, relu2, ...)", act));
  }
}

// Biases: a family's own, or as its attention_bias (and mlp_bias) say.
LinearBiases biases_of(const Family& f, const Json& j, const std::string& source) {
  switch (f.bias_keys) {
    case BiasKeys::kFixed: return f.biases;
    case BiasKeys::kNoAttentionBias:
      if (optional_flag(j, "attention_bias", false, source)) {
        fail(source, "attention_bias",
             "is true: biases on the attention's projections alone cannot be expressed");
      }
      return f.biases;
    case BiasKeys::kAttentionAll:
      if (!optional_flag(j, "attention_bias", true, source)) {
        fail(source, "attention_bias",
             "is false: the experts' and the router's biases without the attention's cannot "
             "be expressed");
      }
      return f.biases;
    case BiasKeys::kBoth: break;
  }
  const bool attention = optional_flag(j, "attention_bias", false, source);
  const bool mlp = optional_flag(j, "mlp_bias", false, source);
  if (attention != mlp) {
    fail(source, attention ? "attention_bias" : "mlp_bias",
         "is true and the other of attention_bias and mlp_bias false: biases on only the "
         "attention or only the MLP cannot be expressed");
  }
  return attention ? LinearBiases::kAll : LinearBiases::kNone;
}

// The sliding window, unless use_sliding_window turns it off, and of the layers those that
// use it (layer_types; 0: all of them). Sets attention_window and window_layers.
void read_window(const Json& j, TransformerShape& m, const std::string& source) {
  m.attention_window = 0;
  m.window_layers = 0;
  if (!optional_flag(j, "use_sliding_window", true, source)) return;
  m.attention_window = optional_count(j, "sliding_window", source).value_or(0);
  const auto types = j.find("layer_types");
  if (m.attention_window == 0 || types == j.end() || types->is_null()) return;
  if (!types->is_array() || static_cast<std::int64_t>(types->size()) != m.layers) {
    fail(source, "layer_types",
         fmt::format("must be an array of num_hidden_layers = {} layer types, not {}", m.layers,
                     types->is_array() ? fmt::format("{} of them", types->size())
                                       : json_type_words(*types)));
  }
  std::int64_t windowed = 0;
  for (const Json& t : *types) {
    const std::string type = t.is_string() ? t.get<std::string>() : json_shown(t);
    if (type != "sliding_attention" && type != "full_attention") {
      fail(source, "layer_types",
           fmt::format("holds '{}': only \"sliding_attention\" and \"full_attention\" layers "
                       "can be expressed", type));
    }
    windowed += type == "sliding_attention" ? 1 : 0;
  }
  if (windowed == 0) m.attention_window = 0;
  m.window_layers = windowed == m.layers ? 0 : windowed;
}

// The experts of a mixture-of-experts family: how many, the top-k, each one's FFN, the shared
// ones and which layers have them. Mixtral and gpt-oss's experts are intermediate_size wide;
// Qwen3-MoE and DeepSeek-V3 give moe_intermediate_size.
void read_experts(const Json& j, const Family& family, TransformerShape& m,
                  const std::string& source) {
  m.experts = required_count(j, family.experts_key, source);
  m.topk = required_count(j, "num_experts_per_tok", source);
  if (m.topk > m.experts) {
    fail(source, "num_experts_per_tok",
         fmt::format("= {} is more than {} = {}", m.topk, family.experts_key, m.experts));
  }
  const bool own_ffn = family.model_type == "qwen3_moe" || family.model_type == "deepseek_v3";
  if (own_ffn) m.moe_ffn = required_count(j, "moe_intermediate_size", source);
  if (family.model_type == "qwen3_moe") {
    const std::int64_t step = optional_count(j, "decoder_sparse_step", source).value_or(1);
    if (step != 1) {
      fail(source, "decoder_sparse_step",
           fmt::format("= {}: Qwen's MoE layers at (i + 1) % step == 0 count otherwise than "
                       "Megatron-Core's i % moe_every == 0 and cannot be expressed", step));
    }
    const auto only = j.find("mlp_only_layers");
    if (only != j.end() && !only->is_null() && !(only->is_array() && only->empty())) {
      fail(source, "mlp_only_layers",
           "is not empty: dense layers among the MoE ones cannot be expressed");
    }
  }
  if (family.model_type == "deepseek_v3") {
    m.shared_experts = optional_count(j, "n_shared_experts", source).value_or(0);
    m.dense_layers = optional_count(j, "first_k_dense_replace", source).value_or(0);
    m.moe_every = optional_count(j, "moe_layer_freq", source).value_or(1);
    m.router_bias = true;  // the gate's e_score_correction_bias (modeling_deepseek_v3.py)
    if (m.dense_layers >= m.layers) {
      fail(source, "first_k_dense_replace",
           fmt::format("= {} leaves no MoE layer of the {} layers", m.dense_layers, m.layers));
    }
  }
}

// Multi-head latent attention: its ranks (q_lora_rank null: no Q compression) and head sizes.
void read_mla(const Json& j, TransformerShape& m, const std::string& source) {
  m.attention = AttentionKind::kMla;
  m.q_lora_rank = optional_count(j, "q_lora_rank", source).value_or(0);
  m.kv_lora_rank = required_count(j, "kv_lora_rank", source);
  m.qk_nope_dim = required_count(j, "qk_nope_head_dim", source);
  m.qk_rope_dim = required_count(j, "qk_rope_head_dim", source);
  m.v_head_dim = required_count(j, "v_head_dim", source);
  if (m.kv_heads != m.heads) {
    fail(source, "num_key_value_heads",
         fmt::format("= {} is not num_attention_heads {}: multi-head latent attention has a "
                     "key and a value per head", m.kv_heads, m.heads));
  }
}

// The attention's heads: how they divide, and head_dim where it is not h / a.
void read_heads(const Json& j, const Family& family, TransformerShape& m,
                const std::string& source) {
  if (family.attention == AttentionKind::kMla) {
    read_mla(j, m, source);
    return;  // its head_dim is transformers' qk_rope_head_dim, not a head size
  }
  const std::optional<std::int64_t> head_dim = optional_count(j, "head_dim", source);
  if (!head_dim && m.hidden % m.heads != 0) {
    fail(source, "num_attention_heads",
         fmt::format("= {} does not divide hidden_size {}", m.heads, m.hidden));
  }
  if (m.heads % m.kv_heads != 0) {
    fail(source, "num_key_value_heads",
         fmt::format("= {} does not divide num_attention_heads {}", m.kv_heads, m.heads));
  }
  const bool apart = head_dim && (m.hidden % m.heads != 0 || *head_dim != m.hidden / m.heads);
  m.head_dim = apart ? *head_dim : 0;
}

}  // namespace

bool names_hf_config(std::string_view preset) {
  return preset.find('/') != std::string_view::npos ||
         (preset.size() >= 5 && preset.substr(preset.size() - 5) == ".json");
}

TransformerShape parse_hf_config(std::string_view text, const std::string& source) {
  const Json j = parse_json_input(text, source);
  if (!j.is_object()) {
    throw InputError(fmt::format("{}: expected a JSON object (a config.json), not {}", source,
                                 json_type_words(j)));
  }
  const Family& family = family_of(j, source);
  refuse_what_it_cannot_model(j, family, source);
  TransformerShape m;
  m.hidden = required_count(j, "hidden_size", source);
  m.ffn = required_count(j, "intermediate_size", source);
  m.heads = required_count(j, "num_attention_heads", source);
  m.kv_heads = optional_count(j, "num_key_value_heads", source).value_or(m.heads);
  m.layers = required_count(j, "num_hidden_layers", source);
  m.vocab = required_count(j, "vocab_size", source);
  read_heads(j, family, m, source);
  if (family.experts_key != nullptr) read_experts(j, family, m, source);
  m.mlp = family.mlp;
  m.biases = biases_of(family, j, source);
  m.norm = family.norm;
  m.position = PositionKind::kRotary;
  m.tied_embeddings = optional_flag(j, "tie_word_embeddings", false, source);
  read_window(j, m, source);
  const std::int64_t longest = optional_count(j, "max_position_embeddings", source).value_or(0);
  const bool every_layer = m.attention_window > 0 && m.window_layers == 0;
  m.seq = every_layer && longest > m.attention_window ? m.attention_window : longest;
  return m;
}

TransformerShape load_hf_config(const std::string& path) {
  return parse_hf_config(read_input_file(path, "model config file"), path);
}

}  // namespace scalewall
