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

TEST(HfConfig, WhatItCannotExpressIsRefusedNamingTheField) {
  EXPECT_EQ(input_error_of([] { load_hf_config(hf("mixtral-8x7b-v0.1.json")); }),
            hf("mixtral-8x7b-v0.1.json") +
                ": field \"num_local_experts\" = 8: a mixture-of-experts model; scalewall "
                "models dense transformers only");
  EXPECT_EQ(error_of(R"(, "n_routed_experts": 64)"),
            "c.json: field \"n_routed_experts\" = 64: a mixture-of-experts model; scalewall "
            "models dense transformers only");
  EXPECT_EQ(error_of(R"(, "head_dim": 256)"),
            "c.json: field \"head_dim\" = 256 is not hidden_size / num_attention_heads = 128: "
            "attention wider or narrower than the hidden size cannot be expressed");
  EXPECT_EQ(error_of(R"(, "attention_bias": true)"),
            "c.json: field \"attention_bias\" is true and the other of attention_bias and "
            "mlp_bias false: biases on only the attention or only the MLP cannot be expressed");
  EXPECT_TRUE(contains(
      input_error_of([] {
        parse_hf_config(R"({"model_type": "gemma3", "hidden_size": 8})", "c.json");
      }),
      "c.json: field \"model_type\" 'gemma3' is unknown, so nothing tells a plain MLP from a "
      "gated one (model types: llama, mistral, qwen2, nemotron, gpt_neox;"));
  EXPECT_EQ(error_of(R"(, "hidden_act": "swiglu_oai")"),
            "c.json: field \"hidden_act\" 'swiglu_oai' is not an activation this reader knows "
            "(silu, gelu, gelu_new, gelu_pytorch_tanh, relu, relu2, ...)");
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
