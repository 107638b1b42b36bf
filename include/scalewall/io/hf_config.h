// scalewall/io/hf_config.h: a Hugging Face transformers config.json read as a transformer
// shape, for a scenario's `[model] preset = "path/config.json"`.
//
// Read: hidden_size, intermediate_size, num_attention_heads, num_key_value_heads (absent or
// null: the heads), num_hidden_layers, vocab_size, head_dim (where it is not hidden_size /
// num_attention_heads), tie_word_embeddings (absent: false, the default of every family below
// in transformers), max_position_embeddings (the default seq; absent: the scenario must give
// seq).
//
// What JSON keys cannot say, the family does: model_type (or, without it, the first of
// `architectures`) names one of
//   llama, mistral           gated MLP (SwiGLU), no biases, RMSNorm, rotary
//   qwen2                    gated MLP, biases on the QKV projection only, RMSNorm, rotary
//   qwen3                    gated MLP, no biases, RMSNorm, rotary (its head_dim)
//   nemotron                 plain MLP (squared ReLU), no biases, LayerNorm, rotary
//   gpt_neox                 plain MLP, biases everywhere, LayerNorm, rotary
// or a mixture of experts, SwiGLU experts, RMSNorm, rotary:
//   mixtral                  num_local_experts of intermediate_size, no biases
//   qwen3_moe                num_experts of moe_intermediate_size, no biases; refused:
//                            decoder_sparse_step other than 1, a non-empty mlp_only_layers
//   deepseek_v3              n_routed_experts and n_shared_experts of moe_intermediate_size,
//                            the first first_k_dense_replace layers dense, an MoE layer every
//                            moe_layer_freq, the router's bias (e_score_correction_bias), no
//                            linear biases; multi-head latent attention (q_lora_rank, null:
//                            none; kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim,
//                            v_head_dim); its multi-token prediction module
//                            (num_nextn_predict_layers) is not read
//   gpt_oss                  num_local_experts of intermediate_size, biases everywhere
//                            (attention_bias must be true) and on the router
// with num_experts_per_tok their top-k (transformers' modeling_<family>.py). llama and
// nemotron take attention_bias and mlp_bias: both true is biases everywhere; qwen3,
// qwen3_moe and deepseek_v3 refuse attention_bias true. hidden_act must be an elementwise
// activation transformers knows (silu, gelu, relu2, ...); it does not change the FLOPs the
// model counts.
//
// Refused, naming the field and its value (InputError "<file>: field \"<key>\" ..."): experts
// (num_local_experts, n_routed_experts, num_experts above 1) in a dense family's config, a
// top-k above the experts, an unknown model_type with no known architecture (nothing tells a
// plain MLP from a gated one), biases not as the family can have them, MLA with fewer KV heads
// than heads, layer_types other than sliding_attention and full_attention, and any count that
// is not a whole number from 1 to 2^40. A sliding_window (unless use_sliding_window is false)
// becomes the shape's attention_window, on the layer_types' sliding_attention layers where
// there are some: when every layer has it the default seq is at most the window and a longer
// seq is refused (require_valid); when only some do (gpt-oss), those are priced over their band.
#ifndef SCALEWALL_HF_CONFIG_H_
#define SCALEWALL_HF_CONFIG_H_

#include <string>
#include <string_view>

#include "scalewall/model/transformer.h"

namespace scalewall {

// Whether a `[model] preset` value names a config.json file rather than a built-in preset:
// it ends in ".json" or holds a '/'.
bool names_hf_config(std::string_view preset);

// The shape `text` describes; `source` names the file in messages. The JSON limits of
// json_input apply (at most 2^21 values, 64 deep).
TransformerShape parse_hf_config(std::string_view text, const std::string& source);

// read_input_file(path, "model config file") (input_file.h), then parse_hf_config.
TransformerShape load_hf_config(const std::string& path);

}  // namespace scalewall

#endif  // SCALEWALL_HF_CONFIG_H_
