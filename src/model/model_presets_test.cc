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
