// End-to-end tests of `scalewall models` and of model presets and config.json files in
// transformer scenarios.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

TEST(ModelsCli, ListsEveryPresetWithItsCountAndSource) {
  const auto j = run_json({"models"});
  ASSERT_EQ(j["models"].size(), 18u);
  EXPECT_EQ(j["models"][0]["name"], "gpt3-175b");
  for (const auto& m : j["models"]) {
    EXPECT_FALSE(m["source"].get<std::string>().empty()) << m;
    EXPECT_DOUBLE_EQ(m["parameters_billion"].get<double>(),
                     m["parameters"].get<double>() / 1e9) << m;
    EXPECT_DOUBLE_EQ(m["active_parameters_billion"].get<double>(),
                     m["active_parameters"].get<double>() / 1e9) << m;
    // A dense model uses all of its parameters; a mixture of experts fewer.
    if (m["experts"] == 0) {
      EXPECT_EQ(m["active_parameters"], m["parameters"]) << m;
    } else {
      EXPECT_LT(m["active_parameters"].get<double>(), m["parameters"].get<double>()) << m;
    }
  }
  const auto mixtral = run_json({"models", "mixtral-8x7b"})["models"][0];
  EXPECT_EQ(mixtral["parameters"], 46702792704);
  EXPECT_EQ(mixtral["active_parameters"], 12879925248);
  EXPECT_EQ(mixtral["experts"], 8);
  EXPECT_EQ(mixtral["topk"], 2);
  EXPECT_EQ(run_json({"models", "deepseek-v3"})["models"][0]["attention"], "mla");
  const auto one = run_json({"models", "llama3.1-405b"});
  ASSERT_EQ(one["models"].size(), 1u);
  EXPECT_EQ(one["models"][0]["parameters"], 405853388800);
  EXPECT_EQ(one["models"][0]["kv_heads"], 8);
  EXPECT_EQ(one["models"][0]["mlp"], "gated");
  EXPECT_EQ(one["models"][0]["tied_embeddings"], false);
  EXPECT_EQ(one["models"][0]["position"], "rotary");
  expect_input_error({"models", "llama4"}, "no model preset 'llama4' (presets: gpt3-175b,");
  const CliResult table = run_scalewall({"models", "mistral-7b"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("7241732096"), std::string::npos) << table.out;
}

// The example: Llama 3.1 70B from its preset, with the tool's count of its parameters.
TEST(ModelsCli, TheLlamaExampleRunsFromItsPreset) {
  const auto j = run_json({"predict", source_path("examples/llama3.1-70b-h100.toml")});
  EXPECT_TRUE(j["fits"].get<bool>());
  EXPECT_EQ(j["inputs"]["model"]["model"]["parameters"], 70553706496.0);
  EXPECT_EQ(j["inputs"]["model"]["model"]["kv_heads"], 8);
  // tp 8 on 8 KV heads and tp 16 on 8 KV heads both run, as Megatron-Core allows.
  for (const char* tp : {"8", "16"}) {
    const auto k = run_json({"predict", source_path("examples/llama3.1-70b-h100.toml"), "--tp",
                             tp, "--dp", tp == std::string("8") ? "2" : "1"});
    EXPECT_GT(k["step_s"].get<double>(), 0.0) << tp;
  }
}

// A config.json beside the scenario, found relative to it as a fabric file is.
TEST(ModelsCli, AScenarioReadsAConfigJsonBesideIt) {
  const std::string config = write_temp_file(
      "llama3.1-405b.json",
      "{\"model_type\": \"llama\", \"hidden_size\": 16384, \"intermediate_size\": 53248,"
      " \"num_attention_heads\": 128, \"num_key_value_heads\": 8, \"num_hidden_layers\": 126,"
      " \"vocab_size\": 128256, \"hidden_act\": \"silu\", \"tie_word_embeddings\": false,"
      " \"max_position_embeddings\": 131072}");
  const std::string dir = std::filesystem::path(config).parent_path().string();
  const std::string scenario = write_temp_file(
      "on-config.toml",
      "[model]\npreset = \"./llama3.1-405b.json\"\nseq = 8192\n[training]\nglobal_batch = "
      "2048\n[parallel]\ntp = 8\npp = 18\ndp = 8\nrecompute = \"full\"\n[system]\ngpu = "
      "\"h100-sxm\"\nfabric = \"dgx-h100\"\n");
  ASSERT_EQ(std::filesystem::path(scenario).parent_path().string(), dir);
  const auto j = run_json({"predict", scenario});
  EXPECT_EQ(j["inputs"]["model"]["model"]["parameters"], 405853388800.0);
  const std::string moe = write_temp_file(
      "moe.toml", "[model]\npreset = \"" + source_path("tests/data/hf/mixtral-8x7b-v0.1.json") +
                      "\"\n[training]\nglobal_batch = 64\n[system]\ngpu = \"h100-sxm\"\n"
                      "fabric = \"dgx-h100\"\n");
  const auto m = run_json({"predict", moe, "--tp", "8", "--pp", "1", "--dp", "1"});
  EXPECT_EQ(m["inputs"]["model"]["model"]["parameters"], 46702792704.0);
  EXPECT_EQ(m["inputs"]["model"]["model"]["active_parameters"], 12879925248.0);
  EXPECT_EQ(m["inputs"]["model"]["model"]["experts"], 8);
}

// The Mixtral example, NeMo's recipe: 8 experts over EP 8 on 64 H100s, and the model's inputs
// echoed with its total and active counts.
TEST(ModelsCli, TheMixtralExampleRunsWithExpertParallelism) {
  const auto j = run_json({"predict", source_path("examples/mixtral-8x7b.toml")});
  EXPECT_TRUE(j["fits"].get<bool>());
  const auto& model = j["inputs"]["model"]["model"];
  EXPECT_EQ(model["parameters"], 46702792704.0);
  EXPECT_EQ(model["active_parameters"], 12879925248.0);
  EXPECT_EQ(model["topk"], 2);
  EXPECT_EQ(model["moe_ffn"], 14336);
  EXPECT_EQ(model["capacity_factor"], 1.0);  // the recipe pads each expert to its capacity
  EXPECT_EQ(model["attention"], "mha");
  EXPECT_EQ(model["head_dim"], 128);
  EXPECT_EQ(j["ep"], 8);
  EXPECT_EQ(j["etp"], 1);
  EXPECT_EQ(j["inputs"]["model"]["parallel"]["ep"], 8);
  EXPECT_GT(j["ep_comm_s"].get<double>(), 0.0);
  EXPECT_NE(j["split"].get<std::string>().find("dp 16, ep 8 (etp 1), micro-batch 1"),
            std::string::npos);
  // One expert of each of a stage's 8 layers (8 / ep 8, whole: etp 1) on each GPU, 2 B each,
  // with the stage's attention, norms and router, and an end's embedding of V h (untied).
  const double expert_weights = 8.0 * 3 * 4096.0 * 14336 * 2;
  const double attention = 8.0 * (4096.0 * (4096 + 2 * 1024) + 4096.0 * 4096) * 2;
  const double embedding = 32000.0 * 4096 * 2;
  double weights = 0;
  for (const auto& part : j["memory"]) {
    if (part["part"] == "weights") weights = part["bytes"].get<double>();
  }
  EXPECT_GT(weights, expert_weights + attention + embedding);
  EXPECT_LT(weights, 1.01 * (expert_weights + attention + embedding));
}

}  // namespace
}  // namespace scalewall::testing
