// Tests of scalewall/io/hf_config.h: the published config.json files of tests/data/hf read to
// the models' own parameter counts, and what the reader cannot express refused by its field.
#include "scalewall/io/hf_config.h"

#include <gtest/gtest.h>

#include <string>

#include "scalewall/model/model_presets.h"
#include "test_support.h"

namespace scalewall {
namespace {

std::string hf(const std::string& name) {
  return std::string(SCALEWALL_SOURCE_DIR) + "/tests/data/hf/" + name;
}

// A minimal Llama config with `extra` fields added before the closing brace.
std::string llama_config(const std::string& extra) {
  return R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
    "num_attention_heads": 32, "num_hidden_layers": 32, "vocab_size": 32000,
    "hidden_act": "silu", "max_position_embeddings": 4096)" + extra + "}";
}

std::string error_of(const std::string& extra) {
  return input_error_of([&] { parse_hf_config(llama_config(extra), "c.json"); });
}

TEST(HfConfig, PublishedConfigsGiveThePublishedParameterCounts) {
  const TransformerShape l70 = load_hf_config(hf("llama3.1-70b.json"));
  EXPECT_DOUBLE_EQ(model_parameters(l70), 70553706496.0);
  EXPECT_EQ(l70.seq, 131072);  // max_position_embeddings: the default seq
  EXPECT_EQ(l70.mlp, MlpKind::kGated);
  EXPECT_FALSE(l70.tied_embeddings);
  EXPECT_EQ(l70.position, PositionKind::kRotary);
  EXPECT_DOUBLE_EQ(model_parameters(load_hf_config(hf("llama3.1-405b.json"))), 405853388800.0);
  EXPECT_DOUBLE_EQ(model_parameters(load_hf_config(hf("llama2-7b.json"))), 6738415616.0);
  EXPECT_DOUBLE_EQ(model_parameters(load_hf_config(hf("mistral-7b-v0.1.json"))), 7241732096.0);
  const TransformerShape qwen = load_hf_config(hf("qwen2.5-7b.json"));
  EXPECT_DOUBLE_EQ(model_parameters(qwen), 7615616512.0);
  EXPECT_EQ(qwen.biases, LinearBiases::kQkvOnly);
  EXPECT_EQ(qwen.attention_window, 0);  // use_sliding_window false
}

TEST(HfConfig, AConfigAndItsPresetAgreeOnEverythingButTheSequence) {
  for (const auto& [file, preset] : {std::pair{"llama3.1-70b.json", "llama3.1-70b"},
                                     std::pair{"llama3.1-405b.json", "llama3.1-405b"},
                                     std::pair{"llama2-7b.json", "llama2-7b"},
                                     std::pair{"qwen2.5-7b.json", "qwen2.5-7b"}}) {
    TransformerShape read = load_hf_config(hf(file));
    const TransformerShape p = model_preset(preset);
    read.seq = p.seq;
    EXPECT_DOUBLE_EQ(model_parameters(read), model_parameters(p)) << file;
    EXPECT_DOUBLE_EQ(step_flops(read, 16, Recompute::kSelective).executed(),
                     step_flops(p, 16, Recompute::kSelective).executed())
        << file;
  }
}

TEST(HfConfig, ASlidingWindowBoundsTheDefaultSequence) {
  const TransformerShape m = load_hf_config(hf("mistral-7b-v0.1.json"));
  EXPECT_EQ(m.attention_window, 4096);
  EXPECT_EQ(m.seq, 4096);  // max_position_embeddings 32768, but the window is 4096
  require_valid(m);
}

// The mixtures of experts' published configs read to their presets' shapes: every count
// and FLOP alike (the sequence is the config's longest context, the preset's what it
// pre-trained at).
TEST(HfConfig, MixtureOfExpertsConfigsAgreeWithTheirPresets) {
  for (const auto& [file, preset] : {std::pair{"mixtral-8x7b-v0.1.json", "mixtral-8x7b"},
                                     std::pair{"mixtral-8x22b-v0.1.json", "mixtral-8x22b"},
                                     std::pair{"qwen3-30b-a3b.json", "qwen3-30b-a3b"},
                                     std::pair{"qwen3-235b-a22b.json", "qwen3-235b-a22b"},
                                     std::pair{"deepseek-v3.json", "deepseek-v3"},
                                     std::pair{"gpt-oss-120b.json", "gpt-oss-120b"}}) {
    TransformerShape read = load_hf_config(hf(file));
    const TransformerShape p = model_preset(preset);
    read.seq = p.seq;
    require_valid(read);
    EXPECT_DOUBLE_EQ(model_parameters(read), model_parameters(p)) << file;
    EXPECT_DOUBLE_EQ(active_parameters(read), active_parameters(p)) << file;
    EXPECT_DOUBLE_EQ(step_flops(read, 16, Recompute::kSelective).executed(),
                     step_flops(p, 16, Recompute::kSelective).executed())
        << file;
    EXPECT_EQ(moe_layer_count(read), moe_layer_count(p)) << file;
  }
}

