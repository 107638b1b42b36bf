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

// Mixtral (its config.json: MixtralForCausalLM, num_local_experts 8, num_experts_per_tok 2;
// Jiang et al. 2024, section 2): Mistral's layer with every MLP a mixture of 8 SwiGLU experts
// of intermediate_size each, top-2, no router bias.
TransformerShape mixtral(std::int64_t h, std::int64_t f, std::int64_t a, std::int64_t l,
                         std::int64_t s) {
  TransformerShape m = llama(h, f, a, 8, l, s, 32000);
  m.experts = 8;
  m.topk = 2;
  return m;
}

// Qwen3-MoE (Qwen3MoeForCausalLM, transformers' modeling_qwen3_moe.py): SwiGLU experts of
// moe_intermediate_size, num_experts 128, top-8, no shared expert, no router bias; head_dim
// 128 whatever h / a is; every layer an MoE layer (decoder_sparse_step 1, no mlp_only_layers).
// Its per-head query and key RMSNorms (2 x 128 per layer) are not counted.
TransformerShape qwen3_moe(std::int64_t h, std::int64_t f, std::int64_t a, std::int64_t l,
                           std::int64_t moe_ffn) {
  TransformerShape m = llama(h, f, a, 4, l, 4096, 151936);
  m.head_dim = 128;
  m.experts = 128;
  m.topk = 8;
  m.moe_ffn = moe_ffn;
  return m;
}

// DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json and inference/model.py; DeepSeek-AI 2024,
// arXiv:2412.19437, section 2.1 and 4.2): MLA with q_lora_rank 1536, kv_lora_rank 512,
// qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128; the first 3 layers dense (f
// 18432), the other 58 an MoE of 256 routed experts (top-8) and 1 shared, each of 2048, with
// the router's e_score_correction_bias; no linear biases, RMSNorm, untied.
TransformerShape deepseek_v3() {
  TransformerShape m = llama(7168, 18432, 128, 128, 61, 4096, 129280);
  m.attention = AttentionKind::kMla;
  m.q_lora_rank = 1536;
  m.kv_lora_rank = 512;
  m.qk_nope_dim = 128;
  m.qk_rope_dim = 64;
  m.v_head_dim = 128;
  m.experts = 256;
  m.topk = 8;
  m.moe_ffn = 2048;
  m.shared_experts = 1;
  m.dense_layers = 3;
  m.router_bias = true;
  return m;
}

// gpt-oss-120b (openai/gpt-oss-120b config.json; OpenAI 2025, the gpt-oss-120b & gpt-oss-20b
// model card, section 2): 36 layers of 64 query heads of 64 (q = 4096, not h = 2880) and 8 KV
// heads, biases on every linear layer and the router (attention_bias true; the experts'
// gate_up_proj_bias and down_proj_bias), 128 SwiGLU experts of 2880 (its clamped SwiGLU is
// gated), top-4; every other layer (layer_types) attends over a 128-token window. Its
// attention sinks (one per head, 2,304 in all) are not counted.
TransformerShape gpt_oss_120b() {
  TransformerShape m = llama(2880, 2880, 64, 8, 36, 4096, 201088, LinearBiases::kAll);
  m.head_dim = 64;
  m.experts = 128;
  m.topk = 4;
  m.attention_window = 128;
  m.window_layers = 18;
  return m;
}

const std::array<ModelPreset, 18> kPresets = {{
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
    {"mixtral-8x7b", "Mixtral 8x7B",
     "huggingface.co/mistralai/Mixtral-8x7B-v0.1 config.json; seq 32768: Jiang et al. 2024 "
     "(arXiv:2401.04088), section 2: trained with a context of 32k tokens",
     mixtral(4096, 14336, 32, 32, 32768)},
    {"mixtral-8x22b", "Mixtral 8x22B",
     "huggingface.co/mistralai/Mixtral-8x22B-v0.1 config.json; seq 65536: its "
     "max_position_embeddings, the 64k-token context Mistral AI announced it with",
     mixtral(6144, 16384, 48, 56, 65536)},
    {"qwen3-30b-a3b", "Qwen3-30B-A3B",
     "huggingface.co/Qwen/Qwen3-30B-A3B config.json; seq 4096: the Qwen3 technical report "
     "(arXiv:2505.09388), section 3.2: the general and reasoning stages at 4,096 tokens",
     qwen3_moe(2048, 6144, 32, 48, 768)},
    {"qwen3-235b-a22b", "Qwen3-235B-A22B",
     "huggingface.co/Qwen/Qwen3-235B-A22B config.json; seq 4096: the Qwen3 technical report "
     "(arXiv:2505.09388), section 3.2",
     qwen3_moe(4096, 12288, 64, 94, 1536)},
    {"deepseek-v3", "DeepSeek-V3",
     "huggingface.co/deepseek-ai/DeepSeek-V3 config.json and DeepSeek-V3 inference/model.py; "
     "seq 4096: DeepSeek-AI 2024 (arXiv:2412.19437), section 4.2; the multi-token prediction "
     "module (num_nextn_predict_layers 1) is not modelled, as the 671B leaves it out",
     deepseek_v3()},
    {"gpt-oss-120b", "gpt-oss-120b",
     "huggingface.co/openai/gpt-oss-120b config.json; seq 4096: its initial_context_length; "
     "the gpt-oss model card (OpenAI 2025), section 2: 116.83B parameters",
     gpt_oss_120b()},
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
