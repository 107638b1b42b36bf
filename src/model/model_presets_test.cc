// Tests of scalewall/model/model_presets.h: each preset's parameter count against the count
// its publisher gives, and the table's own consistency.
#include "scalewall/model/model_presets.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "test_support.h"

namespace scalewall {
namespace {

double billions(std::string_view name) { return model_parameters(model_preset(name)) / 1e9; }

// The exact counts of the models' safetensors (their model pages) and papers: the presets
// carry every weight, bias and norm, so they match to the parameter.
TEST(ModelPresets, ParameterCountsAreThePublishedOnes) {
  EXPECT_DOUBLE_EQ(model_parameters(model_preset("llama3.1-70b")), 70553706496.0);
  EXPECT_DOUBLE_EQ(model_parameters(model_preset("llama3.1-405b")), 405853388800.0);
  EXPECT_DOUBLE_EQ(model_parameters(model_preset("llama2-7b")), 6738415616.0);
  EXPECT_DOUBLE_EQ(model_parameters(model_preset("mistral-7b")), 7241732096.0);
  EXPECT_DOUBLE_EQ(model_parameters(model_preset("qwen2.5-7b")), 7615616512.0);
  EXPECT_DOUBLE_EQ(model_parameters(model_preset("llama3.1-8b")), 8030261248.0);
  EXPECT_DOUBLE_EQ(model_parameters(model_preset("llama2-13b")), 13015864320.0);
  EXPECT_DOUBLE_EQ(model_parameters(model_preset("llama2-70b")), 68976648192.0);
  EXPECT_NEAR(billions("qwen2.5-72b"), 72.7, 0.05);  // its model card's 72.7B
  // Papers that round: GPT-3 175.0B (Brown et al. Table 2.1; 51,200-token vocabulary);
  // Nemotron-4 15B: 3.2B embedding and 12.5B other parameters (Parmar et al. section 2);
  // Nemotron-4 340B: 9.4B embedding and 331.6B other parameters (its technical report).
  EXPECT_NEAR(billions("gpt3-175b"), 175.0, 0.5);
  EXPECT_NEAR(billions("nemotron4-15b"), 3.2 + 12.5, 0.1);
  const TransformerShape n340 = model_preset("nemotron4-340b");
  EXPECT_NEAR(embedding_parameters(n340) / 1e9, 9.4, 0.05);
  EXPECT_NEAR((model_parameters(n340) - embedding_parameters(n340)) / 1e9, 331.6, 0.05);
}

// Total and active counts of the mixtures of experts against their publishers' figures:
// Mixtral 8x7B 46.7B and 12.9B active (Mistral AI's announcement; Jiang et al. 2024 section 2),
// 8x22B 141B and 39B; Qwen3-30B-A3B 30.5B and 3.3B, Qwen3-235B-A22B 235B and 22B (their model
// cards, which cut to one decimal or a whole billion: 3.35B active is their "3.3B"); DeepSeek-V3
// 671B (the main model: the 14B multi-token prediction module is apart, README.md) and gpt-oss-
// 120b 116.83B (its model card, Table 1). These count the embeddings as model_parameters does.
TEST(ModelPresets, MixtureOfExpertsCountsAreThePublishedOnes) {
  const auto active = [](std::string_view name) {
    return active_parameters(model_preset(name)) / 1e9;
  };
  EXPECT_NEAR(billions("mixtral-8x7b"), 46.7, 0.467);
  EXPECT_NEAR(active("mixtral-8x7b"), 12.9, 0.129);
  EXPECT_NEAR(billions("mixtral-8x22b"), 141.0, 1.41);
  EXPECT_NEAR(active("mixtral-8x22b"), 39.0, 0.39);
  EXPECT_GE(billions("qwen3-30b-a3b"), 30.5);
  EXPECT_LT(billions("qwen3-30b-a3b"), 30.6);
  EXPECT_GE(active("qwen3-30b-a3b"), 3.3);
  EXPECT_LT(active("qwen3-30b-a3b"), 3.4);
  EXPECT_NEAR(billions("qwen3-235b-a22b"), 235.0, 2.35);
  EXPECT_NEAR(active("qwen3-235b-a22b"), 22.0, 0.22);
  EXPECT_NEAR(billions("deepseek-v3"), 671.0, 6.71);
  EXPECT_NEAR(billions("gpt-oss-120b"), 116.83, 0.01);
  // DeepSeek and OpenAI count the active parameters without the input embedding (a lookup,
  // no multiply): DeepSeek-V3's "37B activated" (arXiv:2412.19437, abstract; to the nearest
  // billion: every layer's attention, 3 dense MLPs, 58 x (8 + 1 shared) experts and routers,
  // the output layer: 36.63B) and gpt-oss-120b's 5.13B (its card's Table 1).
  const TransformerShape v3 = model_preset("deepseek-v3");
  const double v3_active = (active_parameters(v3) - input_embedding_parameters(v3)) / 1e9;
  EXPECT_GE(v3_active, 36.5);
  EXPECT_LT(v3_active, 37.5);
  EXPECT_DOUBLE_EQ(active_parameters(v3), 37552297472.0);
  EXPECT_DOUBLE_EQ(model_parameters(v3), 671026419200.0);
  const TransformerShape oss = model_preset("gpt-oss-120b");
  EXPECT_NEAR((active_parameters(oss) - input_embedding_parameters(oss)) / 1e9, 5.13, 0.01);
}

TEST(ModelPresets, FamiliesHaveTheirStructure) {
  const TransformerShape gpt = model_preset("gpt3-175b");
  EXPECT_EQ(gpt.mlp, MlpKind::kPlain);
  EXPECT_TRUE(gpt.tied_embeddings);
  EXPECT_EQ(gpt.position, PositionKind::kLearned);
  const TransformerShape nemotron = model_preset("nemotron4-15b");
  EXPECT_EQ(nemotron.mlp, MlpKind::kPlain);  // squared ReLU
  EXPECT_FALSE(nemotron.tied_embeddings);
  EXPECT_EQ(nemotron.position, PositionKind::kRotary);
  EXPECT_EQ(model_preset("qwen2.5-72b").biases, LinearBiases::kQkvOnly);
  EXPECT_EQ(model_preset("llama3.1-405b").kv_heads, 8);
  EXPECT_EQ(model_preset("mistral-7b").attention_window, 4096);
  const TransformerShape v3 = model_preset("deepseek-v3");
  EXPECT_EQ(v3.attention, AttentionKind::kMla);
  EXPECT_EQ(moe_layer_count(v3), 58);
  EXPECT_EQ(model_preset("qwen3-30b-a3b").head_dim, 128);
  EXPECT_EQ(model_preset("gpt-oss-120b").window_layers, 18);
}

TEST(ModelPresets, EveryPresetIsValidNamedOnceAndSourced) {
  std::set<std::string> names;
  for (const ModelPreset& p : model_presets()) {
    require_valid(p.shape);
    EXPECT_TRUE(names.insert(std::string(p.name)).second) << p.name;
    EXPECT_FALSE(p.source.empty()) << p.name;
    EXPECT_EQ(find_model_preset(p.name), &p);
  }
  EXPECT_GE(names.size(), 12u);
  EXPECT_EQ(find_model_preset("llama4"), nullptr);
  EXPECT_TRUE(contains(input_error_of([] { model_preset("llama4"); }),
                       "unknown model preset 'llama4' (expected one of: gpt3-175b, llama2-7b"));
}

}  // namespace
}  // namespace scalewall