// Their published counts, from the files themselves (the presets' test has each figure's
// source): each total and active count in [low, high) billion, the interval its publisher's
// rounding leaves (1% either side where it gives no more digits). DeepSeek-V3's and
// gpt-oss-120b's active counts leave out the input embedding (a lookup), as their publishers
// count.
TEST(HfConfig, MixtureOfExpertsConfigsGiveThePublishedCounts) {
  struct Published {
    const char* file;
    double total_low, total_high, active_low, active_high;
    bool without_lookup;
  };
  const Published rows[] = {
      {"mixtral-8x7b-v0.1.json", 46.233, 47.167, 12.771, 13.029, false},
      {"qwen3-30b-a3b.json", 30.5, 30.6, 3.3, 3.4, false},
      {"qwen3-235b-a22b.json", 232.65, 237.35, 21.78, 22.22, false},
      {"deepseek-v3.json", 664.29, 677.71, 36.5, 37.5, true},
      {"gpt-oss-120b.json", 116.825, 116.835, 5.125, 5.135, true}};
  for (const Published& p : rows) {
    const TransformerShape m = load_hf_config(hf(p.file));
    const double lookup = p.without_lookup ? input_embedding_parameters(m) : 0.0;
    const double total = model_parameters(m) / 1e9;
    const double active = (active_parameters(m) - lookup) / 1e9;
    EXPECT_TRUE(total >= p.total_low && total < p.total_high) << p.file << ": " << total;
    EXPECT_TRUE(active >= p.active_low && active < p.active_high) << p.file << ": " << active;
  }
  const TransformerShape v3 = load_hf_config(hf("deepseek-v3.json"));
  EXPECT_EQ(v3.attention, AttentionKind::kMla);
  EXPECT_EQ(v3.dense_layers, 3);
  EXPECT_EQ(v3.shared_experts, 1);
  EXPECT_EQ(v3.q_lora_rank, 1536);
  EXPECT_EQ(v3.seq, 163840);
  const TransformerShape oss = load_hf_config(hf("gpt-oss-120b.json"));
  EXPECT_EQ(oss.biases, LinearBiases::kAll);
  EXPECT_EQ(oss.head_dim, 64);
  EXPECT_EQ(oss.attention_window, 128);
  EXPECT_EQ(oss.window_layers, 18);  // layer_types: every other layer
  EXPECT_EQ(oss.seq, 131072);        // not every layer is windowed: the longest context
  // A head_dim of h / a is no head_dim apart.
  EXPECT_EQ(parse_hf_config(llama_config(R"(, "head_dim": 128)"), "c.json").head_dim, 0);
  EXPECT_EQ(parse_hf_config(llama_config(R"(, "head_dim": 256)"), "c.json").head_dim, 256);
}

TEST(HfConfig, WhatItCannotExpressIsRefusedNamingTheField) {
  EXPECT_EQ(error_of(R"(, "n_routed_experts": 64)"),
            "c.json: field \"n_routed_experts\" = 64: experts in a model_type 'llama' config, "
            "which this reader reads as a dense transformer (mixtures of experts: mixtral, "
            "qwen3_moe, deepseek_v3, gpt_oss)");
  EXPECT_EQ(error_of(R"(, "attention_bias": true)"),
            "c.json: field \"attention_bias\" is true and the other of attention_bias and "
            "mlp_bias false: biases on only the attention or only the MLP cannot be expressed");
  EXPECT_TRUE(contains(
      input_error_of([] {
        parse_hf_config(R"({"model_type": "gemma3", "hidden_size": 8})", "c.json");
      }),
      "c.json: field \"model_type\" 'gemma3' is unknown, so nothing tells a plain MLP from a "
      "gated one (model types: llama, mistral, qwen2, nemotron, gpt_neox, qwen3, mixtral, "
      "qwen3_moe, deepseek_v3, gpt_oss;"));
  EXPECT_EQ(error_of(R"(, "hidden_act": "swiglu_oai")"),
            "c.json: field \"hidden_act\" 'swiglu_oai' is not an activation this reader knows "
            "(silu, gelu, gelu_new, gelu_pytorch_tanh, relu, relu2, ...)");
}

// A Qwen3-MoE config with `extra` fields added.
std::string qwen3_moe_config(const std::string& extra) {
  return R"({"model_type": "qwen3_moe", "hidden_size": 2048, "intermediate_size": 6144,
    "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
    "num_hidden_layers": 48, "vocab_size": 151936, "num_experts": 128,
    "num_experts_per_tok": 8, "moe_intermediate_size": 768)" + extra + "}";
}

