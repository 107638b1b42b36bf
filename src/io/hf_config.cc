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

// A transformers model family: what its modeling_<family>.py builds that config.json does not
// spell out.
struct Family {
  std::string_view model_type;
  std::string_view architecture;  // its causal-LM class, for a config without model_type
  MlpKind mlp;
  LinearBiases biases;            // fixed, or for llama and nemotron the default
  NormKind norm;
  bool bias_keys;                 // reads attention_bias and mlp_bias
};

constexpr std::array<Family, 5> kFamilies = {{
    {"llama", "LlamaForCausalLM", MlpKind::kGated, LinearBiases::kNone, NormKind::kRmsNorm, true},
    {"mistral", "MistralForCausalLM", MlpKind::kGated, LinearBiases::kNone, NormKind::kRmsNorm,
     false},
    {"qwen2", "Qwen2ForCausalLM", MlpKind::kGated, LinearBiases::kQkvOnly, NormKind::kRmsNorm,
     false},
    {"nemotron", "NemotronForCausalLM", MlpKind::kPlain, LinearBiases::kNone,
     NormKind::kLayerNorm, true},
    {"gpt_neox", "GPTNeoXForCausalLM", MlpKind::kPlain, LinearBiases::kAll, NormKind::kLayerNorm,
     false},
}};

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

// What the reader cannot express, refused by its field.
void refuse_what_it_cannot_model(const Json& j, const std::string& source) {
  for (const char* key : {"num_local_experts", "n_routed_experts", "num_experts"}) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) continue;
    if (it->is_number() && it->get<double>() <= 1.0) continue;
    fail(source, key, fmt::format("= {}: a mixture-of-experts model; scalewall models dense "
                                  "transformers only", json_shown(*it)));
  }
  const std::string act = optional_json_string(j, "hidden_act", "", source);
  if (j.contains("hidden_act") &&
      std::find(kActivations.begin(), kActivations.end(), act) == kActivations.end()) {
    fail(source, "hidden_act",
         fmt::format("'{}' is not an activation this reader knows (silu, gelu, gelu_new, "
                     "gelu_pytorch_tanh, relu, relu2, ...)", act));
  }
}

// Biases: a family's own, or for llama and nemotron attention_bias and mlp_bias, both alike.
LinearBiases biases_of(const Family& f, const Json& j, const std::string& source) {
  if (!f.bias_keys) return f.biases;
  const bool attention = optional_flag(j, "attention_bias", false, source);
  const bool mlp = optional_flag(j, "mlp_bias", false, source);
  if (attention != mlp) {
    fail(source, attention ? "attention_bias" : "mlp_bias",
         "is true and the other of attention_bias and mlp_bias false: biases on only the "
         "attention or only the MLP cannot be expressed");
  }
  return attention ? LinearBiases::kAll : LinearBiases::kNone;
}

// The sliding window, unless use_sliding_window turns it off; 0: none.
std::int64_t window_of(const Json& j, const std::string& source) {
  if (!optional_flag(j, "use_sliding_window", true, source)) return 0;
  return optional_count(j, "sliding_window", source).value_or(0);
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
  refuse_what_it_cannot_model(j, source);
  const Family& family = family_of(j, source);
  TransformerShape m;
  m.hidden = required_count(j, "hidden_size", source);
  m.ffn = required_count(j, "intermediate_size", source);
  m.heads = required_count(j, "num_attention_heads", source);
  m.kv_heads = optional_count(j, "num_key_value_heads", source).value_or(m.heads);
  m.layers = required_count(j, "num_hidden_layers", source);
  m.vocab = required_count(j, "vocab_size", source);
  if (m.hidden % m.heads != 0) {
    fail(source, "num_attention_heads",
         fmt::format("= {} does not divide hidden_size {}", m.heads, m.hidden));
  }
  if (m.heads % m.kv_heads != 0) {
    fail(source, "num_key_value_heads",
         fmt::format("= {} does not divide num_attention_heads {}", m.kv_heads, m.heads));
  }
  const std::optional<std::int64_t> head_dim = optional_count(j, "head_dim", source);
  if (head_dim && *head_dim != m.hidden / m.heads) {
    fail(source, "head_dim",
         fmt::format("= {} is not hidden_size / num_attention_heads = {}: attention wider or "
                     "narrower than the hidden size cannot be expressed",
                     *head_dim, m.hidden / m.heads));
  }
  m.mlp = family.mlp;
  m.biases = biases_of(family, j, source);
  m.norm = family.norm;
  m.position = PositionKind::kRotary;
  m.tied_embeddings = optional_flag(j, "tie_word_embeddings", false, source);
  m.attention_window = window_of(j, source);
  const std::int64_t longest = optional_count(j, "max_position_embeddings", source).value_or(0);
  m.seq = m.attention_window > 0 && longest > m.attention_window ? m.attention_window : longest;
  return m;
}

TransformerShape load_hf_config(const std::string& path) {
  return parse_hf_config(read_input_file(path, "model config file"), path);
}

}  // namespace scalewall
