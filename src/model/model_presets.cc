// Implementation of scalewall/model/model_presets.h: the table of published shapes.
#include "scalewall/model/model_presets.h"

#include <fmt/format.h>

#include <array>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

// The families' structure, from the same sources as their dimensions:
// GPT-3 (Brown et al. 2020, section 2.1: GPT-2's architecture): a plain GeLU MLP, biases on
// every linear layer, LayerNorm, learned positions, the output layer tied to the embedding.
// Llama 2, Llama 3.1, Mistral (their config.json: LlamaForCausalLM / MistralForCausalLM with
// attention_bias and mlp_bias false, rms_norm_eps, rope_theta, tie_word_embeddings false):
// SwiGLU (gated), no biases, RMSNorm, rotary, untied. Qwen2.5 (Qwen2ForCausalLM): the same
// with biases on the QKV projection only (transformers' modeling_qwen2.py, bias=True on q, k,
// v). Nemotron-4 (Parmar et al. 2024, section 2): squared ReLU (plain), no biases, LayerNorm,
// rotary, untied.
TransformerShape gpt(std::int64_t h, std::int64_t a, std::int64_t l, std::int64_t s,
                     std::int64_t v) {
  return {h, 4 * h, a, a, l, s, v, MlpKind::kPlain, true, PositionKind::kLearned,
          LinearBiases::kAll, NormKind::kLayerNorm, 0};
}

TransformerShape llama(std::int64_t h, std::int64_t f, std::int64_t a, std::int64_t k,
                       std::int64_t l, std::int64_t s, std::int64_t v,
                       LinearBiases biases = LinearBiases::kNone) {
  return {h, f, a, k, l, s, v, MlpKind::kGated, false, PositionKind::kRotary, biases,
          NormKind::kRmsNorm, 0};
}

TransformerShape nemotron(std::int64_t h, std::int64_t a, std::int64_t k, std::int64_t l,
                          std::int64_t s, std::int64_t v) {
  return {h, 4 * h, a, k, l, s, v, MlpKind::kPlain, false, PositionKind::kRotary,
          LinearBiases::kNone, NormKind::kLayerNorm, 0};
}

TransformerShape mistral_7b() {
  TransformerShape m = llama(4096, 14336, 32, 8, 32, 4096, 32000);
  m.attention_window = 4096;  // sliding_window 4096 in its config.json; the paper's W
  return m;
}

const std::array<ModelPreset, 12> kPresets = {{
    {"gpt3-175b", "GPT-3 175B",
     "Brown et al. 2020, Table 2.1 (96 layers, d_model 12288, 96 heads, n_ctx 2048); "
     "vocabulary 51,200 as Narayanan et al. 2021 train it (GPT-2's 50,257 padded)",
     gpt(12288, 96, 96, 2048, 51200)},
    {"llama2-7b", "Llama 2 7B",
     "huggingface.co/meta-llama/Llama-2-7b-hf config.json; seq 4096: Touvron et al. 2023, "
     "Table 1", llama(4096, 11008, 32, 32, 32, 4096, 32000)},
    {"llama2-13b", "Llama 2 13B",
     "huggingface.co/meta-llama/Llama-2-13b-hf config.json; seq 4096: Touvron et al. 2023, "
     "Table 1", llama(5120, 13824, 40, 40, 40, 4096, 32000)},
    {"llama2-70b", "Llama 2 70B",
     "huggingface.co/meta-llama/Llama-2-70b-hf config.json; seq 4096: Touvron et al. 2023, "
     "Table 1", llama(8192, 28672, 64, 8, 80, 4096, 32000)},
    {"llama3.1-8b", "Llama 3.1 8B",
     "huggingface.co/meta-llama/Llama-3.1-8B config.json; seq 8192: Llama Team 2024, "
     "section 3.4.1", llama(4096, 14336, 32, 8, 32, 8192, 128256)},
    {"llama3.1-70b", "Llama 3.1 70B",
     "huggingface.co/meta-llama/Llama-3.1-70B config.json; seq 8192: Llama Team 2024, "
     "section 3.4.1", llama(8192, 28672, 64, 8, 80, 8192, 128256)},
    {"llama3.1-405b", "Llama 3.1 405B",
     "huggingface.co/meta-llama/Llama-3.1-405B config.json; seq 8192: Llama Team 2024, "
     "section 3.4.1 and Table 3", llama(16384, 53248, 128, 8, 126, 8192, 128256)},
    {"mistral-7b", "Mistral 7B (v0.1)",
     "huggingface.co/mistralai/Mistral-7B-v0.1 config.json and Jiang et al. 2023, Table 1; "
     "seq 4096: its sliding window, up to which attention is full", mistral_7b()},
    {"qwen2.5-7b", "Qwen2.5 7B",
     "huggingface.co/Qwen/Qwen2.5-7B config.json; seq 4096: the Qwen2.5 technical report "
     "(Qwen Team 2024), section 3: pre-training at 4,096 tokens before the long-context stage",
     llama(3584, 18944, 28, 4, 28, 4096, 152064, LinearBiases::kQkvOnly)},
    {"qwen2.5-72b", "Qwen2.5 72B",
     "huggingface.co/Qwen/Qwen2.5-72B config.json; seq 4096: the Qwen2.5 technical report "
     "(Qwen Team 2024), section 3: pre-training at 4,096 tokens before the long-context stage",
     llama(8192, 29568, 64, 8, 80, 4096, 152064, LinearBiases::kQkvOnly)},
    {"nemotron4-15b", "Nemotron-4 15B",
     "Parmar et al. 2024 (arXiv:2402.16819), section 2 and Table 1; FFN 24576: NeMo's "
     "Nemotron4Config15B (nemo/collections/llm/gpt/model/nemotron.py)",
     nemotron(6144, 48, 8, 32, 4096, 256000)},
    {"nemotron4-340b", "Nemotron-4 340B",
     "Nemotron-4 340B Technical Report (arXiv:2406.11704), Table 1; FFN 73728: NeMo's "
     "Nemotron4Config340B (nemo/collections/llm/gpt/model/nemotron.py)",
     nemotron(18432, 96, 8, 96, 4096, 256000)},
}};

}  // namespace

std::span<const ModelPreset> model_presets() { return kPresets; }

const ModelPreset* find_model_preset(std::string_view name) {
  for (const ModelPreset& p : kPresets) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string model_preset_names() {
  std::string names;
  for (const ModelPreset& p : kPresets) {
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  }
  return names;
}

TransformerShape model_preset(std::string_view name) {
  if (const ModelPreset* p = find_model_preset(name)) return p->shape;
  throw InputError(fmt::format("unknown model preset '{}' (expected one of: {}; or a "
                               "Hugging Face config.json path)",
                               name, model_preset_names()));
}

}  // namespace scalewall
