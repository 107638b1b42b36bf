// End-to-end tests of `scalewall gpus` and of GPU files wherever an accelerator is taken (a
// transformer scenario's system.gpu, --gpu).
#include <gtest/gtest.h>

#include <string>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

TEST(GpusCli, ListsEveryPresetAsJson) {
  const auto j = run_json({"gpus"});
  ASSERT_EQ(j["gpus"].size(), 9u);
  EXPECT_EQ(j["gpus"][2]["name"], "h100-sxm");
  EXPECT_DOUBLE_EQ(j["gpus"][2]["bf16_tflops"].get<double>(), 989.4);
  EXPECT_DOUBLE_EQ(j["gpus"][2]["fp8_tflops"].get<double>(), 1979);
  EXPECT_DOUBLE_EQ(j["gpus"][2]["hbm_bytes"].get<double>(), 80e9);
  EXPECT_DOUBLE_EQ(j["gpus"][2]["hbm_Bps"].get<double>(), 3.35e12);
  EXPECT_EQ(j["gpus"][2]["compute_units"], 132);
  EXPECT_DOUBLE_EQ(j["gpus"][2]["max_efficiency"].get<double>(), 794.5 / 989.4);
  EXPECT_DOUBLE_EQ(j["gpus"][2]["half_flops"].get<double>(), 2214592512.0);
  // The A100 has no FP8: its FP8 columns are null, never 0.
  EXPECT_TRUE(j["gpus"][1]["fp8_tflops"].is_null());
  EXPECT_TRUE(j["gpus"][1]["fp8_max_efficiency"].is_null());
  for (const auto& g : j["gpus"]) EXPECT_FALSE(g["description"].get<std::string>().empty());
  const auto one = run_json({"gpus", "gb200"});
  ASSERT_EQ(one["gpus"].size(), 1u);
  EXPECT_DOUBLE_EQ(one["gpus"][0]["bf16_tflops"].get<double>(), 2500);
  const CliResult table = run_scalewall({"gpus"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("h100-sxm          989.4"), std::string::npos) << table.out;
}

TEST(GpusCli, AnUnknownNameIsRefusedListingThePresets) {
  const CliResult r = run_scalewall({"gpus", "v100"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err,
            "error: no gpu preset 'v100' (presets: a100-40gb, a100-80gb, h100-sxm, h200, b200, "
            "b300, gb200, gb300, mi300x)\n");
  expect_input_error({"gpus", "--toml"}, "--toml needs a preset NAME");
}

// The TOML a preset prints is a GPU file that predicts exactly as the preset does.
TEST(GpusCli, ThePrintedTomlIsTheSamePart) {
  const CliResult toml = run_scalewall({"gpus", "h100-sxm", "--toml"});
  ASSERT_EQ(toml.exit_code, 0) << toml.err;
  EXPECT_NE(toml.out.find("bf16_tflops = 989.4\n"), std::string::npos) << toml.out;
  EXPECT_NE(toml.out.find("[matmul_fp8]\n"), std::string::npos) << toml.out;
  const std::string file = write_temp_file("my-h100.toml", toml.out);
  const std::string example = source_path("examples/gpt3-175b-a100.toml");
  const auto from_file = run_json({"predict", example, "--gpu", file});
  const auto from_name = run_json({"predict", example, "--gpu", "h100-sxm"});
  ASSERT_TRUE(from_name["step_s"].is_number());
  EXPECT_EQ(from_file["step_s"], from_name["step_s"]);
  EXPECT_EQ(from_file["breakdown"], from_name["breakdown"]);
  EXPECT_EQ(from_file["memory"], from_name["memory"]);
  EXPECT_EQ(from_file["inputs"]["model"]["system"]["gpu"], "h100-sxm");
}

// A scenario's system.gpu names a GPU file relative to the scenario, as its fabric is.
TEST(GpusCli, AScenarioNamesAGpuFile) {
  const CliResult toml = run_scalewall({"gpus", "b200", "--toml"});
  ASSERT_EQ(toml.exit_code, 0) << toml.err;
  write_temp_file("b200-copy.toml", toml.out);
  const std::string scenario = write_temp_file(
      "on-gpu-file.toml",
      "name = \"on-gpu-file\"\n[model]\nhidden = 4096\nheads = 32\nlayers = 32\nseq = 2048\n"
      "vocab = 51200\n[training]\nglobal_batch = 512\n[parallel]\ntp = 8\npp = 1\ndp = 8\n"
      "[system]\ngpu = \"b200-copy.toml\"\nfabric = \"dgx-b200\"\ngpus = 64\n");
  const auto j = run_json({"predict", scenario});
  const auto preset = run_json({"predict", scenario, "--gpu", "b200"});
  ASSERT_TRUE(preset["step_s"].is_number());
  EXPECT_EQ(j["step_s"], preset["step_s"]);
  EXPECT_EQ(j["breakdown"], preset["breakdown"]);
  const std::string bad = write_temp_file("bad-gpu.toml", "bf16_tflops = 0\n");
  const CliResult r = run_scalewall({"predict", scenario, "--gpu", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--gpu: " + bad + ": bf16_tflops (line 1): 0 is outside the range"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace scalewall::testing
