// scalewall/io/hf_config.h: a Hugging Face transformers config.json read as a transformer
// shape, for a scenario's `[model] preset = "path/config.json"`.
//
// Read: hidden_size, intermediate_size, num_attention_heads, num_key_value_heads (absent or
// null: the heads), num_hidden_layers, vocab_size, tie_word_embeddings (absent: false, the
// default of every family below in transformers), max_position_embeddings (the default seq;
// absent: the scenario must give seq).
//
// What JSON keys cannot say, the family does: model_type (or, without it, the first of
// `architectures`) names one of
//   llama, mistral           gated MLP (SwiGLU), no biases, RMSNorm, rotary
//   qwen2                    gated MLP, biases on the QKV projection only, RMSNorm, rotary
//   nemotron                 plain MLP (squared ReLU), no biases, LayerNorm, rotary
//   gpt_neox                 plain MLP, biases everywhere, LayerNorm, rotary
// (transformers' modeling_<family>.py). llama and nemotron take attention_bias and mlp_bias:
// both true is biases everywhere. hidden_act must be an elementwise activation transformers
// knows (silu, gelu, relu2, ...); it does not change the FLOPs the model counts.
//
// Refused, naming the field and its value (InputError "<file>: field \"<key>\" ..."): a
// mixture of experts (num_local_experts, n_routed_experts, num_experts above 1), a head_dim
// other than hidden_size / num_attention_heads, an unknown model_type with no known
// architecture (nothing tells a plain MLP from a gated one), both biases not alike, and any
// count that is not a whole number from 1 to 2^40. A sliding_window (unless
// use_sliding_window is false) becomes the shape's attention_window: the default seq is
// then at most the window, and a longer seq is refused (require_valid).
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