TEST(HfConfig, ExpertsItCannotPlaceAreRefusedNamingTheField) {
  const auto moe_error = [](const std::string& extra) {
    return input_error_of([&] { parse_hf_config(qwen3_moe_config(extra), "q.json"); });
  };
  EXPECT_EQ(parse_hf_config(qwen3_moe_config(""), "q.json").experts, 128);
  EXPECT_EQ(moe_error(R"(, "decoder_sparse_step": 2)"),
            "q.json: field \"decoder_sparse_step\" = 2: Qwen's MoE layers at (i + 1) % step == "
            "0 count otherwise than Megatron-Core's i % moe_every == 0 and cannot be expressed");
  EXPECT_EQ(moe_error(R"(, "mlp_only_layers": [0, 1])"),
            "q.json: field \"mlp_only_layers\" is not empty: dense layers among the MoE ones "
            "cannot be expressed");
  EXPECT_EQ(moe_error(R"(, "attention_bias": true)"),
            "q.json: field \"attention_bias\" is true: biases on the attention's projections "
            "alone cannot be expressed");
  EXPECT_EQ(moe_error(R"(, "num_experts_per_tok": 200)"),
            "q.json: field \"num_experts_per_tok\" = 200 is more than num_experts = 128");
  EXPECT_EQ(input_error_of([] {
              parse_hf_config(R"({"model_type": "qwen3_moe", "hidden_size": 2048,
                  "intermediate_size": 6144, "num_attention_heads": 32, "num_hidden_layers": 48,
                  "vocab_size": 151936, "num_experts_per_tok": 8})", "q.json");
            }),
            "q.json: field \"num_experts\" is missing");
  EXPECT_EQ(moe_error(R"(, "sliding_window": 128, "layer_types": ["chunked_attention"])"),
            "q.json: field \"layer_types\" must be an array of num_hidden_layers = 48 layer "
            "types, not 1 of them");
  const std::string gpt_oss = R"({"model_type": "gpt_oss", "hidden_size": 2880,
      "intermediate_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8,
      "head_dim": 64, "num_hidden_layers": 2, "vocab_size": 201088, "num_local_experts": 128,
      "num_experts_per_tok": 4, "attention_bias": false})";
  EXPECT_EQ(input_error_of([&] { parse_hf_config(gpt_oss, "o.json"); }),
            "o.json: field \"attention_bias\" is false: the experts' and the router's biases "
            "without the attention's cannot be expressed");
  EXPECT_EQ(input_error_of([] {
              parse_hf_config(R"({"model_type": "deepseek_v3", "hidden_size": 7168,
                  "intermediate_size": 18432, "num_attention_heads": 128,
                  "num_key_value_heads": 8, "num_hidden_layers": 61, "vocab_size": 129280,
                  "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
                  "v_head_dim": 128})", "d.json");
            }),
            "d.json: field \"num_key_value_heads\" = 8 is not num_attention_heads 128: "
            "multi-head latent attention has a key and a value per head");
}

TEST(HfConfig, BadValuesAreRefusedNamingTheField) {
  EXPECT_EQ(input_error_of([] { parse_hf_config(R"({"model_type": "llama"})", "c.json"); }),
            "c.json: field \"hidden_size\" is missing");
  EXPECT_EQ(error_of(R"(, "num_key_value_heads": 5)"),
            "c.json: field \"num_key_value_heads\" = 5 does not divide num_attention_heads 32");
  EXPECT_EQ(error_of(R"(, "num_key_value_heads": 2.5)"),
            "c.json: field \"num_key_value_heads\" must be a whole number from 1 to 2^40, not "
            "2.5");
  EXPECT_EQ(error_of(R"(, "num_key_value_heads": "8")"),
            "c.json: field \"num_key_value_heads\" must be a whole number from 1 to 2^40, not a "
            "string");
  EXPECT_EQ(error_of(R"(, "sliding_window": 0)"),
            "c.json: field \"sliding_window\" must be a whole number from 1 to 2^40, not 0");
  EXPECT_EQ(error_of(R"(, "tie_word_embeddings": 1)"),
            "c.json: field \"tie_word_embeddings\" must be true or false, not a number");
  EXPECT_EQ(input_error_of([] { parse_hf_config("[1, 2]", "c.json"); }),
            "c.json: expected a JSON object (a config.json), not an array");
  EXPECT_TRUE(contains(input_error_of([] { parse_hf_config("{\"a\": ", "c.json"); }), "c.json:1"));
  // Keys that are whole and in range read; num_key_value_heads null is the heads.
  const TransformerShape m = parse_hf_config(llama_config(R"(, "num_key_value_heads": null,
      "tie_word_embeddings": true, "attention_bias": true, "mlp_bias": true)"), "c.json");
  EXPECT_EQ(m.kv_heads, 32);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.biases, LinearBiases::kAll);
}

TEST(HfConfig, APathNamesAConfigAndANameAPreset) {
  EXPECT_TRUE(names_hf_config("config.json"));
  EXPECT_TRUE(names_hf_config("models/llama"));
  EXPECT_FALSE(names_hf_config("llama3.1-70b"));
  EXPECT_FALSE(names_hf_config("json"));
}

}  // namespace
}  // namespace scalewall
